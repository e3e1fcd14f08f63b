#include "app/studio/player/debranch_view.h"

#include <malloc.h>

#include <QCheckBox>
#include <QComboBox>
#include <QEventLoop>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>
#include <cmath>
#include <utility>

#include "app/layout/full_layout.h"
#include "app/layout/item_size.h"
#include "app/studio/common/background_release.h"
#include "app/studio/document/document.h"
#include "app/studio/player/compile_count_chart.h"
#include "app/studio/player/node_inspector.h"
#include "app/studio/player/player_graph_view.h"
#include "app/studio/player/player_scene.h"
#include "app/studio/player/rule_explanation.h"
#include "app/studio/player/step_focus.h"
#include "core/graph/checks.h"
#include "core/util/memory_use.h"

namespace lsrl::studio {

namespace {

// Above this many steps per second the player jumps instead of animating each step.
constexpr int kAnimatedSpeedLimit = 4;
// While playing, a fresh layout about this often (dot takes ~0.1 s for a few hundred
// nodes), but not every step or two at slow speeds, where each step animates by itself.
constexpr double kAutoLayoutSeconds = 1.5;
constexpr int kMinAutoLayoutSteps = 3;

// The program's layout with every group expanded (compiled graphs have no groups): the
// document's own positions when no group is collapsed, else a dot layout (~2 s on tok2tok;
// the stored positions of hidden members sit on top of each other around their box).
std::map<NodeId, NodePosition> expandedLayout(const Graph& program) {
  bool collapsed = false;
  for (const Group& g : program.groups()) collapsed = collapsed || !g.expanded;
  if (!collapsed) return program.layout();
  Graph expanded = program;
  for (const Group& g : program.groups()) expanded.mutableGroup(g.id).expanded = true;
  return fullLayout(expanded).layout.nodes;
}

// `given`: a compile made elsewhere (the Live panel's) to show instead of compiling.
PlayerCompile compileForPlayer(const Graph& program,
                               std::optional<std::map<NodeId, NodePosition>> layout,
                               CompileOptions options, std::shared_ptr<const CompileResult> given) {
  PlayerCompile out;
  try {
    std::vector<Problem> problems = checkGraph(program);
    if (!problems.empty()) {
      QString text = QObject::tr("The program is not valid:");
      for (size_t i = 0; i < problems.size() && i < 5; ++i)
        text += QStringLiteral("\n") + QString::fromStdString(problems[i].message);
      out.error = text;
      return out;
    }
    std::shared_ptr<const CompileResult> result =
        given ? std::move(given) : std::make_shared<const CompileResult>(compile(program, options));
    if (!layout) layout = expandedLayout(program);
    out.layout = *layout;
    out.replay = buildReplay(*result, *layout);
    out.result = std::move(result);
  } catch (const Cancelled&) {
    out.cancelled = true;
  } catch (const std::exception& e) {
    out.error = QString::fromUtf8(e.what());
  }
  return out;
}

// dot's layout of the graph of the step shown (`nodes`: IR ids, alive ones only), by
// IR id. Only structure matters to the layout, so the nodes carry no matrices.
PlayerLayout layoutForPlayer(std::vector<Node> nodes, NodeId output) {
  PlayerLayout out;
  try {
    std::map<NodeId, NodeId> compact;  // IR id -> id in the graph laid out
    for (const Node& n : nodes) compact.emplace(n.id, static_cast<NodeId>(compact.size()));
    Graph g;
    std::vector<NodeId> irOf;
    for (Node n : nodes) {
      irOf.push_back(n.id);
      n.id = compact.at(n.id);
      std::vector<NodeId> inputs;
      for (NodeId in : n.inputs) {
        if (auto it = compact.find(in); it != compact.end()) inputs.push_back(it->second);
      }
      n.inputs = std::move(inputs);
      g.addUnchecked(std::move(n));
    }
    if (auto it = compact.find(output); it != compact.end()) g.setOutput(it->second);
    for (const auto& [id, p] : fullLayout(g).layout.nodes)
      out.nodes[irOf[static_cast<size_t>(id)]] = p;
  } catch (const std::exception& e) {
    out.error = QString::fromUtf8(e.what());
  }
  return out;
}

// " (replaced by #12, #13)" or " (removed)": where a step's branch node went.
QString replacementText(const StepCursor& cursor, const compiler::Step& step) {
  QStringList added;
  for (NodeId id : step.nodesAdded)
    if (cursor.alive(id)) added << QStringLiteral("<b>#%1</b>").arg(id);
  if (added.isEmpty()) return QObject::tr(" (removed)");
  constexpr int kNamed = 3;
  if (added.size() > kNamed) {
    const auto more = added.size() - kNamed;
    added = added.mid(0, kNamed);
    added << QObject::tr("%1 more").arg(more);
  }
  return QObject::tr(" (replaced by %1)").arg(added.join(QStringLiteral(", ")));
}

QToolButton* toolButton(const QString& text, const QString& tip, QWidget* parent) {
  auto* b = new QToolButton(parent);
  b->setText(text);
  b->setToolTip(tip);
  return b;
}

}  // namespace

DebranchView::DebranchView(Document* doc, QWidget* parent)
    : QWidget(parent),
      doc_(doc),
      scene_(new PlayerScene(this)),
      playTimer_(new QTimer(this)),
      progressTimer_(new QTimer(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(buildCompileBar());

  auto* split = new QSplitter(Qt::Horizontal, this);
  graphView_ = new PlayerGraphView(scene_, split);
  inspector_ = new NodeInspector(split);
  split->addWidget(graphView_);
  split->addWidget(inspector_);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 0);
  split->setCollapsible(0, false);
  inspector_->setMinimumWidth(200);
  split->setSizes({1000, 300});
  layout->addWidget(split, 1);

  layout->addWidget(buildTimeline());
  stepLabel_ = new QLabel(this);
  stepLabel_->setWordWrap(true);
  stepLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(stepLabel_);
  chart_ = new CompileCountChart(this);
  chart_->setMinimumHeight(150);
  chart_->setMaximumHeight(190);
  layout->addWidget(chart_);

  connect(scene_, &PlayerScene::nodeClicked, this, &DebranchView::inspectNode);
  connect(&watcher_, &QFutureWatcher<PlayerCompile>::finished, this,
          &DebranchView::onCompileFinished);
  connect(&layoutWatcher_, &QFutureWatcher<PlayerLayout>::finished, this,
          &DebranchView::onLayoutFinished);
  connect(playTimer_, &QTimer::timeout, this, [this] {
    if (currentStep() >= stepCount()) {
      pause();
      return;
    }
    moveTo(currentStep() + 1, speed_->value() <= kAnimatedSpeedLimit);
    maybeAutoLayout();
  });
  progressTimer_->setInterval(100);
  connect(progressTimer_, &QTimer::timeout, this, &DebranchView::onProgressTick);
  connect(doc_, &Document::documentReplaced, this, &DebranchView::invalidate);
  connect(doc_, &Document::structureChanged, this, &DebranchView::invalidate);
  connect(doc_, &Document::edgesChanged, this, &DebranchView::invalidate);
  connect(doc_, &Document::nodesChanged, this, &DebranchView::invalidate);
  setControlsEnabled(false);
  updateStepLabel();
}

DebranchView::~DebranchView() {
  // The worker only touches its own copies and the shared flags: stop it and wait.
  if (cancelFlag_) cancelFlag_->store(true);
  watcher_.waitForFinished();
  layoutWatcher_.waitForFinished();
}

QWidget* DebranchView::buildCompileBar() {
  auto* bar = new QWidget(this);
  auto* row = new QHBoxLayout(bar);
  row->setContentsMargins(0, 0, 0, 0);
  backend_ = new QComboBox(bar);
  backend_->addItem(tr("exact"), static_cast<int>(Backend::Exact));
  backend_->addItem(tr("float64"), static_cast<int>(Backend::Float64));
  optimize_ = new QCheckBox(tr("optimise"), bar);
  optimize_->setChecked(true);
  optimize_->setToolTip(tr("Size optimisation (O1 compact); off: the paper's plain algorithm"));
  compile_ = new QPushButton(tr("Compile"), bar);
  progress_ = new QProgressBar(bar);
  progress_->setRange(0, 1);
  progress_->setValue(0);
  progress_->setTextVisible(false);
  progress_->setMaximumWidth(160);
  progress_->setVisible(false);  // shown while compiling
  cancel_ = new QPushButton(tr("Cancel"), bar);
  cancel_->setEnabled(false);
  status_ = new QLabel(tr("Not compiled."), bar);
  status_->setWordWrap(true);
  row->addWidget(new QLabel(tr("Backend:"), bar));
  row->addWidget(backend_);
  row->addWidget(optimize_);
  row->addWidget(compile_);
  row->addWidget(progress_);
  row->addWidget(cancel_);
  row->addWidget(status_, 1);
  connect(compile_, &QPushButton::clicked, this, &DebranchView::startCompile);
  connect(cancel_, &QPushButton::clicked, this, &DebranchView::cancelCompile);
  return bar;
}

QWidget* DebranchView::buildTimeline() {
  auto* bar = new QWidget(this);
  auto* row = new QHBoxLayout(bar);
  row->setContentsMargins(0, 0, 0, 0);
  back_ = toolButton(QStringLiteral("◀"), tr("Step back"), bar);
  play_ = toolButton(QStringLiteral("▶"), tr("Play / pause"), bar);
  forward_ = toolButton(QStringLiteral("▶|"), tr("Step forward"), bar);
  slider_ = new QSlider(Qt::Horizontal, bar);
  slider_->setRange(0, 0);
  speed_ = new QSpinBox(bar);
  speed_->setRange(1, 500);
  speed_->setValue(3);
  speed_->setSuffix(tr(" steps/s"));
  speed_->setToolTip(tr("Playing speed; above %1 steps per second steps are not animated")
                         .arg(kAnimatedSpeedLimit));
  goTo_ = new QSpinBox(bar);
  goTo_->setRange(0, 0);
  goTo_->setPrefix(tr("step "));
  goTo_->setToolTip(tr("Go to step"));
  rules_ = new QComboBox(bar);
  rules_->setToolTip(tr("The rules that fired in this compile"));
  rules_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  nextRule_ = new QPushButton(tr("Next of rule"), bar);
  toEnd_ = new QPushButton(tr("To the end"), bar);
  toEnd_->setToolTip(tr("The last step: the path, laid out"));
  layOut_ = new QPushButton(tr("Lay out"), bar);
  layOut_->setToolTip(tr("Lay the graph of this step out afresh (dot); later steps keep it"));
  autoLayout_ = new QCheckBox(tr("Auto layout while playing"), bar);
  autoLayout_->setChecked(true);
  autoLayout_->setToolTip(
      tr("While playing, lay the graph out afresh every %1 s or so").arg(kAutoLayoutSeconds));
  follow_ = new QCheckBox(tr("Follow the rewrite"), bar);
  follow_->setChecked(true);
  follow_->setToolTip(
      tr("Keep each step's branch node and its neighbours on screen at a readable zoom"));
  for (QWidget* w : std::initializer_list<QWidget*>{back_, play_, forward_}) row->addWidget(w);
  row->addWidget(slider_, 1);
  for (QWidget* w : std::initializer_list<QWidget*>{speed_, goTo_, rules_, nextRule_, toEnd_,
                                                    layOut_, autoLayout_, follow_})
    row->addWidget(w);

  connect(back_, &QToolButton::clicked, this, &DebranchView::stepBack);
  connect(forward_, &QToolButton::clicked, this, &DebranchView::stepForward);
  connect(play_, &QToolButton::clicked, this, [this] { isPlaying() ? pause() : play(); });
  connect(toEnd_, &QPushButton::clicked, this, &DebranchView::toEnd);
  connect(layOut_, &QPushButton::clicked, this, &DebranchView::layOut);
  connect(nextRule_, &QPushButton::clicked, this, &DebranchView::nextStepOfRule);
  connect(slider_, &QSlider::valueChanged, this, [this](int k) {
    if (!syncingSlider_) moveTo(k, false);
  });
  connect(goTo_, &QSpinBox::editingFinished, this, [this] { moveTo(goTo_->value(), false); });
  connect(speed_, &QSpinBox::valueChanged, this,
          [this](int v) { playTimer_->setInterval(1000 / std::max(1, v)); });
  playTimer_->setInterval(1000 / speed_->value());
  return bar;
}

void DebranchView::setControlsEnabled(bool on) {
  for (QWidget* w : std::initializer_list<QWidget*>{back_, play_, forward_, slider_, goTo_, rules_,
                                                    nextRule_, toEnd_, layOut_})
    w->setEnabled(on);
}

// ---- compiling -------------------------------------------------------------------------

void DebranchView::startCompile() { startCompileOf(nullptr); }

void DebranchView::startCompileOf(std::shared_ptr<const CompileResult> given) {
  if (compiling_) return;
  adopting_ = given != nullptr;
  pause();
  CompileOptions options;
  options.backend = static_cast<Backend>(backend_->currentData().toInt());
  options.optimize = optimize_->isChecked();
  options.recordHistory = true;
  options.replayableHistory = true;
  cancelFlag_ = std::make_shared<std::atomic<bool>>(false);
  stepsSoFar_ = std::make_shared<std::atomic<long long>>(0);
  overBudget_ = std::make_shared<std::atomic<bool>>(false);
  // The replayable history keeps every intermediate node: on a large program (tok2tok
  // L=300: 18 GB after a minute) the compile would take the machine's memory and the
  // explorer with it. It stops at the budget instead and says why.
  options.progress = [cancel = cancelFlag_, steps = stepsSoFar_, over = overBudget_,
                      budget = compileMemoryBudget_](long long n) {
    steps->store(n);
    if (budget > 0 && residentBytes() > budget) over->store(true);
    return !cancel->load() && !over->load();
  };
  compiling_ = true;
  compile_->setEnabled(false);
  cancel_->setEnabled(true);
  progress_->setVisible(true);
  progress_->setRange(0, 0);  // busy: the step count is known only at the end
  status_->setText(tr("Compiling (%1)…").arg(backend_->currentText()));
  progressTimer_->start();
  std::optional<std::map<NodeId, NodePosition>> layout;
  if (layoutRevision_ == doc_->revision()) layout = layout_;
  compiledRevision_ = doc_->revision();
  watcher_.setFuture(QtConcurrent::run(compileForPlayer, doc_->graph(), std::move(layout),
                                       std::move(options), std::move(given)));
}

void DebranchView::offerCompile(std::shared_ptr<const CompileResult> result, uint64_t revision,
                                const QString& what) {
  releaseInBackground(std::move(offered_));
  offered_ = std::move(result);
  offeredRevision_ = revision;
  offeredWhat_ = what;
  if (isVisible()) adoptOffered();
}

void DebranchView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  adoptOffered();
}

