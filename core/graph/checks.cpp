#include "core/graph/checks.h"

#include <algorithm>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "core/util/error.h"

namespace lsrl {

namespace {

constexpr size_t kMaxCycleNodesShown = 20;
constexpr size_t kMaxProblemsInError = 100;

class Checker {
 public:
  explicit Checker(const Graph& g) : g_(g), n_(g.nodeCount()) {}

  std::vector<Problem> run() {
    checkInputs();
    checkOutput();
    for (const Node& node : g_.nodes())
      if (!node.removed) checkNode(node);
    checkCycles();
    return std::move(problems_);
  }

 private:
  // A node that is there: in range and not deleted in the editor (a tombstone).
  bool exists(NodeId id) const { return g_.contains(id); }
  const Node& at(NodeId id) const { return g_.nodes()[static_cast<size_t>(id)]; }
  bool sane(int dim) const { return dim >= 1 && dim <= kMaxNodeDim; }

  // "Linear node 7" or "Linear node 7 \"name\"" (slices count as "Slice").
  std::string label(const Node& node) const {
    std::string s = std::string(node.countedOpName()) + " node " + std::to_string(node.id);
    if (!node.name.empty()) s += " \"" + node.name + "\"";
    return s;
  }
  std::string label(NodeId id) const { return label(at(id)); }

  // "node 3" or "node 3 \"x\"" for a node that is referred to, not the subject.
  std::string ref(NodeId id) const {
    std::string s = "node " + std::to_string(id);
    if (exists(id) && !at(id).name.empty()) s += " \"" + at(id).name + "\"";
    return s;
  }

  std::string idRange() const {
    if (n_ == 0) return "it has no nodes";
    return "it has " + std::to_string(n_) + " node" + (n_ == 1 ? "" : "s") + ", ids 0.." +
           std::to_string(n_ - 1);
  }

  void add(ProblemKind kind, NodeId node, std::string message) {
    problems_.push_back(Problem{kind, node, std::move(message)});
  }

  void checkInputs() {
    NodeId first = kNoNode;
    for (const Node& node : g_.nodes()) {
      if (node.op != Op::Input || node.removed) continue;
      if (first == kNoNode) {
        first = node.id;
        continue;
      }
      add(ProblemKind::SecondInput, node.id,
          label(node) + " is a second Input; " + ref(first) +
              " is already the program's Input (a program has exactly one).");
    }
    if (first == kNoNode) {
      add(ProblemKind::NoInput, kNoNode,
          "The graph has no Input node; a program needs exactly one (the current token).");
    }
  }

  void checkOutput() {
    const NodeId out = g_.output();
    if (out == kNoNode) {
      add(ProblemKind::NoOutput, kNoNode,
          "The graph has no output node; mark the node whose value the program returns as "
          "its output.");
    } else if (!exists(out)) {
      add(ProblemKind::NoOutput, kNoNode,
          "The output is node " + std::to_string(out) + ", but the graph has no such node (" +
              idRange() + ").");
    }
  }

  // Returns false when the node's width itself is unusable (further checks skipped).
  bool checkWidth(const Node& node) {
    if (sane(node.dim)) return true;
    add(ProblemKind::AbsurdSize, node.id,
        label(node) + " has width " + std::to_string(node.dim) + ", expected 1.." +
            std::to_string(kMaxNodeDim) + ".");
    return false;
  }

  bool checkArity(const Node& node) {
    const size_t k = node.inputs.size();
    auto listed = [&] {
      std::string s;
      for (size_t i = 0; i < k && i < 8; ++i) s += (i ? ", " : "") + std::to_string(node.inputs[i]);
      if (k > 8) s += ", ...";
      return " (" + std::string(k == 1 ? "node " : "nodes ") + s + ")";
    };
    std::string got = std::to_string(k) + (k == 1 ? " input" : " inputs");
    if (node.op == Op::Input) {
      if (k == 0) return true;
      add(ProblemKind::BadArity, node.id,
          label(node) + " has " + got + listed() + ", expected none (an Input reads the token).");
      return false;
    }
    if (node.op == Op::Concat) {
      if (k >= 1) return true;
      add(ProblemKind::BadArity, node.id, label(node) + " has no inputs, expected at least 1.");
      return false;
    }
    if (k == 1) return true;
    add(ProblemKind::BadArity, node.id,
        label(node) + " has " + (k == 0 ? std::string("no inputs") : got + listed()) +
            ", expected exactly 1.");
    return false;
  }

