// The File > Open Recent list, kept in QSettings (most recent first, at most ten,
// files that no longer exist are dropped when the menu is shown).
#pragma once

#include <QObject>
#include <QStringList>

class QMenu;

namespace lsrl::studio {

class RecentFiles : public QObject {
  Q_OBJECT

 public:
  explicit RecentFiles(QObject* parent = nullptr);
  QStringList files() const;
  void add(const QString& path);
  // Drops `path` from the list (a file that was moved or deleted).
  void remove(const QString& path);
  void clear();
  // Fills `menu` with one action per existing file (emitting openRequested) and "Clear".
  void populate(QMenu* menu);

  static constexpr int kMaxFiles = 10;

 Q_SIGNALS:
  void openRequested(const QString& path);
};

}  // namespace lsrl::studio
