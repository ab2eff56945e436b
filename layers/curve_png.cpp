// layers/curve_png.cpp: the learning-curve chart writer (curve_png.hpp): layout, "nice" axis ticks, lines, legend,
// a 5 x 7 bitmap font, and a minimal PNG encoder (IHDR, one IDAT from zlib's compress2, IEND).
#include "curve_png.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <utility>

namespace snk::layers {
namespace {

// ---- font ------------------------------------------------------------------------------------------------------
// Printable ASCII (32 .. 126), one glyph per character in a 5 x 9 cell: rows 0 .. 6 stand on the baseline (row 6),
// rows 7 and 8 hold descenders (g, j, p, q, y, comma, semicolon, underscore). Bit 4 of a row is its leftmost pixel.
// A character outside the table is drawn as '?'.
constexpr int kGlyphW = 5, kGlyphH = 9, kAdvance = 6;
constexpr std::array<std::array<std::uint8_t, kGlyphH>, 95> kFont = {{
    {0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b00000},  // ' '
    {0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b00000, 0b00100, 0b00000, 0b00000},  // '!'
    {0b01010, 0b01010, 0b01010, 0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b00000},  // '"'
    {0b01010, 0b01010, 0b11111, 0b01010, 0b11111, 0b01010, 0b01010, 0b00000, 0b00000},  // '#'
    {0b00100, 0b01111, 0b10100, 0b01110, 0b00101, 0b11110, 0b00100, 0b00000, 0b00000},  // '$'
    {0b11000, 0b11001, 0b00010, 0b00100, 0b01000, 0b10011, 0b00011, 0b00000, 0b00000},  // '%'
    {0b01100, 0b10010, 0b10100, 0b01000, 0b10101, 0b10010, 0b01101, 0b00000, 0b00000},  // '&'
    {0b00100, 0b00100, 0b01000, 0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b00000},  // '\''
    {0b00010, 0b00100, 0b01000, 0b01000, 0b01000, 0b00100, 0b00010, 0b00000, 0b00000},  // '('
    {0b01000, 0b00100, 0b00010, 0b00010, 0b00010, 0b00100, 0b01000, 0b00000, 0b00000},  // ')'
    {0b00000, 0b00100, 0b10101, 0b01110, 0b10101, 0b00100, 0b00000, 0b00000, 0b00000},  // '*'
    {0b00000, 0b00100, 0b00100, 0b11111, 0b00100, 0b00100, 0b00000, 0b00000, 0b00000},  // '+'
    {0b00000, 0b00000, 0b00000, 0b00000, 0b01100, 0b01100, 0b00100, 0b01000, 0b00000},  // ','
    {0b00000, 0b00000, 0b00000, 0b01110, 0b00000, 0b00000, 0b00000, 0b00000, 0b00000},  // '-'
    {0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b01100, 0b01100, 0b00000, 0b00000},  // '.'
    {0b00000, 0b00001, 0b00010, 0b00100, 0b01000, 0b10000, 0b00000, 0b00000, 0b00000},  // '/'
    {0b01110, 0b10001, 0b10011, 0b10101, 0b11001, 0b10001, 0b01110, 0b00000, 0b00000},  // '0'
    {0b00100, 0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110, 0b00000, 0b00000},  // '1'
    {0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b01000, 0b11111, 0b00000, 0b00000},  // '2'
    {0b11111, 0b00010, 0b00100, 0b00010, 0b00001, 0b10001, 0b01110, 0b00000, 0b00000},  // '3'
    {0b00010, 0b00110, 0b01010, 0b10010, 0b11111, 0b00010, 0b00010, 0b00000, 0b00000},  // '4'
    {0b11111, 0b10000, 0b11110, 0b00001, 0b00001, 0b10001, 0b01110, 0b00000, 0b00000},  // '5'
    {0b00110, 0b01000, 0b10000, 0b11110, 0b10001, 0b10001, 0b01110, 0b00000, 0b00000},  // '6'
    {0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b01000, 0b01000, 0b00000, 0b00000},  // '7'
    {0b01110, 0b10001, 0b10001, 0b01110, 0b10001, 0b10001, 0b01110, 0b00000, 0b00000},  // '8'
    {0b01110, 0b10001, 0b10001, 0b01111, 0b00001, 0b00010, 0b01100, 0b00000, 0b00000},  // '9'
    {0b00000, 0b01100, 0b01100, 0b00000, 0b01100, 0b01100, 0b00000, 0b00000, 0b00000},  // ':'
    {0b00000, 0b01100, 0b01100, 0b00000, 0b01100, 0b01100, 0b00100, 0b01000, 0b00000},  // ';'
    {0b00010, 0b00100, 0b01000, 0b10000, 0b01000, 0b00100, 0b00010, 0b00000, 0b00000},  // '<'
    {0b00000, 0b00000, 0b11111, 0b00000, 0b11111, 0b00000, 0b00000, 0b00000, 0b00000},  // '='
    {0b01000, 0b00100, 0b00010, 0b00001, 0b00010, 0b00100, 0b01000, 0b00000, 0b00000},  // '>'
    {0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b00000, 0b00100, 0b00000, 0b00000},  // '?'
    {0b01110, 0b10001, 0b10111, 0b10101, 0b10111, 0b10000, 0b01111, 0b00000, 0b00000},  // '@'
    {0b01110, 0b10001, 0b10001, 0b11111, 0b10001, 0b10001, 0b10001, 0b00000, 0b00000},  // 'A'
    {0b11110, 0b10001, 0b10001, 0b11110, 0b10001, 0b10001, 0b11110, 0b00000, 0b00000},  // 'B'
    {0b01110, 0b10001, 0b10000, 0b10000, 0b10000, 0b10001, 0b01110, 0b00000, 0b00000},  // 'C'
    {0b11100, 0b10010, 0b10001, 0b10001, 0b10001, 0b10010, 0b11100, 0b00000, 0b00000},  // 'D'
    {0b11111, 0b10000, 0b10000, 0b11110, 0b10000, 0b10000, 0b11111, 0b00000, 0b00000},  // 'E'
    {0b11111, 0b10000, 0b10000, 0b11110, 0b10000, 0b10000, 0b10000, 0b00000, 0b00000},  // 'F'
    {0b01110, 0b10001, 0b10000, 0b10111, 0b10001, 0b10001, 0b01111, 0b00000, 0b00000},  // 'G'
    {0b10001, 0b10001, 0b10001, 0b11111, 0b10001, 0b10001, 0b10001, 0b00000, 0b00000},  // 'H'
    {0b01110, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110, 0b00000, 0b00000},  // 'I'
    {0b00111, 0b00010, 0b00010, 0b00010, 0b00010, 0b10010, 0b01100, 0b00000, 0b00000},  // 'J'
    {0b10001, 0b10010, 0b10100, 0b11000, 0b10100, 0b10010, 0b10001, 0b00000, 0b00000},  // 'K'
    {0b10000, 0b10000, 0b10000, 0b10000, 0b10000, 0b10000, 0b11111, 0b00000, 0b00000},  // 'L'
    {0b10001, 0b11011, 0b10101, 0b10101, 0b10001, 0b10001, 0b10001, 0b00000, 0b00000},  // 'M'
    {0b10001, 0b10001, 0b11001, 0b10101, 0b10011, 0b10001, 0b10001, 0b00000, 0b00000},  // 'N'
    {0b01110, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01110, 0b00000, 0b00000},  // 'O'
    {0b11110, 0b10001, 0b10001, 0b11110, 0b10000, 0b10000, 0b10000, 0b00000, 0b00000},  // 'P'
    {0b01110, 0b10001, 0b10001, 0b10001, 0b10101, 0b10010, 0b01101, 0b00000, 0b00000},  // 'Q'
    {0b11110, 0b10001, 0b10001, 0b11110, 0b10100, 0b10010, 0b10001, 0b00000, 0b00000},  // 'R'
    {0b01111, 0b10000, 0b10000, 0b01110, 0b00001, 0b00001, 0b11110, 0b00000, 0b00000},  // 'S'
    {0b11111, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b00000, 0b00000},  // 'T'
    {0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01110, 0b00000, 0b00000},  // 'U'
    {0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01010, 0b00100, 0b00000, 0b00000},  // 'V'
    {0b10001, 0b10001, 0b10001, 0b10101, 0b10101, 0b10101, 0b01010, 0b00000, 0b00000},  // 'W'
    {0b10001, 0b10001, 0b01010, 0b00100, 0b01010, 0b10001, 0b10001, 0b00000, 0b00000},  // 'X'
    {0b10001, 0b10001, 0b01010, 0b00100, 0b00100, 0b00100, 0b00100, 0b00000, 0b00000},  // 'Y'
    {0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b10000, 0b11111, 0b00000, 0b00000},  // 'Z'
    {0b01110, 0b01000, 0b01000, 0b01000, 0b01000, 0b01000, 0b01110, 0b00000, 0b00000},  // '['
    {0b00000, 0b10000, 0b01000, 0b00100, 0b00010, 0b00001, 0b00000, 0b00000, 0b00000},  // backslash
    {0b01110, 0b00010, 0b00010, 0b00010, 0b00010, 0b00010, 0b01110, 0b00000, 0b00000},  // ']'
    {0b00100, 0b01010, 0b10001, 0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b00000},  // '^'
    {0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b11111, 0b00000},  // '_'
    {0b01000, 0b00100, 0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b00000},  // '`'
    {0b00000, 0b00000, 0b01110, 0b00001, 0b01111, 0b10001, 0b01111, 0b00000, 0b00000},  // 'a'
    {0b10000, 0b10000, 0b10110, 0b11001, 0b10001, 0b10001, 0b11110, 0b00000, 0b00000},  // 'b'
    {0b00000, 0b00000, 0b01110, 0b10000, 0b10000, 0b10001, 0b01110, 0b00000, 0b00000},  // 'c'
    {0b00001, 0b00001, 0b01101, 0b10011, 0b10001, 0b10001, 0b01111, 0b00000, 0b00000},  // 'd'
    {0b00000, 0b00000, 0b01110, 0b10001, 0b11111, 0b10000, 0b01110, 0b00000, 0b00000},  // 'e'
    {0b00110, 0b01001, 0b01000, 0b11100, 0b01000, 0b01000, 0b01000, 0b00000, 0b00000},  // 'f'
    {0b00000, 0b00000, 0b01111, 0b10001, 0b10001, 0b10001, 0b01111, 0b00001, 0b01110},  // 'g'
    {0b10000, 0b10000, 0b10110, 0b11001, 0b10001, 0b10001, 0b10001, 0b00000, 0b00000},  // 'h'
    {0b00100, 0b00000, 0b01100, 0b00100, 0b00100, 0b00100, 0b01110, 0b00000, 0b00000},  // 'i'
    {0b00010, 0b00000, 0b00110, 0b00010, 0b00010, 0b00010, 0b00010, 0b10010, 0b01100},  // 'j'
    {0b10000, 0b10000, 0b10010, 0b10100, 0b11000, 0b10100, 0b10010, 0b00000, 0b00000},  // 'k'
    {0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110, 0b00000, 0b00000},  // 'l'
    {0b00000, 0b00000, 0b11010, 0b10101, 0b10101, 0b10101, 0b10101, 0b00000, 0b00000},  // 'm'
    {0b00000, 0b00000, 0b10110, 0b11001, 0b10001, 0b10001, 0b10001, 0b00000, 0b00000},  // 'n'
    {0b00000, 0b00000, 0b01110, 0b10001, 0b10001, 0b10001, 0b01110, 0b00000, 0b00000},  // 'o'
    {0b00000, 0b00000, 0b11110, 0b10001, 0b10001, 0b10001, 0b11110, 0b10000, 0b10000},  // 'p'
    {0b00000, 0b00000, 0b01111, 0b10001, 0b10001, 0b10001, 0b01111, 0b00001, 0b00001},  // 'q'
    {0b00000, 0b00000, 0b10110, 0b11001, 0b10000, 0b10000, 0b10000, 0b00000, 0b00000},  // 'r'
    {0b00000, 0b00000, 0b01110, 0b10000, 0b01110, 0b00001, 0b11110, 0b00000, 0b00000},  // 's'
    {0b01000, 0b01000, 0b11100, 0b01000, 0b01000, 0b01001, 0b00110, 0b00000, 0b00000},  // 't'
    {0b00000, 0b00000, 0b10001, 0b10001, 0b10001, 0b10011, 0b01101, 0b00000, 0b00000},  // 'u'
    {0b00000, 0b00000, 0b10001, 0b10001, 0b10001, 0b01010, 0b00100, 0b00000, 0b00000},  // 'v'
    {0b00000, 0b00000, 0b10001, 0b10001, 0b10101, 0b10101, 0b01010, 0b00000, 0b00000},  // 'w'
    {0b00000, 0b00000, 0b10001, 0b01010, 0b00100, 0b01010, 0b10001, 0b00000, 0b00000},  // 'x'
    {0b00000, 0b00000, 0b10001, 0b10001, 0b10001, 0b10001, 0b01111, 0b00001, 0b01110},  // 'y'
    {0b00000, 0b00000, 0b11111, 0b00010, 0b00100, 0b01000, 0b11111, 0b00000, 0b00000},  // 'z'
    {0b00010, 0b00100, 0b00100, 0b01000, 0b00100, 0b00100, 0b00010, 0b00000, 0b00000},  // '{'
    {0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b00000, 0b00000},  // '|'
    {0b01000, 0b00100, 0b00100, 0b00010, 0b00100, 0b00100, 0b01000, 0b00000, 0b00000},  // '}'
    {0b00000, 0b00000, 0b01000, 0b10101, 0b00010, 0b00000, 0b00000, 0b00000, 0b00000},  // '~'
}};

const std::array<std::uint8_t, kGlyphH>& glyph(char c) {
  const auto u = static_cast<unsigned char>(c);
  return kFont[(u >= 32 && u <= 126) ? u - 32 : '?' - 32];
}

// ---- canvas ----------------------------------------------------------------------------------------------------

struct Rgb {
  std::uint8_t r, g, b;
};

constexpr Rgb kBackground{255, 255, 255};
constexpr Rgb kText{30, 30, 30};
constexpr Rgb kAxis{90, 90, 90};
constexpr Rgb kGrid{226, 226, 226};
constexpr Rgb kLegendBorder{170, 170, 170};
// Distinct colours for series, in order of first appearance of their names (the "tab10" qualitative palette).
constexpr Rgb kPalette[] = {{31, 119, 180}, {255, 127, 14},  {44, 160, 44},   {214, 39, 40},  {148, 103, 189},
                            {140, 86, 75},  {227, 119, 194}, {127, 127, 127}, {188, 189, 34}, {23, 190, 207}};

struct Rect {
  int x0, y0, x1, y1;  // inclusive bounds
  int width() const { return x1 - x0 + 1; }
  int height() const { return y1 - y0 + 1; }
};

class Canvas {
 public:
  Canvas(int w, int h)
      : w_(w), h_(h), rgb_(static_cast<std::size_t>(w) * h * 3, 255), curve_(static_cast<std::size_t>(w) * h, 0) {}
  int width() const { return w_; }
  int height() const { return h_; }
  const std::vector<std::uint8_t>& rgb() const { return rgb_; }

