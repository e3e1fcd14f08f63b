#include "app/studio/window/start_page_entry.h"

#include <QFocusEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>

#include "app/studio/editor/node_style.h"

namespace lsrl::studio {

namespace {

constexpr int kPadding = 8;
constexpr int kRowPadding = 10;
constexpr int kIconSize = 24;
constexpr int kRowWidth = 280;
constexpr double kCornerRadius = 6;

QFont titleFont(const QFont& base) {
  QFont f = base;
  f.setBold(true);
  return f;
}

QFont detailFont(const QFont& base) {
  QFont f = base;
  f.setPointSizeF(base.pointSizeF() * 0.9);
  return f;
}

// A colour between `a` and `b` (t = 0: a).
QColor mix(const QColor& a, const QColor& b, double t) {
  return QColor::fromRgbF(static_cast<float>(a.redF() * (1 - t) + b.redF() * t),
                          static_cast<float>(a.greenF() * (1 - t) + b.greenF() * t),
                          static_cast<float>(a.blueF() * (1 - t) + b.blueF() * t));
}

}  // namespace

StartPageEntry::StartPageEntry(const QString& title, const QString& detail, QSize pictureSize,
                               QWidget* parent)
    : QAbstractButton(parent), detail_(detail), pictureSize_(pictureSize) {
  setText(title);
  setAccessibleName(title);
  setAccessibleDescription(detail);
  setFocusPolicy(Qt::StrongFocus);
  setCursor(Qt::PointingHandCursor);
  setMouseTracking(true);  // hover is drawn on the first move over the entry
  setSizePolicy(isCard() ? QSizePolicy::Fixed : QSizePolicy::Preferred, QSizePolicy::Fixed);
}

void StartPageEntry::setDetail(const QString& detail) {
  detail_ = detail;
  setAccessibleDescription(detail);
  update();
}

void StartPageEntry::setPicture(const QImage& picture) {
  picture_ = picture;
  update();
}

void StartPageEntry::setPlaceholder(const QString& text) {
  placeholder_ = text;
  update();
}

void StartPageEntry::setLeadingIcon(const QIcon& icon) {
  icon_ = icon;
  updateGeometry();
  update();
}

QSize StartPageEntry::sizeHint() const {
  const int title = QFontMetrics(titleFont(font())).height();
  const int detail = detail_.isEmpty() ? 0 : QFontMetrics(detailFont(font())).height() + 2;
  if (isCard()) {
    return {pictureSize_.width() + 2 * kPadding,
            pictureSize_.height() + 3 * kPadding + title + detail + 2};
  }
  const int text = title + detail;
  return {kRowWidth, std::max(text, icon_.isNull() ? 0 : kIconSize) + 2 * kRowPadding};
}

QSize StartPageEntry::minimumSizeHint() const {
  return isCard() ? sizeHint() : QSize(160, sizeHint().height());
}

void StartPageEntry::mouseMoveEvent(QMouseEvent* event) {
  // An enter event also comes when the page appears under a pointer that has not moved:
  // only a move says the person points at the entry.
  if (!hovered_) {
    hovered_ = true;
    update();
  }
  QAbstractButton::mouseMoveEvent(event);
}

void StartPageEntry::leaveEvent(QEvent* event) {
  hovered_ = false;
  update();
  QAbstractButton::leaveEvent(event);
}

void StartPageEntry::focusInEvent(QFocusEvent* event) {
  switch (event->reason()) {
    case Qt::TabFocusReason:
    case Qt::BacktabFocusReason:
    case Qt::ShortcutFocusReason:
      focusShown_ = true;
      break;
    case Qt::ActiveWindowFocusReason:
    case Qt::PopupFocusReason:
      break;  // the focus comes back to where it was, shown as it was
    default:
      focusShown_ = false;  // a click, or the page choosing its first entry
  }
  QAbstractButton::focusInEvent(event);
}

void StartPageEntry::focusOutEvent(QFocusEvent* event) {
  if (event->reason() != Qt::ActiveWindowFocusReason && event->reason() != Qt::PopupFocusReason)
    focusShown_ = false;
  QAbstractButton::focusOutEvent(event);
}

void StartPageEntry::keyPressEvent(QKeyEvent* event) {
  // Buttons outside dialogs take only Space; a list of entries is also walked with Enter.
  if (event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) {
    animateClick();
    event->accept();
    return;
  }
  QAbstractButton::keyPressEvent(event);
}

void StartPageEntry::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.setRenderHint(QPainter::Antialiasing);
  const QColor base = palette().color(QPalette::Base);
  const QColor accent = selectionColor();
  const double tint = isDown() ? 0.18 : (hovered_ ? 0.08 : 0.0);
  const QRectF frame = QRectF(rect()).adjusted(1.5, 1.5, -1.5, -1.5);
  painter.setBrush(mix(base, accent, tint));
  if (hasFocus() && focusShown_) {
    painter.setPen(QPen(accent, 2));
  } else {
    painter.setPen(QPen(hovered_ ? mix(palette().color(QPalette::Mid), accent, 0.5)
                                 : palette().color(QPalette::Midlight).darker(115),
                        1));
  }
  painter.drawRoundedRect(frame, kCornerRadius, kCornerRadius);
  if (isCard()) {
    paintCard(painter, rect().adjusted(kPadding, kPadding, -kPadding, -kPadding));
  } else {
    paintRow(painter, rect().adjusted(kRowPadding, kRowPadding, -kRowPadding, -kRowPadding));
  }
}

