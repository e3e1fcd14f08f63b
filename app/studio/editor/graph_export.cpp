#include "app/studio/editor/graph_export.h"

#include <QImage>
#include <QPainter>
#include <algorithm>
#include <cmath>

#include "app/studio/editor/graph_scene.h"
#include "app/studio/plots/chart_export.h"

namespace lsrl::studio {

namespace {

constexpr double kExportMargin = 24;

QRectF drawingRect(GraphScene* scene) {
  QRectF r = scene->contentRect();
  if (r.isEmpty()) r = QRectF(0, 0, 200, 100);
  return r.adjusted(-kExportMargin, -kExportMargin, kExportMargin, kExportMargin);
}

void paintScene(GraphScene* scene, QPainter& painter, const QRectF& target, const QRectF& source) {
  painter.setRenderHint(QPainter::Antialiasing);
  painter.fillRect(target, scene->backgroundBrush().style() == Qt::NoBrush
                               ? QBrush(Qt::white)
                               : scene->backgroundBrush());
  scene->render(&painter, target, source);
}

}  // namespace

void exportGraphPng(GraphScene* scene, const QString& path, int maxSide) {
  const QRectF source = drawingRect(scene);
  const double scale = std::min(1.0, maxSide / std::max(source.width(), source.height()));
  const QSize size(std::max(1, static_cast<int>(std::ceil(source.width() * scale))),
                   std::max(1, static_cast<int>(std::ceil(source.height() * scale))));
  QImage image(size, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::white);
  {
    QPainter painter(&image);
    paintScene(scene, painter, QRectF(QPointF(0, 0), QSizeF(size)), source);
  }
  exportImagePng(image, path);
}

void exportGraphSvg(GraphScene* scene, const QString& path, const QString& title) {
  const QRectF source = drawingRect(scene);
  const QSize size(static_cast<int>(std::ceil(source.width())),
                   static_cast<int>(std::ceil(source.height())));
  exportSvg(path, size, title, [&](QPainter& painter) {
    paintScene(scene, painter, QRectF(QPointF(0, 0), QSizeF(size)), source);
  });
}

}  // namespace lsrl::studio
