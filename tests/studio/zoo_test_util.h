// Helpers shared by the Models tab's view tests (zoo_*_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <QAbstractAxis>
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

#include "app/studio/zoo/model_view.h"
#include "core/util/error.h"
#include "studio/studio_test_util.h"

namespace lsrl::studio::test {

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
  broken->trace = models::Trace();
  try {
    view.setRun(broken);
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

}  // namespace lsrl::studio::test
