// LSRL Studio's main window: the node editor in the centre (the start page while nothing
// is open), the palette (left), properties and overview (right) and problems (bottom) in
// docks, menus, a toolbar with search, the status bar, and the file life cycle (open,
// save, recent files, examples, autosave and crash recovery, the unsaved-changes prompt
// on close).
#pragma once

#include <QMainWindow>
#include <QString>

#include "app/studio/document/document.h"
#include "app/studio/window/weights_export.h"

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QStackedWidget;
class QTabWidget;

namespace lsrl::studio {

class Autosave;
class DebranchView;
class GraphView;
class NoisePlotView;
class StepperView;
class TrajectoryView;
class UaHeatmapView;
class LayoutRunner;
class LivePanel;
class ModelTab;
class Minimap;
class PalettePanel;
class ProblemsPanel;
class PropertiesPanel;
class RecentFiles;
class SearchBar;
class SourceWatcher;
class StartPage;
struct ExampleEntry;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  struct Options {
    bool interactive = true;  // false: errors go to lastError() and the status bar, no dialogs
    bool autosave = true;
    QString recoveryDir;  // empty: Autosave::defaultRecoveryDir()
  };
  explicit MainWindow(Options options, QWidget* parent = nullptr);
  MainWindow() : MainWindow(Options{}) {}
  ~MainWindow() override;

  Document* document() { return doc_; }
  GraphView* graphView() { return view_; }
  Minimap* minimap() { return minimap_; }
  PropertiesPanel* propertiesPanel() { return properties_; }
  PalettePanel* palettePanel() { return palette_; }
  ProblemsPanel* problemsPanel() { return problems_; }
  LivePanel* livePanel() { return live_; }
  LayoutRunner* layoutRunner() { return layout_; }
  Autosave* autosave() { return autosave_; }
  QString lastError() const { return lastError_; }

  // File operations; each returns whether it succeeded (errors are shown or recorded).
  bool openFile(const QString& path);
  bool openExample(const ExampleEntry& entry);
  bool save();
  bool saveAs(const QString& path);  // empty path: ask (interactive only)
  // The whole graph drawing as "png" or "svg" (File > Export); empty path: ask.
  bool exportGraph(const QString& format, const QString& path = {});
  // The Debranching view's compile as numbered PNG frames in a folder (at most ~600
  // frames: a stride over long compiles); empty folder: ask.
  bool exportDebranchingFrames(const QString& dir);
  // Compiles the program and writes a target architecture's weights (worker thread,
  // Cancel); errors are reported. exportWeightsDialog asks for the target and the file.
  bool exportWeights(WeightsExportRequest request);
  void exportWeightsDialog();
  // Offers recovery files left by crashed sessions (interactive) or restores the newest
  // one (non-interactive callers pass restoreNewest = true). Returns whether one was restored.
  bool offerRecovery(bool restoreNewest = false);
  // If there are unsaved changes: asks Save / Discard / Cancel. True if it may proceed.
  bool confirmDiscard();
  // Lays out items without a position: dot in the worker for whole new graphs, the
  // quick placement for a few.
  // Places a file's unplaced items: returns why dot was not used, if it was not.
  QString ensureLayout();
  // Shows the named view: "graph", "debranch", "stepper", "trajectory", "heatmap",
  // "noise", or a Models tab view ("lattice", "gateloop", "gates", "looped": the view of
  // the run there, at token or loop `step`). With step >= 0, the player compiles (exact) and shows
  // step `step`, the stepper runs and shows token step `step`, the trajectory views mark it.
  // Returns an empty string on success, else what went wrong.
  QString showView(const QString& name, int step = -1);
  static QStringList viewNames();
  DebranchView* debranchView() { return debranch_; }
  StepperView* stepperView() { return stepper_; }
  TrajectoryView* trajectoryView() { return trajectory_; }
  UaHeatmapView* heatmapView() { return heatmap_; }
  NoisePlotView* noiseView() { return noise_; }
  ModelTab* modelTab() { return models_; }
  void showModelsTab();
  // Runs the document's Python program again (it changed on disk). With unsaved edits an
  // interactive window asks first. Returns whether the graph was replaced.
  bool reloadPythonSource();
  // Runs a seed model in the Models tab and waits for it (--model); empty or the error.
  QString runModel(const QString& kind, const QString& task = {});
  // The start page (start_page.h) in the Graph tab instead of the editor: a new window
  // shows it until a program is opened or started; View > Start Page and File > Close
  // show it again. The editor's docks and the status bar's counts hide meanwhile.
  StartPage* startPage() { return startPage_; }
  bool startPageShown() const;
  void showStartPage();