void DebranchView::adoptOffered() {
  if (!offered_ || offeredRevision_ != doc_->revision() || compiling_ ||
      (cursor_ && compiledRevision_ == doc_->revision()))
    return;
  // The offered compile was made with the float64 backend and the size optimisations.
  const QSignalBlocker blockBackend(backend_);
  backend_->setCurrentIndex(backend_->findData(static_cast<int>(Backend::Float64)));
  const QSignalBlocker blockOptimize(optimize_);
  optimize_->setChecked(true);
  startCompileOf(std::exchange(offered_, nullptr));
  status_->setText(tr("Laying out %1…").arg(offeredWhat_));
}

void DebranchView::cancelCompile() {
  if (cancelFlag_) cancelFlag_->store(true);
}

void DebranchView::onProgressTick() {
  if (compiling_ && stepsSoFar_) {
    status_->setText(
        tr("Compiling (%1)… %2 steps").arg(backend_->currentText()).arg(stepsSoFar_->load()));
  }
}

void DebranchView::onCompileFinished() {
  progressTimer_->stop();
  compiling_ = false;
  compile_->setEnabled(true);
  cancel_->setEnabled(false);
  progress_->setVisible(false);
  const PlayerCompile out = watcher_.result();
  if (out.cancelled || out.error.size() > 0 || !out.replay) {
    // What the stopped compile held goes back to the system, not only to malloc's pools.
    if (out.cancelled) malloc_trim(0);
    if (out.cancelled && overBudget_ && overBudget_->load()) {
      status_->setText(
          tr("Compile stopped: the explorer used more than %1 GB (half of this machine's "
             "memory) to keep every step of it. Compile this program with lsrl compile, "
             "without --history.")
              .arg(static_cast<double>(compileMemoryBudget_) / (1 << 30), 0, 'f', 1));
    } else {
      status_->setText(out.cancelled ? tr("Compile cancelled.")
                                     : tr("Compile failed: %1").arg(out.error));
    }
    Q_EMIT compileFinished(false, status_->text());
    return;
  }
  cursor_.reset();
  releaseInBackground(std::move(result_));
  releaseInBackground(std::move(replay_));
  result_ = out.result;
  replay_ = out.replay;
  layout_ = out.layout;
  layoutRevision_ = compiledRevision_;
  cursor_ = std::make_unique<StepCursor>(replay_);
  ++layoutGeneration_;
  scene_->rebuild(cursor_.get());
  // A fixed scene rect holding every node that ever appears: the view does not jump.
  QRectF bounds;
  for (size_t id = 0; id < replay_->idLimit(); ++id) {
    if (!replay_->info[id].exists) continue;
    const NodePosition& p = replay_->positions[id];
    bounds |= QRectF(p.x - kNodeWidth, p.y - kNodeHeight, 2 * kNodeWidth, 2 * kNodeHeight);
  }
  scene_->setSceneRect(bounds.adjusted(-40, -40, 40, 40));

  const int n = stepCount();
  {
    const QSignalBlocker block(slider_);
    slider_->setRange(0, n);
    slider_->setValue(0);
  }
  goTo_->setRange(0, n);
  rules_->clear();
  for (const std::string& r : replay_->firedRules) rules_->addItem(QString::fromStdString(r));
  chart_->setCounts(replay_->nodeCounts, replay_->branchCounts);
  inspectNode(kNoNode);
  setControlsEnabled(true);
  status_->setText(tr("%1 steps, %2 → %3 nodes, %4 s (%5%6).")
                       .arg(result_->stepCount)
                       .arg(result_->nodesBefore)
                       .arg(result_->nodesAfter)
                       .arg(result_->seconds, 0, 'f', 2)
                       .arg(QString::fromUtf8(backendName(result_->backend).data()))
                       .arg(optimize_->isChecked() ? tr(", optimised") : QString()));
  if (adopting_)
    status_->setText(status_->text() + tr(" Shown from %1, not compiled again.").arg(offeredWhat_));
  moveTo(0, false);
  // Readable from the start: the first rewrite framed, not 980 boxes as specks.
  focusBranch();
  Q_EMIT compileFinished(true, status_->text());
}

