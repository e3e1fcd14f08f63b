#include "core/io/graph_file.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>
#include <vector>

#include "core/graph/checks.h"
#include "core/io/json_util.h"
#include "core/io/sequence_file.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace lsrl {

namespace {

using nlohmann::json;

constexpr std::string_view kFormatName = "lsrl-graph";

// ---------------------------------------------------------------------------------------
// Saving

bool allZero(const ExactVector& v) {
  return std::all_of(v.begin(), v.end(), [](const Exact& x) { return x.isZero(); });
}

json vectorToJson(const ExactVector& v) {
  json a = json::array();
  for (const Exact& x : v) a.push_back(exactToJson(x));
  return a;
}

json matrixToJson(const ExactMatrix& m) {
  json entries = json::array();
  const auto& rs = m.rowStart();
  const auto& ci = m.colIndex();
  const auto& vals = m.values();
  for (int r = 0; r < m.rows(); ++r) {
    for (auto k = static_cast<size_t>(rs[static_cast<size_t>(r)]);
         k < static_cast<size_t>(rs[static_cast<size_t>(r) + 1]); ++k) {
      entries.push_back(json::array({r, ci[k], exactToJson(vals[k])}));
    }
  }
  return json{{"shape", json::array({m.rows(), m.cols()})}, {"entries", std::move(entries)}};
}

// A Slice whose matrix is exactly its selection (and b = 0) is saved without them.
bool isPlainSlice(const Graph& g, const Node& n) {
  if (!n.isSlice() || n.inputs.size() != 1) return false;
  const NodeId x = n.inputs[0];
  if (x < 0 || static_cast<size_t>(x) >= g.nodeCount()) return false;
  const int width = g.nodes()[static_cast<size_t>(x)].dim;
  const SliceTag& s = *n.slice;
  if (s.start < 0 || s.start >= s.end || s.end > width || n.dim != s.end - s.start) return false;
  if (static_cast<int>(n.b.size()) != n.dim || !allZero(n.b)) return false;
  return n.A == ExactMatrix::selection(s.start, s.end, width);
}

json nodeToJson(const Graph& g, const Node& n) {
  json j = json::object();
  j["id"] = n.id;
  const bool plainSlice = isPlainSlice(g, n);
  j["op"] = plainSlice ? std::string("Slice") : std::string(opName(n.op));
  j["dim"] = n.dim;
  if (n.op != Op::Input || !n.inputs.empty()) j["inputs"] = n.inputs;
  if (!n.name.empty()) j["name"] = n.name;
  if (n.alwaysPositive) j["always_positive"] = true;
  if (n.group != kNoGroup) j["group"] = n.group;
  if (n.slice) j["slice"] = json::array({n.slice->start, n.slice->end});
  // Vectors that are all zero and of the node's width are omitted (the default).
  auto vec = [&](const char* key, const ExactVector& v) {
    if (static_cast<int>(v.size()) == n.dim && allZero(v)) return;
    if (v.empty()) return;
    j[key] = vectorToJson(v);
  };
  if (n.op == Op::Linear && !plainSlice) {
    j["A"] = matrixToJson(n.A);
    vec("b", n.b);
  } else if (n.op == Op::LinState) {
    j["A"] = matrixToJson(n.A);
    j["B"] = matrixToJson(n.B);
    vec("init", n.init);
    vec("bias", n.bias);
  }
  return j;
}

json groupToJson(const Group& gr) {
  json j = json::object();
  j["id"] = gr.id;
  j["function"] = gr.function;
  json params = json::array();
  for (const auto& [k, v] : gr.params) params.push_back(json::array({k, v}));
  j["params"] = std::move(params);
  if (gr.parent != kNoGroup) j["parent"] = gr.parent;
  j["nodes"] = gr.nodes;
  if (gr.output != kNoNode) j["output"] = gr.output;
  if (gr.expanded) j["expanded"] = true;
  return j;
}

// {"<id>": [x, y]} of the entries naming an existing item (ids below `count`) with a
// finite position (stale or unplaced entries are not saved).
json positionsToJson(const std::map<int, NodePosition>& positions, size_t count) {
  json out = json::object();
  for (const auto& [id, pos] : positions) {
    if (id < 0 || static_cast<size_t>(id) >= count) continue;
    if (!std::isfinite(pos.x) || !std::isfinite(pos.y)) continue;
    out[std::to_string(id)] = json::array({pos.x, pos.y});
  }
  return out;
}

// Key order of the saved text: the most telling keys first, then the rest by name.
constexpr std::array<std::string_view, 8> kTopKeyOrder = {
    "format", "version", "conductor", "output", "nodes", "groups", "layout", "metadata"};
constexpr std::array<std::string_view, 21> kKeyOrder = {
    "id",    "op",     "function", "name",  "dim",    "inputs",   "slice", "always_positive",
    "group", "params", "parent",   "nodes", "output", "expanded", "A",     "B",
    "b",     "init",   "bias",     "shape", "entries"};

template <size_t N>
std::vector<json::const_iterator> orderedItems(const json& obj,
                                               const std::array<std::string_view, N>& order) {
  auto rank = [&order](const std::string& key) {
    for (size_t i = 0; i < N; ++i) {
      if (order[i] == key) return i;
    }
    return N;
  };
  std::vector<json::const_iterator> items;
  for (auto it = obj.begin(); it != obj.end(); ++it) items.push_back(it);
  std::stable_sort(items.begin(), items.end(), [&rank](const auto& a, const auto& b) {
    return rank(a.key()) < rank(b.key());  // ties keep json's (alphabetical) order
  });
  return items;
}

// Compact, on one line, with ", " and ": " separators and the key order above.
void writeCompact(const json& v, std::string& out) {
  if (v.is_object()) {
    out += '{';
    bool first = true;
    for (const auto& it : orderedItems(v, kKeyOrder)) {
      if (!first) out += ", ";
      first = false;
      out += json(it.key()).dump();
      out += ": ";
      writeCompact(it.value(), out);
    }
    out += '}';
  } else if (v.is_array()) {
    out += '[';
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out += ", ";
      writeCompact(v[i], out);
    }
    out += ']';
  } else {
    out += v.dump();
  }
}

