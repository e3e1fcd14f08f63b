// CPU executors of LSRL programs with ForEach semantics (docs/spec/language.md §1): reset every
// LinState to its init_state, then for each token evaluate the program's nodes in
// Graph::topologicalOrder() and emit the output node's value. A LinState's value at
// step t is its state after the update s_t = A·s_{t−1} + B·x_t + bias.
//
//   auto plan = Plan::make(graph);               // immutable, shareable across threads
//   FloatExecutor ex(plan);                      // per-run mutable state
//   FloatTrace trace;
//   auto outputs = ex.run(tokens, &trace);       // resets first
//   auto h = trace.trajectory(someNodeId);       // [step][component]
//   auto batch = runBatch(plan, sequences);      // each sequence reset independently
//
// Executor<double> runs in float64; Executor<Exact> runs exactly in the plan's field
// Q(cos 2π/N) (no floating point anywhere on that path; ReLU decided by exact sign).
// Tokens are counted from 0 in error messages: "token 3" is the fourth token since the
// last reset.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "core/executor/plan.h"
#include "core/numbers/exact.h"
#include "core/util/nonfinite.h"

namespace lsrl {

using FloatVector = std::vector<double>;
using FloatSequence = std::vector<FloatVector>;  // [token][feature]
using ExactSequence = std::vector<ExactVector>;  // [token][feature]

namespace detail {
template <class V>
struct ScalarOf;
template <>
struct ScalarOf<double> {
  using type = double;
};
template <>
struct ScalarOf<Exact> {
  using type = eantic::renf_elem_class;
};
}  // namespace detail

// Every program node's value at every step: one row per step, holding the nodes of
// Plan::order() one after another.
template <class V>
class Trace {
 public:
  using Vector = std::vector<V>;

  Trace() = default;
  const std::vector<NodeId>& nodes() const { return nodes_; }  // topological order
  int steps() const { return rowWidth_ == 0 ? 0 : static_cast<int>(data_.size() / rowWidth_); }
  bool contains(NodeId id) const;
  int width(NodeId id) const;  // throws for nodes outside the traced program
  Vector value(NodeId id, int step) const;
  std::vector<Vector> trajectory(NodeId id) const;  // [step][component]
  // Raw storage: row `step` is values [step·rowWidth(), (step+1)·rowWidth()); node id's
  // components start at offset(id) within a row.
  const std::vector<V>& data() const { return data_; }
  size_t rowWidth() const { return rowWidth_; }
  size_t offset(NodeId id) const;
  void clear();  // forgets the steps, keeps the node layout

 private:
  friend class Executor<V>;
  void bind(const Plan& plan);
  void requireNode(NodeId id) const;

  std::vector<NodeId> nodes_;
  std::vector<int64_t> offset_;  // by node id, -1 outside the program
  std::vector<int> width_;       // by node id
  size_t rowWidth_ = 0;
  std::vector<V> data_;
};

template <class V>
class Executor {
 public:
  using Value = V;
  using Vector = std::vector<V>;
  using Sequence = std::vector<Vector>;
  using Scalar = typename detail::ScalarOf<V>::type;

  // Shares an existing plan (the plan must have the exact path for Executor<Exact>).
  explicit Executor(std::shared_ptr<const Plan> plan);
  // Builds a private plan (validating the graph); float executors skip the exact path.
  explicit Executor(const Graph& graph, PlanOptions options = defaultOptions());
  // Out of line (executor.cpp): the exact path's e-antic state stays out of this header.
  ~Executor();
  Executor(const Executor&);
  Executor(Executor&&) noexcept;
  Executor& operator=(const Executor&);
  Executor& operator=(Executor&&) noexcept;

  const Plan& plan() const { return *plan_; }
  const std::shared_ptr<const Plan>& sharedPlan() const { return plan_; }

  // Every LinState back to its init_state; the step counter back to 0.
  void reset();
  int steps() const { return steps_; }  // tokens since the last reset

