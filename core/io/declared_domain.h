// The input domain a program file declares in its metadata, as `lsrl program` writes it
// for the paper's programs: "domain": {"box": [lo, hi], "grid": step or null, "horizon": T}.
// lsrl compile fits the program's constants to it by default, the explorer's Live panel
// when the prompt lies inside it (docs/precision.md). Values are kept as their texts (the
// exact scalar grammar); a field that is missing or of the wrong type is left out.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

namespace lsrl {

struct DeclaredDomain {
  std::optional<std::string> lo, hi;  // both or neither
  std::optional<std::string> grid;
  std::optional<int> horizon;  // 1 … 10^9
  bool complete() const { return lo && hi && horizon; }
};

DeclaredDomain declaredDomain(const nlohmann::json& metadata);

}  // namespace lsrl
