// lsrl::compile's float64 backend (compile_with.h), and the rule instances the rule
// catalogue (compiler.cpp) describes.
#include "core/compiler/compile_backends.h"
#include "core/compiler/compile_with.h"

namespace lsrl::compiler {

template std::vector<std::unique_ptr<FoldRule<double>>> foldRules<double>();
template std::vector<std::unique_ptr<DebranchRule<double>>> debranchRules<double>();

CompileResult compileFloat64(const Graph& program, const CompileOptions& options) {
  return compileWith(program, options, Scalars<double>{});
}

}  // namespace lsrl::compiler