  // Returns true when every input names a node.
  bool checkDangling(const Node& node) {
    bool ok = true;
    for (size_t slot = 0; slot < node.inputs.size(); ++slot) {
      const NodeId p = node.inputs[slot];
      if (exists(p)) continue;
      ok = false;
      if (p == kNoNode) {  // an open slot left by the editor
        add(ProblemKind::DanglingInput, node.id,
            "Input " + std::to_string(slot) + " of " + label(node) +
                " is not connected; connect a node to it.");
        continue;
      }
      add(ProblemKind::DanglingInput, node.id,
          label(node) + " takes node " + std::to_string(p) +
              " as input, but the graph has no such node (" + idRange() + ").");
    }
    return ok;
  }

  // A matrix whose dense size is beyond kMaxMatrixEntries. Returns false if absurd.
  bool checkMatrixSize(const Node& node, const char* what, const ExactMatrix& m) {
    const long long dense = static_cast<long long>(m.rows()) * static_cast<long long>(m.cols());
    if (m.rows() <= kMaxNodeDim && m.cols() <= kMaxNodeDim && dense <= kMaxMatrixEntries)
      return true;
    add(ProblemKind::AbsurdSize, node.id,
        label(node) + ": " + what + " is " + std::to_string(m.rows()) + "x" +
            std::to_string(m.cols()) + " (" + std::to_string(dense) +
            " entries when dense), expected at most " + std::to_string(kMaxMatrixEntries) +
            " entries with each side at most " + std::to_string(kMaxNodeDim) + ".");
    return false;
  }

  void mismatch(const Node& node, const std::string& what) {
    add(ProblemKind::DimensionMismatch, node.id, label(node) + what);
  }

  void checkVector(const Node& node, const char* what, const ExactVector& v) {
    if (static_cast<long long>(v.size()) == node.dim) return;
    mismatch(node, ": " + std::string(what) + " has " + std::to_string(v.size()) + " value" +
                       (v.size() == 1 ? "" : "s") + ", expected " + std::to_string(node.dim) +
                       " (the node's width).");
  }

