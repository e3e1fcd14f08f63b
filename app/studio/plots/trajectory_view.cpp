#include "app/studio/plots/trajectory_view.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

#include "app/studio/common/file_dialogs.h"
#include "app/studio/document/document.h"
#include "app/studio/plots/chart_export.h"
#include "app/studio/plots/heatmap_widget.h"
#include "app/studio/plots/pca_2d_panel.h"
#include "app/studio/plots/pca_3d_panel.h"
#include "app/studio/plots/trajectory_lines_panel.h"
#include "core/util/error.h"

namespace lsrl::studio {

TrajectoryView::TrajectoryView(Document* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
  seriesBox_ = new QComboBox;
  seriesBox_->setMinimumContentsLength(24);
  seriesBox_->setToolTip(tr("The recorded state to plot"));
  exportButton_ = new QToolButton;
  exportButton_->setText(tr("Export"));
  exportButton_->setPopupMode(QToolButton::InstantPopup);
  auto* menu = new QMenu(exportButton_);
  for (const auto& [kind, text] : std::initializer_list<std::pair<QString, QString>>{
           {QStringLiteral("lines-svg"), tr("Line chart as SVG...")},
           {QStringLiteral("lines-png"), tr("Line chart as PNG...")},
           {QStringLiteral("heatmap-png"), tr("Heat map as PNG...")},
           {QStringLiteral("pca2d-svg"), tr("PCA 2D as SVG...")},
           {QStringLiteral("pca2d-png"), tr("PCA 2D as PNG...")},
           {QStringLiteral("pca3d-png"), tr("PCA 3D as PNG + CSV...")},
           {QStringLiteral("csv"), tr("Series as CSV...")}}) {
    QAction* a = menu->addAction(text);
    connect(a, &QAction::triggered, this, [this, k = kind] { exportFromMenu(k); });
    if (kind == QLatin1String("pca3d-png")) a->setEnabled(Pca3dPanel::available());
  }
  exportButton_->setMenu(menu);

  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("State:")));
  bar->addWidget(seriesBox_, 1);
  scaleRows_ = new QCheckBox(tr("Heat map: scale each row"));
  scaleRows_->setToolTip(
      tr("Colour each component on its own scale (its largest |value|), "
         "so small values beside huge ones stay visible"));
  bar->addWidget(scaleRows_);
  bar->addWidget(exportButton_);

  lines_ = new TrajectoryLinesPanel;
  heatmap_ = new HeatmapWidget;
  pca2d_ = new Pca2dPanel;
  pca3d_ = new Pca3dPanel;
  tabs_ = new QTabWidget;
  tabs_->addTab(lines_, tr("Lines"));
  tabs_->addTab(heatmap_, tr("Heat map"));
  tabs_->addTab(pca2d_, tr("PCA 2D"));
  tabs_->addTab(pca3d_, tr("PCA 3D"));
  emptyNote_ = new QLabel(tr("No trajectory yet: run the token stepper to record the states."));
  emptyNote_->setAlignment(Qt::AlignCenter);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(emptyNote_);
  layout->addWidget(tabs_, 1);

  connect(seriesBox_, &QComboBox::currentIndexChanged, this, [this] { showCurrentSeries(); });
  connect(scaleRows_, &QCheckBox::toggled, this, [this] { showCurrentSeries(); });
  connect(heatmap_, &HeatmapWidget::columnClicked, this, &TrajectoryView::stepRequested);
  if (doc_) {
    // A different or restructured program: the recorded run no longer describes it.
    connect(doc_, &Document::documentReplaced, this, [this] { setSeries({}); });
    connect(doc_, &Document::structureChanged, this, [this] { setSeries({}); });
  }
  setSeries({});
}

int TrajectoryView::currentSeries() const { return seriesBox_->currentIndex(); }

void TrajectoryView::setSeries(std::vector<StateSeries> series) {
  const QString previous = seriesBox_->currentText();
  series_ = std::move(series);
  {
    const QSignalBlocker block(seriesBox_);
    seriesBox_->clear();
    for (const StateSeries& s : series_) seriesBox_->addItem(QString::fromStdString(s.title));
    const int keep = seriesBox_->findText(previous);
    seriesBox_->setCurrentIndex(keep >= 0 ? keep : (series_.empty() ? -1 : 0));
  }
  emptyNote_->setVisible(series_.empty());
  tabs_->setEnabled(!series_.empty());
  exportButton_->setEnabled(!series_.empty());
  showCurrentSeries();
}

void TrajectoryView::setCurrentSeries(int index) { seriesBox_->setCurrentIndex(index); }

void TrajectoryView::setRowsScaled(bool on) { scaleRows_->setChecked(on); }

