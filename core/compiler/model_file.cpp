#include "core/compiler/model_file.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/io/graph_file.h"
#include "core/io/json_util.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/folder_lock.h"

namespace lsrl {

namespace {

using nlohmann::json;

// Largest sum of node widths a model file may declare: each costs memory (default
// vectors) before any check can run. Larger than graph files allow (2^22), because the
// plain paper algorithm's paths are that wide.
constexpr long long kMaxModelWidth = 1LL << 24;
constexpr long long kMaxWidth = 1LL << 20;

// Reads the path graph of a model document: the graph-file node format (as
// graphToJson writes it), with values inline or in the sidecar. Compiled paths have no
// groups and no layout.
class ModelGraphReader {
 public:
  ModelGraphReader(const json& doc, const std::string& path, const SidecarReader& sidecar)
      : doc_(doc), path_(path), sidecar_(sidecar) {}

  Graph read() {
    if (!doc_.is_object()) fail("", "expected a JSON object");
    for (auto it = doc_.begin(); it != doc_.end(); ++it) {
      static const char* const kTop[] = {"format", "version", "conductor",
                                         "output", "nodes",   "metadata"};
      if (std::none_of(std::begin(kTop), std::end(kTop),
                       [&](const char* k) { return it.key() == k; }))
        fail(it.key(), "unknown key in a model file (compiled paths have no groups or layout)");
    }
    if (doc_.value("format", json()) != "lsrl-graph")
      fail("format", "expected \"lsrl-graph\", got " + doc_.value("format", json()).dump());
    const long long version = integer(doc_.value("version", json()), "version", 1, 1 << 30);
    if (version > kGraphFormatVersion)
      fail("version", "graph format version " + std::to_string(version) +
                          " is newer than this build supports (up to " +
                          std::to_string(kGraphFormatVersion) + ")");
    if (!doc_.contains("nodes") || !doc_["nodes"].is_array()) fail("nodes", "expected an array");
    const json& nodes = doc_["nodes"];
    Graph g;
    std::vector<size_t> shortSlices;
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (readNode(nodes[i], i, g)) shortSlices.push_back(i);
    }
    for (size_t i : shortSlices) {  // the selection needs the input's width
      Node& n = g.mutableNode(static_cast<NodeId>(i));
      const int width = g.node(n.inputs.at(0)).dim;
      if (n.slice->start < 0 || n.slice->start >= n.slice->end || n.slice->end > width)
        fail(at(i) + ".slice", "range [" + std::to_string(n.slice->start) + ", " +
                                   std::to_string(n.slice->end) +
                                   ") is outside its input's width " + std::to_string(width));
      n.A = ExactMatrix::selection(n.slice->start, n.slice->end, width);
    }
    const json output = doc_.value("output", json());
    if (!output.is_null() && output != -1)
      g.setOutput(static_cast<NodeId>(
          integer(output, "output", 0, static_cast<long long>(nodes.size()) - 1)));
    return g;
  }

 private:
  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    io::failAt(path_, where, what);
  }
  static std::string at(size_t i) { return "nodes[" + std::to_string(i) + "]"; }
  long long integer(const json& v, const std::string& where, long long lo, long long hi) const {
    return io::integerAt(v, path_, where, lo, hi);
  }

