#include "app/studio/window/recent_files.h"

#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace lsrl::studio {

namespace {
const QString kKey = QStringLiteral("recentFiles");
}

RecentFiles::RecentFiles(QObject* parent) : QObject(parent) {}

QStringList RecentFiles::files() const { return QSettings().value(kKey).toStringList(); }

void RecentFiles::add(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  QStringList list = files();
  list.removeAll(absolute);
  list.prepend(absolute);
  while (list.size() > kMaxFiles) list.removeLast();
  QSettings().setValue(kKey, list);
}

void RecentFiles::remove(const QString& path) {
  QStringList list = files();
  list.removeAll(QFileInfo(path).absoluteFilePath());
  QSettings().setValue(kKey, list);
}

void RecentFiles::clear() { QSettings().remove(kKey); }

void RecentFiles::populate(QMenu* menu) {
  menu->clear();
  QStringList kept;
  for (const QString& path : files()) {
    if (!QFileInfo(path).isFile()) continue;
    kept << path;
    const QString label =
        QStringLiteral("&%1  %2").arg(kept.size() % 10).arg(QDir::toNativeSeparators(path));
    QAction* action = menu->addAction(label);
    connect(action, &QAction::triggered, this, [this, path] { Q_EMIT openRequested(path); });
  }
  if (kept != files()) QSettings().setValue(kKey, kept);
  if (kept.isEmpty()) menu->addAction(tr("No recent files"))->setEnabled(false);
  menu->addSeparator();
  QAction* clearAction = menu->addAction(tr("Clear Recent Files"));
  clearAction->setEnabled(!kept.isEmpty());
  connect(clearAction, &QAction::triggered, this, &RecentFiles::clear);
}

}  // namespace lsrl::studio
