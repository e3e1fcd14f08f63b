#include "app/studio/zoo/model_tab.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabBar>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <nlohmann/json.hpp>

#include "app/studio/common/elided_label.h"
#include "app/studio/zoo/gateloop_view.h"
#include "app/studio/zoo/gates_view.h"
#include "app/studio/zoo/lattice_view.h"
#include "app/studio/zoo/looped_view.h"
#include "app/studio/zoo/model_zoo_panel.h"
#include "app/studio/zoo/step_bar.h"
#include "app/studio/zoo/token_marks.h"
#include "app/studio/zoo/trace_export.h"
#include "app/studio/zoo/train_dialog.h"
#include "app/studio/zoo/training_chart.h"
#include "app/studio/zoo/view_page.h"
#include "app/studio/zoo/weights_note.h"
#include "core/seed_models/scored_tasks.h"
#include "core/seed_models/training_log.h"
#include "core/util/error.h"

namespace lsrl::studio {

namespace {

// "Slot norms (PNG)" -> "slot-norms": the file name a person would type for an export.
QString fileStem(const QString& label) {
  QString stem = label.section(QLatin1Char('('), 0, 0).trimmed().toLower();
  stem.replace(QRegularExpression(QStringLiteral("[^a-z0-9]+")), QStringLiteral("-"));
  return stem.isEmpty() ? QStringLiteral("export") : stem;
}

}  // namespace

ModelTab::ModelTab(QWidget* parent) : QWidget(parent) {
  zoo_ = new ModelZooPanel;
  auto* zooScroll = new QScrollArea;
  zooScroll->setWidget(zoo_);
  zooScroll->setWidgetResizable(true);
  zooScroll->setMinimumWidth(260);

  progress_ = new QProgressBar;
  progress_->setRange(0, 0);  // busy: a forward pass reports no fraction
  progress_->setMaximumWidth(160);
  progress_->hide();
  cancel_ = new QPushButton(tr("Cancel"));
  cancel_->hide();
  status_ = new QLabel(tr("Pick a model and press Run."));
  status_->setWordWrap(true);  // a long run line must not widen the window
  // Which weights run and how their accuracy was measured: one line beside the Views and
  // Training tabs (where it takes no height from the views); the tooltip has the details.
  weightsNote_ = new ElidedLabel;  // a long note ends in "…", never widens the window
  weightsNote_->setObjectName(QStringLiteral("ModelWeightsNote"));
  auto* weightsCorner = new QWidget;
  auto* cornerLayout = new QHBoxLayout(weightsCorner);
  cornerLayout->setContentsMargins(8, 0, 4, 0);
  cornerLayout->addWidget(weightsNote_);
  export_ = new QToolButton;
  export_->setObjectName(QStringLiteral("ModelExport"));
  export_->setText(tr("Export"));
  export_->setPopupMode(QToolButton::InstantPopup);
  export_->setMenu(new QMenu(export_));
  export_->setEnabled(false);
  auto* statusRow = new QHBoxLayout;
  statusRow->addWidget(status_, 1);
  statusRow->addWidget(progress_);
  statusRow->addWidget(cancel_);
  statusRow->addWidget(export_);
  stepBar_ = new StepBar;
  // The step keys (arrows, Home/End, Space) work anywhere in the tab.
  addActions(stepBar_->actions());

  stack_ = new QStackedWidget;
  placeholder_ = new QLabel(tr("No model run yet."));
  placeholder_->setAlignment(Qt::AlignCenter);
  stack_->addWidget(placeholder_);
  const std::pair<QString, ModelView*> views[] = {
      {QStringLiteral("lattice"), new LatticeView},
      {QStringLiteral("gates"), new GatesView},
      {QStringLiteral("gateloop"), new GateLoopView},
      {QStringLiteral("looped"), new LoopedView},
  };
  for (const auto& [name, view] : views) {
    views_.insert(name, view);
    // Each view scrolls on its own page, so the widest view does not set the window's
    // minimum width (a stack's minimum is the largest of its pages, shown or not).
    auto* page = new ViewPage(view);
    pages_.insert(view, page);
    stack_->addWidget(page);
    connect(view, &ModelView::stepRequested, stepBar_, &StepBar::setStep);
  }

  marks_ = new TokenMarks;
  auto* viewsPage = new QWidget;
  auto* viewsLayout = new QVBoxLayout(viewsPage);
  viewsLayout->setContentsMargins(0, 0, 0, 0);
  viewsLayout->addWidget(stepBar_);
  viewsLayout->addWidget(stack_, 1);
  trainingChart_ = new TrainingChart;
  trainingNote_ =
      new QLabel(tr("Run a trained checkpoint to see its training curves, or press "
                    "Train… to train one."));
  trainingNote_->setWordWrap(true);
  auto* trainingPage = new QWidget;
  auto* trainingLayout = new QVBoxLayout(trainingPage);
  trainingLayout->addWidget(trainingNote_);
  trainingLayout->addWidget(trainingChart_, 1);
  tabs_ = new QTabWidget;
  tabs_->setObjectName(QStringLiteral("ModelPages"));
  tabs_->addTab(viewsPage, tr("Views"));
  tabs_->addTab(trainingPage, tr("Training"));
  tabs_->setCornerWidget(weightsCorner, Qt::TopRightCorner);
  // A corner widget gets its full width even where the tab row has less (the note was
  // cut at its left end): its room is set whenever the tabs are resized.
  tabs_->installEventFilter(this);

  auto* right = new QWidget;
  auto* rightLayout = new QVBoxLayout(right);
  rightLayout->setContentsMargins(4, 4, 4, 4);
  rightLayout->addLayout(statusRow);
  rightLayout->addWidget(marks_);
  rightLayout->addWidget(tabs_, 1);
  auto* splitter = new QSplitter;
  splitter->addWidget(zooScroll);
  splitter->addWidget(right);
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({300, 1200});
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(splitter);

  connect(zoo_, &ModelZooPanel::runRequested, this, [this] { startRun(); });
  connect(cancel_, &QPushButton::clicked, this, &ModelTab::cancelRun);
  connect(stepBar_, &StepBar::stepChanged, this, [this](int step) {
    if (ModelView* v = currentView()) v->setStep(step);
    if (run_ && run_->kind != "looped") marks_->setCurrent(step);  // steps are tokens
  });
  connect(marks_, &TokenMarks::tokenClicked, this, [this](int token) {
    if (run_ && run_->kind != "looped") stepBar_->setStep(token);
  });
  connect(zoo_, &ModelZooPanel::trainRequested, this, [this] { openTrainDialog(); });
  connect(export_->menu(), &QMenu::aboutToShow, this, &ModelTab::fillExportMenu);
}

ModelTab::~ModelTab() {
  if (watcher_) watcher_->waitForFinished();
}

ModelView* ModelTab::view(const QString& name) const { return views_.value(name, nullptr); }

ModelView* ModelTab::currentView() const {
  return run_ ? view(QString::fromStdString(modelViewName(run_->kind))) : nullptr;
}

bool ModelTab::isRunning() const { return watcher_ != nullptr; }

QString ModelTab::statusText() const { return status_->text(); }

bool ModelTab::eventFilter(QObject* watched, QEvent* event) {
  if (watched == tabs_ && event->type() == QEvent::Resize) {
    // The label's maximum bounds the corner's size hint (the corner's own does not).
    const int room = tabs_->width() - tabs_->tabBar()->sizeHint().width() - 24;
    weightsNote_->setMaximumWidth(std::max(0, room));
  }
  return QWidget::eventFilter(watched, event);
}

QString ModelTab::weightsText() const { return weightsNote_->text(); }

void ModelTab::startRun() {
  try {
    startRun(zoo_->request());
  } catch (const std::exception& e) {
    reportError(QString::fromUtf8(e.what()));
  }
}

void ModelTab::startRun(const ModelRunRequest& request) {
  const uint64_t id = ++runId_;
  if (watcher_) {
    // The older run finishes in the background; its watcher goes with it.
    watcher_->disconnect(this);
    connect(watcher_, &QFutureWatcherBase::finished, watcher_, &QObject::deleteLater);
  }
  watcher_ = new QFutureWatcher<RunOutcome>(this);
  connect(watcher_, &QFutureWatcherBase::finished, this, [this, id] { finishRun(id); });
  // Errors come back as text: QtConcurrent only carries QException subclasses across.
  watcher_->setFuture(QtConcurrent::run([request] {
    RunOutcome outcome;
    try {
      outcome.run = std::make_shared<ModelRun>(runSeedModelRequest(request));
    } catch (const std::exception& e) {
      outcome.error = e.what();
    }
    return outcome;
  }));
  progress_->show();
  cancel_->show();
  lastError_.clear();
  status_->setText(
      tr("Running %1 on %2…")
          .arg(QString::fromStdString(request.kind), QString::fromStdString(request.backend)));
}

void ModelTab::cancelRun() {
  if (!watcher_) return;
  ++runId_;
  watcher_->disconnect(this);
  connect(watcher_, &QFutureWatcherBase::finished, watcher_, &QObject::deleteLater);
  watcher_ = nullptr;
  progress_->hide();
  cancel_->hide();
  status_->setText(tr("Cancelled: the result of that run will be dropped."));
  Q_EMIT runFinished(false);
}

bool ModelTab::waitForRun(int timeoutMs) {
  QElapsedTimer timer;
  timer.start();
  while (watcher_ && timer.elapsed() < timeoutMs)
    QApplication::processEvents(QEventLoop::AllEvents, 20);
  return watcher_ == nullptr;
}

void ModelTab::finishRun(uint64_t id) {
  if (id != runId_ || !watcher_) return;
  auto* watcher = watcher_;
  watcher_ = nullptr;
  watcher->deleteLater();
  progress_->hide();
  cancel_->hide();
  try {
    RunOutcome outcome = watcher->result();
    if (!outcome.run) throw Error(outcome.error);
    showRun(std::move(outcome.run));
    Q_EMIT runFinished(true);
  } catch (const std::exception& e) {
    reportError(QString::fromUtf8(e.what()));
    Q_EMIT runFinished(false);
  }
}

void ModelTab::showRun(std::shared_ptr<const ModelRun> run) {
  ModelView* target = view(QString::fromStdString(modelViewName(run->kind)));
  if (target == nullptr) throw Error("no view draws a \"" + run->kind + "\" model");
  target->setRun(run);
  run_ = std::move(run);
  stack_->setCurrentWidget(pages_.value(target));
  export_->setEnabled(true);
  const int steps = modelRunSteps(*run_);
  const QString status =
      tr("%1 (%2) on %3, %4 tokens, %5 backend: %6 ms")
          .arg(QString::fromStdString(run_->kind),
               run_->weightsPath.empty()
                   ? tr("random weights")
                   : QFileInfo(QString::fromStdString(run_->weightsPath)).fileName(),
               run_->task.empty() ? tr("the input file") : QString::fromStdString(run_->task))
          .arg(run_->input.size())
          .arg(QString::fromStdString(run_->backend))
          .arg(run_->seconds * 1000, 0, 'f', 1);
  status_->setText(status + inputAccuracyText(*run_));
  const WeightsNote note = weightsNote(*run_);
  weightsNote_->setText(note.text);
  weightsNote_->setToolTip(note.detail);
  marks_->setMarks(run_->marks);
  marks_->setCurrent(run_->kind == "looped" ? -1 : 0);
  showTrainingLog();
  stepBar_->setSteps(steps, QString::fromUtf8(modelStepName(run_->kind)));
  target->setStep(0);
}

void ModelTab::showTrainingLog() {
  if (!run_ || run_->weightsPath.empty()) {
    trainingChart_->clear();
    trainingNote_->setText(
        tr("Random weights: no training log. Press Train… to train this "
           "config."));
    return;
  }
  const std::string path = seed_models::trainingLogPathFor(run_->weightsPath);
  try {
    const seed_models::TrainingLog log = seed_models::readTrainingLog(path);
    trainingChart_->setLog(log);
    QString note = tr("From %1").arg(QDir::toNativeSeparators(QString::fromStdString(path)));
    if (log.end.is_object() && log.end.contains("eval_accuracy"))
      note += tr(": held-out accuracy %1% after %2 steps in %3 s (the chart's accuracy is "
                 "on the training batches)")
                  .arg(100 * log.end.value("eval_accuracy", 0.0), 0, 'f', 1)
                  .arg(log.end.value("steps", 0))
                  .arg(log.end.value("wall_s", 0.0), 0, 'f', 0);
    trainingNote_->setText(note);
  } catch (const std::exception& e) {
    trainingChart_->clear();
    trainingNote_->setText(
        tr("No training log beside this checkpoint (%1).").arg(QString::fromUtf8(e.what())));
  }
}

TrainDialog* ModelTab::openTrainDialog() {
  if (trainDialog_ && trainDialog_->isTraining()) {
    trainDialog_->raise();
    trainDialog_->activateWindow();
    return trainDialog_;
  }
  try {
    const nlohmann::json config = zoo_->configJson();
    const auto model = seed_models::makeSeedModel(zoo_->kind().toStdString(), config);
    QStringList tasks;
    for (const std::string& t : seed_models::scoredTasks(*model))
      tasks << QString::fromStdString(t);
    QString current = tasks.value(0);
    if (run_ && tasks.contains(QString::fromStdString(run_->task)))
      current = QString::fromStdString(run_->task);
    delete trainDialog_;
    trainDialog_ =
        new TrainDialog(zoo_->kind(), model->config(), tasks, current, zoo_->weightsFile(), this);
    connect(trainDialog_, &TrainDialog::trained, this, [this](const QString& path) {
      zoo_->setWeightsFile(path);
      startRun();
      tabs_->setCurrentIndex(1);
    });
    trainDialog_->show();
  } catch (const std::exception& e) {
    reportError(QString::fromUtf8(e.what()));
  }
  return trainDialog_;
}

void ModelTab::reportError(const QString& what) {
  lastError_ = what;
  status_->setText(tr("Error: %1").arg(what));
}

bool ModelTab::showStep(int step) {
  if (!run_ || step < 0 || step >= stepBar_->count()) return false;
  stepBar_->setStep(step);
  return true;
}

bool ModelTab::exportView(const QString& label, const QString& path, QString* error) {
  ModelView* v = currentView();
  if (v == nullptr) {
    if (error) *error = tr("no model run to export");
    return false;
  }
  for (const ViewExport& e : v->exports()) {
    if (e.label != label) continue;
    try {
      e.write(path);
      return true;
    } catch (const std::exception& ex) {
      if (error) *error = QString::fromUtf8(ex.what());
      return false;
    }
  }
  if (error) *error = tr("the view has no export '%1'").arg(label);
  return false;
}

void ModelTab::exportTraceCsv(const QString& array, const QString& path) const {
  if (!run_) throw Error(path.toStdString() + ": no model run to export");
  exportTraceArrayCsv(*run_, array.toStdString(), path.toStdString());
}

void ModelTab::exportTraceNpz(const QString& path) const {
  if (!run_) throw Error(path.toStdString() + ": no model run to export");
  lsrl::studio::exportTraceNpz(*run_, path.toStdString());
}

QString ModelTab::askExportPath(const QString& title, const QString& stem, const QString& suffix) {
  const QString kind = run_ ? QString::fromStdString(run_->kind) : QStringLiteral("model");
  const QString proposed = QDir(exportDir_).filePath(kind + QLatin1Char('-') + stem + suffix);
  QString path = QFileDialog::getSaveFileName(
      this, title, proposed, tr("%1 files (*%2)").arg(suffix.mid(1).toUpper(), suffix));
  if (path.isEmpty()) return path;
  // A name typed without the suffix gets it, as the filter promises.
  if (!path.endsWith(suffix, Qt::CaseInsensitive)) path += suffix;
  exportDir_ = QFileInfo(path).absolutePath();
  return path;
}

void ModelTab::writeExport(const QString& what, const QString& path,
                           const std::function<void()>& write) {
  try {
    write();
    status_->setText(tr("Exported %1 to %2").arg(what, QDir::toNativeSeparators(path)));
  } catch (const std::exception& e) {
    reportError(QString::fromUtf8(e.what()));
    QMessageBox::warning(this, tr("Export failed"), QString::fromUtf8(e.what()));
  }
}

void ModelTab::fillExportMenu() {
  QMenu* menu = export_->menu();
  menu->clear();
  if (ModelView* v = currentView()) {
    for (const ViewExport& e : v->exports()) {
      menu->addAction(e.label + QStringLiteral("…"), this, [this, e] {
        const QString path = askExportPath(e.label, fileStem(e.label), e.suffix);
        if (!path.isEmpty()) writeExport(e.label, path, [&] { e.write(path); });
      });
    }
  }
  if (!run_) return;
  menu->addSeparator();
  menu->addAction(tr("Trace array as CSV…"), this, [this] {
    QStringList names;
    for (const Tensor& a : run_->trace.arrays()) names << QString::fromStdString(a.name);
    bool ok = false;
    const QString name =
        QInputDialog::getItem(this, tr("Trace array"), tr("Array"), names, 0, false, &ok);
    if (!ok) return;
    const QString what = tr("trace array %1 (CSV)").arg(name);
    const QString path = askExportPath(what, fileStem(name), QStringLiteral(".csv"));
    if (!path.isEmpty()) writeExport(what, path, [&] { exportTraceCsv(name, path); });
  });
  menu->addAction(tr("Whole trace as .npz…"), this, [this] {
    const QString what = tr("the whole trace (.npz)");
    const QString path = askExportPath(what, QStringLiteral("trace"), QStringLiteral(".npz"));
    if (!path.isEmpty()) writeExport(what, path, [&] { exportTraceNpz(path); });
  });
}

}  // namespace lsrl::studio
