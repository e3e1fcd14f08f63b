#include "app/studio/zoo/weights_note.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStringList>

#include "app/studio/zoo/trained_checkpoints.h"

namespace lsrl::studio {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("WeightsNote", text); }

QString percent(double fraction) { return QString::number(100 * fraction, 'f', 1); }

QString fileName(const std::string& path) {
  return QFileInfo(QString::fromStdString(path)).fileName();
}

// The checkpoint's "training" record (train.py), null when it has none.
nlohmann::json trainingRecord(const ModelRun& run) {
  const nlohmann::json& meta = run.weightsMeta;
  if (meta.is_object() && meta.contains("training") && meta["training"].is_object())
    return meta["training"];
  return nullptr;
}

// "Weights: …": which weights these are, and the file's path in `detail`.
QString whichWeights(const ModelRun& run, const nlohmann::json& training, QStringList& detail) {
  const QString kind = QString::fromStdString(run.kind);
  const QString path = QString::fromStdString(run.weightsPath);
  if (path.isEmpty())
    return tr("Weights: random (seed %1), untrained").arg(run.config.value("seed", 0));
  detail << tr("Weights file: %1").arg(QDir::toNativeSeparators(path));
  const int steps = training.is_object() ? training.value("steps", 0) : 0;
  QString which;
  if (isTrainedCheckpoint(kind, path))
    which = tr("Weights: the shipped checkpoint (%1 steps)").arg(steps);
  else if (!training.is_object())
    which = tr("Weights: %1 (no training record)").arg(fileName(run.weightsPath));
  else if (training.contains("init") && training["init"].is_string())
    which = tr("Weights: fine-tuned from %1 (%2 steps)")
                .arg(fileName(training["init"].get<std::string>()))
                .arg(steps);
  else
    which = tr("Weights: fresh training from random weights (%1 steps)").arg(steps);
  if (training.is_object() && training.value("interrupted", false))
    which += tr(", stopped at step %1 of %2").arg(steps).arg(training.value("steps_planned", 0));
  return which;
}

QString heldOut(const nlohmann::json& training, QStringList& detail) {
  if (!training.is_object() || !training.contains("eval_accuracy") ||
      !training["eval_accuracy"].is_number())
    return {};
  const int samples = training.value("eval_samples", 0);
  const int first = training.value("eval_seed", 0);
  detail << tr("The held-out accuracy was measured at the end of training over task seeds "
               "%1–%2, none drawn in training; the status line's accuracy is of the one input "
               "shown.")
                .arg(first)
                .arg(first + samples - 1);
  return tr("held-out accuracy %1% on %2 samples")
      .arg(percent(training["eval_accuracy"].get<double>()))
      .arg(samples);
}

QString context(const ModelRun& run, QStringList& detail) {
  const auto expected = expectedAccuracy(QString::fromStdString(run.kind));
  if (!expected || run.score.total == 0 || expected->task != QString::fromStdString(run.task))
    return {};
  // The source's first part names the document ("docs/results.md, <table>, row <row>").
  QString text = tr("training reaches %1 ± %2% (%3)")
                     .arg(percent(expected->mean), percent(expected->std),
                          expected->source.section(QStringLiteral(", "), 0, 0));
  detail << tr("Expected: %1 ± %2% on %3 after %4 steps, %5 seeds (%6).")
                .arg(percent(expected->mean), percent(expected->std), expected->task)
                .arg(expected->steps)
                .arg(expected->seeds)
                .arg(expected->source);
  if (expected->paper >= 0) {
    text += tr(", the paper %1%").arg(percent(expected->paper));
    if (!expected->paperSetting.isEmpty())
      detail << tr("The paper: %1% (%2).").arg(percent(expected->paper), expected->paperSetting);
  }
  if (expected->chance >= 0) text += tr(", chance %1%").arg(percent(expected->chance));
  return text;
}

}  // namespace

QString inputAccuracyText(const ModelRun& run) {
  if (run.score.total == 0) return {};
  return tr(" · accuracy %1% on this input (task seed %2: %3 of %4 target tokens right)")
      .arg(percent(run.score.accuracy()))
      .arg(run.taskSeed)
      .arg(run.score.right)
      .arg(run.score.total);
}

WeightsNote weightsNote(const ModelRun& run) {
  const nlohmann::json training = trainingRecord(run);
  QStringList detail;
  QStringList parts = {whichWeights(run, training, detail)};
  for (const QString& part : {heldOut(training, detail), context(run, detail)})
    if (!part.isEmpty()) parts << part;
  return {parts.join(QStringLiteral(" · ")), detail.join(QLatin1Char('\n'))};
}

}  // namespace lsrl::studio
