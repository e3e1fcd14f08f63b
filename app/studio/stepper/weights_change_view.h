// What training moved: a fine-tuned weights file against the weights it started from
// (rebuilt from the open program as the file records, or another weights file chosen by
// the person), one row per tensor (‖W0‖, ‖ΔW‖, relative change, max |Δ|, entries changed;
// sortable, the biggest ‖ΔW‖ first) and the selected tensor's ΔW as a heat map. The base is
// rebuilt and compared on a worker thread (weights_change.h), with Cancel.
#pragma once

#include <QDialog>
#include <QFutureWatcher>
#include <atomic>
#include <memory>

#include "app/studio/stepper/weights_change.h"
#include "core/graph/graph.h"

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QStandardItemModel;
class QTableView;

namespace lsrl::studio {

class ElidedLabel;
class HeatmapWidget;

class WeightsChangeView : public QDialog {
  Q_OBJECT

 public:
  // `program`: the open program (a copy), to rebuild the base from; `programHashes`: the
  // hashes it answers to (opened_weights.h), for the file's source.
  WeightsChangeView(Graph program, std::vector<std::string> programHashes, const QString& tunedPath,
                    QWidget* parent = nullptr);
  ~WeightsChangeView() override;

  QString tunedPath() const { return tunedPath_; }
  // Compares against `basePath`, or (empty) the base rebuilt from the program; in the
  // background.
  void setBaseFile(const QString& basePath);
  bool isMeasuring() const;
  // Blocks (processing events) until the comparison ends; false on timeout (tests).
  bool waitForMeasure(int timeoutMs = 120000);
  // The last result; null before one, or after an error.
  const WeightsChange* change() const { return change_.get(); }
  QString statusText() const;
  QTableView* table() const { return table_; }
  HeatmapWidget* heatmap() const { return heatmap_; }

 private:
  struct Outcome;
  void measure();
  void onMeasured();
  void fillTable();
  void showSelectedTensor();
  void chooseBase(int index);

  Graph program_;
  std::vector<std::string> programHashes_;
  QString tunedPath_;
  QString basePath_;
  QComboBox* baseBox_;
  ElidedLabel* baseName_;
  QLabel* status_;
  QProgressBar* busy_;
  QPushButton* cancel_;
  QStandardItemModel* model_;
  QSortFilterProxyModel* sorted_;
  QTableView* table_;
  QLabel* tensorCaption_;
  HeatmapWidget* heatmap_;
  QFutureWatcher<std::shared_ptr<Outcome>> watcher_;
  std::shared_ptr<std::atomic<bool>> cancelFlag_;
  std::shared_ptr<const WeightsChange> change_;
  bool measureAgain_ = false;  // asked while one ran: start once it stops
};

}  // namespace lsrl::studio
