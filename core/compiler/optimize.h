// The compiler's size optimisation (exactness-preserving passes, recorded as
// steps): one "O1 compact" rewrite of the whole graph that
//  - reads every equal component once: a Linear or LinState input column is moved to the
//    first component of its input with the same value (values.h), and constant
//    components are folded into b / bias,
//  - merges LinState rows that evolve identically, and nodes that repeat an earlier one
//    (same op, inputs and values),
//  - drops every component no later node reads (dead dimensions, zero rows and columns),
//  - removes identity Linears whose input has no other reader.
// The function of the graph is unchanged exactly (the rewrite only moves coefficients
// between equal values); in float64 only bit-identical values are merged.
#pragma once

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "core/compiler/values.h"

namespace lsrl::compiler {

template <class S>
class Compactor {
 public:
  explicit Compactor(CGraph<S>& g) : g_(g), vn_(g.scalars()) {}

  // Analyses the graph; true when the rewrite would change it.
  bool analyze() {
    order_ = g_.topologicalOrder();
    numberValues(g_, order_, vn_);
    canonical_.assign(static_cast<size_t>(g_.idLimit()), {});
    for (NodeId n : order_) canonical_[static_cast<size_t>(n)] = firstOfValue(vn_.of(n));
    findDuplicates();
    // Reader counts before the rewrite, which redirects readers while it runs.
    readers_.assign(static_cast<size_t>(g_.idLimit()), 0);
    for (NodeId n : order_) readers_[static_cast<size_t>(n)] = g_.outDegree(n);
    extra_.assign(static_cast<size_t>(g_.idLimit()), {});
    for (;;) {
      demandBackward();
      keepForward();
      if (!widen()) break;
    }
    return planRewrite();
  }

  // Rewrites the graph as analysed (inside the caller's step).
  void rewrite() {
    std::vector<NodeId> repl(static_cast<size_t>(g_.idLimit()), kNoNode);
    auto mapped = [&](NodeId x) {
      x = root(x);
      const NodeId r = repl[static_cast<size_t>(x)];
      return r == kNoNode ? x : r;
    };
    for (NodeId n : order_) {
      const size_t i = static_cast<size_t>(n);
      if (root(n) != n) continue;  // a duplicate: its readers move to the original
      std::vector<NodeId> ins;
      for (NodeId x : g_.inputs(n)) ins.push_back(mapped(x));
      if (!changed_[i]) {
        if (ins != g_.inputs(n)) g_.setInputs(n, std::move(ins));
        continue;
      }
      CNode<S> payload = rebuilt(n);
      // An identity Linear goes, unless its input has other readers: removing it would
      // branch the input again, undoing the bypass that the debranch rules put there.
      if (payload.op == Op::Linear && n != g_.output() && isIdentity(payload) && !anyDuplicate_ &&
          readers_[static_cast<size_t>(g_.input0(n))] == 1) {
        repl[i] = ins.front();
        continue;
      }
      repl[i] = g_.add(std::move(payload), std::move(ins));
    }
    const NodeId out = g_.output();
    if (mapped(out) != out) g_.setOutput(mapped(out));
  }

 private:
  NodeId root(NodeId n) const { return original_[static_cast<size_t>(n)]; }
  NodeId in0(NodeId n) const { return root(g_.input0(n)); }
  std::vector<NodeId> insOf(NodeId n) const {
    std::vector<NodeId> out;
    for (NodeId x : g_.inputs(n)) out.push_back(root(x));
    return out;
  }

  // Common subexpressions: a node with the same op, inputs and values as an earlier one
  // is replaced by it (two Linears stacked by case 5B that compute the same rows, say).
  void findDuplicates() {
    original_.assign(static_cast<size_t>(g_.idLimit()), kNoNode);
    anyDuplicate_ = false;
    std::map<std::tuple<Op, bool, std::vector<NodeId>, std::vector<int>>, NodeId> seen;
    for (NodeId n : order_) {
      original_[static_cast<size_t>(n)] = n;
      if (g_.op(n) == Op::Input) continue;
      auto [it, fresh] =
          seen.emplace(std::make_tuple(g_.op(n), g_.node(n).isSlice(), insOf(n), vn_.of(n)), n);
      if (!fresh) {
        original_[static_cast<size_t>(n)] = it->second;
        anyDuplicate_ = true;
      }
    }
  }

