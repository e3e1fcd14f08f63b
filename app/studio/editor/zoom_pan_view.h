// The zoom and pan every graph of the explorer shares (the editor's, the debranching
// player's, the token stepper's): the wheel zooms around the cursor (with or without
// Ctrl), the middle button, Space + left button, Alt + left button on the background and
// (unless turned off) the left button on the background drag the plane; the + / - / 0
// keys zoom in, out and fit. Subclasses say what their content is (contentRect) and may
// hook into every zoom change (zoomApplied). The scene rect is the content plus a
// viewport's worth of room on every side, so any part of the content can be centred.
#pragma once

#include <QGraphicsView>

namespace lsrl::studio {

class ZoomPanView : public QGraphicsView {
  Q_OBJECT

 public:
  explicit ZoomPanView(QWidget* parent = nullptr);

  double zoom() const;  // 1 = one scene unit per pixel
  double minZoom() const { return minZoom_; }
  double maxZoom() const { return maxZoom_; }
  void setZoomRange(double minZoom, double maxZoom);
  // The largest zoom fitAll and zoomTo pick (a small graph is not blown up to giant boxes).
  void setFitZoomLimit(double limit) { fitZoomLimit_ = limit; }
  // Whether a left-button drag that starts on the background pans (on by default; a view
  // with rubber-band selection turns it off and pans with Alt + left instead).
  void setBackgroundDragPans(bool on) { backgroundDragPans_ = on; }
  bool isPanning() const { return panning_; }

  // The part of the scene the content occupies: what fitAll shows and what panning
  // reaches. Default: the bounding rect of the scene's items.
  virtual QRectF contentRect() const;
  // The scene rect the viewport shows now.
  QRectF visibleSceneRect() const;
  // A modest preferred size: the view scrolls, its preferred size is not the scene's.
  QSize sizeHint() const override;

 public Q_SLOTS:
  void zoomIn();
  void zoomOut();
  void resetZoom();
  // Keeps the scene point at the centre of the viewport.
  void setZoom(double zoom);
  // Shows every item (contentRect) with a margin.
  void fitAll();
  // Shows `rect` whole and centred, as large as the zoom range and fit limit allow.
  void zoomTo(const QRectF& rect);
  // Zooms to `zoom` (clamped to the zoom range) with `centre` in the middle.
  void showAt(QPointF centre, double zoom);
  // The content changed: the scene rect follows it (never cutting off what is shown).
  void updateSceneRect();

 Q_SIGNALS:
  void zoomChanged(double zoom);
  // Zoom or scroll position changed.
  void viewportChanged();

 protected:
  // Called after every change of the zoom, before zoomChanged is emitted.
  virtual void zoomApplied() {}

  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void keyReleaseEvent(QKeyEvent* event) override;
  void scrollContentsBy(int dx, int dy) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void applyZoom(double zoom);
  // Multiplies the zoom by `factor`, keeping the scene point under `anchor` (viewport
  // coordinates) where it is.
  void zoomAround(QPoint anchor, double factor);
  bool startsPan(const QMouseEvent* event) const;
  // Whether a press of `button` at `pos` lands on no item that takes it.
  bool onBackground(QPoint pos, Qt::MouseButton button) const;

  double minZoom_ = 0.02;
  double maxZoom_ = 4.0;
  double fitZoomLimit_ = 4.0;
  bool backgroundDragPans_ = true;
  bool spaceHeld_ = false;
  bool panning_ = false;
  QPoint lastPanPos_;
};

}  // namespace lsrl::studio
