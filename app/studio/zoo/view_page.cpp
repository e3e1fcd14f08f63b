#include "app/studio/zoo/view_page.h"

#include <QEvent>

namespace lsrl::studio {

ViewPage::ViewPage(QWidget* view, QWidget* parent) : QScrollArea(parent) {
  setFrameShape(QFrame::NoFrame);
  setWidgetResizable(false);
  setWidget(view);
  // A new run can change the view's minimum (more channels, a longer header).
  view->installEventFilter(this);
}

bool ViewPage::viewportEvent(QEvent* event) {
  if (event->type() == QEvent::Resize) fitView();
  return QScrollArea::viewportEvent(event);
}

bool ViewPage::eventFilter(QObject* watched, QEvent* event) {
  if (watched == widget() && event->type() == QEvent::LayoutRequest) fitView();
  return QScrollArea::eventFilter(watched, event);
}

void ViewPage::fitView() {
  if (QWidget* view = widget())
    view->resize(viewport()->size().expandedTo(view->minimumSizeHint()));
}

}  // namespace lsrl::studio
