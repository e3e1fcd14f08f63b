#include "app/studio/live/live_panel.h"

#include <QComboBox>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QStandardItemModel>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent>

#include "app/studio/common/paper_prompt.h"
#include "app/studio/live/prompt_text.h"
#include "core/util/error.h"
#include "core/util/thread_priority.h"

namespace lsrl::studio {

struct LivePanel::Outcome {
  std::shared_ptr<const LiveResult> result;  // without its compile: that is below
  std::shared_ptr<const CompileResult> compile;
  bool cancelled = false;
  QString error;  // an exception the job did not expect
  uint64_t stamp = 0;
  uint64_t revision = 0;
};

namespace {

constexpr int kMaxProblemsShown = 5;
const QColor kDiffers(255, 205, 205);

QLabel* wrapping(QWidget* parent) {
  auto* label = new QLabel(parent);
  label->setWordWrap(true);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return label;
}

QString number(long long n) { return QLocale().toString(n); }

QString columnTitle(LiveColumn c, const std::optional<Target>& target) {
  switch (c) {
    case LiveColumn::Program:
      return QObject::tr("program");
    case LiveColumn::Float64:
      return QObject::tr("network float64");
    case LiveColumn::Fp32:
      return QObject::tr("network fp32");
    case LiveColumn::Target:
      return target ? QString::fromLatin1(targetName(*target).data()) : QObject::tr("target");
  }
  return {};
}

}  // namespace

LivePanel::LivePanel(Document* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
  setObjectName(QStringLiteral("LivePanel"));
  // One thread of its own, in the background: the global pool's threads stay as they are.
  pool_.setMaxThreadCount(1);
  // Controls and verdicts on the left, the token table on the right: the panel sits in the
  // wide bottom dock area.
  auto* columns = new QHBoxLayout(this);
  columns->setContentsMargins(4, 4, 4, 4);
  // The left column scrolls rather than cut a verdict off in a low dock.
  auto* scroll = new QScrollArea(this);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  auto* left = new QWidget(scroll);
  scroll->setWidget(left);
  auto* layout = new QVBoxLayout(left);
  layout->setContentsMargins(0, 0, 0, 0);
  columns->addWidget(scroll, 2);

  prompt_ = new QLineEdit(this);
  prompt_->setObjectName(QStringLiteral("live_prompt"));
  prompt_->setPlaceholderText(tr("tokens: 1 0 1 1, or vectors: 3/10, 7/10; 0, 1"));
  prompt_->setToolTip(
      tr("The prompt: tokens of one value separated by spaces, tokens of several values "
         "separated by ';' (values in the exact grammar: 1/3, sqrt(2)/2)"));
  auto* promptRow = new QHBoxLayout;
  promptRow->addWidget(new QLabel(tr("Prompt:"), this));
  promptRow->addWidget(prompt_, 1);
  layout->addLayout(promptRow);
  promptNote_ = wrapping(this);
  layout->addWidget(promptNote_);

  mode_ = new QComboBox(this);
  mode_->setObjectName(QStringLiteral("live_program_mode"));
  mode_->addItem(tr("program float64"));
  mode_->addItem(tr("program exact"));
  mode_->setToolTip(tr("The arithmetic of the program column"));
  target_ = new QComboBox(this);
  target_->setObjectName(QStringLiteral("live_target"));
  target_->addItem(tr("no target"), -1);
  for (Target t : allTargets())
    target_->addItem(QString::fromLatin1(targetName(t).data()), static_cast<int>(t));
  target_->setToolTip(tr("A target architecture built from the float64 network, run in float64"));
  compileNow_ = new QPushButton(tr("Compile now"), this);
  compileNow_->setToolTip(tr("Compile the program and run the prompt now"));
  toStepper_ = new QPushButton(tr("Run in Token stepper"), this);
  toStepper_->setToolTip(tr("Give the Token stepper this prompt and run it there"));
  domain_ = new QComboBox(this);
  domain_->setObjectName(QStringLiteral("live_domain"));
  domain_->addItem(tr("fit to the prompt"));
  domain_->addItem(tr("fit to the file's domain"));
  domain_->setToolTip(
      tr("The domain the network's constants are fitted to: the prompt's (quick), or the one "
         "the file declares, as lsrl compile fits to by default (slower: a long horizon)"));
  auto* choices = new QHBoxLayout;
  choices->addWidget(mode_);
  choices->addWidget(target_);
  choices->addStretch(1);
  layout->addLayout(choices);
  auto* domainRow = new QHBoxLayout;
  domainRow->addWidget(domain_);
  domainRow->addStretch(1);
  layout->addLayout(domainRow);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(compileNow_);
  buttons->addWidget(toStepper_);
  buttons->addStretch(1);
  layout->addLayout(buttons);

  status_ = wrapping(this);
  status_->setObjectName(QStringLiteral("live_status"));
  size_ = wrapping(this);
  size_->setObjectName(QStringLiteral("live_size"));
  certificate_ = wrapping(this);
  certificate_->setObjectName(QStringLiteral("live_certificate"));
  differences_ = wrapping(this);
  differences_->setObjectName(QStringLiteral("live_differences"));
  for (QLabel* l : {status_, size_, certificate_, differences_}) layout->addWidget(l);
  layout->addStretch(1);
  // Never narrower than its widest row: labels wrap within it rather than being cut.
  scroll->setMinimumWidth(left->minimumSizeHint().width() +
                          scroll->verticalScrollBar()->sizeHint().width());

  table_ = new QTableWidget(0, 2 + kLiveColumns, this);
  table_->setObjectName(QStringLiteral("live_table"));
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->setVisible(false);
  table_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
  // Column widths are fitted once per result (showRows): ResizeToContents would measure
  // every column again for each cell set.
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setHorizontalHeaderLabels({tr("t"), tr("token"), columnTitle(LiveColumn::Program, {}),
                                     columnTitle(LiveColumn::Float64, {}),
                                     columnTitle(LiveColumn::Fp32, {}),
                                     columnTitle(LiveColumn::Target, {})});
  table_->setColumnHidden(2 + static_cast<int>(LiveColumn::Target), true);
  columns->addWidget(table_, 3);

  connect(prompt_, &QLineEdit::textEdited, this, &LivePanel::onPromptEdited);
  connect(mode_, &QComboBox::currentIndexChanged, this, &LivePanel::invalidate);
  connect(target_, &QComboBox::currentIndexChanged, this, &LivePanel::invalidate);
  connect(domain_, &QComboBox::currentIndexChanged, this, &LivePanel::invalidate);
  connect(compileNow_, &QPushButton::clicked, this, &LivePanel::compileNow);
  connect(toStepper_, &QPushButton::clicked, this, [this] {
    try {
      Q_EMIT stepperRequested(promptTokens());
    } catch (const Error& e) {
      status_->setText(tr("Prompt: %1").arg(QString::fromUtf8(e.what())));
    }
  });
  connect(doc_, &Document::changed, this, &LivePanel::onDocumentChanged);
  connect(doc_, &Document::documentReplaced, this, &LivePanel::onDocumentReplaced);
  connect(&watcher_, &QFutureWatcher<std::shared_ptr<Outcome>>::finished, this,
          &LivePanel::onFinished);
  setFirstPrompt();
  showStale(
      tr("No program yet: the panel answers once the program has an Input and an "
         "output."));
}

LivePanel::~LivePanel() {
  // The job holds copies only; it is cancelled and waited for so that it never outlives
  // the explorer's libraries' globals at exit.
  if (cancel_) cancel_->store(true);
  watcher_.waitForFinished();
}

ExactSequence LivePanel::promptTokens() const {
  const Graph& g = doc_->graph();
  const int width = g.input() == kNoNode ? 0 : g.node(g.input()).dim;
  return parsePromptText(prompt_->text().toStdString(), width);
}

QSize LivePanel::sizeHint() const {
  // Wide: the bottom dock area shares its width with the problems in this proportion.
  return {kPreferredWidth, QWidget::sizeHint().height()};
}

bool LivePanel::isCurrent() const { return shownStamp_ == wanted_ && !running_ && !pending_; }

bool LivePanel::waitUntilCurrent(int timeoutMs) {
  QElapsedTimer clock;
  clock.start();
  while (!isCurrent()) {
    if (clock.elapsed() > timeoutMs) return false;
    QEventLoop loop;
    QTimer::singleShot(5, &loop, &QEventLoop::quit);
    loop.exec();
  }
  return true;
}

void LivePanel::compileNow() {
  forcedStamp_ = wanted_;
  schedule(true);
}

void LivePanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (shownStamp_ != wanted_ && !running_) schedule(false);
}