  void checkNode(const Node& node) {
    const bool widthOk = checkWidth(node);
    const bool arityOk = checkArity(node);
    const bool inputsOk = checkDangling(node);
    bool matricesOk = true;
    if (node.op == Op::Linear) matricesOk = checkMatrixSize(node, "A", node.A);
    if (node.op == Op::LinState) {
      matricesOk = checkMatrixSize(node, "A", node.A);
      matricesOk = checkMatrixSize(node, "B", node.B) && matricesOk;
    }
    if (!widthOk || !arityOk || !inputsOk || !matricesOk) return;
    for (NodeId p : node.inputs) {
      if (!sane(at(p).dim)) return;  // reported at that node; nothing to compare against
    }
    const int inDim = node.inputs.empty() ? 0 : at(node.inputs[0]).dim;
    const std::string input =
        node.inputs.empty() ? std::string() : "its input, " + ref(node.inputs[0]);
    switch (node.op) {
      case Op::Input:
        break;
      case Op::Linear:
        if (node.slice) {
          checkSlice(node, inDim, input);
          break;
        }
        if (node.A.cols() != inDim) {
          mismatch(node, ": A has " + std::to_string(node.A.cols()) + " columns, expected " +
                             std::to_string(inDim) + " (the width of " + input + ").");
        }
        if (node.A.rows() != node.dim) {
          mismatch(node, ": A has " + std::to_string(node.A.rows()) + " rows, expected " +
                             std::to_string(node.dim) + " (the node's width).");
        }
        checkVector(node, "b", node.b);
        break;
      case Op::ReLU:
        if (node.dim != inDim) {
          mismatch(node, " has width " + std::to_string(node.dim) + ", expected " +
                             std::to_string(inDim) + " (the width of " + input + ").");
        }
        break;
      case Op::LinState:
        if (node.A.rows() != node.dim || node.A.cols() != node.dim) {
          mismatch(node, ": A is " + std::to_string(node.A.rows()) + "x" +
                             std::to_string(node.A.cols()) + ", expected a square " +
                             std::to_string(node.dim) + "x" + std::to_string(node.dim) +
                             " matrix (the node's width).");
        }
        if (node.B.rows() != node.dim) {
          mismatch(node, ": B has " + std::to_string(node.B.rows()) + " rows, expected " +
                             std::to_string(node.dim) + " (the node's width).");
        }
        if (node.B.cols() != inDim) {
          mismatch(node, ": B has " + std::to_string(node.B.cols()) + " columns, expected " +
                             std::to_string(inDim) + " (the width of " + input + ").");
        }
        checkVector(node, "init_state", node.init);
        checkVector(node, "bias", node.bias);
        break;
      case Op::Concat: {
        long long sum = 0;
        std::string terms;
        for (size_t i = 0; i < node.inputs.size(); ++i) {
          const int d = at(node.inputs[i]).dim;
          sum += d;
          if (i < 8) terms += (i ? " + " : "") + std::to_string(d);
        }
        if (node.inputs.size() > 8) terms += " + ...";
        if (sum != node.dim) {
          mismatch(node, " has width " + std::to_string(node.dim) + ", expected " +
                             std::to_string(sum) + " (the sum of its inputs' widths, " + terms +
                             ").");
        }
        break;
      }
      case Op::Multi:
        if (inDim % 2 != 0) {
          add(ProblemKind::MultiOddWidth, node.id,
              label(node) + ": " + input + ", has odd width " + std::to_string(inDim) +
                  ", expected an even width 2k (the two halves are multiplied).");
        } else if (node.dim != inDim / 2) {
          mismatch(node, " has width " + std::to_string(node.dim) + ", expected " +
                             std::to_string(inDim / 2) + " (half the width " +
                             std::to_string(inDim) + " of " + input + ").");
        }
        break;
    }
  }

  void checkSlice(const Node& node, int inDim, const std::string& input) {
    const SliceTag& s = *node.slice;
    const std::string range = "[" + std::to_string(s.start) + ":" + std::to_string(s.end) + "]";
    if (s.start < 0 || s.end > inDim || s.start >= s.end) {
      add(ProblemKind::SliceOutOfRange, node.id,
          label(node) + ": range " + range + " is out of range for " + input + ", of width " +
              std::to_string(inDim) + " (need 0 <= start < end <= " + std::to_string(inDim) + ").");
      return;
    }
    if (node.dim != s.end - s.start) {
      mismatch(node, " has width " + std::to_string(node.dim) + ", expected " +
                         std::to_string(s.end - s.start) + " (the size of its range " + range +
                         ").");
      return;
    }
    if (!isSelection(node.A, s.start, s.end, inDim) || !allZero(node.b) ||
        static_cast<int>(node.b.size()) != node.dim) {
      add(ProblemKind::SliceOutOfRange, node.id,
          label(node) + ": it is tagged as selecting " + range + " of " + input +
              ", but its matrix is not that selection (expected A to be the " +
              std::to_string(node.dim) + "x" + std::to_string(inDim) +
              " 0/1 matrix picking those rows, and b = 0).");
    }
  }

  static bool allZero(const ExactVector& v) {
    return std::all_of(v.begin(), v.end(), [](const Exact& x) { return x.isZero(); });
  }

  static bool isSelection(const ExactMatrix& A, int start, int end, int cols) {
    if (A.rows() != end - start || A.cols() != cols) return false;
    if (A.nonZeros() != static_cast<size_t>(end - start)) return false;
    const auto& rs = A.rowStart();
    const auto& ci = A.colIndex();
    const auto& vals = A.values();
    for (int r = 0; r < A.rows(); ++r) {
      const auto k = static_cast<size_t>(rs[static_cast<size_t>(r)]);
      if (rs[static_cast<size_t>(r) + 1] - rs[static_cast<size_t>(r)] != 1) return false;
      if (ci[k] != start + r || !vals[k].isOne()) return false;
    }
    return true;
  }

