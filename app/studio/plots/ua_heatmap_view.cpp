#include "app/studio/plots/ua_heatmap_view.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QProgressBar>
#include <QPromise>
#include <QPushButton>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

#include "app/studio/common/file_dialogs.h"
#include "app/studio/plots/chart_export.h"
#include "app/studio/plots/heatmap_widget.h"
#include "core/experiments/noise_plot.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace lsrl::studio {

UaHeatmapView::UaHeatmapView(Document*, QWidget* parent)
    : QWidget(parent), cancelFlag_(std::make_shared<std::atomic<bool>>(false)) {
  cells_ = new QSpinBox;
  cells_->setRange(1, 64);
  cells_->setToolTip(tr("N: cells per axis in the prompt (N² prompt tokens)"));
  variant_ = new QComboBox;
  for (Conditional c : allConditionals())
    variant_->addItem(QString::fromUtf8(conditionalName(c).data()));
  targetBox_ = new QComboBox;
  for (const UaTarget& t : uaTargets()) targetBox_->addItem(QString::fromStdString(t.formula));
  grid_ = new QSpinBox;
  grid_->setRange(2, 400);
  grid_->setToolTip(tr("Queries per axis"));
  run_ = new QComboBox;
  run_->addItems({tr("program"), tr("compiled, fp32: constants as built"),
                  tr("compiled, fp32: constants fitted")});
  run_->setToolTip(
      tr("The program itself (float64, or exact), or its compile run in fp32 on the CPU batch "
         "runner, as exported weights run in PyTorch or on a GPU: with the paper's constants, "
         "or with the constants fitted for fp32 (lsrl compile --precision fp32, "
         "docs/precision.md)"));
  exact_ = new QCheckBox(tr("exact"));
  exact_->setToolTip(
      tr("Run the program with exact arithmetic (rational queries); much slower than float64"));
  computeButton_ = new QPushButton(tr("Compute"));
  cancelButton_ = new QPushButton(tr("Cancel"));
  cancelButton_->setEnabled(false);
  exportButton_ = new QToolButton;
  exportButton_->setText(tr("Export"));
  exportButton_->setPopupMode(QToolButton::InstantPopup);
  exportButton_->setEnabled(false);
  auto* menu = new QMenu(exportButton_);
  connect(menu->addAction(tr("Heat maps as PNG...")), &QAction::triggered, this, [this] {
    exportWithDialog(this, tr("Export heat maps"), {tr("PNG (*.png)"), QStringLiteral("png")},
                     [this](const QString& path) { exportPng(path); });
  });
  connect(menu->addAction(tr("Values as CSV...")), &QAction::triggered, this, [this] {
    exportWithDialog(this, tr("Export values"), {tr("CSV (*.csv)"), QStringLiteral("csv")},
                     [this](const QString& path) { exportCsv(path); });
  });
  exportButton_->setMenu(menu);
  progress_ = new QProgressBar;
  progress_->setVisible(false);
  status_ =
      new QLabel(tr("vec2vec with n = 2, m = 1: choose N, a variant and a target, then Compute."));
  status_->setWordWrap(true);

  auto* controls = new QHBoxLayout;
  auto* form = new QFormLayout;
  form->addRow(tr("N (cells per axis)"), cells_);
  form->addRow(tr("Variant"), variant_);
  auto* form2 = new QFormLayout;
  form2->addRow(tr("Target f(x, y)"), targetBox_);
  form2->addRow(tr("Query grid"), grid_);
  form2->addRow(tr("Run"), run_);
  form2->addRow(QString(), exact_);
  controls->addLayout(form);
  controls->addLayout(form2);
  auto* buttons = new QVBoxLayout;
  buttons->addWidget(computeButton_);
  buttons->addWidget(cancelButton_);
  controls->addLayout(buttons);
  controls->addWidget(exportButton_, 0, Qt::AlignTop);
  controls->addStretch(1);

  model_ = new HeatmapWidget;
  target_ = new HeatmapWidget;
  difference_ = new HeatmapWidget;
  maps_ = new QWidget;
  auto* mapsLayout = new QHBoxLayout(maps_);
  mapsLayout->setContentsMargins(0, 0, 0, 0);
  for (HeatmapWidget* w : {model_, target_, difference_}) mapsLayout->addWidget(w, 1);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(controls);
  layout->addWidget(progress_);
  layout->addWidget(status_);
  layout->addWidget(maps_, 1);

  connect(run_, &QComboBox::currentIndexChanged, this,
          [this](int index) { exact_->setEnabled(index == 0); });
  setRequest(UaHeatmapRequest{});
  connect(computeButton_, &QPushButton::clicked, this, &UaHeatmapView::start);
  connect(cancelButton_, &QPushButton::clicked, this, &UaHeatmapView::cancel);
  connect(&watcher_, &QFutureWatcher<Outcome>::finished, this, &UaHeatmapView::onFinished);
  connect(&watcher_, &QFutureWatcher<Outcome>::progressRangeChanged, progress_,
          &QProgressBar::setRange);
  connect(&watcher_, &QFutureWatcher<Outcome>::progressValueChanged, progress_,
          &QProgressBar::setValue);
}

