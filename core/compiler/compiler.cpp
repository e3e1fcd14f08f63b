#include "core/compiler/compiler.h"

#include <optional>

#include "core/compiler/compile_backends.h"
#include "core/compiler/driver.h"
#include "core/graph/checks.h"

namespace lsrl {
namespace compiler {
// The catalogue below reads these; they are instantiated once, in compile_float64.cpp.
extern template std::vector<std::unique_ptr<FoldRule<double>>> foldRules<double>();
extern template std::vector<std::unique_ptr<DebranchRule<double>>> debranchRules<double>();
}  // namespace compiler

std::string_view backendName(Backend b) { return b == Backend::Exact ? "exact" : "float64"; }

CompileResult compile(const Graph& program, const CompileOptions& options) {
  requireValid(program, "compile");
  return options.backend == Backend::Float64 ? compiler::compileFloat64(program, options)
                                             : compiler::compileExact(program, options);
}

std::vector<CompileRule> compileRules() {
  std::vector<CompileRule> out;
  auto add = [&](const compiler::RuleIdentity& r, const char* kind) {
    out.push_back({std::string(r.name()), std::string(r.explanation()), kind, r.benefit()});
  };
  for (const auto& r : compiler::foldRules<double>()) add(*r, "fold");
  for (const auto& r : compiler::debranchRules<double>()) add(*r, "debranch");
  out.push_back({std::string(compiler::kCompactRule), std::string(compiler::kCompactExplanation),
                 "optimize", 0});
  return out;
}

std::optional<CompileRule> compileRule(std::string_view id) {
  for (CompileRule& r : compileRules())
    if (r.id == id) return std::move(r);
  return std::nullopt;
}

std::vector<std::string> compileRuleNames() {
  std::vector<std::string> out;
  for (CompileRule& r : compileRules()) out.push_back(std::move(r.id));
  return out;
}

GraphSize graphSize(const Graph& g) {
  GraphSize s;
  for (NodeId id : g.programNodes()) {
    const Node& n = g.node(id);
    if (n.op == Op::Input) continue;
    ++s.layers;
    if (n.op == Op::Linear) {
      s.denseParams += static_cast<long long>(n.A.rows()) * n.A.cols() + n.dim;
      s.nonZeroParams += static_cast<long long>(n.A.nonZeros());
      for (const Exact& x : n.b) s.nonZeroParams += x.isZero() ? 0 : 1;
    } else if (n.op == Op::LinState) {
      s.stateDim += n.dim;
      s.stateWidths.push_back(n.dim);
      s.denseParams += static_cast<long long>(n.dim) * n.dim +
                       static_cast<long long>(n.B.rows()) * n.B.cols() + n.dim;
      s.nonZeroParams += static_cast<long long>(n.A.nonZeros() + n.B.nonZeros());
      for (const Exact& x : n.bias) s.nonZeroParams += x.isZero() ? 0 : 1;
    }
  }
  return s;
}

bool isPath(const Graph& g) {
  const auto succ = g.successors();
  for (NodeId id : g.programNodes()) {
    int count = 0;
    for (NodeId s : succ[static_cast<size_t>(id)]) {
      (void)s;
      ++count;
    }
    if (count > 1) return false;
  }
  return true;
}

}  // namespace lsrl
