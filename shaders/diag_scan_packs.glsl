// Values of the diagonal scans (diag_scan_*.comp), one real4 (common.glsl) per "pack":
// four real channels or two complex ones when the row allows (WIDE: whole-pack loads and
// stores, which is what makes the kernels bandwidth-bound on CPU drivers like lavapipe),
// else one channel in .x (real) or .xy (complex) with the rest zero. Products are
// component-wise for real values and two complex products for complex ones, so the unused
// zeros stay zero. Expects the specialization constants COMPLEX and WIDE and real buffers
// named as below.

// precise: no fused multiply-adds, as the CPU twins round (NVIDIA contracts by default).
real2 complexProduct(real2 u, real2 v) {
  precise real2 p = real2(u.x * v.x - u.y * v.y, u.x * v.y + u.y * v.x);
  return p;
}

real4 packProduct(real4 u, real4 v) {
  return COMPLEX ? real4(complexProduct(u.xy, v.xy), complexProduct(u.zw, v.zw)) : u * v;
}

real4 packOne() { return COMPLEX ? real4(1.0, 0.0, 1.0, 0.0) : real4(1.0); }

// Declares `readonly buffer NAME` as both real[] NAME and real4[] NAME##4 at BINDING, and
// NAME##Pack(pack) reading one pack.
#define DECLARE_PACKED_INPUT(BINDING, NAME)                                           \
  layout(std430, binding = BINDING) readonly buffer NAME##Floats { real NAME[]; };    \
  layout(std430, binding = BINDING) readonly buffer NAME##Vec4s { real4 NAME##4[]; }; \
  real4 NAME##Pack(uint pack) {                                                       \
    if (WIDE) return NAME##4[pack];                                                   \
    return COMPLEX ? real4(NAME[2 * pack], NAME[2 * pack + 1], 0.0, 0.0)              \
                   : real4(NAME[pack], 0.0, 0.0, 0.0);                                \
  }

// The output h: storeH(pack, value), and loadH(pack) for kernels that continue from the
// last state an earlier dispatch wrote.
#define DECLARE_PACKED_STATE(BINDING)                                                 \
  layout(std430, binding = BINDING) buffer StateFloats { real h[]; };                 \
  layout(std430, binding = BINDING) buffer StateVec4s { real4 h4[]; };                \
  void storeH(uint pack, real4 v) {                                                   \
    if (WIDE) {                                                                       \
      h4[pack] = v;                                                                   \
    } else if (COMPLEX) {                                                             \
      h[2 * pack] = v.x;                                                              \
      h[2 * pack + 1] = v.y;                                                          \
    } else {                                                                          \
      h[pack] = v.x;                                                                  \
    }                                                                                 \
  }                                                                                   \
  real4 loadH(uint pack) {                                                            \
    if (WIDE) return h4[pack];                                                        \
    return COMPLEX ? real4(h[2 * pack], h[2 * pack + 1], 0.0, 0.0)                    \
                   : real4(h[pack], 0.0, 0.0, 0.0);                                   \
  }
