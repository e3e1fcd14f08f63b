// A heat map drawn as an image with axes, tick labels, row labels and a colour bar (Qt
// Charts has no heat-map series). Used for a state over time (rows = components
// "query[1]", columns = steps, a marker at the current step) and for the
// universal-approximation pictures (rows = y, columns = x, row 0 at the bottom).
#pragma once

#include <QImage>
#include <QStringList>
#include <QWidget>
#include <cmath>
#include <limits>
#include <vector>

namespace lsrl::studio {

struct HeatmapData {
  QString title;
  std::vector<std::vector<double>> values;  // [row][column], rows equally wide
  // One label per row; empty: a numeric row axis from rowMin to rowMax.
  QStringList rowLabels;
  double rowMin = 0, rowMax = 1;
  // The columns tile [colMin, colMax] (steps 0..T-1: -0.5 .. T-0.5).
  double colMin = 0, colMax = 1;
  // One label per column (thinned to fit) instead of numeric ticks; empty: numeric.
  QStringList colLabels;
  QString rowTitle, colTitle;
  bool rowsUpward = false;  // row 0 drawn at the bottom, as a function plot's y axis
  double range = 0;         // colour saturates at ±range; 0: the largest |value|
  // Each row saturates at its own largest |value| (range is then ignored and the colour
  // bar reads ±1 of a row's scale): rows of very different sizes all stay readable.
  bool rowScaled = false;
  int rows() const { return static_cast<int>(values.size()); }
  int columns() const { return values.empty() ? 0 : static_cast<int>(values.front().size()); }
};

class HeatmapWidget : public QWidget {
  Q_OBJECT

 public:
  explicit HeatmapWidget(QWidget* parent = nullptr);

  void setData(HeatmapData data);
  const HeatmapData& data() const { return data_; }
  // A vertical marker at column coordinate x (a step); NaN hides it.
  void setMarker(double x);
  double marker() const { return marker_; }
  double colourRange() const { return range_; }
  // One pixel per cell, as drawn (row 0 on top unless rowsUpward).
  const QImage& cellImage() const { return image_; }
  // Where cell (row, column) is drawn in widget coordinates (tests, tooltips).
  QRectF cellRect(int row, int column) const;

  QSize sizeHint() const override { return {640, 360}; }
  QSize minimumSizeHint() const override { return {240, 160}; }

 Q_SIGNALS:
  void columnClicked(int column);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;

 private:
  struct Layout {
    QRectF plot, bar;
    double labelWidth = 0;
  };
  Layout layout() const;
  bool cellAt(QPointF pos, int& row, int& column) const;
  void rebuildImage();

  HeatmapData data_;
  QImage image_;
  double range_ = 0;
  double marker_ = std::numeric_limits<double>::quiet_NaN();
};

// "Nice" tick positions (1, 2, 5 × 10^k) covering [lo, hi], about `target` of them.
std::vector<double> niceTicks(double lo, double hi, int target = 6);
// The decimals a label needs to tell ticks `step` apart (0 for whole steps, 1 for 0.5, …).
int decimalsForStep(double step);

}  // namespace lsrl::studio
