#include "app/layout/full_layout.h"

#include "app/layout/dot_layout.h"
#include "app/layout/layered_layout.h"
#include "core/util/error.h"
#include "core/util/thousands.h"

namespace lsrl {

bool dotFits(const VisibleGraph& vg, const LayoutLimits& limits) {
  return vg.items.size() <= limits.dotMaxItems && vg.edges.size() <= limits.dotMaxEdges;
}

std::string tooBigForDotNote(const VisibleGraph& vg, const LayoutLimits& limits) {
  if (dotFits(vg, limits)) return {};
  return withThousands(vg.items.size()) + " boxes and " + withThousands(vg.edges.size()) +
         " edges: laid out in layers (dot is used up to " + withThousands(limits.dotMaxItems) +
         " boxes and " + withThousands(limits.dotMaxEdges) + " edges)";
}

FullLayout fullLayout(const Graph& g, const std::atomic<bool>* cancel, const LayoutLimits& limits) {
  FullLayout out;
  const VisibleGraph vg = visibleGraph(g);
  if (!dotFits(vg, limits)) {
    out.note = tooBigForDotNote(vg, limits);
  } else {
    try {
      out.layout = dotLayoutIsolated(g, limits.dotTimeoutMs, cancel);
      out.byDot = true;
      return out;
    } catch (const Cancelled&) {
      throw;
    } catch (const std::exception& e) {
      out.note = std::string(e.what()) + "; laid out in layers instead";
    }
  }
  out.layout = layoutFromItemCentres(g, vg, layeredCentres(g, vg));
  return out;
}

}  // namespace lsrl
