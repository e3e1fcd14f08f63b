#include "app/studio/stepper/stepper_view.h"

#include <QCheckBox>
#include <QDoubleValidator>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QStyle>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QtConcurrent>
#include <mutex>

#include "app/studio/common/paper_prompt.h"
#include "app/studio/stepper/engine_chooser.h"
#include "app/studio/stepper/opened_weights.h"
#include "app/studio/stepper/prompt_builder.h"
#include "app/studio/stepper/token_table.h"
#include "app/studio/stepper/value_graph_view.h"
#include "app/studio/stepper/weights_change_view.h"
#include "core/io/sequence_file.h"
#include "core/util/error.h"

namespace lsrl::studio {

// What the worker hands back.
struct StepperView::Outcome {
  std::shared_ptr<StepperRun> a, b;
  std::optional<Divergence> divergence;
  std::string error;
  bool cancelled = false;
};

// Shared between the UI thread (polls it) and the worker (writes it).
struct StepperView::Progress {
  std::atomic<bool> cancel{false};
  std::atomic<int> done{0};
  std::atomic<int> total{0};
  std::mutex mutex;
  std::string phase;
};

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

QString nodeTitle(const Graph& g, NodeId id) {
  const std::string& name = g.node(id).name;
  return name.empty() ? QStringLiteral("#%1 %2").arg(id).arg(qs(std::string(opName(g.node(id).op))))
                      : QStringLiteral("#%1 '%2'").arg(id).arg(qs(name));
}

}  // namespace

StepperView::StepperView(Document* doc, QWidget* parent)
    : QWidget(parent), doc_(doc), progressState_(std::make_shared<Progress>()) {
  graph_ = new ValueGraphView(doc, this);
  auto* splitter = new QSplitter(Qt::Horizontal, this);
  splitter->addWidget(buildInputPanel());
  auto* centre = new QWidget(splitter);
  auto* centreLayout = new QVBoxLayout(centre);
  centreLayout->setContentsMargins(0, 0, 0, 0);
  centreLayout->addWidget(buildRunPanel());
  graphCaption_ = new QLabel(centre);
  graphCaption_->setWordWrap(true);
  centreLayout->addWidget(graphCaption_);
  centreLayout->addWidget(graph_, 1);
  splitter->addWidget(centre);
  splitter->addWidget(buildResultPanel());
  splitter->setStretchFactor(0, 0);
  splitter->setStretchFactor(1, 1);
  splitter->setStretchFactor(2, 0);
  splitter->setSizes({300, 900, 360});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(splitter);

  pollTimer_ = new QTimer(this);
  pollTimer_->setInterval(100);
  connect(pollTimer_, &QTimer::timeout, this, &StepperView::pollProgress);
  connect(&watcher_, &QFutureWatcher<std::shared_ptr<Outcome>>::finished, this,
          &StepperView::onRunFinished);
  connect(doc_, &Document::documentReplaced, this, &StepperView::onDocumentReplaced);
  connect(doc_, &Document::structureChanged, this, &StepperView::onProgramEdited);
  connect(doc_, &Document::edgesChanged, this, &StepperView::onProgramEdited);
  connect(doc_, &Document::nodesChanged, this, &StepperView::onProgramEdited);
  connect(engineA_, &EngineChooser::changed, this, &StepperView::updateWeightsButton);
  connect(engineB_, &EngineChooser::changed, this, &StepperView::updateWeightsButton);
  connect(compare_, &QCheckBox::toggled, this, &StepperView::updateWeightsButton);
  updateWeightsButton();
  onDocumentReplaced();
}

StepperView::~StepperView() {
  progressState_->cancel = true;
  watcher_.waitForFinished();
}

// ---------------------------------------------------------------------------- panels

