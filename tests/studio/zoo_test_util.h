// Helpers shared by the Models tab's view tests (zoo_*_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <QAbstractAxis>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QGraphicsTextItem>
#include <QImage>
#include <QStringList>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <algorithm>
#include <memory>
#include <string>

#include "app/studio/zoo/model_run.h"
#include "app/studio/zoo/model_view.h"
#include "core/util/error.h"
#include "studio/studio_test_util.h"

namespace lsrl::studio::test {

// Gives the view a run at a size and shows it, events processed: how every view test starts.
inline void showRun(ModelView& view, std::shared_ptr<const ModelRun> run, int width = 1400,
                    int height = 860) {
  view.resize(width, height);
  view.setRun(std::move(run));
  view.show();
  QApplication::processEvents();
}

// Writes every entry of the view's Export menu into `dir` (file names from the labels)
// and checks each file: SVGs parse, PNGs show more than a few colours. Returns how many.
inline int writeEveryExport(ModelView& view, const QTemporaryDir& dir) {
  int written = 0;
  for (const ViewExport& e : view.exports()) {
    const QString path = dir.filePath(e.label.simplified().remove(QLatin1Char(' ')) + e.suffix);
    e.write(path);
    ++written;
    if (e.suffix == QLatin1String(".svg")) {
      EXPECT_TRUE(QSvgRenderer(path).isValid()) << e.label.toStdString();
    } else if (e.suffix == QLatin1String(".png")) {
      EXPECT_GT(distinctColours(QImage(path)), 3) << e.label.toStdString();
    }
  }
  return written;
}

// The tick labels Qt Charts draws for the chart's `orientation` axis, as a person reads
// them: the visible, unrotated text items left of (vertical) or under (horizontal) the
// plot area, without the axis title. A label Qt had to elide reads "...".
inline QStringList chartAxisLabels(QChartView* view, Qt::Orientation orientation) {
  QChart* chart = view->chart();
  const QRectF plot = chart->plotArea();
  const QString title = chart->axes(orientation).front()->titleText();
  QStringList labels;
  for (QGraphicsItem* item : view->scene()->items()) {
    auto* text = qgraphicsitem_cast<QGraphicsTextItem*>(item);
    if (text == nullptr || !text->isVisible() || text->rotation() != 0) continue;
    const QString shown = text->toPlainText();
    if (shown.isEmpty() || shown == title) continue;
    const QRectF box = text->sceneBoundingRect();
    const bool beside =
        orientation == Qt::Vertical
            ? box.right() <= plot.left() + 2 && box.center().y() >= plot.top() - 4 &&
                  box.center().y() <= plot.bottom() + 4
            : box.top() >= plot.bottom() - 2 && box.center().x() >= plot.left() - 4 &&
                  box.center().x() <= plot.right() + 4 &&
                  box.top() <= plot.bottom() + 2 * box.height();
    if (beside) labels << shown;
  }
  return labels;
}

// The error the view gives for a run whose trace has no arrays (empty if none).
inline std::string errorForEmptyTrace(ModelView& view, const ModelRun& run) {
  auto broken = std::make_shared<ModelRun>(run);
  broken->trace = seed_models::Trace();
  try {
    view.setRun(broken);
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

// ---- the GateLoop plane: its unit circle --------------------------------------------

// The bounding box of the dashed grey (150,150,150) circle's pixels inside `plot` (the
// axis lines on its edges share the grey); rows and columns with a couple of such pixels,
// so that stray antialiased pixels do not count.
inline QRect circlePixels(const QImage& image, const QRect& plot) {
  std::vector<int> rows(static_cast<size_t>(image.height())),
      cols(static_cast<size_t>(image.width()));
  const QRect inside = plot.adjusted(2, 2, -2, -2).intersected(image.rect());
  for (int y = inside.top(); y <= inside.bottom(); ++y)
    for (int x = inside.left(); x <= inside.right(); ++x) {
      const QColor c = image.pixelColor(x, y);
      if (std::abs(c.red() - 150) <= 4 && std::abs(c.green() - 150) <= 4 &&
          std::abs(c.blue() - 150) <= 4) {
        ++rows[static_cast<size_t>(y)];
        ++cols[static_cast<size_t>(x)];
      }
    }
  auto span = [](const std::vector<int>& counts) {
    int first = -1, last = -1;
    for (size_t i = 0; i < counts.size(); ++i)
      if (counts[i] >= 2) {
        if (first < 0) first = static_cast<int>(i);
        last = static_cast<int>(i);
      }
    return std::pair{first, last};
  };
  const auto [top, bottom] = span(rows);
  const auto [left, right] = span(cols);
  return QRect(QPoint(left, top), QPoint(right, bottom));
}

// The unit circle as a person reads it off the axes: the numbers under and beside the
// plot give where 0 is and how long one unit is on each axis.
inline QRectF unitCircleByTheLabels(QChartView* view) {
  const QRectF plot = view->chart()->plotArea();
  std::vector<std::pair<double, double>> across, up;  // (value, scene coordinate)
  for (QGraphicsItem* item : view->scene()->items()) {
    auto* text = qgraphicsitem_cast<QGraphicsTextItem*>(item);
    if (text == nullptr || !text->isVisible() || text->rotation() != 0) continue;
    bool number = false;
    const double value = text->toPlainText().toDouble(&number);
    if (!number) continue;
    const QRectF box = text->sceneBoundingRect();
    if (box.top() >= plot.bottom() - 2)
      across.emplace_back(value, box.center().x());
    else if (box.right() <= plot.left() + 2)
      up.emplace_back(value, box.center().y());
  }
  auto fit = [](std::vector<std::pair<double, double>> labels) {
    std::sort(labels.begin(), labels.end());
    if (labels.size() < 2) return std::pair{0.0, 0.0};
    const auto& [v0, p0] = labels.front();
    const auto& [v1, p1] = labels.back();
    const double perUnit = (p1 - p0) / (v1 - v0);
    return std::pair{p0 - v0 * perUnit, perUnit};
  };
  const auto [x0, xPerUnit] = fit(across);
  const auto [y0, yPerUnit] = fit(up);
  const QRectF scene(QPointF(x0 - xPerUnit, y0 + yPerUnit), QPointF(x0 + xPerUnit, y0 - yPerUnit));
  return view->mapFromScene(scene.normalized()).boundingRect();
}

// The plane as shown: the circle where the axes say, round, inside the plot area.
inline void expectTheUnitCircleOnTheAxes(QChartView* plane) {
  const QImage image = plane->grab().toImage();
  const QRectF plot = plane->mapFromScene(plane->chart()->plotArea()).boundingRect();
  const QRect drawn = circlePixels(image, plot.toAlignedRect());
  const QRectF expected = unitCircleByTheLabels(plane);
  EXPECT_NEAR(drawn.center().x(), expected.center().x(), 3);
  EXPECT_NEAR(drawn.center().y(), expected.center().y(), 3);
  EXPECT_NEAR(drawn.width(), expected.width(), 4);
  EXPECT_NEAR(drawn.height(), expected.height(), 4);
  EXPECT_NEAR(drawn.width(), drawn.height(), 4) << "a circle, not an ellipse";
  EXPECT_TRUE(QRectF(plane->rect()).contains(plot)) << "the plot area inside the view";
  EXPECT_GT(drawn.width(), 0.6 * std::min(plot.width(), plot.height())) << "fills the plot";
}

}  // namespace lsrl::studio::test
