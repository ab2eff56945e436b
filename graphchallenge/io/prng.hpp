// A fully specified pseudo-random source for the generators, so that a seed gives the same network and the
// same inputs on every machine and standard library (std::mt19937 is portable but std::shuffle and the std
// distributions are not: their algorithms are unspecified). SplitMix64 (Steele, Lea & Flood 2014) mixes seeds
// and derives independent streams; xoshiro256** (Blackman & Vigna 2018) is the stream generator; bounded
// integers use Lemire's multiply-and-reject method (unbiased); shuffles are the descending Fisher-Yates loop.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace snk::gc {

// The SplitMix64 output function: a bijective 64-bit mixer.
constexpr uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// A seed for stream `stream` of part `part` of the object generated from `seed` (for example part = block of
// layers, stream = rows or columns). Distinct (part, stream) give unrelated streams.
constexpr uint64_t derive_seed(uint64_t seed, uint64_t part, uint64_t stream) {
  return mix64(mix64(seed + 0x9e3779b97f4a7c15ULL) ^ mix64((part << 8) + stream + 0x632be59bd9b4e019ULL));
}

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    return mix64(state_);
  }

 private:
  uint64_t state_;
};

class Xoshiro256StarStar {
 public:
  explicit Xoshiro256StarStar(uint64_t seed) {
    SplitMix64 sm(seed);
    for (auto& w : s_) w = sm.next();
  }
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, n), n >= 1 (Lemire 2019).
  uint64_t below(uint64_t n) {
    __uint128_t m = static_cast<__uint128_t>(next()) * n;
    uint64_t low = static_cast<uint64_t>(m);
    if (low < n) {
      const uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        m = static_cast<__uint128_t>(next()) * n;
        low = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }

 private:
  static constexpr uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

// A uniformly random permutation of 0..n-1: Fisher-Yates from the last position down.
template <class Index>
std::vector<Index> random_permutation(int64_t n, Xoshiro256StarStar& rng) {
  std::vector<Index> p(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<Index>(i);
  for (int64_t i = n - 1; i > 0; --i) {
    const auto j = static_cast<int64_t>(rng.below(static_cast<uint64_t>(i) + 1));
    std::swap(p[i], p[j]);
  }
  return p;
}

}  // namespace snk::gc
