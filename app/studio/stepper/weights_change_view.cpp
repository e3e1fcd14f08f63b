#include "app/studio/stepper/weights_change_view.h"

#include <QComboBox>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent>
#include <cmath>

#include "app/studio/common/background_release.h"
#include "app/studio/common/elided_label.h"
#include "app/studio/common/file_dialogs.h"
#include "app/studio/plots/heatmap_widget.h"
#include "core/io/tensor.h"
#include "core/numbers/exact.h"
#include "core/util/error.h"

namespace lsrl::studio {

// What the worker hands back.
struct WeightsChangeView::Outcome {
  std::shared_ptr<const WeightsChange> change;
  std::string error;
  bool cancelled = false;
};

namespace {

enum Column { kName, kShape, kBaseNorm, kDeltaNorm, kRelative, kMaxAbs, kChanged, kColumns };
enum BaseChoice { kRebuilt, kBaseFile };

// The row's tensor (its index in the file), beside the sort key in Qt::UserRole.
constexpr int kTensorIndexRole = Qt::UserRole + 1;

QString toQString(const std::string& s) { return QString::fromStdString(s); }

QString figureText(double x) { return QString::number(x, 'g', 4); }

QStandardItem* cell(const QString& text, const QVariant& sortKey) {
  auto* item = new QStandardItem(text);
  item->setData(sortKey, Qt::UserRole);
  item->setEditable(false);
  if (sortKey.typeId() != QMetaType::QString)
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

// Sorts by each column's number (Qt::UserRole); rows that tie keep the file's order in
// either direction, so that unchanged tensors read as the file lists them.
class FileOrderTies : public QSortFilterProxyModel {
 public:
  using QSortFilterProxyModel::QSortFilterProxyModel;

 protected:
  bool lessThan(const QModelIndex& a, const QModelIndex& b) const override {
    const QVariant x = a.data(Qt::UserRole), y = b.data(Qt::UserRole);
    const auto order = QVariant::compare(x, y);
    if (order != QPartialOrdering::Equivalent) return order == QPartialOrdering::Less;
    const int i = fileIndex(a), j = fileIndex(b);
    return sortOrder() == Qt::AscendingOrder ? i < j : i > j;
  }

 private:
  int fileIndex(const QModelIndex& index) const {
    return sourceModel()->index(index.row(), 0).data(kTensorIndexRole).toInt();
  }
};

// Each cell's first index along an axis, after `prefix`: "0", "1", … or, for a grid reduced
// by blocks, "0", "8", ….
QStringList indexLabels(size_t cells, long long perCell, const QString& prefix = {}) {
  QStringList labels;
  for (size_t i = 0; i < cells; ++i)
    labels << prefix + QString::number(static_cast<long long>(i) * perCell);
  return labels;
}

// The heat map of ΔW, rows ("row 3", as the tooltip names a cell) and columns labelled with
// the tensor's own indices, cells coloured up to the largest |Δ|.
HeatmapData deltaHeatmap(const TensorChange& c) {
  const DeltaGrid grid = deltaGrid(c);
  HeatmapData d;
  d.title = QObject::tr("ΔW of %1 %2").arg(toQString(c.name), toQString(shapeText(c.shape)));
  d.values = grid.cells;
  if (grid.cells.empty()) return d;
  const bool matrix = c.shape.size() >= 2;
  d.rowLabels = matrix ? indexLabels(grid.cells.size(), grid.rowsPerCell, QObject::tr("row "))
                       : QStringList{QStringLiteral("Δ")};
  d.colLabels = indexLabels(grid.cells.front().size(), grid.columnsPerCell);
  d.colMin = -0.5;
  d.colMax = static_cast<double>(grid.cells.front().size()) - 0.5;
  d.colTitle = matrix ? QObject::tr("column") : QObject::tr("entry");
  return d;
}

}  // namespace

WeightsChangeView::WeightsChangeView(Graph program, std::vector<std::string> programHashes,
                                     const QString& tunedPath, QWidget* parent)
    : QDialog(parent),
      program_(std::move(program)),
      programHashes_(std::move(programHashes)),
      tunedPath_(tunedPath),
      cancelFlag_(std::make_shared<std::atomic<bool>>(false)) {
  setWindowTitle(tr("What training moved: %1").arg(QFileInfo(tunedPath).fileName()));
  baseBox_ = new QComboBox(this);
  baseBox_->addItems({tr("rebuilt from the program"), tr("weights file…")});
  baseBox_->setItemData(kRebuilt,
                        tr("the weights before training, compiled again from the open program "
                           "as the file records (target, options, compile, fitted constants)"),
                        Qt::ToolTipRole);
  baseName_ = new ElidedLabel(this);
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  status_->setTextFormat(Qt::RichText);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  busy_ = new QProgressBar(this);
  busy_->setRange(0, 0);
  busy_->setMaximumWidth(160);
  cancel_ = new QPushButton(tr("Cancel"), this);

  model_ = new QStandardItemModel(0, kColumns, this);
  model_->setHorizontalHeaderLabels({tr("tensor"), tr("shape"), tr("‖W0‖"), tr("‖ΔW‖"),
                                     tr("‖ΔW‖ / ‖W0‖"), tr("max |Δ|"), tr("changed")});
  model_->horizontalHeaderItem(kChanged)->setToolTip(tr("entries with |Δ| > 0, of all"));
  model_->horizontalHeaderItem(kRelative)->setToolTip(
      tr("relative change ‖ΔW‖_F / ‖W0‖_F (\"from 0\": the tensor started all zeros)"));
  sorted_ = new FileOrderTies(this);
  sorted_->setSourceModel(model_);
  table_ = new QTableView(this);
  table_->setModel(sorted_);
  table_->setSortingEnabled(true);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setSectionResizeMode(kName, QHeaderView::Stretch);
  tensorCaption_ = new QLabel(this);
  tensorCaption_->setWordWrap(true);
  heatmap_ = new HeatmapWidget(this);

  auto* baseRow = new QHBoxLayout;
  baseRow->addWidget(new QLabel(tr("base:"), this));
  baseRow->addWidget(baseBox_);
  baseRow->addWidget(baseName_, 1);
  baseRow->addWidget(busy_);
  baseRow->addWidget(cancel_);
  auto* lower = new QWidget(this);
  auto* lowerLayout = new QVBoxLayout(lower);
  lowerLayout->setContentsMargins(0, 0, 0, 0);
  lowerLayout->addWidget(tensorCaption_);
  lowerLayout->addWidget(heatmap_, 1);
  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(table_);
  splitter->addWidget(lower);
  splitter->setSizes({260, 380});
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(baseRow);
  layout->addWidget(status_);
  layout->addWidget(splitter, 1);
  resize(900, 720);

  connect(baseBox_, &QComboBox::activated, this, &WeightsChangeView::chooseBase);
  connect(cancel_, &QPushButton::clicked, this, [this] { cancelFlag_->store(true); });
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          &WeightsChangeView::showSelectedTensor);
  connect(&watcher_, &QFutureWatcher<std::shared_ptr<Outcome>>::finished, this,
          &WeightsChangeView::onMeasured);
  measure();
}

WeightsChangeView::~WeightsChangeView() {
  cancelFlag_->store(true);
  watcher_.waitForFinished();
  releaseInBackground(std::move(change_));
}

void WeightsChangeView::setBaseFile(const QString& basePath) {
  basePath_ = basePath;
  {
    const QSignalBlocker block(baseBox_);
    baseBox_->setCurrentIndex(basePath.isEmpty() ? kRebuilt : kBaseFile);
  }
  baseName_->setText(basePath.isEmpty() ? QString() : QFileInfo(basePath).fileName());
  baseName_->setToolTip(basePath);
  measure();
}

void WeightsChangeView::chooseBase(int index) {
  if (index == kRebuilt) {
    setBaseFile({});
    return;
  }
  const QString path = askOpenPath(this, tr("Weights training started from"), weightsFileFilter(),
                                   basePath_.isEmpty() ? tunedPath_ : basePath_);
  if (!path.isEmpty()) {
    setBaseFile(path);
  } else {
    const QSignalBlocker block(baseBox_);
    baseBox_->setCurrentIndex(basePath_.isEmpty() ? kRebuilt : kBaseFile);
  }
}

bool WeightsChangeView::isMeasuring() const { return watcher_.isRunning(); }

bool WeightsChangeView::waitForMeasure(int timeoutMs) {
  QElapsedTimer timer;
  timer.start();
  while (isMeasuring() && timer.elapsed() < timeoutMs)
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
  QCoreApplication::processEvents();  // the queued finished signal
  return !isMeasuring();
}

QString WeightsChangeView::statusText() const { return status_->text(); }

void WeightsChangeView::measure() {
  // One comparison at a time: a running one is cancelled and the new one starts when it
  // has stopped (onMeasured), so that the window never waits on a compile.
  if (watcher_.isRunning()) {
    cancelFlag_->store(true);
    measureAgain_ = true;
    return;
  }
  cancelFlag_ = std::make_shared<std::atomic<bool>>(false);
  const std::string tuned = tunedPath_.toStdString();
  const std::optional<std::string> base =
      basePath_.isEmpty() ? std::nullopt : std::optional<std::string>(basePath_.toStdString());
  watcher_.setFuture(QtConcurrent::run(
      [program = program_, hashes = programHashes_, tuned, base, cancel = cancelFlag_] {
        ExactThreadScope scope;
        auto out = std::make_shared<Outcome>();
        try {
          out->change = std::make_shared<const WeightsChange>(
              measureWeightsChange(program, tuned, base, cancel.get(), hashes));
        } catch (const Cancelled&) {
          out->cancelled = true;
        } catch (const std::exception& e) {
          out->error = e.what();
        }
        return out;
      }));
  busy_->show();
  cancel_->show();
  status_->setText(basePath_.isEmpty()
                       ? tr("rebuilding the weights before training from the program, then "
                            "comparing…")
                       : tr("comparing…"));
}

void WeightsChangeView::onMeasured() {
  if (measureAgain_) {
    measureAgain_ = false;
    measure();
    return;
  }
  busy_->hide();
  cancel_->hide();
  const std::shared_ptr<Outcome> out = watcher_.result();
  releaseInBackground(std::move(change_));
  change_ = out->change;
  fillTable();
  if (out->cancelled || !out->error.empty()) {
    const QString why = out->cancelled ? tr("cancelled") : toQString(out->error);
    status_->setText(
        QStringLiteral("<span style='color:#c00000'>%1</span>").arg(why.toHtmlEscaped()));
    return;
  }
  long long moved = 0;
  for (const TensorChange& c : change_->tensors) moved += c.changed > 0 ? 1 : 0;
  QString text = tr("<b>%1</b> against %2: %3 of %4 tensors changed")
                     .arg(toQString(change_->tunedFile).toHtmlEscaped(),
                          toQString(change_->base).toHtmlEscaped())
                     .arg(moved)
                     .arg(change_->tensors.size());
  if (!change_->warning.empty()) {
    text += QStringLiteral("<br><span style='color:#b06000'>%1</span>")
                .arg(tr("warning: %1").arg(toQString(change_->warning)).toHtmlEscaped());
  }
  status_->setText(text);
}

void WeightsChangeView::fillTable() {
  model_->removeRows(0, model_->rowCount());
  tensorCaption_->clear();
  heatmap_->setData({});
  if (!change_) return;
  for (size_t i = 0; i < change_->tensors.size(); ++i) {
    const TensorChange& c = change_->tensors[i];
    QList<QStandardItem*> row;
    row << cell(toQString(c.name), toQString(c.name))
        << cell(toQString(shapeText(c.shape)), c.count) << cell(figureText(c.baseNorm), c.baseNorm)
        << cell(figureText(c.deltaNorm), c.deltaNorm)
        << cell(std::isinf(c.relative) ? tr("from 0") : figureText(c.relative), c.relative)
        << cell(figureText(c.maxAbs), c.maxAbs)
        << cell(tr("%1 of %2").arg(c.changed).arg(c.count), c.changed);
    row.front()->setData(static_cast<int>(i), kTensorIndexRole);
    model_->appendRow(row);
  }
  // The biggest change first; ties keep the file's order.
  table_->sortByColumn(kDeltaNorm, Qt::DescendingOrder);
  if (sorted_->rowCount() > 0) table_->selectRow(0);
}

void WeightsChangeView::showSelectedTensor() {
  const QModelIndex current = table_->currentIndex();
  if (!change_ || !current.isValid()) return;
  const QModelIndex source = sorted_->mapToSource(sorted_->index(current.row(), kName));
  const int index = model_->data(source, kTensorIndexRole).toInt();
  const TensorChange& c = change_->tensors.at(static_cast<size_t>(index));
  tensorCaption_->setText(tr("%1 %2: %3 of %4 entries changed, max |Δ| %5 (red: grew, blue: "
                             "shrank; hover a cell for its Δ)")
                              .arg(toQString(c.name), toQString(shapeText(c.shape)))
                              .arg(c.changed)
                              .arg(c.count)
                              .arg(figureText(c.maxAbs)));
  heatmap_->setData(deltaHeatmap(c));
}

}  // namespace lsrl::studio
