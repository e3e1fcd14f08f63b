#include "app/studio/common/declared_input_domain.h"

#include "core/numbers/exact_field.h"
#include "core/util/error.h"

namespace lsrl::studio {

InputDomain inputDomainOf(const DeclaredDomain& declared) {
  if (!declared.complete()) throw Error("the domain needs a box [lo, hi] and a horizon");
  InputDomain domain;
  domain.lo = Exact::parse(*declared.lo);
  domain.hi = Exact::parse(*declared.hi);
  if (declared.grid) {
    const Exact step = Exact::parse(*declared.grid);
    if (step.sign() > 0 && step.isRational() && domain.lo.isRational())
      domain.grid = step.toRational();
  }
  domain.horizon = *declared.horizon;
  return domain;
}

}  // namespace lsrl::studio
