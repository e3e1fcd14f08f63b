// Autosave and crash recovery. While a window is open, its document is written (a
// second or two after each edit) to a recovery file in the recovery folder, guarded by
// a lock file held by the running process. A normal close or a save removes it. On the
// next start, recovery files whose lock is stale (the process is gone: a crash) are
// offered for restoring.
#pragma once

#include <QDateTime>
#include <QLockFile>
#include <QObject>
#include <QString>
#include <QTimer>
#include <memory>
#include <vector>

namespace lsrl::studio {

class Document;

struct RecoveryEntry {
  QString recoveryFile;
  QString originalPath;  // the file the work belonged to, empty if untitled
  QString title;
  QDateTime savedAt;
};

class Autosave : public QObject {
  Q_OBJECT

 public:
  // `dir` defaults to defaultRecoveryDir().
  explicit Autosave(Document* doc, const QString& dir = {}, QObject* parent = nullptr);
  ~Autosave() override;  // a normal close: the recovery file goes

  // Writes the recovery file now if the document has unsaved changes, else removes it.
  void saveNow();
  QString recoveryFile() const { return file_; }
  // Milliseconds between the last edit and the write.
  void setDelay(int ms) { timer_.setInterval(ms); }

  // $LSRL_STUDIO_RECOVERY_DIR, else <app data>/recovery.
  static QString defaultRecoveryDir();
  // Recovery files no running process owns, newest first. Unreadable ones are skipped.
  static std::vector<RecoveryEntry> findRecoverable(const QString& dir = {});
  // Loads the entry into `doc` as unsaved work (throws lsrl::Error if it is corrupt),
  // then deletes the recovery file (the document's own autosave takes over).
  static void restore(const RecoveryEntry& entry, Document* doc);
  static void discard(const RecoveryEntry& entry);
  // Writes a recovery file for `doc` at `path` (what the autosave timer does).
  static void write(const Document& doc, const QString& path);

 private:
  void removeFile();

  Document* doc_;
  QString dir_;
  QString file_;
  std::unique_ptr<QLockFile> lock_;
  QTimer timer_;
};

}  // namespace lsrl::studio
