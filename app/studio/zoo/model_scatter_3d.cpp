#include "app/studio/zoo/model_scatter_3d.h"

#include <Q3DScatter>
#include <Q3DTheme>

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

}  // namespace lsrl::studio
