#include "app/studio/zoo/model_scatter_3d.h"

#include <Q3DScatter>
#include <Q3DTheme>
#include <QValue3DAxis>
#include <algorithm>
#include <cmath>
#include <vector>

#include "app/studio/plots/heatmap_widget.h"
#include "app/studio/plots/pca_3d_panel.h"

namespace lsrl::studio {

Q3DScatter* newModelScatter3d(int labelPointSize) {
  Q3DScatter* graph = newScatter3d();
  graph->setShadowQuality(QAbstract3DGraph::ShadowQualityNone);
  Q3DTheme* theme = graph->activeTheme();
  QFont font = theme->font();
  font.setPointSize(labelPointSize);
  theme->setFont(font);
  // The box around a label is drawn at full size and outlives the shrunken text.
  theme->setLabelBackgroundEnabled(false);
  theme->setLabelBorderEnabled(false);
  return graph;
}

void setRoundAxisRange(QValue3DAxis* axis, double lo, double hi) {
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) {
    const double mid = std::isfinite(lo) ? lo : 0;
    lo = mid - 1;
    hi = mid + 1;
  }
  const std::vector<double> ticks = niceTicks(lo, hi, 3);
  const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : hi - lo;
  const double bottom = std::floor(lo / step + 1e-9) * step;
  const double top = std::ceil(hi / step - 1e-9) * step;
  axis->setRange(static_cast<float>(bottom), static_cast<float>(top));
  axis->setSegmentCount(std::max(1, static_cast<int>(std::lround((top - bottom) / step))));
  axis->setSubSegmentCount(1);
  const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
  axis->setLabelFormat(QStringLiteral("%.%1f").arg(decimals));
}

}  // namespace lsrl::studio
