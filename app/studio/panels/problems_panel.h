// The problems panel (a dock): the document's live validation, one row per problem
// (the node and the message); double-clicking a row asks the editor to show its node.
#pragma once

#include <QWidget>

#include "app/studio/document/document.h"

class QLabel;
class QTreeWidget;

namespace lsrl::studio {

class ProblemsPanel : public QWidget {
  Q_OBJECT

 public:
  explicit ProblemsPanel(Document* document, QWidget* parent = nullptr);

  QString headerText() const;
  QTreeWidget* list() const { return list_; }
  void refresh();

 Q_SIGNALS:
  // The user asked to see this node (double-click on a problem naming it).
  void nodeActivated(NodeId id);

 private:
  Document* document_;
  QLabel* header_;
  QTreeWidget* list_;
};

}  // namespace lsrl::studio