  // For each component, the first component of the same node with the same value.
  static std::vector<int> firstOfValue(const std::vector<int>& values) {
    std::unordered_map<int, int> first;
    std::vector<int> out(values.size());
    for (size_t p = 0; p < values.size(); ++p)
      out[p] = first.emplace(values[p], static_cast<int>(p)).first->second;
    return out;
  }

  bool constantAt(NodeId u, int p) const {
    return vn_.table.isConstant(vn_.of(u)[static_cast<size_t>(p)]);
  }
  const S& constantOf(NodeId u, int p) const {
    return vn_.table.constantValue(vn_.of(u)[static_cast<size_t>(p)]);
  }
  int canonical(NodeId u, int p) const { return canonical_[static_cast<size_t>(u)][p]; }

  // Marks in `need` the input components a matrix's rows `rows` read (canonically).
  void demandColumns(const SpMat<S>& m, const std::vector<char>& rows, NodeId u) {
    std::vector<char>& need = demand_[static_cast<size_t>(u)];
    for (int r = 0; r < m.rows; ++r) {
      if (!rows[static_cast<size_t>(r)]) continue;
      for (int p = m.rowStart[r]; p < m.rowStart[r + 1]; ++p) {
        if (!constantAt(u, m.col[p])) need[static_cast<size_t>(canonical(u, m.col[p]))] = 1;
      }
    }
  }

  // Which components each node must provide, from the sink backwards.
  void demandBackward() {
    demand_.assign(static_cast<size_t>(g_.idLimit()), {});
    for (NodeId n : order_) {
      demand_[static_cast<size_t>(n)] = extra_[static_cast<size_t>(n)];
      demand_[static_cast<size_t>(n)].resize(static_cast<size_t>(g_.dim(n)), 0);
    }
    std::fill(demand_[static_cast<size_t>(g_.output())].begin(),
              demand_[static_cast<size_t>(g_.output())].end(), 1);
    for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
      const NodeId n = *it;
      if (root(n) != n) continue;  // its readers' demands went to the original
      const CNode<S>& node = g_.node(n);
      std::vector<char>& need = demand_[static_cast<size_t>(n)];
      switch (node.op) {
        case Op::Input:
          break;
        case Op::Linear:
          if (node.isSlice()) {
            // Slices stay whole contiguous selections: turning one into a general Linear
            // would hand it from case 5A to case 5B, which stacks it back (a cycle).
            std::fill(need.begin(), need.end(), 1);
            std::vector<char>& in = demand_[static_cast<size_t>(in0(n))];
            std::fill(in.begin() + node.slice->start, in.begin() + node.slice->end, 1);
            break;
          }
          demandColumns(node.A, need, in0(n));
          break;
        case Op::LinState: {
          // Live rows: the demanded rows (canonical ones are their class representatives)
          // and, through the state row, the representatives of the rows they read.
          const std::vector<int>& rep = vn_.stateClass[static_cast<size_t>(n)];
          std::vector<char> live(need.size(), 0);
          std::vector<int> todo;
          auto mark = [&](int r) {
            if (!live[static_cast<size_t>(r)]) {
              live[static_cast<size_t>(r)] = 1;
              todo.push_back(r);
            }
          };
          for (size_t r = 0; r < need.size(); ++r) {
            if (need[r]) mark(static_cast<int>(r));
          }
          while (!todo.empty()) {
            const int r = todo.back();
            todo.pop_back();
            for (int p = node.A.rowStart[r]; p < node.A.rowStart[r + 1]; ++p)
              mark(rep[static_cast<size_t>(node.A.col[p])]);
          }
          need = std::move(live);
          demandColumns(node.B, need, in0(n));
          break;
        }
        case Op::ReLU: {
          std::vector<char>& in = demand_[static_cast<size_t>(in0(n))];
          for (size_t p = 0; p < need.size(); ++p) in[p] = in[p] || need[p];
          break;
        }
        case Op::Multi: {
          std::vector<char>& in = demand_[static_cast<size_t>(in0(n))];
          const size_t k = need.size();
          for (size_t p = 0; p < k; ++p) {
            if (need[p]) in[p] = in[p + k] = 1;
          }
          break;
        }
        case Op::Concat: {
          size_t offset = 0;
          for (NodeId x : insOf(n)) {
            std::vector<char>& in = demand_[static_cast<size_t>(x)];
            for (size_t p = 0; p < in.size(); ++p) in[p] = in[p] || need[offset + p];
            offset += in.size();
          }
          break;
        }
      }
    }
  }

