#include "core/compiler/history_file.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "core/compiler/history.h"
#include "core/io/json_util.h"
#include "core/numbers/exact_field.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/folder_lock.h"
#include "core/util/quote_input.h"
#include "core/util/scratch_file.h"
#include "core/util/thousands.h"

namespace lsrl {

namespace {

using compiler::Step;
using nlohmann::json;

constexpr std::string_view kFormatName = "lsrl-history";

NodeId largestId(const std::vector<std::pair<NodeId, std::vector<NodeId>>>& initialInputs,
                 NodeId initialOutput, const std::vector<Step>& steps) {
  NodeId top = initialOutput;
  auto see = [&top](NodeId id) { top = std::max(top, id); };
  for (const auto& [id, ins] : initialInputs) {
    see(id);
    for (NodeId x : ins) see(x);
  }
  for (const Step& s : steps) {
    for (NodeId id : s.nodesAdded) see(id);
    for (NodeId id : s.nodesRemoved) see(id);
    for (const auto& [id, ins] : s.inputsSet) {
      see(id);
      for (NodeId x : ins) see(x);
    }
    see(s.outputAfter);
  }
  return top;
}

// Which IR ids need a payload in the file: the nodes alive at step 0 and every node a
// step adds. The size of the vector is the file's id_limit.
std::vector<char> neededPayloads(
    const CompileHistory& history,
    const std::vector<std::pair<NodeId, std::vector<NodeId>>>& initialInputs, NodeId initialOutput,
    const std::vector<Step>& steps) {
  const size_t limit = static_cast<size_t>(largestId(initialInputs, initialOutput, steps)) + 1;
  if (limit > history.idLimit())
    throw Error("history: the step log refers to node " + std::to_string(limit - 1) +
                ", but the history holds only " + std::to_string(history.idLimit()) + " node ids");
  std::vector<char> needed(limit, 0);
  for (const auto& [id, ins] : initialInputs) needed[static_cast<size_t>(id)] = 1;
  for (const Step& s : steps) {
    for (NodeId id : s.nodesAdded) needed[static_cast<size_t>(id)] = 1;
  }
  return needed;
}

json idPairs(const std::vector<std::pair<NodeId, NodeId>>& edges) {
  json a = json::array();
  for (const auto& [x, y] : edges) a.push_back(json::array({x, y}));
  return a;
}

json inputLists(const std::vector<std::pair<NodeId, std::vector<NodeId>>>& sets) {
  json a = json::array();
  for (const auto& [id, ins] : sets) a.push_back(json::array({id, ins}));
  return a;
}

json stepToJson(const Step& s) {
  json j;
  j["rule"] = s.rule;
  j["branch"] = s.branch;
  j["nodes_removed"] = s.nodesRemoved;
  j["nodes_added"] = s.nodesAdded;
  j["edges_removed"] = idPairs(s.edgesRemoved);
  j["edges_added"] = idPairs(s.edgesAdded);
  j["output_before"] = s.outputBefore;
  j["output_after"] = s.outputAfter;
  j["inputs_set"] = inputLists(s.inputsSet);
  return j;
}

bool allZero(const ExactVector& v) {
  return std::all_of(v.begin(), v.end(), [](const Exact& x) { return x.isZero(); });
}

json payloadToJson(const Node& n, SidecarWriter& w) {
  json j;
  j["id"] = n.id;
  j["op"] = std::string(opName(n.op));
  j["dim"] = n.dim;
  if (!n.name.empty()) j["name"] = n.name;
  if (n.slice) j["slice"] = json::array({n.slice->start, n.slice->end});
  const std::string key = "payloads." + std::to_string(n.id) + ".";
  auto vec = [&](const char* k, const ExactVector& v) {
    if (!allZero(v)) j[k] = w.vector(key + k, v);
  };
  if (n.op == Op::Linear) {
    j["A"] = w.matrix(key + "A", n.A);
    vec("b", n.b);
  } else if (n.op == Op::LinState) {
    j["A"] = w.matrix(key + "A", n.A);
    j["B"] = w.matrix(key + "B", n.B);
    vec("init", n.init);
    vec("bias", n.bias);
  }
  return j;
}

// ---------------------------------------------------------------------------------------
// Loading

class HistoryReader {
 public:
  HistoryReader(const json& doc, std::string path) : doc_(doc), path_(std::move(path)) {}