QWidget* StepperView::buildInputPanel() {
  auto* box = new QGroupBox(tr("Input tokens"), this);
  tokens_ = new TokenTable(box);
  builder_ = new PromptBuilder(box);
  auto* load = new QPushButton(tr("Load IN.json…"), box);
  inputStatus_ = new QLabel(box);
  inputStatus_->setWordWrap(true);
  auto* layout = new QVBoxLayout(box);
  layout->addWidget(tokens_, 1);
  layout->addWidget(new QLabel(tr("<b>Prompt builder</b>"), box));
  layout->addWidget(builder_);
  layout->addWidget(load);
  layout->addWidget(inputStatus_);
  connect(builder_, &PromptBuilder::built, this,
          [this](const ExactSequence& tokens, const QString& description) {
            setTokens(tokens);
            inputStatus_->setText(description);
          });
  connect(builder_, &PromptBuilder::failed, inputStatus_, &QLabel::setText);
  connect(load, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Load token sequence"), {},
                                                      tr("Token files (*.json)"));
    QString error;
    if (!path.isEmpty() && !loadInputFile(path, &error)) inputStatus_->setText(error);
  });
  return box;
}

QWidget* StepperView::buildRunPanel() {
  auto* panel = new QWidget(this);
  engineA_ = new EngineChooser(panel);
  compare_ = new QCheckBox(tr("compare with"), panel);
  engineB_ = new EngineChooser(panel);
  engineB_->setSpec(EngineSpec::compiled(false));
  engineB_->setEnabled(false);
  tolerance_ = new QLineEdit(QStringLiteral("1e-6"), panel);
  tolerance_->setValidator(new QDoubleValidator(0, 1, 20, tolerance_));
  // Room for a tolerance as people write it ("1e-6", "2.5e-12", "0.000001"): the row
  // would otherwise squeeze the field to a clipped "le-6".
  tolerance_->setFixedWidth(
      tolerance_->fontMetrics().horizontalAdvance(QStringLiteral("0.0000001")) +
      2 * style()->pixelMetric(QStyle::PM_DefaultFrameWidth) + 12);
  tolerance_->setToolTip(
      tr("values differ when |a − b| > tol · max(1, |a|, |b|); two exact "
         "runs are compared exactly"));
  runButton_ = new QPushButton(tr("Run"), panel);
  cancelButton_ = new QPushButton(tr("Cancel"), panel);
  cancelButton_->setEnabled(false);
  progress_ = new QProgressBar(panel);
  progress_->setMaximumWidth(200);
  runStatus_ = new QLabel(panel);
  // Long summaries (a fitted compile names its domain) must not widen the window: the
  // label takes the room there is, and the whole text is its tooltip.
  runStatus_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  backButton_ = new QPushButton(tr("◀ Step back"), panel);
  forwardButton_ = new QPushButton(tr("Step forward ▶"), panel);
  slider_ = new QSlider(Qt::Horizontal, panel);
  stepBox_ = new QSpinBox(panel);
  stepBox_->setPrefix(tr("t = "));

  auto* engines = new QFormLayout;
  engines->addRow(tr("run"), engineA_);
  engines->addRow(compare_, engineB_);
  // A row of its own: beside the second engine it made the stepper wider than 1000 px.
  engines->addRow(tr("tolerance"), tolerance_);
  auto* runRow = new QHBoxLayout;
  runRow->addWidget(runButton_);
  runRow->addWidget(cancelButton_);
  runRow->addWidget(progress_);
  runRow->addWidget(runStatus_, 1);
  auto* stepRow = new QHBoxLayout;
  stepRow->addWidget(backButton_);
  stepRow->addWidget(forwardButton_);
  stepRow->addWidget(slider_, 1);
  stepRow->addWidget(stepBox_);
  auto* layout = new QVBoxLayout(panel);
  layout->setContentsMargins(4, 4, 4, 0);
  layout->addLayout(engines);
  layout->addLayout(runRow);
  layout->addLayout(stepRow);

  connect(compare_, &QCheckBox::toggled, engineB_, &QWidget::setEnabled);
  connect(runButton_, &QPushButton::clicked, this, &StepperView::startRun);
  connect(cancelButton_, &QPushButton::clicked, this, &StepperView::cancelRun);
  connect(backButton_, &QPushButton::clicked, this, &StepperView::stepBack);
  connect(forwardButton_, &QPushButton::clicked, this, &StepperView::stepForward);
  connect(slider_, &QSlider::valueChanged, this, &StepperView::goToStep);
  connect(stepBox_, &QSpinBox::valueChanged, this, &StepperView::goToStep);
  return panel;
}

