#include "app/studio/editor/graph_clipboard.h"

#include <QMimeData>
#include <algorithm>

#include "core/io/graph_file.h"

namespace lsrl::studio {

std::vector<NodeId> nodesOfItems(const Graph& graph, const QList<ItemRef>& items) {
  std::vector<NodeId> nodes;
  for (const ItemRef& item : items) {
    if (item.kind == ItemRef::Kind::Node) {
      if (graph.contains(item.id)) nodes.push_back(item.id);
    } else if (graph.containsGroup(item.id)) {
      const auto& members = graph.groups()[item.id].nodes;
      nodes.insert(nodes.end(), members.begin(), members.end());
    }
  }
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return nodes;
}

QMimeData* fragmentMimeData(const Graph& fragment) {
  const QByteArray text = QByteArray::fromStdString(graphToString(fragment));
  auto* data = new QMimeData;
  data->setData(QString::fromLatin1(kGraphMimeType), text);
  data->setText(QString::fromUtf8(text));
  return data;
}

std::optional<Graph> fragmentFromMimeData(const QMimeData* data) {
  if (!data) return std::nullopt;
  const QString mime = QString::fromLatin1(kGraphMimeType);
  if (data->hasFormat(mime))
    return graphFromString(data->data(mime).toStdString(), "the clipboard");
  if (data->hasText()) {
    const QString text = data->text().trimmed();
    // Only text that looks like a graph document; anything else is not ours to parse.
    if (text.startsWith(QLatin1Char('{')) && text.contains(QStringLiteral("\"lsrl-graph\"")))
      return graphFromString(text.toStdString(), "the clipboard text");
  }
  return std::nullopt;
}

}  // namespace lsrl::studio
