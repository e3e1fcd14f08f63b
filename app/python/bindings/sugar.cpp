// The sugar functions of core/graph/sugar.h with the paper's parameter names. Operands
// are nodes or scalars; scalars convert exactly (a Python float is its binary value).
#include "core/graph/sugar.h"

#include <optional>
#include <string>
#include <vector>

#include "app/python/bindings/common.h"
#include "core/numbers/exact_field.h"
#include "core/util/error.h"

namespace lsrl::py {

namespace {

// Converts a function's operands, remembering its nodes so that mixing programs is
// reported by name before the C++ builder sees them.
class Operands {
 public:
  explicit Operands(const char* fn) : fn_(fn) {}

  Operand operand(pyb::handle h) {
    if (pyb::isinstance<NodeRef>(h)) return Operand(node(h));
    return Operand(toExact(h));
  }
  std::optional<Operand> optional(pyb::handle h) {
    if (h.is_none()) return std::nullopt;
    return operand(h);
  }
  Var node(pyb::handle h, const char* param = nullptr) {
    if (!pyb::isinstance<NodeRef>(h)) {
      throw Error(std::string(fn_) + ": " + (param ? param : "operand") + " must be a node, got " +
                  pyb::str(pyb::type::handle_of(h).attr("__name__")).cast<std::string>());
    }
    const NodeRef& r = h.cast<const NodeRef&>();
    nodes_.push_back(&r);
    commonGraph(nodes_, fn_);
    return r.var();
  }
  std::optional<Var> optionalNode(pyb::handle h, const char* param) {
    if (h.is_none()) return std::nullopt;
    return node(h, param);
  }
  // The result as a node handle of the operands' graph.
  NodeRef result(const Var& v) const {
    for (const NodeRef* r : nodes_) {
      if (r->graph.get() == &v.graph()) return NodeRef{r->graph, v.id()};
    }
    throw Error(std::string(fn_) + ": no node operand");
  }