  void set(int x, int y, Rgb c) {
    if (x < 0 || y < 0 || x >= w_ || y >= h_) return;
    std::uint8_t* p = &rgb_[(static_cast<std::size_t>(y) * w_ + x) * 3];
    p[0] = c.r;
    p[1] = c.g;
    p[2] = c.b;
  }
  void fill(Rect r, Rgb c) {
    for (int y = std::max(r.y0, 0); y <= std::min(r.y1, h_ - 1); ++y)
      for (int x = std::max(r.x0, 0); x <= std::min(r.x1, w_ - 1); ++x) set(x, y, c);
  }
  void outline(Rect r, Rgb c) {
    fill({r.x0, r.y0, r.x1, r.y0}, c);
    fill({r.x0, r.y1, r.x1, r.y1}, c);
    fill({r.x0, r.y0, r.x0, r.y1}, c);
    fill({r.x1, r.y0, r.x1, r.y1}, c);
  }
  // A curve pixel: drawn only inside clip, and remembered so the legend can avoid the curves.
  void curve_dot(int x, int y, Rgb c, const Rect& clip) {
    if (x < clip.x0 || x > clip.x1 || y < clip.y0 || y > clip.y1) return;
    set(x, y, c);
    curve_[static_cast<std::size_t>(y) * w_ + x] = 1;
  }
  long curve_pixels(Rect r) const {
    long n = 0;
    for (int y = std::max(r.y0, 0); y <= std::min(r.y1, h_ - 1); ++y)
      for (int x = std::max(r.x0, 0); x <= std::min(r.x1, w_ - 1); ++x)
        n += curve_[static_cast<std::size_t>(y) * w_ + x];
    return n;
  }

