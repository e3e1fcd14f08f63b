// The Models tab's plots readable at 1000x700 and at 1600x1000. A person opens the
// Models tab and runs every seed model; in each view every legend lists every series
// (all in view, or its list scrolls), no 2D axis has more labels than its length holds
// (Qt Charts elides a label that does not fit its spacing: "-2…"), and the 3D graphs
// keep their labels off the box's corners in a font large enough for their size.
#include <Q3DScatter>
#include <Q3DTheme>
#include <QChartView>
#include <QCustom3DLabel>
#include <QFontMetrics>
#include <QScrollBar>
#include <QValue3DAxis>
#include <QValueAxis>
#include <QWindow>

#include "app/studio/plots/series_legend.h"
#include "app/studio/zoo/inset_axis_ticks.h"
#include "app/studio/zoo/lattice_view.h"
#include "app/studio/zoo/step_chart.h"
#include "studio/scenarios/models_driver.h"

namespace lsrl::studio {
namespace model_plots {  // named: the scenario files share one unity translation unit

using namespace scenario;

// Every entry of `legend` can be seen: all inside its viewport, or the list scrolls.
void expectEveryEntryReachable(SeriesLegend* legend, const std::string& where) {
  SCOPED_TRACE(where);
  const bool scrolls = legend->verticalScrollBar()->maximum() > 0;
  for (int i = 0; i < legend->count(); ++i) {
    const QRect item = legend->visualItemRect(legend->item(i));
    EXPECT_TRUE(scrolls || legend->viewport()->rect().contains(item))
        << legend->item(i)->text().toStdString() << " is cut off and the legend cannot scroll";
    EXPECT_LE(legend->fontMetrics().horizontalAdvance(legend->item(i)->text()),
              legend->viewport()->width())
        << legend->item(i)->text().toStdString() << " is wider than its legend";
  }
}

// The labels `axis` shows, as Qt Charts prints them (its printf-style label format).
QStringList axisLabels(const QValueAxis* axis) {
  QStringList labels;
  const QByteArray format =
      axis->labelFormat().isEmpty() ? QByteArray("%.1f") : axis->labelFormat().toLatin1();
  // Qt passes an integer to a %d or %i format, a double otherwise.
  const bool integral = format.contains('d') || format.contains('i');
  auto label = [&](double v) {
    labels << (integral ? QString::asprintf(format.constData(), static_cast<int>(std::lround(v)))
                        : QString::asprintf(format.constData(), v));
  };
  if (axis->tickType() == QValueAxis::TicksDynamic && axis->tickInterval() > 0) {
    const double first =
        axis->tickAnchor() +
        std::ceil((axis->min() - axis->tickAnchor()) / axis->tickInterval() - 1e-9) *
            axis->tickInterval();
    for (double v = first; v <= axis->max() + 1e-9 * axis->tickInterval();
         v += axis->tickInterval())
      label(v);
  } else {
    for (int i = 0; i < axis->tickCount(); ++i)
      label(axis->min() + (axis->max() - axis->min()) * i / std::max(1, axis->tickCount() - 1));
  }
  return labels;
}

// No label of a horizontal axis is wider than the spacing of its ticks (Qt elides it).
void expectHorizontalLabelsFit(QChartView* view, const std::string& where) {
  QChart* chart = view->chart();
  for (QAbstractAxis* a : chart->axes(Qt::Horizontal)) {
    auto* axis = qobject_cast<QValueAxis*>(a);
    if (axis == nullptr || !axis->isVisible() || !axis->labelsVisible()) continue;
    const QStringList labels = axisLabels(axis);
    if (labels.size() < 2) continue;
    const double spacing = chart->plotArea().width() / (labels.size() - 1);
    const QFontMetrics metrics(axis->labelsFont());
    for (const QString& text : labels)
      EXPECT_LE(metrics.horizontalAdvance(text), spacing)
          << where << ": '" << text.toStdString() << "' of '" << chart->title().toStdString()
          << "' does not fit its spacing";
  }
}

void expect3dReadable(const std::string& where) {
  for (QWindow* window : QGuiApplication::allWindows()) {
    auto* graph = qobject_cast<Q3DScatter*>(window);
    if (graph == nullptr || !window->isVisible()) continue;
    SCOPED_TRACE(where);
    const bool sphere = !graph->customItems().isEmpty();
    if (sphere) {
      // The Lattice sphere: no box labels, its axes named at their tips.
      for (QValue3DAxis* axis : {graph->axisX(), graph->axisY(), graph->axisZ()})
        EXPECT_FALSE(axis->isTitleVisible());
      for (QCustom3DItem* item : graph->customItems()) {
        auto* name = qobject_cast<QCustom3DLabel*>(item);
        ASSERT_NE(name, nullptr);
        EXPECT_FALSE(name->text().isEmpty()) << "an axis without its name";
        EXPECT_LE(name->position().length(), graph->axisX()->max()) << "outside the box";
      }
      continue;
    }
    // The looped PCA: round labels strictly inside each axis's range.
    EXPECT_GE(graph->activeTheme()->font().pointSize(), 60);
    for (QValue3DAxis* axis : {graph->axisX(), graph->axisY(), graph->axisZ()}) {
      EXPECT_NE(qobject_cast<InsetAxisTicks*>(axis->formatter()), nullptr)
          << "labels at the range's ends meet at the box's corners";
      const QStringList labels = axis->labels();
      EXPECT_FALSE(labels.isEmpty());
    }
  }
}

void walkModelPlots(int width, int height) {
  Session s;
  s->resize(width, height);
  settle(200);
  ModelTab* tab = openModelsTab(*s);
  ASSERT_NE(tab, nullptr);
  for (const QString& title : modelTitles(tab)) {
    const std::string where =
        std::to_string(width) + "x" + std::to_string(height) + " " + title.toStdString();
    chooseInCombo(modelBox(tab), title);
    runModel(tab, 60000);
    settle(300);  // the charts lay out, the 3D windows render
    for (SeriesLegend* legend : tab->findChildren<SeriesLegend*>())
      if (legend->isVisible()) expectEveryEntryReachable(legend, where);
    for (QChartView* view : tab->findChildren<QChartView*>())
      if (view->isVisible()) expectHorizontalLabelsFit(view, where);
    expect3dReadable(where);
    if (auto* lattice = findVisible<LatticeView>(tab)) {
      // Eight slots: every one in both charts' legends (s7 and s8 were dropped).
      for (StepChart* chart : {lattice->normsChart(), lattice->writeChart()}) {
        ASSERT_TRUE(chart->legend()->isVisible()) << where;
        EXPECT_EQ(chart->legend()->count(), 8) << where;
      }
    }
    checkpoint(*s, QStringLiteral("model_plots_%1x%2_%3")
                       .arg(width)
                       .arg(height)
                       .arg(title.section(QLatin1Char(' '), 0, 0)));
  }
}

TEST(ModelPlotsScenario, EveryLegendAndAxisReadsAt1000x700) { walkModelPlots(1000, 700); }

TEST(ModelPlotsScenario, EveryLegendAndAxisReadsAt1600x1000) { walkModelPlots(1600, 1000); }

}  // namespace model_plots
}  // namespace lsrl::studio
