// Copy and paste of graph fragments: the clipboard holds the fragment as graph-file
// JSON, under its own MIME type and as plain text (so it can be pasted into a file).
#pragma once

#include <QList>
#include <optional>
#include <vector>

#include "app/studio/document/document.h"

class QMimeData;

namespace lsrl::studio {

inline constexpr char kGraphMimeType[] = "application/x-lsrl-graph";

// The nodes behind editor items: nodes themselves and every member of a group
// (nested groups included), ascending and without repeats.
std::vector<NodeId> nodesOfItems(const Graph& graph, const QList<ItemRef>& items);

// A new QMimeData (the caller or the clipboard owns it) holding `fragment`.
QMimeData* fragmentMimeData(const Graph& fragment);
// The fragment held by `data`: the MIME type, or plain text that is a graph document.
// nullopt if it holds none; lsrl::Error if it holds a malformed one.
std::optional<Graph> fragmentFromMimeData(const QMimeData* data);

}  // namespace lsrl::studio