bool DebranchView::compileAndWait(Backend backend, bool optimize, int timeoutMs) {
  backend_->setCurrentIndex(backend_->findData(static_cast<int>(backend)));
  optimize_->setChecked(optimize);
  // The watcher reports through queued signals: wait for compileFinished itself, not
  // for the future (which may be done while its result is not applied yet).
  QEventLoop loop;
  bool finished = false;
  bool succeeded = false;
  const QMetaObject::Connection c =
      connect(this, &DebranchView::compileFinished, &loop, [&](bool ok, const QString&) {
        finished = true;
        succeeded = ok;
        loop.quit();
      });
  const bool starts = !compiling_;
  startCompile();
  if (starts) {
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    if (!finished) loop.exec();
  }
  disconnect(c);
  return finished && succeeded;
}

void DebranchView::invalidate() {
  pause();
  cancelCompile();
  if (!cursor_) return;
  ++layoutGeneration_;
  scene_->rebuild(nullptr);
  cursor_.reset();
  // A compile's history is a million small allocations: freed off the GUI thread.
  releaseInBackground(std::move(replay_));
  releaseInBackground(std::move(result_));
  inspectNode(kNoNode);
  chart_->setCounts({}, {});
  rules_->clear();
  {
    const QSignalBlocker block(slider_);
    slider_->setRange(0, 0);
  }
  setControlsEnabled(false);
  status_->setText(tr("The program changed: compile it again."));
  updateStepLabel();
}

