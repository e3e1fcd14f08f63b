#include "app/studio/plots/series_legend.h"

#include <QAbstractSeries>
#include <QChart>
#include <QLegend>
#include <QPixmap>
#include <QScatterSeries>
#include <QXYSeries>
#include <algorithm>

namespace lsrl::studio {

namespace {

constexpr int kSeriesRole = Qt::UserRole + 1;

QColor colourOf(QAbstractSeries* series) {
  if (auto* xy = qobject_cast<QXYSeries*>(series)) return xy->color();
  return Qt::gray;
}

QIcon swatch(QColor colour, bool shown) {
  QPixmap pixmap(10, 10);
  pixmap.fill(shown ? colour : QColor(220, 220, 220));
  return QIcon(pixmap);
}

}  // namespace

SeriesLegend::SeriesLegend(QChart* chart, QWidget* parent) : QListWidget(parent), chart_(chart) {
  setObjectName(QStringLiteral("SeriesLegend"));
  setFrameShape(QFrame::NoFrame);
  setSelectionMode(QAbstractItemView::NoSelection);
  setFocusPolicy(Qt::NoFocus);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Ignored);
  setToolTip(tr("Click an entry to hide or show its series"));
  chart_->legend()->setVisible(false);
  connect(this, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
    if (!chart_) return;
    const auto index = item->data(kSeriesRole).toInt();
    const QList<QAbstractSeries*> series = chart_->series();
    if (index < 0 || index >= series.size()) return;
    QAbstractSeries* s = series[index];
    s->setVisible(!s->isVisible());
    item->setIcon(swatch(colourOf(s), s->isVisible()));
  });
}

void SeriesLegend::refresh() {
  clear();
  if (!chart_) return;
  chart_->legend()->setVisible(false);
  const QList<QAbstractSeries*> series = chart_->series();
  for (qsizetype i = 0; i < series.size(); ++i) {
    QAbstractSeries* s = series[i];
    // Unnamed series are aids (a step marker, a circle), not data. (A hidden legend's
    // markers all read as invisible, so their visibility cannot tell.)
    if (s->name().isEmpty()) continue;
    auto* item = new QListWidgetItem(swatch(colourOf(s), s->isVisible()), s->name(), this);
    item->setData(kSeriesRole, static_cast<int>(i));
  }
  setVisible(count() > 1);
  updateGeometry();
}

QSize SeriesLegend::sizeHint() const {
  int width = 0;
  for (int i = 0; i < count(); ++i)
    width = std::max(width, fontMetrics().horizontalAdvance(item(i)->text()));
  // The swatch, its gap, and room for the scroll bar.
  return QSize(std::clamp(width + 40, 56, 120), 100);
}

ExportLegend::ExportLegend(QChart* chart, const SeriesLegend* legend)
    : chart_(chart), wasVisible_(chart->legend()->isVisible()) {
  chart_->legend()->setVisible(legend->count() > 1);
}

ExportLegend::~ExportLegend() { chart_->legend()->setVisible(wasVisible_); }

}  // namespace lsrl::studio
