#include "app/studio/zoo/model_view.h"

#include <QPainter>

namespace lsrl::studio {

QImage paintWindowInto(QImage image, const QWidget* owner, const QWidget* container,
                       const std::function<QImage(QSize)>& render) {
  if (container == nullptr || !container->isVisible()) return image;
  QPainter painter(&image);
  const QRect where(container->mapTo(owner, QPoint(0, 0)), container->size());
  painter.drawImage(where, render(container->size() * image.devicePixelRatio()));
  return image;
}

}  // namespace lsrl::studio
