#include "core/io/python_program.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/io/graph_file.h"
#include "core/util/error.h"
#include "core/util/subprocess.h"

namespace lsrl {

namespace {

// Runs the program file and writes its ForEach's graph (argv: file, output).
constexpr const char* kDriver = R"PY(
import os, runpy, sys, traceback
path, out = sys.argv[1], sys.argv[2]
try:
    import lsrl
except ImportError as e:
    sys.stderr.write("cannot import the lsrl module (PYTHONPATH=%s): %s\n"
                     % (os.environ.get("PYTHONPATH", ""), e))
    sys.exit(3)
created = []
Base = lsrl.ForEach
class Tracked(Base):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        created.append(self)
lsrl.ForEach = Tracked
sys.argv = [path]
sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
try:
    names = runpy.run_path(path, run_name="__lsrl_program__")
except BaseException:
    traceback.print_exc()
    sys.exit(4)
program = names.get("program")
if program is not None and not isinstance(program, Base):
    sys.stderr.write("the module-level `program` is a %s, not an lsrl.ForEach\n"
                     % type(program).__name__)
    sys.exit(5)
if program is None:
    if not created:
        sys.stderr.write("the file defines no lsrl.ForEach (set a module-level `program`)\n")
        sys.exit(5)
    program = created[-1]
program.save_json(out)
)PY";

std::string searchPath() {
  if (const char* p = std::getenv("LSRL_PYTHONPATH")) return p;
  std::string path;
  for (const char* dir : {LSRL_PYTHON_BUILD_DIR, LSRL_PYTHON_INSTALL_DIR}) {
    if (!std::filesystem::is_directory(dir)) continue;
    if (!path.empty()) path += ":";
    path += dir;
  }
  if (const char* existing = std::getenv("PYTHONPATH")) {
    if (*existing != '\0') path += (path.empty() ? "" : ":") + std::string(existing);
  }
  return path;
}

}  // namespace

std::string pythonInterpreter() {
  const char* interpreter = std::getenv("LSRL_PYTHON");
  return interpreter && *interpreter ? interpreter : "/usr/bin/python3";
}

std::string lsrlPythonPath() { return searchPath(); }

bool isPythonProgramPath(const std::string& path) {
  return path.size() > 3 && path.compare(path.size() - 3, 3, ".py") == 0;
}

Graph loadPythonProgram(const std::string& path, nlohmann::json* metadata, int timeoutMs) {
  if (!std::filesystem::is_regular_file(path)) throw Error(path + ": no such file");
  const std::string python = pythonInterpreter();
  char tmpl[] = "/tmp/lsrl-program-XXXXXX.json";
  const int fd = mkstemps(tmpl, 5);
  if (fd < 0) throw Error(path + ": cannot create a temporary file for the program's graph");
  close(fd);
  const std::string out = tmpl;
  struct Remove {
    std::string file;
    ~Remove() { std::filesystem::remove(file); }
  } remove{out};
  const SubprocessResult r = runSubprocess({python, "-c", kDriver, path, out},
                                           {{"PYTHONPATH", lsrlPythonPath()}}, timeoutMs);
  const std::string stderrTail = lastLines(r.err.empty() ? r.out : r.err, r.errDropped);
  const std::string shown = stderrTail.empty() ? "" : ":\n" + stderrTail;
  if (r.timedOut) {
    throw Error(path + ": the Python program did not finish within " +
                std::to_string(timeoutMs / 1000) +
                " s (it was stopped with everything it started)" + shown);
  }
  if (r.exitCode != 0)
    throw Error(path + ": the Python program failed (" + describeEnding(r) + ")" + shown);
  std::error_code sizeError;
  if (std::filesystem::file_size(out, sizeError) == 0 || sizeError) {
    throw Error(path +
                ": the Python program exited without writing its graph (did it end the "
                "process early, e.g. with os._exit?)" +
                shown);
  }
  try {
    return loadGraphFile(out, metadata);
  } catch (const Error& e) {
    // The temporary file's name means nothing to the user: name the program instead.
    std::string why = e.what();
    if (why.compare(0, out.size(), out) == 0) why = why.substr(out.size());
    while (!why.empty() && (why.front() == ':' || why.front() == ' ')) why.erase(0, 1);
    throw Error(path + ": the graph the Python program wrote is not valid: " + why);
  }
}

Graph loadProgramFile(const std::string& path, nlohmann::json* metadata) {
  if (isPythonProgramPath(path)) return loadPythonProgram(path, metadata);
  return metadata ? loadGraphFile(path, metadata) : loadGraphFile(path);
}

}  // namespace lsrl
