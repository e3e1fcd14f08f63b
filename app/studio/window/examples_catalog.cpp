#include "app/studio/window/examples_catalog.h"

#include <nlohmann/json.hpp>

#include "core/io/graph_file.h"
#include "core/io/graph_hash.h"
#include "core/programs/conditional.h"
#include "core/programs/program_registry.h"

namespace lsrl::studio {

const std::vector<ExampleEntry>& exampleEntries() {
  static const std::vector<ExampleEntry> entries = [] {
    std::vector<ExampleEntry> out;
    out.push_back({QStringLiteral("more_ones"),
                   QStringLiteral("more_ones"),
                   "more_ones",
                   {},
                   QStringLiteral("more_ones.json")});
    for (Conditional c : allConditionals()) {
      const std::string variant(conditionalName(c));
      const QString v = QString::fromStdString(variant);
      out.push_back({QStringLiteral("vec2vec (n=2, m=1, %1)").arg(v),
                     QStringLiteral("vec2vec"),
                     "vec2vec",
                     {{"n", "2"}, {"m", "1"}, {"conditional", variant}},
                     QStringLiteral("vec2vec_n2_m1_%1.json").arg(v)});
    }
    for (Conditional c : allConditionals()) {
      const std::string variant(conditionalName(c));
      const QString v = QString::fromStdString(variant);
      out.push_back({QStringLiteral("tok2tok (L=3, %1)").arg(v),
                     QStringLiteral("tok2tok"),
                     "tok2tok",
                     {{"L", "3"}, {"conditional", variant}},
                     QStringLiteral("tok2tok_L3_%1.json").arg(v)});
    }
    return out;
  }();
  return entries;
}

BuiltExample buildExample(const ExampleEntry& entry) {
  BuiltExample out;
  out.graph = buildProgram(entry.program, entry.params);
  out.metadata = nlohmann::json{{"program", entry.program}, {"params", entry.params}};
  const QString path = exampleFilePath(entry.fileName);
  if (path.isEmpty()) return out;
  try {
    Graph stored = loadGraphFile(path.toStdString());
    // Only a file of the very same program lends its layout (a stale file must not).
    if (graphHash(stored) == graphHash(out.graph) && !stored.layout().empty()) {
      out.graph.layout() = stored.layout();
      out.graph.groupLayout() = stored.groupLayout();
      out.layoutFromFile = true;
    }
  } catch (const std::exception&) {
    // An unreadable example file only costs its layout.
  }
  return out;
}

}  // namespace lsrl::studio
