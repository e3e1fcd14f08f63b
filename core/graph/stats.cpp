#include "core/graph/stats.h"

#include <algorithm>

namespace lsrl {

namespace {

long long nonZeros(const ExactVector& v) {
  return std::count_if(v.begin(), v.end(), [](const Exact& x) { return !x.isZero(); });
}

}  // namespace

GraphStats computeStats(const Graph& g) {
  GraphStats s;
  for (const char* op : {"Input", "Linear", "Slice", "ReLU", "LinState", "Concat", "Multi"}) {
    s.countsByOp[op] = 0;
  }
  const std::vector<NodeId> program = g.programNodes();
  std::vector<char> inProgram(g.nodeCount(), 0);
  for (NodeId id : program) inProgram[static_cast<size_t>(id)] = 1;
  const auto successors = g.successors();
  for (NodeId id : program) {
    const Node& n = g.node(id);
    ++s.countsByOp[std::string(n.countedOpName())];
    const auto& succ = successors[static_cast<size_t>(id)];
    if (std::count_if(succ.begin(), succ.end(),
                      [&](NodeId x) { return inProgram[static_cast<size_t>(x)] != 0; }) > 1) {
      ++s.branchNodes;
    }
    if (n.op == Op::Linear) {
      s.denseParameters += static_cast<long long>(n.A.rows()) * n.A.cols() + n.A.rows();
      s.nonZeroParameters += static_cast<long long>(n.A.nonZeros()) + nonZeros(n.b);
    } else if (n.op == Op::LinState) {
      s.denseParameters += static_cast<long long>(n.A.rows()) * n.A.cols() +
                           static_cast<long long>(n.B.rows()) * n.B.cols() + n.dim;
      s.nonZeroParameters +=
          static_cast<long long>(n.A.nonZeros() + n.B.nonZeros()) + nonZeros(n.bias);
      s.stateDim += n.dim;
    }
  }
  s.totalNodes = static_cast<int>(program.size());
  s.unusedNodes = static_cast<int>(g.liveNodeCount()) - s.totalNodes;
  if (g.input() != kNoNode) s.inputDim = g.node(g.input()).dim;
  if (g.output() != kNoNode) s.outputDim = g.node(g.output()).dim;
  s.conductor = g.conductor();
  return s;
}

}  // namespace lsrl