bool LivePanel::tooBig() const {
  return doc_->graph().liveNodeCount() > static_cast<size_t>(autoCompileLimit_);
}

void LivePanel::onDocumentChanged(const DocumentChange& what) {
  if (what.replaced) return;  // onDocumentReplaced
  const NodeId input = doc_->graph().input();
  const bool touchesInput =
      std::binary_search(what.nodes.begin(), what.nodes.end(), input) || what.structure;
  const bool program =
      !what.nodes.empty() || !what.rewired.empty() || what.outputBefore != what.outputAfter;
  if (!program) return;  // moves, expanding and collapsing groups
  if (!promptTyped_ && touchesInput) setFirstPrompt();
  invalidate();
}

void LivePanel::onDocumentReplaced() {
  const QString source = doc_->sourcePath().isEmpty() ? doc_->filePath() : doc_->sourcePath();
  // A reload of the same file (a watched .py changed) keeps what the person typed.
  if (!promptTyped_ || source.isEmpty() || source != promptSource_) {
    promptTyped_ = false;
    setFirstPrompt();
  }
  promptSource_ = source;
  updateDomainChoice();
  invalidate();
}

void LivePanel::updateDomainChoice() {
  // "The file's domain" only for a file that declares one.
  const bool declares = declaredDomain(doc_->metadata()).complete();
  if (!declares) {
    const QSignalBlocker quiet(domain_);
    domain_->setCurrentIndex(0);
  }
  if (auto* model = qobject_cast<QStandardItemModel*>(domain_->model()))
    model->item(1)->setEnabled(declares);
}

