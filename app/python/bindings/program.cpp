// Whole programs: running a ForEach (one C++ call per sequence), compiling, graph files,
// weight export, statistics and the prompt builders of core/programs/prompts.h.
#include <Python.h>
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "app/python/bindings/common.h"
#include "core/compiler/compiler.h"
#include "core/compiler/model_file.h"
#include "core/executor/executor.h"
#include "core/graph/stats.h"
#include "core/io/graph_file.h"
#include "core/io/graph_hash.h"
#include "core/io/json_util.h"
#include "core/programs/prompts.h"
#include "core/targets/compile_to_weights.h"
#include "core/targets/targets.h"
#include "core/targets/weights_file.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace lsrl::py {

namespace {

bool isNumericArray(pyb::handle x) {
  if (!pyb::isinstance<pyb::array>(x)) return false;
  const char kind = x.cast<pyb::array>().dtype().kind();
  return kind == 'b' || kind == 'i' || kind == 'u' || kind == 'f';
}

// d x T tokens (columns) as doubles; numeric numpy arrays are read directly. The width
// is not checked here: the executor's check names the token and both widths.
FloatSequence floatColumns(pyb::handle x) {
  if (isNumericArray(x)) {
    pyb::array arr = x.cast<pyb::array>();
    {
      if (arr.ndim() > 2) {
        throw Error("expected a d x T array (one column per token), got " +
                    std::to_string(arr.ndim()) + " dimensions");
      }
      if (arr.ndim() == 0) arr = arr.attr("reshape")(1, 1).cast<pyb::array>();
      if (arr.ndim() == 1) arr = arr.attr("reshape")(arr.shape(0), 1).cast<pyb::array>();
      const auto d = pyb::array_t<double, pyb::array::forcecast>::ensure(arr);
      if (!d) throw pyb::error_already_set();
      const auto v = d.unchecked<2>();
      const pyb::ssize_t width = v.shape(0);
      FloatSequence seq(static_cast<size_t>(v.shape(1)), FloatVector(static_cast<size_t>(width)));
      for (pyb::ssize_t t = 0; t < v.shape(1); ++t)
        for (pyb::ssize_t i = 0; i < width; ++i)
          seq[static_cast<size_t>(t)][static_cast<size_t>(i)] = v(i, t);
      return seq;
    }
  }
  const ExactMatrix m = toExactMatrix(x);
  FloatSequence seq(static_cast<size_t>(m.cols()), FloatVector(static_cast<size_t>(m.rows()), 0.0));
  for (const auto& e : m.entries())
    seq[static_cast<size_t>(e.col)][static_cast<size_t>(e.row)] = e.value.toDouble();
  return seq;
}

// Runs one ForEach: the plans are built on first use and kept (a program's nodes never
// change once created), so a call costs the conversion of the tokens and the run.
class Runner {
 public:
  Runner(std::shared_ptr<Graph> g, NodeId output) : g_(std::move(g)), output_(output) {
    g_->node(output);
  }

  int inputDim() const {
    const NodeId in = g_->input();
    if (in == kNoNode) throw Error("the program has no Input node");
    return g_->node(in).dim;
  }
  int outputDim() const { return g_->node(output_).dim; }

  pyb::object runFloat(pyb::handle tokens) {
    const FloatSequence seq = floatColumns(tokens);
    if (!floatPlan_) floatPlan_ = makePlan(false, 4);
    FloatSequence out;
    {
      pyb::gil_scoped_release release;
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!floatEx_) floatEx_ = std::make_unique<Executor<double>>(floatPlan_);
      out = floatEx_->run(seq);
    }
    const int dout = outputDim();
    pyb::array_t<double> arr(
        {static_cast<pyb::ssize_t>(dout), static_cast<pyb::ssize_t>(out.size())});
    auto v = arr.mutable_unchecked<2>();
    for (size_t t = 0; t < out.size(); ++t)
      for (int i = 0; i < dout; ++i)
        v(i, static_cast<pyb::ssize_t>(t)) = out[t][static_cast<size_t>(i)];
    return arr;
  }

