// Help > Documentation: the docs/ pages, bundled into the explorer (resource prefix
// :/docs, app/studio/CMakeLists.txt), read in the window's own viewer: a list of the
// pages beside the page shown, links between pages followed inside, web links handed to
// the desktop's browser. Inside the explorer, so it works installed and offline, and
// tests can read what it shows.
#pragma once

#include <QDialog>
#include <QUrl>

class QListWidget;
class QTextBrowser;

namespace lsrl::studio {

class DocsViewer : public QDialog {
  Q_OBJECT

 public:
  explicit DocsViewer(QWidget* parent = nullptr);

  // Shows page `name` ("explorer.md"); false when it is not bundled.
  bool showPage(const QString& name);
  QString pageShown() const { return shown_; }

 private:
  void followLink(const QUrl& link);

  QListWidget* pages_;
  QTextBrowser* browser_;
  QString shown_;
};

}  // namespace lsrl::studio
