// An overview of the whole graph: a picture of the editor's scene scaled to fit (boxes
// and edges as hairlines), with the main view's visible area drawn over it. Clicking or dragging on
// it moves the main view there. The picture is re-rendered shortly after the scene changes, so
// scrolling the main view only repaints a pixmap and a rectangle.
#pragma once

#include <QElapsedTimer>
#include <QPixmap>
#include <QTimer>
#include <QTransform>
#include <QWidget>

namespace lsrl::studio {

class GraphView;

class Minimap : public QWidget {
  Q_OBJECT

 public:
  explicit Minimap(GraphView* mainView, QWidget* parent = nullptr);
  QSize sizeHint() const override { return QSize(260, 180); }
  QSize minimumSizeHint() const override { return QSize(80, 60); }

  // Scene point shown at widget point `pos`, and back.
  QPointF toScene(QPointF pos) const { return toWidget_.inverted().map(pos); }
  QRectF fromScene(const QRectF& rect) const { return toWidget_.mapRect(rect); }

 public Q_SLOTS:
  // Renders the scene again now (it also happens by itself after changes).
  void refit();

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  static constexpr int kMaxStaleMs = 400;
  void scheduleRefit();

  GraphView* main_;
  QPixmap picture_;
  QTransform toWidget_;  // scene -> widget coordinates
  QTimer refresh_;
  QElapsedTimer pendingSince_;  // since the first change the picture does not show yet
  bool dragging_ = false;
};

}  // namespace lsrl::studio