  ExactMatrix runExact(pyb::handle tokens) {
    ExactMatrix m;
    try {
      m = toExactMatrix(tokens);
    } catch (const Error&) {
      // A NaN or infinity among float tokens: the float64 executor's message names the
      // token and the feature (checked only on failure, so a good run reads them once).
      if (isNumericArray(tokens)) requireFiniteTokens(floatColumns(tokens));
      throw;
    }
    const long long need = m.conductor();
    if (!exactPlan_ || exactPlan_->field().conductor() % need != 0) {
      extraConductor_ = std::lcm(extraConductor_, need);
      exactPlan_ = makePlan(true, extraConductor_);
      exactEx_.reset();
    }
    ExactSequence seq(static_cast<size_t>(m.cols()), zerosVector(m.rows()));
    for (const auto& e : m.entries())
      seq[static_cast<size_t>(e.col)][static_cast<size_t>(e.row)] = e.value;
    ExactSequence out;
    {
      pyb::gil_scoped_release release;
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!exactEx_) exactEx_ = std::make_unique<Executor<Exact>>(exactPlan_);
      out = exactEx_->run(seq);
    }
    std::vector<ExactMatrix::Entry> entries;
    for (size_t t = 0; t < out.size(); ++t) {
      for (size_t i = 0; i < out[t].size(); ++i) {
        if (!out[t][i].isZero())
          entries.push_back({static_cast<int>(i), static_cast<int>(t), out[t][i]});
      }
    }
    return ExactMatrix::fromEntries(outputDim(), static_cast<int>(out.size()), std::move(entries));
  }

 private:
  std::shared_ptr<const Plan> makePlan(bool exact, long long extraConductor) {
    g_->setOutput(output_);
    PlanOptions o;
    o.exact = exact;
    o.extraConductor = extraConductor;
    o.allowHugeSparse = true;  // compiled paths are sparse but huge when counted densely
    return Plan::make(*g_, o);
  }

  std::shared_ptr<Graph> g_;
  NodeId output_;
  std::mutex mutex_;  // one run at a time per program (the executors hold its state)
  std::shared_ptr<const Plan> floatPlan_;
  std::shared_ptr<const Plan> exactPlan_;
  long long extraConductor_ = 4;
  std::unique_ptr<Executor<double>> floatEx_;
  std::unique_ptr<Executor<Exact>> exactEx_;
};

Backend parseBackend(const std::string& name) {
  if (name == "exact") return Backend::Exact;
  if (name == "float64") return Backend::Float64;
  throw Error("unknown backend \"" + name + "\"; expected \"exact\" or \"float64\"");
}

struct Compiled {
  std::shared_ptr<Graph> path;
  NodeId output = kNoNode;
  std::string backend;
  std::vector<std::string> rules;  // the rule of every step, in order
  std::map<std::string, long long> ruleCounts;
  long long stepCount = 0;
  long long debranchSteps = 0;
  size_t nodesBefore = 0;
  size_t nodesAfter = 0;
  double seconds = 0;
  bool stopped = false;
  std::shared_ptr<const CompileHistory> history;
  // The "compiled" metadata of a model file (core/compiler/model_file.h); empty when the compile
  // stopped early or only folded, whose graphs are programs, not compiled paths.
  std::string modelMetadata;
};

Compiled compileProgram(const std::shared_ptr<Graph>& g, NodeId output, const std::string& backend,
                        bool optimize, std::optional<long long> maxSteps, bool keepHistory,
                        bool verbose, bool foldOnly) {
  Graph program = *g;
  program.setOutput(output);
  CompileOptions options;
  options.backend = parseBackend(backend);
  options.optimize = optimize;
  options.foldOnly = foldOnly;
  options.replayableHistory = keepHistory;
  if (maxSteps) options.stopAfterSteps = *maxSteps;
  long long nextLine = 1000;
  options.progress = [&](long long steps) {
    pyb::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) {  // Ctrl-C: stop the compile
      PyErr_Clear();
      return false;
    }
    if (verbose && steps >= nextLine) {
      pyb::print("lsrl compile:", steps, "steps", pyb::arg("flush") = true);
      nextLine = (steps / 1000 + 1) * 1000;
    }
    return true;
  };
  CompileResult r;
  {
    pyb::gil_scoped_release release;
    r = compile(program, options);
  }
  Compiled c;
  if (!r.stopped && !foldOnly) {
    c.modelMetadata = compiledMetadata(r, options, ModelSource{{}, graphHash(program)}).dump();
  }
  c.output = r.path.output();
  c.path = std::make_shared<Graph>(std::move(r.path));
  c.backend = std::string(backendName(r.backend));
  for (const auto& s : r.steps) c.rules.push_back(s.rule);
  c.ruleCounts = r.ruleCounts;
  c.stepCount = r.stepCount;
  c.debranchSteps = r.debranchSteps;
  c.nodesBefore = r.nodesBefore;
  c.nodesAfter = r.nodesAfter;
  c.seconds = r.seconds;
  c.stopped = r.stopped;
  c.history = r.history;
  return c;
}