  // Which components each node keeps: Linear and LinState their demanded ones; the
  // Input all; ReLU, Concat and Multi whatever their inputs keep (they cannot choose).
  void keepForward() {
    keep_.assign(static_cast<size_t>(g_.idLimit()), {});
    for (NodeId n : order_) {
      const CNode<S>& node = g_.node(n);
      std::vector<char>& k = keep_[static_cast<size_t>(n)];
      switch (node.op) {
        case Op::Input:
          k.assign(static_cast<size_t>(node.dim), 1);
          break;
        case Op::Linear:
        case Op::LinState:
          k = demand_[static_cast<size_t>(n)];
          break;
        case Op::ReLU:
          k = keep_[static_cast<size_t>(in0(n))];
          break;
        case Op::Multi: {
          const std::vector<char>& in = keep_[static_cast<size_t>(in0(n))];
          k.assign(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(in.size() / 2));
          break;
        }
        case Op::Concat:
          for (NodeId x : insOf(n)) {
            const std::vector<char>& in = keep_[static_cast<size_t>(x)];
            k.insert(k.end(), in.begin(), in.end());
          }
          break;
      }
    }
  }

  // Two shapes the rewrite cannot build: a Multi whose input halves are kept unlike, and
  // a node left without components (its readers still need an input). The missing
  // components become demanded and the analysis runs again. True if anything was added.
  bool widen() {
    bool added = false;
    for (NodeId n : order_) {
      if (root(n) != n) continue;
      const std::vector<char>& own = keep_[static_cast<size_t>(n)];
      if (!own.empty() && std::find(own.begin(), own.end(), 1) == own.end()) {
        std::vector<char>& extra = extra_[static_cast<size_t>(n)];
        extra.resize(own.size(), 0);
        extra[0] = 1;
        added = true;
      }
      if (g_.op(n) != Op::Multi) continue;
      const NodeId x = in0(n);
      const std::vector<char>& in = keep_[static_cast<size_t>(x)];
      const size_t k = in.size() / 2;
      std::vector<char>& extra = extra_[static_cast<size_t>(x)];
      extra.resize(in.size(), 0);
      for (size_t p = 0; p < k; ++p) {
        if (in[p] == in[p + k]) continue;
        extra[in[p] ? p + k : p] = 1;
        added = true;
      }
    }
    return added;
  }

  // New positions of kept components, and which nodes need a new payload.
  bool planRewrite() {
    newIndex_.assign(static_cast<size_t>(g_.idLimit()), {});
    changed_.assign(static_cast<size_t>(g_.idLimit()), 0);
    shrunk_.assign(static_cast<size_t>(g_.idLimit()), 0);
    bool any = anyDuplicate_;
    for (NodeId n : order_) {
      const size_t i = static_cast<size_t>(n);
      std::vector<int>& idx = newIndex_[i];
      idx.assign(keep_[i].size(), -1);
      int next = 0;
      for (size_t p = 0; p < idx.size(); ++p) {
        if (keep_[i][p]) idx[p] = next++;
      }
      shrunk_[i] = next != static_cast<int>(idx.size());
      // Structural nodes change with their width; Linear and LinState also when their
      // input shrinks or a column moves.
      bool c = shrunk_[i];
      const CNode<S>& node = g_.node(n);
      if (node.op == Op::Linear || node.op == Op::LinState) {
        const NodeId u = in0(n);
        c = c || shrunk_[static_cast<size_t>(u)];
        c = c || (!node.isSlice() && rereads(node.op == Op::Linear ? node.A : node.B, u));
        c = c || (node.op == Op::LinState && rereadsState(n));
      }
      changed_[i] = c;
      any = any || c;
    }
    return any;
  }

  // True when some column of m is read elsewhere (a constant or a duplicate).
  bool rereads(const SpMat<S>& m, NodeId u) const {
    for (int c : m.col) {
      if (constantAt(u, c) || canonical(u, c) != c) return true;
    }
    return false;
  }
  bool rereadsState(NodeId n) const {
    const std::vector<int>& rep = vn_.stateClass[static_cast<size_t>(n)];
    for (int c : g_.node(n).A.col) {
      if (rep[static_cast<size_t>(c)] != c) return true;
    }
    return false;
  }

