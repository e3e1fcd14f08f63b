#include "core/executor/executor.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <numeric>
#include <span>
#include <string>
#include <thread>
#include <type_traits>

#include "core/executor/kernels.h"
#include "core/numbers/exact_field.h"
#include "core/util/error.h"

namespace lsrl {

namespace {

std::string nonFiniteName(double x) {
  if (std::isnan(x)) return "NaN";
  return x > 0 ? "+infinity" : "-infinity";
}

[[noreturn]] void throwNonFinite(int token, size_t feature, double x) {
  throw Error("token " + std::to_string(token) + ", feature " + std::to_string(feature) + " is " +
              nonFiniteName(x) + ": inputs must be finite numbers");
}

}  // namespace

void requireFiniteTokens(const FloatSequence& tokens) {
  for (size_t t = 0; t < tokens.size(); ++t) {
    for (size_t i = 0; i < tokens[t].size(); ++i) {
      if (!std::isfinite(tokens[t][i])) throwNonFinite(static_cast<int>(t), i, tokens[t][i]);
    }
  }
}

// ----------------------------------------------------------------------------- Trace

template <class V>
void Trace<V>::bind(const Plan& plan) {
  nodes_ = plan.order_;
  offset_.assign(plan.nodeFirstPos_.begin(), plan.nodeFirstPos_.end());
  width_.assign(plan.nodeDim_.begin(), plan.nodeDim_.end());
  rowWidth_ = plan.pos_.size();
  data_.clear();
}

template <class V>
void Trace<V>::requireNode(NodeId id) const {
  if (!contains(id)) {
    throw Error("node " + std::to_string(id) +
                " is not in the trace (only the program's nodes, the ancestors of the output, "
                "are traced)");
  }
}

template <class V>
bool Trace<V>::contains(NodeId id) const {
  return id >= 0 && static_cast<size_t>(id) < offset_.size() && offset_[id] >= 0;
}

template <class V>
int Trace<V>::width(NodeId id) const {
  requireNode(id);
  return width_[id];
}

template <class V>
size_t Trace<V>::offset(NodeId id) const {
  requireNode(id);
  return static_cast<size_t>(offset_[id]);
}

template <class V>
typename Trace<V>::Vector Trace<V>::value(NodeId id, int step) const {
  requireNode(id);
  if (step < 0 || step >= steps()) {
    throw Error("step " + std::to_string(step) + " is outside the trace (it has " +
                std::to_string(steps()) + " steps)");
  }
  const auto first = data_.begin() + static_cast<std::ptrdiff_t>(step * rowWidth_ + offset_[id]);
  return Vector(first, first + width_[id]);
}

template <class V>
std::vector<typename Trace<V>::Vector> Trace<V>::trajectory(NodeId id) const {
  requireNode(id);
  std::vector<Vector> out;
  out.reserve(static_cast<size_t>(steps()));
  for (int t = 0; t < steps(); ++t) {
    const auto first = data_.begin() + static_cast<std::ptrdiff_t>(t * rowWidth_ + offset_[id]);
    out.emplace_back(first, first + width_[id]);
  }
  return out;
}

template <class V>
void Trace<V>::clear() {
  data_.clear();
}

// -------------------------------------------------------------------------- Executor

template <class V>
PlanOptions Executor<V>::defaultOptions() {
  PlanOptions o;
  o.exact = std::is_same_v<V, Exact>;
  return o;
}

template <class V>
Executor<V>::Executor(std::shared_ptr<const Plan> plan) : plan_(std::move(plan)) {
  if (!plan_) throw Error("executor: no plan");
  if constexpr (std::is_same_v<V, Exact>) {
    const CosField& f = plan_->field();  // throws without the exact path
    temps_.assign(PlanKernels::kExactTemps, f.zero());
  }
  reset();
}

template <class V>
Executor<V>::Executor(const Graph& graph, PlanOptions options)
    : Executor(Plan::make(graph, options)) {}

template <class V>
void Executor<V>::reset() {
  if constexpr (std::is_same_v<V, Exact>) {
    buf_ = plan_->exResetImage_;
  } else {
    buf_ = plan_->resetImage_;
  }
  steps_ = 0;
  nonFiniteSite_.reset();
}

template <class V>
void Executor<V>::load(const Vector& token) {
  const Plan& p = *plan_;
  if (static_cast<int>(token.size()) != p.inputWidth_) {
    throw Error("token " + std::to_string(steps_) + " has width " + std::to_string(token.size()) +
                ", the program's Input expects " + std::to_string(p.inputWidth_));
  }
  Scalar* in = buf_.data() + p.inputSlot_;
  if constexpr (std::is_same_v<V, Exact>) {
    const CosField& f = *p.field_;
    for (size_t i = 0; i < token.size(); ++i) {
      const Exact& x = token[i];
      if (&x.field() == &f) {
        in[i] = x.element();
      } else if (f.conductor() % x.conductor() == 0) {
        in[i] = x.liftedTo(f).element();
      } else if (x.isRational()) {
        in[i] = f.fromRational(x.toRational());
      } else {
        const long long need =
            std::lcm(static_cast<long long>(f.conductor()), static_cast<long long>(x.conductor()));
        throw Error("token " + std::to_string(steps_) + ", feature " + std::to_string(i) + " (" +
                    x.toString() + ") is not in the program's number field Q(cos 2pi/" +
                    std::to_string(f.conductor()) +
                    "); build the plan with PlanOptions::extraConductor = " + std::to_string(need));
      }
    }
  } else {
    for (size_t i = 0; i < token.size(); ++i) {
      const double x = token[i];
      if (!std::isfinite(x)) throwNonFinite(steps_, i, x);
      in[i] = x;
    }
  }
}

template <class V>
void Executor<V>::evaluate() {
  const Plan& p = *plan_;
  const Plan::Instr* first = p.instrs_.data();
  const Plan::Instr* last = first + p.instrs_.size();
  if constexpr (std::is_same_v<V, Exact>) {
    PlanKernels::runExact(p, first, last, buf_.data(), temps_.data());
  } else {
    PlanKernels::runFloat(p, first, last, buf_.data());
  }
}

template <class V>
void Executor<V>::readOutput(Vector& out) const {
  const std::vector<int32_t>& pos = plan_->outputPos_;
  out.resize(pos.size());
  for (size_t i = 0; i < pos.size(); ++i) {
    if constexpr (std::is_same_v<V, Exact>) {
      out[i] = Exact(*plan_->field_, buf_[static_cast<size_t>(pos[i])]);
    } else {
      out[i] = buf_[static_cast<size_t>(pos[i])];
    }
  }
}

template <class V>
void Executor<V>::checkFinite() {
  if constexpr (std::is_same_v<V, double>) {
    if (!watchNonFinite_ || nonFiniteSite_) return;
    // The whole buffer in one pass; the nodes only when it holds a non-finite value.
    if (firstNonFinite(std::span<const double>(buf_)) == buf_.size()) return;
    const Plan& p = *plan_;
    for (size_t k = 0; k < p.order_.size(); ++k) {
      const NodeId id = p.order_[k];
      const int32_t* pos = p.pos_.data() + p.nodeFirstPos_[static_cast<size_t>(id)];
      for (int i = 0; i < p.nodeDim_[static_cast<size_t>(id)]; ++i) {
        const double x = buf_[static_cast<size_t>(pos[i])];
        if (std::isfinite(x)) continue;
        NonFiniteSite site;
        site.token = static_cast<size_t>(steps_);
        site.rank = k;
        site.node = id;
        site.where = "node " + std::to_string(id);
        site.component = static_cast<size_t>(i);
        site.value = x;
        nonFiniteSite_ = std::move(site);
        return;
      }
    }
  }
}

template <class V>
void Executor<V>::step(const Vector& token, Vector& out) {
  load(token);
  evaluate();
  checkFinite();
  ++steps_;
  readOutput(out);
}

template <class V>
typename Executor<V>::Vector Executor<V>::step(const Vector& token) {
  Vector out;
  step(token, out);
  return out;
}

template <class V>
typename Executor<V>::Sequence Executor<V>::run(const Sequence& tokens, Trace<V>* trace) {
  reset();
  if (trace != nullptr) {
    trace->bind(*plan_);
    trace->data_.reserve(tokens.size() * trace->rowWidth_);
  }
  Sequence outputs(tokens.size());
  for (size_t t = 0; t < tokens.size(); ++t) {
    step(tokens[t], outputs[t]);
    if (trace != nullptr) record(*trace);
  }
  return outputs;
}

template <class V>
typename Executor<V>::Vector Executor<V>::value(NodeId id) const {
  const Plan& p = *plan_;
  const int w = p.width(id);
  const int32_t* pos = p.pos_.data() + p.nodeFirstPos_[id];
  Vector out(static_cast<size_t>(w));
  for (int i = 0; i < w; ++i) {
    if constexpr (std::is_same_v<V, Exact>) {
      out[i] = Exact(*p.field_, buf_[static_cast<size_t>(pos[i])]);
    } else {
      out[i] = buf_[static_cast<size_t>(pos[i])];
    }
  }
  return out;
}

template <class V>
void Executor<V>::setState(NodeId linState, const Vector& state) {
  const Plan& p = *plan_;
  const std::vector<NodeId>& states = p.linStates_;
  if (std::find(states.begin(), states.end(), linState) == states.end()) {
    throw Error("setState: node " + std::to_string(linState) +
                " is not a LinState of the program (it has " + std::to_string(states.size()) +
                " LinStates)");
  }
  const int w = p.nodeDim_[linState];
  if (static_cast<int>(state.size()) != w) {
    throw Error("setState: LinState " + std::to_string(linState) + " has width " +
                std::to_string(w) + ", got a state of width " + std::to_string(state.size()));
  }
  // A LinState's state is its own contiguous slots; no view aliases them with a copy.
  const int32_t* pos = p.pos_.data() + p.nodeFirstPos_[linState];
  for (int i = 0; i < w; ++i) {
    Scalar& slot = buf_[static_cast<size_t>(pos[i])];
    if constexpr (std::is_same_v<V, Exact>) {
      const Exact& x = state[static_cast<size_t>(i)];
      slot = &x.field() == p.field_ ? x.element() : x.liftedTo(*p.field_).element();
    } else {
      slot = state[static_cast<size_t>(i)];
    }
  }
}

template <class V>
void Executor<V>::record(Trace<V>& trace) const {
  const Plan& p = *plan_;
  if (trace.rowWidth_ != p.pos_.size() || trace.nodes_ != p.order_) trace.bind(p);
  const size_t first = trace.data_.size();
  if constexpr (std::is_same_v<V, Exact>) {
    trace.data_.reserve(first + p.pos_.size());
    for (int32_t s : p.pos_) trace.data_.emplace_back(*p.field_, buf_[static_cast<size_t>(s)]);
  } else {
    trace.data_.resize(first + p.pos_.size());
    double* row = trace.data_.data() + first;
    for (size_t i = 0; i < p.pos_.size(); ++i) row[i] = buf_[static_cast<size_t>(p.pos_[i])];
  }
}

// ---------------------------------------------------------------------------- batches

template <class V>
std::vector<std::vector<std::vector<V>>> runBatch(
    const std::shared_ptr<const Plan>& plan,
    const std::vector<std::vector<std::vector<V>>>& sequences, BatchOptions options) {
  using Sequence = std::vector<std::vector<V>>;
  const size_t n = sequences.size();
  std::vector<Sequence> results(n);
  if (n == 0) return results;
  if (!plan) throw Error("runBatch: no plan");
  if constexpr (std::is_same_v<V, Exact>) plan->field();  // throws without the exact path
  size_t threads = options.threads > 0 ? static_cast<size_t>(options.threads)
                                       : std::max(1u, std::thread::hardware_concurrency());
  threads = std::min(threads, n);

  std::vector<std::string> messages(n);
  std::vector<std::exception_ptr> errors(n);
  std::vector<std::optional<NonFiniteSite>> nonFinite(options.nonFinite != nullptr ? n : 0);
  std::atomic<size_t> next{0};
  auto worker = [&]() {
    Executor<V> ex(plan);
    ex.watchNonFinite(options.nonFinite != nullptr);
    for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) {
      try {
        results[i] = ex.run(sequences[i]);
        if (ex.nonFiniteSite()) {
          nonFinite[i] = ex.nonFiniteSite();
          nonFinite[i]->sequence = i;
        }
      } catch (const Error& e) {
        messages[i] = e.what();
        errors[i] = std::current_exception();
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  if (threads == 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    pool.reserve(threads);
    for (size_t t = 0; t < threads; ++t) {
      pool.emplace_back([&worker] {
        const ExactThreadScope releaseCaches;
        worker();
      });
    }
    for (std::thread& t : pool) t.join();
  }
  for (size_t i = 0; i < n; ++i) {
    if (!errors[i]) continue;
    if (!messages[i].empty()) throw Error("sequence " + std::to_string(i) + ": " + messages[i]);
    std::rethrow_exception(errors[i]);
  }
  for (const auto& site : nonFinite)
    if (site) keepEarliest(*options.nonFinite, *site);
  return results;
}

FloatVector floatToken(const ExactVector& row, size_t token) {
  FloatVector r;
  r.reserve(row.size());
  for (const Exact& x : row) {
    // An exact value beyond float64's range (e.g. "1e400") rounds to an infinity.
    const double d = x.toDouble();
    if (!std::isfinite(d)) {
      throw Error("token " + std::to_string(token) + ", feature " + std::to_string(r.size()) +
                  " is beyond float64's range (it rounds to " + nonFiniteName(d) +
                  "): inputs must be finite float64 numbers");
    }
    r.push_back(d);
  }
  return r;
}

FloatSequence floatTokens(const ExactSequence& tokens) {
  FloatSequence out;
  out.reserve(tokens.size());
  for (const ExactVector& row : tokens) out.push_back(floatToken(row, out.size()));
  return out;
}

long long tokensConductor(const ExactSequence& tokens) {
  long long n = 4;
  for (const ExactVector& row : tokens)
    for (const Exact& x : row) n = std::lcm(n, static_cast<long long>(x.conductor()));
  return n;
}

ExactSequence exactTokens(const FloatSequence& tokens) {
  ExactSequence out(tokens.size());
  for (size_t t = 0; t < tokens.size(); ++t) {
    out[t].reserve(tokens[t].size());
    for (size_t i = 0; i < tokens[t].size(); ++i) {
      const double x = tokens[t][i];
      if (!std::isfinite(x)) throwNonFinite(static_cast<int>(t), i, x);
      out[t].emplace_back(x);
    }
  }
  return out;
}

template <class V>
Executor<V>::~Executor() = default;
template <class V>
Executor<V>::Executor(const Executor&) = default;
template <class V>
Executor<V>::Executor(Executor&&) noexcept = default;
template <class V>
Executor<V>& Executor<V>::operator=(const Executor&) = default;
template <class V>
Executor<V>& Executor<V>::operator=(Executor&&) noexcept = default;

template class Trace<double>;
template class Trace<Exact>;
template class Executor<double>;
template class Executor<Exact>;
template std::vector<FloatSequence> runBatch<double>(const std::shared_ptr<const Plan>&,
                                                     const std::vector<FloatSequence>&,
                                                     BatchOptions);
template std::vector<ExactSequence> runBatch<Exact>(const std::shared_ptr<const Plan>&,
                                                    const std::vector<ExactSequence>&,
                                                    BatchOptions);

}  // namespace lsrl
