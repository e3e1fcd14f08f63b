// A one-line label that ends in "…" when it is narrower than its text, instead of being
// cut at an edge or widening its window; text() keeps the whole text. Plain text only.
#pragma once

#include <QLabel>

namespace lsrl::studio {

class ElidedLabel : public QLabel {
  Q_OBJECT

 public:
  using QLabel::QLabel;
  QSize minimumSizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
};

}  // namespace lsrl::studio