QWidget* StepperView::buildResultPanel() {
  auto* panel = new QWidget(this);
  output_ = new QLabel(panel);
  output_->setTextFormat(Qt::RichText);
  output_->setWordWrap(true);
  output_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  output_->setFrameShape(QFrame::StyledPanel);
  output_->setMinimumHeight(70);
  divergenceLabel_ = new QLabel(panel);
  divergenceLabel_->setWordWrap(true);
  divergenceLabel_->setMinimumHeight(divergenceLabel_->fontMetrics().lineSpacing() * 7);
  divergenceLabel_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  divergenceLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  divergenceButton_ = new QPushButton(tr("Go to first divergence"), panel);
  divergenceButton_->setEnabled(false);
  weightsButton_ = new QPushButton(tr("What training moved…"), panel);
  weightsButton_->setToolTip(
      tr("the weights file run as an engine against the weights it started from: per tensor "
         "how far fine-tuning moved it, and where"));
  watch_ = new QTreeWidget(panel);
  watch_->setColumnCount(3);
  watch_->setHeaderLabels({tr("node"), tr("A"), tr("B")});
  watch_->header()->setSectionResizeMode(QHeaderView::Interactive);
  watch_->setColumnWidth(0, 150);
  watchField_ = new QLineEdit(panel);
  watchField_->setPlaceholderText(tr("node name or #id"));
  auto* add = new QPushButton(tr("Watch"), panel);
  auto* remove = new QPushButton(tr("Unwatch"), panel);
  auto* watchRow = new QHBoxLayout;
  watchRow->addWidget(watchField_, 1);
  watchRow->addWidget(add);
  watchRow->addWidget(remove);
  auto* layout = new QVBoxLayout(panel);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(new QLabel(tr("<b>Output at t</b>"), panel));
  layout->addWidget(output_);
  layout->addWidget(divergenceLabel_);
  layout->addWidget(divergenceButton_);
  layout->addWidget(weightsButton_);
  layout->addWidget(new QLabel(tr("<b>Watch list</b>"), panel));
  layout->addWidget(watch_, 1);
  layout->addLayout(watchRow);
  connect(divergenceButton_, &QPushButton::clicked, this, &StepperView::goToDivergence);
  connect(weightsButton_, &QPushButton::clicked, this, &StepperView::showWeightsChange);
  connect(add, &QPushButton::clicked, this, &StepperView::addWatchFromField);
  connect(watchField_, &QLineEdit::returnPressed, this, &StepperView::addWatchFromField);
  connect(remove, &QPushButton::clicked, this, [this] {
    const QTreeWidgetItem* item = watch_->currentItem();
    if (item != nullptr && item->data(0, Qt::UserRole).isValid())
      removeWatch(item->data(0, Qt::UserRole).toInt());
  });
  return panel;
}

// ---------------------------------------------------------------------------- input

void StepperView::setTokens(const ExactSequence& tokens) {
  tokens_->setTokens(tokens);
  inputStatus_->setText(tr("%1 tokens").arg(tokens.size()));
}