 private:
  int w_, h_;
  std::vector<std::uint8_t> rgb_;
  std::vector<std::uint8_t> curve_;
};

int text_width(const std::string& s, int scale) {
  return s.empty() ? 0 : static_cast<int>(s.size()) * kAdvance * scale - scale;
}

// Draws s with its top-left corner at (x, y); glyph rows 0 .. 6 span 7 * scale pixels.
void draw_text(Canvas& cv, int x, int y, const std::string& s, int scale, Rgb c) {
  for (char ch : s) {
    const auto& g = glyph(ch);
    for (int r = 0; r < kGlyphH; ++r)
      for (int col = 0; col < kGlyphW; ++col)
        if (g[r] & (1u << (kGlyphW - 1 - col)))
          cv.fill({x + col * scale, y + r * scale, x + (col + 1) * scale - 1, y + (r + 1) * scale - 1}, c);
    x += kAdvance * scale;
  }
}

// ---- axes ------------------------------------------------------------------------------------------------------

struct Axis {
  double lo = 0, hi = 1;
  std::vector<double> ticks;
  std::vector<std::string> labels;
};

std::string format_tick(double v, double step, double magnitude) {
  char buf[32];
  if (magnitude >= 1e6 || (magnitude > 0 && magnitude < 1e-3)) {
    std::snprintf(buf, sizeof buf, "%.2g", v);
  } else {
    const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  }
  return buf;
}

// Ticks at multiples of a round step (1, 2 or 5 times a power of ten) giving about `target` intervals. Unless
// `fixed`, [lo, hi] widens to the enclosing multiples of the step. A degenerate range is widened first.
Axis make_axis(double lo, double hi, int target, bool fixed) {
  if (!(std::isfinite(lo) && std::isfinite(hi)) || lo > hi) lo = 0, hi = 1;
  if (hi - lo <= std::max(std::abs(lo), std::abs(hi)) * 1e-12) {
    const double pad = lo == 0 ? 1 : std::abs(lo) * 0.1;
    lo -= pad;
    hi += pad;
    fixed = false;
  }
  const double raw = (hi - lo) / std::max(target, 1);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / mag;
  const double step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
  Axis a;
  a.lo = fixed ? lo : std::floor(lo / step + 1e-9) * step;
  a.hi = fixed ? hi : std::ceil(hi / step - 1e-9) * step;
  const double magnitude = std::max(std::abs(a.lo), std::abs(a.hi));
  for (double k = std::ceil(a.lo / step - 1e-9); k <= std::floor(a.hi / step + 1e-9); k += 1) {
    double t = k * step;
    if (std::abs(t) < step * 1e-9) t = 0;
    a.ticks.push_back(t);
    a.labels.push_back(format_tick(t, step, magnitude));
  }
  return a;
}

int widest(const std::vector<std::string>& labels, int scale) {
  int w = 0;
  for (const auto& s : labels) w = std::max(w, text_width(s, scale));
  return w;
}

// ---- lines -----------------------------------------------------------------------------------------------------

// Clips the segment (x0, y0) - (x1, y1) to r (Liang-Barsky); false when nothing is left.
bool clip_segment(double& x0, double& y0, double& x1, double& y1, const Rect& r) {
  double t0 = 0, t1 = 1;
  const double dx = x1 - x0, dy = y1 - y0;
  const double p[4] = {-dx, dx, -dy, dy};
  const double q[4] = {x0 - r.x0, r.x1 - x0, y0 - r.y0, r.y1 - y0};
  for (int i = 0; i < 4; ++i) {
    if (p[i] == 0) {
      if (q[i] < 0) return false;
      continue;
    }
    const double t = q[i] / p[i];
    if (p[i] < 0)
      t0 = std::max(t0, t);
    else
      t1 = std::min(t1, t);
  }
  if (t0 > t1) return false;
  const double ax = x0 + t0 * dx, ay = y0 + t0 * dy;
  x1 = x0 + t1 * dx;
  y1 = y0 + t1 * dy;
  x0 = ax;
  y0 = ay;
  return true;
}

// A disc of the given radius centred on (x, y).
void dot(Canvas& cv, double x, double y, double radius, Rgb c, const Rect& clip) {
  const int r = static_cast<int>(std::ceil(radius));
  if (!(x >= clip.x0 - r && x <= clip.x1 + r && y >= clip.y0 - r && y <= clip.y1 + r)) return;
  const int cx = static_cast<int>(std::lround(x)), cy = static_cast<int>(std::lround(y));
  for (int dy = -r; dy <= r; ++dy)
    for (int dx = -r; dx <= r; ++dx)
      if (dx * dx + dy * dy <= radius * radius + 0.25) cv.curve_dot(cx + dx, cy + dy, c, clip);
}

// A line 2 * radius + 1 pixels wide or so: discs stamped every half pixel along the clipped segment.
void thick_line(Canvas& cv, double x0, double y0, double x1, double y1, double radius, Rgb c, const Rect& clip) {
  const Rect wide{clip.x0 - 2, clip.y0 - 2, clip.x1 + 2, clip.y1 + 2};
  if (!clip_segment(x0, y0, x1, y1, wide)) return;
  const double len = std::hypot(x1 - x0, y1 - y0);
  const int steps = std::max(1, static_cast<int>(std::ceil(len * 2)));
  for (int i = 0; i <= steps; ++i) {
    const double t = static_cast<double>(i) / steps;
    dot(cv, x0 + t * (x1 - x0), y0 + t * (y1 - y0), radius, c, clip);
  }
}

// ---- PNG -------------------------------------------------------------------------------------------------------

void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<std::uint8_t>(v >> s));
}

