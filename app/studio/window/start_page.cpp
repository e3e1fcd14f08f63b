#include "app/studio/window/start_page.h"

#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QScrollArea>
#include <QStyle>
#include <QVBoxLayout>

#include "app/studio/window/example_thumbnails.h"
#include "app/studio/window/examples_catalog.h"
#include "app/studio/window/flow_layout.h"
#include "app/studio/window/recent_files.h"
#include "app/studio/window/start_page_entry.h"

namespace lsrl::studio {

namespace {

// At 1600 pixels the five variants of a program stand in one row beside the start column,
// with room left for a vertical scroll bar.
constexpr int kPageMargin = 28;
constexpr int kColumnGap = 32;
constexpr int kStartColumnWidth = 280;
constexpr int kSectionGap = 18;

QLabel* heading(const QString& text, QWidget* parent, double scale = 1.25) {
  auto* label = new QLabel(text, parent);
  QFont font = label->font();
  font.setPointSizeF(font.pointSizeF() * scale);
  font.setBold(true);
  label->setFont(font);
  return label;
}

QLabel* note(const QString& text, QWidget* parent) {
  auto* label = new QLabel(text, parent);
  label->setWordWrap(true);
  QPalette p = label->palette();
  p.setColor(QPalette::WindowText, p.color(QPalette::PlaceholderText).darker(130));
  label->setPalette(p);
  return label;
}

// A card names its conditional variant ("step_optimized"); the program and its
// parameters head the row.
QString cardTitle(const ExampleEntry& entry) {
  const auto variant = entry.params.find("conditional");
  return variant == entry.params.end() ? entry.title : QString::fromStdString(variant->second);
}

// "vec2vec (n=2, m=1, direct)" heads its row as "vec2vec (n=2, m=1)".
QString familyTitle(const ExampleEntry& entry) {
  const QString variant = cardTitle(entry);
  QString title = entry.title;
  return variant == title ? title
                          : title.replace(QStringLiteral(", ") + variant + QLatin1Char(')'),
                                          QStringLiteral(")"));
}

// What each of the paper's programs computes (docs/programs.md).
QString familyDescription(const QString& menu) {
  if (menu == QLatin1String("more_ones"))
    return QObject::tr("Output t is 1 when tokens 0..t hold more ones than zeros.");
  if (menu == QLatin1String("vec2vec"))
    return QObject::tr(
        "Approximates a function f: the last output is f at the centre of the query's cell. "
        "In the five conditional variants.");
  if (menu == QLatin1String("tok2tok"))
    return QObject::tr(
        "A dictionary lookup: the last L outputs are the value stored under the query. "
        "In the five conditional variants.");
  return {};
}

}  // namespace

StartPage::StartPage(RecentFiles* recent, QWidget* parent) : QWidget(parent), recent_(recent) {
  setObjectName(QStringLiteral("StartPage"));
  auto* content = new QWidget;
  content->setObjectName(QStringLiteral("StartPageContent"));
  auto* page = new QVBoxLayout(content);
  page->setContentsMargins(kPageMargin, kPageMargin - 8, kPageMargin, kPageMargin);
  page->setSpacing(kSectionGap);
  page->addWidget(buildHeader());
  auto* columns = new QHBoxLayout;
  columns->setSpacing(kColumnGap);
  columns->addWidget(buildStartColumn(), 0, Qt::AlignTop);
  columns->addWidget(buildExamples(), 1);
  page->addLayout(columns, 1);

  // Small windows scroll; the cards wrap first (flow_layout.h).
  auto* scroll = new QScrollArea(this);
  scroll->setObjectName(QStringLiteral("StartPageScroll"));
  scroll->setWidget(content);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->addWidget(scroll);

  connect(ExampleThumbnails::instance(), &ExampleThumbnails::ready, this,
          &StartPage::showThumbnail);
  refreshRecentFiles();
}

QWidget* StartPage::buildHeader() {
  auto* header = new QWidget;
  auto* row = new QHBoxLayout(header);
  row->setContentsMargins(0, 0, 0, 0);
  row->setSpacing(14);
  auto* icon = new QLabel(header);
  icon->setPixmap(QIcon(QStringLiteral(":/icons/lsrl-studio.svg")).pixmap(52, 52));
  row->addWidget(icon);
  auto* text = new QVBoxLayout;
  text->setSpacing(2);
  text->addWidget(heading(tr("LSRL Studio"), header, 1.8));
  text->addWidget(note(tr("Write LSRL programs, compile them into recurrent networks step by "
                          "step, and watch them compute. Start from one of the paper's "
                          "programs, a recent file, or an empty program."),
                       header));
  row->addLayout(text, 1);
  return header;
}

QWidget* StartPage::buildStartColumn() {
  auto* column = new QWidget;
  column->setFixedWidth(kStartColumnWidth);
  auto* layout = new QVBoxLayout(column);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(8);
  layout->addWidget(heading(tr("Start"), column));
  newProgram_ = new StartPageEntry(tr("New program"),
                                   tr("An empty graph to build from the palette"), {}, column);
  newProgram_->setObjectName(QStringLiteral("StartNewProgram"));
  newProgram_->setLeadingIcon(style()->standardIcon(QStyle::SP_FileIcon));
  open_ =
      new StartPageEntry(tr("Open…"), tr("A graph (.json) or Python program (.py)"), {}, column);
  open_->setObjectName(QStringLiteral("StartOpen"));
  open_->setLeadingIcon(style()->standardIcon(QStyle::SP_DirOpenIcon));
  resume_ = new StartPageEntry(QString(), tr("Return to the program that is open"), {}, column);
  resume_->setObjectName(QStringLiteral("StartResume"));
  resume_->setLeadingIcon(style()->standardIcon(QStyle::SP_ArrowBack));
  resume_->hide();
  connect(newProgram_, &QAbstractButton::clicked, this, &StartPage::newProgramRequested);
  connect(open_, &QAbstractButton::clicked, this, &StartPage::openRequested);
  connect(resume_, &QAbstractButton::clicked, this, &StartPage::resumeRequested);
  layout->addWidget(newProgram_);
  layout->addWidget(open_);
  layout->addWidget(resume_);
  layout->addSpacing(kSectionGap);
  layout->addWidget(heading(tr("Recent files"), column));
  recentLayout_ = new QVBoxLayout;
  recentLayout_->setSpacing(6);
  layout->addLayout(recentLayout_);
  noRecentFiles_ = note(tr("Files you open or save are listed here."), column);
  layout->addWidget(noRecentFiles_);
  return column;
}

QWidget* StartPage::buildExamples() {
  auto* examples = new QWidget;
  auto* layout = new QVBoxLayout(examples);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(8);
  layout->addWidget(heading(tr("Examples from the paper"), examples));
  layout->addWidget(note(tr("Each is built from its program and opens with its stored layout: "
                            "coloured boxes are primitives, grey boxes are sugar groups."),
                         examples));
  const auto& entries = exampleEntries();
  FlowLayout* flow = nullptr;
  QString family;
  for (size_t i = 0; i < entries.size(); ++i) {
    const ExampleEntry& entry = entries[i];
    if (flow == nullptr || entry.menu != family) {
      family = entry.menu;
      layout->addSpacing(10);
      layout->addWidget(heading(familyTitle(entry), examples, 1.05));
      const QString description = familyDescription(family);
      if (!description.isEmpty()) layout->addWidget(note(description, examples));
      flow = new FlowLayout(nullptr, 12);
      layout->addLayout(flow);
    }
    auto* card = new StartPageEntry(cardTitle(entry), tr("drawing…"),
                                    ExampleThumbnails::thumbnailSize(), examples);
    card->setObjectName(QStringLiteral("ExampleCard"));
    card->setPlaceholder(tr("drawing…"));
    card->setAccessibleName(entry.title);
    card->setToolTip(tr("Open %1 (%2)").arg(entry.title, entry.fileName));
    const int index = static_cast<int>(i);
    connect(card, &QAbstractButton::clicked, this,
            [this, index] { Q_EMIT exampleRequested(index); });
    flow->addWidget(card);
    cards_.append(card);
  }
  layout->addStretch(1);
  return examples;
}

void StartPage::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  // Only a page that is seen costs the worker its examples (a window opened on a file
  // never shows it).
  requestThumbnails();
}