void LivePanel::onPromptEdited() {
  if (prompt_->text().trimmed().isEmpty()) {
    // An emptied field brings the program's first prompt back.
    promptTyped_ = false;
    setFirstPrompt();
  } else if (!promptTyped_) {
    promptTyped_ = true;
    promptNote_->setText(tr("Your prompt (empty the field for the program's first one)."));
  }
  invalidate();
}

void LivePanel::setFirstPrompt() {
  const std::optional<FirstPrompt> p = firstPrompt(doc_->graph());
  prompt_->setText(p ? QString::fromStdString(promptText(p->tokens)) : QString());
  promptNote_->setText(p ? tr("%1 (the program's first prompt; type your own)")
                               .arg(QString::fromStdString(p->description))
                         : tr("Type the tokens to run the program on."));
}

void LivePanel::invalidate() {
  ++wanted_;
  schedule(false);
}

void LivePanel::schedule(bool forced) {
  if (!forced && !isVisible()) return;  // showEvent asks again
  if (running_) {
    // The newer state cancels the compile in flight; onFinished starts the next.
    pending_ = true;
    if (cancel_) cancel_->store(true);
    return;
  }
  if (forcedStamp_ != wanted_ && tooBig()) {
    shownStamp_ = wanted_;
    showStale(tr("%1 nodes: above %2 a compile takes seconds, so the panel does not compile "
                 "on every edit. Press Compile now.")
                  .arg(number(static_cast<long long>(doc_->graph().liveNodeCount())))
                  .arg(number(autoCompileLimit_)));
    return;
  }
  if (!doc_->problems().empty()) {
    // The document has validated already: no worker needed to say what is wrong.
    auto r = std::make_shared<LiveResult>();
    for (const Problem& p : doc_->problems()) r->problems.push_back(p.message);
    shownStamp_ = wanted_;
    apply(std::move(r));
    return;
  }
  LiveRequest request;
  try {
    request.prompt = promptTokens();
  } catch (const Error& e) {
    auto r = std::make_shared<LiveResult>();
    r->programError = std::string("prompt: ") + e.what();
    shownStamp_ = wanted_;
    apply(std::move(r));
    return;
  }
  request.program = doc_->graph();
  request.declared = declaredDomain(doc_->metadata());
  request.fitToDeclared = domain_->currentIndex() == 1;
  request.exactProgram = mode_->currentIndex() == 1;
  request.background = true;
  const int target = target_->currentData().toInt();
  if (target >= 0) request.target = static_cast<Target>(target);
  pending_ = false;
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  running_ = true;
  const uint64_t stamp = wanted_;
  const uint64_t revision = doc_->revision();
  status_->setText(tr("Compiling…"));
  watcher_.setFuture(QtConcurrent::run(
      &pool_, [request = std::move(request), cancel = cancel_, stamp, revision]() {
        const ExactThreadScope releaseCaches;
        // The event loop keeps the CPU it needs: on two cores the job's two threads would
        // otherwise hold it off for 50 ms and more (docs/explorer.md, "Live panel").
        runThisThreadInBackground();
        auto out = std::make_shared<Outcome>();
        out->stamp = stamp;
        out->revision = revision;
        try {
          LiveResult result = runLiveCompile(request, cancel.get());
          out->compile = std::move(result.compile);
          out->result = std::make_shared<const LiveResult>(std::move(result));
        } catch (const Cancelled&) {
          out->cancelled = true;
        } catch (const std::exception& e) {
          out->error = QString::fromUtf8(e.what());
        } catch (...) {
          out->error = QObject::tr("an unknown error");
        }
        return out;
      }));
}

