// The node editor's graph as a picture: the whole drawing (every box, frame and edge,
// not only the visible part) to PNG or SVG. Writes are atomic and failures throw
// lsrl::Error naming the path.
#pragma once

#include <QString>

namespace lsrl::studio {

class GraphScene;

// PNG at one scene unit per pixel, scaled down so neither side exceeds `maxSide`.
void exportGraphPng(GraphScene* scene, const QString& path, int maxSide = 8000);
void exportGraphSvg(GraphScene* scene, const QString& path, const QString& title);

}  // namespace lsrl::studio