UaHeatmapView::~UaHeatmapView() {
  cancelFlag_->store(true);
  watcher_.waitForFinished();
}

void UaHeatmapView::setRequest(const UaHeatmapRequest& r) {
  cells_->setValue(r.N);
  const auto& all = allConditionals();
  variant_->setCurrentIndex(
      static_cast<int>(std::find(all.begin(), all.end(), r.variant) - all.begin()));
  targetBox_->setCurrentIndex(r.target);
  grid_->setValue(r.grid);
  exact_->setChecked(r.exact);
  run_->setCurrentIndex(static_cast<int>(r.run));
  exact_->setEnabled(r.run == UaRun::Program);
}

UaHeatmapRequest UaHeatmapView::request() const {
  UaHeatmapRequest r;
  r.N = cells_->value();
  r.variant = allConditionals()[static_cast<size_t>(std::max(0, variant_->currentIndex()))];
  r.target = targetBox_->currentIndex();
  r.grid = grid_->value();
  r.run = static_cast<UaRun>(std::max(0, run_->currentIndex()));
  r.exact = r.run == UaRun::Program && exact_->isChecked();
  return r;
}

void UaHeatmapView::start() {
  if (watcher_.isRunning()) return;
  const UaHeatmapRequest req = request();
  cancelFlag_ = std::make_shared<std::atomic<bool>>(false);
  computeButton_->setEnabled(false);
  cancelButton_->setEnabled(true);
  progress_->setRange(0, req.grid);
  progress_->setValue(0);
  progress_->setVisible(true);
  status_->setText(tr("Running %1 queries of %2 tokens (%3)...")
                       .arg(req.grid * req.grid)
                       .arg(req.N * req.N + 1)
                       .arg(req.exact ? tr("exact") : tr("float64")));
  watcher_.setFuture(QtConcurrent::run([req, flag = cancelFlag_](QPromise<Outcome>& promise) {
    Outcome out;
    promise.setProgressRange(0, req.grid);
    try {
      out.result = computeUaHeatmap(
          req, [&promise](int done, int) { promise.setProgressValue(done); },
          [flag] { return flag->load(); });
    } catch (const Cancelled&) {
      out.cancelled = true;
    } catch (const std::exception& e) {
      out.error = QString::fromUtf8(e.what());
    }
    promise.addResult(std::move(out));
  }));
  Q_EMIT started();
}

void UaHeatmapView::cancel() { cancelFlag_->store(true); }

void UaHeatmapView::waitForFinished() {
  if (!watcher_.future().isValid()) return;
  watcher_.waitForFinished();
  onFinished();
}

void UaHeatmapView::onFinished() {
  if (!watcher_.future().isValid() || watcher_.future().resultCount() == 0) return;
  Outcome out = watcher_.future().takeResult();
  watcher_.setFuture(QFuture<Outcome>());  // consumed: a second call is a no-op
  computeButton_->setEnabled(true);
  cancelButton_->setEnabled(false);
  progress_->setVisible(false);
  if (out.cancelled) {
    status_->setText(result_ ? tr("Cancelled; showing the previous result.") : tr("Cancelled."));
    Q_EMIT finished(false, tr("UA heat map cancelled"));
    return;
  }
  if (!out.result) {
    status_->setText(tr("Failed: %1").arg(out.error));
    Q_EMIT finished(false, out.error);
    return;
  }
  result_ = std::move(out.result);
  showResult();
  Q_EMIT finished(true, status_->text());
}