void put_chunk(std::vector<std::uint8_t>& out, const char* type, const std::vector<std::uint8_t>& data) {
  put_u32(out, static_cast<std::uint32_t>(data.size()));
  const std::size_t start = out.size();
  out.insert(out.end(), type, type + 4);
  out.insert(out.end(), data.begin(), data.end());
  const uLong crc = crc32(crc32(0L, Z_NULL, 0), out.data() + start, static_cast<uInt>(out.size() - start));
  put_u32(out, static_cast<std::uint32_t>(crc));
}

// An 8-bit RGB PNG of the canvas: every scanline with filter type 0 (none), all in one zlib stream.
std::vector<std::uint8_t> encode_png(const Canvas& cv, const std::string& path) {
  const std::size_t row = static_cast<std::size_t>(cv.width()) * 3;
  std::vector<std::uint8_t> raw;
  raw.reserve((row + 1) * cv.height());
  for (int y = 0; y < cv.height(); ++y) {
    raw.push_back(0);
    raw.insert(raw.end(), cv.rgb().begin() + y * row, cv.rgb().begin() + (y + 1) * row);
  }
  uLongf zlen = compressBound(static_cast<uLong>(raw.size()));
  std::vector<std::uint8_t> z(zlen);
  if (compress2(z.data(), &zlen, raw.data(), static_cast<uLong>(raw.size()), 9) != Z_OK)
    throw Error(Info::OutOfMemory, path + ": zlib could not compress the image");
  z.resize(zlen);

  std::vector<std::uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  std::vector<std::uint8_t> ihdr;
  put_u32(ihdr, static_cast<std::uint32_t>(cv.width()));
  put_u32(ihdr, static_cast<std::uint32_t>(cv.height()));
  ihdr.insert(ihdr.end(), {8, 2, 0, 0, 0});  // bit depth 8, colour type 2 (RGB), deflate, filter 0, no interlace
  put_chunk(png, "IHDR", ihdr);
  put_chunk(png, "IDAT", z);
  put_chunk(png, "IEND", {});
  return png;
}

