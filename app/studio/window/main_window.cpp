#include "app/studio/window/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPointer>
#include <QProgressBar>
#include <QProgressDialog>
#include <QPushButton>
#include <QScrollArea>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
#include <QtConcurrent/QtConcurrentRun>
#include <atomic>
#include <memory>

#include "app/layout/full_layout.h"
#include "app/layout/incremental_layout.h"
#include "app/layout/layered_layout.h"
#include "app/studio/common/file_dialogs.h"
#include "app/studio/editor/graph_export.h"
#include "app/studio/editor/graph_view.h"
#include "app/studio/editor/minimap.h"
#include "app/studio/editor/search_bar.h"
#include "app/studio/editor/zoom_pan_view.h"
#include "app/studio/live/live_panel.h"
#include "app/studio/panels/palette_panel.h"
#include "app/studio/panels/problems_panel.h"
#include "app/studio/panels/properties_panel.h"
#include "app/studio/player/debranch_view.h"
#include "app/studio/player/frame_export.h"
#include "app/studio/plots/noise_plot_view.h"
#include "app/studio/plots/trajectory_view.h"
#include "app/studio/plots/ua_heatmap_view.h"
#include "app/studio/stepper/stepper_view.h"
#include "app/studio/window/autosave.h"
#include "app/studio/window/docs_viewer.h"
#include "app/studio/window/examples_catalog.h"
#include "app/studio/window/guarded_application.h"
#include "app/studio/window/layout_runner.h"
#include "app/studio/window/recent_files.h"
#include "app/studio/window/shortcuts_dialog.h"
#include "app/studio/window/source_watcher.h"
#include "app/studio/window/start_page.h"
#include "app/studio/window/startup_options.h"
#include "app/studio/window/weights_export.h"
#include "app/studio/zoo/model_tab.h"
#include "app/studio/zoo/model_zoo_panel.h"
#include "app/studio/zoo/step_bar.h"
#include "core/seed_models/seed_model.h"
#include "core/util/thousands.h"

// The icons are compiled into the static library, whose resources are registered by
// name (outside any namespace, as Q_INIT_RESOURCE requires).
static void initStudioResources() { Q_INIT_RESOURCE(studio); }

