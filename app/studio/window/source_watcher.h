// Watches the Python program a document was built from (Document::sourcePath) and
// signals once per burst of changes (editors save several times, or replace the file:
// the folder is watched too, so a file renamed over the old one is seen).
#pragma once

#include <QDateTime>
#include <QObject>
#include <QString>

class QFileSystemWatcher;
class QTimer;

namespace lsrl::studio {

class Document;

class SourceWatcher : public QObject {
  Q_OBJECT

 public:
  static constexpr int kSettleMs = 300;

  SourceWatcher(Document* doc, QObject* parent = nullptr);
  QString watchedFile() const { return file_; }

 Q_SIGNALS:
  void sourceChanged();

 private:
  void follow(const QString& path);
  void maybeChanged();

  Document* doc_;
  QFileSystemWatcher* watcher_;
  QTimer* settle_;
  QString file_;
  QDateTime modified_;
  qint64 size_ = -1;
};

}  // namespace lsrl::studio
