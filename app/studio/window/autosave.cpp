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
#include "core/util/error.h"
#include "core/util/hint_file.h"
#include "core/util/quote_input.h"
#include "core/util/thousands.h"

namespace lsrl::studio {

namespace {

constexpr const char* kFormat = "lsrl-recovery";
constexpr int kRecoveryVersion = 1;
const QString kSuffix = QStringLiteral(".lsrl-recovery.json");
// Recovery files are hint files (core/util/hint_file.h), bounded so that a stray huge file
// in the folder cannot stall the start; the explorer's biggest graphs are far below it.
constexpr uint64_t kMaxRecoveryBytes = uint64_t{256} << 20;
constexpr std::string_view kWhat = "a recovery file";

// The value of `key` when it is a string, else empty (a damaged file still lists).
std::string stringField(const nlohmann::json& rec, const char* key) {
  const auto it = rec.find(key);
  return it != rec.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The recovery file's document; throws lsrl::Error saying why it cannot be used.
nlohmann::json readRecovery(const std::string& path) {
  HintFileRead read = readHintFile(path, kMaxRecoveryBytes, kWhat);
  if (!read.content) {
    throw Error(read.warning.empty() ? ignoredHintWarning(kWhat, path, "is gone") : read.warning);
  }
  nlohmann::json rec = nlohmann::json::parse(*read.content, nullptr, /*allow_exceptions=*/false);
  if (rec.is_discarded()) throw Error(ignoredHintWarning(kWhat, path, "is not valid JSON"));
  if (!rec.is_object() || stringField(rec, "format") != kFormat)
    throw Error(ignoredHintWarning(kWhat, path, "is not an LSRL Studio recovery file"));
  return rec;
}

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
  const std::string text = rec.dump();
  // One the next start would not read is not written (the work stays in the window).
  if (text.size() > kMaxRecoveryBytes)
    throw Error("the recovery file of " + quoteInput(doc.displayName().toStdString()) +
                " would be " + withThousands(text.size()) + " bytes, over the limit of " +
                withThousands(kMaxRecoveryBytes) + "; save the graph instead");
  if (const std::string why = writeHintFile(path.toStdString(), text); !why.empty())
    throw Error(why);
}

std::vector<RecoveryEntry> Autosave::findRecoverable(const QString& dirPath) {
  const QDir dir(dirPath.isEmpty() ? defaultRecoveryDir() : dirPath);
  std::vector<RecoveryEntry> out;
  // Everything with the suffix, not only regular files: a directory, FIFO or link there is
  // reported (and skipped) rather than passed over in silence.
  const auto found =
      dir.entryInfoList({QStringLiteral("*") + kSuffix},
                        QDir::AllEntries | QDir::System | QDir::Hidden | QDir::NoDotAndDotDot);
  for (const QFileInfo& info : found) {
    QLockFile lock(lockPathOf(info.absoluteFilePath()));
    lock.setStaleLockTime(0);
    if (!lock.tryLock(0)) continue;  // a running window owns it
    lock.unlock();
    try {
      const auto rec = readRecovery(info.absoluteFilePath().toStdString());
      RecoveryEntry e;
      e.recoveryFile = info.absoluteFilePath();
      e.originalPath = QString::fromStdString(stringField(rec, "original_path"));
      e.title = QString::fromStdString(stringField(rec, "title"));
      e.savedAt =
          QDateTime::fromString(QString::fromStdString(stringField(rec, "saved_at")), Qt::ISODate);
      out.push_back(e);
    } catch (const Error& e) {
      // Half-written or foreign: not offered, left for inspection.
      qWarning("%s", e.what());
    }
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.savedAt > b.savedAt; });
  return out;
}

void Autosave::restore(const RecoveryEntry& entry, Document* doc) {
  const std::string path = entry.recoveryFile.toStdString();
  nlohmann::json rec = readRecovery(path);
  if (!rec.contains("graph")) throw Error(path + ": no \"graph\" in the recovery file");
  const auto versionField = rec.find("version");
  if (versionField == rec.end() || !versionField->is_number_integer())
    throw Error(path + ": the recovery file has no whole-number \"version\"");
  const long long version = versionField->get<long long>();
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
