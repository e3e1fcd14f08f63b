// The Models tab's page for one view: a scroll area that gives the view the page's size,
// or the view's minimum size where that is larger (then, and only then, it scrolls).
// QScrollArea's own resizing (widgetResizable) sizes a view that holds word-wrapped text
// to its preferred height-for-width instead: the Gates view's channel chart fell below the
// fold of a 1600×1000 window although the view's minimum fitted.
#pragma once

#include <QScrollArea>

namespace lsrl::studio {

class ViewPage : public QScrollArea {
  Q_OBJECT

 public:
  explicit ViewPage(QWidget* view, QWidget* parent = nullptr);

 protected:
  bool viewportEvent(QEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void fitView();
};

}  // namespace lsrl::studio