// ---- the timeline --------------------------------------------------------------------

int DebranchView::currentStep() const { return cursor_ ? static_cast<int>(cursor_->step()) : 0; }
int DebranchView::stepCount() const { return replay_ ? static_cast<int>(replay_->stepCount()) : 0; }
bool DebranchView::isPlaying() const { return playTimer_->isActive(); }
QString DebranchView::stepText() const { return stepLabel_->text(); }
QString DebranchView::statusText() const { return status_->text(); }

bool DebranchView::showStep(int k) {
  if (!cursor_ || k < 0 || k > stepCount()) return false;
  moveTo(k, false);
  scene_->finishAnimation();
  return true;
}

void DebranchView::moveTo(int k, bool animate) {
  if (!cursor_) return;
  k = std::clamp(k, 0, stepCount());
  std::vector<NodeId> touched;
  const bool oneStep = std::abs(k - currentStep()) == 1;
  cursor_->moveTo(static_cast<size_t>(k), &touched);
  NodePosition origin{0, 0};
  const compiler::Step* step = k > 0 ? &replay_->steps[static_cast<size_t>(k - 1)] : nullptr;
  if (step != nullptr && step->branch >= 0) origin = scene_->positionOf(step->branch);
  scene_->sync(*cursor_, touched, animate && oneStep, origin);
  if (step != nullptr) {
    scene_->setHighlight(step->branch, step->nodesAdded, cursor_->output());
  } else {
    // The start: the node the first step works on, which the view frames.
    const NodeId next = replay_->steps.empty() ? kNoNode : replay_->steps.front().branch;
    scene_->setHighlight(next, {}, cursor_->output());
  }
  {
    syncingSlider_ = true;
    slider_->setValue(k);
    syncingSlider_ = false;
  }
  if (!goTo_->hasFocus()) goTo_->setValue(k);
  chart_->setCurrentStep(k);
  if (inspector_->node() != kNoNode) inspector_->setPresent(cursor_->alive(inspector_->node()));
  followRewrite();
  updateStepLabel();
  Q_EMIT stepShown(k);
}

