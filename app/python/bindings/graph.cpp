// Graphs, the node handle lsrl.Variable derives from, the six primitives and the
// operators. Every builder calls the C++ builder (core/graph/builder.h), so the nodes a
// Python program creates are the ones the C++ API creates, in the same order.
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/python/bindings/common.h"
#include "core/graph/checks.h"
#include "core/util/error.h"

namespace lsrl::py {

namespace {

std::string nameOr(const std::optional<std::string>& name) { return name.value_or(std::string()); }

ExactMatrix columnMatrix(const ExactVector& v) {
  std::vector<ExactMatrix::Entry> e;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].isZero()) e.push_back({static_cast<int>(i), 0, v[i]});
  }
  return ExactMatrix::fromEntries(static_cast<int>(v.size()), 1, std::move(e));
}

const Node& nodeWith(const NodeRef& x, bool ok, const char* what) {
  const Node& n = x.node();
  if (!ok) {
    throw pyb::attribute_error(std::string(n.countedOpName()) + " node " + std::to_string(x.id) +
                               " has no " + what);
  }
  return n;
}

bool isNode(pyb::handle h) { return pyb::isinstance<NodeRef>(h); }

// x op other, where other is a node (Concat + Linear) or a scalar (one Linear).
NodeId addOrSub(const NodeRef& x, pyb::handle other, bool subtract) {
  if (isNode(other)) {
    const NodeRef& y = other.cast<const NodeRef&>();
    commonGraph({&x, &y}, subtract ? "x - y" : "x + y");
    return (subtract ? x.var() - y.var() : x.var() + y.var()).id();
  }
  const Exact c = toExact(other);
  return (subtract ? x.var() - c : x.var() + c).id();
}

Exact scalarFactor(pyb::handle c, const char* op) {
  if (isNode(c)) {
    throw pyb::type_error(std::string("nodes ") + op +
                          " only by scalars; for an element-wise product of two nodes use "
                          "Multiplicative(Concat([x, y]))");
  }
  return toExact(c);
}

}  // namespace

Graph programOnly(const Graph& g, NodeId output) {
  Graph copy = g;
  copy.setOutput(output);
  std::vector<char> keep(copy.nodeCount(), 0);
  for (NodeId id : copy.programNodes()) keep[static_cast<size_t>(id)] = 1;
  std::vector<NodeId> drop;
  for (size_t id = 0; id < keep.size(); ++id) {
    if (!keep[id]) drop.push_back(static_cast<NodeId>(id));
  }
  if (!drop.empty()) {
    const std::vector<NodeId> map = copy.removeNodes(drop);
    copy.setOutput(map[static_cast<size_t>(output)]);
  }
  return copy;
}

