#include "app/studio/zoo/train_dialog.h"

#include <signal.h>

#include <QCloseEvent>
#include <QComboBox>
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QVBoxLayout>
#include <nlohmann/json.hpp>

#include "app/studio/zoo/training_chart.h"
#include "core/seed_models/training_command.h"
#include "core/util/hint_file.h"

namespace lsrl::studio {

namespace {

QString defaultOutput(const QString& kind) {
  QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
  if (dir.isEmpty()) dir = QDir::tempPath();
  dir += QStringLiteral("/trained");
  QDir().mkpath(dir);
  return dir + QLatin1Char('/') + kind + QLatin1Char('-') +
         QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-hhmmss")) +
         QStringLiteral(".safetensors");
}

QString duration(double seconds) {
  const int s = static_cast<int>(seconds + 0.5);
  if (s >= 3600) return QStringLiteral("%1 h %2 min").arg(s / 3600).arg(s % 3600 / 60);
  return s >= 60 ? QStringLiteral("%1 min %2 s").arg(s / 60).arg(s % 60)
                 : QStringLiteral("%1 s").arg(s);
}

}  // namespace

TrainDialog::TrainDialog(const QString& kind, const nlohmann::json& config,
                         const QStringList& tasks, const QString& task, const QString& loaded,
                         QWidget* parent)
    : QDialog(parent), kind_(kind), config_(config) {
  setObjectName(QStringLiteral("TrainDialog"));
  setWindowTitle(tr("Train %1").arg(kind));
  task_ = new QComboBox;
  task_->addItems(tasks);
  task_->setCurrentIndex(std::max(0, static_cast<int>(tasks.indexOf(task))));
  startFrom_ = new QComboBox;
  startFrom_->setObjectName(QStringLiteral("TrainStartFrom"));
  startFrom_->addItem(tr("Random weights (train from scratch)"), QString());
  if (!loaded.isEmpty())
    startFrom_->addItem(
        tr("Fine-tune the loaded checkpoint (%1)").arg(QFileInfo(loaded).fileName()), loaded);
  startFrom_->setToolTip(tr("Fine-tuning starts from the loaded weights and keeps their config"));
  steps_ = new QSpinBox;
  steps_->setObjectName(QStringLiteral("TrainSteps"));
  steps_->setRange(1, 10000000);
  steps_->setValue(500);
  seed_ = new QSpinBox;
  seed_->setRange(0, 1 << 30);
  lr_ = new QDoubleSpinBox;
  lr_->setDecimals(5);
  lr_->setRange(1e-5, 1);
  lr_->setSingleStep(1e-3);
  lr_->setValue(3e-3);
  evalSamples_ = new QSpinBox;
  evalSamples_->setObjectName(QStringLiteral("TrainEvalSamples"));
  evalSamples_->setRange(0, 100000);
  evalSamples_->setValue(500);
  evalSamples_->setToolTip(
      tr("After the last step, the accuracy is scored on this many held-out task samples "
         "(task seeds 0 … N−1, never drawn in training)"));
  output_ = new QLineEdit(defaultOutput(kind));
  output_->setObjectName(QStringLiteral("TrainOutput"));
  start_ = new QPushButton(tr("Start"));
  start_->setObjectName(QStringLiteral("TrainStart"));
  start_->setDefault(true);
  cancel_ = new QPushButton(tr("Cancel"));
  cancel_->setObjectName(QStringLiteral("TrainCancel"));
  cancel_->setEnabled(false);
  close_ = new QPushButton(tr("Close"));
  close_->setObjectName(QStringLiteral("TrainClose"));
  close_->setToolTip(tr("Close the dialog (a run in progress is cancelled, its step saved)"));
  progress_ = new QProgressBar;
  progress_->setRange(0, 1);
  progress_->setValue(0);
  eta_ = new QLabel;
  status_ = new QLabel(tasks.isEmpty() ? tr("This config has no task with targets to train on.")
                                       : tr("Press Start to train (PyTorch, on the CPU)."));
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  chart_ = new TrainingChart;

  auto* form = new QFormLayout;
  form->addRow(tr("Start from"), startFrom_);
  form->addRow(tr("Task"), task_);
  form->addRow(tr("Steps"), steps_);
  form->addRow(tr("Seed"), seed_);
  form->addRow(tr("Learning rate"), lr_);
  form->addRow(tr("Held-out samples"), evalSamples_);
  form->addRow(tr("Checkpoint"), output_);
  auto* progressRow = new QHBoxLayout;
  progressRow->addWidget(progress_, 1);
  progressRow->addWidget(eta_);
  auto* buttons = new QHBoxLayout;
  buttons->addStretch(1);
  buttons->addWidget(start_);
  buttons->addWidget(cancel_);
  buttons->addWidget(close_);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(chart_, 1);
  layout->addLayout(progressRow);
  layout->addWidget(status_);
  layout->addLayout(buttons);
  start_->setEnabled(!tasks.isEmpty());
  resize(720, 560);

  connect(start_, &QPushButton::clicked, this, &TrainDialog::startTraining);
  connect(cancel_, &QPushButton::clicked, this, &TrainDialog::cancelTraining);
  connect(close_, &QPushButton::clicked, this, &QDialog::close);
}

TrainDialog::~TrainDialog() {
  if (process_ && process_->state() != QProcess::NotRunning) {
    process_->disconnect(this);
    process_->kill();
    process_->waitForFinished(5000);
  }
  if (!configPath_.isEmpty()) QFile::remove(configPath_);
}

bool TrainDialog::isTraining() const {
  return process_ && process_->state() != QProcess::NotRunning;
}

QString TrainDialog::statusText() const { return status_->text(); }

void TrainDialog::setStatus(const QString& text) { status_->setText(text); }

void TrainDialog::startTraining() {
  if (isTraining() || task_->count() == 0) return;
  const QString output = output_->text().trimmed();
  if (output.isEmpty()) {
    setStatus(tr("Error: name the checkpoint file to write."));
    return;
  }
  // The config goes through a file: the form's values exactly, types included.
  if (configPath_.isEmpty())
    configPath_ = QDir::temp().filePath(
        QStringLiteral("lsrl-train-%1-%2.json").arg(kind_).arg(QCoreApplication::applicationPid()));
  // In the shared temporary folder under a name others can guess: written as a hint file
  // (core/util/hint_file.h), never through a link planted there.
  if (const std::string why = writeHintFile(configPath_.toStdString(), config_.dump());
      !why.empty()) {
    setStatus(tr("Error: %1").arg(QString::fromStdString(why)));
    return;
  }
  const int steps = steps_->value();
  const int logEvery = std::clamp(steps / 100, 1, 50);
  const QString init = startFrom_->currentData().toString();
  std::vector<std::string> args = {kind_.toStdString(),
                                   "--task",
                                   task_->currentText().toStdString(),
                                   "--steps",
                                   std::to_string(steps),
                                   "--seed",
                                   std::to_string(seed_->value()),
                                   "--lr",
                                   QString::number(lr_->value()).toStdString(),
                                   "--log-every",
                                   std::to_string(logEvery),
                                   "--eval-samples",
                                   std::to_string(evalSamples_->value()),
                                   "--progress",
                                   "-o",
                                   output.toStdString()};
  // Fine-tuning takes the checkpoint's weights and config; from scratch, the form's config.
  args.push_back(init.isEmpty() ? "--config" : "--init");
  args.push_back((init.isEmpty() ? configPath_ : init).toStdString());
  const seed_models::TrainingCommand command = seed_models::trainingCommand(args);
  delete process_;
  process_ = new QProcess(this);
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  for (const auto& [name, value] : command.env)
    env.insert(QString::fromStdString(name), QString::fromStdString(value));
  process_->setProcessEnvironment(env);
  connect(process_, &QProcess::readyReadStandardOutput, this, &TrainDialog::readOutput);
  connect(process_, &QProcess::finished, this, &TrainDialog::finished);
  connect(process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
    if (e == QProcess::FailedToStart) finished(-1, QProcess::CrashExit);
  });
  QStringList qargs;
  for (size_t i = 1; i < command.argv.size(); ++i) qargs << QString::fromStdString(command.argv[i]);
  log_ = seed_models::TrainingLog{};
  pending_.clear();
  chart_->clear();
  progress_->setRange(0, steps);
  progress_->setValue(0);
  eta_->clear();
  start_->setEnabled(false);
  cancel_->setEnabled(true);
  setStatus(tr("Starting Python and PyTorch…"));
  process_->start(QString::fromStdString(command.argv[0]), qargs);
}