void DebranchView::followRewrite() {
  if (follow_->isChecked()) {
    focusBranch();
  } else {
    graphView_->updateSceneRect();  // boxes may have appeared beyond it
  }
}

void DebranchView::updateStepLabel() {
  if (!cursor_) {
    stepLabel_->setText(tr("Compile the program to play its debranching step by step."));
    return;
  }
  const int k = currentStep();
  const int n = stepCount();
  const size_t ks = static_cast<size_t>(k);
  QString text;
  if (k == 0) {
    text = tr("<b>Step 0 of %1</b> · the program as the compiler takes it").arg(n);
    if (n > 0 && replay_->steps.front().branch >= 0)
      text += tr(" · step 1 works on node <b>#%1</b>").arg(replay_->steps.front().branch);
  } else {
    const compiler::Step& s = replay_->steps[ks - 1];
    const QString rule = QString::fromStdString(s.rule);
    text = tr("<b>Step %1 of %2</b> · <b>%3</b>: %4")
               .arg(k)
               .arg(n)
               .arg(rule.toHtmlEscaped(), ruleExplanation(s.rule));
    if (s.branch >= 0) {
      text += tr(" · branch node <b>#%1</b>").arg(s.branch);
      // Most steps replace it: name what the view shows in its place.
      if (!cursor_->alive(s.branch)) text += replacementText(*cursor_, s);
    }
    text += tr(" (+%1 −%2 nodes)").arg(s.nodesAdded.size()).arg(s.nodesRemoved.size());
  }
  text += tr(" · %1 nodes, %2 branch nodes")
              .arg(replay_->nodeCounts[ks])
              .arg(replay_->branchCounts[ks]);
  if (k == n) text += tr(" · <b>the end: a path</b>");
  stepLabel_->setText(text);
}

