// bench/spmm/onchip_paths.cu: how fast one SM can bring rows of X into registers, by path, measured: the facts
// behind the on-chip floor of bench/results/spmm-h200.md and behind the kernels that were not kept for it.
//
// A batch-32 SpMM kernel that gathers on chip reads each non-zero's 128-byte row of X (32 fp32 values) into
// registers, 4 x 32 bytes of it per non-zero and lane group; how many such rows an SM can read per clock bounds
// it. Three questions, each answered by a synthetic kernel on every SM (1024 threads, one block per SM, 32 fp32
// sums per lane, loads of random rows drawn by a multiplicative hash, no global stores but the results):
//   1. Wavefronts of ld.shared.v4 (LDS.128) by address pattern: does a warp whose lanes share addresses, or read
//      fewer distinct 16-byte pieces, cost fewer than four wavefronts? (If it did, ordering the non-zeros so that
//      lanes share X rows would beat the floor.)
//   2. The walk of rowlanes_kernel (lane = row, eight LDS.128 and 32 FMAs per non-zero) alone, and with a share of
//      the non-zeros' rows read through the texture path (TLD) from a small L1-resident block instead: in the
//      same warps (lane rows: each lane reads its own row's pieces) or in separate warps (quarter rows: eight lanes
//      read one row, a 16-byte piece each), at several shared-memory sizes (the carveout matters).
//   3. The same two-path walk with W streamed as the real kernel streams it (per lane and chunk step one 16-byte
//      value load and one 8-byte column load, ld.global.nc.L1::no_allocate, 512 bytes per warp step).
// Output: a markdown table (non-zeros per clock per SM: a non-zero is one 128-byte row read and 32 FMAs; the
// clock is the SM clock counted by clock64 in the kernels) with the device, date and commit; --out DIR writes it
// to DIR/onchip-paths-<gpu>.md too (<gpu>: the device's model, as h100 or h200). One run takes a few seconds.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "spmm/loads.cuh"   // ld_stream: W's values and columns read as the SpMM kernels read them

#include "../device_tag.hpp"   // device_tag: the output's name
#include "bench_commit.h"   // SNACK_GIT_COMMIT (bench/commit.cmake)

