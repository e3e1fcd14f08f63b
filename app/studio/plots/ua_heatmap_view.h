// The universal-approximation picture as a view: choose N, the
// conditional variant and a target function; the vec2vec program (n = 2, m = 1) runs
// over a grid of queries on a worker thread (progress, cancel) and three heat maps show
// the model's output, the target and their difference. It builds its own program, so
// it does not depend on the open document.
#pragma once

#include <QFutureWatcher>
#include <QWidget>
#include <atomic>
#include <memory>
#include <optional>

#include "app/studio/plots/ua_heatmap.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QToolButton;

namespace lsrl::studio {

class Document;
class HeatmapWidget;

class UaHeatmapView : public QWidget {
  Q_OBJECT

 public:
  UaHeatmapView(Document* doc, QWidget* parent = nullptr);
  ~UaHeatmapView() override;

  void setRequest(const UaHeatmapRequest& request);  // fills the controls
  UaHeatmapRequest request() const;                  // from the controls
  bool isRunning() const { return watcher_.isRunning(); }
  void waitForFinished();  // blocks and delivers finished() (tests, screenshots)
  const UaHeatmapResult* result() const { return result_ ? &*result_ : nullptr; }

  HeatmapWidget* modelMap() const { return model_; }
  HeatmapWidget* targetMap() const { return target_; }
  HeatmapWidget* differenceMap() const { return difference_; }

  // The three maps side by side as PNG; the grid as CSV (x,y,model,target,difference,
  // expected,valid). Throw lsrl::Error naming the path.
  void exportPng(const QString& path);
  void exportCsv(const QString& path) const;

  // For --screenshot --view heatmap: computes (blocking) unless the result of the
  // controls' request is there, then saves the view as a PNG. False with *error set on failure.
  bool renderState(const QString& pngPath, QString* error = nullptr, QSize size = {1200, 520});

 public Q_SLOTS:
  void start();
  void cancel();

 Q_SIGNALS:
  void started();
  // ok false: cancelled or failed (message says why).
  void finished(bool ok, const QString& message);

 private:
  struct Outcome {
    std::optional<UaHeatmapResult> result;
    QString error;
    bool cancelled = false;
  };
  void onFinished();
  void showResult();

  QSpinBox* cells_;
  QComboBox* variant_;
  QComboBox* targetBox_;
  QSpinBox* grid_;
  QComboBox* run_;
  QCheckBox* exact_;
  QPushButton* computeButton_;
  QPushButton* cancelButton_;
  QToolButton* exportButton_;
  QProgressBar* progress_;
  QLabel* status_;
  QWidget* maps_;
  HeatmapWidget* model_;
  HeatmapWidget* target_;
  HeatmapWidget* difference_;
  QFutureWatcher<Outcome> watcher_;
  std::shared_ptr<std::atomic<bool>> cancelFlag_;
  std::optional<UaHeatmapResult> result_;
};

}  // namespace lsrl::studio