void write_file_atomically(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw Error(Info::InvalidValue, path + ": cannot write " + tmp + ": " + std::strerror(errno));
  const bool wrote = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  const int write_errno = errno;
  const bool closed = std::fclose(f) == 0;
  if (!wrote || !closed) {
    const int err = wrote ? errno : write_errno;
    std::remove(tmp.c_str());
    throw Error(Info::InvalidValue, path + ": cannot write " + tmp + ": " + std::strerror(err));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    throw Error(Info::InvalidValue, path + ": cannot rename " + tmp + " to it: " + std::strerror(err));
  }
}

// ---- chart -----------------------------------------------------------------------------------------------------

void check(const CurveChart& chart) {
  if (chart.panels.empty() || chart.panels.size() > 4)
    throw Error(Info::InvalidValue,
                "write_curves_png: a chart needs 1 to 4 panels, not " + std::to_string(chart.panels.size()));
  if (chart.width < 320 || chart.height < 200 || chart.width > 8192 || chart.height > 8192)
    throw Error(Info::InvalidValue, "write_curves_png: size " + std::to_string(chart.width) + " x " +
                                        std::to_string(chart.height) + " is outside 320 x 200 .. 8192 x 8192");
  for (const auto& p : chart.panels)
    for (const auto& s : p.series)
      if (s.x.size() != s.y.size())
        throw Error(Info::InvalidValue, "write_curves_png: series \"" + s.name + "\" of panel \"" + p.title +
                                            "\" has " + std::to_string(s.x.size()) + " x values and " +
                                            std::to_string(s.y.size()) + " y values");
}