  // Tarjan's strongly connected components (iterative), over edges input -> consumer.
  void checkCycles() {
    std::vector<std::vector<NodeId>> succ(n_);
    for (const Node& node : g_.nodes()) {
      for (NodeId p : node.inputs) {
        if (exists(p)) succ[static_cast<size_t>(p)].push_back(node.id);
      }
    }
    for (auto& s : succ) {
      std::sort(s.begin(), s.end());
      s.erase(std::unique(s.begin(), s.end()), s.end());
    }
    std::vector<int> index(n_, -1), low(n_, 0);
    std::vector<char> onStack(n_, 0);
    std::vector<NodeId> stack;
    std::vector<std::pair<NodeId, size_t>> work;  // (node, next successor position)
    std::vector<std::vector<NodeId>> cycles;
    int counter = 0;
    for (size_t root = 0; root < n_; ++root) {
      if (index[root] != -1) continue;
      work.push_back({static_cast<NodeId>(root), 0});
      while (!work.empty()) {
        auto& [v, pos] = work.back();
        const auto vi = static_cast<size_t>(v);
        if (pos == 0 && index[vi] == -1) {
          index[vi] = low[vi] = counter++;
          stack.push_back(v);
          onStack[vi] = 1;
        }
        if (pos < succ[vi].size()) {
          const NodeId w = succ[vi][pos++];
          const auto wi = static_cast<size_t>(w);
          if (index[wi] == -1) {
            work.push_back({w, 0});
          } else if (onStack[wi]) {
            low[vi] = std::min(low[vi], index[wi]);
          }
          continue;
        }
        if (low[vi] == index[vi]) {
          std::vector<NodeId> comp;
          NodeId w;
          do {
            w = stack.back();
            stack.pop_back();
            onStack[static_cast<size_t>(w)] = 0;
            comp.push_back(w);
          } while (w != v);
          const bool selfLoop = std::binary_search(succ[vi].begin(), succ[vi].end(), v);
          if (comp.size() > 1 || selfLoop) {
            std::sort(comp.begin(), comp.end());
            cycles.push_back(std::move(comp));
          }
        }
        const NodeId done = v;
        work.pop_back();
        if (!work.empty()) {
          const auto pi = static_cast<size_t>(work.back().first);
          low[pi] = std::min(low[pi], low[static_cast<size_t>(done)]);
        }
      }
    }
    std::sort(cycles.begin(), cycles.end());
    for (const auto& comp : cycles) reportCycle(comp, succ);
  }

  // Reports one strongly connected component with a concrete cycle through its
  // smallest node (shortest path back to it, found by breadth-first search).
  void reportCycle(const std::vector<NodeId>& comp, const std::vector<std::vector<NodeId>>& succ) {
    const NodeId s = comp.front();
    std::vector<NodeId> path;
    if (comp.size() == 1) {
      path = {s, s};
    } else {
      std::vector<NodeId> parent(n_, kNoNode);
      std::vector<char> inComp(n_, 0);
      for (NodeId id : comp) inComp[static_cast<size_t>(id)] = 1;
      std::deque<NodeId> queue{s};
      NodeId last = kNoNode;
      while (!queue.empty() && last == kNoNode) {
        const NodeId v = queue.front();
        queue.pop_front();
        for (NodeId w : succ[static_cast<size_t>(v)]) {
          if (!inComp[static_cast<size_t>(w)]) continue;
          if (w == s) {
            last = v;
            break;
          }
          if (parent[static_cast<size_t>(w)] != kNoNode) continue;
          parent[static_cast<size_t>(w)] = v;
          queue.push_back(w);
        }
      }
      for (NodeId v = last; v != s && v != kNoNode; v = parent[static_cast<size_t>(v)])
        path.push_back(v);
      path.push_back(s);
      std::reverse(path.begin(), path.end());
      path.push_back(s);
    }
    std::string flow;
    for (size_t i = 0; i < path.size(); ++i) {
      if (i > 0) flow += " -> ";
      if (i >= kMaxCycleNodesShown && i + 1 < path.size()) {
        flow += "... (" + std::to_string(path.size() - 1 - i) + " more) -> ";
        i = path.size() - 1;
      }
      flow += label(path[i]);
    }
    std::string members;
    for (size_t i = 0; i < comp.size() && i < kMaxCycleNodesShown; ++i)
      members += (i ? ", " : "") + std::to_string(comp[i]);
    if (comp.size() > kMaxCycleNodesShown) members += ", ...";
    if (comp.size() == 1) {
      add(ProblemKind::Cycle, s,
          label(s) +
              " takes its own value as input (a cycle); a node may not depend on "
              "itself.");
    } else {
      add(ProblemKind::Cycle, s,
          "Nodes " + members + " form a cycle: " + flow +
              " (each feeds the next); a node may not depend on its own value.");
    }
  }

