// The minGRU / minLSTM gates view: heat maps of a gate and the hidden state over
// tokens, linked to the step, with their exports.
#include <gtest/gtest.h>

#include <QComboBox>
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
#include <cmath>
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
    test::showRun(view, run, 1200, 900);
    EXPECT_EQ(view.channelOrder(), GatesView::ChannelOrder::kRareTokens);  // the default
    view.setChannelOrder(GatesView::ChannelOrder::kIndex);
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
    const QString row2 =
        QStringLiteral("%1[2] = %2")
            .arg(QString::fromStdString(first))
            .arg(run->trace.get(first)
                     .data[static_cast<size_t>(17 * run->trace.get(first).shape[1] + 2)],
                 0, 'f', 3);
    EXPECT_NE(view.valuesLabel()->text().indexOf(row2), -1)
        << view.valuesLabel()->text().toStdString();
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

// Channel c of a [T][C] array: its standard deviation over the tokens, and its mean off
// token `common` minus its mean on it.
double spreadOf(const Tensor& a, int c) {
  const int T = static_cast<int>(a.shape[0]), C = static_cast<int>(a.shape[1]);
  double sum = 0, sumSq = 0;
  for (int t = 0; t < T; ++t) sum += a.data[static_cast<size_t>(t * C + c)];
  for (int t = 0; t < T; ++t) {
    const double d = a.data[static_cast<size_t>(t * C + c)] - sum / T;
    sumSq += d * d;
  }
  return std::sqrt(sumSq / T);
}

double contrastOf(const Tensor& a, int c, const std::vector<int>& tokens, int common) {
  const int T = static_cast<int>(a.shape[0]), C = static_cast<int>(a.shape[1]);
  double on = 0, off = 0;
  int nOn = 0;
  for (int t = 0; t < T; ++t) {
    const double v = a.data[static_cast<size_t>(t * C + c)];
    if (tokens[static_cast<size_t>(t)] == common) {
      on += v;
      ++nOn;
    } else {
      off += v;
    }
  }
  return off / (T - nOn) - on / nOn;
}

// The rows of a heat map as channels ("z[17]" → 17).
std::vector<int> channelsOfRows(const HeatmapData& map) {
  std::vector<int> channels;
  for (const QString& label : map.rowLabels) {
    const int open = static_cast<int>(label.indexOf('['));
    channels.push_back(label.mid(open + 1, label.size() - open - 2).toInt());
  }
  return channels;
}

TEST(GatesView, ChannelsOrderedByContrastOrSpreadInBothMapsAndTheChart) {
  ModelRunRequest r;
  r.kind = "mingru";
  r.config = {{"d_h", 24}};
  const auto run = std::make_shared<ModelRun>(runSeedModelRequest(r));
  GatesView view;
  test::showRun(view, run, 1200, 900);
  const Tensor& z = run->trace.get("z");
  const Tensor& h = run->trace.get("hidden");
  // Selective copying: token 0 (noise) is the commonest.
  std::vector<int> tokens;
  for (const auto& row : run->input)
    tokens.push_back(static_cast<int>(std::max_element(row.begin(), row.end()) - row.begin()));
  ASSERT_GT(std::count(tokens.begin(), tokens.end(), 0), static_cast<long>(tokens.size()) / 2);
  for (const auto order :
       {GatesView::ChannelOrder::kRareTokens, GatesView::ChannelOrder::kMostVarying}) {
    SCOPED_TRACE(static_cast<int>(order));
    view.setChannelOrder(order);
    const HeatmapData& gates = view.gateMap()->data();
    ASSERT_EQ(gates.rows(), 24);
    const std::vector<int> channels = channelsOfRows(gates);
    EXPECT_EQ(channelsOfRows(view.hiddenMap()->data()), channels);
    for (int row = 0; row < gates.rows(); ++row) {
      const int c = channels[static_cast<size_t>(row)];
      for (int t = 0; t < gates.columns(); t += 7) {
        EXPECT_EQ(gates.values[static_cast<size_t>(row)][static_cast<size_t>(t)],
                  z.data[static_cast<size_t>(t * 24 + c)]);
        EXPECT_EQ(view.hiddenMap()->data().values[static_cast<size_t>(row)][static_cast<size_t>(t)],
                  h.data[static_cast<size_t>(t * 24 + c)]);
      }
      if (row == 0) continue;
      const int before = channels[static_cast<size_t>(row) - 1];
      if (order == GatesView::ChannelOrder::kMostVarying) {
        EXPECT_GE(spreadOf(z, before), spreadOf(z, c)) << row;
      } else {
        EXPECT_GE(contrastOf(z, before, tokens, 0), contrastOf(z, c, tokens, 0) - 1e-12) << row;
      }
    }
    std::vector<int> sorted = channels;
    std::sort(sorted.begin(), sorted.end());
    for (int c = 0; c < 24; ++c) EXPECT_EQ(sorted[static_cast<size_t>(c)], c);  // a permutation
    EXPECT_NE(channels, sorted);  // random weights: channel 0 is not the first of 24
    // The chart draws the first eight rows, named as in the heat map.
    ASSERT_EQ(view.chart()->lines().size(), 8u);
    for (int row = 0; row < 8; ++row)
      EXPECT_EQ(view.chart()->lines()[static_cast<size_t>(row)]->name(), gates.rowLabels[row]);
  }
  // The values line names the first 16 rows and counts the rest.
  EXPECT_NE(view.valuesLabel()->text().indexOf(QStringLiteral("… (8 more rows)")), -1);
  // The combo box switches to index order.
  auto* box = view.findChild<QComboBox*>(QStringLiteral("ChannelOrder"));
  ASSERT_NE(box, nullptr);
  box->setCurrentIndex(2);
  EXPECT_EQ(view.channelOrder(), GatesView::ChannelOrder::kIndex);
  EXPECT_EQ(view.gateMap()->data().rowLabels[5], QStringLiteral("z[5]"));
}

TEST(GatesView, ExportsAndMissingArrays) {
  const auto run = runOf("mingru");
  GatesView view;
  test::showRun(view, run, 1100, 800);
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
