// A declared input domain (core/io/declared_domain.h: a program file's metadata "domain",
// or the "domain" of a constant-fit record) as the InputDomain the precision pass fits to.
// The Live panel reads a program's this way, the Token stepper a fine-tuned weights file's
// precision record when it rebuilds the weights training started from.
#pragma once

#include "core/io/declared_domain.h"
#include "core/precision/domain_analysis.h"

namespace lsrl::studio {

// The box, the grid (kept only when it is a positive rational step from a rational LO, as
// the fit needs) and the horizon. Throws lsrl::Error when a field is missing or a value
// does not parse.
InputDomain inputDomainOf(const DeclaredDomain& declared);

}  // namespace lsrl::studio
