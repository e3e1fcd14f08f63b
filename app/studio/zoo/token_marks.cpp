#include "app/studio/zoo/token_marks.h"

#include <QMouseEvent>
#include <QPainter>

namespace lsrl::studio {

namespace {

constexpr int kHeight = 14;

QColor markColour(int mark) {
  if (mark > 0) return {46, 160, 67};   // right
  if (mark == 0) return {207, 34, 46};  // wrong
  return {208, 215, 222};               // not scored
}

}  // namespace

TokenMarks::TokenMarks(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("TokenMarks"));
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  setToolTip(
      tr("Per token: green = the output picks the target, red = it does not, grey = no "
         "target. Click a token to go to it."));
  hide();
}

void TokenMarks::setMarks(const std::vector<int>& marks) {
  marks_ = marks;
  setVisible(!marks_.empty());
  update();
}

void TokenMarks::setCurrent(int token) {
  current_ = token;
  update();
}

QRect TokenMarks::cellRect(int token) const {
  if (marks_.empty() || token < 0 || token >= static_cast<int>(marks_.size())) return {};
  const double w = static_cast<double>(width()) / static_cast<double>(marks_.size());
  const int x0 = static_cast<int>(token * w), x1 = static_cast<int>((token + 1) * w);
  return {x0, 0, std::max(1, x1 - x0), kHeight};
}

QSize TokenMarks::sizeHint() const { return {200, kHeight}; }

void TokenMarks::paintEvent(QPaintEvent*) {
  QPainter p(this);
  for (int i = 0; i < static_cast<int>(marks_.size()); ++i) {
    const QRect r = cellRect(i);
    p.fillRect(r.adjusted(0, 1, r.width() > 3 ? -1 : 0, -1),
               markColour(marks_[static_cast<size_t>(i)]));
  }
  if (const QRect r = cellRect(current_); r.isValid()) {
    p.setPen(QPen(palette().color(QPalette::WindowText), 2));
    p.drawRect(r.adjusted(1, 1, -1, -1));
  }
}

void TokenMarks::mousePressEvent(QMouseEvent* event) {
  for (int i = 0; i < static_cast<int>(marks_.size()); ++i) {
    if (cellRect(i).contains(event->position().toPoint())) {
      Q_EMIT tokenClicked(i);
      return;
    }
  }
}

}  // namespace lsrl::studio