void registerGraph(pyb::module_& m) {
  pyb::class_<Graph, std::shared_ptr<Graph>>(m, "Graph",
                                             "One program's nodes (shared by its node objects).")
      .def(pyb::init<>())
      .def_property_readonly("node_count", &Graph::nodeCount)
      .def_property_readonly("input_id", &Graph::input)
      .def_property_readonly("conductor", &Graph::conductor)
      .def("copy", [](const Graph& g) { return std::make_shared<Graph>(g); })
      .def("op_of",
           [](const Graph& g, NodeId id) { return std::string(g.node(id).countedOpName()); })
      .def(
          "add_input",
          [](Graph& g, pyb::handle dim, const std::optional<std::string>& name) {
            return g.addInput(static_cast<int>(integerArgument(dim, "Input: dim", 1, kMaxNodeDim)),
                              nameOr(name));
          },
          pyb::arg("dim"), pyb::arg("name") = pyb::none())
      .def("groups", [](const Graph& g) {
        pyb::list out;
        for (const Group& gr : g.groups()) {
          pyb::dict d;
          d["id"] = gr.id;
          d["function"] = gr.function;
          d["params"] = gr.params;
          d["parent"] = gr.parent == kNoGroup ? pyb::object(pyb::none()) : pyb::int_(gr.parent);
          d["nodes"] = gr.nodes;
          d["output"] = gr.output;
          out.append(d);
        }
        return out;
      });

  pyb::class_<NodeRef>(m, "Node", "A node of a program: (graph, id). Base of lsrl.Variable.")
      .def(pyb::init([](std::shared_ptr<Graph> g, NodeId id) {
             if (!g) throw Error("a node needs a graph");
             g->node(id);  // validates the id
             return NodeRef{std::move(g), id};
           }),
           pyb::arg("graph"), pyb::arg("id"))
      .def_property_readonly("_graph", [](const NodeRef& x) { return x.graph; })
      .def_property_readonly("_id", [](const NodeRef& x) { return x.id; })
      .def_property_readonly(
          "_graph_key", [](const NodeRef& x) { return reinterpret_cast<uintptr_t>(x.graph.get()); })
      .def_property_readonly(
          "_op", [](const NodeRef& x) { return std::string(x.node().countedOpName()); },
          "Input, Linear, Slice, ReLU, LinState, Concat or Multi")
      .def_property_readonly("dim", [](const NodeRef& x) { return x.node().dim; })
      .def_property_readonly("_name", [](const NodeRef& x) { return x.node().name; })
      .def("_set_name", [](const NodeRef& x, const std::string& n) { x.graph->setName(x.id, n); })
      .def_property(
          "always_positive", [](const NodeRef& x) { return x.node().alwaysPositive; },
          [](const NodeRef& x, bool v) { x.var().setAlwaysPositive(v); },
          "The value is >= 0 in every entry (set by ReLU, steps and sums of such; settable).")
      .def_property_readonly("_input_ids", [](const NodeRef& x) { return x.node().inputs; })
      .def_property_readonly("_slice",
                             [](const NodeRef& x) -> pyb::object {
                               const Node& n = x.node();
                               if (!n.slice) return pyb::none();
                               return pyb::make_tuple(n.slice->start, n.slice->end);
                             })
      .def_property_readonly(
          "_group",
          [](const NodeRef& x) -> pyb::object {
            const Node& n = x.node();
            if (n.group == kNoGroup) return pyb::none();
            return pyb::str(x.graph->groups()[static_cast<size_t>(n.group)].function);
          })
      .def_property_readonly(
          "_A",
          [](const NodeRef& x) {
            const Node& n = x.node();
            return nodeWith(x, n.op == Op::Linear || n.op == Op::LinState, "A").A;
          })
      .def_property_readonly(
          "_B", [](const NodeRef& x) { return nodeWith(x, x.node().op == Op::LinState, "B").B; })
      .def_property_readonly("_b",
                             [](const NodeRef& x) {
                               return columnMatrix(nodeWith(x, x.node().op == Op::Linear, "b").b);
                             })
      .def_property_readonly(
          "_init",
          [](const NodeRef& x) {
            return columnMatrix(nodeWith(x, x.node().op == Op::LinState, "init_state").init);
          })
      .def_property_readonly("_bias", [](const NodeRef& x) {
        return columnMatrix(nodeWith(x, x.node().op == Op::LinState, "bias").bias);
      });

  // ---- the primitives (each returns the new node's id in x's graph) ----
  m.def(
      "add_linear",
      [](const NodeRef& x, pyb::handle A, pyb::handle b, const std::optional<std::string>& name) {
        ExactMatrix a = toExactMatrix(A);
        ExactVector bv = b.is_none() ? ExactVector{} : toExactColumn(b, "Linear: b");
        return Linear(x.var(), std::move(a), std::move(bv), nameOr(name)).id();
      },
      pyb::arg("input"), pyb::arg("A"), pyb::arg("b"), pyb::arg("name") = pyb::none());
  m.def(
      "add_slice",
      [](const NodeRef& x, pyb::handle start, pyb::handle end,
         const std::optional<std::string>& name) {
        // Within the widest node the builder names the input and its width.
        const auto bound = [](pyb::handle v, const char* what) {
          return static_cast<int>(integerArgument(v, what, 0, kMaxNodeDim));
        };
        const int s = bound(start, "Slice: start");  // start first: named first if both bad
        const int e = bound(end, "Slice: end");
        return x.graph->addSlice(x.id, s, e, nameOr(name));
      },
      pyb::arg("input"), pyb::arg("start"), pyb::arg("end"), pyb::arg("name") = pyb::none());
  m.def(
      "add_relu",
      [](const NodeRef& x, const std::optional<std::string>& name) {
        return ReLU(x.var(), nameOr(name)).id();
      },
      pyb::arg("input"), pyb::arg("name") = pyb::none());
  m.def(
      "add_linstate",
      [](const NodeRef& x, pyb::handle A, pyb::handle B, pyb::handle init, pyb::handle bias,
         const std::optional<std::string>& name) {
        ExactMatrix a = toExactMatrix(A);
        ExactMatrix bm = toExactMatrix(B);
        ExactVector s0 =
            init.is_none() ? ExactVector{} : toExactColumn(init, "LinState: init_state");
        ExactVector bv = bias.is_none() ? ExactVector{} : toExactColumn(bias, "LinState: bias");
        return LinState(x.var(), std::move(a), std::move(bm), std::move(s0), std::move(bv),
                        nameOr(name))
            .id();
      },
      pyb::arg("input"), pyb::arg("A"), pyb::arg("B"), pyb::arg("init_state"),
      pyb::arg("bias") = pyb::none(), pyb::arg("name") = pyb::none());
  m.def(
      "add_concat",
      [](const pyb::iterable& inputs, const std::optional<std::string>& name) {
        std::vector<const NodeRef*> xs;
        std::vector<pyb::object> alive;  // the iterable may be a generator
        for (pyb::handle h : inputs) {
          alive.push_back(pyb::reinterpret_borrow<pyb::object>(h));
          if (!isNode(h)) {
            throw Error("Concat: input " + std::to_string(xs.size()) + " is a " +
                        pyb::str(pyb::type::handle_of(h).attr("__name__")).cast<std::string>() +
                        ", not a node");
          }
          xs.push_back(&h.cast<const NodeRef&>());
        }
        if (xs.empty()) throw Error("Concat needs at least one input, got none");
        commonGraph(xs, "Concat");
        std::vector<Var> vars;
        for (const NodeRef* x : xs) vars.push_back(x->var());
        return Concat(vars, nameOr(name)).id();
      },
      pyb::arg("inputs"), pyb::arg("name") = pyb::none());
  m.def(
      "add_multi",
      [](const NodeRef& x, const std::optional<std::string>& name) {
        return Multi(x.var(), nameOr(name)).id();
      },
      pyb::arg("input"), pyb::arg("name") = pyb::none());

  // ---- operators, lowered by the C++ operators of core/graph/builder.h ----
  m.def("op_add", [](const NodeRef& x, pyb::handle o) { return addOrSub(x, o, false); });
  m.def("op_sub", [](const NodeRef& x, pyb::handle o) { return addOrSub(x, o, true); });
  m.def("op_radd", [](const NodeRef& x, pyb::handle c) { return (toExact(c) + x.var()).id(); });
  m.def("op_rsub", [](const NodeRef& x, pyb::handle c) { return (toExact(c) - x.var()).id(); });
  m.def("op_mul", [](const NodeRef& x, pyb::handle c) {
    return (x.var() * scalarFactor(c, "multiply")).id();
  });
  m.def("op_rmul", [](const NodeRef& x, pyb::handle c) {
    return (scalarFactor(c, "multiply") * x.var()).id();
  });
  m.def("op_div",
        [](const NodeRef& x, pyb::handle c) { return (x.var() / scalarFactor(c, "divide")).id(); });
  m.def("op_neg", [](const NodeRef& x) { return (-x.var()).id(); });

  // ---- whole programs ----
  m.def(
      "topological_order",
      [](const std::shared_ptr<Graph>& g, NodeId output) {
        g->setOutput(output);
        return g->topologicalOrder();
      },
      "Kahn's order (smallest id first) of the nodes that reach `output`.");
  m.def(
      "program_only",
      [](const std::shared_ptr<Graph>& g, NodeId output) {
        auto p = std::make_shared<Graph>(programOnly(*g, output));
        const NodeId out = p->output();
        return std::make_pair(p, out);
      },
      "A copy holding only the nodes that reach `output` (ids renumbered in order).");
}

}  // namespace lsrl::py
