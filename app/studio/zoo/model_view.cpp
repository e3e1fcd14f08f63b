#include "app/studio/zoo/model_view.h"

#include <QPainter>

#include "core/util/error.h"

namespace lsrl::studio {

const Tensor& viewTraceArray(const seed_models::Trace& trace, const std::string& view,
                             const std::string& name, size_t rank) {
  if (!trace.has(name)) throw Error("the " + view + " view needs the trace array \"" + name + "\"");
  const Tensor& a = trace.get(name);
  if (a.shape.size() != rank)
    throw Error("the " + view + " view's trace array \"" + name + "\" has shape " +
                shapeText(a.shape) + ", expected " + std::to_string(rank) + " axes");
  return a;
}

QImage paintWindowInto(QImage image, const QWidget* owner, const QWidget* container,
                       const std::function<QImage(QSize)>& render) {
  if (container == nullptr || !container->isVisible()) return image;
  QPainter painter(&image);
  const QRect where(container->mapTo(owner, QPoint(0, 0)), container->size());
  painter.drawImage(where, render(container->size() * image.devicePixelRatio()));
  return image;
}

}  // namespace lsrl::studio