// {"<id>": [x, y], ...} in numeric order of the ids, one per line, indented by `indent`.
void writePositions(const json& v, const std::string& indent, std::string& out) {
  if (v.empty()) {
    out += "{}";
    return;
  }
  std::vector<std::pair<long long, json::const_iterator>> items;
  for (auto kv = v.begin(); kv != v.end(); ++kv) {
    long long id = 0;
    try {
      id = std::stoll(kv.key());
    } catch (...) {
      id = LLONG_MAX;
    }
    items.emplace_back(id, kv);
  }
  std::stable_sort(items.begin(), items.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  out += "{\n";
  for (size_t i = 0; i < items.size(); ++i) {
    out += indent + "  " + json(items[i].second.key()).dump() + ": ";
    writeCompact(items[i].second.value(), out);
    out += i + 1 < items.size() ? ",\n" : "\n";
  }
  out += indent + "}";
}

// ---------------------------------------------------------------------------------------
// Loading

std::string validOps() { return "Input, Linear, ReLU, LinState, Concat, Multi, Slice"; }

std::string joinKeys(std::initializer_list<std::string_view> keys) {
  std::string s;
  for (std::string_view k : keys) {
    if (!s.empty()) s += ", ";
    s += k;
  }
  return s;
}

class Loader {
 public:
  Loader(const json& doc, const std::string& source) : doc_(doc), source_(source) {}

  Graph load(json* metadata) {
    if (!doc_.is_object()) {
      fail("",
           "expected a JSON object with \"format\": \"lsrl-graph\", got " + io::describeJson(doc_));
    }
    version_ = checkHeader();
    checkKeys(
        doc_, "", "a graph document",
        {"format", "version", "conductor", "nodes", "output", "groups", "layout", "metadata"});
    if (auto it = doc_.find("conductor"); it != doc_.end()) {
      long long c = 0;
      if (!io::jsonInteger(*it, c) || c < 1) {
        fail("conductor",
             "expected a positive integer (informational), got " + io::describeJson(*it));
      }
    }
    const json& nodes = require(doc_, "nodes", "");
    if (!nodes.is_array())
      fail("nodes", "expected an array of nodes, got " + io::describeJson(nodes));
    nodeGroups_.reserve(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) loadNode(nodes[i], i);
    finishSlices();
    loadOutput();
    loadGroups();
    loadLayout();
    if (metadata) {
      auto it = doc_.find("metadata");
      *metadata = it == doc_.end() ? json() : *it;
    }
    return std::move(g_);
  }

 private:
  [[noreturn]] void fail(const std::string& where, const std::string& message) const {
    io::failAt(source_, where, message);
  }

  static std::string at(const std::string& where, const char* key) {
    return where.empty() ? std::string(key) : where + "." + key;
  }
  static std::string at(const std::string& where, size_t i) {
    return where + "[" + std::to_string(i) + "]";
  }

  const json& require(const json& obj, const char* key, const std::string& where) const {
    auto it = obj.find(key);
    if (it == obj.end()) fail(where, "missing key \"" + std::string(key) + "\"");
    return *it;
  }

  void checkKeys(const json& obj, const std::string& where, const std::string& what,
                 std::initializer_list<std::string_view> allowed) const {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      if (std::find(allowed.begin(), allowed.end(), it.key()) != allowed.end()) continue;
      fail(where, "unknown key \"" + it.key() + "\" in " + what +
                      " (valid keys: " + joinKeys(allowed) + ")");
    }
  }

  long long integer(const json& v, const std::string& where, long long lo, long long hi,
                    const std::string& what) const {
    long long x = 0;
    if (!io::jsonInteger(v, x)) {
      fail(where, "expected an integer " + what + ", got " + io::describeJson(v));
    }
    if (x < lo || x > hi) {
      fail(where, std::to_string(x) + " is not a valid " + what + " (expected " +
                      std::to_string(lo) + ".." + std::to_string(hi) + ")");
    }
    return x;
  }

  void spend(long long amount, const std::string& where) {
    budget_ += amount;
    if (budget_ > kMaxGraphFileWidth) {
      fail(where,
           "the graph is too large to load: its node widths and matrix rows add up to "
           "more than " +
               std::to_string(kMaxGraphFileWidth));
    }
  }

  long long checkHeader() const {
    auto f = doc_.find("format");
    if (f == doc_.end()) {
      fail("",
           "missing key \"format\"; this is not an LSRL graph file (expected \"format\": "
           "\"lsrl-graph\")");
    }
    if (!f->is_string() || f->get_ref<const std::string&>() != kFormatName) {
      fail("format", "expected \"lsrl-graph\", got " + io::describeJson(*f) +
                         "; this is not an LSRL graph file");
    }
    auto v = doc_.find("version");
    if (v == doc_.end()) {
      fail("", "missing key \"version\" (the graph format version, " +
                   std::to_string(kGraphFormatVersion) + ")");
    }
    long long version = 0;
    if (!io::jsonInteger(*v, version)) {
      fail("version", "expected an integer, got " + io::describeJson(*v));
    }
    if (version > kGraphFormatVersion) {
      fail("version", "this file uses graph format version " + std::to_string(version) +
                          ", newer than this build of LSRL Studio supports (up to " +
                          std::to_string(kGraphFormatVersion) + "); update LSRL Studio to open it");
    }
    if (version < 1) {
      fail("version", std::to_string(version) + " is not a graph format version (expected 1.." +
                          std::to_string(kGraphFormatVersion) + ")");
    }
    return version;
  }

  [[noreturn]] void valueError(const json& v, const std::string& where) const {
    io::exactValueError(v, source_ + ": " + where);
  }

  ExactVector vector(const json& v, const std::string& where) const {
    if (!v.is_array()) fail(where, "expected an array of values, got " + io::describeJson(v));
    ExactVector out;
    out.reserve(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      Exact x;
      if (!io::tryExactFromJson(v[i], x)) valueError(v[i], at(where, i));
      out.push_back(std::move(x));
    }
    return out;
  }

  void checkShape(long long rows, long long cols, const std::string& where) {
    if (rows * cols > kMaxMatrixEntries) {
      fail(where, "a " + std::to_string(rows) + "x" + std::to_string(cols) +
                      " matrix is beyond the limit of " + std::to_string(kMaxMatrixEntries) +
                      " entries");
    }
    spend(rows, where);
  }

  ExactMatrix matrix(const json& v, const std::string& where) {
    if (v.is_object()) return sparseMatrix(v, where);
    if (v.is_array()) return denseMatrix(v, where);
    fail(where,
         "expected a matrix {\"shape\": [rows, cols], \"entries\": [[row, col, value], "
         "...]} (or an array of rows), got " +
             io::describeJson(v));
  }

  ExactMatrix sparseMatrix(const json& v, const std::string& where) {
    checkKeys(v, where, "a matrix", {"shape", "entries"});
    const std::string shapeAt = at(where, "shape");
    const json& shape = require(v, "shape", where);
    if (!shape.is_array() || shape.size() != 2) {
      fail(shapeAt,
           "expected [rows, cols], got " + io::describeJson(shape) +
               (shape.is_array() ? " of " + std::to_string(shape.size()) + " values" : ""));
    }
    const int rows =
        static_cast<int>(integer(shape[0], at(shapeAt, size_t{0}), 0, kMaxNodeDim, "row count"));
    const int cols =
        static_cast<int>(integer(shape[1], at(shapeAt, size_t{1}), 0, kMaxNodeDim, "column count"));
    checkShape(rows, cols, shapeAt);
    std::vector<ExactMatrix::Entry> entries;
    if (auto it = v.find("entries"); it != v.end()) {
      const std::string entriesAt = at(where, "entries");
      if (!it->is_array()) {
        fail(entriesAt, "expected an array of [row, col, value], got " + io::describeJson(*it));
      }
      entries.reserve(it->size());
      for (size_t k = 0; k < it->size(); ++k) {
        const json& e = (*it)[k];
        if (!e.is_array() || e.size() != 3) {
          fail(at(entriesAt, k),
               "expected [row, col, value], got " + io::describeJson(e) +
                   (e.is_array() ? " of " + std::to_string(e.size()) + " values" : ""));
        }
        // An index that is not an integer (0.0, "1") says so; one out of range names the shape.
        const auto index = [&](size_t slot, const char* what, long long count) {
          long long value = -1;
          const std::string range = "0.." + std::to_string(count - 1);
          if (!io::jsonInteger(e[slot], value)) {
            fail(at(at(entriesAt, k), slot), std::string(what) + ": expected an integer " + range +
                                                 " (written without a decimal point), got " +
                                                 io::describeJson(e[slot]));
          }
          if (value < 0 || value >= count) {
            fail(at(at(entriesAt, k), slot), std::string(what) + " " + std::to_string(value) +
                                                 " is outside the " + std::to_string(rows) + "x" +
                                                 std::to_string(cols) +
                                                 " matrix (expected an integer " + range + ")");
          }
          return value;
        };
        const long long r = index(0, "row", rows);
        const long long c = index(1, "column", cols);
        Exact x;
        if (!io::tryExactFromJson(e[2], x)) valueError(e[2], at(at(entriesAt, k), 2));
        entries.push_back({static_cast<int>(r), static_cast<int>(c), std::move(x)});
      }
      // Duplicates would silently be summed: reject them.
      std::vector<size_t> order(entries.size());
      for (size_t k = 0; k < order.size(); ++k) order[k] = k;
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return entries[a].row != entries[b].row ? entries[a].row < entries[b].row
                                                : entries[a].col < entries[b].col;
      });
      for (size_t k = 1; k < order.size(); ++k) {
        const auto& a = entries[order[k - 1]];
        const auto& b = entries[order[k]];
        if (a.row == b.row && a.col == b.col) {
          fail(at(entriesAt, order[k]), "duplicate entry for (" + std::to_string(b.row) + ", " +
                                            std::to_string(b.col) + "); entries[" +
                                            std::to_string(order[k - 1]) + "] already sets it");
        }
      }
    }
    return ExactMatrix::fromEntries(rows, cols, std::move(entries));
  }

  ExactMatrix denseMatrix(const json& v, const std::string& where) {
    if (v.empty()) {
      fail(where, "an empty array has no shape; write {\"shape\": [0, cols], \"entries\": []}");
    }
    if (!v[0].is_array()) {
      fail(at(where, size_t{0}),
           "expected a row (an array of values), got " + io::describeJson(v[0]));
    }
    const long long rows = static_cast<long long>(v.size());
    const long long cols = static_cast<long long>(v[0].size());
    if (rows > kMaxNodeDim || cols > kMaxNodeDim) {
      fail(where, "a " + std::to_string(rows) + "x" + std::to_string(cols) +
                      " matrix is beyond the limit of " + std::to_string(kMaxNodeDim) +
                      " rows and columns");
    }
    checkShape(rows, cols, where);
    std::vector<ExactMatrix::Entry> entries;
    for (size_t r = 0; r < v.size(); ++r) {
      const json& row = v[r];
      if (!row.is_array()) {
        fail(at(where, r), "expected a row (an array of values), got " + io::describeJson(row));
      }
      if (static_cast<long long>(row.size()) != cols) {
        fail(at(where, r), "row has " + std::to_string(row.size()) + " values, expected " +
                               std::to_string(cols) + " (the width of row 0)");
      }
      for (size_t c = 0; c < row.size(); ++c) {
        Exact x;
        if (!io::tryExactFromJson(row[c], x)) valueError(row[c], at(at(where, r), c));
        if (!x.isZero())
          entries.push_back({static_cast<int>(r), static_cast<int>(c), std::move(x)});
      }
    }
    return ExactMatrix::fromEntries(static_cast<int>(rows), static_cast<int>(cols),
                                    std::move(entries));
  }

  void loadNode(const json& v, size_t i) {
    const std::string where = at("nodes", i);
    if (!v.is_object()) fail(where, "expected a node object, got " + io::describeJson(v));
    const json& idv = require(v, "id", where);
    long long id = 0;
    if (!io::jsonInteger(idv, id)) {
      fail(at(where, "id"), "expected an integer node id, got " + io::describeJson(idv));
    }
    if (id != static_cast<long long>(i)) {
      if (id >= 0 && id < static_cast<long long>(i)) {
        fail(at(where, "id"), "duplicate id " + std::to_string(id) + " (nodes[" +
                                  std::to_string(id) +
                                  "] already has it); ids must be 0, 1, 2, "
                                  "... in file order");
      }
      fail(at(where, "id"), "expected id " + std::to_string(i) + ", got " + std::to_string(id) +
                                "; ids must be 0, 1, 2, ... in file order");
    }
    const json& opv = require(v, "op", where);
    if (!opv.is_string()) {
      fail(at(where, "op"),
           "expected an op name (" + validOps() + "), got " + io::describeJson(opv));
    }
    const std::string& opText = opv.get_ref<const std::string&>();
    const bool isSlice = opText == "Slice";
    const std::optional<Op> op = isSlice ? std::optional<Op>(Op::Linear) : opFromName(opText);
    if (!op) {
      fail(at(where, "op"), "unknown op \"" + opText + "\"; valid ops are " + validOps());
    }
    const std::string kind = isSlice ? "Slice" : std::string(opName(*op));
    const std::string what = (*op == Op::Input ? "an " : "a ") + kind + " node";
    switch (*op) {
      case Op::Input:
      case Op::ReLU:
      case Op::Concat:
      case Op::Multi:
        checkKeys(v, where, what,
                  {"id", "op", "dim", "inputs", "name", "always_positive", "group"});
        break;
      case Op::Linear:
        checkKeys(
            v, where, what,
            {"id", "op", "dim", "inputs", "name", "always_positive", "group", "slice", "A", "b"});
        break;
      case Op::LinState:
        checkKeys(v, where, what,
                  {"id", "op", "dim", "inputs", "name", "always_positive", "group", "A", "B",
                   "init", "bias"});
        break;
    }

    Node n;
    n.id = static_cast<NodeId>(id);
    n.op = *op;
    n.dim = static_cast<int>(
        integer(require(v, "dim", where), at(where, "dim"), INT_MIN, INT_MAX, "width"));
    const bool dimOk = n.dim >= 0 && n.dim <= kMaxNodeDim;
    if (dimOk) spend(n.dim, where);

    if (auto it = v.find("inputs"); it != v.end()) {
      const std::string inputsAt = at(where, "inputs");
      if (!it->is_array()) {
        fail(inputsAt, "expected an array of node ids, got " + io::describeJson(*it));
      }
      n.inputs.reserve(it->size());
      for (size_t k = 0; k < it->size(); ++k) {
        n.inputs.push_back(
            static_cast<NodeId>(integer((*it)[k], at(inputsAt, k), -1, INT_MAX, "node id")));
      }
    } else if (*op != Op::Input) {
      fail(where, "missing key \"inputs\" (" + what + " takes its input nodes from it)");
    }
    if (auto it = v.find("name"); it != v.end()) {
      if (!it->is_string()) {
        fail(at(where, "name"), "expected a string, got " + io::describeJson(*it));
      }
      n.name = it->get<std::string>();
    }
    if (auto it = v.find("always_positive"); it != v.end()) {
      if (!it->is_boolean()) {
        fail(at(where, "always_positive"), "expected true or false, got " + io::describeJson(*it));
      }
      n.alwaysPositive = it->get<bool>();
    }
    if (auto it = v.find("group"); it != v.end()) {
      n.group = static_cast<GroupId>(integer(*it, at(where, "group"), -1, INT_MAX, "group id"));
    }
    if (auto it = v.find("slice"); it != v.end()) {
      const std::string sliceAt = at(where, "slice");
      if (!it->is_array() || it->size() != 2) {
        fail(sliceAt, "expected [start, end], got " + io::describeJson(*it));
      }
      n.slice = SliceTag{static_cast<int>(integer((*it)[0], at(sliceAt, size_t{0}), INT_MIN,
                                                  INT_MAX, "slice start")),
                         static_cast<int>(integer((*it)[1], at(sliceAt, size_t{1}), INT_MIN,
                                                  INT_MAX, "slice end"))};
    } else if (isSlice) {
      fail(where, "missing key \"slice\" (the range [start, end] a Slice node selects)");
    }

    auto optVector = [&](const char* key, ExactVector& out) {
      if (auto it = v.find(key); it != v.end()) {
        out = vector(*it, at(where, key));
      } else if (dimOk) {
        out = zerosVector(n.dim);
      }
    };
    if (*op == Op::Linear) {
      if (auto it = v.find("A"); it != v.end()) {
        n.A = matrix(*it, at(where, "A"));
        if (isSlice) explicitSliceMatrix_.push_back(n.id);
      } else if (!isSlice) {
        fail(where, "missing key \"A\" (the matrix of a Linear node)");
      }
      optVector("b", n.b);
    } else if (*op == Op::LinState) {
      n.A = matrix(require(v, "A", where), at(where, "A"));
      n.B = matrix(require(v, "B", where), at(where, "B"));
      optVector("init", n.init);
      optVector("bias", n.bias);
    }
    if (isSlice) slices_.push_back(n.id);
    nodeGroups_.push_back(n.group);
    g_.addUnchecked(std::move(n));
  }

  // Slices written without "A" get their selection matrix once every width is known
  // (an input may come later in the file). Out-of-range tags stay without a matrix;
  // checkGraph() reports them.
  void finishSlices() {
    for (NodeId id : slices_) {
      if (std::binary_search(explicitSliceMatrix_.begin(), explicitSliceMatrix_.end(), id))
        continue;
      Node& n = g_.mutableNode(id);
      if (n.inputs.size() != 1) continue;
      const NodeId x = n.inputs[0];
      if (x < 0 || static_cast<size_t>(x) >= g_.nodeCount()) continue;
      const int width = g_.node(x).dim;
      const SliceTag s = *n.slice;
      if (width < 1 || width > kMaxNodeDim || s.start < 0 || s.start >= s.end || s.end > width)
        continue;
      spend(s.end - s.start, at("nodes", static_cast<size_t>(id)));
      n.A = ExactMatrix::selection(s.start, s.end, width);
    }
  }

  void loadOutput() {
    auto it = doc_.find("output");
    if (it == doc_.end() || it->is_null()) return;
    long long out = 0;
    if (!io::jsonInteger(*it, out)) {
      fail("output", "expected a node id, got " + io::describeJson(*it));
    }
    if (out == -1) return;
    const auto n = static_cast<long long>(g_.nodeCount());
    if (out < 0 || out >= n) {
      fail("output", "node " + std::to_string(out) + " does not exist (the graph has " +
                         std::to_string(n) + " node" + (n == 1 ? "" : "s") +
                         (n ? ", ids 0.." + std::to_string(n - 1) : std::string()) + ")");
    }
    g_.setOutput(static_cast<NodeId>(out));
  }

  NodeId existingNode(const json& v, const std::string& where, bool allowNone) const {
    const auto n = static_cast<long long>(g_.nodeCount());
    long long id = 0;
    if (allowNone && v.is_null()) return kNoNode;
    if (!io::jsonInteger(v, id)) fail(where, "expected a node id, got " + io::describeJson(v));
    if (allowNone && id == -1) return kNoNode;
    if (id < 0 || id >= n) {
      fail(where, "node " + std::to_string(id) + " does not exist (the graph has " +
                      std::to_string(n) + " node" + (n == 1 ? "" : "s") + ")");
    }
    return static_cast<NodeId>(id);
  }

  void loadGroups() {
    auto it = doc_.find("groups");
    size_t count = 0;
    if (it != doc_.end()) {
      if (!it->is_array())
        fail("groups", "expected an array of groups, got " + io::describeJson(*it));
      count = it->size();
      for (size_t i = 0; i < it->size(); ++i) loadGroup((*it)[i], i);
    }
    for (size_t i = 0; i < nodeGroups_.size(); ++i) {
      const GroupId gid = nodeGroups_[i];
      if (gid == kNoGroup || static_cast<size_t>(gid) < count) continue;
      fail(at(at("nodes", i), "group"),
           "group " + std::to_string(gid) + " does not exist (the file has " +
               std::to_string(count) + " group" + (count == 1 ? "" : "s") + ")");
    }
  }

  void loadGroup(const json& v, size_t i) {
    const std::string where = at("groups", i);
    if (!v.is_object()) fail(where, "expected a group object, got " + io::describeJson(v));
    checkKeys(v, where, "a group",
              {"id", "function", "params", "parent", "nodes", "output", "expanded"});
    Group gr;
    const long long id = integer(require(v, "id", where), at(where, "id"), 0, INT_MAX, "group id");
    if (id != static_cast<long long>(i)) {
      fail(at(where, "id"), "expected id " + std::to_string(i) + ", got " + std::to_string(id) +
                                "; group ids must be 0, 1, 2, ... in file order");
    }
    const json& fn = require(v, "function", where);
    if (!fn.is_string()) {
      fail(at(where, "function"), "expected a function name, got " + io::describeJson(fn));
    }
    gr.function = fn.get<std::string>();
    if (auto p = v.find("params"); p != v.end()) {
      const std::string paramsAt = at(where, "params");
      auto text = [&](const json& x, const std::string& w) -> std::string {
        if (x.is_string()) return x.get<std::string>();
        if (x.is_number()) return x.dump();
        fail(w, "expected a parameter value (a string or a number), got " + io::describeJson(x));
      };
      if (p->is_object()) {
        for (auto kv = p->begin(); kv != p->end(); ++kv) {
          gr.params.emplace_back(kv.key(), text(kv.value(), at(paramsAt, kv.key().c_str())));
        }
      } else if (p->is_array()) {
        for (size_t k = 0; k < p->size(); ++k) {
          const json& pair = (*p)[k];
          if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string()) {
            fail(at(paramsAt, k), "expected [name, value], got " + io::describeJson(pair));
          }
          gr.params.emplace_back(pair[0].get<std::string>(), text(pair[1], at(at(paramsAt, k), 1)));
        }
      } else {
        fail(paramsAt,
             "expected [[name, value], ...] or {name: value}, got " + io::describeJson(*p));
      }
    }
    if (auto p = v.find("parent"); p != v.end() && !p->is_null()) {
      const long long parent = integer(*p, at(where, "parent"), -1, INT_MAX, "group id");
      if (parent >= id) {
        fail(at(where, "parent"), "group " + std::to_string(parent) +
                                      " cannot be the parent: a parent group comes before its "
                                      "children (expected -1.." +
                                      std::to_string(id - 1) + ")");
      }
      gr.parent = static_cast<GroupId>(parent);
    }
    if (auto p = v.find("nodes"); p != v.end()) {
      const std::string nodesAt = at(where, "nodes");
      if (!p->is_array())
        fail(nodesAt, "expected an array of node ids, got " + io::describeJson(*p));
      gr.nodes.reserve(p->size());
      for (size_t k = 0; k < p->size(); ++k) {
        gr.nodes.push_back(existingNode((*p)[k], at(nodesAt, k), false));
      }
    }
    if (auto p = v.find("output"); p != v.end()) {
      gr.output = existingNode(*p, at(where, "output"), true);
    }
    if (auto p = v.find("expanded"); p != v.end()) {
      if (!p->is_boolean()) {
        fail(at(where, "expanded"), "expected true or false, got " + io::describeJson(*p));
      }
      gr.expanded = p->get<bool>();
    }
    g_.addGroupUnchecked(std::move(gr));
  }

  // Version 1: {"<node id>": [x, y]}. Version 2: {"nodes": {...}, "groups": {...}}.
  void loadLayout() {
    auto it = doc_.find("layout");
    if (it == doc_.end()) return;
    if (version_ < 2) {
      if (!it->is_object()) {
        fail("layout", "expected an object {\"<node id>\": [x, y]}, got " + io::describeJson(*it));
      }
      loadPositions(*it, "layout", "node", g_.nodeCount(), g_.layout());
      return;
    }
    if (!it->is_object()) {
      fail("layout",
           "expected an object {\"nodes\": {\"<node id>\": [x, y]}, \"groups\": "
           "{\"<group id>\": [x, y]}}, got " +
               io::describeJson(*it));
    }
    checkKeys(*it, "layout", "the layout", {"nodes", "groups"});
    for (const char* key : {"nodes", "groups"}) {
      auto part = it->find(key);
      if (part == it->end()) continue;
      const bool nodes = std::string_view(key) == "nodes";
      const std::string where = at("layout", key);
      if (!part->is_object()) {
        fail(where, std::string("expected an object {\"<") + (nodes ? "node" : "group") +
                        " id>\": [x, y]}, got " + io::describeJson(*part));
      }
      if (nodes) {
        loadPositions(*part, where, "node", g_.nodeCount(), g_.layout());
      } else {
        loadPositions(*part, where, "group", g_.groups().size(), g_.groupLayout());
      }
    }
  }

  void loadPositions(const json& obj, const std::string& where, const std::string& what,
                     size_t count, std::map<int, NodePosition>& out) const {
    for (auto kv = obj.begin(); kv != obj.end(); ++kv) {
      const std::string& key = kv.key();
      const std::string keyAt = where + "." + key;
      long long id = -1;
      const bool digits =
          !key.empty() && key.size() <= 10 &&
          std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; });
      if (digits) id = std::stoll(key);
      if (!digits || id >= static_cast<long long>(count)) {
        fail(where, "key \"" + key + "\" is not the id of a " + what + " (the graph has " +
                        std::to_string(count) + " " + what + "s)");
      }
      const json& p = kv.value();
      if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_number()) {
        fail(keyAt, "expected a position [x, y] of two numbers, got " + io::describeJson(p));
      }
      const double x = p[0].get<double>();
      const double y = p[1].get<double>();
      if (!std::isfinite(x) || !std::isfinite(y)) fail(keyAt, "the position is not finite");
      out[static_cast<int>(id)] = NodePosition{x, y};
    }
  }

  const json& doc_;
  const std::string& source_;
  Graph g_;
  long long budget_ = 0;
  long long version_ = kGraphFormatVersion;
  std::vector<GroupId> nodeGroups_;
  std::vector<NodeId> slices_;
  std::vector<NodeId> explicitSliceMatrix_;  // ascending
};

}  // namespace

