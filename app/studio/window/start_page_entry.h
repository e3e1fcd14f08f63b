// One thing to click on the start page: an example card (a picture of the program's
// graph above its title), a recent file or an action ("New program"). A button, so Tab
// reaches it and Space, Enter or Return activate it, with hover and focus drawn. Neither
// is drawn for no reason: the hover tint once the mouse moves over the entry (not when a
// page appears under a resting pointer), the focus frame once the keyboard brought the
// focus (not the page's own choice of a first entry).
#pragma once

#include <QAbstractButton>
#include <QIcon>
#include <QImage>
#include <QString>

namespace lsrl::studio {

class StartPageEntry : public QAbstractButton {
  Q_OBJECT

 public:
  // `pictureSize` non-empty: a card with room for a picture of that size (a placeholder
  // until setPicture); empty: a row with an optional icon.
  StartPageEntry(const QString& title, const QString& detail, QSize pictureSize = {},
                 QWidget* parent = nullptr);

  QString title() const { return text(); }
  QString detail() const { return detail_; }
  void setDetail(const QString& detail);
  bool hasPicture() const { return !picture_.isNull(); }
  void setPicture(const QImage& picture);
  // Shown instead of the picture when there is none ("drawing…", an error).
  void setPlaceholder(const QString& text);
  void setLeadingIcon(const QIcon& icon);

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  void focusInEvent(QFocusEvent* event) override;
  void focusOutEvent(QFocusEvent* event) override;

 private:
  bool isCard() const { return !pictureSize_.isEmpty(); }
  void paintCard(QPainter& painter, const QRect& inner);
  void paintRow(QPainter& painter, const QRect& inner);

  QString detail_;
  QSize pictureSize_;
  QImage picture_;
  QString placeholder_;
  QIcon icon_;
  bool hovered_ = false;
  bool focusShown_ = false;
};

}  // namespace lsrl::studio