  LoadedHistory load() {
    if (!doc_.is_object()) fail("", "expected a JSON object, got " + io::describeJson(doc_));
    if (doc_.value("format", json()) != kFormatName)
      fail("format", "expected \"lsrl-history\", got " + doc_.value("format", json()).dump() +
                         " (not a compile history file)");
    const long long version = integer(doc_.value("version", json()), "version", 1, 1 << 30);
    if (version > kHistoryFormatVersion)
      fail("version", "this file uses history format version " + std::to_string(version) +
                          ", newer than this build supports (up to " +
                          std::to_string(kHistoryFormatVersion) + ")");
    LoadedHistory out;
    const json backend = doc_.value("backend", json());
    if (backend == "exact") {
      out.backend = Backend::Exact;
    } else if (backend == "float64") {
      out.backend = Backend::Float64;
    } else {
      fail("backend", "expected \"exact\" or \"float64\", got " + backend.dump());
    }
    out.source = doc_.value("source", json::object());
    limit_ = static_cast<size_t>(integer(member("id_limit"), "id_limit", 1, 1LL << 30));

    if (doc_.contains("sidecar")) {
      sidecar_ = readSidecar(path_, doc_["sidecar"]);
      reader_ = SidecarReader(sidecar_, doc_["sidecar"].value("file", std::string()));
    }
    readPayloads();
    out.steps = readSteps();
    readInitial();
    if (out.backend == Backend::Float64) {
      out.history = build(compiler::Scalars<double>{}, out.steps);
    } else {
      compiler::Scalars<compiler::ExactScalar> sc;
      sc.field = &CosField::get(
          integer(doc_.value("conductor", json(4)), "conductor", 1, CosField::kMaxConductor));
      out.history = build(sc, out.steps);
    }
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    io::failAt(path_, where, what);
  }
  const json& member(const char* key) const {
    if (!doc_.contains(key)) fail("", std::string("missing key \"") + key + "\"");
    return doc_[key];
  }
  long long integer(const json& v, const std::string& where, long long lo, long long hi) const {
    return io::integerAt(v, path_, where, lo, hi);
  }
  NodeId nodeId(const json& v, const std::string& where, bool allowNone = false) const {
    const long long x = integer(v, where, allowNone ? -1 : 0, static_cast<long long>(limit_) - 1);
    return static_cast<NodeId>(x);
  }
  NodeId payloadId(const json& v, const std::string& where) const {
    const NodeId id = nodeId(v, where);
    if (!payloads_[static_cast<size_t>(id)])
      fail(where, "node " + std::to_string(id) + " has no entry in \"payloads\"");
    return id;
  }
  std::vector<NodeId> ids(const json& v, const std::string& where, bool needPayload) const {
    if (!v.is_array()) fail(where, "expected an array of node ids, got " + io::describeJson(v));
    std::vector<NodeId> out;
    for (size_t i = 0; i < v.size(); ++i) {
      const std::string at = where + "[" + std::to_string(i) + "]";
      out.push_back(needPayload ? payloadId(v[i], at) : nodeId(v[i], at));
    }
    return out;
  }
  std::vector<std::pair<NodeId, NodeId>> pairs(const json& v, const std::string& where) const {
    if (!v.is_array()) fail(where, "expected an array of [from, to] pairs");
    std::vector<std::pair<NodeId, NodeId>> out;
    for (size_t i = 0; i < v.size(); ++i) {
      const std::string at = where + "[" + std::to_string(i) + "]";
      if (!v[i].is_array() || v[i].size() != 2) fail(at, "expected [from, to], got " + v[i].dump());
      out.emplace_back(nodeId(v[i][0], at), nodeId(v[i][1], at));
    }
    return out;
  }
  std::vector<std::pair<NodeId, std::vector<NodeId>>> inputSets(const json& v,
                                                                const std::string& where) const {
    if (!v.is_array()) fail(where, "expected an array of [node, [inputs]] pairs");
    std::vector<std::pair<NodeId, std::vector<NodeId>>> out;
    for (size_t i = 0; i < v.size(); ++i) {
      const std::string at = where + "[" + std::to_string(i) + "]";
      if (!v[i].is_array() || v[i].size() != 2)
        fail(at, "expected [node, [inputs]], got " + v[i].dump());
      out.emplace_back(payloadId(v[i][0], at), ids(v[i][1], at + "[1]", true));
    }
    return out;
  }

