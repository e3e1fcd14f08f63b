// The fused Lattice recurrence (core/seed_models/lattice_scan.h) for the PyTorch twin's
// autograd Function (app/python/lsrl/torch/lattice.py): numpy arrays in and out, float32 or
// float64, C-contiguous, never copied (the twin passes tensor.numpy() views), the GIL
// released while it computes.
#include "core/seed_models/lattice_scan.h"

#include <string>
#include <vector>

#include "app/python/bindings/common.h"
#include "core/util/error.h"

namespace lsrl::py {

namespace {

namespace sm = seed_models;

sm::LatticeOptions scanOptions(const std::string& mode, const std::string& variant,
                               const std::string& beta, double eps, double lambda) {
  sm::LatticeOptions opt;
  const auto md = sm::latticeModeFromName(mode);
  const auto va = sm::latticeVariantFromName(variant);
  const auto be = sm::latticeBetaFromName(beta);
  if (!md || !va || !be)
    throw Error("lattice scan: unknown mode, variant or beta \"" + mode + "\", \"" + variant +
                "\", \"" + beta + "\"");
  opt.mode = *md;
  opt.variant = *va;
  opt.beta = *be;
  opt.eps = eps;
  opt.lambda = lambda;
  if (!sm::latticeScanSupports(opt))
    throw Error("lattice scan: mode " + mode + " is not fused (the PyTorch loop runs it)");
  return opt;
}

// The arrays of one call: one dtype, C-contiguous, the shapes of lattice_scan.h.
struct ScanArrays {
  sm::LatticeScanShape shape;
  pyb::dtype dtype;
  bool isDouble = true;
};

void expectShape(const pyb::array& a, const char* what, std::vector<pyb::ssize_t> want,
                 const pyb::dtype& dtype) {
  if (!a.dtype().is(dtype))
    throw Error(std::string("lattice scan: ") + what + " has another dtype than s0");
  if (!(a.flags() & pyb::array::c_style))
    throw Error(std::string("lattice scan: ") + what + " is not C-contiguous");
  bool same = a.ndim() == static_cast<pyb::ssize_t>(want.size());
  for (size_t i = 0; same && i < want.size(); ++i)
    same = a.shape(static_cast<pyb::ssize_t>(i)) == want[i];
  if (!same) throw Error(std::string("lattice scan: ") + what + " has the wrong shape");
}

// Checks k, v, q, gamma, mu against the state's [B][H][m][d] (`state`'s first two and
// last two dimensions: s0's, or the kept states') and k's T.
ScanArrays checkArrays(const pyb::array& state, const pyb::array& k, const pyb::array& v,
                       const pyb::array& q, const pyb::array& gamma, const pyb::array& mu) {
  ScanArrays r{{}, state.dtype()};
  const bool f32 = r.dtype.is(pyb::dtype::of<float>());
  r.isDouble = r.dtype.is(pyb::dtype::of<double>());
  if (!f32 && !r.isDouble) throw Error("lattice scan: arrays must be float32 or float64");
  if (state.ndim() < 4 || k.ndim() != 4) throw Error("lattice scan: s0 and k must be 4-D");
  const pyb::ssize_t last = state.ndim() - 1;
  const pyb::ssize_t B = state.shape(0), H = state.shape(1), m = state.shape(last - 1),
                     d = state.shape(last), T = k.shape(1);
  expectShape(k, "k", {B, T, H, m}, r.dtype);
  expectShape(v, "v", {B, T, H, d}, r.dtype);
  expectShape(q, "q", {B, T, H, m}, r.dtype);
  expectShape(gamma, "gamma", {B, T, H}, r.dtype);
  expectShape(mu, "mu", {B, T, H}, r.dtype);
  r.shape = {B, T, H, static_cast<int>(m), static_cast<int>(d)};
  return r;
}

template <class T>
const T* ro(const pyb::array& a) {
  return static_cast<const T*>(a.data());
}

template <class T>
T* rw(pyb::array& a) {
  return static_cast<T*>(a.mutable_data());
}

template <class T>
sm::LatticeScanInputs<T> inputsOf(const pyb::array& k, const pyb::array& v, const pyb::array& q,
                                  const pyb::array& gamma, const pyb::array& mu) {
  return {ro<T>(k), ro<T>(v), ro<T>(q), ro<T>(gamma), ro<T>(mu)};
}

template <class T>
pyb::tuple forward(const ScanArrays& a, const sm::LatticeOptions& opt, const pyb::array& s0,
                   const pyb::array& k, const pyb::array& v, const pyb::array& q,
                   const pyb::array& gamma, const pyb::array& mu, bool keepStates) {
  const auto& sh = a.shape;
  pyb::array y(a.dtype, std::vector<pyb::ssize_t>{sh.batch, sh.tokens, sh.heads, sh.d});
  pyb::object states = pyb::none();
  T* kept = nullptr;
  if (keepStates) {
    pyb::array st(a.dtype, std::vector<pyb::ssize_t>{sh.batch, sh.heads, sh.tokens, sh.m, sh.d});
    kept = rw<T>(st);
    states = st;
  }
  const auto in = inputsOf<T>(k, v, q, gamma, mu);
  T* out = rw<T>(y);
  {
    pyb::gil_scoped_release release;
    sm::latticeScanForward<T>(sh, opt, ro<T>(s0), in, out, kept);
  }
  return pyb::make_tuple(y, states);
}

template <class T>
pyb::tuple backward(const ScanArrays& a, const sm::LatticeOptions& opt, const pyb::array& states,
                    const pyb::array& k, const pyb::array& v, const pyb::array& q,
                    const pyb::array& gamma, const pyb::array& mu, const pyb::array& dy) {
  const auto& sh = a.shape;
  pyb::array ds0(a.dtype, std::vector<pyb::ssize_t>{sh.batch, sh.heads, sh.m, sh.d});
  pyb::array dk(a.dtype, k.request().shape), dv(a.dtype, v.request().shape),
      dq(a.dtype, q.request().shape), dgamma(a.dtype, gamma.request().shape),
      dmu(a.dtype, mu.request().shape);
  const sm::LatticeScanGrads<T> grads{rw<T>(ds0), rw<T>(dk),     rw<T>(dv),
                                      rw<T>(dq),  rw<T>(dgamma), rw<T>(dmu)};
  const auto in = inputsOf<T>(k, v, q, gamma, mu);
  {
    pyb::gil_scoped_release release;
    sm::latticeScanBackward<T>(sh, opt, ro<T>(states), in, ro<T>(dy), grads);
  }
  return pyb::make_tuple(ds0, dk, dv, dq, dgamma, dmu);
}

}  // namespace

void registerLatticeScan(pyb::module_& m) {
  m.def(
      "lattice_scan_forward",
      [](const pyb::array& s0, const pyb::array& k, const pyb::array& v, const pyb::array& q,
         const pyb::array& gamma, const pyb::array& mu, const std::string& mode,
         const std::string& variant, const std::string& beta, double eps, double lambda,
         bool keepStates) {
        const auto opt = scanOptions(mode, variant, beta, eps, lambda);
        const ScanArrays a = checkArrays(s0, k, v, q, gamma, mu);
        const auto& sh = a.shape;
        expectShape(s0, "s0", {sh.batch, sh.heads, sh.m, sh.d}, a.dtype);
        return a.isDouble ? forward<double>(a, opt, s0, k, v, q, gamma, mu, keepStates)
                          : forward<float>(a, opt, s0, k, v, q, gamma, mu, keepStates);
      },
      pyb::arg("s0"), pyb::arg("k"), pyb::arg("v"), pyb::arg("q"), pyb::arg("gamma"),
      pyb::arg("mu"), pyb::arg("mode"), pyb::arg("variant"), pyb::arg("beta"), pyb::arg("eps"),
      pyb::arg("lam"), pyb::arg("keep_states") = true,
      "(y [B][T][H][d], states [B][H][T][m][d] or None) of Lattice's recurrence from s0 "
      "[B][H][m][d] over k, q [B][T][H][m], v [B][T][H][d], gamma, mu [B][T][H] (one dtype, "
      "float32 or float64, C-contiguous); states (each S_{t-1}) feed lattice_scan_backward.");
  m.def(
      "lattice_scan_backward",
      [](const pyb::array& states, const pyb::array& k, const pyb::array& v, const pyb::array& q,
         const pyb::array& gamma, const pyb::array& mu, const pyb::array& dy,
         const std::string& mode, const std::string& variant, const std::string& beta, double eps,
         double lambda) {
        const auto opt = scanOptions(mode, variant, beta, eps, lambda);
        const ScanArrays a = checkArrays(states, k, v, q, gamma, mu);
        const auto& sh = a.shape;
        expectShape(states, "states", {sh.batch, sh.heads, sh.tokens, sh.m, sh.d}, a.dtype);
        expectShape(dy, "dy", {sh.batch, sh.tokens, sh.heads, sh.d}, a.dtype);
        return a.isDouble ? backward<double>(a, opt, states, k, v, q, gamma, mu, dy)
                          : backward<float>(a, opt, states, k, v, q, gamma, mu, dy);
      },
      pyb::arg("states"), pyb::arg("k"), pyb::arg("v"), pyb::arg("q"), pyb::arg("gamma"),
      pyb::arg("mu"), pyb::arg("dy"), pyb::arg("mode"), pyb::arg("variant"), pyb::arg("beta"),
      pyb::arg("eps"), pyb::arg("lam"),
      "(ds0 [B][H][m][d], dk, dv, dq, dgamma, dmu): the gradients of a loss through "
      "lattice_scan_forward given dy = dL/dy, from its states.");
}

}  // namespace lsrl::py
