// The node editor's view: the shared zoom and pan (ZoomPanView: wheel around the cursor,
// middle button, Space + left, Alt + left on the background), rubber-band selection,
// fit; and the editing gestures that act on the selection: copy, paste, duplicate,
// delete. A drop from the palette inserts the entry where it lands.
#pragma once

#include <QList>

#include "app/studio/document/document.h"
#include "app/studio/editor/zoom_pan_view.h"

namespace lsrl::studio {

class GraphScene;
class LegendWidget;

class GraphView : public ZoomPanView {
  Q_OBJECT

 public:
  // Creates and owns a GraphScene observing `document`.
  explicit GraphView(Document* document, QWidget* parent = nullptr);

  Document* document() const { return document_; }
  GraphScene* graphScene() const { return scene_; }
  QList<ItemRef> selectedItems() const;
  // The scene point at the centre of the viewport.
  NodePosition viewCentre() const;
  // Where a new node from the palette goes: beside the selection (right of its rightmost
  // box), else under the mouse when it points at the canvas, else the view's centre. The
  // document then moves it clear of every box (Document::addPrimitive, insertFragment).
  NodePosition placeForNewItem() const;
  // The colour legend in the bottom-left corner (shown by default).
  void setLegendVisible(bool visible);
  bool isLegendVisible() const;
  // Boxes, frames and edges (what fitAll shows).
  QRectF contentRect() const override;

 public Q_SLOTS:
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
  // A palette entry was dropped on the view (its drag text, the scene point).
  void paletteItemDropped(const QString& text, NodePosition at);

 protected:
  void zoomApplied() override;
  void keyPressEvent(QKeyEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dragMoveEvent(QDragMoveEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void pasteFragment(const Graph& fragment, NodePosition at, const QString& what);
  void placeLegend();

  Document* document_;
  GraphScene* scene_;
  LegendWidget* legend_;
  int pasteCount_ = 0;
  NodePosition lastPasteCentre_;
};

}  // namespace lsrl::studio
