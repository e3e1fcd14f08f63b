// The Examples menu: the paper's three programs in every conditional variant, built
// from core/programs. Each example's layout comes from its file under examples/
// (shipped and installed) when that file holds the same program; otherwise the
// explorer lays it out on open.
#pragma once

#include <QString>
#include <QStringList>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/studio/common/example_files.h"
#include "core/graph/graph.h"

namespace lsrl::studio {

struct ExampleEntry {
  QString title;  // "tok2tok (L=3, direct)"
  QString menu;   // submenu: "more_ones", "vec2vec", "tok2tok"
  std::string program;
  std::map<std::string, std::string> params;
  QString fileName;  // examples/<fileName> with the stored layout
};

const std::vector<ExampleEntry>& exampleEntries();

struct BuiltExample {
  Graph graph;
  nlohmann::json metadata;
  bool layoutFromFile = false;  // false: the caller should lay it out
};
// Throws lsrl::Error if the program cannot be built.
BuiltExample buildExample(const ExampleEntry& entry);

}  // namespace lsrl::studio