  void readPayloads() {
    payloads_.assign(limit_, std::nullopt);
    const json& list = member("payloads");
    if (!list.is_array()) fail("payloads", "expected an array");
    for (size_t i = 0; i < list.size(); ++i) {
      const json& j = list[i];
      const std::string at = "payloads[" + std::to_string(i) + "]";
      if (!j.is_object()) fail(at, "expected an object, got " + io::describeJson(j));
      Node n;
      n.id = nodeId(j.value("id", json()), at + ".id");
      if (payloads_[static_cast<size_t>(n.id)])
        fail(at + ".id", "node " + std::to_string(n.id) + " is listed twice");
      const json opValue = j.value("op", json());
      const auto op = opValue.is_string() ? opFromName(opValue.get<std::string>()) : std::nullopt;
      if (!op) fail(at + ".op", "expected an op name, got " + io::describeJson(opValue));
      n.op = *op;
      n.dim = static_cast<int>(integer(j.value("dim", json()), at + ".dim", 0, 1 << 20));
      const json name = j.value("name", json(""));
      if (!name.is_string()) fail(at + ".name", "expected a string, got " + io::describeJson(name));
      n.name = name.get<std::string>();
      const std::string where = path_ + ": " + at;
      if (j.contains("slice")) {
        const json& s = j["slice"];
        if (!s.is_array() || s.size() != 2) fail(at + ".slice", "expected [start, end]");
        n.slice = SliceTag{static_cast<int>(integer(s[0], at + ".slice", 0, 1 << 20)),
                           static_cast<int>(integer(s[1], at + ".slice", 0, 1 << 20))};
      }
      auto vec = [&](const char* k) {
        ExactVector v =
            j.contains(k) ? reader_.anyVector(j[k], where + "." + k) : zerosVector(n.dim);
        if (static_cast<int>(v.size()) != n.dim)
          fail(at + "." + k, "has " + std::to_string(v.size()) + " values, expected " +
                                 std::to_string(n.dim) + " (the node's dim)");
        return v;
      };
      auto mat = [&](const char* k, int rows) {
        if (!j.contains(k)) fail(at, std::string("missing key \"") + k + "\"");
        ExactMatrix m = reader_.anyMatrix(j[k], where + "." + k);
        if (m.rows() != rows)
          fail(at + "." + k,
               "has " + std::to_string(m.rows()) + " rows, expected " + std::to_string(rows));
        return m;
      };
      if (n.op == Op::Linear) {
        n.A = mat("A", n.dim);
        n.b = vec("b");
      } else if (n.op == Op::LinState) {
        n.A = mat("A", n.dim);
        n.B = mat("B", n.dim);
        n.init = vec("init");
        n.bias = vec("bias");
      }
      payloads_[static_cast<size_t>(n.id)] = std::move(n);
    }
  }

  std::vector<Step> readSteps() const {
    const json& list = member("steps");
    if (!list.is_array()) fail("steps", "expected an array");
    std::vector<Step> out;
    out.reserve(list.size());
    for (size_t i = 0; i < list.size(); ++i) {
      const json& j = list[i];
      const std::string at = "steps[" + std::to_string(i) + "]";
      if (!j.is_object()) fail(at, "expected an object, got " + io::describeJson(j));
      auto field = [&](const char* k) -> const json& {
        if (!j.contains(k)) fail(at, std::string("missing key \"") + k + "\"");
        return j[k];
      };
      Step s;
      if (!field("rule").is_string()) fail(at + ".rule", "expected a string");
      s.rule = j["rule"].get<std::string>();
      s.branch = nodeId(field("branch"), at + ".branch", true);
      s.nodesRemoved = ids(field("nodes_removed"), at + ".nodes_removed", false);
      s.nodesAdded = ids(field("nodes_added"), at + ".nodes_added", true);
      s.edgesRemoved = pairs(field("edges_removed"), at + ".edges_removed");
      s.edgesAdded = pairs(field("edges_added"), at + ".edges_added");
      s.outputBefore = nodeId(field("output_before"), at + ".output_before", true);
      s.outputAfter = payloadId(field("output_after"), at + ".output_after");
      s.inputsSet = inputSets(field("inputs_set"), at + ".inputs_set");
      out.push_back(std::move(s));
    }
    return out;
  }

  void readInitial() {
    const json& j = member("initial");
    if (!j.is_object()) fail("initial", "expected an object");
    if (!j.contains("inputs")) fail("initial", "missing key \"inputs\"");
    initialInputs_ = inputSets(j["inputs"], "initial.inputs");
    initialOutput_ = payloadId(j.value("output", json()), "initial.output");
  }