  // One token: checks its width (and, in float64, that every feature is finite).
  Vector step(const Vector& token);
  void step(const Vector& token, Vector& out);  // reuses out's storage
  // One whole sequence, from a reset. With a trace, every program node's value at
  // every step is recorded into it (its previous content is replaced).
  Sequence run(const Sequence& tokens, Trace<V>* trace = nullptr);

  // The value of a program node after the last step (after a reset: LinStates hold
  // init_state, token-independent nodes their value, the others 0).
  Vector value(NodeId id) const;
  // Overwrites a LinState's current state (what the next step reads as s_{t−1}), e.g.
  // to replay another model's states step by step. Throws for nodes that are not LinStates
  // of the program and for a wrong width; in exact mode the values must lie in a subfield
  // of the plan's field.
  void setState(NodeId linState, const Vector& state);
  // Appends the current values of every program node as one step of the trace.
  void record(Trace<V>& trace) const;

  // Float64 only (exact values are always finite): with it on, every step checks every
  // node's value and keeps the first that is not finite since the last reset (its node
  // id, where = "node N", sequence 0), also one that a later node hides (a ReLU of
  // -infinity is 0). One pass over the value buffer per token.
  void watchNonFinite(bool on) { watchNonFinite_ = on; }
  const std::optional<NonFiniteSite>& nonFiniteSite() const { return nonFiniteSite_; }

  static PlanOptions defaultOptions();

 private:
  void load(const Vector& token);
  void evaluate();
  void readOutput(Vector& out) const;
  void checkFinite();

  std::shared_ptr<const Plan> plan_;
  std::vector<Scalar> buf_;
  int steps_ = 0;
  std::vector<Scalar> temps_;  // exact path: accumulator, product and zero
  bool watchNonFinite_ = false;
  std::optional<NonFiniteSite> nonFiniteSite_;
};

using FloatExecutor = Executor<double>;
using ExactExecutor = Executor<Exact>;
using FloatTrace = Trace<double>;
using ExactTrace = Trace<Exact>;

struct BatchOptions {
  int threads = 0;  // 0: std::thread::hardware_concurrency()
  // Float64: when given, every sequence runs with Executor::watchNonFinite and this
  // receives the earliest site of the batch (its sequence: the index in `sequences`).
  std::optional<NonFiniteSite>* nonFinite = nullptr;
};

// Runs every sequence from its own reset, on up to `threads` threads, each with its own
// executor state over the shared plan. Results do not depend on the thread count. If
// sequences fail, the error of the first failing one is thrown ("sequence 2: ...").
template <class V>
std::vector<std::vector<std::vector<V>>> runBatch(
    const std::shared_ptr<const Plan>& plan,
    const std::vector<std::vector<std::vector<V>>>& sequences, BatchOptions options = {});

// Tokens given as doubles, converted exactly (every double is a dyadic rational).
ExactSequence exactTokens(const FloatSequence& tokens);
// Exact tokens rounded to the nearest doubles, for float64 runs of exact inputs. Throws
// lsrl::Error for a value beyond float64's range (it would round to an infinity).
FloatSequence floatTokens(const ExactSequence& tokens);
// One token of them (`token`: its index, for the message).
FloatVector floatToken(const ExactVector& row, size_t token);
// The conductor exact tokens need (PlanOptions::extraConductor): at least 4, and a multiple
// of every value's (sqrt(5) in a rational program's tokens needs 20).
long long tokensConductor(const ExactSequence& tokens);

extern template class Trace<double>;
extern template class Trace<Exact>;
// The float64 executor's check of its tokens, for callers that turn float tokens into
// exact ones first: throws its error ("token 2, feature 0 is NaN: ...") for the first
// NaN or infinity.
void requireFiniteTokens(const FloatSequence& tokens);

extern template class Executor<double>;
extern template class Executor<Exact>;
extern template std::vector<FloatSequence> runBatch<double>(const std::shared_ptr<const Plan>&,
                                                            const std::vector<FloatSequence>&,
                                                            BatchOptions);
extern template std::vector<ExactSequence> runBatch<Exact>(const std::shared_ptr<const Plan>&,
                                                           const std::vector<ExactSequence>&,
                                                           BatchOptions);

}  // namespace lsrl