  // Kept rows of m with columns moved to their canonical, kept position in u; constant
  // columns added into `offset` (one entry per kept row).
  SpMat<S> remapped(const SpMat<S>& m, const std::vector<char>& rows, NodeId u,
                    std::vector<S>& offset, const std::vector<int>* stateRep, bool rigid = false) {
    const std::vector<int>& idx = newIndex_[static_cast<size_t>(u)];
    SpMat<S> out = SpMat<S>::zeros(
        0, static_cast<int>(std::count_if(idx.begin(), idx.end(), [](int x) { return x >= 0; })));
    typename ValueTable<S>::Terms terms;
    std::vector<int> cols;
    std::vector<S> vals;
    for (int r = 0; r < m.rows; ++r) {
      if (!rows[static_cast<size_t>(r)]) continue;
      terms.clear();
      S& off = offset[static_cast<size_t>(out.rows)];
      for (int p = m.rowStart[r]; p < m.rowStart[r + 1]; ++p) {
        const int c = m.col[p];
        if (rigid) {
          terms.emplace_back(idx[static_cast<size_t>(c)], m.val[p]);
        } else if (stateRep != nullptr) {
          terms.emplace_back(idx[static_cast<size_t>((*stateRep)[static_cast<size_t>(c)])],
                             m.val[p]);
        } else if (constantAt(u, c)) {
          off = off + m.val[p] * constantOf(u, c);
        } else {
          terms.emplace_back(idx[static_cast<size_t>(canonical(u, c))], m.val[p]);
        }
      }
      cols.clear();
      vals.clear();
      ValueTable<S>::collapse(terms, cols, vals);
      out.col.insert(out.col.end(), cols.begin(), cols.end());
      out.val.insert(out.val.end(), vals.begin(), vals.end());
      out.rowStart.push_back(static_cast<int>(out.col.size()));
      ++out.rows;
    }
    return out;
  }

  std::vector<S> keptOf(const std::vector<S>& v, const std::vector<char>& rows) const {
    std::vector<S> out;
    for (size_t r = 0; r < rows.size(); ++r) {
      if (rows[r]) out.push_back(v[r]);
    }
    return out;
  }

  CNode<S> rebuilt(NodeId n) {
    const CNode<S>& node = g_.node(n);
    const std::vector<char>& rows = keep_[static_cast<size_t>(n)];
    const int dim = static_cast<int>(std::count(rows.begin(), rows.end(), 1));
    switch (node.op) {
      case Op::Linear: {
        std::vector<S> b = keptOf(node.b, rows);
        SpMat<S> A = remapped(node.A, rows, in0(n), b, nullptr, node.isSlice());
        CNode<S> out = makeLinear(std::move(A), std::move(b), node.name);
        if (const int start = selectionStart(out.A); start >= 0 && allZero(out.b))
          out.slice = SliceTag{start, start + out.dim};
        return out;
      }
      case Op::LinState: {
        std::vector<S> bias = keptOf(node.bias, rows);
        SpMat<S> B = remapped(node.B, rows, in0(n), bias, nullptr);
        std::vector<S> unused(static_cast<size_t>(dim), g_.zero());
        SpMat<S> A = remapped(node.A, rows, n, unused, &vn_.stateClass[static_cast<size_t>(n)]);
        return makeLinState(std::move(A), std::move(B), keptOf(node.init, rows), std::move(bias),
                            node.name);
      }
      default:
        return makeSimple<S>(node.op, dim, node.name);
    }
  }

  static bool allZero(const std::vector<S>& v) {
    return std::all_of(v.begin(), v.end(), [](const S& x) { return Scalars<S>::isZero(x); });
  }
  static bool isIdentity(const CNode<S>& n) {
    return n.A.rows == n.A.cols && selectionStart(n.A) == 0 && allZero(n.b);
  }

  CGraph<S>& g_;
  ValueNumbering<S> vn_;
  std::vector<NodeId> order_;
  std::vector<NodeId> original_;  // [node] -> itself, or the earlier node it duplicates
  bool anyDuplicate_ = false;
  std::vector<int> readers_;                 // [node] -> distinct successors before the rewrite
  std::vector<std::vector<int>> canonical_;  // [node][component] -> first equal component
  std::vector<std::vector<char>> extra_;     // demands added for Multi inputs
  std::vector<std::vector<char>> demand_;
  std::vector<std::vector<char>> keep_;
  std::vector<std::vector<int>> newIndex_;  // [node][component] -> kept position or -1
  std::vector<char> shrunk_;                // keeps fewer components than it has
  std::vector<char> changed_;               // needs a new payload
};

}  // namespace lsrl::compiler