void LivePanel::onFinished() {
  running_ = false;
  const std::shared_ptr<Outcome> out = watcher_.result();
  if (out->stamp == wanted_ && !out->cancelled) {
    shownStamp_ = out->stamp;
    if (out->result) {
      apply(out->result);
      if (out->compile) {
        Q_EMIT compiled(out->compile, out->revision,
                        tr("the Live panel's float64 compile (constants fitted to %1)")
                            .arg(QString::fromStdString(out->result->fittedTo)));
      }
    } else {
      auto r = std::make_shared<LiveResult>();
      r->programError = out->error.toStdString();
      apply(std::move(r));
    }
  }
  if (pending_ || shownStamp_ != wanted_) schedule(false);
}

void LivePanel::apply(std::shared_ptr<const LiveResult> result) {
  std::shared_ptr<const LiveResult> before = good_;
  shown_ = std::move(result);
  const LiveResult& r = *shown_;
  ++updates_;
  if (!r.ok()) {
    QStringList lines;
    if (!r.problems.empty()) {
      QString head = r.problems.size() == 1
                         ? tr("The program has a problem")
                         : tr("The program has %1 problems").arg(r.problems.size());
      lines << head + (good_ ? tr("; the last good result is greyed out:") : tr(":"));
      for (size_t i = 0; i < r.problems.size() && i < kMaxProblemsShown; ++i)
        lines << QStringLiteral("• ") + QString::fromStdString(r.problems[i]);
    } else {
      lines << QString::fromStdString(r.programError);
    }
    showStale(lines.join('\n'));
    Q_EMIT updated();
    return;
  }
  if (r.float64 && r.networkError.empty()) good_ = shown_;
  table_->setEnabled(true);
  size_->setEnabled(true);
  certificate_->setEnabled(true);
  showRows(r);
  QString status = tr("Updated in %1 ms").arg(qRound(r.seconds * 1000));
  if (!r.fittedTo.empty()) {
    status += (r.fittedDomain == "declared" ? tr(" · constants fitted to the declared domain, %1")
                                            : tr(" · constants fitted to the prompt's domain, %1"))
                  .arg(QString::fromStdString(r.fittedTo));
    if (!r.notDeclared.empty())
      status += QStringLiteral(" (%1)").arg(QString::fromStdString(r.notDeclared));
  }
  if (!r.networkError.empty())
    status += tr("\nThe network: %1").arg(QString::fromStdString(r.networkError));
  if (!r.targetError.empty())
    status += tr("\nThe target: %1").arg(QString::fromStdString(r.targetError));
  status_->setText(status);
  if (r.float64) {
    const GraphSize& s = r.float64->size;
    QString text =
        (s.layers == 1 ? tr("Network: 1 layer") : tr("Network: %1 layers").arg(number(s.layers))) +
        tr(" · state width %1 · %2")
            .arg(number(s.stateDim), s.nonZeroParams == 1
                                         ? tr("1 non-zero")
                                         : tr("%1 non-zeros").arg(number(s.nonZeroParams)));
    if (before && before->float64 && before != shown_)
      text +=
          QStringLiteral(" (%1)").arg(QString::fromStdString(sizeChange(before->float64->size, s)));
    size_->setText(text);
    auto verdict = [](const char* name, const LiveNetwork& n) {
      return QStringLiteral("%1 %2: %3")
          .arg(n.certified ? QStringLiteral("✔") : QStringLiteral("✘"), QLatin1String(name),
               QString::fromStdString(n.certificate));
    };
    certificate_->setText(verdict("float64", *r.float64) +
                          (r.fp32 ? QStringLiteral("\n") + verdict("fp32", *r.fp32) : QString()));
  } else {
    size_->setText(tr("Network: not compiled"));
    certificate_->clear();
  }
  const std::vector<int> differing = r.differingTokens();
  if (!r.float64) {
    differences_->clear();
  } else if (differing.empty()) {
    differences_->setText(
        r.tokens() == 1
            ? tr("The network answers as the program on the token.")
            : tr("The network answers as the program on all %1 tokens.").arg(r.tokens()));
  } else {
    QStringList ts;
    for (size_t i = 0; i < differing.size() && i < 12; ++i) ts << QString::number(differing[i]);
    if (differing.size() > 12) ts << QStringLiteral("…");
    differences_->setText(tr("The network differs from the program at %1 of %2 tokens: t = %3 "
                             "(marked)")
                              .arg(differing.size())
                              .arg(r.tokens())
                              .arg(ts.join(QStringLiteral(", "))));
  }
  Q_EMIT updated();
}

