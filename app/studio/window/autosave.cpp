#include "app/studio/window/autosave.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QUuid>
#include <algorithm>
#include <nlohmann/json.hpp>

#include "app/studio/document/document.h"
#include "core/io/graph_file.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace lsrl::studio {

namespace {

constexpr const char* kFormat = "lsrl-recovery";
constexpr int kRecoveryVersion = 1;
const QString kSuffix = QStringLiteral(".lsrl-recovery.json");

QString lockPathOf(const QString& recoveryFile) {
  QString base = recoveryFile;
  base.chop(kSuffix.size());
  return base + QStringLiteral(".lock");
}

}  // namespace

QString Autosave::defaultRecoveryDir() {
  const QByteArray env = qgetenv("LSRL_STUDIO_RECOVERY_DIR");
  if (!env.isEmpty()) return QString::fromLocal8Bit(env);
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
         QStringLiteral("/recovery");
}

Autosave::Autosave(Document* doc, const QString& dir, QObject* parent)
    : QObject(parent), doc_(doc), dir_(dir.isEmpty() ? defaultRecoveryDir() : dir) {
  QDir().mkpath(dir_);
  const QString stem = QDir(dir_).filePath(QUuid::createUuid().toString(QUuid::WithoutBraces));
  file_ = stem + kSuffix;
  lock_ = std::make_unique<QLockFile>(stem + QStringLiteral(".lock"));
  lock_->setStaleLockTime(0);  // only a dead owner makes it stale, never its age
  lock_->tryLock(0);
  timer_.setSingleShot(true);
  timer_.setInterval(1500);
  connect(&timer_, &QTimer::timeout, this, &Autosave::saveNow);
  auto schedule = [this] { timer_.start(); };
  connect(doc_->undoStack(), &QUndoStack::indexChanged, this, schedule);
  connect(doc_, &Document::documentReplaced, this, schedule);
  connect(doc_, &Document::modifiedChanged, this, schedule);
}

Autosave::~Autosave() {
  removeFile();
  if (lock_) lock_->unlock();
}

void Autosave::removeFile() { QFile::remove(file_); }

void Autosave::saveNow() {
  timer_.stop();
  if (!doc_->isModified()) {
    removeFile();
    return;
  }
  try {
    write(*doc_, file_);
  } catch (const std::exception& e) {
    // Autosave must never interrupt work; the next edit tries again.
    qWarning("autosave: %s", e.what());
  }
}

void Autosave::write(const Document& doc, const QString& path) {
  nlohmann::json rec;
  rec["format"] = kFormat;
  rec["version"] = kRecoveryVersion;
  rec["original_path"] = doc.filePath().toStdString();
  rec["title"] = doc.displayName().toStdString();
  rec["saved_at"] = QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString();
  rec["graph"] = graphToJson(doc.graph(), doc.metadata());
  writeFileAtomically(path.toStdString(), rec.dump());
}

std::vector<RecoveryEntry> Autosave::findRecoverable(const QString& dirPath) {
  const QDir dir(dirPath.isEmpty() ? defaultRecoveryDir() : dirPath);
  std::vector<RecoveryEntry> out;
  for (const QFileInfo& info : dir.entryInfoList({QStringLiteral("*") + kSuffix}, QDir::Files)) {
    QLockFile lock(lockPathOf(info.absoluteFilePath()));
    lock.setStaleLockTime(0);
    if (!lock.tryLock(0)) continue;  // a running window owns it
    lock.unlock();
    try {
      const auto rec = nlohmann::json::parse(readWholeFile(info.absoluteFilePath().toStdString()));
      if (!rec.is_object() || rec.value("format", "") != kFormat) continue;
      RecoveryEntry e;
      e.recoveryFile = info.absoluteFilePath();
      e.originalPath = QString::fromStdString(rec.value("original_path", ""));
      e.title = QString::fromStdString(rec.value("title", ""));
      e.savedAt =
          QDateTime::fromString(QString::fromStdString(rec.value("saved_at", "")), Qt::ISODate);
      out.push_back(e);
    } catch (const std::exception&) {
      continue;  // half-written or foreign: not offered, left for inspection
    }
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.savedAt > b.savedAt; });
  return out;
}

void Autosave::restore(const RecoveryEntry& entry, Document* doc) {
  const std::string path = entry.recoveryFile.toStdString();
  nlohmann::json rec;
  try {
    rec = nlohmann::json::parse(readWholeFile(path));
  } catch (const nlohmann::json::exception& e) {
    throw Error(path + ": not a readable recovery file (" + e.what() + ")");
  }
  if (!rec.is_object() || !rec.contains("graph"))
    throw Error(path + ": no \"graph\" in the recovery file");
  const int version = rec.value("version", 0);
  if (version != kRecoveryVersion) {
    throw Error(path + ": recovery file version " + std::to_string(version) +
                ", this explorer reads version " + std::to_string(kRecoveryVersion) +
                (version > kRecoveryVersion ? " (written by a newer LSRL Studio)" : ""));
  }
  nlohmann::json metadata;
  Graph g = graphFromJson(rec["graph"], path, &metadata);
  doc->setGraph(std::move(g), std::move(metadata), entry.title, /*modified=*/true,
                entry.originalPath);
  discard(entry);
}

void Autosave::discard(const RecoveryEntry& entry) {
  QFile::remove(entry.recoveryFile);
  QFile::remove(lockPathOf(entry.recoveryFile));
}

}  // namespace lsrl::studio