// Whether point i is drawn: finite, and small enough that the span of any two such points is finite too.
bool finite_point(const CurveSeries& s, std::size_t i) {
  return std::abs(s.x[i]) <= 1e100 && std::abs(s.y[i]) <= 1e100;  // false for NaN
}

// One panel in the horizontal band [left, right] of the canvas, plot area between rows top and bottom.
void draw_panel(Canvas& cv, const CurvePanel& panel, const std::string& x_label, int left, int right, int top,
                int bottom, int s, const std::map<std::string, Rgb>& colours) {
  const int line = 7 * s;
  // Data ranges.
  double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
  bool any = false;
  for (const auto& sr : panel.series)
    for (std::size_t i = 0; i < sr.x.size(); ++i)
      if (finite_point(sr, i)) {
        any = true;
        xlo = std::min(xlo, sr.x[i]), xhi = std::max(xhi, sr.x[i]);
        ylo = std::min(ylo, sr.y[i]), yhi = std::max(yhi, sr.y[i]);
      }
  const bool fixed_y = panel.y_min < panel.y_max && std::isfinite(panel.y_max - panel.y_min);
  if (fixed_y) ylo = panel.y_min, yhi = panel.y_max;

  // Vertical layout: panel title, plot, x tick labels, x label.
  const int title_y = top;
  Rect plot{0, title_y + line + 4 * s, 0, bottom - (x_label.empty() ? 0 : line + 3 * s) - line - 2 * s - 5};
  const Axis ya =
      make_axis(any || fixed_y ? ylo : 0, any || fixed_y ? yhi : 1, std::max(2, plot.height() / (24 * s)), fixed_y);
  plot.x0 = left + 8 + widest(ya.labels, s) + 6;
  // Fewer x ticks until their labels fit side by side; the right margin holds half of the last label.
  Axis xa;
  for (int target = 0, margin = 8 + 4 * s;;) {
    plot.x1 = right - margin;
    if (target == 0) target = std::max(2, plot.width() / (40 * s));
    xa = make_axis(any ? xlo : 0, any ? xhi : 1, target, false);
    const int room = plot.width() / std::max<std::size_t>(xa.ticks.size(), 1);
    const int half_last = xa.labels.empty() ? 0 : text_width(xa.labels.back(), s) / 2 + 4;
    if (half_last > margin) {
      margin = half_last;
      continue;
    }
    if (widest(xa.labels, s) + 4 * s <= room || target == 1) break;
    target = std::max(1, target * 2 / 3);
  }
  auto X = [&](double v) { return plot.x0 + (v - xa.lo) / (xa.hi - xa.lo) * (plot.x1 - plot.x0); };
  auto Y = [&](double v) { return plot.y1 - (v - ya.lo) / (ya.hi - ya.lo) * (plot.y1 - plot.y0); };

  // Grid, frame, ticks and their labels.
  for (double t : ya.ticks) {
    const int y = static_cast<int>(std::lround(Y(t)));
    cv.fill({plot.x0, y, plot.x1, y}, kGrid);
  }
  for (double t : xa.ticks) {
    const int x = static_cast<int>(std::lround(X(t)));
    cv.fill({x, plot.y0, x, plot.y1}, kGrid);
  }
  cv.outline(plot, kAxis);
  for (std::size_t k = 0; k < ya.ticks.size(); ++k) {
    const int y = static_cast<int>(std::lround(Y(ya.ticks[k])));
    cv.fill({plot.x0 - 4, y, plot.x0 - 1, y}, kAxis);
    draw_text(cv, plot.x0 - 6 - text_width(ya.labels[k], s), y - line / 2, ya.labels[k], s, kText);
  }
  for (std::size_t k = 0; k < xa.ticks.size(); ++k) {
    const int x = static_cast<int>(std::lround(X(xa.ticks[k])));
    cv.fill({x, plot.y1 + 1, x, plot.y1 + 4}, kAxis);
    draw_text(cv, x - text_width(xa.labels[k], s) / 2, plot.y1 + 5 + 2 * s, xa.labels[k], s, kText);
  }
  const int mid = (plot.x0 + plot.x1) / 2;
  draw_text(cv, mid - text_width(panel.title, s) / 2, title_y, panel.title, s, kText);
  if (!x_label.empty())
    draw_text(cv, mid - text_width(x_label, s) / 2, plot.y1 + 5 + 2 * s + line + 3 * s, x_label, s, kText);
  if (!any) {
    const std::string none = "no data";
    draw_text(cv, mid - text_width(none, s) / 2, (plot.y0 + plot.y1) / 2 - line / 2, none, s, kAxis);
    return;
  }

  // Curves, inside the frame; a series of few points also gets a marker on each.
  const Rect inside{plot.x0 + 1, plot.y0 + 1, plot.x1 - 1, plot.y1 - 1};
  for (const auto& sr : panel.series) {
    const Rgb c = colours.at(sr.name);
    std::size_t finite = 0;
    for (std::size_t i = 0; i < sr.x.size(); ++i) finite += finite_point(sr, i);
    const double width = finite <= static_cast<std::size_t>(plot.width()) / 3 ? 1.25 : 0.75;  // thinner when dense
    for (std::size_t i = 0; i + 1 < sr.x.size(); ++i)
      if (finite_point(sr, i) && finite_point(sr, i + 1))
        thick_line(cv, X(sr.x[i]), Y(sr.y[i]), X(sr.x[i + 1]), Y(sr.y[i + 1]), width, c, inside);
    if (finite <= 30)
      for (std::size_t i = 0; i < sr.x.size(); ++i)
        if (finite_point(sr, i)) dot(cv, X(sr.x[i]), Y(sr.y[i]), 2.5, c, inside);
  }

  // Legend: in the corner of the plot that covers the fewest curve pixels. Names too long for the plot's width are
  // cut (ending in ".."), and rows beyond its height are left out.
  const int pad = 3 * s, swatch = 10 * s, row = 10 * s, m = 3 * s;
  const int max_chars = std::max(3, (inside.width() - 2 * m - 2 * pad - swatch - 3 * s) / (kAdvance * s));
  const int max_rows = std::max(1, (inside.height() - 2 * m - 2 * pad + 3 * s) / row);
  std::vector<std::pair<std::string, Rgb>> rows;
  for (const auto& sr : panel.series) {
    if (sr.name.empty() || static_cast<int>(rows.size()) == max_rows) continue;
    std::string name = sr.name;
    if (static_cast<int>(name.size()) > max_chars)
      name = name.substr(0, static_cast<std::size_t>(max_chars - 2)) + "..";
    rows.emplace_back(name, colours.at(sr.name));
  }
  if (rows.empty()) return;
  int names = 0;
  for (const auto& r : rows) names = std::max(names, text_width(r.first, s));
  const int lw = pad + swatch + 3 * s + names + pad, lh = pad + static_cast<int>(rows.size()) * row - 3 * s + pad;
  const Rect corners[4] = {{inside.x1 - m - lw, inside.y0 + m, inside.x1 - m, inside.y0 + m + lh},
                           {inside.x0 + m, inside.y0 + m, inside.x0 + m + lw, inside.y0 + m + lh},
                           {inside.x1 - m - lw, inside.y1 - m - lh, inside.x1 - m, inside.y1 - m},
                           {inside.x0 + m, inside.y1 - m - lh, inside.x0 + m + lw, inside.y1 - m}};
  Rect box = corners[0];
  long least = cv.curve_pixels(box);
  for (const Rect& r : corners) {
    const long n = cv.curve_pixels(r);
    if (n < least) least = n, box = r;
  }
  cv.fill(box, kBackground);
  cv.outline(box, kLegendBorder);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const int y = box.y0 + pad + static_cast<int>(k) * row;
    cv.fill({box.x0 + pad, y + line / 2 - s / 2 - 1, box.x0 + pad + swatch - 1, y + line / 2 + s / 2}, rows[k].second);
    draw_text(cv, box.x0 + pad + swatch + 3 * s, y, rows[k].first, s, kText);
  }
}

}  // namespace