  template <class S>
  std::shared_ptr<const CompileHistory> build(const compiler::Scalars<S>& sc,
                                              const std::vector<Step>& steps) const {
    std::vector<compiler::NodePtr<S>> archive(limit_);
    for (size_t id = 0; id < limit_; ++id) {
      if (!payloads_[id]) continue;
      const Node& n = *payloads_[id];
      compiler::CNode<S> c;
      c.op = n.op;
      c.dim = n.dim;
      c.name = n.name;
      c.slice = n.slice;
      if (n.op == Op::Linear) {
        c.A = compiler::fromExact(n.A, sc);
        c.b = compiler::fromExact(n.b, n.dim, sc);
      } else if (n.op == Op::LinState) {
        c.A = compiler::fromExact(n.A, sc);
        c.B = compiler::fromExact(n.B, sc);
        c.init = compiler::fromExact(n.init, n.dim, sc);
        c.bias = compiler::fromExact(n.bias, n.dim, sc);
      }
      archive[id] = std::make_shared<const compiler::CNode<S>>(std::move(c));
    }
    std::vector<char> alive(limit_, 0);
    for (const auto& [id, ins] : initialInputs_) alive[static_cast<size_t>(id)] = 1;
    compiler::CGraph<S> initial(sc);
    for (size_t id = 0; id < limit_; ++id) {
      if (alive[id]) {
        initial.addShared(archive[id], {});
      } else {
        initial.addPlaceholder();
      }
    }
    for (const auto& [id, ins] : initialInputs_) {
      if (!ins.empty()) initial.setInputs(id, ins);
    }
    initial.setOutput(initialOutput_);
    return std::make_shared<compiler::ReplayHistory<S>>(initial, std::move(archive), steps);
  }

  const json& doc_;
  std::string path_;
  size_t limit_ = 0;
  TensorFile sidecar_;
  SidecarReader reader_;
  std::vector<std::optional<Node>> payloads_;
  std::vector<std::pair<NodeId, std::vector<NodeId>>> initialInputs_;
  NodeId initialOutput_ = kNoNode;
};

}  // namespace

struct HistoryFileWriter::State {
  State(const std::string& p, HistoryWriteOptions o)
      : path(p),
        options(std::move(o)),
        folder(std::filesystem::path(resolveOutputPath(p)).parent_path().string()),
        payloads(folder),
        stream(folder),
        sidecar(options.sidecarMinEntries, &stream) {}