void DebranchView::play() {
  if (!cursor_) return;
  if (currentStep() >= stepCount()) moveTo(0, false);
  // Count the steps to the first automatic layout from here, not from an old layout.
  lastLayoutStep_ = currentStep();
  playTimer_->start();
  play_->setText(QStringLiteral("❚❚"));
}

void DebranchView::pause() {
  playTimer_->stop();
  play_->setText(QStringLiteral("▶"));
}

void DebranchView::stepForward() { moveTo(currentStep() + 1, true); }
void DebranchView::stepBack() { moveTo(currentStep() - 1, true); }
void DebranchView::toEnd() {
  moveTo(stepCount(), false);
  layOut();
}

void DebranchView::layOut() { requestLayout(false); }

int DebranchView::autoLayoutInterval() const {
  return std::max(kMinAutoLayoutSteps,
                  static_cast<int>(std::lround(speed_->value() * kAutoLayoutSeconds)));
}

void DebranchView::maybeAutoLayout() {
  // One layout at a time: a step that comes due while dot runs waits for the next tick.
  if (!autoLayout_->isChecked() || !isPlaying() || layingOut_) return;
  if (std::abs(currentStep() - lastLayoutStep_) < autoLayoutInterval()) return;
  requestLayout(true);
}

void DebranchView::requestLayout(bool automatic) {
  if (!cursor_ || layingOut_) return;
  std::vector<Node> nodes;
  for (NodeId id : cursor_->aliveIds()) {
    const ReplayNodeInfo& info = replay_->info[static_cast<size_t>(id)];
    Node n;
    n.id = id;
    n.op = info.op;
    n.dim = info.dim;
    if (info.slice) n.slice = SliceTag{};
    n.inputs = cursor_->inputs(id);
    nodes.push_back(std::move(n));
  }
  layingOut_ = true;
  layOut_->setEnabled(false);
  layoutRequestGeneration_ = layoutGeneration_;
  layoutRequestStep_ = currentStep();
  layoutIsAuto_ = automatic;
  lastLayoutStep_ = currentStep();
  // Playing moves on while dot runs: its places still fit a graph a few steps later
  // (boxes added meanwhile follow their inputs); paused, only the very step.
  layoutTolerance_ = isPlaying() ? autoLayoutInterval() : 0;
  layoutWatcher_.setFuture(QtConcurrent::run(layoutForPlayer, std::move(nodes), cursor_->output()));
}

