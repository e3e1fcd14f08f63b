// lsrl::compile's exact backend (compile_with.h), in the program's field.
#include "core/compiler/compile_backends.h"
#include "core/compiler/compile_with.h"
#include "core/numbers/exact_field.h"

namespace lsrl::compiler {

CompileResult compileExact(const Graph& program, const CompileOptions& options) {
  Scalars<ExactScalar> sc;
  sc.field = &CosField::get(program.conductor());
  return compileWith(program, options, sc);
}

}  // namespace lsrl::compiler
