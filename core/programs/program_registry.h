// The paper's programs by name, for the CLI (`lsrl program NAME --set key=value`), the
// editor and the Python bindings.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/graph/graph.h"
#include "core/programs/more_ones.h"
#include "core/programs/tok2tok.h"
#include "core/programs/vec2vec.h"
#include "core/util/error.h"

namespace lsrl {

struct ProgramInfo {
  std::string name;
  std::string description;
  std::vector<std::string> keys;  // accepted parameter keys
};

// more_ones (keys: mu), vec2vec (n, m, conditional, mu, lambda), tok2tok (L,
// conditional, mu, lambda).
const std::vector<ProgramInfo>& programInfos();

// Values use the scalar grammar (Exact::parse); n, m and L must be integers. Unknown
// names, keys or values throw lsrl::Error listing the valid ones.
Graph buildProgram(const std::string& name, const std::map<std::string, std::string>& params);

// The inputs a paper program is meant for, for lsrl compile's precision pass
// (docs/precision.md): tok2tok reads tokens 0..9 (lsrl prompt's default vocabulary),
// more_ones bits, vec2vec coordinates, cell corners and values in [-3, 3] (lsrl prompt's
// test functions); the horizon is a default long enough for the prompts lsrl prompt writes.
struct ProgramDomain {
  Exact lo;
  Exact hi;
  std::optional<Exact> grid;  // inputs on lo + grid·ℤ
  int horizon = 1024;
};
ProgramDomain programDomain(const std::string& name);

// The parsers behind buildProgram, for callers that want the structs.
MoreOnesParams moreOnesParams(const std::map<std::string, std::string>& params);
Vec2vecParams vec2vecParams(const std::map<std::string, std::string>& params);
Tok2tokParams tok2tokParams(const std::map<std::string, std::string>& params);

}  // namespace lsrl
