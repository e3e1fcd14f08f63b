// Internal to core/compiler: the two backends of lsrl::compile, each in its own unit
// (compile_float64.cpp, compile_exact.cpp; the template both share is compile_with.h).
#pragma once

#include "core/compiler/compiler.h"

namespace lsrl::compiler {

// The program is valid already (compile() checks it).
CompileResult compileFloat64(const Graph& program, const CompileOptions& options);
CompileResult compileExact(const Graph& program, const CompileOptions& options);

}  // namespace lsrl::compiler
