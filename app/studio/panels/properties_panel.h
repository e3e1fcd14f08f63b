// The properties panel (a dock): what is selected in the editor and its editable
// values. One node: op, id, name, width or slice range, inputs (with disconnect
// buttons), flags, its sugar group, "Set as output", a matrix editor per field, and its
// problems. One group: function, parameters, members, output, expand/collapse. Several
// items: a count. Nothing: a hint. Every change goes through the document.
#pragma once

#include <QList>
#include <QWidget>

#include "app/studio/document/document.h"

class QCheckBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QStackedWidget;
class QTabWidget;
class QVBoxLayout;

namespace lsrl::studio {

class MatrixEditor;

class PropertiesPanel : public QWidget {
  Q_OBJECT

 public:
  explicit PropertiesPanel(Document* document, QWidget* parent = nullptr);
  ~PropertiesPanel() override;

  void showSelection(const QList<ItemRef>& items);
  const QList<ItemRef>& selection() const { return selection_; }

  // For tests and the window: the matrix editor of a field of the shown node (nullptr
  // if the node has no such field or no single node is shown).
  MatrixEditor* matrixEditor(Field field) const;
  QLineEdit* nameEdit() const { return name_; }
  QString problemsText() const;
  // The last refused edit of the panel's own controls (empty if none).
  QString errorText() const;

 Q_SIGNALS:
  // The selection shown no longer exists (its ids were renumbered away).
  void selectionCleared();

 private:
  void buildNodePage();
  void buildGroupPage();
  void refresh();
  void refreshNode(NodeId id);
  void refreshGroup(GroupId id);
  // One field per constant parameter of the group (Document::setGroupParameter).
  void refreshConstants(GroupId id);
  void rebuildInputs(const Node& node);
  void rebuildMatrixTabs(const Node& node);
  bool selectionExists() const;
  // Runs a document edit, showing a refusal (lsrl::Error) instead of throwing.
  template <typename Edit>
  void edit(Edit&& f);
  void showError(const QString& message);

  Document* document_;
  QList<ItemRef> selection_;
  QStackedWidget* pages_;
  QLabel* hint_;
  QLabel* many_;

  // Node page.
  QWidget* nodePage_;
  QLabel* title_;
  QLineEdit* name_;
  QLabel* widthLabel_;
  QSpinBox* width_;
  QLabel* sliceLabel_;
  QWidget* sliceRow_;
  QSpinBox* sliceStart_;
  QSpinBox* sliceEnd_;
  QWidget* inputs_;
  QVBoxLayout* inputsLayout_;
  QString inputsSignature_;
  QCheckBox* positive_;
  QLabel* group_;
  QPushButton* setOutput_;
  QTabWidget* tabs_;
  QWidget* filler_;
  std::vector<std::pair<Field, MatrixEditor*>> editors_;
  NodeId tabsNode_ = kNoNode;
  Op tabsOp_ = Op::Input;
  QLabel* problems_;
  QLabel* error_;

  // Group page.
  QWidget* groupPage_;
  QLabel* groupTitle_;
  QLabel* groupParams_;
  QLabel* groupMembers_;
  QLabel* groupOutput_;
  QPushButton* expand_;
  QPushButton* groupSetOutput_ = nullptr;
  QWidget* groupConstants_ = nullptr;
  GroupId constantsGroup_ = kNoGroup;  // the group the fields were made for
  std::vector<std::pair<std::string, QLineEdit*>> constantFields_;
  QLabel* groupError_ = nullptr;
};

}  // namespace lsrl::studio
