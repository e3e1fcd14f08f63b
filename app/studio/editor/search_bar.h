// Find in the graph: a line edit with completion over node names, group functions and
// "#id". Enter selects and centres the next match ("3 of 7"), Shift+Enter the previous;
// a match hidden inside a collapsed group selects the group. Esc gives the focus back to
// the graph (and hides the bar if setHideOnEscape(true): a floating bar, not a toolbar's).
#pragma once

#include <QList>
#include <QWidget>
#include <vector>

#include "app/studio/document/document.h"

class QLabel;
class QLineEdit;
class QStringListModel;
class QToolButton;

namespace lsrl::studio {

class GraphView;

class SearchBar : public QWidget {
  Q_OBJECT

 public:
  SearchBar(Document* document, GraphView* view, QWidget* parent = nullptr);
  void setHideOnEscape(bool hide);

  // The items matching `text`, in id order (nodes first, then groups). Text is matched
  // case-insensitively as a substring of names and group titles; "#12" is node 12.
  std::vector<ItemRef> matches(const QString& text) const;
  QString statusText() const;  // "3 of 7", "no match", or empty

 public Q_SLOTS:
  // Shows the bar and focuses the text field.
  void activate();
  void findNext();
  void findPrevious();

 Q_SIGNALS:
  void closed();

 protected:
  void keyPressEvent(QKeyEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void refreshCompletions();
  void escape();
  void step(int direction);

  Document* document_;
  GraphView* view_;
  QLineEdit* edit_;
  QLabel* status_;
  QStringListModel* completions_;
  QToolButton* closeButton_ = nullptr;
  QString lastText_;
  int current_ = -1;
  bool completionsStale_ = true;
  bool hideOnEscape_ = false;
};

}  // namespace lsrl::studio
