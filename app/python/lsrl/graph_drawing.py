"""``plot_and_save_graph``: a program graph drawn by Graphviz's ``dot`` (Debian ``graphviz``),
the paper's helper for pictures of a program and of each simplification step.

The graph may be a ``ForEach.graph()`` / ``Variable.graph()`` view, a graph from
``simplification_history``, or any networkx-like directed graph of lsrl nodes. Layers run
top to bottom; nodes are coloured by kind and labelled with their name and size.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

__all__ = ["plot_and_save_graph", "graph_to_dot"]

_COLOURS = {
    "Input": "#c6f0a0",
    "Linear": "#a8e4f0",
    "Slice": "#a8e4f0",
    "ReLU": "#d4b8f5",
    "Concat": "#f5ec9a",
    "LinState": "#f5a8a8",
    "Multiplicative": "#f5b8d9",
}
_TIMEOUT_S = 120


def graph_to_dot(graph, figsize=(30, 30), node_types_instead_of_name: bool = False) -> str:
    """The DOT text of a directed graph of lsrl nodes."""
    if not graph.is_directed():
        raise ValueError("The graph is not directed!")
    nodes = list(graph.nodes)
    index = {n: i for i, n in enumerate(nodes)}
    lines = [
        "digraph lsrl {",
        f'  graph [rankdir=TB, size="{float(figsize[0])},{float(figsize[1])}", dpi=72];',
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];',
    ]
    for n, i in index.items():
        kind = type(n).__name__
        if node_types_instead_of_name:
            label = _escape(kind)
        else:  # name and size on two lines (\n is DOT's line break)
            label = _escape(str(getattr(n, "name", ""))) + "\\n" + _escape(str(getattr(n, "size_str", "")))
        lines.append(f'  n{i} [label="{label}", fillcolor="{_COLOURS.get(kind, "#e0e0e0")}"];')
    for a, b in graph.edges:
        lines.append(f"  n{index[a]} -> n{index[b]};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def plot_and_save_graph(graph, file_path=None, figsize=(30, 30), node_types_instead_of_name: bool = False):
    """Draws `graph` into `file_path` (the format from its extension: .png, .svg, .pdf, or
    .dot for the text itself; folders are created). Without a path, returns the DOT text.
    Failures are RuntimeErrors naming the cause, as in the paper."""
    dot = graph_to_dot(graph, figsize, node_types_instead_of_name)
    if file_path is None:
        return dot
    file_path = os.fspath(file_path)
    folder = os.path.dirname(file_path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    fmt = os.path.splitext(file_path)[1].lstrip(".").lower() or "png"
    if fmt == "dot":
        _write_atomically(file_path, dot.encode())
        return None
    program = shutil.which("dot")
    if program is None:
        raise RuntimeError("plot_and_save_graph needs Graphviz's dot program (Debian package graphviz)")
    try:
        done = subprocess.run([program, f"-T{fmt}"], input=dot.encode(), capture_output=True, timeout=_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"dot took longer than {_TIMEOUT_S} s to draw {file_path}") from None
    if done.returncode != 0:
        raise RuntimeError(f"dot could not draw {file_path}: {done.stderr.decode(errors='replace').strip()}")
    _write_atomically(file_path, done.stdout)
    return None


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _write_atomically(path: str, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path) or ".", prefix=".plot-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
