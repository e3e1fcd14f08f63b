// Values over time that the trajectory views plot: one row per token step, one column
// per labelled component (a node's entries "ones[0]", or a compiled model's state
// dimensions labelled with the program variable they carry, "query[1]"). Filled by the
// token stepper from an executor trace; Qt-free so it is built and tested without views.
#pragma once

#include <string>
#include <vector>

namespace lsrl::studio {

struct StateSeries {
  std::string title;                        // "LinState 3 'counter'", "layer 2 state"
  std::vector<std::string> labels;          // one per component
  std::vector<std::vector<double>> values;  // [step][component], every row labels.size() wide
  int steps() const { return static_cast<int>(values.size()); }
  int components() const { return static_cast<int>(labels.size()); }
};

}  // namespace lsrl::studio
