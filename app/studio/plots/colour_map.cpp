#include "app/studio/plots/colour_map.h"

#include <QColor>
#include <algorithm>
#include <array>
#include <cmath>

namespace lsrl::studio {

namespace {
struct Stop {
  double at;
  int r, g, b;
};
// ColorBrewer RdBu (reversed so that negative is blue), 7 stops from -1 to 1.
constexpr std::array<Stop, 7> kStops = {{{-1.0, 33, 102, 172},
                                         {-2.0 / 3, 103, 169, 207},
                                         {-1.0 / 3, 209, 229, 240},
                                         {0.0, 247, 247, 247},
                                         {1.0 / 3, 253, 219, 199},
                                         {2.0 / 3, 239, 138, 98},
                                         {1.0, 178, 24, 43}}};
}  // namespace

QRgb divergingColour(double value, double range) {
  if (!std::isfinite(value)) return qRgb(160, 160, 160);
  const double x = range > 0 ? std::clamp(value / range, -1.0, 1.0) : 0.0;
  size_t i = 0;
  while (i + 2 < kStops.size() && x > kStops[i + 1].at) ++i;
  const Stop& a = kStops[i];
  const Stop& b = kStops[i + 1];
  const double f = (x - a.at) / (b.at - a.at);
  auto mix = [f](int u, int v) { return static_cast<int>(std::lround(u + (v - u) * f)); };
  return qRgb(mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b));
}

QColor categoricalColour(int i) {
  static const QColor colours[] = {QColor(214, 39, 40),   QColor(31, 119, 180), QColor(44, 160, 44),
                                   QColor(148, 103, 189), QColor(255, 127, 14), QColor(140, 86, 75),
                                   QColor(227, 119, 194), QColor(23, 190, 207)};
  return colours[static_cast<size_t>(i) % std::size(colours)];
}

}  // namespace lsrl::studio