namespace {

using snk::cuda::ld_stream;

#define CHECK(x)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "onchip_paths: %s at line %d: %s\n", #x, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

constexpr int kThreads = 1024;

__device__ __forceinline__ unsigned next_random(unsigned& r) { return r = r * 1664525u + 1013904223u; }
// A random index below n from the hash state (n < 65536).
__device__ __forceinline__ unsigned below(unsigned r, unsigned n) { return ((r >> 16) * n) >> 16; }

__device__ __forceinline__ float4 lds128(unsigned addr) {
  float4 v;
  asm volatile("ld.volatile.shared.v4.f32 {%0,%1,%2,%3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "r"(addr));
  return v;
}

__device__ __forceinline__ void fma4(float (&a)[4], float w, float4 x) {
  a[0] = fmaf(w, x.x, a[0]);
  a[1] = fmaf(w, x.y, a[1]);
  a[2] = fmaf(w, x.z, a[2]);
  a[3] = fmaf(w, x.w, a[3]);
}

// 1. Eight LDS.128 per iteration at 16-byte piece `piece(lane)` of eight 4 KB areas; cycles per instruction.
__global__ void __launch_bounds__(kThreads, 1) lds_pattern_kernel(int pattern, int iters, float* out) {
  __shared__ __align__(128) float buf[10240];
  for (int i = threadIdx.x; i < 10240; i += kThreads) buf[i] = static_cast<float>(i & 255);
  __syncthreads();
  const unsigned l = threadIdx.x & 31;
  unsigned piece = l;                                     // 0: 32 distinct pieces (512 contiguous bytes)
  if (pattern == 1) piece = 0;                            // every lane the same piece
  if (pattern == 2) piece = l & 7;                        // 8 distinct pieces, one 128-byte bank line
  if (pattern == 3) piece = l & 15;                       // 16 distinct pieces
  if (pattern == 4) piece = (l & 15) * 8 + (l & 7);       // rows l & 15, piece l & 7 (lanes l, l + 16 share)
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(buf)) + piece * 16;
  float acc = 0;
  for (int it = 0; it < iters; ++it)
#pragma unroll
    for (int u = 0; u < 8; ++u) {
      const float4 v = lds128(base + (u << 12));
      acc += v.x * v.y + v.z * v.w;
    }
  out[blockIdx.x * kThreads + threadIdx.x] = acc;
}

struct WalkArgs {
  int held_rows = 0;        // X rows held in shared memory (128 bytes each)
  int tex_rows = 0;         // X rows of the texture block
  int lds_warps = 32;       // warps walking shared memory; the others walk the texture path in quarter rows
  int lds_steps = 0;        // chunk steps (4 non-zeros per lane) of each shared-memory warp
  int tex_per_step = 0;     // lane rows: texture non-zeros per lane and step beside the 4 shared-memory ones
  int quarter_steps = 0;    // quarter-row warps: steps of 8 non-zeros per quarter
  bool stream_w = false;    // shared-memory warps stream W's values and columns from global memory
  cudaTextureObject_t tex = 0;
  const uint4* w_values = nullptr;
  const uint2* w_cols = nullptr;
  float* out = nullptr;
  long long* clocks = nullptr;   // [blocks][32]: each warp's clocks
};

// 2 and 3. The walks; each warp records its clocks. Compiled per variant (kStream: W streamed; kLaneTex: lane rows
// per step through the texture path; kQuarter: warps past p.lds_warps walk quarter rows), so that no variant pays
// for another's registers.
template <bool kStream, int kLaneTex, bool kQuarter>
__global__ void __launch_bounds__(kThreads, 1) walk_kernel(WalkArgs p) {
  extern __shared__ __align__(128) float held[];
  for (int i = threadIdx.x; i < p.held_rows * 32; i += kThreads) held[i] = static_cast<float>(i & 255) * 0.001f;
  __syncthreads();
  const long long t0 = clock64();
  const int l = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const unsigned lp = l & 7;
  float a[8][4];
#pragma unroll
  for (int kk = 0; kk < 8; ++kk) a[kk][0] = a[kk][1] = a[kk][2] = a[kk][3] = 0.f;
  if (!kQuarter || warp < p.lds_warps) {
    const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(held)) + 16u * lp;
    unsigned r = threadIdx.x * 2654435761u + blockIdx.x * 977u;
    const std::size_t stride = std::size_t(gridDim.x) * 32 * 32;   // one step of every warp's stream
    const std::size_t first = (std::size_t(blockIdx.x) * 32 + warp) * 32 + l;
    uint4 wn = make_uint4(0, 0, 0, 0);
    uint2 cn = make_uint2(0, 0);
    if (kStream) {
      wn = ld_stream(p.w_values + first);
      cn = ld_stream(p.w_cols + first);
    }
    for (int s = 0; s < p.lds_steps; ++s) {
      const uint4 w0 = wn;
      const uint2 c0 = cn;
      if (kStream && s + 1 < p.lds_steps) {
        wn = ld_stream(p.w_values + first + (s + 1) * stride);
        cn = ld_stream(p.w_cols + first + (s + 1) * stride);
      }
#pragma unroll
      for (int t = 0; t < 4; ++t) {
        unsigned col;
        float wv;
        if (kStream) {
          const unsigned cw = t < 2 ? c0.x : c0.y;
          col = below(((t & 1) ? cw : cw << 16), p.held_rows);
          wv = __uint_as_float(t == 0 ? w0.x : t == 1 ? w0.y : t == 2 ? w0.z : w0.w);
        } else {
          next_random(r);
          col = below(r, p.held_rows);
          wv = 1.0f + (r & 15);
        }
        const unsigned row_addr = base + col * 128u;
#pragma unroll
        for (int kk = 0; kk < 8; ++kk) fma4(a[kk], wv, lds128(row_addr ^ (kk << 4)));
      }
#pragma unroll
      for (int t = 0; t < kLaneTex; ++t) {   // lane rows through the texture path
        next_random(r);
        const int row = static_cast<int>(below(r, p.tex_rows));
        const float wv = 1.0f + (r & 15);
#pragma unroll
        for (int kk = 0; kk < 8; ++kk) fma4(a[kk], wv, tex1Dfetch<float4>(p.tex, row * 8 + (kk ^ lp)));
      }
    }
  } else if (kQuarter) {
    // Quarter rows: the eight lanes of a quarter share the row sequence, lane lp reads piece lp, row j's sums in a[j].
    unsigned r = (warp * 4 + (l >> 3)) * 2654435761u + blockIdx.x * 977u;
    for (int s = 0; s < p.quarter_steps; ++s)
#pragma unroll
      for (int j0 = 0; j0 < 8; j0 += 4) {
        float4 xv[4];
        float wv[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) {
          next_random(r);
          wv[u] = 1.0f + (r & 15);
          xv[u] = tex1Dfetch<float4>(p.tex, static_cast<int>(below(r, p.tex_rows)) * 8 + lp);
        }
#pragma unroll
        for (int u = 0; u < 4; ++u) fma4(a[j0 + u], wv[u], xv[u]);
      }
  }
  float sum = 0;
#pragma unroll
  for (int kk = 0; kk < 8; ++kk) sum += a[kk][0] + a[kk][1] + a[kk][2] + a[kk][3];
  p.out[blockIdx.x * kThreads + threadIdx.x] = sum;
  if (l == 0) p.clocks[blockIdx.x * 32 + warp] = clock64() - t0;
}

