#include "app/studio/editor/search_bar.h"

#include <QAbstractItemView>
#include <QCompleter>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QStringListModel>
#include <QToolButton>
#include <set>

#include "app/studio/editor/graph_view.h"
#include "app/studio/editor/group_item.h"

namespace lsrl::studio {

SearchBar::SearchBar(Document* document, GraphView* view, QWidget* parent)
    : QWidget(parent),
      document_(document),
      view_(view),
      edit_(new QLineEdit(this)),
      status_(new QLabel(this)),
      completions_(new QStringListModel(this)) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(4, 2, 4, 2);
  edit_->setObjectName(QStringLiteral("searchField"));
  edit_->setPlaceholderText(tr("Find node: name, f_function or #id"));
  edit_->setClearButtonEnabled(true);
  auto* completer = new QCompleter(completions_, this);
  completer->setCaseSensitivity(Qt::CaseInsensitive);
  completer->setFilterMode(Qt::MatchContains);
  edit_->setCompleter(completer);
  edit_->installEventFilter(this);
  status_->setMinimumWidth(70);
  auto* close = new QToolButton(this);
  close->setText(QStringLiteral("\u00d7"));
  close->setAutoRaise(true);
  close->setToolTip(tr("Close (Esc)"));
  layout->addWidget(edit_, 1);
  layout->addWidget(status_);
  layout->addWidget(close);
  close->setVisible(false);  // only a bar that hides has a close button
  connect(close, &QToolButton::clicked, this, &SearchBar::escape);
  closeButton_ = close;
  connect(edit_, &QLineEdit::returnPressed, this, &SearchBar::findNext);
  connect(edit_, &QLineEdit::textChanged, this, [this] { status_->clear(); });
  auto stale = [this] { completionsStale_ = true; };
  connect(document_, &Document::structureChanged, this, stale);
  connect(document_, &Document::nodesChanged, this, stale);
  connect(document_, &Document::documentReplaced, this, [this] {
    // A query belongs to the graph it was typed for: another file starts empty.
    completionsStale_ = true;
    edit_->clear();
    status_->clear();
    current_ = -1;
  });
}

void SearchBar::escape() {
  status_->clear();
  if (hideOnEscape_) hide();
  view_->setFocus(Qt::OtherFocusReason);
  Q_EMIT closed();
}

void SearchBar::setHideOnEscape(bool hide) {
  hideOnEscape_ = hide;
  closeButton_->setVisible(hide);
}

void SearchBar::activate() {
  show();
  refreshCompletions();
  edit_->setFocus(Qt::ShortcutFocusReason);
  edit_->selectAll();
}

void SearchBar::refreshCompletions() {
  if (!completionsStale_) return;
  const Graph& g = document_->graph();
  std::set<QString> words;  // sorted, unique
  for (const Node& n : g.nodes())
    if (!n.removed && !n.name.empty()) words.insert(QString::fromStdString(n.name));
  for (const Group& group : g.groups())
    if (!group.removed) words.insert(QString::fromStdString(group.function));
  completions_->setStringList(QStringList(words.begin(), words.end()));
  completionsStale_ = false;
}

std::vector<ItemRef> SearchBar::matches(const QString& raw) const {
  std::vector<ItemRef> found;
  const QString text = raw.trimmed();
  if (text.isEmpty()) return found;
  const Graph& g = document_->graph();
  if (text.startsWith(QLatin1Char('#'))) {
    bool ok = false;
    const int id = text.mid(1).toInt(&ok);
    if (ok && g.contains(id)) found.push_back(ItemRef{ItemRef::Kind::Node, id});
    return found;
  }
  for (const Node& n : g.nodes())
    if (!n.removed && !n.name.empty() &&
        QString::fromStdString(n.name).contains(text, Qt::CaseInsensitive))
      found.push_back(ItemRef{ItemRef::Kind::Node, n.id});
  for (const Group& group : g.groups())
    if (!group.removed && groupCaption(group).contains(text, Qt::CaseInsensitive))
      found.push_back(ItemRef{ItemRef::Kind::Group, group.id});
  return found;
}

QString SearchBar::statusText() const { return status_->text(); }

void SearchBar::findNext() { step(+1); }
void SearchBar::findPrevious() { step(-1); }

void SearchBar::step(int direction) {
  const QString text = edit_->text();
  const std::vector<ItemRef> found = matches(text);
  if (found.empty()) {
    status_->setText(tr("no match"));
    current_ = -1;
    return;
  }
  if (text != lastText_ || current_ < 0 || current_ >= static_cast<int>(found.size())) {
    current_ = direction > 0 ? 0 : static_cast<int>(found.size()) - 1;
  } else {
    const int n = static_cast<int>(found.size());
    current_ = ((current_ + direction) % n + n) % n;
  }
  lastText_ = text;
  const ItemRef target = found[current_];
  view_->selectAndCenter(target);
  status_->setText(tr("%1 of %2").arg(current_ + 1).arg(found.size()));
}

void SearchBar::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Escape) {
    escape();
    event->accept();
    return;
  }
  QWidget::keyPressEvent(event);
}

bool SearchBar::eventFilter(QObject* watched, QEvent* event) {
  if (watched == edit_ && event->type() == QEvent::KeyPress) {
    auto* key = static_cast<QKeyEvent*>(event);
    if (key->key() == Qt::Key_Escape && !edit_->completer()->popup()->isVisible()) {
      escape();
      return true;
    }
    if ((key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) &&
        (key->modifiers() & Qt::ShiftModifier)) {
      findPrevious();
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

}  // namespace lsrl::studio
