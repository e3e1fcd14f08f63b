// A graph position as a scene point, for the editor's and the player's scenes (one definition,
// so that a unity build can put both scenes' sources in one translation unit).
#pragma once

#include <QPointF>

#include "core/graph/graph.h"

namespace lsrl::studio {

inline QPointF toPoint(const NodePosition& p) { return QPointF(p.x, p.y); }

}  // namespace lsrl::studio