  std::string path;
  HistoryWriteOptions options;
  std::string folder;
  std::string head;      // the document's first keys, without the closing brace
  ScratchFile payloads;  // the payload entries' JSON, comma-separated
  SafetensorsStream stream;
  SidecarWriter sidecar;
  std::vector<char> hasPayload;  // by IR id
  size_t payloadCount = 0;
  bool started = false;
  std::vector<std::pair<NodeId, std::vector<NodeId>>> initialInputs;
  NodeId initialOutput = kNoNode;
};

HistoryFileWriter::HistoryFileWriter(const std::string& path, Backend backend, int conductor,
                                     HistoryWriteOptions options) {
  // Refuses a path it could not write before the compile starts, not after.
  checkOutputPath(path);
  state_ = std::make_unique<State>(path, std::move(options));
  const HistorySource& source = state_->options.source;
  json head;
  head["format"] = kFormatName;
  head["version"] = kHistoryFormatVersion;
  head["backend"] = std::string(backendName(backend));
  head["conductor"] = conductor;
  head["source"] = {{"name", source.name.empty() ? json(nullptr) : json(source.name)},
                    {"hash", source.hash.empty() ? json(nullptr) : json(source.hash)}};
  state_->head = head.dump();
  state_->head.pop_back();  // the closing brace: the document goes on
}

HistoryFileWriter::~HistoryFileWriter() = default;

uint64_t HistoryFileWriter::bytesSoFar() const {
  return state_->head.size() + state_->payloads.size() + state_->stream.dataBytes();
}

void HistoryFileWriter::start(std::vector<std::pair<NodeId, std::vector<NodeId>>> inputs,
                              NodeId output) {
  state_->initialInputs = std::move(inputs);
  state_->initialOutput = output;
  state_->started = true;
}

void HistoryFileWriter::payload(const Node& node) {
  State& st = *state_;
  const auto id = static_cast<size_t>(node.id);
  if (node.id < 0) throw Error("history: a payload has no node id");
  if (id >= st.hasPayload.size()) st.hasPayload.resize(id + 1, 0);
  if (st.hasPayload[id]) throw Error("history: node " + std::to_string(id) + " is given twice");
  st.hasPayload[id] = 1;
  st.payloads.append((st.payloadCount++ == 0 ? "" : ",") + payloadToJson(node, st.sidecar).dump());
  if (bytesSoFar() > st.options.limitBytes) {
    // Short enough for one message line with a long path and the hint (how to raise it).
    throw Error("the compile history " + quotePath(st.path) + " passed its size limit of " +
                withThousands(static_cast<size_t>(st.options.limitBytes)) + " bytes at " +
                withThousands(st.payloadCount) + " node payloads" + st.options.limitHint);
  }
}

void HistoryFileWriter::finish(const std::vector<Step>& steps) {
  State& st = *state_;
  if (!st.started) throw Error("history: finish() before the starting graph was given");
  const NodeId referenced = largestId(st.initialInputs, st.initialOutput, steps);
  const size_t limit = std::max(static_cast<size_t>(referenced) + 1, st.hasPayload.size());
  auto requirePayload = [&st](NodeId id) {
    if (static_cast<size_t>(id) >= st.hasPayload.size() || !st.hasPayload[static_cast<size_t>(id)])
      throw Error("history: node " + std::to_string(id) +
                  " is used by the step log but has no payload in the history");
  };
  for (const auto& [id, ins] : st.initialInputs) requirePayload(id);
  for (const Step& s : steps) {
    for (NodeId id : s.nodesAdded) requirePayload(id);
  }
  // The sidecar first, under a name of its own (sidecarFileName), the JSON last: a kill
  // at any moment leaves the old pair or the new one. Then the old sidecars go, all under
  // the folder's lock, so a concurrent writer's clean-up never removes this sidecar.
  FolderLock lock(st.path, FolderLock::Kind::Exclusive);
  std::string sidecarName;
  json sidecarDescription;
  if (!st.sidecar.empty()) {
    sidecarDescription = writeSidecar(st.path, st.stream);
    sidecarName = sidecarDescription["file"].get<std::string>();
  }
  AtomicFileWriter file(st.path);
  file.write(st.head + ",\"payloads\":[");
  st.payloads.readBack([&file](std::string_view piece) { file.write(piece); });
  file.write("],\"id_limit\":" + std::to_string(limit) + ",\"initial\":" +
             json{{"inputs", inputLists(st.initialInputs)}, {"output", st.initialOutput}}.dump() +
             ",\"steps\":[");
  std::string text;  // the steps, written a megabyte at a time
  for (size_t k = 0; k < steps.size(); ++k) {
    text += (k == 0 ? "" : ",") + stepToJson(steps[k]).dump();
    if (text.size() > (size_t{1} << 20)) file.write(std::exchange(text, std::string()));
  }
  file.write(text + "]");
  if (!sidecarName.empty()) file.write(",\"sidecar\":" + sidecarDescription.dump());
  file.write("}\n");
  file.commit();
  removeSupersededSidecars(st.path, sidecarName);
}

void saveHistoryFile(const std::string& path, const Graph& program, const CompileResult& result,
                     const HistorySource& source, size_t sidecarMinEntries) {
  if (!result.history)
    throw Error("cannot save a history to \"" + path +
                "\": the compile kept no replayable history (CompileOptions::replayableHistory)");
  if (result.history->stepCount() != result.steps.size())
    throw Error("cannot save a history to \"" + path + "\": the compile recorded " +
                std::to_string(result.steps.size()) + " steps but its history has " +
                std::to_string(result.history->stepCount()));
  const auto initialInputs = result.history->initialInputs();
  const NodeId initialOutput = result.history->initialOutput();
  const std::vector<char> needed =
      neededPayloads(*result.history, initialInputs, initialOutput, result.steps);

  HistoryWriteOptions options;
  options.source = source;
  options.limitBytes = std::numeric_limits<uint64_t>::max();
  options.sidecarMinEntries = sidecarMinEntries;
  HistoryFileWriter writer(path, result.backend, program.conductor(), std::move(options));
  // Each payload is read once from the history's archive and written at once (time and
  // memory proportional to the file, not to the graphs at every step).
  // A needed id without a payload is reported by finish(), as for a streamed history.
  for (size_t id = 0; id < needed.size(); ++id) {
    if (!needed[id]) continue;
    if (std::optional<Node> payload = result.history->payload(static_cast<NodeId>(id)))
      writer.payload(*payload);
  }
  writer.start(initialInputs, initialOutput);
  writer.finish(result.steps);
}

LoadedHistory loadHistoryFile(const std::string& path) {
  FolderLock lock(path, FolderLock::Kind::Shared);  // the JSON and its sidecar from one save
  const json doc = io::parseJson(readWholeFile(path), path);
  return HistoryReader(doc, path).load();
}

}  // namespace lsrl