void TrainDialog::cancelTraining() {
  if (!isTraining()) return;
  cancel_->setEnabled(false);
  setStatus(tr("Stopping: the checkpoint of the step reached is being saved…"));
  // SIGINT, as Ctrl-C in a terminal: the script saves before it exits.
  ::kill(static_cast<pid_t>(process_->processId()), SIGINT);
}

void TrainDialog::readOutput() {
  pending_ += process_->readAllStandardOutput();
  int newline;
  bool changed = false;
  while ((newline = pending_.indexOf('\n')) >= 0) {
    const QByteArray line = pending_.left(newline);
    pending_.remove(0, newline + 1);
    changed = seed_models::addTrainingLine(log_, line.toStdString()) || changed;
  }
  if (changed) showProgress();
}

void TrainDialog::showProgress() {
  if (chart_->pointCount() != static_cast<int>(log_.points.size())) chart_->setLog(log_);
  const seed_models::TrainingProgress& at = log_.progress;
  if (at.step == 0) {
    setStatus(tr("Training: the first step is under way…"));
    return;
  }
  progress_->setValue(std::min(at.step, progress_->maximum()));
  eta_->setText(tr("ETA %1").arg(duration(at.etaS)));
  if (!cancel_->isEnabled()) return;  // "Stopping…" stays
  if (at.evaluating > 0) {
    setStatus(tr("Scoring the trained weights on %1 held-out samples…").arg(at.evaluating));
    return;
  }
  QString status = tr("Step %1 of %2").arg(at.step).arg(progress_->maximum());
  if (!log_.points.empty()) {
    const seed_models::TrainingPoint& p = log_.points.back();
    status += tr(" (curves to step %1: loss %2, accuracy %3% on the training batches, %4 "
                 "tokens/s)")
                  .arg(p.step)
                  .arg(p.loss, 0, 'f', 3)
                  .arg(100 * p.accuracy, 0, 'f', 1)
                  .arg(p.tokensPerS, 0, 'f', 0);
  }
  setStatus(status);
}

