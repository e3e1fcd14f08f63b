// Internal to core/executor: the two interpreters of a Plan's instruction array, one per
// numeric mode. Used by the executors per token and by the plan builder to fold
// token-independent nodes once.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

#include "core/executor/plan.h"
#include "core/numbers/exact_field.h"
#include "core/util/cancelling_sum.h"

namespace lsrl {

struct PlanKernels {
  using Instr = Plan::Instr;
  using Kind = Plan::Kind;
  using Elem = eantic::renf_elem_class;

  // The exact interpreter's temporaries (allocated once per executor, reused):
  // temps[0] accumulator, temps[1] product, temps[2] zero.
  static constexpr int kExactTemps = 3;

  // Row r of a CSR instruction: its bias and products summed by decreasing magnitude
  // (core/util/cancelling_sum.h), in `terms` (room for Plan::maxRowTerms_).
  static double csrRow(const int32_t* rp, int r, const double* val, const int32_t* col,
                       const double* buf, double bias, double* terms) {
    int n = 0;
    terms[n++] = bias;
    for (int32_t k = rp[r], e = rp[r + 1]; k < e; ++k) terms[n++] = val[k] * buf[col[k]];
    return sumByDecreasingMagnitude(terms, n);
  }

  static void runFloat(const Plan& p, const Instr* it, const Instr* end, double* buf) {
    thread_local std::vector<double> rowTerms;
    if (rowTerms.size() < static_cast<size_t>(p.maxRowTerms_)) rowTerms.resize(p.maxRowTerms_);
    double* terms = rowTerms.data();
    const int32_t* rowPtr = p.rowPtr_.data();
    const int32_t* col = p.col_.data();
    const int32_t* idx = p.idx_.data();
    const double* val = p.val_.data();
    const double* bias = p.bias_.data();
    for (; it != end; ++it) {
      const Instr& I = *it;
      double* out = buf + I.out;
      const double* b = bias + I.bias;
      const int dim = I.dim;
      switch (I.kind) {
        case Kind::Csr: {
          // Row r may read out[r] itself (a LinState with diagonal A): the row is summed
          // before it is stored.
          const int32_t* rp = rowPtr + I.coef;
          for (int r = 0; r < dim; ++r) out[r] = csrRow(rp, r, val, col, buf, b[r], terms);
          break;
        }
        case Kind::CsrScratch: {
          const int32_t* rp = rowPtr + I.coef;
          double* s = buf + p.scratchSlot_;
          for (int r = 0; r < dim; ++r) s[r] = csrRow(rp, r, val, col, buf, b[r], terms);
          std::copy(s, s + dim, out);
          break;
        }
        case Kind::Gather: {
          const int32_t* ix = col + I.coef;
          const double* v = val + I.coef;
          for (int r = 0; r < dim; ++r) out[r] = v[r] * buf[ix[r]] + b[r];
          break;
        }
        case Kind::Affine: {
          const double s = val[I.coef];
          const double* x = buf + I.in;
          for (int r = 0; r < dim; ++r) out[r] = s * x[r] + b[r];
          break;
        }
        case Kind::ReluContig: {
          const double* x = buf + I.in;
          for (int r = 0; r < dim; ++r) out[r] = x[r] > 0.0 ? x[r] : 0.0;
          break;
        }
        case Kind::ReluGather: {
          const int32_t* ix = idx + I.in;
          for (int r = 0; r < dim; ++r) {
            const double x = buf[ix[r]];
            out[r] = x > 0.0 ? x : 0.0;
          }
          break;
        }
        case Kind::MultiContig: {
          const double* x = buf + I.in;
          for (int r = 0; r < dim; ++r) out[r] = x[r] * x[dim + r];
          break;
        }
        case Kind::MultiGather: {
          const int32_t* ix = idx + I.in;
          for (int r = 0; r < dim; ++r) out[r] = buf[ix[r]] * buf[ix[dim + r]];
          break;
        }
      }
    }
  }

