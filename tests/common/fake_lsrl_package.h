// A stand-in for the `lsrl` Python package (app/python) in tests of how .py programs
// are run (core/io/python_program.h): its ForEach(name) saves a graph of one Input of
// width 2 named `name`, which is also the output (the identity program). Lets those tests run
// without the bindings being built.
#pragma once

#include <filesystem>
#include <string>

#include "core/graph/builder.h"
#include "core/io/graph_file.h"
#include "core/util/atomic_file.h"

namespace lsrl::test {

// Writes <dir>/lsrl/__init__.py.
inline void writeFakeLsrlPackage(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir / "lsrl");
  Graph g;
  g.setOutput(Input(g, 2, "NAME").id());
  const std::string json = graphToString(g);
  const size_t at = json.find("\"NAME\"");
  writeFileAtomically((dir / "lsrl" / "__init__.py").string(),
                      "BEFORE = r'''" + json.substr(0, at) + "'''\n" + "AFTER = r'''" +
                          json.substr(at + 6) +
                          "'''\n"
                          "class ForEach:\n"
                          "    def __init__(self, name):\n"
                          "        self.name = name\n"
                          "    def save_json(self, path):\n"
                          "        with open(path, 'w') as f:\n"
                          "            f.write(BEFORE + '\"' + self.name + '\"' + AFTER)\n");
}

}  // namespace lsrl::test