  // Appends node i; true for a short-form Slice (its matrix is built afterwards).
  bool readNode(const json& j, size_t i, Graph& g) {
    const std::string where = at(i);
    if (!j.is_object()) fail(where, "expected an object, got " + io::describeJson(j));
    Node n;
    n.id = static_cast<NodeId>(integer(j.value("id", json()), where + ".id",
                                       static_cast<long long>(i), static_cast<long long>(i)));
    const json opValue = j.value("op", json());
    if (!opValue.is_string())
      fail(where + ".op",
           "expected an op name (Input, Linear, ReLU, LinState, Concat, Multi, "
           "Slice), got " +
               io::describeJson(opValue));
    const std::string& opText = opValue.get_ref<const std::string&>();
    const bool sliceOp = opText == "Slice";
    const auto op = sliceOp ? std::optional<Op>(Op::Linear) : opFromName(opText);
    if (!op) fail(where + ".op", "unknown op " + j.value("op", json()).dump());
    n.op = *op;
    n.dim = static_cast<int>(integer(j.value("dim", json()), where + ".dim", 0, kMaxWidth));
    width_ += n.dim;
    if (width_ > kMaxModelWidth)
      fail(where, "the model is too large to load: its node widths add up to more than " +
                      std::to_string(kMaxModelWidth));
    std::vector<std::string> allowed = {"id", "op", "name", "dim", "inputs", "always_positive"};
    if (j.contains("name")) {
      if (!j["name"].is_string()) fail(where + ".name", "expected a string");
      n.name = j["name"].get<std::string>();
    }
    if (j.contains("always_positive")) {
      if (!j["always_positive"].is_boolean())
        fail(where + ".always_positive", "expected true or false");
      n.alwaysPositive = j["always_positive"].get<bool>();
    }
    if (j.contains("inputs")) {
      const json& ins = j["inputs"];
      if (!ins.is_array()) fail(where + ".inputs", "expected an array of node ids");
      for (size_t k = 0; k < ins.size(); ++k)
        n.inputs.push_back(
            static_cast<NodeId>(integer(ins[k], where + ".inputs[" + std::to_string(k) + "]", 0,
                                        static_cast<long long>(doc_["nodes"].size()) - 1)));
    } else if (n.op != Op::Input) {
      fail(where, "missing key \"inputs\"");
    }
    const std::string here = path_ + ": " + where;
    auto vec = [&](const char* key) {
      allowed.emplace_back(key);
      return j.contains(key) ? sidecar_.anyVector(j[key], here + "." + key) : zerosVector(n.dim);
    };
    auto mat = [&](const char* key) {
      allowed.emplace_back(key);
      if (!j.contains(key)) fail(where, std::string("missing key \"") + key + "\"");
      return sidecar_.anyMatrix(j[key], here + "." + key);
    };
    bool shortSlice = false;
    if (n.op == Op::Linear) {
      if (j.contains("slice") || sliceOp) {
        allowed.emplace_back("slice");
        const json& s = j.value("slice", json());
        if (!s.is_array() || s.size() != 2) fail(where + ".slice", "expected [start, end]");
        n.slice = SliceTag{static_cast<int>(integer(s[0], where + ".slice[0]", 0, kMaxWidth)),
                           static_cast<int>(integer(s[1], where + ".slice[1]", 0, kMaxWidth))};
        if (n.inputs.size() != 1) fail(where + ".inputs", "a Slice has exactly one input");
      }
      shortSlice = sliceOp && !j.contains("A");
      if (shortSlice) {
        allowed.emplace_back("A");
      } else {
        n.A = mat("A");
      }
      n.b = vec("b");
    } else if (n.op == Op::LinState) {
      n.A = mat("A");
      n.B = mat("B");
      n.init = vec("init");
      n.bias = vec("bias");
    }
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end())
        fail(where, "unknown key \"" + it.key() + "\" for a " + opText + " node");
    }
    g.addUnchecked(std::move(n));
    return shortSlice;
  }

  const json& doc_;
  const std::string& path_;
  const SidecarReader& sidecar_;
  long long width_ = 0;
};

// Which of a node's values go to the sidecar. Slices keep their (implicit) selection.
struct Heavy {
  bool A = false, B = false, b = false, init = false, bias = false;
};

// All-zero vectors are left out of the JSON (the default), so they never need the sidecar.
bool heavyVector(const ExactVector& v, const SidecarWriter& w) {
  return w.wants(v) && !std::all_of(v.begin(), v.end(), [](const Exact& x) { return x.isZero(); });
}

Heavy heavyParts(const Node& n, const SidecarWriter& w) {
  Heavy h;
  if (n.op == Op::Linear && !n.isSlice()) {
    h.A = w.wants(n.A);
    h.b = heavyVector(n.b, w);
  } else if (n.op == Op::LinState) {
    h.A = w.wants(n.A);
    h.B = w.wants(n.B);
    h.init = heavyVector(n.init, w);
    h.bias = heavyVector(n.bias, w);
  }
  return h;
}

// The graph without its heavy values (they are written to the sidecar instead), so that
// the JSON writer never formats millions of entries; also without sugar groups and layout,
// which compiled paths do not have.
Graph skeletonOf(const Graph& g, const std::vector<Heavy>& heavy) {
  Graph s;
  for (const Node& n : g.nodes()) {
    const Heavy& h = heavy[static_cast<size_t>(n.id)];
    Node c;
    c.id = n.id;
    c.op = n.op;
    c.dim = n.dim;
    c.inputs = n.inputs;
    c.name = n.name;
    c.alwaysPositive = n.alwaysPositive;
    c.slice = n.slice;
    if (!h.A) c.A = n.A;
    if (!h.B) c.B = n.B;
    if (!h.b) c.b = n.b;
    if (!h.init) c.init = n.init;
    if (!h.bias) c.bias = n.bias;
    s.addUnchecked(std::move(c));
  }
  if (g.output() != kNoNode) s.setOutput(g.output());
  return s;
}

}  // namespace

Backend CompiledModel::backend() const {
  const json b = compiled.value("backend", json());
  if (b == "exact") return Backend::Exact;
  if (b == "float64") return Backend::Float64;
  throw Error("model metadata compiled.backend is " + b.dump() +
              ", expected \"exact\" or \"float64\"");
}

