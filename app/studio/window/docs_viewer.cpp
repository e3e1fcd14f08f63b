#include "app/studio/window/docs_viewer.h"

#include <QDesktopServices>
#include <QDir>
#include <QFileInfo>
#include <QListWidget>
#include <QSplitter>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace lsrl::studio {

namespace {

const QString kDocsRoot = QStringLiteral(":/docs");
// The page a person opening the docs from the explorer wants first.
const QString kFirstPage = QStringLiteral("explorer.md");

QUrl pageUrl(const QString& name) { return QUrl(QStringLiteral("qrc:/docs/") + name); }

}  // namespace

DocsViewer::DocsViewer(QWidget* parent)
    : QDialog(parent), pages_(new QListWidget(this)), browser_(new QTextBrowser(this)) {
  setWindowTitle(tr("LSRL Studio Documentation"));
  pages_->addItems(QDir(kDocsRoot).entryList({QStringLiteral("*.md")}, QDir::Files, QDir::Name));
  // Links are followed here: pages inside, the web outside (openLinks would try to show
  // a web page or a source file of the repository as a page).
  browser_->setOpenLinks(false);
  auto* split = new QSplitter(this);
  split->addWidget(pages_);
  split->addWidget(browser_);
  split->setStretchFactor(1, 1);
  split->setSizes({180, 720});
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(split);
  resize(960, 720);
  connect(pages_, &QListWidget::currentTextChanged, this, &DocsViewer::showPage);
  connect(browser_, &QTextBrowser::anchorClicked, this, &DocsViewer::followLink);
  showPage(kFirstPage);
}

bool DocsViewer::showPage(const QString& name) {
  if (name.isEmpty() || !QFileInfo::exists(kDocsRoot + QLatin1Char('/') + name)) return false;
  if (name != shown_) {
    shown_ = name;
    browser_->setSource(pageUrl(name), QTextDocument::MarkdownResource);
  }
  const QList<QListWidgetItem*> found = pages_->findItems(name, Qt::MatchExactly);
  if (!found.isEmpty() && pages_->currentItem() != found.front()) {
    pages_->setCurrentItem(found.front());
  }
  return true;
}

void DocsViewer::followLink(const QUrl& link) {
  if (link.scheme() == QLatin1String("http") || link.scheme() == QLatin1String("https") ||
      link.scheme() == QLatin1String("mailto")) {
    QDesktopServices::openUrl(link);
    return;
  }
  const QUrl target = browser_->source().resolved(link);
  // Another page (its fragment, if any, is where the browser scrolls), else a place in
  // this one; a link out of docs/ (a source file) is not bundled: nothing happens.
  const QString name = target.path().section(QLatin1Char('/'), 2);
  if (target.scheme() == QLatin1String("qrc") &&
      target.path().startsWith(QLatin1String("/docs/")) && showPage(name)) {
    if (target.hasFragment()) browser_->scrollToAnchor(target.fragment());
    return;
  }
  if (link.toString().startsWith(QLatin1Char('#'))) browser_->scrollToAnchor(link.fragment());
}

}  // namespace lsrl::studio