// (graph, output, the model's "compiled" metadata as JSON text or "" for a program file).
std::tuple<std::shared_ptr<Graph>, NodeId, std::string> loadProgram(const std::string& path) {
  const nlohmann::json doc = io::parseJson(readWholeFile(path), path);
  std::string compiled;
  Graph g;
  if (isModelDocument(doc)) {
    CompiledModel model = modelFromJson(doc, path);
    compiled = model.compiled.dump();
    g = std::move(model.path);
  } else {
    g = graphFromJson(doc, path);
  }
  if (g.output() == kNoNode) throw Error(path + ": the graph has no output node");
  const NodeId out = g.output();
  return {std::make_shared<Graph>(std::move(g)), out, compiled};
}

pyb::dict statsOf(const std::shared_ptr<Graph>& g, NodeId output) {
  g->setOutput(output);
  const GraphStats s = computeStats(*g);
  pyb::dict d;
  d["counts_by_op"] = s.countsByOp;
  d["total_nodes"] = s.totalNodes;
  d["input_dim"] = s.inputDim;
  d["output_dim"] = s.outputDim;
  d["branch_nodes"] = s.branchNodes;
  d["dense_parameters"] = s.denseParameters;
  d["nonzero_parameters"] = s.nonZeroParameters;
  d["state_dim"] = s.stateDim;
  d["conductor"] = s.conductor;
  return d;
}