json graphToJson(const Graph& g) { return graphToJson(g, json()); }

json graphToJson(const Graph& graph, const json& metadata) {
  // Files have consecutive ids: an editor's tombstones are dropped and the rest renumbered.
  bool hasTombstones = false;
  for (const Group& gr : graph.groups()) hasTombstones = hasTombstones || gr.removed;
  hasTombstones = hasTombstones || graph.liveNodeCount() != graph.nodeCount();
  const Graph compact = hasTombstones ? graph.compacted() : Graph();
  const Graph& g = hasTombstones ? compact : graph;
  json doc = json::object();
  doc["format"] = kFormatName;
  doc["version"] = kGraphFormatVersion;
  doc["conductor"] = g.conductor();
  json nodes = json::array();
  for (const Node& n : g.nodes()) nodes.push_back(nodeToJson(g, n));
  doc["nodes"] = std::move(nodes);
  if (g.output() != kNoNode) doc["output"] = g.output();
  if (!g.groups().empty()) {
    json groups = json::array();
    for (const Group& gr : g.groups()) groups.push_back(groupToJson(gr));
    doc["groups"] = std::move(groups);
  }
  json layout = json::object();
  json nodeLayout = positionsToJson(g.layout(), g.nodeCount());
  json groupLayout = positionsToJson(g.groupLayout(), g.groups().size());
  if (!nodeLayout.empty()) layout["nodes"] = std::move(nodeLayout);
  if (!groupLayout.empty()) layout["groups"] = std::move(groupLayout);
  if (!layout.empty()) doc["layout"] = std::move(layout);
  if (!metadata.is_null()) doc["metadata"] = metadata;
  return doc;
}

