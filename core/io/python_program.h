// LSRL programs written in Python (the paper's API, the `lsrl` module of app/python): the
// file runs in a Python subprocess with a time limit, and the program it defines comes
// back as this project's graph JSON. The program is the module-level `program` if the
// file defines one (a ForEach), else the last ForEach the file created. The file runs
// with __name__ == "__lsrl_program__", so an `if __name__ == "__main__":` demo at its end
// does not run.
//
// Interpreter: $LSRL_PYTHON, else /usr/bin/python3 (Debian's, with numpy). The `lsrl`
// package is found through $LSRL_PYTHONPATH, else the build tree's and the install
// prefix's python folders (whichever exist), ahead of $PYTHONPATH.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "core/graph/graph.h"

namespace lsrl {

inline constexpr int kPythonProgramTimeoutMs = 60000;

bool isPythonProgramPath(const std::string& path);  // ends in ".py"

// The interpreter ($LSRL_PYTHON, else /usr/bin/python3) and the PYTHONPATH that finds the
// `lsrl` package (see above): also what `lsrl train` and the explorer's Train… run with.
std::string pythonInterpreter();
std::string lsrlPythonPath();

// Throws lsrl::Error naming the file: Python's traceback when the file fails, a timeout,
// a file that defines no ForEach, a missing `lsrl` module.
Graph loadPythonProgram(const std::string& path, nlohmann::json* metadata = nullptr,
                        int timeoutMs = kPythonProgramTimeoutMs);

// A graph file (.json) or a Python program (.py).
Graph loadProgramFile(const std::string& path, nlohmann::json* metadata = nullptr);

}  // namespace lsrl