void LivePanel::showRows(const LiveResult& r) {
  table_->setColumnHidden(2 + static_cast<int>(LiveColumn::Target), !r.target);
  if (r.target) {
    table_->setHorizontalHeaderItem(
        2 + static_cast<int>(LiveColumn::Target),
        new QTableWidgetItem(columnTitle(LiveColumn::Target, r.target)));
  }
  table_->setRowCount(r.tokens());
  // Quiet while filling, then one dataChanged for the lot: a signal per cell would lay the
  // view out again each time.
  std::optional<QSignalBlocker> quiet(std::in_place, table_->model());
  for (int t = 0; t < r.tokens(); ++t) {
    auto set = [&](int column, const QString& text, bool differs) {
      QTableWidgetItem* item = table_->item(t, column);
      if (item == nullptr) {
        item = new QTableWidgetItem;
        table_->setItem(t, column, item);
      }
      item->setText(text);
      item->setData(Qt::UserRole, differs);
      item->setBackground(differs ? QBrush(kDiffers) : QBrush());
      item->setToolTip(differs ? tr("differs from the program's output") : QString());
    };
    set(0, QString::number(t), false);
    set(1, QString::fromStdString(r.tokenTexts[static_cast<size_t>(t)]), false);
    for (int c = 0; c < kLiveColumns; ++c) {
      const auto column = static_cast<LiveColumn>(c);
      set(2 + c, QString::fromStdString(r.text(column, t)), r.differs(column, t));
    }
  }
  quiet.reset();
  if (r.tokens() > 0) {
    QAbstractItemModel* m = table_->model();
    Q_EMIT m->dataChanged(m->index(0, 0), m->index(r.tokens() - 1, m->columnCount() - 1));
    // In view: the first token where the network differs, else the last answer (tok2tok
    // answers in its last tokens).
    const std::vector<int> differing = r.differingTokens();
    table_->scrollTo(m->index(differing.empty() ? r.tokens() - 1 : differing.front(), 0));
  }
  table_->resizeColumnsToContents();
  table_->viewport()->update();
}

void LivePanel::showStale(const QString& why) {
  status_->setText(why);
  // The last good result stays, greyed out: what the program answered before the edit.
  table_->setEnabled(false);
  size_->setEnabled(false);
  certificate_->setEnabled(false);
  if (good_) {
    showRows(*good_);
  } else {
    table_->setRowCount(0);
    size_->clear();
    certificate_->clear();
  }
  differences_->clear();
}

}  // namespace lsrl::studio
