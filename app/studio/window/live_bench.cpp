#include "app/studio/window/live_bench.h"

#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/studio/live/live_panel.h"
#include "app/studio/window/main_window.h"
#include "core/io/declared_domain.h"
#include "core/util/error.h"

namespace lsrl::studio {

namespace {

constexpr int kTimeoutMs = 120000;

// The first Linear in program order: its bias entry 0 is the edited value.
NodeId editedNode(const Graph& g) {
  for (NodeId id : g.topologicalOrder())
    if (g.node(id).op == Op::Linear && g.node(id).dim > 0) return id;
  return kNoNode;
}

// The longest time between two ticks of a 1 ms timer: how long the event loop was busy.
class GapMeter : public QObject {
 public:
  GapMeter() {
    timer_.setTimerType(Qt::PreciseTimer);
    timer_.setInterval(1);
    connect(&timer_, &QTimer::timeout, this, [this] {
      const qint64 now = clock_.nsecsElapsed();
      if (last_ >= 0) worst_ = std::max(worst_, now - last_);
      last_ = now;
    });
    clock_.start();
    timer_.start();
  }
  double worstMs() const { return static_cast<double>(worst_) / 1e6; }

 private:
  QTimer timer_;
  QElapsedTimer clock_;
  qint64 last_ = -1;
  qint64 worst_ = 0;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

int runLiveBench(MainWindow& window, bool fitToDeclared, int edits) {
  LivePanel* live = window.livePanel();
  Document* doc = window.document();
  window.resize(1600, 1000);
  window.show();
  if (fitToDeclared) {
    if (!declaredDomain(doc->metadata()).complete()) {
      std::fprintf(stderr, "lsrl-studio: --fit declared: %s declares no input domain\n",
                   qPrintable(doc->displayName()));
      return 1;
    }
    live->domainBox()->setCurrentIndex(1);
  }
  if (!live->waitUntilCurrent(kTimeoutMs) || live->result() == nullptr || !live->result()->ok()) {
    std::fprintf(stderr, "lsrl-studio: --bench live: the Live panel did not answer: %s\n",
                 qPrintable(live->statusLabel()->text()));
    return 1;
  }
  const NodeId node = editedNode(doc->graph());
  if (node == kNoNode) {
    std::fprintf(stderr, "lsrl-studio: --bench live: the program has no Linear to edit\n");
    return 1;
  }
  const Exact original = doc->graph().node(node).b.at(0);
  std::vector<double> latencies;
  // The job's time by stage (medians over the edits): where the latency goes.
  std::map<std::string, std::vector<double>> stages;
  GapMeter gaps;
  for (int k = 0; k < edits; ++k) {
    const int before = live->updates();
    QElapsedTimer clock;
    clock.start();
    try {
      doc->setEntry(node, Field::b, 0, 0, k % 2 == 0 ? original + Exact::rational(1, 2) : original);
    } catch (const Error& e) {
      std::fprintf(stderr, "lsrl-studio: --bench live: edit %d refused: %s\n", k, e.what());
      return 1;
    }
    while (live->updates() == before || !live->isCurrent()) {
      if (clock.elapsed() > kTimeoutMs) {
        std::fprintf(stderr, "lsrl-studio: --bench live: no answer %d s after edit %d\n",
                     kTimeoutMs / 1000, k);
        return 1;
      }
      QApplication::processEvents(QEventLoop::WaitForMoreEvents);
    }
    latencies.push_back(static_cast<double>(clock.nsecsElapsed()) / 1e6);
    if (const LiveResult* r = live->result(); r != nullptr && r->float64 && r->fp32) {
      stages["job"].push_back(r->seconds * 1000);
      stages["program"].push_back(r->programSeconds * 1000);
      for (const auto& [name, net] :
           {std::pair{"float64", &*r->float64}, std::pair{"fp32", &*r->fp32}}) {
        const std::string n = name;
        stages[n + "_fit"].push_back(net->fitSeconds * 1000);
        stages[n + "_compile"].push_back(net->compileSeconds * 1000);
        stages[n + "_run"].push_back(net->runSeconds * 1000);
        stages[n + "_certify"].push_back(net->certifySeconds * 1000);
      }
    }
  }
  nlohmann::ordered_json line;
  line["bench"] = "live";
  line["file"] = doc->displayName().toStdString();
  line["nodes"] = doc->graph().liveNodeCount();
  line["fit"] = fitToDeclared ? "declared" : "prompt";
  line["edits"] = edits;
  line["median_ms"] = median(latencies);
  line["worst_ms"] = *std::max_element(latencies.begin(), latencies.end());
  line["max_event_gap_ms"] = gaps.worstMs();
  nlohmann::ordered_json breakdown;
  for (const char* name :
       {"job", "program", "float64_fit", "float64_compile", "float64_run", "float64_certify",
        "fp32_fit", "fp32_compile", "fp32_run", "fp32_certify"})
    if (!stages[name].empty()) breakdown[name] = median(stages[name]);
  line["stage_median_ms"] = breakdown;
  std::printf("%s\n", line.dump().c_str());
  return 0;
}

}  // namespace lsrl::studio
