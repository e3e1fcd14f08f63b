"""``ProgramGraph``: a read-only view of a program's DAG with the networkx calls the paper's
code and notebooks use (``ForEach.graph()``, ``Variable.graph()``, the simplification
history), so that ``lsrl.utils.is_directed_path_graph`` and ``plot_and_save_graph`` take it.
"""

from __future__ import annotations

__all__ = ["ProgramGraph"]


class _CallableList(list):
    """A list that returns itself when called (networkx's NodeView and EdgeView are both)."""

    def __call__(self):
        return self


class ProgramGraph:
    """A read-only view of a program's DAG with the networkx calls the paper's notebooks
    use: nodes(), edges(), successors(n), predecessors(n), in/out_degree(n),
    number_of_nodes()."""

    def __init__(self, nodes: list):
        self._nodes = list(nodes)
        self._preds = {n: [] for n in self._nodes}
        self._succs = {n: [] for n in self._nodes}
        for n in self._nodes:
            ins = n.input
            for p in ins if isinstance(ins, list) else ([] if ins is None else [ins]):
                if p not in self._preds[n]:
                    self._preds[n].append(p)
                    self._succs[p].append(n)

    @property
    def nodes(self) -> _CallableList:
        """The nodes (Kahn order): iterate ``G.nodes`` or call ``G.nodes()``, as in networkx."""
        return _CallableList(self._nodes)

    @property
    def edges(self) -> _CallableList:
        """(predecessor, node) pairs: ``G.edges`` or ``G.edges()``."""
        return _CallableList((p, n) for n in self._nodes for p in self._preds[n])

    def copy(self) -> ProgramGraph:
        return ProgramGraph(self._nodes)

    def successors(self, node) -> list:
        return list(self._succs[node])

    def predecessors(self, node) -> list:
        return list(self._preds[node])

    def out_degree(self, node) -> int:
        return len(self._succs[node])

    def in_degree(self, node) -> int:
        return len(self._preds[node])

    def number_of_nodes(self) -> int:
        return len(self._nodes)

    def is_directed(self) -> bool:
        return True

    def __len__(self) -> int:
        return len(self._nodes)

    def __iter__(self):
        return iter(self._nodes)

    def __contains__(self, node) -> bool:
        return node in self._preds
