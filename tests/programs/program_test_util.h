// Helpers shared by the tests that run the paper's programs.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/executor/executor.h"
#include "core/graph/graph.h"

namespace lsrl::testing_programs {

// tests/data/reference_cases.json: the golden cases from the paper authors' implementation.
inline nlohmann::json referenceCases() {
  std::ifstream in(std::string(LSRL_TEST_DATA_DIR) + "/reference_cases.json");
  EXPECT_TRUE(in.good()) << "missing tests/data/reference_cases.json";
  return nlohmann::json::parse(in);
}

inline FloatSequence toFloat(const ExactSequence& xs) {
  FloatSequence out;
  out.reserve(xs.size());
  for (const ExactVector& v : xs) {
    FloatVector f;
    f.reserve(v.size());
    for (const Exact& e : v) f.push_back(e.toDouble());
    out.push_back(std::move(f));
  }
  return out;
}

inline NodeId requireNamed(const Graph& g, const std::string& name) {
  const NodeId id = g.findByName(name);
  EXPECT_NE(id, kNoNode) << "no node named " << name;
  return id;
}

// The trajectory of a named node: [step][component].
template <class V>
std::vector<std::vector<V>> trajectory(const Graph& g, const Trace<V>& trace,
                                       const std::string& name) {
  return trace.trajectory(requireNamed(g, name));
}

// The trajectory of a named width-1 node.
template <class V>
std::vector<V> scalarTrajectory(const Graph& g, const Trace<V>& trace, const std::string& name) {
  std::vector<V> out;
  for (const auto& row : trajectory(g, trace, name)) {
    EXPECT_EQ(row.size(), 1u) << name;
    out.push_back(row.empty() ? V() : row[0]);
  }
  return out;
}

inline std::vector<Exact> exacts(const std::vector<int>& v) {
  std::vector<Exact> out;
  out.reserve(v.size());
  for (int x : v) out.emplace_back(x);
  return out;
}

inline std::vector<std::vector<Exact>> exactRows(const std::vector<std::vector<int>>& rows) {
  std::vector<std::vector<Exact>> out;
  out.reserve(rows.size());
  for (const auto& r : rows) out.push_back(exacts(r));
  return out;
}

}  // namespace lsrl::testing_programs