void TrajectoryView::showCurrentSeries() {
  const int i = currentSeries();
  const StateSeries empty;
  const StateSeries& s =
      i >= 0 && i < static_cast<int>(series_.size()) ? series_[static_cast<size_t>(i)] : empty;
  lines_->setSeries(s);
  HeatmapData data;
  data.title = QString::fromStdString(s.title);
  for (int c = 0; c < s.components(); ++c)
    data.rowLabels << QString::fromStdString(s.labels[static_cast<size_t>(c)]);
  data.values.assign(static_cast<size_t>(s.components()),
                     std::vector<double>(static_cast<size_t>(s.steps())));
  for (int t = 0; t < s.steps(); ++t)
    for (int c = 0; c < s.components(); ++c)
      data.values[static_cast<size_t>(c)][static_cast<size_t>(t)] =
          s.values[static_cast<size_t>(t)][static_cast<size_t>(c)];
  if (s.steps() == 0) data.values.clear();
  data.colMin = -0.5;
  data.colMax = s.steps() - 0.5;
  data.colTitle = tr("step");
  data.rowScaled = scaleRows_->isChecked();
  if (data.rowScaled) data.title += tr(" (each row scaled to its largest |value|)");
  heatmap_->setData(std::move(data));
  // Small trajectories at once; wide and long ones (a compiled model's thousands of
  // state dimensions) on a worker thread so that the UI never waits for Eigen.
  const uint64_t request = ++pcaRequest_;
  const QString title = QString::fromStdString(s.title);
  if (static_cast<long long>(std::min(s.steps(), s.components())) <= kSyncPcaSize) {
    showPca(computePca(s, 3), title);
  } else {
    showPca(PcaResult{}, tr("%1 (computing the PCA...)").arg(title));
    auto* watcher = new QFutureWatcher<PcaResult>(this);
    connect(watcher, &QFutureWatcher<PcaResult>::finished, this, [this, watcher, request, title] {
      watcher->deleteLater();
      if (request == pcaRequest_) showPca(watcher->result(), title);  // else stale
    });
    watcher->setFuture(QtConcurrent::run([s] { return computePca(s, 3); }));
    std::erase_if(pcaWatchers_,
                  [](const QPointer<QFutureWatcher<PcaResult>>& w) { return w.isNull(); });
    pcaWatchers_.push_back(watcher);
  }
  setCurrentStep(step_);
}

TrajectoryView::~TrajectoryView() {
  for (const QPointer<QFutureWatcher<PcaResult>>& w : pcaWatchers_)
    if (w) w->waitForFinished();
}

void TrajectoryView::showPca(PcaResult pca, const QString& title) {
  pca_ = std::move(pca);
  pca2d_->setPca(pca_, title);
  pca3d_->setPca(pca_, title);
  pca2d_->setStep(step_);
  pca3d_->setStep(step_);
  Q_EMIT pcaReady();
}

bool TrajectoryView::isComputingPca() const {
  for (const QPointer<QFutureWatcher<PcaResult>>& w : pcaWatchers_)
    if (w && w->isRunning()) return true;
  return false;
}

void TrajectoryView::setCurrentStep(int step) {
  step_ = step;
  lines_->setStep(step);
  heatmap_->setMarker(step);
  pca2d_->setStep(step);
  pca3d_->setStep(step);
}

namespace {
const StateSeries& requireSeries(const std::vector<StateSeries>& all, int i) {
  if (i < 0 || i >= static_cast<int>(all.size()))
    throw Error("no trajectory to export: run the token stepper first");
  return all[static_cast<size_t>(i)];
}
}  // namespace

void TrajectoryView::exportLinesSvg(const QString& path) const {
  exportChartSvg(lines_->chartView(), path);
}
void TrajectoryView::exportLinesPng(const QString& path) const {
  exportChartPng(lines_->chartView(), path);
}
void TrajectoryView::exportPca2dSvg(const QString& path) const {
  exportChartSvg(pca2d_->chartView(), path);
}
void TrajectoryView::exportPca2dPng(const QString& path) const {
  exportChartPng(pca2d_->chartView(), path);
}
void TrajectoryView::exportHeatmapPng(const QString& path) const {
  exportWidgetPng(heatmap_, path);
}
void TrajectoryView::exportSeriesCsv(const QString& path) const {
  lsrl::studio::exportSeriesCsv(requireSeries(series_, currentSeries()), path);
}

void TrajectoryView::export3dPng(const QString& path) {
  if (!pca3d_->hasView())
    throw Error("cannot export " + path.toStdString() + ": the 3D view needs a display (xcb)");
  exportImagePng(pca3d_->renderImage(), path);
  const QFileInfo info(path);
  lsrl::studio::exportSeriesCsv(
      pca3d_->points(), info.dir().filePath(info.completeBaseName() + QStringLiteral(".csv")));
}

void TrajectoryView::exportFromMenu(const QString& kind) {
  const bool csv = kind == QLatin1String("csv");
  const bool svg = kind.endsWith(QLatin1String("svg"));
  const FileFormat format = csv   ? FileFormat{tr("CSV (*.csv)"), QStringLiteral("csv")}
                            : svg ? FileFormat{tr("SVG (*.svg)"), QStringLiteral("svg")}
                                  : FileFormat{tr("PNG (*.png)"), QStringLiteral("png")};
  exportWithDialog(this, tr("Export"), format, [this, kind](const QString& path) {
    if (kind == QLatin1String("lines-svg"))
      exportLinesSvg(path);
    else if (kind == QLatin1String("lines-png"))
      exportLinesPng(path);
    else if (kind == QLatin1String("heatmap-png"))
      exportHeatmapPng(path);
    else if (kind == QLatin1String("pca2d-svg"))
      exportPca2dSvg(path);
    else if (kind == QLatin1String("pca2d-png"))
      exportPca2dPng(path);
    else if (kind == QLatin1String("pca3d-png"))
      export3dPng(path);
    else
      exportSeriesCsv(path);
  });
}

bool TrajectoryView::renderState(int step, const QString& pngPath, QString* error, Tab tab,
                                 QSize size) {
  tabs_->setCurrentIndex(tab);
  setCurrentStep(step);
  prepareForGrab(this, size);
  return writeReportingError(error, [&] {
    QImage image = grab().toImage();
    if (tab == Pca3d && pca3d_->hasView()) {
      // The 3D window is not part of a widget grab: paint its offscreen render over it.
      QWidget* box = pca3d_->container();
      QPainter painter(&image);
      const QRect where(box->mapTo(this, QPoint(0, 0)), box->size());
      painter.drawImage(where, pca3d_->renderImage(box->size() * image.devicePixelRatio()));
    }
    exportImagePng(image, pngPath);
  });
}

}  // namespace lsrl::studio