std::string CompiledModel::target() const {
  const json t = compiled.value("target", json());
  return t.is_string() ? t.get<std::string>() : std::string();
}

json compiledMetadata(const CompileResult& result, const CompileOptions& options,
                      const ModelSource& source, const std::string& target) {
  const GraphSize size = graphSize(result.path);
  json c;
  c["backend"] = std::string(backendName(result.backend));
  c["optimize"] = options.optimize;
  c["target"] = target.empty() ? json(nullptr) : json(target);
  c["source"] = {{"name", source.name.empty() ? json(nullptr) : json(source.name)},
                 {"hash", source.hash.empty() ? json(nullptr) : json(source.hash)}};
  c["steps"] = result.stepCount;
  c["rule_counts"] = result.ruleCounts;
  c["nodes_before"] = result.nodesBefore;
  c["nodes_after"] = result.nodesAfter;
  c["sizes"] = {{"layers", size.layers},
                {"state_dim", size.stateDim},
                {"dense_params", size.denseParams},
                {"nonzero_params", size.nonZeroParams},
                {"state_widths", size.stateWidths}};
  c["seconds"] = result.seconds;
  return c;
}

void saveModelFile(const std::string& path, const Graph& model, const json& compiled,
                   const ModelSaveOptions& options, const json& otherMetadata) {
  SidecarWriter writer(options.sidecarMinEntries);
  std::vector<Heavy> heavy;
  heavy.reserve(model.nodeCount());
  for (const Node& n : model.nodes()) heavy.push_back(heavyParts(n, writer));

  json metadata = otherMetadata.is_object() ? otherMetadata : json::object();
  metadata["compiled"] = compiled;
  json doc = graphToJson(skeletonOf(model, heavy), metadata);
  doc["conductor"] = model.conductor();  // the skeleton lacks the heavy values
  json& nodes = doc["nodes"];
  for (const Node& n : model.nodes()) {
    const Heavy& h = heavy[static_cast<size_t>(n.id)];
    json& j = nodes[static_cast<size_t>(n.id)];
    const std::string key = "nodes." + std::to_string(n.id) + ".";
    if (h.A) j["A"] = writer.putMatrix(key + "A", n.A);
    if (h.B) j["B"] = writer.putMatrix(key + "B", n.B);
    if (h.b) j["b"] = writer.putVector(key + "b", n.b);
    if (h.init) j["init"] = writer.putVector(key + "init", n.init);
    if (h.bias) j["bias"] = writer.putVector(key + "bias", n.bias);
  }
  // The sidecar first, under a name of its own (sidecarFileName), the JSON last: a kill
  // at any moment leaves the old pair or the new one. Then the old sidecars go, all under
  // the folder's lock, so a concurrent writer's clean-up never removes this sidecar.
  FolderLock lock(path, FolderLock::Kind::Exclusive);
  std::string sidecarName;
  if (!writer.empty()) {
    doc["metadata"]["sidecar"] = writeSidecar(path, writer.file());
    sidecarName = doc["metadata"]["sidecar"]["file"].get<std::string>();
  }
  writeFileAtomically(path, formatGraphDocument(doc));
  removeSupersededSidecars(path, sidecarName);
}

bool isModelDocument(const json& doc) {
  return doc.is_object() && doc.contains("metadata") && doc["metadata"].is_object() &&
         doc["metadata"].contains("compiled");
}

CompiledModel modelFromJson(const json& doc, const std::string& path) {
  if (!isModelDocument(doc))
    throw Error(path + ": not a compiled model (its metadata has no \"compiled\" entry); " +
                "make one with lsrl compile");
  const json& meta = doc["metadata"];
  if (!meta["compiled"].is_object())
    throw Error(path + ": metadata.compiled: expected an object, got " +
                io::describeJson(meta["compiled"]));
  TensorFile sidecar;
  SidecarReader reader;
  if (meta.contains("sidecar")) {
    sidecar = readSidecar(path, meta["sidecar"]);
    reader = SidecarReader(sidecar, meta["sidecar"].value("file", std::string()));
  }
  // Structure only, as for graph files: checkGraph would also refuse the plain paper
  // algorithm's matrices for their dense size, which sparse runners do not mind.
  Graph g = ModelGraphReader(doc, path, reader).read();
  return CompiledModel{std::move(g), meta["compiled"]};
}

CompiledModel loadModelFile(const std::string& path) {
  FolderLock lock(path, FolderLock::Kind::Shared);  // the JSON and its sidecar from one save
  return modelFromJson(io::parseJson(readWholeFile(path), path), path);
}

}  // namespace lsrl