  const Graph& g_;
  size_t n_;
  std::vector<Problem> problems_;
};

}  // namespace

std::vector<Problem> checkGraph(const Graph& g) { return Checker(g).run(); }

namespace {

std::string joinProblems(const std::vector<const Problem*>& problems, const std::string& source) {
  const std::string prefix = source.empty() ? std::string() : source + ": ";
  std::string message;
  for (size_t i = 0; i < problems.size() && i < kMaxProblemsInError; ++i) {
    if (i) message += "\n";
    message += prefix + problems[i]->message;
  }
  if (problems.size() > kMaxProblemsInError) {
    message += "\n" + prefix + "... and " + std::to_string(problems.size() - kMaxProblemsInError) +
               " more problems (run `lsrl check` for the full list).";
  }
  return message;
}

// The matrix and vector shapes of a Linear or LinState against its width and input width.
bool shapesMatch(const Graph& g, const Node& n) {
  const int in = g.node(n.inputs.at(0)).dim;
  if (n.op == Op::Linear)
    return n.A.rows() == n.dim && n.A.cols() == in && static_cast<int>(n.b.size()) == n.dim;
  return n.A.rows() == n.dim && n.A.cols() == n.dim && n.B.rows() == n.dim && n.B.cols() == in &&
         static_cast<int>(n.init.size()) == n.dim && static_cast<int>(n.bias.size()) == n.dim;
}

}  // namespace

void requireValid(const Graph& g, const std::string& source) {
  const std::vector<Problem> problems = checkGraph(g);
  if (problems.empty()) return;
  std::vector<const Problem*> all;
  for (const Problem& p : problems) all.push_back(&p);
  throw Error(joinProblems(all, source));
}

void requireValidPath(const Graph& g, const std::string& source) {
  const std::vector<Problem> problems = checkGraph(g);
  std::vector<const Problem*> kept;
  std::vector<NodeId> denseOnly;
  for (const Problem& p : problems) {
    const bool denseSize = p.kind == ProblemKind::AbsurdSize && p.node != kNoNode &&
                           g.node(p.node).dim >= 1 && g.node(p.node).dim <= kMaxNodeDim;
    if (denseSize) {
      denseOnly.push_back(p.node);
    } else {
      kept.push_back(&p);
    }
  }
  if (!kept.empty()) throw Error(joinProblems(kept, source));
  // Nodes excused from the dense limit were not shape-checked by checkGraph.
  for (NodeId id : denseOnly) {
    const Node& n = g.node(id);
    if ((n.op == Op::Linear || n.op == Op::LinState) && !n.inputs.empty() && !shapesMatch(g, n)) {
      throw Error((source.empty() ? std::string() : source + ": ") + std::string(opName(n.op)) +
                  " node " + std::to_string(id) +
                  ": matrix or vector shapes do not match its width " + std::to_string(n.dim) +
                  " and its input width " + std::to_string(g.node(n.inputs.at(0)).dim));
    }
  }
}

}  // namespace lsrl
