// spmm/bank_order.cpp: the bank-aware order of a plan's non-zeros for colblock_held_kernel and the count of its
// shared-memory wavefronts (bank_order.hpp says what the order is and why). Host code only, linear in nnz.
#include "spmm/bank_order.hpp"

#include <algorithm>
#include <array>

#include "spmm/host_threads.hpp"

namespace snk::cuda {

namespace {

constexpr int kLanes = 32;
constexpr int kChunk = 4;   // non-zeros per lane per step

// Where position p of segment [S, E) lands in the kernel's walk.
struct Slot {
  std::int64_t step;
  int lane, j;
};
Slot slot_of(std::int64_t p, std::int64_t S) {
  const std::int64_t k = (p >> 2) - (S >> 2);
  return {k >> 5, static_cast<int>(k & (kLanes - 1)), static_cast<int>(p & (kChunk - 1))};
}

// Calls f(S, E) for every non-empty segment in position order (row by row, blocks in order); false, calling
// nothing, where the segments do not tile 0 .. nnz - 1 (HeldSegments::tiles).
template <class F>
bool for_each_segment(const HeldSegments& seg, std::int64_t nnz, F&& f) {
  if (!seg.tiles(nnz)) return false;
  const int nb = seg.n_blocks();
  for (std::int32_t r = 0; r < seg.rows; ++r)
    for (int c = 0; c < nb; ++c) {
      const std::int64_t S = seg.begin(c, r), E = seg.end(c, r);
      if (E > S) f(S, E);
    }
  return true;
}

}  // namespace

int held_bank_residues(int value_bytes) {
  const int row_bytes = 8 * value_bytes;
  return row_bytes == 32 || row_bytes == 16 ? 128 / row_bytes : 0;
}

bool held_bank_order(const std::uint16_t* col16, std::int64_t nnz, const HeldSegments& seg, int residues,
                     std::vector<std::int32_t>& perm, int threads) {
  perm.clear();
  if (residues != 4 && residues != 8) return false;
  if (!seg.tiles(nnz)) return false;
  const int R = residues, phase_lanes = 2 * R, nb = seg.n_blocks();
  perm.resize(static_cast<std::size_t>(nnz));
  // Each segment [S, E) is ordered on its own, into perm[S .. E): rows are dealt out to the threads.
  for_each_range(seg.rows, 256, [&](std::int64_t r0, std::int64_t r1) {
    std::array<std::vector<std::int32_t>, 8> pool;
    std::array<std::size_t, 8> next{};
    // used[phase][j][parity]: residues already given to the lanes of that parity in that phase and slot.
    std::array<std::uint8_t, (kLanes / 8) * kChunk * 2> used{};
    for (std::int64_t r = r0; r < r1; ++r)
      for (int c = 0; c < nb; ++c) {
        const std::int64_t S = seg.begin(c, static_cast<std::int32_t>(r)), E = seg.end(c, static_cast<std::int32_t>(r));
        for (int q = 0; q < R; ++q) {
          pool[q].clear();
          next[q] = 0;
        }
        for (std::int64_t p = S; p < E; ++p) pool[col16[p] % R].push_back(static_cast<std::int32_t>(p));
        auto left = [&](int q) { return pool[q].size() - next[q]; };
        std::int64_t step = -1;
        for (std::int64_t p = S; p < E; ++p) {
          const Slot s = slot_of(p, S);
          if (s.step != step) {
            used.fill(0);
            step = s.step;
          }
          std::uint8_t& u = used[(s.lane / phase_lanes * kChunk + s.j) * 2 + (s.lane & 1)];
          int pick = ((s.lane >> 1) + s.j) % R;
          if (!left(pick) || (u >> pick & 1)) {
            int best = -1;
            for (int fresh = 1; fresh >= 0 && best < 0; --fresh)   // a residue unused in this phase first
              for (int q = 0; q < R; ++q)
                if (left(q) && (!fresh || !(u >> q & 1)) && (best < 0 || left(q) > left(best))) best = q;
            pick = best;
          }
          u = static_cast<std::uint8_t>(u | (1u << pick));
          perm[static_cast<std::size_t>(p)] = pool[pick][next[pick]++];
        }
      }
  }, threads);
  return true;
}

double held_bank_wavefronts(const std::uint16_t* col16, std::int64_t nnz, const HeldSegments& seg, int residues) {
  if (residues != 4 && residues != 8) return 0.0;
  const int R = residues, phase_lanes = 2 * R, phases = kLanes / phase_lanes;
  double total = 0, loads = 0;
  // count[phase][j][group], groups 2 R (residue, parity)
  std::vector<int> count(static_cast<std::size_t>(phases) * kChunk * 2 * R);
  auto flush = [&]() {
    for (int ph = 0; ph < phases; ++ph)
      for (int j = 0; j < kChunk; ++j) {
        int* g = &count[(static_cast<std::size_t>(ph) * kChunk + j) * 2 * R];
        const int most = *std::max_element(g, g + 2 * R);
        if (most > 0) {
          total += most;
          loads += 1;
        }
        std::fill(g, g + 2 * R, 0);
      }
  };
  const bool ok = for_each_segment(seg, nnz, [&](std::int64_t S, std::int64_t E) {
    std::int64_t step = -1;
    for (std::int64_t p = S; p < E; ++p) {
      const Slot s = slot_of(p, S);
      if (s.step != step) {
        flush();
        step = s.step;
      }
      const std::size_t load = static_cast<std::size_t>(s.lane / phase_lanes) * kChunk + s.j;
      ++count[load * 2 * R + 2 * (col16[p] % R) + (s.lane & 1)];
    }
    flush();
  });
  return ok && loads > 0 ? total / loads : 0.0;
}

}  // namespace snk::cuda