struct Device {
  int sms = 0;
  cudaTextureObject_t tex = 0;
  float* out = nullptr;
  long long* clocks = nullptr;
  uint4* w_values = nullptr;
  uint2* w_cols = nullptr;
};

// Non-zeros per clock per SM of one walk configuration: each kind of warp's non-zeros over the slowest warp's
// clocks, per SM, averaged over the SMs (median of three runs after two calibration runs).
struct WalkRate {
  double lds = 0, tex = 0, total = 0;
};
WalkRate walk(Device& d, WalkArgs p) {
  p.tex = d.tex;
  p.out = d.out;
  p.clocks = d.clocks;
  p.w_values = d.w_values;
  p.w_cols = d.w_cols;
  const int smem = p.held_rows * 128;
  if (p.tex_per_step > 1 || (p.tex_per_step > 0 && p.lds_warps < 32)) {
    std::fprintf(stderr, "onchip_paths: lane rows (one texture non-zero per step) or quarter-row warps, not both\n");
    std::exit(1);
  }
  const bool quarter = p.lds_warps < 32;
  void (*kernel)(WalkArgs) =
      p.stream_w ? (quarter ? walk_kernel<true, 0, true> : p.tex_per_step ? walk_kernel<true, 1, false> : walk_kernel<true, 0, false>)
                 : (quarter ? walk_kernel<false, 0, true> : p.tex_per_step ? walk_kernel<false, 1, false> : walk_kernel<false, 0, false>);
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  std::vector<WalkRate> runs;
  std::vector<long long> h(static_cast<std::size_t>(d.sms) * 32);
  // The slowest shared-memory warp's and texture warp's clocks over blocks [b0, b1).
  auto slowest = [&](int b0, int b1, long long& lds_clk, long long& tex_clk) {
    lds_clk = tex_clk = 0;
    for (int i = b0 * 32; i < b1 * 32; ++i) {
      long long& m = i % 32 < p.lds_warps ? lds_clk : tex_clk;
      m = std::max(m, h[static_cast<std::size_t>(i)]);
    }
  };
  for (int run = 0; run < 5; ++run) {
    kernel<<<d.sms, kThreads, smem>>>(p);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h.data(), d.clocks, h.size() * sizeof(long long), cudaMemcpyDeviceToHost));
    if (run < 2) {
      // Warm-up, and with quarter-row warps a calibration: their steps scaled so that both kinds of warps end
      // together (the rates below are then those of the two paths running side by side throughout).
      if (p.lds_warps < 32) {
        long long lds_clk, tex_clk;
        slowest(0, d.sms, lds_clk, tex_clk);
        if (tex_clk > 0)
          p.quarter_steps = std::max(1, static_cast<int>(p.quarter_steps * static_cast<double>(lds_clk) / tex_clk));
      }
      continue;
    }
    WalkRate w;
    for (int b = 0; b < d.sms; ++b) {
      long long lds_clk, tex_clk;
      slowest(b, b + 1, lds_clk, tex_clk);
      // (Lane rows: the shared-memory warps' non-zeros split between the paths as 4 to tex_per_step.)
      const double lds_nnz = 32.0 * p.lds_warps * p.lds_steps * (4 + p.tex_per_step);
      const double tex_nnz = 4.0 * (32 - p.lds_warps) * p.quarter_steps * 8;
      const double lds_share = 4.0 / (4 + p.tex_per_step);
      if (lds_clk) {
        w.lds += lds_nnz * lds_share / lds_clk / d.sms;
        w.tex += lds_nnz * (1 - lds_share) / lds_clk / d.sms;
      }
      if (tex_clk) w.tex += tex_nnz / tex_clk / d.sms;
      w.total += (lds_nnz + tex_nnz) / std::max(lds_clk, tex_clk) / d.sms;
    }
    runs.push_back(w);
  }
  std::sort(runs.begin(), runs.end(), [](const WalkRate& x, const WalkRate& y) { return x.total < y.total; });
  return runs[runs.size() / 2];
}

