#include "app/studio/panels/node_label.h"

namespace lsrl::studio {

QString nodeLabel(const Graph& g, NodeId id) {
  if (!g.contains(id)) {
    return QStringLiteral("#%1 (no such node)").arg(id);
  }
  const Node& n = g.node(id);
  QString label = QStringLiteral("#%1 %2").arg(id).arg(QString::fromUtf8(
      n.countedOpName().data(), static_cast<qsizetype>(n.countedOpName().size())));
  if (!n.name.empty()) label += QStringLiteral(" '%1'").arg(QString::fromStdString(n.name));
  return label;
}

}  // namespace lsrl::studio
