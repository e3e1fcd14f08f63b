#include "app/studio/zoo/inset_axis_ticks.h"

#include <QValue3DAxis>
#include <algorithm>
#include <cmath>

#include "app/studio/plots/heatmap_widget.h"

namespace lsrl::studio {

InsetAxisTicks::InsetAxisTicks(QObject* parent) : QValue3DAxisFormatter(parent) {}

void InsetAxisTicks::setTicks(std::vector<double> ticks, int decimals) {
  ticks_ = std::move(ticks);
  decimals_ = decimals;
  markDirty(true);
}

QValue3DAxisFormatter* InsetAxisTicks::createNewInstance() const { return new InsetAxisTicks; }

void InsetAxisTicks::populateCopy(QValue3DAxisFormatter& copy) const {
  QValue3DAxisFormatter::populateCopy(copy);
  auto& inset = static_cast<InsetAxisTicks&>(copy);
  inset.ticks_ = ticks_;
  inset.decimals_ = decimals_;
}

void InsetAxisTicks::recalculate() {
  gridPositions().clear();
  subGridPositions().clear();
  labelPositions().clear();
  labelStrings().clear();
  const double lo = axis()->min();
  const double hi = axis()->max();
  if (!(hi > lo)) return;
  for (double t : ticks_) {
    if (t < lo || t > hi) continue;
    const auto at = static_cast<float>((t - lo) / (hi - lo));
    gridPositions().append(at);
    labelPositions().append(at);
    // "-0" reads as a different value from "0".
    const double shown = std::abs(t) < 1e-12 ? 0.0 : t;
    labelStrings().append(QString::number(shown, 'f', decimals_));
  }
}

void setInsetAxisRange(QValue3DAxis* axis, double lo, double hi) {
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) {
    const double mid = std::isfinite(lo) ? lo : 0;
    lo = mid - 1;
    hi = mid + 1;
  }
  std::vector<double> ticks = niceTicks(lo, hi, 3);
  const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : hi - lo;
  // Half a step beyond the outer ticks (or the data), so no label sits at a corner.
  const double bottom = std::min(lo, ticks.empty() ? lo : ticks.front()) - 0.5 * step;
  const double top = std::max(hi, ticks.empty() ? hi : ticks.back()) + 0.5 * step;
  auto* formatter = qobject_cast<InsetAxisTicks*>(axis->formatter());
  if (formatter == nullptr) {
    formatter = new InsetAxisTicks;
    axis->setFormatter(formatter);  // the axis owns it
  }
  axis->setRange(static_cast<float>(bottom), static_cast<float>(top));
  formatter->setTicks(std::move(ticks), decimalsForStep(step));
}

}  // namespace lsrl::studio