pyb::dict exportWeights(const std::shared_ptr<Graph>& g, NodeId output, const std::string& path,
                        const std::optional<std::string>& targetName,
                        const std::optional<std::string>& format, const std::string& positivity,
                        const std::optional<std::pair<pyb::object, pyb::object>>& box,
                        pyb::handle horizon, const std::string& gruUpdate, bool stacked,
                        bool hawkResidual, const std::string& source) {
  Graph program = *g;
  program.setOutput(output);
  WeightsOptions w;  // the target defaults as in lsrl export (defaultTarget)
  if (targetName) {
    const auto t = targetFromName(*targetName);
    if (!t) throw Error("unknown target \"" + *targetName + "\"");
    w.target = *t;
  }
  TargetOptions& o = w.targetOptions;
  o.sourceName = source;
  const auto p = positivityFromName(positivity);
  if (!p) throw Error("positivity: expected \"split\" or \"shift\", got \"" + positivity + "\"");
  o.positivity = *p;
  if (box) {
    try {
      o.shift.inputLo = toExact(box->first);
      o.shift.inputHi = toExact(box->second);
    } catch (const Error& e) {
      throw Error(std::string("export_weights: box: ") + e.what());
    }
  }
  // 0: not given (the default); otherwise the bound of `lsrl export --horizon`.
  o.shift.horizon =
      static_cast<int>(integerArgument(horizon, "export_weights: horizon", 0, 1'000'000'000));
  const auto u = gruUpdateFromName(gruUpdate);
  if (!u) throw Error("gru_update: expected \"paper\" or \"pytorch\", got \"" + gruUpdate + "\"");
  o.gruUpdate = *u;
  o.stacked = stacked;
  o.hawkResidual = hawkResidual;
  const std::string fmt = weightsFormat(path, format.value_or(std::string()));
  w.modelName = path;
  Target target = Target::LinearRnn;
  long long values = 0;
  size_t tensors = 0;
  {
    pyb::gil_scoped_release release;
    const CompiledWeights built = compileToWeights(program, w);
    target = built.target;
    tensors = built.tensors().size();
    values = writeWeightsFile(*built.file, path, fmt);
  }
  pyb::dict d;
  d["format"] = fmt;
  d["target"] = std::string(lsrl::targetName(target));
  d["tensors"] = tensors;
  d["values"] = values;
  d["output"] = path;
  return d;
}

// The C++ side of the Python benchmark (tests/python/bench_tok2tok.py): runs the program
// on `tokens` `repeats` times as a C++ user of core/executor does (one plan and executor, the
// tokens converted once) and returns each run's seconds.
std::vector<double> timeCppRuns(const std::shared_ptr<Graph>& g, NodeId output, pyb::handle tokens,
                                const std::string& backend, int repeats) {
  const bool exact = parseBackend(backend) == Backend::Exact;
  Graph program = *g;
  program.setOutput(output);
  PlanOptions o;
  o.exact = exact;
  o.allowHugeSparse = true;
  const auto plan = Plan::make(program, o);
  const FloatSequence floats = floatColumns(tokens);
  std::vector<double> seconds;
  pyb::gil_scoped_release release;
  auto timeRuns = [&](auto& executor, const auto& seq) {
    for (int r = 0; r < repeats; ++r) {
      const auto start = std::chrono::steady_clock::now();
      const auto out = executor.run(seq);
      seconds.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      if (out.size() != seq.size()) throw Error("the run lost tokens");
    }
  };
  if (exact) {
    ExactExecutor executor(plan);
    timeRuns(executor, exactTokens(floats));
  } else {
    FloatExecutor executor(plan);
    timeRuns(executor, floats);
  }
  return seconds;
}

ExactMatrix rowsMatrix(const ExactSequence& rows, int width) {
  std::vector<ExactMatrix::Entry> e;
  for (size_t i = 0; i < rows.size(); ++i)
    for (size_t j = 0; j < rows[i].size(); ++j)
      if (!rows[i][j].isZero()) e.push_back({static_cast<int>(i), static_cast<int>(j), rows[i][j]});
  return ExactMatrix::fromEntries(static_cast<int>(rows.size()), width, std::move(e));
}

Dictionary toDictionary(const std::vector<std::pair<std::vector<int>, std::vector<int>>>& items) {
  Dictionary d;
  for (const auto& [k, v] : items) d.push_back({k, v});
  return d;
}

}  // namespace

void registerProgram(pyb::module_& m) {
  using pyb::arg;
  pyb::class_<Runner>(m, "Runner", "Runs one program's ForEach in float64 or exactly.")
      .def(pyb::init<std::shared_ptr<Graph>, NodeId>(), arg("graph"), arg("output"))
      .def_property_readonly("input_dim", &Runner::inputDim)
      .def_property_readonly("output_dim", &Runner::outputDim)
      .def("run_float", &Runner::runFloat, arg("tokens"),
           "d x T tokens (columns) -> float64 array dim(output) x T")
      .def("run_exact", &Runner::runExact, arg("tokens"),
           "d x T tokens (columns) -> ExactMatrix dim(output) x T");

  pyb::class_<Compiled>(m, "Compiled", "The result of a compile.")
      .def_readonly("path", &Compiled::path)
      .def_readonly("output", &Compiled::output)
      .def_readonly("backend", &Compiled::backend)
      .def_readonly("rules", &Compiled::rules)
      .def_readonly("rule_counts", &Compiled::ruleCounts)
      .def_readonly("step_count", &Compiled::stepCount)
      .def_readonly("debranch_steps", &Compiled::debranchSteps)
      .def_readonly("nodes_before", &Compiled::nodesBefore)
      .def_readonly("nodes_after", &Compiled::nodesAfter)
      .def_readonly("seconds", &Compiled::seconds)
      .def_readonly("stopped", &Compiled::stopped)
      .def_readonly("model_metadata", &Compiled::modelMetadata)
      .def_property_readonly("has_history", [](const Compiled& c) { return c.history != nullptr; })
      .def(
          "graph_at",
          [](const Compiled& c, size_t step) {
            if (!c.history) throw Error("the compile kept no graph history (keep_graph_history)");
            auto g = std::make_shared<Graph>(c.history->graphAt(step));
            const NodeId out = g->output();
            return std::make_pair(g, out);
          },
          arg("step"), "(graph, output) after `step` steps (0: the program as compiled)");

  m.def("compile_program", &compileProgram, arg("graph"), arg("output"), arg("backend"),
        arg("optimize"), arg("max_steps"), arg("keep_history"), arg("verbose"),
        arg("fold_only") = false);
  m.def("compile_rule_names", &compileRuleNames);
  m.def("time_cpp_runs", &timeCppRuns, arg("graph"), arg("output"), arg("tokens"), arg("backend"),
        arg("repeats"),
        "seconds of each of `repeats` C++ runs of the program on tokens (benchmarks)");
  m.def(
      "is_path",
      [](const std::shared_ptr<Graph>& g, NodeId output) {
        g->setOutput(output);
        return isPath(*g);
      },
      arg("graph"), arg("output"));
  m.def("program_stats", &statsOf, arg("graph"), arg("output"));
  m.def(
      "program_json",
      [](const std::shared_ptr<Graph>& g, NodeId output) {
        return graphToString(programOnly(*g, output));
      },
      arg("graph"), arg("output"), "The graph file text of the program ending in `output`");
  m.def(
      "program_from_json",
      [](const std::string& text) {
        auto g = std::make_shared<Graph>(graphFromString(text));
        if (g->output() == kNoNode) throw Error("the graph has no output node");
        const NodeId out = g->output();
        return std::make_pair(g, out);
      },
      arg("text"));
  m.def(
      "save_program",
      [](const std::shared_ptr<Graph>& g, NodeId output, const std::string& path,
         const std::string& metadata) {
        const Graph program = programOnly(*g, output);
        if (metadata.empty()) {
          saveGraphFile(program, path);
        } else {
          saveGraphFile(program, path, io::parseJson(metadata, "metadata"));
        }
      },
      arg("graph"), arg("output"), arg("path"), arg("metadata") = std::string(),
      "Saves the program ending in `output` (its nodes only) as a graph file");
  m.def(
      "save_model",
      [](const std::shared_ptr<Graph>& g, NodeId output, const std::string& path,
         const std::string& compiled, const std::string& metadata) {
        saveModelFile(path, programOnly(*g, output), io::parseJson(compiled, "compiled"), {},
                      metadata.empty() ? nlohmann::json() : io::parseJson(metadata, "metadata"));
      },
      arg("graph"), arg("output"), arg("path"), arg("compiled"), arg("metadata") = std::string(),
      "Saves a compiled path as a model file (`lsrl compile -o`), with a sidecar for its "
      "large matrices");
  m.def("load_program", &loadProgram, arg("path"),
        "(graph, output, compiled metadata or \"\") of a graph file or a compiled model file");
  m.def("export_weights", &exportWeights, arg("graph"), arg("output"), arg("path"), arg("target"),
        arg("format"), arg("positivity"), arg("box"), arg("horizon"), arg("gru_update"),
        arg("stacked"), arg("hawk_residual"), arg("source"));
  m.def("target_names", [] {
    std::vector<std::string> names;
    for (Target t : allTargets()) names.emplace_back(targetName(t));
    return names;
  });

  // ---- prompts (core/programs/prompts.h) ----
  m.def(
      "vec2vec_prompt",
      [](int n, int mOut, int N, const TargetFunction& f) {
        return rowsMatrix(vec2vecPromptTokens(n, mOut, N, f), 1 + n + mOut);
      },
      arg("n"), arg("m"), arg("N"), arg("f"),
      "One row per cell [1/N, lower corner, f(centre)], cells in lexicographic order");
  m.def("smooth_test_function", &smoothTestFunction, arg("n"), arg("m"), arg("seed"),
        arg("control_points") = 5, arg("smoothness") = 1.0);
  m.def(
      "tok2tok_input",
      [](const std::vector<std::pair<std::vector<int>, std::vector<int>>>& items,
         const std::vector<int>& query, int L,
         int vocab) { return rowsMatrix(tok2tokInput(toDictionary(items), query, L, vocab), 1); },
      arg("dictionary"), arg("query"), arg("L"), arg("vocab") = 0);
  m.def(
      "tok2tok_expected",
      [](const std::vector<std::pair<std::vector<int>, std::vector<int>>>& items,
         const std::vector<int>& query, int L,
         int vocab) { return tok2tokExpected(toDictionary(items), query, L, vocab); },
      arg("dictionary"), arg("query"), arg("L"), arg("vocab") = 0);
  m.def(
      "random_dictionary",
      [](int K, int L, int V, uint64_t seed) {
        const Tok2tokCase c = randomDictionary(K, L, V, seed);
        std::vector<std::pair<std::vector<int>, std::vector<int>>> items;
        for (const auto& e : c.dictionary) items.emplace_back(e.key, e.value);
        return std::make_pair(items, c.query);
      },
      arg("K"), arg("L"), arg("V"), arg("seed"));
}

}  // namespace lsrl::py
