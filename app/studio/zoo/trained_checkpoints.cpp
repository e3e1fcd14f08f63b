#include "app/studio/zoo/trained_checkpoints.h"

#include <QFile>
#include <QFileInfo>
#include <nlohmann/json.hpp>

#include "app/studio/common/example_files.h"

namespace lsrl::studio {

QString trainedCheckpoint(const QString& kind) {
  return exampleFilePath(QStringLiteral("models/") + kind + QStringLiteral(".safetensors"));
}

bool isTrainedCheckpoint(const QString& kind, const QString& path) {
  const QString shipped = trainedCheckpoint(kind);
  if (shipped.isEmpty() || path.isEmpty()) return false;
  const QString a = QFileInfo(shipped).canonicalFilePath();
  return !a.isEmpty() && a == QFileInfo(path).canonicalFilePath();
}

std::optional<ExpectedAccuracy> expectedAccuracy(const QString& kind) {
  const QString path = exampleFilePath(QStringLiteral("models/") + kind + QStringLiteral(".json"));
  QFile file(path);
  if (path.isEmpty() || !file.open(QIODevice::ReadOnly)) return std::nullopt;
  const auto record =
      nlohmann::json::parse(file.readAll().toStdString(), nullptr, /*allow_exceptions=*/false);
  if (!record.is_object() || !record.contains("expected")) return std::nullopt;
  const nlohmann::json& e = record["expected"];
  if (!e.is_object() || !e.contains("accuracy") || !e["accuracy"].is_number() ||
      !e.contains("task") || !e["task"].is_string())
    return std::nullopt;
  const auto text = [&](const char* key) {
    return e.contains(key) && e[key].is_string() ? QString::fromStdString(e[key].get<std::string>())
                                                 : QString();
  };
  const auto number = [&](const char* key, double otherwise) {
    return e.contains(key) && e[key].is_number() ? e[key].get<double>() : otherwise;
  };
  ExpectedAccuracy out;
  out.task = text("task");
  out.mean = number("accuracy", 0);
  out.std = number("std", 0);
  out.seeds = static_cast<int>(number("seeds", 0));
  out.steps = static_cast<int>(number("steps", 0));
  out.source = text("source");
  out.paper = number("paper", -1);
  out.paperSetting = text("paper_setting");
  out.chance = number("chance", -1);
  return out;
}

}  // namespace lsrl::studio