  // acc += c·x for an exact coefficient of the given kind.
  static void addMul(Elem& acc, Plan::CoefKind kind, const Elem& c, const Elem& x, Elem& tmp) {
    switch (kind) {
      case Plan::CoefKind::One:
        acc += x;
        break;
      case Plan::CoefKind::MinusOne:
        acc -= x;
        break;
      case Plan::CoefKind::General:
        tmp = x;
        tmp *= c;
        acc += tmp;
        break;
    }
  }

  static void runExact(const Plan& p, const Instr* it, const Instr* end, Elem* buf, Elem* temps) {
    const int32_t* rowPtr = p.rowPtr_.data();
    const int32_t* col = p.col_.data();
    const int32_t* idx = p.idx_.data();
    const Elem* val = p.exVal_.data();
    const Plan::CoefKind* kind = p.exKind_.data();
    const Elem* bias = p.exBias_.data();
    Elem& acc = temps[0];
    Elem& tmp = temps[1];
    const Elem& zero = temps[2];
    // Signs through signOf: e-antic's sgn() may refine the field's shared embedding,
    // which is not safe while other threads run the same plan.
    const CosField& field = p.field();
    for (; it != end; ++it) {
      const Instr& I = *it;
      Elem* out = buf + I.out;
      const Elem* b = bias + I.bias;
      const bool hasBias = (I.flags & Plan::kHasBias) != 0;
      const int dim = I.dim;
      switch (I.kind) {
        case Kind::Csr:
        case Kind::CsrScratch: {
          Elem* dst = I.kind == Kind::Csr ? out : buf + p.scratchSlot_;
          const int32_t* rp = rowPtr + I.coef;
          for (int r = 0; r < dim; ++r) {
            acc = hasBias ? b[r] : zero;
            for (int32_t k = rp[r], e = rp[r + 1]; k < e; ++k)
              addMul(acc, kind[k], val[k], buf[col[k]], tmp);
            std::swap(dst[r], acc);  // the row may read dst[r] itself (diagonal LinState)
          }
          if (I.kind == Kind::CsrScratch) {
            for (int r = 0; r < dim; ++r) std::swap(out[r], dst[r]);
          }
          break;
        }
        case Kind::Gather: {
          const int32_t* ix = col + I.coef;
          for (int r = 0; r < dim; ++r) {
            const int32_t k = I.coef + r;
            Elem& o = out[r];
            switch (kind[k]) {
              case Plan::CoefKind::One:
                o = buf[ix[r]];
                break;
              case Plan::CoefKind::MinusOne:
                o = buf[ix[r]];
                o *= -1;
                break;
              case Plan::CoefKind::General:
                o = buf[ix[r]];
                o *= val[k];
                break;
            }
            if (hasBias) o += b[r];
          }
          break;
        }
        case Kind::Affine: {
          const Elem* x = buf + I.in;
          const Plan::CoefKind k = kind[I.coef];
          const Elem& s = val[I.coef];
          for (int r = 0; r < dim; ++r) {
            Elem& o = out[r];
            o = x[r];
            if (k == Plan::CoefKind::MinusOne) {
              o *= -1;
            } else if (k == Plan::CoefKind::General) {
              o *= s;
            }
            if (hasBias) o += b[r];
          }
          break;
        }
        case Kind::ReluContig: {
          const Elem* x = buf + I.in;
          for (int r = 0; r < dim; ++r) out[r] = signOf(x[r], field) > 0 ? x[r] : zero;
          break;
        }
        case Kind::ReluGather: {
          const int32_t* ix = idx + I.in;
          for (int r = 0; r < dim; ++r) {
            const Elem& x = buf[ix[r]];
            out[r] = signOf(x, field) > 0 ? x : zero;
          }
          break;
        }
        case Kind::MultiContig: {
          const Elem* x = buf + I.in;
          for (int r = 0; r < dim; ++r) {
            out[r] = x[r];
            out[r] *= x[dim + r];
          }
          break;
        }
        case Kind::MultiGather: {
          const int32_t* ix = idx + I.in;
          for (int r = 0; r < dim; ++r) {
            out[r] = buf[ix[r]];
            out[r] *= buf[ix[dim + r]];
          }
          break;
        }
      }
    }
  }
};

}  // namespace lsrl
