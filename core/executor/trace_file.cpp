#include "core/executor/trace_file.h"

#include <nlohmann/json.hpp>

#include "core/io/sequence_file.h"

namespace lsrl {

namespace {

nlohmann::ordered_json rowsToJson(const std::vector<std::vector<double>>& rows) {
  return doubleRowsToJson(rows);
}
nlohmann::ordered_json rowsToJson(const std::vector<ExactVector>& rows) {
  return exactRowsToJson(rows);
}

template <class V>
nlohmann::ordered_json toJson(const Graph& g, const std::vector<Trace<V>>& traces,
                              const char* numeric) {
  nlohmann::ordered_json doc;
  doc["format"] = "lsrl-trace";
  doc["version"] = 1;
  doc["numeric"] = numeric;
  nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
  if (!traces.empty()) {
    for (NodeId id : traces.front().nodes()) {
      const Node& n = g.node(id);
      nlohmann::ordered_json jn;
      jn["id"] = id;
      jn["op"] = std::string(n.countedOpName());
      jn["dim"] = n.dim;
      if (!n.name.empty()) jn["name"] = n.name;
      nodes.push_back(jn);
    }
  }
  doc["nodes"] = nodes;
  nlohmann::ordered_json sequences = nlohmann::ordered_json::array();
  for (const Trace<V>& t : traces) {
    nlohmann::ordered_json seq;
    seq["steps"] = t.steps();
    nlohmann::ordered_json values;
    for (NodeId id : t.nodes()) values[std::to_string(id)] = rowsToJson(t.trajectory(id));
    seq["values"] = values;
    sequences.push_back(seq);
  }
  doc["sequences"] = sequences;
  return doc;
}

}  // namespace

nlohmann::ordered_json tracesToJson(const Graph& g, const std::vector<FloatTrace>& traces) {
  return toJson(g, traces, "float64");
}

nlohmann::ordered_json tracesToJson(const Graph& g, const std::vector<ExactTrace>& traces) {
  return toJson(g, traces, "exact");
}

}  // namespace lsrl
