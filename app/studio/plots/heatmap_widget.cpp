#include "app/studio/plots/heatmap_widget.h"

#include <QEvent>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

#include "app/studio/plots/colour_map.h"

namespace lsrl::studio {

namespace {
constexpr double kBarWidth = 14;
constexpr double kGap = 8;

QString tickText(double v) { return QString::number(v, 'g', 4); }
}  // namespace

int decimalsForStep(double step) {
  return std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
}

std::vector<double> niceTicks(double lo, double hi, int target) {
  std::vector<double> ticks;
  if (!(hi > lo) || target < 1) return ticks;
  const double raw = (hi - lo) / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * magnitude;
    if (step >= raw) break;
  }
  for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step)
    ticks.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
  return ticks;
}

HeatmapWidget::HeatmapWidget(QWidget* parent) : QWidget(parent) {
  setMouseTracking(false);
  setAttribute(Qt::WA_OpaquePaintEvent, false);
}

void HeatmapWidget::setData(HeatmapData data) {
  data_ = std::move(data);
  rebuildImage();
  update();
}

void HeatmapWidget::setMarker(double x) {
  marker_ = x;
  update();
}

void HeatmapWidget::rebuildImage() {
  const int rows = data_.rows(), cols = data_.columns();
  auto largest = [](const std::vector<double>& row, double r) {
    for (double v : row)
      if (std::isfinite(v)) r = std::max(r, std::abs(v));
    return r;
  };
  range_ = data_.rowScaled ? 1.0 : data_.range;
  if (range_ <= 0) {
    for (const auto& row : data_.values) range_ = largest(row, range_);
  }
  if (rows == 0 || cols == 0) {
    image_ = QImage();
    return;
  }
  image_ = QImage(cols, rows, QImage::Format_RGB32);
  for (int r = 0; r < rows; ++r) {
    const int y = data_.rowsUpward ? rows - 1 - r : r;
    auto* line = reinterpret_cast<QRgb*>(image_.scanLine(y));
    const auto& row = data_.values[static_cast<size_t>(r)];
    const double rowRange = data_.rowScaled ? largest(row, 0.0) : range_;
    for (int c = 0; c < cols; ++c)
      line[c] = divergingColour(
          c < static_cast<int>(row.size()) ? row[static_cast<size_t>(c)] : std::nan(""), rowRange);
  }
}

HeatmapWidget::Layout HeatmapWidget::layout() const {
  const QFontMetricsF fm(font());
  const double lineH = fm.height();
  double labelWidth = 0;
  if (!data_.rowLabels.isEmpty()) {
    for (const QString& l : data_.rowLabels)
      labelWidth = std::max(labelWidth, fm.horizontalAdvance(l));
    labelWidth = std::min(labelWidth, width() * 0.3);
  } else {
    for (double t : niceTicks(data_.rowMin, data_.rowMax))
      labelWidth = std::max(labelWidth, fm.horizontalAdvance(tickText(t)));
  }
  double barLabelWidth = 0;
  for (double t : niceTicks(-range_, range_, 4))
    barLabelWidth = std::max(barLabelWidth, fm.horizontalAdvance(tickText(t)));
  const double left = 6 + (data_.rowTitle.isEmpty() ? 0 : lineH + 4) + labelWidth + 6;
  const double top = 6 + (data_.title.isEmpty() ? 0 : lineH + 6);
  const double bottom = 6 + lineH + 4 + (data_.colTitle.isEmpty() ? 0 : lineH + 4);
  const double right = kGap * 2 + kBarWidth + 4 + barLabelWidth + 6;
  Layout l;
  l.labelWidth = labelWidth;
  l.plot = QRectF(left, top, std::max(10.0, width() - left - right),
                  std::max(10.0, height() - top - bottom));
  l.bar = QRectF(l.plot.right() + kGap * 2, l.plot.top(), kBarWidth, l.plot.height());
  return l;
}

QRectF HeatmapWidget::cellRect(int row, int column) const {
  const Layout l = layout();
  const int rows = data_.rows(), cols = data_.columns();
  if (rows == 0 || cols == 0) return {};
  const int y = data_.rowsUpward ? rows - 1 - row : row;
  const double w = l.plot.width() / cols, h = l.plot.height() / rows;
  return QRectF(l.plot.left() + column * w, l.plot.top() + y * h, w, h);
}

bool HeatmapWidget::cellAt(QPointF pos, int& row, int& column) const {
  const Layout l = layout();
  const int rows = data_.rows(), cols = data_.columns();
  if (rows == 0 || cols == 0 || !l.plot.contains(pos)) return false;
  column =
      std::clamp(static_cast<int>((pos.x() - l.plot.left()) / l.plot.width() * cols), 0, cols - 1);
  const int y =
      std::clamp(static_cast<int>((pos.y() - l.plot.top()) / l.plot.height() * rows), 0, rows - 1);
  row = data_.rowsUpward ? rows - 1 - y : y;
  return true;
}

void HeatmapWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  p.setPen(palette().color(QPalette::Text));
  const QFontMetricsF fm(font());
  const Layout l = layout();
  if (!data_.title.isEmpty()) {
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    // A title longer than a narrow map is elided rather than cut at both ends.
    const QString shown = QFontMetricsF(bold).elidedText(data_.title, Qt::ElideRight, width() - 8);
    p.drawText(QRectF(0, 4, width(), fm.height() + 4), Qt::AlignCenter, shown);
    p.setFont(font());
  }
  if (image_.isNull()) {
    p.drawText(rect(), Qt::AlignCenter, tr("No data"));
    return;
  }
  p.setRenderHint(QPainter::SmoothPixmapTransform, false);
  p.drawImage(l.plot, image_);
  p.drawRect(l.plot);

  // Column axis: numeric ticks below the plot.
  const double cspan = data_.colMax - data_.colMin;
  auto colX = [&](double v) { return l.plot.left() + (v - data_.colMin) / cspan * l.plot.width(); };
  auto colTick = [&](double x, const QString& text) {
    p.drawLine(QPointF(x, l.plot.bottom()), QPointF(x, l.plot.bottom() + 4));
    p.drawText(QRectF(x - 40, l.plot.bottom() + 4, 80, fm.height()),
               Qt::AlignHCenter | Qt::AlignTop, text);
  };
  const int columns = data_.columns();
  if (!data_.colLabels.isEmpty() && columns > 0) {
    const double cellWidth = l.plot.width() / columns;
    const int every = std::max(1, static_cast<int>(std::ceil(40 / std::max(1.0, cellWidth))));
    for (int c = 0; c < columns && c < data_.colLabels.size(); c += every)
      colTick(l.plot.left() + (c + 0.5) * cellWidth, data_.colLabels[c]);
  } else {
    for (double t :
         niceTicks(data_.colMin, data_.colMax, std::max(2, static_cast<int>(l.plot.width() / 70))))
      colTick(colX(t), tickText(t));
  }
  if (!data_.colTitle.isEmpty())
    p.drawText(
        QRectF(l.plot.left(), l.plot.bottom() + 6 + fm.height(), l.plot.width(), fm.height()),
        Qt::AlignCenter, data_.colTitle);

  // Row axis: a label per row (thinned to fit), or numeric ticks.
  const int rows = data_.rows();
  if (!data_.rowLabels.isEmpty()) {
    const double rowH = l.plot.height() / rows;
    const int every = std::max(1, static_cast<int>(std::ceil(fm.height() / rowH)));
    for (int r = 0; r < rows && r < data_.rowLabels.size(); r += every) {
      const QRectF cell = cellRect(r, 0);
      const QString text = fm.elidedText(data_.rowLabels[r], Qt::ElideMiddle, l.labelWidth);
      p.drawText(QRectF(l.plot.left() - 6 - l.labelWidth, cell.center().y() - fm.height() / 2,
                        l.labelWidth, fm.height()),
                 Qt::AlignRight | Qt::AlignVCenter, text);
    }
  } else {
    const double rspan = data_.rowMax - data_.rowMin;
    for (double t : niceTicks(data_.rowMin, data_.rowMax,
                              std::max(2, static_cast<int>(l.plot.height() / 40)))) {
      const double f = (t - data_.rowMin) / rspan;
      const double y = data_.rowsUpward ? l.plot.bottom() - f * l.plot.height()
                                        : l.plot.top() + f * l.plot.height();
      p.drawLine(QPointF(l.plot.left() - 4, y), QPointF(l.plot.left(), y));
      p.drawText(
          QRectF(l.plot.left() - 6 - l.labelWidth, y - fm.height() / 2, l.labelWidth, fm.height()),
          Qt::AlignRight | Qt::AlignVCenter, tickText(t));
    }
  }
  if (!data_.rowTitle.isEmpty()) {
    p.save();
    p.translate(6 + fm.height() / 2, l.plot.center().y());
    p.rotate(-90);
    p.drawText(QRectF(-l.plot.height() / 2, -fm.height() / 2, l.plot.height(), fm.height()),
               Qt::AlignCenter, data_.rowTitle);
    p.restore();
  }

  // Colour bar: +range on top, -range at the bottom.
  const int barSteps = std::max(2, static_cast<int>(l.bar.height()));
  QImage bar(1, barSteps, QImage::Format_RGB32);
  for (int i = 0; i < barSteps; ++i)
    bar.setPixel(0, i, divergingColour(range_ * (1 - 2.0 * i / (barSteps - 1)), range_));
  p.drawImage(l.bar, bar);
  p.drawRect(l.bar);
  if (range_ > 0) {
    for (double t : niceTicks(-range_, range_, 4)) {
      const double y = l.bar.top() + (range_ - t) / (2 * range_) * l.bar.height();
      p.drawLine(QPointF(l.bar.right(), y), QPointF(l.bar.right() + 3, y));
      p.drawText(QRectF(l.bar.right() + 5, y - fm.height() / 2, 200, fm.height()),
                 Qt::AlignLeft | Qt::AlignVCenter, tickText(t));
    }
  }

  if (std::isfinite(marker_) && marker_ >= data_.colMin && marker_ <= data_.colMax) {
    const double x = colX(marker_);
    p.setPen(QPen(QColor(20, 20, 20), 2, Qt::DashLine));
    p.drawLine(QPointF(x, l.plot.top()), QPointF(x, l.plot.bottom()));
  }
}

void HeatmapWidget::mousePressEvent(QMouseEvent* event) {
  int row = 0, column = 0;
  if (event->button() == Qt::LeftButton && cellAt(event->position(), row, column))
    Q_EMIT columnClicked(column);
  QWidget::mousePressEvent(event);
}

bool HeatmapWidget::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    int row = 0, column = 0;
    if (cellAt(help->pos(), row, column)) {
      const QString name =
          row < data_.rowLabels.size() ? data_.rowLabels[row] : tr("row %1").arg(row);
      const double v = data_.values[static_cast<size_t>(row)][static_cast<size_t>(column)];
      QToolTip::showText(help->globalPos(),
                         tr("%1, column %2: %3").arg(name).arg(column).arg(v, 0, 'g', 6), this);
    } else {
      QToolTip::hideText();
    }
    return true;
  }
  return QWidget::event(event);
}

}  // namespace lsrl::studio
