// The palette (a dock): the primitives and the sugar functions of the catalogue. A
// primitive is added with the chosen width; a sugar function with the parameters of
// its form (validated as they are typed), inserted as one collapsed group whose
// operands are left for the user to wire. Items can also be dragged into the editor
// (mime type kPaletteMimeType, the text "primitive:Linear:3" or "sugar:f_larger").
#pragma once

#include <QWidget>
#include <functional>
#include <optional>
#include <vector>

#include "app/studio/common/palette_mime.h"
#include "app/studio/document/document.h"
#include "app/studio/document/sugar_catalog.h"

class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTreeWidget;
class QTreeWidgetItem;
class QFormLayout;
class QWidget;

namespace lsrl::studio {

class PalettePanel : public QWidget {
  Q_OBJECT

 public:
  // `placement` says where new nodes go (GraphView::placeForNewItem).
  PalettePanel(Document* document, std::function<NodePosition()> placement,
               QWidget* parent = nullptr);
  ~PalettePanel() override;

  // Selects an entry by name ("Linear", "Slice", "f_larger"); false if there is none.
  bool select(const QString& name);
  // Sets a parameter of the selected sugar function's form (tests, scripting).
  bool setParameter(const QString& name, const QString& text);
  // Adds the selected entry at the placement; the new node ids, empty (and the reason
  // shown) if it was refused.
  std::vector<NodeId> addSelected();
  // Adds the entry described by palette mime text at `at` (drops from the editor).
  std::vector<NodeId> addFromMime(const QString& text, NodePosition at);
  QString errorText() const;
  QTreeWidget* tree() const { return tree_; }

 Q_SIGNALS:
  // Nodes were added: the view selects them.
  void inserted(const std::vector<NodeId>& ids);

 private:
  void selectionChanged();
  void rebuildForm(const SugarFunction* fn);
  void validate();
  std::vector<NodeId> add(const QString& entry, const SugarArgs& args, int width, NodePosition at);
  SugarArgs formArgs() const;
  void showError(const QString& message);
  QString selectedEntry() const;

  Document* document_;
  std::function<NodePosition()> placement_;
  QTreeWidget* tree_;
  QLabel* description_;
  QWidget* widthRow_;
  QSpinBox* width_;
  QWidget* form_;
  QFormLayout* formLayout_;
  std::vector<std::pair<SugarParam, QLineEdit*>> fields_;
  QPushButton* add_;
  QLabel* error_;
};

}  // namespace lsrl::studio