void StartPageEntry::paintCard(QPainter& painter, const QRect& inner) {
  const QRect picture(inner.topLeft(), pictureSize_);
  if (!picture_.isNull()) {
    painter.drawImage(picture, picture_);
  } else {
    painter.fillRect(picture, sceneBackground());
    painter.setPen(secondaryTextColor());
    painter.setFont(detailFont(font()));
    painter.drawText(picture, Qt::AlignCenter | Qt::TextWordWrap, placeholder_);
  }
  painter.setPen(QPen(palette().color(QPalette::Midlight).darker(110), 1));
  painter.setBrush(Qt::NoBrush);
  painter.drawRect(QRectF(picture).adjusted(0.5, 0.5, -0.5, -0.5));

  const QFont title = titleFont(font());
  const QFont detail = detailFont(font());
  const int titleHeight = QFontMetrics(title).height();
  QRect line(inner.left(), picture.bottom() + kPadding, inner.width(), titleHeight);
  painter.setFont(title);
  painter.setPen(palette().color(QPalette::Text));
  painter.drawText(line, Qt::AlignLeft | Qt::AlignVCenter,
                   QFontMetrics(title).elidedText(text(), Qt::ElideRight, line.width()));
  if (detail_.isEmpty()) return;
  line = QRect(inner.left(), line.bottom() + 2, inner.width(), QFontMetrics(detail).height());
  painter.setFont(detail);
  painter.setPen(palette().color(QPalette::PlaceholderText));
  painter.drawText(line, Qt::AlignLeft | Qt::AlignVCenter,
                   QFontMetrics(detail).elidedText(detail_, Qt::ElideRight, line.width()));
}

void StartPageEntry::paintRow(QPainter& painter, const QRect& inner) {
  QRect text = inner;
  if (!icon_.isNull()) {
    const QRect icon(inner.left(), inner.center().y() - kIconSize / 2, kIconSize, kIconSize);
    icon_.paint(&painter, icon);
    text.setLeft(icon.right() + kRowPadding);
  }
  const QFont title = titleFont(font());
  const QFont detail = detailFont(font());
  const int titleHeight = QFontMetrics(title).height();
  const int detailHeight = detail_.isEmpty() ? 0 : QFontMetrics(detail).height() + 2;
  const int top = text.center().y() - (titleHeight + detailHeight) / 2;
  painter.setFont(title);
  painter.setPen(palette().color(QPalette::Text));
  const QRect titleLine(text.left(), top, text.width(), titleHeight);
  painter.drawText(titleLine, Qt::AlignLeft | Qt::AlignVCenter,
                   QFontMetrics(title).elidedText(this->text(), Qt::ElideRight, text.width()));
  if (detail_.isEmpty()) return;
  // Folders are elided in the middle: both the root and the last folder say something.
  painter.setFont(detail);
  painter.setPen(palette().color(QPalette::PlaceholderText));
  painter.drawText(QRect(text.left(), top + titleHeight + 2, text.width(), detailHeight - 2),
                   Qt::AlignLeft | Qt::AlignVCenter,
                   QFontMetrics(detail).elidedText(detail_, Qt::ElideMiddle, text.width()));
}

}  // namespace lsrl::studio