void write_curves_png(const std::string& path, const CurveChart& chart) {
  check(chart);
  const int W = chart.width, H = chart.height;
  const int s = (W >= 800 && H >= 360) ? 2 : 1;  // text scale: glyphs of 10 x 14 pixels on a chart of 1000 x 450
  Canvas cv(W, H);

  std::map<std::string, Rgb> colours;
  for (const auto& p : chart.panels)
    for (const auto& sr : p.series)
      if (!colours.count(sr.name)) colours.emplace(sr.name, kPalette[colours.size() % std::size(kPalette)]);

  const int margin = 4 * s;
  int top = margin;
  if (!chart.title.empty()) {
    // The title's scale is one more than the other text's when it fits, else the largest that fits; a title too
    // long even at scale 1 is cut and ends in "...".
    int ts = s + 1;
    while (ts > 1 && text_width(chart.title, ts) > W - 2 * margin) --ts;
    std::string title = chart.title;
    if (text_width(title, ts) > W - 2 * margin) {
      title.resize(static_cast<std::size_t>(std::max(0, (W - 2 * margin) / (kAdvance * ts) - 3)));
      title += "...";
    }
    draw_text(cv, W / 2 - text_width(title, ts) / 2, top, title, ts, kText);
    top += 7 * ts + 5 * s;
  }
  const int np = static_cast<int>(chart.panels.size());
  for (int i = 0; i < np; ++i)
    draw_panel(cv, chart.panels[i], chart.x_label, W * i / np, W * (i + 1) / np - 1, top, H - 1 - margin, s, colours);
  write_file_atomically(path, encode_png(cv, path));
}

}  // namespace snk::layers