void StartPage::requestThumbnails() {
  if (thumbnailsRequested_) return;
  thumbnailsRequested_ = true;
  for (int i = 0; i < cards_.size(); ++i) showThumbnail(i);
}

void StartPage::showThumbnail(int index) {
  if (!thumbnailsRequested_ || index < 0 || index >= cards_.size()) return;
  const ExampleThumbnails::Thumbnail* t = ExampleThumbnails::instance()->thumbnail(index);
  if (t == nullptr) return;  // `ready` comes later
  thumbnailsShown_.insert(index);
  StartPageEntry* card = cards_[index];
  if (!t->error.isEmpty()) {
    card->setPlaceholder(tr("cannot be built:\n%1").arg(t->error));
    card->setDetail(tr("cannot be built"));
    return;
  }
  card->setPicture(t->image);
  card->setDetail(tr("%1 nodes · %2 groups").arg(t->nodes).arg(t->groups));
}

int StartPage::thumbnailsPending() const {
  return static_cast<int>(cards_.size() - thumbnailsShown_.size());
}

void StartPage::refreshRecentFiles() {
  qDeleteAll(recentEntries_);
  recentEntries_.clear();
  const QStringList files = recent_ != nullptr ? recent_->files() : QStringList();
  for (const QString& path : files) {
    const QFileInfo info(path);
    const QString folder = QDir::toNativeSeparators(info.absolutePath());
    auto* entry = new StartPageEntry(info.fileName(),
                                     info.isFile() ? folder : tr("no longer there: %1").arg(folder),
                                     {}, recentLayout_->parentWidget());
    entry->setObjectName(QStringLiteral("RecentFile"));
    entry->setToolTip(QDir::toNativeSeparators(path));
    connect(entry, &QAbstractButton::clicked, this,
            [this, path] { Q_EMIT recentFileRequested(path); });
    recentLayout_->addWidget(entry);
    recentEntries_.append(entry);
  }
  noRecentFiles_->setVisible(recentEntries_.isEmpty());
  updateTabOrder();
}

void StartPage::setOpenDocument(const QString& name) {
  resume_->setText(tr("Back to %1").arg(name));
  resume_->setAccessibleName(resume_->text());
  resume_->setVisible(!name.isEmpty());
}

void StartPage::focusFirstEntry() { newProgram_->setFocus(Qt::OtherFocusReason); }

void StartPage::updateTabOrder() {
  // Reading order: the start column top to bottom, then the examples; recent entries are
  // made anew on each refresh and would otherwise come last.
  QList<QWidget*> chain = {newProgram_, open_, resume_};
  for (StartPageEntry* e : std::as_const(recentEntries_)) chain.append(e);
  for (StartPageEntry* c : std::as_const(cards_)) chain.append(c);
  for (int i = 1; i < chain.size(); ++i) setTabOrder(chain[i - 1], chain[i]);
}

}  // namespace lsrl::studio