 protected:
  void closeEvent(QCloseEvent* event) override;
  // The first show fits the graph again: a file opened before the window had its size
  // was fitted into a default-sized view (a speck in the middle).
  void showEvent(QShowEvent* event) override;

 private:
  void buildActions();
  void buildMenus();
  void buildDocks();
  void buildViews();
  void buildToolBar();
  void buildStatusBar();
  void updateTitle();
  void updateStatus();
  void reportError(const QString& what, const QString& why);
  void afterLoad();
  void openDialog();
  void newDocument();
  void showEditor();
  void updateEditorDocks();
  // Problems and Live share the bottom: the first time both show, Live gets two thirds.
  void splitBottomDocksOnce();
  // No file, no program, no edits: what a new window holds.
  bool documentUntouched() const;
  // Opens a recent file; one that is gone is reported and dropped from the list.
  void openRecentFile(const QString& path);
  void closeDocument();

  Options options_;
  Document* doc_;
  QTabWidget* views_ = nullptr;
  QStackedWidget* graphPage_ = nullptr;  // the Graph tab: view_ or startPage_
  GraphView* view_ = nullptr;
  StartPage* startPage_ = nullptr;
  DebranchView* debranch_ = nullptr;
  StepperView* stepper_ = nullptr;
  TrajectoryView* trajectory_ = nullptr;
  UaHeatmapView* heatmap_ = nullptr;
  NoisePlotView* noise_ = nullptr;
  ModelTab* models_ = nullptr;
  QWidget* modelsPage_ = nullptr;  // the Models tab's page: models_ in a scroll area
  Minimap* minimap_ = nullptr;
  SearchBar* search_ = nullptr;
  PropertiesPanel* properties_ = nullptr;
  PalettePanel* palette_ = nullptr;
  ProblemsPanel* problems_ = nullptr;
  LivePanel* live_ = nullptr;
  RecentFiles* recent_ = nullptr;
  Autosave* autosave_ = nullptr;
  LayoutRunner* layout_ = nullptr;
  SourceWatcher* sourceWatcher_ = nullptr;
  QMenu* recentMenu_ = nullptr;
  QMenu* viewMenu_ = nullptr;
  QLabel* countsLabel_ = nullptr;
  QLabel* problemsLabel_ = nullptr;
  QProgressBar* layoutProgress_ = nullptr;
  QPushButton* layoutCancel_ = nullptr;
  QString lastError_;
  bool shownOnce_ = false;
  bool bottomSplit_ = false;
  // Docks the window hid (another view or the start page is shown), to show again.
  QList<QDockWidget*> hiddenDocks_;

  QAction* newAction_ = nullptr;
  QAction* openAction_ = nullptr;
  QAction* closeAction_ = nullptr;
  QAction* startPageAction_ = nullptr;
  QAction* saveAction_ = nullptr;
  QAction* saveAsAction_ = nullptr;
  QAction* quitAction_ = nullptr;
  QAction* undoAction_ = nullptr;
  QAction* redoAction_ = nullptr;
  QAction* copyAction_ = nullptr;
  QAction* pasteAction_ = nullptr;
  QAction* deleteAction_ = nullptr;
  QAction* duplicateAction_ = nullptr;
  QAction* findAction_ = nullptr;
  QAction* zoomInAction_ = nullptr;
  QAction* zoomOutAction_ = nullptr;
  QAction* fitAction_ = nullptr;
  QAction* relayoutAction_ = nullptr;
  QAction* expandAllAction_ = nullptr;
  QAction* collapseAllAction_ = nullptr;
  QAction* setOutputAction_ = nullptr;
};

}  // namespace lsrl::studio
