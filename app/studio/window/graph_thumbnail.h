// A small picture of a program's graph as the editor shows it on opening: the outermost
// collapsed groups as grey boxes, the other nodes as boxes coloured by op
// (editor/node_style.h), and the edges between them, at the stored layout's positions.
// Drawn with QPainter on a QImage, without a scene, so it is cheap and may run on a
// worker thread (the start page's example cards).
#pragma once

#include <QImage>
#include <QSize>

#include "core/graph/graph.h"

namespace lsrl::studio {

// `size` is in logical pixels; the image has size * devicePixelRatio pixels and carries
// that ratio. Items without a stored position are placed in layers first. A wide, flat
// graph is stretched vertically (a tall one horizontally) up to a few times so that its
// shape fills the picture rather than a thin strip of it.
QImage renderGraphThumbnail(const Graph& graph, QSize size, qreal devicePixelRatio = 1.0);

}  // namespace lsrl::studio