Graph graphFromJson(const json& doc, const std::string& source) {
  return graphFromJson(doc, source, nullptr);
}

Graph graphFromJson(const json& doc, const std::string& source, json* metadata) {
  return Loader(doc, source).load(metadata);
}

Graph graphFromString(std::string_view text, const std::string& source) {
  return graphFromJson(io::parseJson(text, source), source);
}

Graph loadGraphFile(const std::string& path) { return loadGraphFile(path, nullptr); }

Graph loadGraphFile(const std::string& path, json* metadata) {
  return graphFromJson(io::parseJson(readWholeFile(path), path), path, metadata);
}

std::string formatGraphDocument(const json& doc) {
  if (!doc.is_object()) return doc.dump(2) + "\n";
  std::string out = "{\n";
  bool first = true;
  for (const auto& it : orderedItems(doc, kTopKeyOrder)) {
    if (!first) out += ",\n";
    first = false;
    out += "  " + json(it.key()).dump() + ": ";
    const json& v = it.value();
    const bool listed = it.key() == "nodes" || it.key() == "groups";
    if (listed && v.is_array() && !v.empty()) {
      out += "[\n";
      for (size_t i = 0; i < v.size(); ++i) {
        out += "    ";
        writeCompact(v[i], out);
        out += i + 1 < v.size() ? ",\n" : "\n";
      }
      out += "  ]";
    } else if (it.key() == "layout" && v.is_object() && !v.empty()) {
      const bool nested =
          std::all_of(v.begin(), v.end(), [](const json& x) { return x.is_object(); });
      if (nested) {  // version 2: {"nodes": {...}, "groups": {...}}
        out += "{\n";
        bool firstPart = true;
        for (const char* part : {"nodes", "groups"}) {
          auto p = v.find(part);
          if (p == v.end()) continue;
          if (!firstPart) out += ",\n";
          firstPart = false;
          out += "    " + json(part).dump() + ": ";
          writePositions(*p, "    ", out);
        }
        out += "\n  }";
      } else {
        writePositions(v, "  ", out);
      }
    } else if (it.key() == "metadata") {
      std::string text = v.dump(2);
      for (size_t p = 0; (p = text.find('\n', p)) != std::string::npos; p += 3)
        text.insert(p + 1, "  ");
      out += text;
    } else {
      writeCompact(v, out);
    }
  }
  out += "\n}\n";
  return out;
}

std::string graphToString(const Graph& g) { return formatGraphDocument(graphToJson(g)); }

std::string graphToString(const Graph& g, const json& metadata) {
  return formatGraphDocument(graphToJson(g, metadata));
}

void saveGraphFile(const Graph& g, const std::string& path) {
  writeFileAtomically(path, graphToString(g));
}

void saveGraphFile(const Graph& g, const std::string& path, const json& metadata) {
  writeFileAtomically(path, graphToString(g, metadata));
}

}  // namespace lsrl
