// The minGRU / minLSTM gates view (issue 8): heat maps of a gate and the hidden state over
// tokens, linked to the step, with their exports.
#include <gtest/gtest.h>

#include <QDir>
#include <QElapsedTimer>
#include <QImage>
#include <QLabel>
#include <QLineSeries>
#include <QSignalSpy>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cstdio>

#include "app/studio/plots/heatmap_widget.h"
#include "app/studio/zoo/gates_view.h"
#include "app/studio/zoo/model_run.h"
#include "app/studio/zoo/step_chart.h"
#include "core/util/error.h"
#include "studio/studio_test_util.h"
#include "studio/zoo_test_util.h"

namespace lsrl::studio {
namespace {

std::shared_ptr<const ModelRun> runOf(const std::string& kind) {
  ModelRunRequest r;
  r.kind = kind;
  return std::make_shared<ModelRun>(runSeedModelRequest(r));
}

// The heat map shows trace[name] transposed: row = channel, column = token.
void expectMapEquals(const HeatmapWidget& map, const Tensor& a) {
  const int T = static_cast<int>(a.shape[0]), C = static_cast<int>(a.shape[1]);
  ASSERT_EQ(map.data().rows(), C);
  ASSERT_EQ(map.data().columns(), T);
  for (int c = 0; c < C; ++c)
    for (int t = 0; t < T; t += 5)
      EXPECT_EQ(map.data().values[static_cast<size_t>(c)][static_cast<size_t>(t)],
                a.data[static_cast<size_t>(t) * C + static_cast<size_t>(c)]);
}

TEST(GatesView, ShowsTheGatesOfMinGruAndMinLstm) {
  for (const char* kind : {"mingru", "minlstm"}) {
    SCOPED_TRACE(kind);
    const auto run = runOf(kind);
    GatesView view;
    view.resize(1200, 900);
    view.setRun(run);
    view.show();
    QApplication::processEvents();
    const std::string first = std::string(kind) == "mingru" ? "z" : "f_prime";
    EXPECT_EQ(view.array().toStdString(), first);
    expectMapEquals(*view.gateMap(), run->trace.get(first));
    expectMapEquals(*view.hiddenMap(), run->trace.get("hidden"));
    EXPECT_EQ(view.gateMap()->colourRange(), 1);  // a gate: [0, 1] on a fixed scale
    EXPECT_EQ(view.gateMap()->data().rowLabels[2].toStdString(), first + "[2]");
    view.setStep(17);
    EXPECT_EQ(view.gateMap()->marker(), 17);
    EXPECT_EQ(view.hiddenMap()->marker(), 17);
    EXPECT_NE(view.valuesLabel()->text().indexOf(QStringLiteral("token 17")), -1);
    ASSERT_EQ(view.chart()->lines().size(), 8u);
    EXPECT_EQ(view.chart()->lines()[0]->count(), static_cast<int>(run->input.size()));
    test::saveScreenshot(view, QStringLiteral("zoo_gates_") + QString::fromUtf8(kind));
    const std::string second = std::string(kind) == "mingru" ? "h_tilde" : "i_prime";
    ASSERT_TRUE(view.setArray(QString::fromStdString(second)));
    expectMapEquals(*view.gateMap(), run->trace.get(second));
    EXPECT_FALSE(view.setArray(QStringLiteral("nope")));
    // Clicking a column asks for that token.
    QSignalSpy spy(&view, &ModelView::stepRequested);
    const QRectF cell = view.gateMap()->cellRect(0, 30);
    QTest::mouseClick(view.gateMap(), Qt::LeftButton, {}, cell.center().toPoint());
    ASSERT_EQ(spy.count(), 1);
    EXPECT_EQ(spy.at(0).at(0).toInt(), 30);
  }
}

TEST(GatesView, ExportsAndMissingArrays) {
  const auto run = runOf("mingru");
  GatesView view;
  view.resize(1100, 800);
  view.setRun(run);
  view.show();
  QApplication::processEvents();
  QTemporaryDir dir;
  test::writeEveryExport(view, dir);
  const std::string error = test::errorForEmptyTrace(view, *run);
  EXPECT_NE(error.find("\"z\""), std::string::npos) << error;
}

TEST(GatesView, StepsRedrawWithinFiftyMilliseconds) {
  const auto run = runOf("minlstm");
  GatesView view;
  view.resize(1200, 900);
  view.setRun(run);
  view.show();
  const double median = test::medianStepRedrawMs(
      view, static_cast<int>(run->input.size()), [&](int t) { view.setStep(t); }, "Gates view");
  EXPECT_LT(median, 50);
}

}  // namespace
}  // namespace lsrl::studio
