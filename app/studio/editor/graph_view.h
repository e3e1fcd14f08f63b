// The node editor's view: zoom (wheel, around the cursor), pan (middle button,
// Space+left drag, Alt+left drag), rubber-band selection, fit; and the editing
// gestures that act on the selection: copy, paste, duplicate, delete.
#pragma once

#include <QGraphicsView>
#include <QList>

#include "app/studio/document/document.h"

namespace lsrl::studio {

class GraphScene;
class LegendWidget;

class GraphView : public QGraphicsView {
  Q_OBJECT

 public:
  // Creates and owns a GraphScene observing `document`.
  explicit GraphView(Document* document, QWidget* parent = nullptr);

  Document* document() const { return document_; }
  GraphScene* graphScene() const { return scene_; }
  QList<ItemRef> selectedItems() const;
  // The scene point at the centre of the viewport.
  NodePosition viewCentre() const;
  double zoom() const;  // 1 = one scene unit per pixel
  // The colour legend in the bottom-left corner (shown by default).
  void setLegendVisible(bool visible);
  bool isLegendVisible() const;

  static constexpr double kMinZoom = 0.02;
  static constexpr double kMaxZoom = 4.0;

 public Q_SLOTS:
  void zoomIn();
  void zoomOut();
  void resetZoom();
  void setZoom(double zoom);  // keeps the view centre
  // Shows every item, with a margin.
  void fitAll();
  // Selects `item` only and scrolls it to the centre. A node or group hidden inside a
  // collapsed group selects that group's box; an expanded group selects its members.
  void selectAndCenter(ItemRef item);
  void centerOnScene(QPointF scenePos);
  void copySelection();
  void pasteClipboard();
  void duplicateSelection();
  void deleteSelection();

 Q_SIGNALS:
  void selectionChanged(const QList<ItemRef>& items);
  void statusMessage(const QString& message);
  // Zoom or scroll position changed (the minimap redraws its viewport rectangle).
  void viewportChanged();
  // A palette entry was dropped on the view (its drag text, the scene point).
  void paletteItemDropped(const QString& text, NodePosition at);

 protected:
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void keyReleaseEvent(QKeyEvent* event) override;
  void scrollContentsBy(int dx, int dy) override;
  void resizeEvent(QResizeEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dragMoveEvent(QDragMoveEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void updateSceneRect();
  void zoomChanged();  // after every change of the transform
  void zoomBy(double factor);
  void pasteFragment(const Graph& fragment, NodePosition at, const QString& what);
  void placeLegend();

  Document* document_;
  GraphScene* scene_;
  LegendWidget* legend_;
  bool spaceHeld_ = false;
  bool panning_ = false;
  QPoint lastPanPos_;
  int pasteCount_ = 0;
  NodePosition lastPasteCentre_;
};

}  // namespace lsrl::studio