namespace lsrl::studio {

namespace {

// The bottom docks (Problems, Live): room for a few problems and six tokens of the Live
// panel's table.
constexpr int kBottomDockHeight = 230;

const QString kFileFilter = QStringLiteral(
    "LSRL programs (*.json *.py);;LSRL graphs (*.json);;Python programs (*.py);;All files (*)");
// More unplaced items than this get the full dot layout rather than quick placement.
constexpr size_t kQuickPlacementLimit = 50;
// The smallest window a person can make; every view is laid out to fit 1000x700.
constexpr QSize kSmallestWindow(800, 560);

// Shows the window's one dialog of type D (made on first use, kept while closed), in
// front; a modeless window, read beside the work.
template <class D>
void showSingleDialog(QMainWindow* window) {
  D* dialog = window->findChild<D*>(QString(), Qt::FindDirectChildrenOnly);
  if (dialog == nullptr) dialog = new D(window);
  dialog->show();
  dialog->raise();
  dialog->activateWindow();
}

// The zoomable graph of a tab (Debranching, Token stepper), else null.
ZoomPanView* zoomViewOf(QWidget* tab) {
  if (tab == nullptr) return nullptr;
  if (auto* view = qobject_cast<ZoomPanView*>(tab)) return view;
  return tab->findChild<ZoomPanView*>();
}

}  // namespace

MainWindow::MainWindow(Options options, QWidget* parent)
    : QMainWindow(parent), options_(std::move(options)), doc_(new Document(this)) {
  initStudioResources();
  setObjectName(QStringLiteral("MainWindow"));
  setWindowIcon(QIcon(QStringLiteral(":/icons/lsrl-studio.svg")));
  recent_ = new RecentFiles(this);
  buildViews();
  layout_ = new LayoutRunner(doc_, this);
  sourceWatcher_ = new SourceWatcher(doc_, this);
  connect(sourceWatcher_, &SourceWatcher::sourceChanged, this, [this] { reloadPythonSource(); });
  buildActions();
  buildDocks();
  buildMenus();
  buildToolBar();
  buildStatusBar();
  if (options_.autosave) autosave_ = new Autosave(doc_, options_.recoveryDir, this);

  connect(recent_, &RecentFiles::openRequested, this, &MainWindow::openRecentFile);
  connect(startPage_, &StartPage::newProgramRequested, this, [this] { newDocument(); });
  connect(startPage_, &StartPage::openRequested, this, [this] { openDialog(); });
  connect(startPage_, &StartPage::resumeRequested, this, &MainWindow::showEditor);
  connect(startPage_, &StartPage::recentFileRequested, this, &MainWindow::openRecentFile);
  connect(startPage_, &StartPage::exampleRequested, this, [this](int index) {
    if (confirmDiscard()) openExample(exampleEntries().at(static_cast<size_t>(index)));
  });
  // Whatever fills the document behind the page shows the editor.
  connect(doc_, &Document::structureChanged, this, [this] {
    if (startPageShown() && !documentUntouched()) showEditor();
  });
  connect(doc_, &Document::modifiedChanged, this, &MainWindow::updateTitle);
  connect(doc_, &Document::filePathChanged, this, &MainWindow::updateTitle);
  connect(doc_, &Document::documentReplaced, this, &MainWindow::updateTitle);
  connect(doc_, &Document::structureChanged, this, &MainWindow::updateStatus);
  connect(doc_, &Document::problemsChanged, this, &MainWindow::updateStatus);
  // Errors that an action let through reach the person as a message, never a crash.
  GuardedApplication::setReporter([window = QPointer<MainWindow>(this)](const QString& message) {
    if (window) window->reportError(tr("The action failed"), message);
  });
  connect(doc_, &Document::notificationFailed, this, [this](const QString& message) {
    reportError(tr("Could not show the change"), message);
  });
  connect(view_, &GraphView::statusMessage, this,
          [this](const QString& message) { statusBar()->showMessage(message, 6000); });
  connect(view_, &GraphView::selectionChanged, properties_, &PropertiesPanel::showSelection);
  connect(view_, &GraphView::selectionChanged, this, [this](const QList<ItemRef>& items) {
    // A node, or a collapsed group box (its output node).
    setOutputAction_->setEnabled(items.size() == 1);
  });
  connect(problems_, &ProblemsPanel::nodeActivated, this, [this](NodeId id) {
    view_->selectAndCenter(ItemRef{ItemRef::Kind::Node, id});
  });
  connect(view_, &GraphView::paletteItemDropped, palette_,
          [this](const QString& text, NodePosition at) { palette_->addFromMime(text, at); });
  connect(palette_, &PalettePanel::inserted, this, [this](const std::vector<NodeId>& ids) {
    if (!ids.empty()) view_->selectAndCenter(ItemRef{ItemRef::Kind::Node, ids.front()});
  });
  connect(layout_, &LayoutRunner::started, this, [this] {
    layoutProgress_->show();
    layoutCancel_->show();
    relayoutAction_->setEnabled(false);
  });
  connect(layout_, &LayoutRunner::finished, this, [this](bool applied, const QString& message) {
    layoutProgress_->hide();
    layoutCancel_->hide();
    relayoutAction_->setEnabled(true);
    statusBar()->showMessage(message, 4000);
    if (applied) view_->fitAll();
  });
  // An explicit minimum keeps Qt from raising the window's minimum to its content's and
  // so widening the window on its own (a long label, a wide plot); the content is kept
  // narrower than this (tests/studio/scenarios/window_width_scenario_test.cpp).
  setMinimumSize(kSmallestWindow);
  resize(1600, 1000);
  updateTitle();
  updateStatus();
  showStartPage();
}

MainWindow::~MainWindow() {
  layout_->cancel();
  // Views and panels observe the document: they must go before it (QObject would
  // delete the document first, being the older child).
  qDeleteAll(findChildren<QWidget*>(QString(), Qt::FindDirectChildrenOnly));
}

// ---- building the window -------------------------------------------------------

void MainWindow::buildViews() {
  views_ = new QTabWidget(this);
  views_->setObjectName(QStringLiteral("Views"));
  views_->setDocumentMode(true);
  graphPage_ = new QStackedWidget(views_);
  view_ = new GraphView(doc_, graphPage_);
  startPage_ = new StartPage(recent_, graphPage_);
  graphPage_->addWidget(view_);
  graphPage_->addWidget(startPage_);
  debranch_ = new DebranchView(doc_, views_);
  stepper_ = new StepperView(doc_, views_);
  trajectory_ = new TrajectoryView(doc_, views_);
  heatmap_ = new UaHeatmapView(doc_, views_);
  noise_ = new NoisePlotView(doc_, views_);
  models_ = new ModelTab(views_);
  // Views with many controls scroll rather than force the window wider than the screen.
  auto scrolling = [this](QWidget* view) {
    auto* area = new QScrollArea(views_);
    area->setWidget(view);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    // The page's own widgets take the focus (the Models tab's keys step the run); the
    // scroll area would keep it from a click on its margins.
    area->setFocusPolicy(Qt::NoFocus);
    return area;
  };
  views_->addTab(graphPage_, tr("Graph"));
  views_->addTab(scrolling(debranch_), tr("Debranching"));
  views_->addTab(scrolling(stepper_), tr("Token stepper"));
  views_->addTab(scrolling(trajectory_), tr("Trajectories"));
  views_->addTab(scrolling(heatmap_), tr("Approximation heat map"));
  views_->addTab(scrolling(noise_), tr("Noise robustness"));
  modelsPage_ = scrolling(models_);
  views_->addTab(modelsPage_, tr("Models"));
  setCentralWidget(views_);
  // The trajectory views follow the stepper's runs and its current token.
  connect(stepper_, &StepperView::seriesAvailable, trajectory_,
          [this] { trajectory_->setSeries(stepper_->stateSeries()); });
  connect(stepper_, &StepperView::currentStepChanged, trajectory_, &TrajectoryView::setCurrentStep);
  connect(trajectory_, &TrajectoryView::stepRequested, stepper_, &StepperView::goToStep);
}

QStringList MainWindow::viewNames() { return studioViewNames(); }

void MainWindow::buildActions() {
  auto make = [this](const QString& text, const QKeySequence& key, auto slot) {
    auto* action = new QAction(text, this);
    if (!key.isEmpty()) action->setShortcut(key);
    connect(action, &QAction::triggered, this, slot);
    return action;
  };
  newAction_ = make(tr("&New"), QKeySequence::New, [this] { newDocument(); });
  openAction_ = make(tr("&Open…"), QKeySequence::Open, [this] { openDialog(); });
  closeAction_ = make(tr("&Close"), QKeySequence::Close, [this] { closeDocument(); });
  startPageAction_ = make(tr("&Start Page"), QKeySequence(), [this] { showStartPage(); });
  saveAction_ = make(tr("&Save"), QKeySequence::Save, [this] { save(); });
  saveAsAction_ = make(tr("Save &As…"), QKeySequence::SaveAs, [this] { saveAs({}); });
  // Plain X11 (no desktop's key scheme) binds nothing to Save As: give it the usual key.
  if (!saveAsAction_->shortcuts().contains(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S)))
    saveAsAction_->setShortcuts(saveAsAction_->shortcuts()
                                << QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
  quitAction_ = make(tr("&Quit"), QKeySequence::Quit, [this] { close(); });
  undoAction_ = doc_->undoStack()->createUndoAction(this, tr("&Undo"));
  undoAction_->setShortcut(QKeySequence::Undo);
  // The menu says what would be undone; the toolbar button keeps a short label.
  undoAction_->setIconText(tr("Undo"));
  redoAction_ = doc_->undoStack()->createRedoAction(this, tr("&Redo"));
  redoAction_->setShortcuts({QKeySequence::Redo, QKeySequence(Qt::CTRL | Qt::Key_Y)});
  redoAction_->setIconText(tr("Redo"));
  // Editing keys act on the graph only while it has focus, so text fields keep theirs.
  auto viewAction = [this](QAction* action) {
    action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    view_->addAction(action);
    return action;
  };
  copyAction_ =
      viewAction(make(tr("&Copy"), QKeySequence::Copy, [this] { view_->copySelection(); }));
  pasteAction_ =
      viewAction(make(tr("&Paste"), QKeySequence::Paste, [this] { view_->pasteClipboard(); }));
  deleteAction_ =
      viewAction(make(tr("&Delete"), QKeySequence::Delete, [this] { view_->deleteSelection(); }));
  duplicateAction_ = viewAction(make(tr("D&uplicate"), QKeySequence(Qt::CTRL | Qt::Key_D),
                                     [this] { view_->duplicateSelection(); }));
  findAction_ = make(tr("&Find…"), QKeySequence::Find, [this] { search_->activate(); });
  // Zoom acts on the graph of the tab shown; the editor's outside the graph tabs.
  auto onShownGraph = [this](void (ZoomPanView::*zoomPan)(), void (GraphView::*editor)()) {
    return [this, zoomPan, editor] {
      if (ZoomPanView* shown = zoomViewOf(views_->currentWidget()))
        (shown->*zoomPan)();
      else
        (view_->*editor)();
    };
  };
  zoomInAction_ = make(tr("Zoom &In"), QKeySequence::ZoomIn,
                       onShownGraph(&ZoomPanView::zoomIn, &GraphView::zoomIn));
  zoomOutAction_ = make(tr("Zoom &Out"), QKeySequence::ZoomOut,
                        onShownGraph(&ZoomPanView::zoomOut, &GraphView::zoomOut));
  fitAction_ = make(tr("&Fit to Window"), QKeySequence(Qt::CTRL | Qt::Key_0),
                    onShownGraph(&ZoomPanView::fitAll, &GraphView::fitAll));
  relayoutAction_ =
      make(tr("Re-&layout"), QKeySequence(Qt::CTRL | Qt::Key_L), [this] { layout_->start(); });
  // Expanding or collapsing everything moves every box: dot lays the result out again, in
  // the same undo step.
  expandAllAction_ = make(tr("&Expand All Groups"), QKeySequence(), [this] {
    doc_->setAllGroupsExpanded(true);
    layout_->start(true, /*follows=*/true);
  });
  collapseAllAction_ = make(tr("&Collapse All Groups"), QKeySequence(), [this] {
    doc_->setAllGroupsExpanded(false);
    layout_->start(true, /*follows=*/true);
  });
  setOutputAction_ = make(tr("Set as &Output"), QKeySequence(), [this] {
    const auto items = view_->selectedItems();
    if (items.size() != 1) return;
    const ItemRef item = items.front();
    const Graph& g = doc_->graph();
    const NodeId id = item.kind == ItemRef::Kind::Node ? item.id
                      : g.containsGroup(item.id)       ? g.groups()[item.id].output
                                                       : kNoNode;
    if (g.contains(id)) doc_->setOutput(id);
  });
  setOutputAction_->setEnabled(false);
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(newAction_);
  file->addAction(openAction_);
  recentMenu_ = file->addMenu(tr("Open &Recent"));
  connect(recentMenu_, &QMenu::aboutToShow, this, [this] { recent_->populate(recentMenu_); });
  QMenu* examples = file->addMenu(tr("&Examples"));
  std::map<QString, QMenu*> submenus;
  for (const ExampleEntry& entry : exampleEntries()) {
    QMenu*& sub = submenus[entry.menu];
    if (sub == nullptr) sub = examples->addMenu(entry.menu);
    QAction* action = sub->addAction(entry.title);
    connect(action, &QAction::triggered, this, [this, &entry] {
      if (confirmDiscard()) openExample(entry);
    });
  }
  file->addAction(closeAction_);
  file->addSeparator();
  file->addAction(saveAction_);
  file->addAction(saveAsAction_);
  QMenu* exportMenu = file->addMenu(tr("&Export"));
  exportMenu->addAction(tr("Graph as &PNG…"), this, [this] { exportGraph(QStringLiteral("png")); });
  exportMenu->addAction(tr("Graph as &SVG…"), this, [this] { exportGraph(QStringLiteral("svg")); });
  exportMenu->addAction(tr("&Debranching frames…"), this, [this] { exportDebranchingFrames({}); });
  exportMenu->addAction(tr("Compiled &weights…"), this, [this] { exportWeightsDialog(); });
  file->addSeparator();
  file->addAction(quitAction_);

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  edit->addAction(undoAction_);
  edit->addAction(redoAction_);
  edit->addSeparator();
  edit->addAction(copyAction_);
  edit->addAction(pasteAction_);
  edit->addAction(deleteAction_);
  edit->addAction(duplicateAction_);
  edit->addSeparator();
  edit->addAction(setOutputAction_);
  edit->addAction(findAction_);

  viewMenu_ = menuBar()->addMenu(tr("&View"));
  viewMenu_->addAction(startPageAction_);
  viewMenu_->addSeparator();
  viewMenu_->addAction(zoomInAction_);
  viewMenu_->addAction(zoomOutAction_);
  viewMenu_->addAction(fitAction_);
  viewMenu_->addSeparator();
  viewMenu_->addAction(relayoutAction_);
  viewMenu_->addAction(expandAllAction_);
  viewMenu_->addAction(collapseAllAction_);
  viewMenu_->addSeparator();
  for (QDockWidget* dock : findChildren<QDockWidget*>())
    viewMenu_->addAction(dock->toggleViewAction());

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  QAction* docs =
      help->addAction(tr("&Documentation"), this, [this] { showSingleDialog<DocsViewer>(this); });
  docs->setShortcut(QKeySequence::HelpContents);
  help->addAction(tr("&Keyboard Shortcuts"), this,
                  [this] { showSingleDialog<ShortcutsDialog>(this); });
  help->addSeparator();
  help->addAction(tr("&About LSRL Studio"), this, [this] {
    QMessageBox::about(
        this, tr("About LSRL Studio"),
        tr("<b>LSRL Studio</b> %1<br>Write LSRL programs, compile them into recurrent "
           "networks step by step, and watch them compute.")
            .arg(QApplication::applicationVersion()));
  });
}

void MainWindow::buildDocks() {
  auto dock = [this](const QString& title, const QString& name, QWidget* widget,
                     Qt::DockWidgetArea area) {
    auto* d = new QDockWidget(title, this);
    d->setObjectName(name);
    d->setWidget(widget);
    addDockWidget(area, d);
    return d;
  };
  palette_ = new PalettePanel(
      doc_, [this] { return view_->placeForNewItem(); }, this);
  properties_ = new PropertiesPanel(doc_, this);
  problems_ = new ProblemsPanel(doc_, this);
  minimap_ = new Minimap(view_, this);
  dock(tr("Palette"), QStringLiteral("PaletteDock"), palette_, Qt::LeftDockWidgetArea);
  dock(tr("Properties"), QStringLiteral("PropertiesDock"), properties_, Qt::RightDockWidgetArea);
  dock(tr("Overview"), QStringLiteral("OverviewDock"), minimap_, Qt::RightDockWidgetArea);
  QDockWidget* problemsDock =
      dock(tr("Problems"), QStringLiteral("ProblemsDock"), problems_, Qt::BottomDockWidgetArea);
  // The Live panel under the editor, beside the problems: its token table wants the width.
  live_ = new LivePanel(doc_, this);
  QDockWidget* liveDock =
      dock(tr("Live"), QStringLiteral("LiveDock"), live_, Qt::BottomDockWidgetArea);
  splitDockWidget(problemsDock, liveDock, Qt::Horizontal);

  connect(live_, &LivePanel::compiled, debranch_, &DebranchView::offerCompile);
  connect(live_, &LivePanel::stepperRequested, this, [this](const ExactSequence& tokens) {
    stepper_->setTokens(tokens);
    views_->setCurrentIndex(static_cast<int>(viewNames().indexOf(QStringLiteral("stepper"))));
    stepper_->startRun();
  });
  connect(views_, &QTabWidget::currentChanged, this, &MainWindow::updateEditorDocks);
  connect(views_, &QTabWidget::currentChanged, this, &MainWindow::updateStatus);
  resizeDocks({findChild<QDockWidget*>(QStringLiteral("PaletteDock"))}, {210}, Qt::Horizontal);
  resizeDocks({findChild<QDockWidget*>(QStringLiteral("PropertiesDock"))}, {360}, Qt::Horizontal);
  resizeDocks({problemsDock}, {kBottomDockHeight}, Qt::Vertical);
}

void MainWindow::buildToolBar() {
  QToolBar* bar = addToolBar(tr("Main"));
  bar->setObjectName(QStringLiteral("MainToolBar"));
  bar->setMovable(false);
  for (QAction* a : {newAction_, openAction_, saveAction_}) bar->addAction(a);
  bar->addSeparator();
  for (QAction* a : {undoAction_, redoAction_}) bar->addAction(a);
  bar->addSeparator();
  for (QAction* a : {zoomInAction_, zoomOutAction_, fitAction_, relayoutAction_}) bar->addAction(a);
  bar->addSeparator();
  search_ = new SearchBar(doc_, view_, this);
  bar->addWidget(search_);
}

void MainWindow::buildStatusBar() {
  countsLabel_ = new QLabel(this);
  problemsLabel_ = new QLabel(this);
  layoutProgress_ = new QProgressBar(this);
  layoutProgress_->setRange(0, 0);  // dot reports no progress: a busy indicator
  layoutProgress_->setMaximumWidth(140);
  layoutProgress_->setFormat(tr("laying out…"));
  layoutProgress_->hide();
  layoutCancel_ = new QPushButton(tr("Cancel"), this);
  layoutCancel_->hide();
  connect(layoutCancel_, &QPushButton::clicked, layout_, &LayoutRunner::cancel);
  statusBar()->addPermanentWidget(layoutProgress_);
  statusBar()->addPermanentWidget(layoutCancel_);
  statusBar()->addPermanentWidget(problemsLabel_);
  statusBar()->addPermanentWidget(countsLabel_);
}

void MainWindow::updateTitle() {
  setWindowTitle(QStringLiteral("%1[*] — LSRL Studio").arg(doc_->displayName()));
  setWindowModified(doc_->isModified());
}

void MainWindow::updateStatus() {
  const Graph& g = doc_->graph();
  countsLabel_->setText(tr("%1 nodes · %2 groups · %3 shown")
                            .arg(g.liveNodeCount())
                            .arg(std::count_if(g.groups().begin(), g.groups().end(),
                                               [](const Group& gr) { return !gr.removed; }))
                            .arg(doc_->visible().items.size()) +
                        (doc_->visible().omittedItems > 0
                             ? tr(" · %1 not drawn").arg(doc_->visible().omittedItems)
                             : QString()));
  const size_t problems = doc_->problems().size();
  problemsLabel_->setText(problems == 0 ? tr("no problems") : tr("%1 problem(s)").arg(problems));
  problemsLabel_->setStyleSheet(
      problems == 0 ? QString() : QStringLiteral("color: #b00020; font-weight: bold"));
  // A new window's "problems" (no Input, no output) are not the person's doing, and the
  // Models tab shows seed models, not the program.
  const bool aboutTheProgram = !startPageShown() && views_->currentWidget() != modelsPage_;
  problemsLabel_->setVisible(aboutTheProgram);
  countsLabel_->setVisible(aboutTheProgram);
}

// ---- files -----------------------------------------------------------------------

void MainWindow::reportError(const QString& what, const QString& why) {
  lastError_ = what + QStringLiteral(": ") + why;
  statusBar()->showMessage(lastError_, 10000);
  if (options_.interactive) QMessageBox::critical(this, what, why);
}

void MainWindow::afterLoad() {
  showEditor();
  QStringList notes;
  const VisibleGraph& vg = doc_->visible();
  if (doc_->collapsedOnOpen()) notes << tr("groups collapsed to fit the drawing limits");
  if (vg.omittedItems > 0 || vg.omittedEdges > 0) {
    const DrawLimits limits;
    notes << tr("drawn: %1 of %2 boxes (in topological order) and %3 of %4 edges; the "
                "explorer draws up to %5 boxes, %6 edges and %7 edges into one box")
                 .arg(QString::fromStdString(withThousands(vg.items.size())),
                      QString::fromStdString(withThousands(vg.items.size() + vg.omittedItems)),
                      QString::fromStdString(withThousands(vg.edges.size())),
                      QString::fromStdString(withThousands(vg.edges.size() + vg.omittedEdges)),
                      QString::fromStdString(withThousands(limits.maxItems)),
                      QString::fromStdString(withThousands(limits.maxEdges)),
                      QString::fromStdString(withThousands(limits.maxEdgesIntoItem)));
  }
  const QString layoutNote = ensureLayout();
  if (!layoutNote.isEmpty()) notes << layoutNote;
  view_->fitAll();
  updateTitle();
  updateStatus();
  if (!notes.isEmpty()) {
    notes.front()[0] = notes.front()[0].toUpper();
    statusBar()->showMessage(notes.join(QStringLiteral("; ")));
  }
}

void MainWindow::newDocument() {
  if (!confirmDiscard()) return;
  doc_->newDocument();
  afterLoad();
}

// ---- the start page ------------------------------------------------------------

bool MainWindow::startPageShown() const { return graphPage_->currentWidget() == startPage_; }

bool MainWindow::documentUntouched() const {
  return doc_->graph().nodeCount() == 0 && !doc_->isModified() && doc_->filePath().isEmpty() &&
         doc_->sourcePath().isEmpty();
}

void MainWindow::showStartPage() {
  startPage_->setOpenDocument(documentUntouched() ? QString() : doc_->displayName());
  startPage_->refreshRecentFiles();
  graphPage_->setCurrentWidget(startPage_);
  views_->setCurrentWidget(graphPage_);
  updateEditorDocks();
  updateStatus();
  startPage_->focusFirstEntry();
}

void MainWindow::showEditor() {
  const bool fromStartPage = startPageShown();
  graphPage_->setCurrentWidget(view_);
  updateEditorDocks();
  updateStatus();
  if (fromStartPage && views_->currentWidget() == graphPage_) view_->setFocus();
}

void MainWindow::updateEditorDocks() {
  // The palette, properties and overview serve the graph editor: other views get the
  // room while they are shown. The start page hides Problems too (an untouched document
  // has nothing to fix), and so does the Models tab (seed models are not the program).
  // The docks come back as the person left them.
  const bool startPage = startPageShown();
  const bool editing = views_->currentWidget() == graphPage_ && !startPage;
  QStringList unwanted;
  if (!editing) {
    unwanted << QStringLiteral("PaletteDock") << QStringLiteral("PropertiesDock")
             << QStringLiteral("OverviewDock") << QStringLiteral("LiveDock");
  }
  if (startPage || views_->currentWidget() == modelsPage_)
    unwanted << QStringLiteral("ProblemsDock");
  for (QDockWidget* d : findChildren<QDockWidget*>()) {
    if (unwanted.contains(d->objectName())) {
      if (!d->isHidden() && !hiddenDocks_.contains(d)) {
        hiddenDocks_.append(d);
        d->hide();
      }
    } else if (hiddenDocks_.removeAll(d) > 0) {
      d->show();
    }
  }
  splitBottomDocksOnce();
}

void MainWindow::splitBottomDocksOnce() {
  auto* problems = findChild<QDockWidget*>(QStringLiteral("ProblemsDock"));
  auto* live = findChild<QDockWidget*>(QStringLiteral("LiveDock"));
  if (bottomSplit_ || !isVisible() || !problems || !live || !problems->isVisible() ||
      !live->isVisible())
    return;
  bottomSplit_ = true;
  // A third of the width for the problems, two thirds for Live's token table; once the
  // docks are laid out (a split of hidden docks does not take), and never again after.
  QTimer::singleShot(0, this, [this, problems, live] {
    resizeDocks({problems, live}, {width() / 3, 2 * width() / 3}, Qt::Horizontal);
  });
}

void MainWindow::openRecentFile(const QString& path) {
  if (!QFileInfo(path).isFile()) {
    // A moved or deleted file leaves the list rather than failing again next time.
    recent_->remove(path);
    startPage_->refreshRecentFiles();
    reportError(tr("%1 is no longer there").arg(QFileInfo(path).fileName()),
                tr("%1 was moved or deleted; it is removed from the recent files.")
                    .arg(QDir::toNativeSeparators(path)));
    return;
  }
  if (confirmDiscard()) openFile(path);
}

void MainWindow::closeDocument() {
  if (!confirmDiscard()) return;
  doc_->newDocument();
  showStartPage();
}

bool MainWindow::exportGraph(const QString& format, const QString& requested) {
  QString path = requested;
  if (path.isEmpty()) {
    if (!options_.interactive) return false;
    const QString suggested = QFileInfo(doc_->displayName()).completeBaseName();
    path = askSavePath(
        this, tr("Export graph"),
        {format == QLatin1String("svg") ? tr("SVG (*.svg)") : tr("PNG (*.png)"), format},
        suggested);
    if (path.isEmpty()) return false;
  }
  path = withSuffix(path, format);
  try {
    if (format == QLatin1String("svg")) {
      exportGraphSvg(view_->graphScene(), path, doc_->displayName());
    } else {
      exportGraphPng(view_->graphScene(), path);
    }
  } catch (const std::exception& e) {
    reportError(tr("Could not export %1").arg(QFileInfo(path).fileName()),
                QString::fromUtf8(e.what()));
    return false;
  }
  confirmWritten(this, tr("Exported %1").arg(QDir::toNativeSeparators(path)));
  return true;
}

bool MainWindow::exportDebranchingFrames(const QString& requested) {
  if (!debranch_->hasCompile()) {
    reportError(tr("Nothing to export"), tr("Compile the program in the Debranching view first."));
    return false;
  }
  QString dir = requested;
  if (dir.isEmpty()) {
    if (!options_.interactive) return false;
    dir = askFolder(this, tr("Folder for the frames"));
    if (dir.isEmpty()) return false;
  }
  const int steps = debranch_->stepCount();
  const FrameRange range{0, -1, frameStride(steps)};
  const int total = static_cast<int>(frameSteps(range.first, steps, range.every).size());
  QProgressDialog progress(tr("Writing frames…"), tr("Cancel"), 0, total, this);
  progress.setWindowModality(Qt::WindowModal);
  progress.setMinimumDuration(500);
  QStringList written;
  try {
    written = exportDebranchFrames(*debranch_, dir, range, [&](int done, int /*total*/) {
      progress.setValue(done);
      return !progress.wasCanceled();
    });
  } catch (const std::exception& e) {
    reportError(tr("Could not export the frames"), QString::fromUtf8(e.what()));
    return false;
  }
  // Say it is done and where: a long export otherwise ends without a word.
  const QString where = QDir::toNativeSeparators(dir);
  const QString message =
      written.size() == total
          ? tr("Wrote %1 frames (one per %2 steps from 0 to %3, the last included) to %4.")
                .arg(total)
                .arg(range.every)
                .arg(steps)
                .arg(where)
          : tr("Export cancelled: wrote %1 of %2 frames to %3.")
                .arg(written.size())
                .arg(total)
                .arg(where);
  confirmWritten(this, message);
  if (options_.interactive) QMessageBox::information(this, tr("Debranching frames"), message);
  return true;
}

void MainWindow::exportWeightsDialog() {
  QDialog dialog(this);
  dialog.setWindowTitle(tr("Export compiled weights"));
  auto* form = new QFormLayout(&dialog);
  auto* target = new QComboBox(&dialog);
  for (Target t : allTargets())
    target->addItem(QString::fromUtf8(targetName(t).data()), static_cast<int>(t));
  auto* backend = new QComboBox(&dialog);
  backend->addItems({tr("exact"), tr("float64")});
  auto* optimize = new QCheckBox(tr("size optimisation (O1 compact)"), &dialog);
  optimize->setChecked(true);
  form->addRow(tr("Architecture"), target);
  form->addRow(tr("Compile"), backend);
  form->addRow(QString(), optimize);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
  form->addRow(buttons);
  connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  if (dialog.exec() != QDialog::Accepted) return;
  const QString path =
      askSavePath(this, tr("Export compiled weights"),
                  {tr("safetensors (*.safetensors);;NumPy (*.npz)"), QStringLiteral("safetensors")},
                  QFileInfo(doc_->displayName()).completeBaseName());
  if (path.isEmpty()) return;
  WeightsExportRequest request;
  request.target = static_cast<Target>(target->currentData().toInt());
  request.backend = backend->currentIndex() == 0 ? Backend::Exact : Backend::Float64;
  request.optimize = optimize->isChecked();
  request.path = path.toStdString();
  exportWeights(request);
}

bool MainWindow::exportWeights(WeightsExportRequest request) {
  if (request.sourceName.empty()) request.sourceName = doc_->displayName().toStdString();
  // The compile runs on a worker thread; a busy dialog with Cancel keeps the UI live.
  auto cancelled = std::make_shared<std::atomic<bool>>(false);
  // Exceptions do not cross QtConcurrent intact (only QException does): the worker
  // returns the error text instead.
  struct Outcome {
    WeightsExportSummary summary;
    std::string error;
  };
  QFuture<Outcome> future = QtConcurrent::run([program = doc_->graph(), request, cancelled] {
    Outcome outcome;
    try {
      outcome.summary =
          exportCompiledWeights(program, request, [cancelled] { return cancelled->load(); });
    } catch (const std::exception& e) {
      outcome.error = e.what();
    }
    return outcome;
  });
  QProgressDialog progress(tr("Compiling and writing the weights…"), tr("Cancel"), 0, 0, this);
  progress.setWindowModality(Qt::WindowModal);
  progress.setMinimumDuration(300);
  while (!future.isFinished()) {
    QApplication::processEvents(QEventLoop::AllEvents, 30);
    if (progress.wasCanceled()) cancelled->store(true);
  }
  progress.reset();
  const QString file = QString::fromStdString(request.path);
  const Outcome outcome = future.result();
  if (!outcome.error.empty()) {
    reportError(tr("Could not export %1").arg(QFileInfo(file).fileName()),
                QString::fromStdString(outcome.error));
    return false;
  }
  confirmWritten(
      this, tr("Wrote %1 (%2, %3 tensors, %4 values)")
                .arg(QDir::toNativeSeparators(file), QString::fromStdString(outcome.summary.format))
                .arg(outcome.summary.tensors)
                .arg(outcome.summary.values));
  return true;
}

void MainWindow::openDialog() {
  if (!confirmDiscard()) return;
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open LSRL graph"), QString(), kFileFilter);
  if (!path.isEmpty()) openFile(path);
}

bool MainWindow::openFile(const QString& path) {
  try {
    doc_->openFile(path);
  } catch (const std::exception& e) {
    reportError(tr("Could not open %1").arg(QFileInfo(path).fileName()),
                QString::fromUtf8(e.what()));
    return false;
  }
  recent_->add(path);
  afterLoad();
  return true;
}

bool MainWindow::openExample(const ExampleEntry& entry) {
  try {
    BuiltExample example = buildExample(entry);
    doc_->setGraph(std::move(example.graph), std::move(example.metadata), entry.title);
  } catch (const std::exception& e) {
    reportError(tr("Could not build %1").arg(entry.title), QString::fromUtf8(e.what()));
    return false;
  }
  afterLoad();
  return true;
}

bool MainWindow::save() {
  if (doc_->filePath().isEmpty()) return saveAs({});
  return saveAs(doc_->filePath());
}

bool MainWindow::saveAs(const QString& requested) {
  QString path = requested;
  if (path.isEmpty()) {
    if (!options_.interactive) return false;
    path = askSavePath(this, tr("Save LSRL graph"),
                       {tr("LSRL graphs (*.json)"), QStringLiteral("json")},
                       QFileInfo(doc_->displayName()).completeBaseName());
    if (path.isEmpty()) return false;
  }
  path = withSuffix(path, QStringLiteral("json"));
  try {
    doc_->saveTo(path);
  } catch (const std::exception& e) {
    reportError(tr("Could not save %1").arg(QFileInfo(path).fileName()),
                QString::fromUtf8(e.what()));
    return false;
  }
  recent_->add(path);
  if (autosave_ != nullptr) autosave_->saveNow();  // clean now: removes the recovery file
  confirmWritten(this, tr("Saved %1").arg(QDir::toNativeSeparators(path)));
  return true;
}

bool MainWindow::offerRecovery(bool restoreNewest) {
  const auto entries = Autosave::findRecoverable(options_.recoveryDir);
  if (entries.empty()) return false;
  const RecoveryEntry& newest = entries.front();
  if (!restoreNewest) {
    if (!options_.interactive) return false;
    QMessageBox box(
        QMessageBox::Question, tr("Recover unsaved work?"),
        tr("LSRL Studio did not close normally. Unsaved work on <b>%1</b> from %2 "
           "can be restored.")
            .arg(newest.title.toHtmlEscaped(), QLocale().toString(newest.savedAt.toLocalTime())),
        QMessageBox::NoButton, this);
    QPushButton* restore = box.addButton(tr("Restore"), QMessageBox::AcceptRole);
    QPushButton* discard = box.addButton(tr("Discard"), QMessageBox::DestructiveRole);
    box.addButton(tr("Later"), QMessageBox::RejectRole);
    box.exec();
    if (box.clickedButton() == discard) Autosave::discard(newest);
    if (box.clickedButton() != restore) return false;
  }
  try {
    Autosave::restore(newest, doc_);
  } catch (const std::exception& e) {
    reportError(tr("Could not recover %1").arg(newest.title), QString::fromUtf8(e.what()));
    return false;
  }
  afterLoad();
  statusBar()->showMessage(tr("Recovered unsaved work on %1").arg(newest.title), 8000);
  return true;
}

bool MainWindow::confirmDiscard() {
  if (!doc_->isModified()) return true;
  if (!options_.interactive) return false;
  const auto answer = QMessageBox::warning(
      this, tr("Unsaved changes"),
      tr("%1 has unsaved changes. Save them?").arg(doc_->displayName()),
      QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
  if (answer == QMessageBox::Save) return save();
  return answer == QMessageBox::Discard;
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  if (shownOnce_) return;
  shownOnce_ = true;
  QTimer::singleShot(0, view_, &GraphView::fitAll);
  splitBottomDocksOnce();
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!options_.interactive || confirmDiscard()) {
    layout_->cancel();
    event->accept();
  } else {
    event->ignore();
  }
}

QString MainWindow::ensureLayout() {
  const VisibleGraph& vg = doc_->visible();
  std::vector<NodeId> unplacedNodes;
  size_t unplacedGroups = 0;
  for (const VisibleItem& item : vg.items) {
    const bool isNode = item.kind == VisibleItem::Kind::Node;
    if (doc_->position(ItemRef{isNode ? ItemRef::Kind::Node : ItemRef::Kind::Group, item.id}))
      continue;
    if (isNode) {
      unplacedNodes.push_back(item.id);
    } else {
      ++unplacedGroups;
    }
  }
  const size_t unplaced = unplacedNodes.size() + unplacedGroups;
  if (unplaced == 0) return {};
  // A few new nodes are placed beside their neighbours at once; a graph without a layout
  // (or with group boxes whose members were never placed) gets the full dot layout in
  // the worker, after a quick layered placement so that something shows meanwhile.
  if (unplacedGroups == 0 && unplaced <= kQuickPlacementLimit && unplaced < vg.items.size()) {
    doc_->placeWithoutUndo(placeNewNodes(doc_->graph(), unplacedNodes, view_->viewCentre()), {});
    return {};
  }
  const LayoutResult layers = layeredLayout(doc_->graph());
  doc_->placeWithoutUndo(layers.nodes, layers.groups);
  if (vg.omittedItems == 0 && vg.omittedEdges == 0 && dotFits(vg)) {
    layout_->start(/*undoable=*/false);
    return {};
  }
  return QString::fromStdString(tooBigForDotNote(visibleGraph(doc_->graph())));
}

bool MainWindow::reloadPythonSource() {
  if (doc_->sourcePath().isEmpty()) return false;
  if (doc_->isModified() && options_.interactive) {
    const auto answer =
        QMessageBox::question(this, tr("Program changed on disk"),
                              tr("%1 changed on disk. Reload it and lose the edits made here?")
                                  .arg(QFileInfo(doc_->sourcePath()).fileName()));
    if (answer != QMessageBox::Yes) return false;
  }
  try {
    doc_->reloadSource();
  } catch (const std::exception& e) {
    reportError(tr("Could not reload %1").arg(QFileInfo(doc_->sourcePath()).fileName()),
                QString::fromUtf8(e.what()));
    return false;
  }
  afterLoad();
  statusBar()->showMessage(
      tr("Reloaded %1 (it changed on disk)").arg(QFileInfo(doc_->sourcePath()).fileName()), 5000);
  return true;
}

void MainWindow::showModelsTab() { views_->setCurrentWidget(modelsPage_); }

QString MainWindow::runModel(const QString& kind, const QString& task) {
  if (!models_->zoo()->setKind(kind)) {
    return tr("there is no model '%1' (models: %2)").arg(kind, QString::fromStdString([] {
                                                           std::string all;
                                                           for (const std::string& k :
                                                                seed_models::seedModelKinds())
                                                             all += (all.empty() ? "" : ", ") + k;
                                                           return all;
                                                         }()));
  }
  if (!task.isEmpty() && !models_->zoo()->setTask(task))
    return tr("the model '%1' has no task '%2'").arg(kind, task);
  models_->startRun();
  if (!models_->waitForRun()) return tr("the model run did not finish in time");
  return models_->lastError();
}

QString MainWindow::showView(const QString& name, int step) {
  if (studioModelViewNames().contains(name)) {
    views_->setCurrentWidget(modelsPage_);
    const auto run = models_->run();
    if (!run) return tr("no model has run: use --model NAME");
    const QString drawn = QString::fromStdString(modelViewName(run->kind));
    if (drawn != name) {
      return tr("the %1 view does not draw a %2 run (its view is %3)")
          .arg(name, QString::fromStdString(run->kind), drawn);
    }
    if (step >= 0 && !models_->showStep(step)) {
      return tr("the run has %1 steps 0..%2, not %3")
          .arg(QString::fromUtf8(modelStepName(run->kind)))
          .arg(models_->stepBar()->count() - 1)
          .arg(step);
    }
    return {};
  }
  const int index = static_cast<int>(viewNames().indexOf(name));
  if (index < 0)
    return tr("there is no view '%1' (views: %2)")
        .arg(name, viewNames().join(QStringLiteral(", ")));
  views_->setCurrentIndex(index);
  if (name == QLatin1String("debranch")) {
    if (!debranch_->hasCompile() && !debranch_->compileAndWait()) return debranch_->statusText();
    if (step >= 0 && !debranch_->showStep(step)) {
      return tr("the compile has steps 0..%1, not %2").arg(debranch_->stepCount()).arg(step);
    }
  } else if (name == QLatin1String("stepper") || name == QLatin1String("trajectory")) {
    if (!stepper_->showStep(std::max(step, 0))) {
      return stepper_->lastError().isEmpty() ? tr("the run has token steps 0..%1, not %2")
                                                   .arg(stepper_->stepCount() - 1)
                                                   .arg(step)
                                             : stepper_->lastError();
    }
  } else if (name == QLatin1String("heatmap")) {
    if (heatmap_->result() == nullptr) {
      heatmap_->start();
      heatmap_->waitForFinished();
      if (heatmap_->result() == nullptr) return tr("the heat map could not be computed");
    }
  } else if (name == QLatin1String("graph")) {
    view_->setFocus();
  }
  return {};
}

}  // namespace lsrl::studio
