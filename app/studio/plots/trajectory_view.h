// Trajectory views of the open document's run: the state series the
// token stepper records, as (1) lines of chosen components over the steps, (2) a heat
// map components x steps, (3) the PCA projection in 2D and (4) in 3D. Every tab marks
// the stepper's current step; every tab exports (PNG/SVG/CSV). The view owns no run:
// the stepper hands it series (setSeries) and steps (setCurrentStep).
#pragma once

#include <QFutureWatcher>
#include <QPointer>
#include <QWidget>
#include <cstdint>
#include <vector>

#include "app/studio/plots/pca.h"
#include "app/studio/plots/state_series.h"

class QComboBox;
class QLabel;
class QTabWidget;
class QCheckBox;
class QToolButton;

namespace lsrl::studio {

class Document;
class HeatmapWidget;
class Pca2dPanel;
class Pca3dPanel;
class TrajectoryLinesPanel;

class TrajectoryView : public QWidget {
  Q_OBJECT

 public:
  enum Tab { Lines = 0, Heatmap = 1, Pca2d = 2, Pca3d = 3 };

  // Trajectories with more steps and components than this get their PCA on a worker.
  static constexpr int kSyncPcaSize = 300;

  TrajectoryView(Document* doc, QWidget* parent = nullptr);
  ~TrajectoryView() override;

  const std::vector<StateSeries>& series() const { return series_; }
  int currentSeries() const;
  int currentStep() const { return step_; }
  // The current series' PCA (empty while a worker computes it: see pcaReady).
  const PcaResult& pca() const { return pca_; }
  bool isComputingPca() const;

  TrajectoryLinesPanel* linesPanel() const { return lines_; }
  HeatmapWidget* heatmap() const { return heatmap_; }
  Pca2dPanel* pca2dPanel() const { return pca2d_; }
  Pca3dPanel* pca3dPanel() const { return pca3d_; }
  QTabWidget* tabs() const { return tabs_; }
  // The heat map scales each row to its own largest |value| (compiled states mix 1e10
  // flags with small program values).
  void setRowsScaled(bool on);

  // Exports of the current series; throw lsrl::Error naming the path.
  void exportLinesSvg(const QString& path) const;
  void exportLinesPng(const QString& path) const;
  void exportPca2dSvg(const QString& path) const;
  void exportPca2dPng(const QString& path) const;
  void exportHeatmapPng(const QString& path) const;
  void exportSeriesCsv(const QString& path) const;
  // The 3D view as PNG and its points as CSV beside it (<path without .png>.csv).
  void export3dPng(const QString& path);

  // For --screenshot --view trajectory --step N: shows `tab` at `step`, lays the view out
  // at `size` and saves a PNG. False with *error set on failure.
  bool renderState(int step, const QString& pngPath, QString* error = nullptr, Tab tab = Lines,
                   QSize size = {1000, 640});

 public Q_SLOTS:
  // Replaces the plotted series (the stepper's latest run); keeps the chosen series by
  // title when it is still there.
  void setSeries(std::vector<StateSeries> series);
  void setCurrentSeries(int index);
  void setCurrentStep(int step);

 Q_SIGNALS:
  // The user picked a step in a plot (a heat map column): the stepper may go there.
  void stepRequested(int step);
  // The PCA tabs show the current series' projection.
  void pcaReady();

 private:
  void showCurrentSeries();
  void exportFromMenu(const QString& kind);
  void showPca(PcaResult pca, const QString& title);

  Document* doc_;
  std::vector<StateSeries> series_;
  int step_ = 0;
  PcaResult pca_;
  uint64_t pcaRequest_ = 0;
  std::vector<QPointer<QFutureWatcher<PcaResult>>> pcaWatchers_;
  QComboBox* seriesBox_;
  QToolButton* exportButton_;
  QCheckBox* scaleRows_;
  QLabel* emptyNote_;
  QTabWidget* tabs_;
  TrajectoryLinesPanel* lines_;
  HeatmapWidget* heatmap_;
  Pca2dPanel* pca2d_;
  Pca3dPanel* pca3d_;
};

}  // namespace lsrl::studio