void UaHeatmapView::showResult() {
  const UaHeatmapResult& r = *result_;
  auto base = [](const QString& title, std::vector<std::vector<double>> values, double range) {
    HeatmapData d;
    d.title = title;
    d.values = std::move(values);
    d.rowsUpward = true;
    d.rowTitle = QStringLiteral("y");
    d.colTitle = QStringLiteral("x");
    d.range = range;
    return d;
  };
  double range = 0;
  for (const auto* grid : {&r.model, &r.target})
    for (const auto& row : *grid)
      for (double v : row) range = std::max(range, std::abs(v));
  const QString variant = QString::fromUtf8(conditionalName(r.request.variant).data());
  const QString formula =
      QString::fromStdString(uaTargets()[static_cast<size_t>(r.request.target)].formula);
  const QString run = r.request.run == UaRun::CompiledFp32 ? tr(", fp32 as built")
                      : r.request.run == UaRun::FittedFp32 ? tr(", fp32 fitted")
                                                           : QString();
  model_->setData(base(tr("model output (N = %1, %2%3)").arg(r.request.N).arg(variant).arg(run),
                       r.model, range));
  target_->setData(base(tr("target %1").arg(formula), r.target, range));
  difference_->setData(base(tr("difference (model − target)"), r.difference(), 0));
  double maxDiff = 0;
  for (const auto& row : r.difference())
    for (double v : row) maxDiff = std::max(maxDiff, std::abs(v));
  status_->setText(
      tr("%1 × %1 queries of %2 tokens in %3 s (%6); max |model − target| = %4; away from "
         "the cell walls "
         "the model gives f at the cell centre (max deviation %5).")
          .arg(r.request.grid)
          .arg(r.tokensPerQuery)
          .arg(r.seconds, 0, 'f', 2)
          .arg(maxDiff, 0, 'g', 3)
          .arg(r.maxErrorAtValidQueries(), 0, 'g', 3)
          .arg(r.request.run == UaRun::CompiledFp32 ? tr("compiled, fp32, constants as built")
               : r.request.run == UaRun::FittedFp32 ? tr("compiled, fp32, constants fitted")
               : r.request.exact                    ? tr("exact")
                                                    : tr("float64")));
  exportButton_->setEnabled(true);
}

void UaHeatmapView::exportPng(const QString& path) {
  if (!result_) throw Error("cannot export " + path.toStdString() + ": no heat map computed yet");
  exportWidgetPng(maps_, path);
}

void UaHeatmapView::exportCsv(const QString& path) const {
  if (!result_) throw Error("cannot export " + path.toStdString() + ": no heat map computed yet");
  const UaHeatmapResult& r = *result_;
  const auto diff = r.difference();
  std::string text = "x,y,model,target,difference,expected,valid\n";
  for (size_t j = 0; j < r.coords.size(); ++j) {
    for (size_t i = 0; i < r.coords.size(); ++i) {
      for (double v : {r.coords[i], r.coords[j], r.model[j][i], r.target[j][i], diff[j][i],
                       r.expected[j][i]}) {
        text += shortestDouble(v);
        text += ',';
      }
      text += r.valid[j][i] ? "1\n" : "0\n";
    }
  }
  writeFileAtomically(path.toStdString(), text);
}

bool UaHeatmapView::renderState(const QString& pngPath, QString* error, QSize size) {
  if (!result_ || !(result_->request == request())) {
    start();
    waitForFinished();
  }
  prepareForGrab(this, size);
  return writeReportingError(error, [&] {
    if (!result_) throw Error("no heat map: " + status_->text().toStdString());
    exportWidgetPng(this, pngPath);
  });
}

}  // namespace lsrl::studio
