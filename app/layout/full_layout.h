// The explorer's full layout: Graphviz dot when the drawn graph is small enough for it
// to finish in seconds, else (or when dot fails, crashes or runs past its deadline) the
// linear layered layout, with a note saying why dot was not used.
#pragma once

#include <atomic>
#include <string>

#include "app/layout/layout_result.h"
#include "app/layout/visible_graph.h"

namespace lsrl {

struct LayoutLimits {
  // dot takes ~3 s on 700 boxes and ~30 s on 2,400 (tok2tok L=30, L=100, collapsed).
  size_t dotMaxItems = 1500;
  size_t dotMaxEdges = 6000;
  int dotTimeoutMs = 20000;
};

struct FullLayout {
  LayoutResult layout;
  bool byDot = false;
  std::string note;  // why dot did not lay it out ("" when it did)
};

// Whether dot is tried on this visible graph (items and edges within the limits).
bool dotFits(const VisibleGraph& vg, const LayoutLimits& limits = {});

// "2,431 boxes and 7,002 edges: laid out in layers (dot is used up to 1,500 boxes and
// 6,000 edges)"; "" when dotFits.
std::string tooBigForDotNote(const VisibleGraph& vg, const LayoutLimits& limits = {});

// dot in a forked copy (dotLayoutIsolated) when dotFits, else layeredLayout. Throws
// lsrl::Cancelled when `*cancel` is set while dot runs.
FullLayout fullLayout(const Graph& g, const std::atomic<bool>* cancel = nullptr,
                      const LayoutLimits& limits = {});

}  // namespace lsrl
