// The player's read-only node panel: a compiled node's op, width and name at the shown
// step, and one of its matrices or vectors (A, B, b, init, bias) as a table, with the
// matrix's conditioning (matrix_conditioning.h). The
// payload comes from CompileHistory::payload (a node's values never change while it
// lives: a rewrite makes a new node).
#pragma once

#include <QWidget>
#include <memory>
#include <optional>

#include "core/compiler/compiler.h"

class QComboBox;
class QLabel;
class QTableWidget;

namespace lsrl::studio {

class NodeInspector : public QWidget {
  Q_OBJECT

 public:
  explicit NodeInspector(QWidget* parent = nullptr);

  // Shows node `id` of `history` (kNoNode or a null history: nothing).
  void inspect(std::shared_ptr<const CompileHistory> history, NodeId id);
  NodeId node() const { return id_; }
  // Whether the node is part of the graph at the step shown (else the header says so).
  void setPresent(bool present);
  QString headerText() const;
  QTableWidget* table() const { return table_; }
  QComboBox* fieldBox() const { return field_; }
  QString conditioningText() const;

 private:
  void showField();

  void updateHeader();

  std::optional<Node> node_;
  bool present_ = true;
  NodeId id_ = kNoNode;
  QLabel* header_;
  QComboBox* field_;
  QLabel* shape_;
  QLabel* conditioning_;
  QTableWidget* table_;
};

}  // namespace lsrl::studio
