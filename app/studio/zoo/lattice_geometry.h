// The Lattice slot-geometry view's numbers (Qt-free): one head's slots, incoming vectors
// and their parts per slot from a run's trace (core/seed_models/lattice.h), projected to 3D.
// With d = 3 the projection is the identity (the slots are points on the unit sphere);
// with d > 3 it is an uncentred PCA of every slot vector over time (so the origin stays
// the origin and unit vectors stay inside the unit ball), with the explained variance.
//
// Step t (0 … T−1) is token t: the slots move from S_{t−1} (the initial slots at t = 0) to
// S_t, within the plane of s_{i,t−1} and the incoming vector's part orthogonal to it.
// The incoming vector and its parts are drawn as directions: scaled by 1/‖h_t‖, so that
// parallel + orthogonal is the unit incoming direction.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "app/studio/plots/state_series.h"
#include "core/seed_models/model_common.h"

namespace lsrl::studio {

using Point3 = std::array<double, 3>;

struct LatticeFrame {
  int step = 0;
  std::vector<Point3> before, after;         // s_{i,t−1}, s_{i,t} projected, per slot
  std::vector<Point3> parallel, orthogonal;  // h_t's parts per slot (unit-h scale)
  std::vector<std::vector<Point3>> arcs;     // per slot: the rotation from before to after
  Point3 incoming{};                         // h_t / ‖h_t‖ (0 when h_t = 0)
  double incomingNorm = 0;                   // ‖h_t‖
  std::vector<double> writeStrength, theta, perpFrac;  // per slot, from the trace
};

class LatticeGeometry {
 public:
  // Reads the arrays of head `head` of layer `layer` ("slots", "slots_initial", "incoming",
  // "parallel", "orthogonal", "write_strength", "theta", "perp_frac", under
  // latticeTracePrefix). Throws lsrl::Error naming a missing or misshapen array.
  LatticeGeometry(const seed_models::Trace& trace, int head = 0, int layer = 0);

  int steps() const { return T_; }
  int slots() const { return m_; }
  int dimension() const { return d_; }
  bool projected() const { return d_ > 3; }  // PCA (else the slots' own coordinates)
  // Fraction of the slot vectors' energy along projected axis k (1, 0, 0 … for d ≤ 3 is not
  // meaningful: the identity keeps everything, so each is reported as its share).
  double explained(int k) const { return explained_[static_cast<size_t>(k)]; }
  // Axis names: "x", "y", "z" (d ≤ 3) or "PC1", "PC2", "PC3".
  std::string axisName(int k) const;

  LatticeFrame frame(int step) const;
  // Slot i's projected position after each step: [T] points (index t = after token t),
  // and the initial position.
  const std::vector<Point3>& trail(int slot) const { return trails_[static_cast<size_t>(slot)]; }
  Point3 initial(int slot) const { return initial_[static_cast<size_t>(slot)]; }

  // The slots in full dimension per step: a row per step 0 (the initial slots) … T,
  // columns "s1[0]" … "s<m>[d−1]" (the slot trajectories export).
  StateSeries slotTrajectories() const;
  // What the 3D view plots at `step`, one row per plotted point: columns kind (0 slot
  // before, 1 slot after, 2 orthogonal part's tip, 3 incoming), slot (−1 for incoming), x,
  // y, z.
  StateSeries framePoints(int step) const;
  // How far the drawing reaches over all steps: the largest |coordinate| of the slots
  // (before, after, arcs, trails) and of the incoming direction, at least 1 (the unit
  // sphere), and the longest orthogonal part (its tip, drawn from the old slot's tip,
  // can reach √2 from the origin). The 3D view sizes its axes from them once per run.
  struct Extent {
    double sphere = 1;
    double orthogonal = 0;
  };
  Extent extent() const;

 private:
  Point3 project(const double* v) const;

  int T_ = 0, m_ = 0, d_ = 0;
  std::vector<double> slots_, initialSlots_, incoming_, parallel_, orthogonal_;
  std::vector<double> write_, theta_, perp_;
  std::vector<std::array<double, 3>> basis_;  // [d] rows: coordinate k of unit vector e_j
  std::array<double, 3> explained_{};
  std::vector<std::vector<Point3>> trails_;
  std::vector<Point3> initial_;
};

}  // namespace lsrl::studio