std::string fixed(double v, int digits = 3) {
  char b[32];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out_dir;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--out" && i + 1 < argc) {
      out_dir = argv[++i];
    } else {
      std::fprintf(stderr, "usage: onchip_paths [--out DIR]\n");
      return 2;
    }
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("onchip_paths: no CUDA device; nothing measured\n");
    return 0;
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int clock_khz = 0;
  CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  Device d;
  d.sms = prop.multiProcessorCount;
  CHECK(cudaMalloc(&d.out, std::size_t(d.sms) * kThreads * sizeof(float)));
  CHECK(cudaMalloc(&d.clocks, std::size_t(d.sms) * 32 * sizeof(long long)));
  // The texture block: 4096 rows of 128 bytes (the walks use the first tex_rows).
  const int tex_block_rows = 4096;
  float* tex_block = nullptr;
  CHECK(cudaMalloc(&tex_block, std::size_t(tex_block_rows) * 128));
  {
    std::vector<float> h(std::size_t(tex_block_rows) * 32);
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = static_cast<float>(i % 251) * 0.004f;
    CHECK(cudaMemcpy(tex_block, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
  cudaResourceDesc rd = {};
  rd.resType = cudaResourceTypeLinear;
  rd.res.linear.devPtr = tex_block;
  rd.res.linear.desc = cudaCreateChannelDesc<float4>();
  rd.res.linear.sizeInBytes = std::size_t(tex_block_rows) * 128;
  cudaTextureDesc td = {};
  td.readMode = cudaReadModeElementType;
  CHECK(cudaCreateTextureObject(&d.tex, &rd, &td, nullptr));
  // W's streams: random 16-bit columns, values 1.0 (each warp's steps laid out as the kernel's interleaved order).
  const int lds_steps = 500;
  const std::size_t w_n = std::size_t(lds_steps) * d.sms * 32 * 32;   // every walk's lds_steps steps of each warp
  CHECK(cudaMalloc(&d.w_values, w_n * sizeof(uint4)));
  CHECK(cudaMalloc(&d.w_cols, w_n * sizeof(uint2)));
  {
    std::vector<unsigned> h(w_n * 2);
    unsigned r = 12345;
    for (auto& v : h) v = r = r * 1664525u + 1013904223u;
    CHECK(cudaMemcpy(d.w_cols, h.data(), w_n * sizeof(uint2), cudaMemcpyHostToDevice));
    std::fill(h.begin(), h.end(), 0x3f800000u);
    CHECK(cudaMemcpy(d.w_values, h.data(), w_n * sizeof(uint2), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(reinterpret_cast<char*>(d.w_values) + w_n * sizeof(uint2), h.data(), w_n * sizeof(uint2),
                     cudaMemcpyHostToDevice));
  }

  std::ostringstream md;
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  md << "# On-chip paths of X's rows into registers (" << prop.name << ")\n\n"
     << "Device: " << prop.name << ", " << d.sms << " SMs, SM clock up to " << clock_khz / 1000 << " MHz. Date: " << date
     << ". Commit: " << SNACK_GIT_COMMIT << ". Program: `bench/spmm/onchip_paths.cu` (what each kernel does is in its "
     << "opening comment). One block of 1024 threads per SM, 32 fp32 sums per lane.\n\n";

  // 1. LDS.128 address patterns.
  md << "## 1. ld.shared.v4 (LDS.128): clocks per warp instruction by address pattern\n\n"
     << "| lanes' 16-byte pieces | distinct bytes | clocks per instruction per SM |\n|---|---|---|\n";
  const char* pattern_name[] = {"32 distinct (512 contiguous bytes)", "all the same", "8 distinct, one 128-byte line",
                                "16 distinct (256 bytes)", "16 rows' pieces, lanes l and l + 16 the same"};
  const int pattern_bytes[] = {512, 16, 128, 256, 256};
  CHECK(cudaFuncSetAttribute(lds_pattern_kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
  for (int pattern = 0; pattern < 5; ++pattern) {
    const int iters = 2048;
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    lds_pattern_kernel<<<d.sms, kThreads>>>(pattern, 16, d.out);
    float best = 1e30f;
    for (int run = 0; run < 5; ++run) {
      CHECK(cudaEventRecord(e0));
      lds_pattern_kernel<<<d.sms, kThreads>>>(pattern, iters, d.out);
      CHECK(cudaEventRecord(e1));
      CHECK(cudaEventSynchronize(e1));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, e0, e1));
      best = std::min(best, ms);
    }
    const double per_sm = 32.0 * iters * 8;   // warp instructions per SM
    md << "| " << pattern_name[pattern] << " | " << pattern_bytes[pattern] << " | "
       << fixed(best * 1e-3 * clock_khz * 1e3 / per_sm, 2) << " |\n";
    CHECK(cudaEventDestroy(e0));
    CHECK(cudaEventDestroy(e1));
  }
  md << "\n";

  // 2 and 3. The walks.
  md << "## 2-3. Walks: non-zeros per clock per SM (128 bytes of X and 32 FMAs each)\n\n"
     << "`lane rows`: each shared-memory warp also reads, per step, that many non-zeros' rows through the texture path "
     << "(each lane its own row). `quarter rows`: that many warps walk the texture path instead, eight lanes to a row. "
     << "`W streamed`: the shared-memory warps load each step's values and columns from global memory as "
     << "rowlanes_kernel does (else the columns come from a hash).\n\n"
     << "| held in shared memory | texture rows | W streamed | shared-memory warps | texture use | shared-memory path | "
        "texture path | total | vs shared memory alone |\n|---|---|---|---|---|---|---|---|---|\n";
  struct Config {
    int held, tex_rows, lds_warps, tex_per_step;
    bool stream;
  };
  const Config configs[] = {
      {768, 256, 32, 0, false},  {1024, 256, 32, 0, false}, {1280, 256, 32, 0, false},
      {768, 256, 32, 1, false},  {1024, 256, 32, 1, false}, {1280, 256, 32, 1, false},
      {768, 256, 16, 0, false},  {1024, 256, 16, 0, false}, {1280, 256, 16, 0, false},
      {768, 256, 32, 0, true},   {768, 256, 32, 1, true},   {768, 256, 16, 0, true},  {768, 256, 20, 0, true},
  };
  double alone[2] = {0, 0};   // shared memory alone, without / with W streamed (768 rows held)
  for (const Config& c : configs) {
    WalkArgs p;
    p.held_rows = c.held;
    p.tex_rows = c.tex_rows;
    p.lds_warps = c.lds_warps;
    p.lds_steps = lds_steps;
    p.tex_per_step = c.tex_per_step;
    p.stream_w = c.stream;
    // Quarter-row warps get about as much time as the shared-memory ones (0.45 against 0.93 non-zeros per clock;
    // walk() calibrates it).
    p.quarter_steps = c.lds_warps < 32 ? static_cast<int>(lds_steps * 0.45 / 0.93 * c.lds_warps * 32.0 * 4 /
                                                           ((32 - c.lds_warps) * 4.0 * 8))
                                        : 0;
    const WalkRate w = walk(d, p);
    const bool base = c.lds_warps == 32 && c.tex_per_step == 0;
    if (base && c.held == 768) alone[c.stream ? 1 : 0] = w.total;
    const double ref = alone[c.stream ? 1 : 0];
    std::string use = "none";
    if (c.tex_per_step) use = "lane rows, 1 per 4";
    if (c.lds_warps < 32) use = "quarter rows, " + std::to_string(32 - c.lds_warps) + " warps";
    md << "| " << c.held * 128 / 1024 << " KB | " << (use == "none" ? std::string("-") : std::to_string(c.tex_rows * 128 / 1024) + " KB")
       << " | " << (c.stream ? "yes" : "no") << " | " << c.lds_warps << " | " << use << " | " << fixed(w.lds) << " | "
       << (use == "none" ? std::string("-") : fixed(w.tex)) << " | " << fixed(w.total) << " | "
       << (ref > 0 ? fixed(w.total / ref, 2) + "x" : std::string("-")) << " |\n";
  }
  md << "\n";
  std::printf("%s", md.str().c_str());
  if (!out_dir.empty()) {
    const std::string path = out_dir + "/onchip-paths-" + snk::bench::device_tag(prop.name) + ".md";
    std::ofstream f(path);
    f << md.str();
    if (!f) {
      std::fprintf(stderr, "onchip_paths: cannot write %s\n", path.c_str());
      return 1;
    }
  }
  cudaDestroyTextureObject(d.tex);
  cudaFree(tex_block);
  cudaFree(d.w_values);
  cudaFree(d.w_cols);
  cudaFree(d.out);
  cudaFree(d.clocks);
  return 0;
}