void DebranchView::onLayoutFinished() {
  layingOut_ = false;
  layOut_->setEnabled(cursor_ != nullptr);
  const PlayerLayout out = layoutWatcher_.result();
  if (!out.error.isEmpty()) {
    status_->setText(tr("Layout failed: %1").arg(out.error));
    Q_EMIT layoutFinished(false, status_->text());
    return;
  }
  // The graph moved on meanwhile (far from the step, another compile or program): the
  // places are stale. An automatic one is also dropped once the player stopped playing
  // or auto layout was switched off: boxes should not slide under a paused reader.
  const bool stale = !cursor_ || layoutRequestGeneration_ != layoutGeneration_ ||
                     std::abs(layoutRequestStep_ - currentStep()) > layoutTolerance_;
  if (stale || (layoutIsAuto_ && (!isPlaying() || !autoLayout_->isChecked()))) {
    Q_EMIT layoutFinished(false, tr("Layout dropped: the step changed."));
    return;
  }
  // dot's places start at (0, 0): the graph settles around the step's branch node, which
  // stays where it is drawn (the reader's eye is on it); without one, the new places are
  // centred where the graph they replace was drawn.
  QPointF shift;
  const std::optional<StepFocus> focus = stepFocus(*scene_, *cursor_);
  if (auto it = focus ? out.nodes.find(focus->node) : out.nodes.end(); it != out.nodes.end()) {
    shift = focus->centre - QPointF(it->second.x, it->second.y);
  } else {
    QRectF after;
    for (const auto& [id, p] : out.nodes)
      after |= QRectF(p.x - kNodeWidth / 2, p.y - kNodeHeight / 2, kNodeWidth, kNodeHeight);
    shift = scene_->nodesBounds().center() - after.center();
  }
  std::map<NodeId, NodePosition> places = out.nodes;
  for (auto& [id, p] : places) p = {p.x + shift.x(), p.y + shift.y()};
  scene_->moveNodesTo(places, isVisible());
  // The scene's own rect (fixed, so it never computes its items' bounds) holds the new
  // places too.
  scene_->setSceneRect(scene_->sceneRect() | scene_->nodesBounds());
  if (layoutIsAuto_) {
    ++autoLayoutsApplied_;
    followRewrite();
  } else {
    // Asked for: the rewrite framed in its new surroundings, following or not.
    focusBranch();
  }
  Q_EMIT layoutFinished(true, QString());
}

void DebranchView::focusBranch() {
  if (!cursor_) return;
  if (const std::optional<StepFocus> focus = stepFocus(*scene_, *cursor_)) {
    graphView_->follow(*focus);
  } else {
    graphView_->updateSceneRect();
  }
}

void DebranchView::fitToGraph() { graphView_->fitAll(); }

void DebranchView::nextStepOfRule() {
  if (!replay_ || rules_->currentIndex() < 0) return;
  const std::string rule = rules_->currentText().toStdString();
  for (int k = currentStep() + 1; k <= stepCount(); ++k) {
    if (replay_->steps[static_cast<size_t>(k - 1)].rule == rule) {
      moveTo(k, false);
      return;
    }
  }
  status_->setText(tr("No later step of rule %1.").arg(rules_->currentText()));
}

void DebranchView::inspectNode(NodeId id) {
  if (!replay_) id = kNoNode;
  inspector_->inspect(replay_ ? replay_->history : nullptr, id);
  scene_->setInspected(id);
}

QString DebranchView::ruleOfStep(int k) const {
  if (!replay_ || k < 1 || k > stepCount()) return {};
  return QString::fromStdString(replay_->steps[static_cast<size_t>(k - 1)].rule);
}

}  // namespace lsrl::studio