void TrainDialog::finished(int exitCode, QProcess::ExitStatus status) {
  if (!process_) return;
  readOutput();
  start_->setEnabled(true);
  cancel_->setEnabled(false);
  eta_->clear();
  const QString output = output_->text().trimmed();
  if (status == QProcess::NormalExit && exitCode == 0) {
    progress_->setValue(progress_->maximum());
    const double held = log_.end.is_object() ? log_.end.value("eval_accuracy", -1.0) : -1.0;
    const QString loaded =
        tr("Loaded in the Models tab, whose header scores one input (a task seed) and says "
           "which weights it shows; its Trained button brings the shipped checkpoint back: %1")
            .arg(output);
    setStatus(held >= 0 ? tr("Done: held-out accuracy %1% over %2 samples (task seeds 0–%3, "
                             "none drawn in training). %4")
                              .arg(100 * held, 0, 'f', 1)
                              .arg(evalSamples_->value())
                              .arg(evalSamples_->value() - 1)
                              .arg(loaded)
                        : tr("Done. %1").arg(loaded));
    output_->setText(defaultOutput(kind_));  // the next run does not overwrite this one
    Q_EMIT trained(output);
    return;
  }
  if (exitCode == seed_models::kTrainingInterruptedExit) {
    setStatus(tr("Cancelled at step %1; that step's checkpoint is in %2 (not loaded).")
                  .arg(log_.points.empty() ? 0 : log_.points.back().step)
                  .arg(output));
    return;
  }
  QString why = QString::fromUtf8(process_->readAllStandardError()).trimmed();
  const QStringList lines = why.split(QLatin1Char('\n'));
  if (lines.size() > 6) why = lines.mid(lines.size() - 6).join(QLatin1Char('\n'));
  if (why.isEmpty()) why = process_->errorString();
  setStatus(tr("Error: training failed (%1):\n%2")
                .arg(status == QProcess::CrashExit ? tr("crashed") : tr("exit %1").arg(exitCode))
                .arg(why));
}

void TrainDialog::closeEvent(QCloseEvent* event) {
  cancelTraining();
  QDialog::closeEvent(event);
}

}  // namespace lsrl::studio
