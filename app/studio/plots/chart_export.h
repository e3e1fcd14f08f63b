// Exports of the plot views: charts to PNG and SVG, heat maps and 3D views to PNG,
// series to CSV (and back, for round trips). Every write is atomic (temporary file +
// rename) and failures throw lsrl::Error naming the path.
#pragma once

#include <QImage>
#include <QSize>
#include <QString>
#include <exception>
#include <functional>
#include <string>

#include "app/studio/plots/state_series.h"

class QChartView;
class QPainter;
class QWidget;

namespace lsrl::studio {

// The chart as shown, at `size` (default: the view's size).
QImage renderChart(QChartView* view, QSize size = {});
void exportChartPng(QChartView* view, const QString& path, QSize size = {});
// Vector output (QSvgGenerator): lines stay lines, text stays text. `paint` draws the
// picture into a `size` canvas.
void exportSvg(const QString& path, QSize size, const QString& title,
               const std::function<void(QPainter&)>& paint);
void exportChartSvg(QChartView* view, const QString& path, const QString& title = {});
// Any widget as shown (a heat map, a panel of heat maps).
void exportWidgetPng(QWidget* widget, const QString& path);
// The same as SVG: what the widget paints, recorded (a heat map's cells stay an image).
void exportWidgetSvg(QWidget* widget, const QString& path, const QString& title = {});
// Shows `widget` at `size` without putting it on screen if it is hidden (headless
// screenshots), then lets it lay out and paint.
void prepareForGrab(QWidget* widget, QSize size);
// Runs `write` (which throws on failure); on an exception stores its message in *error
// (when given) and returns false. The screenshot helpers' common error path.
template <class Write>
bool writeReportingError(QString* error, Write&& write) {
  try {
    write();
  } catch (const std::exception& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return false;
  }
  return true;
}
void exportImagePng(const QImage& image, const QString& path);

// "step,<label>,<label>,..." then one row per step; labels with commas or quotes are
// quoted CSV-style, numbers in the shortest text that reads back as the same double.
std::string seriesCsv(const StateSeries& series);
void exportSeriesCsv(const StateSeries& series, const QString& path);
// Reads seriesCsv's text back (title left empty). Throws lsrl::Error naming the line.
StateSeries parseSeriesCsv(const std::string& text);

}  // namespace lsrl::studio