bool StepperView::loadInputFile(const QString& path, QString* error) {
  try {
    const SequenceBatch batch = loadSequenceFile(path.toStdString());
    if (batch.sequences.empty()) throw Error(path.toStdString() + " holds no sequence");
    setTokens(batch.sequences.front());
    inputStatus_->setText(tr("%1: %2 tokens%3")
                              .arg(path.section('/', -1))
                              .arg(batch.sequences.front().size())
                              .arg(batch.isBatch ? tr(" (first of a batch)") : QString()));
    return true;
  } catch (const Error& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
}

// A default prompt that fits the program, so that Run works at once.
void StepperView::prefillPrompt() {
  const PaperProgramGuess guess = guessPaperProgram(doc_->graph());
  if (guess.width <= 0) return;
  tokens_->setTokenWidth(guess.width);
  if (tokens_->rowCount() > 0) return;
  try {
    switch (guess.program) {
      case PaperProgram::MoreOnes:
        builder_->setMoreOnes(QString::fromLatin1(kMoreOnesBits));
        break;
      case PaperProgram::Tok2tok:
        if (guess.L == 3) {
          builder_->setTok2tok(QString::fromLatin1(kTok2tokL3Dictionary),
                               QString::fromLatin1(kTok2tokL3Query), 3);
        } else {
          builder_->setTok2tok({}, {}, guess.L);
          builder_->setTok2tokRandom(kTok2tokEntries, kTok2tokVocabulary, 0);
        }
        break;
      case PaperProgram::Vec2vec:
        builder_->setVec2vec(2, guess.width - 3, kVec2vecCells, QString::fromLatin1(kVec2vecQuery),
                             0, 1);
        break;
      case PaperProgram::None:
        if (guess.width != 1) return;
        // A hand-made program of one input: more_ones' bits (its L = 0 tok2tok guess
        // kept the tok2tok builder before).
        builder_->setTok2tok({}, {}, 1);
        builder_->setTok2tokRandom(kTok2tokEntries, kTok2tokVocabulary, 0);
        break;
    }
    QString description;
    setTokens(builder_->build(&description));
    inputStatus_->setText(description);
  } catch (const Error&) {
    // No prompt fits (e.g. a hand-made program): the table stays empty.
  }
}

// ---------------------------------------------------------------------------- runs

void StepperView::setEngines(const EngineSpec& a, const std::optional<EngineSpec>& b,
                             double tolerance) {
  engineA_->setSpec(a);
  compare_->setChecked(b.has_value());
  if (b) engineB_->setSpec(*b);
  tolerance_->setText(QString::number(tolerance, 'g', 6));
}

EngineSpec StepperView::engineA() const { return engineA_->spec(); }
std::optional<EngineSpec> StepperView::engineB() const {
  if (!compare_->isChecked()) return std::nullopt;
  return engineB_->spec();
}

bool StepperView::isRunning() const { return watcher_.isRunning(); }

void StepperView::startRun() {
  if (isRunning()) return;
  ExactSequence tokens;
  try {
    tokens = tokens_->tokens();
    if (tokens.empty()) throw Error("no tokens: add rows, build a prompt or load IN.json");
  } catch (const Error& e) {
    lastError_ = QString::fromStdString(e.what());
    runStatus_->setText(lastError_);
    Q_EMIT runFinished(false, lastError_);
    return;
  }
  const Graph program = doc_->graph();
  const std::vector<std::string> hashes = programHashes(program, doc_->metadata());
  const EngineSpec a = engineA();
  const std::optional<EngineSpec> b = engineB();
  const double tolerance = std::max(0.0, tolerance_->text().toDouble());
  progressState_ = std::make_shared<Progress>();
  auto progress = progressState_;
  auto reporter = [progress](const std::string& label) {
    return [progress, label](int done, int total, const std::string& what) {
      progress->done = done;
      progress->total = total;
      std::lock_guard<std::mutex> lock(progress->mutex);
      progress->phase = label + ": " + what;
    };
  };
  RunProgress pa{reporter(a.label()), &progress->cancel};
  RunProgress pb{reporter(b ? b->label() : std::string()), &progress->cancel};
  watcher_.setFuture(QtConcurrent::run([program, hashes, tokens, a, b, tolerance, pa, pb] {
    ExactThreadScope scope;
    auto out = std::make_shared<Outcome>();
    try {
      out->a = std::make_shared<StepperRun>(runEngine(program, a, tokens, pa, hashes));
      if (b) {
        out->b = std::make_shared<StepperRun>(runEngine(program, *b, tokens, pb, hashes));
        out->divergence = firstDivergence(*out->a, *out->b, tolerance);
      }
    } catch (const Cancelled&) {
      out->cancelled = true;
    } catch (const std::exception& e) {
      out->error = e.what();
    }
    return out;
  }));
  runButton_->setEnabled(false);
  cancelButton_->setEnabled(true);
  progress_->setRange(0, 0);
  runStatus_->setText(tr("starting…"));
  pollTimer_->start();
}

void StepperView::cancelRun() {
  if (isRunning()) progressState_->cancel = true;
}

bool StepperView::waitForRun(int timeoutMs) {
  QElapsedTimer timer;
  timer.start();
  while (isRunning() && timer.elapsed() < timeoutMs)
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
  // The finished signal is queued: deliver it before returning.
  QCoreApplication::processEvents();
  return !isRunning();
}

void StepperView::pollProgress() {
  const int total = progressState_->total;
  if (total > 0) {
    progress_->setRange(0, total);
    progress_->setValue(progressState_->done);
  } else {
    progress_->setRange(0, 0);
  }
  std::lock_guard<std::mutex> lock(progressState_->mutex);
  runStatus_->setText(QString::fromStdString(progressState_->phase));
}

void StepperView::onRunFinished() {
  pollTimer_->stop();
  runButton_->setEnabled(true);
  cancelButton_->setEnabled(false);
  progress_->setRange(0, 1);
  progress_->setValue(1);
  const std::shared_ptr<Outcome> out = watcher_.result();
  if (out->cancelled || !out->error.empty()) {
    lastError_ = out->cancelled ? tr("run cancelled") : QString::fromStdString(out->error);
    runStatus_->setText(lastError_);
    runStatus_->setToolTip(lastError_);  // the line may be too short for all of it
    Q_EMIT runFinished(false, lastError_);
    return;
  }
  lastError_.clear();
  runA_ = out->a;
  runB_ = out->b;
  divergence_ = out->divergence;
  QString summary = tr("%1: %2 tokens").arg(qs(runA_->label())).arg(runA_->steps());
  if (runA_->compileSeconds > 0)
    summary += tr(", compiled in %1 s").arg(runA_->compileSeconds, 0, 'f', 2);
  summary += tr(", ran in %1 s").arg(runA_->runSeconds, 0, 'f', 3);
  if (runB_) summary += tr("; %1 too").arg(qs(runB_->label()));
  // A fitted compile is exact only on the domain it was fitted to: say which.
  const std::string fittedTo = !runA_->fittedTo.empty() ? runA_->fittedTo
                               : runB_                  ? runB_->fittedTo
                                                        : std::string();
  if (!fittedTo.empty()) summary += tr("; constants fitted to %1").arg(qs(fittedTo));
  runStatus_->setText(summary);
  runStatus_->setToolTip(summary);
  watch_->headerItem()->setText(1, tr("A: %1").arg(qs(runA_->label())));
  watch_->headerItem()->setText(2, runB_ ? tr("B: %1").arg(qs(runB_->label())) : QString());
  QString verdict;
  if (divergence_) {
    verdict = QStringLiteral("<span style='color:%1'>%2</span>")
                  .arg(divergence_->found ? "#c00000" : "#007000")
                  .arg(qs(divergence_->describe()).toHtmlEscaped());
  }
  // What the runs say about themselves (a weights file from another program), under the
  // verdict: worth knowing, no reason to refuse the run.
  for (const auto& [run, side] : {std::pair{runA_.get(), "A"}, std::pair{runB_.get(), "B"}}) {
    if (run == nullptr || run->warning.empty()) continue;
    if (!verdict.isEmpty()) verdict += QStringLiteral("<br>");
    verdict += QStringLiteral("<span style='color:#b06000'>%1</span>")
                   .arg(tr("warning (%1): %2").arg(side, qs(run->warning)).toHtmlEscaped());
  }
  divergenceLabel_->setText(verdict);
  divergenceButton_->setEnabled(divergence_ && divergence_->found);
  const int last = runA_->steps() - 1;
  for (QAbstractSlider* s : {static_cast<QAbstractSlider*>(slider_)})
    s->setRange(0, std::max(0, last));
  stepBox_->setRange(0, std::max(0, last));
  step_ = -1;
  goToStep(last);
  frameGraph();
  Q_EMIT seriesAvailable();
  Q_EMIT runFinished(true, summary);
}

void StepperView::clearResults(const QString& why) {
  if (!runA_) return;
  runA_.reset();
  runB_.reset();
  divergence_.reset();
  step_ = -1;
  graph_->showValues(nullptr, 0);
  graphCaption_->clear();
  output_->clear();
  divergenceLabel_->clear();
  divergenceButton_->setEnabled(false);
  runStatus_->setText(why);
  refreshWatch();
}

void StepperView::onDocumentReplaced() {
  if (isRunning()) cancelRun();
  clearResults(tr("new program: run again"));
  watched_.clear();
  tokens_->setTokens({});
  prefillPrompt();
  refreshWatch();
  frameGraph();
}

void StepperView::onProgramEdited() {
  const NodeId input = doc_->graph().input();
  if (input != kNoNode) tokens_->setTokenWidth(doc_->graph().node(input).dim);
  std::erase_if(watched_, [this](NodeId id) { return !doc_->graph().contains(id); });
  clearResults(tr("the program changed: run again"));
}

// ---------------------------------------------------------------------------- steps

int StepperView::stepCount() const { return runA_ ? runA_->steps() : 0; }

void StepperView::goToStep(int t) {
  if (!runA_ || t < 0 || t >= runA_->steps() || t == step_) return;
  step_ = t;
  refreshStep();
  Q_EMIT currentStepChanged(t);
}

void StepperView::stepForward() { goToStep(step_ + 1); }
void StepperView::stepBack() { goToStep(step_ - 1); }

void StepperView::goToDivergence() {
  if (!divergence_ || !divergence_->found) return;
  goToStep(divergence_->step);
  const NodeId node = divergenceProgramNode();
  if (node != kNoNode) graph_->centerOnNode(node);
}

NodeId StepperView::divergenceProgramNode() const {
  if (!divergence_ || !divergence_->found || !runA_) return kNoNode;
  const NodePair& n = divergence_->node;
  if (n.inProgramTerms || (runA_->spec.source == RunSource::Program && n.a != kNoNode)) return n.a;
  if (runB_ && runB_->spec.source == RunSource::Program && n.b != kNoNode) return n.b;
  return kNoNode;
}

void StepperView::frameGraph() {
  // Readable at once: the output (what a run ends on) with the boxes feeding it, at a
  // zoom where the box titles read — the whole program fitted would be specks. The
  // first divergence has its own button.
  NodeId node = doc_->graph().output();
  if (node == kNoNode && doc_->graph().nodeCount() > 0) node = 0;
  if (node != kNoNode) graph_->centerOnNode(node);
}

QString StepperView::comparedWeightsFile() const {
  for (const std::optional<EngineSpec>& e : {engineB(), std::optional<EngineSpec>(engineA())}) {
    if (e && e->source == RunSource::WeightsFile && !e->weightsPath.empty())
      return QString::fromStdString(e->weightsPath);
  }
  return {};
}

void StepperView::updateWeightsButton() {
  weightsButton_->setVisible(!comparedWeightsFile().isEmpty());
}

WeightsChangeView* StepperView::showWeightsChange() {
  const QString path = comparedWeightsFile();
  if (path.isEmpty()) return nullptr;
  // Always against the program as it is now (it may have changed since the last view).
  if (weightsView_) weightsView_->close();
  weightsView_ = new WeightsChangeView(doc_->graph(),
                                       programHashes(doc_->graph(), doc_->metadata()), path, this);
  weightsView_->setAttribute(Qt::WA_DeleteOnClose);
  weightsView_->show();
  weightsView_->raise();
  weightsView_->activateWindow();
  return weightsView_;
}

bool StepperView::showStep(int t) {
  if (!runA_) {
    if (!isRunning()) startRun();
    if (!waitForRun() || !runA_) return false;
  }
  if (t < 0 || t >= runA_->steps()) return false;
  goToStep(t);
  return step_ == t;
}

QString StepperView::outputText() const { return output_->text(); }

void StepperView::refreshStep() {
  for (QAbstractSlider* s : {static_cast<QAbstractSlider*>(slider_)}) {
    const QSignalBlocker block(s);
    s->setValue(step_);
  }
  {
    const QSignalBlocker block(stepBox_);
    stepBox_->setValue(step_);
  }
  backButton_->setEnabled(step_ > 0);
  forwardButton_->setEnabled(step_ + 1 < stepCount());
  tokens_->setCurrentRow(step_);

  // The graph shows A's values, else B's: a program run's, or a compiled path's read
  // through its labels (the program nodes it carries whole).
  auto showsProgram = [](const StepperRun* r) {
    return r != nullptr && r->hasNodeTrace() &&
           (r->spec.source == RunSource::Program || !r->carriers.empty());
  };
  const StepperRun* shown = showsProgram(runA_.get())   ? runA_.get()
                            : showsProgram(runB_.get()) ? runB_.get()
                                                        : nullptr;
  NodeId marked = kNoNode;
  if (divergence_ && divergence_->found && divergence_->step == step_ && shown != nullptr) {
    const NodePair& n = divergence_->node;
    if (n.inProgramTerms)
      marked = n.a;
    else if (shown->spec.source == RunSource::Program)
      marked = shown == runA_.get() ? n.a : n.b;
  }
  graph_->showValues(shown, step_, marked);
  graphCaption_->setText(
      shown != nullptr
          ? tr("Graph: values of %1 at t = %2 (blue > 0, red < 0, pale = 0; hover for the exact "
               "value)")
                .arg(qs(shown->label()))
                .arg(step_)
          : tr("Graph: no values to show (a target model or a weights file gives outputs "
               "only)"));

  QString html = QStringLiteral("<span style='font-size:20pt; font-weight:bold'>%1</span>")
                     .arg(qs(runA_->outputText(step_)).toHtmlEscaped());
  html += QStringLiteral("<br><small>A: %1, t = %2 (token %3)</small>")
              .arg(qs(runA_->label()).toHtmlEscaped())
              .arg(step_)
              .arg(qs(formatExact(runA_->tokens.at(static_cast<size_t>(step_)))).toHtmlEscaped());
  // The last few outputs: tok2tok's answer is spread over its last L steps.
  QStringList recent;
  for (int k = std::max(0, step_ - 5); k <= step_; ++k) recent << qs(runA_->outputText(k));
  html += QStringLiteral("<br><small>outputs t = %1..%2: %3</small>")
              .arg(std::max(0, step_ - 5))
              .arg(step_)
              .arg(recent.join(' ').toHtmlEscaped());
  if (runB_) {
    const bool differs = divergence_ && divergence_->found && divergence_->step <= step_;
    html += QStringLiteral(
                "<br><span style='font-size:16pt; color:%1'>%2</span><br><small>B: %3</small>")
                .arg(differs ? "#c00000" : "#000000")
                .arg(qs(runB_->outputText(step_)).toHtmlEscaped())
                .arg(qs(runB_->label()).toHtmlEscaped());
  }
  output_->setText(html);
  refreshWatch();
}

// ---------------------------------------------------------------------------- watch list

void StepperView::addWatch(NodeId id) {
  if (!doc_->graph().contains(id)) return;
  if (std::find(watched_.begin(), watched_.end(), id) != watched_.end()) return;
  watched_.push_back(id);
  refreshWatch();
}

void StepperView::removeWatch(NodeId id) {
  std::erase(watched_, id);
  refreshWatch();
}

void StepperView::addWatchFromField() {
  const QString text = watchField_->text().trimmed();
  NodeId id = kNoNode;
  if (text.startsWith('#')) {
    bool ok = false;
    id = text.mid(1).toInt(&ok);
    if (!ok) id = kNoNode;
  } else {
    id = doc_->graph().findByName(text.toStdString());
  }
  if (!doc_->graph().contains(id)) {
    runStatus_->setText(tr("no node \"%1\"").arg(text));
    return;
  }
  addWatch(id);
  watchField_->clear();
}

void StepperView::refreshWatch() {
  watch_->clear();
  const bool have = runA_ && step_ >= 0;
  auto valueIn = [&](const StepperRun* run, NodeId id) -> QString {
    if (run == nullptr || !run->holdsProgramNode(id)) return {};
    return qs(run->programValueText(id, step_));
  };
  const Graph& g = doc_->graph();
  for (NodeId id : watched_) {
    auto* item = new QTreeWidgetItem(watch_, {nodeTitle(g, id)});
    item->setData(0, Qt::UserRole, id);
    if (have) {
      item->setText(1, valueIn(runA_.get(), id));
      item->setText(2, valueIn(runB_.get(), id));
      item->setToolTip(1, item->text(1));
      item->setToolTip(2, item->text(2));
    }
  }
  auto* output = new QTreeWidgetItem(watch_, {tr("output")});
  QFont bold = output->font(0);
  bold.setBold(true);
  output->setFont(0, bold);
  if (have) {
    output->setText(1, qs(runA_->outputText(step_)));
    if (runB_) output->setText(2, qs(runB_->outputText(step_)));
  }
  // The first divergent node of two compiled paths compared node by node (not a program
  // node: not listed above).
  if (have && runB_ && divergence_ && divergence_->found && divergence_->node.a != kNoNode &&
      !divergence_->node.inProgramTerms && runA_->spec.source == RunSource::Compiled) {
    const NodePair& n = divergence_->node;
    auto* item = new QTreeWidgetItem(
        watch_, {tr("divergent path node %1").arg(nodeTitle(runA_->graph, n.a)),
                 qs(runA_->valueText(n.a, step_)), qs(runB_->valueText(n.b, step_))});
    item->setForeground(0, QColor(200, 0, 0));
    item->setToolTip(1, item->text(1));
    item->setToolTip(2, item->text(2));
  }
  // A compiled path's states: its LinStates (the program's nodes do not exist there).
  for (int which = 0; which < 2 && have; ++which) {
    const StepperRun* run = which == 0 ? runA_.get() : runB_.get();
    if (run == nullptr || run->spec.source != RunSource::Compiled || !run->hasNodeTrace()) continue;
    auto* top = new QTreeWidgetItem(watch_, {tr("path states (%1)").arg(which == 0 ? "A" : "B")});
    for (NodeId id : run->tracedNodes()) {
      if (run->graph.node(id).op != Op::LinState) continue;
      auto* item = new QTreeWidgetItem(top, {nodeTitle(run->graph, id)});
      item->setText(1 + which, qs(run->valueText(id, step_)));
      item->setToolTip(1 + which, item->text(1 + which));
      QStringList carried;
      for (int c = 0; c < run->graph.node(id).dim; ++c) carried << qs(run->componentLabel(id, c));
      item->setToolTip(0, tr("components: %1").arg(carried.join(", ")));
    }
    top->setExpanded(true);
  }
}

// ---------------------------------------------------------------------------- series

std::vector<StateSeries> StepperView::stateSeries() const {
  std::vector<StateSeries> out;
  if (!runA_ || !runA_->hasNodeTrace()) return out;
  const StepperRun& run = *runA_;
  int layer = 0;
  for (NodeId id : run.tracedNodes()) {
    const Node& node = run.graph.node(id);
    if (node.op != Op::LinState) continue;
    StateSeries s;
    const std::string base = node.name.empty() ? "#" + std::to_string(id) : node.name;
    s.title = run.spec.source == RunSource::Program
                  ? "LinState " + std::to_string(id) + " '" + base + "'"
                  : "layer " + std::to_string(layer) + " state '" + base + "'";
    for (int i = 0; i < node.dim; ++i) s.labels.push_back(run.componentLabel(id, i));
    for (int t = 0; t < run.steps(); ++t) s.values.push_back(run.value(id, t));
    out.push_back(std::move(s));
    ++layer;
  }
  return out;
}

}  // namespace lsrl::studio