 private:
  const char* fn_;
  std::vector<const NodeRef*> nodes_;
};

}  // namespace

void registerSugar(pyb::module_& m) {
  using pyb::arg;
  const Exact mu = kDefaultScale;
  const Exact lambda = kDefaultLargeConstant;
  m.def(
      "f_constant",
      [](pyb::handle input, pyb::handle value) {
        Operands ops("f_constant");
        const Var x = ops.node(input, "input");
        return ops.result(f_constant(x, toExactColumn(value, "f_constant: value")));
      },
      arg("input"), arg("value"));
  m.def(
      "f_step",
      [](pyb::handle input, pyb::handle scale) {
        Operands ops("f_step");
        const Var x = ops.node(input, "input");
        return ops.result(f_step(x, toExact(scale)));
      },
      arg("input"), arg("scale") = mu);
  m.def(
      "f_bump",
      [](pyb::handle input, pyb::handle lb, pyb::handle ub, pyb::handle scale) {
        Operands ops("f_bump");
        const Var x = ops.node(input, "input");
        const Operand l = ops.operand(lb);
        const Operand u = ops.operand(ub);
        return ops.result(f_bump(x, l, u, toExact(scale)));
      },
      arg("input"), arg("lb"), arg("ub"), arg("scale") = mu);

  using Compare = Var (*)(const Operand&, const Operand&, const Exact&);
  const std::pair<const char*, Compare> comparisons[] = {
      {"f_larger", &f_larger}, {"f_smaller", &f_smaller}, {"f_eq", &f_eq}, {"f_neq", &f_neq}};
  for (const auto& [name, fn] : comparisons) {
    m.def(
        name,
        [name = name, fn = fn](pyb::handle x, pyb::handle y, pyb::handle scale) {
          Operands ops(name);
          const Operand l = ops.operand(x);
          const Operand r = ops.operand(y);
          return ops.result(fn(l, r, toExact(scale)));
        },
        arg("x"), arg("y"), arg("scale") = mu);
  }
  m.def(
      "f_not",
      [](pyb::handle x) {
        Operands ops("f_not");
        return ops.result(f_not(ops.node(x, "x")));
      },
      arg("x"));
  m.def(
      "f_and",
      [](pyb::handle x, pyb::handle y, pyb::handle scale) {
        Operands ops("f_and");
        const Var l = ops.node(x, "x");
        const Var r = ops.node(y, "y");
        return ops.result(f_and(l, r, toExact(scale)));
      },
      arg("x"), arg("y"), arg("scale") = mu);
  m.def(
      "f_or",
      [](pyb::handle x, pyb::handle y, pyb::handle scale) {
        Operands ops("f_or");
        const Var l = ops.node(x, "x");
        const Var r = ops.node(y, "y");
        return ops.result(f_or(l, r, toExact(scale)));
      },
      arg("x"), arg("y"), arg("scale") = mu);
  m.def(
      "f_ifelse",
      [](pyb::handle condition, pyb::handle t, pyb::handle f, pyb::handle largeConstant) {
        Operands ops("f_ifelse");
        const Var c = ops.node(condition, "condition");
        const auto tv = ops.optional(t);
        const auto fv = ops.optional(f);
        return ops.result(f_ifelse(c, tv, fv, toExact(largeConstant)));
      },
      arg("condition"), arg("t_val"), arg("f_val"), arg("large_constant") = lambda);
  m.def(
      "f_ifelse_step",
      [](pyb::handle condition, pyb::handle t, pyb::handle f, pyb::handle largeConstant,
         pyb::handle scale) {
        Operands ops("f_ifelse_step");
        const Var c = ops.node(condition, "condition");
        const auto tv = ops.optional(t);
        const auto fv = ops.optional(f);
        return ops.result(f_ifelse_step(c, tv, fv, toExact(largeConstant), toExact(scale)));
      },
      arg("condition"), arg("t_val"), arg("f_val"), arg("large_constant") = lambda,
      arg("scale") = mu);
  m.def(
      "f_ifelse_mul",
      [](pyb::handle condition, pyb::handle t, pyb::handle f) {
        Operands ops("f_ifelse_mul");
        const Var c = ops.node(condition, "condition");
        const auto tv = ops.optionalNode(t, "t_val");
        const auto fv = ops.optionalNode(f, "f_val");
        return ops.result(f_ifelse_mul(c, tv, fv));
      },
      arg("condition"), arg("t_val"), arg("f_val"));
  m.def(
      "f_ifeq",
      [](pyb::handle x, pyb::handle y, pyb::handle t, pyb::handle f, pyb::handle scale,
         pyb::handle largeConstant) {
        Operands ops("f_ifeq");
        const Operand l = ops.operand(x);
        const Operand r = ops.operand(y);
        const auto tv = ops.optional(t);
        const auto fv = ops.optional(f);
        return ops.result(f_ifeq(l, r, tv, fv, toExact(scale), toExact(largeConstant)));
      },
      arg("x"), arg("y"), arg("t_val"), arg("f_val"), arg("scale") = mu,
      arg("large_constant") = lambda);
  m.def(
      "f_modulo_counter",
      [](pyb::handle dummyInput, pyb::handle divisor, pyb::handle scale) {
        Operands ops("f_modulo_counter");
        const Var x = ops.node(dummyInput, "dummy_input");
        // cos(pi/n) lives in Q(cos 2pi/2n): n is bounded by half the field cap.
        const long long n =
            integerArgument(divisor, "f_modulo_counter: divisor", 1, CosField::kMaxConductor / 2);
        return ops.result(f_modulo_counter(x, static_cast<int>(n), toExact(scale)));
      },
      arg("dummy_input"), arg("divisor"), arg("scale") = mu);
  m.def(
      "f_relu_identity",
      [](pyb::handle x) {
        Operands ops("f_relu_identity");
        return ops.result(f_relu_identity(ops.node(x, "x")));
      },
      arg("x"));
}

}  // namespace lsrl::py
