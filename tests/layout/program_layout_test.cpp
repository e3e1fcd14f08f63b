// `lsrl program ... --layout` stores a dot layout in the file; without it, none.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "app/cli/commands.h"
#include "app/layout/visible_graph.h"
#include "core/io/graph_file.h"
#include "core/io/graph_hash.h"
#include "core/programs/program_registry.h"

namespace lsrl {
namespace {

std::string tempFile(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("lsrl-layout-test-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

TEST(ProgramLayout, LayoutOptionStoresPositionsForEveryItem) {
  const std::string path = tempFile("vec2vec.json");
  std::ostringstream out;
  ASSERT_EQ(
      cli::cmdProgram({"vec2vec", "--set", "n=2", "--set", "m=1", "-o", path, "--layout"}, out), 0);
  const Graph g = loadGraphFile(path);
  std::filesystem::remove(path);
  EXPECT_EQ(graphHash(g), graphHash(buildProgram("vec2vec", {{"n", "2"}, {"m", "1"}})));
  EXPECT_EQ(g.layout().size(), g.nodeCount());
  const VisibleGraph vg = visibleGraph(g);
  size_t boxes = 0;
  for (const VisibleItem& item : vg.items) boxes += item.kind == VisibleItem::Kind::Group;
  EXPECT_GT(boxes, 0u);
  EXPECT_EQ(g.groupLayout().size(), boxes);

  ASSERT_EQ(cli::cmdProgram({"more_ones", "-o", path}, out), 0);
  const Graph plain = loadGraphFile(path);
  std::filesystem::remove(path);
  EXPECT_TRUE(plain.layout().empty());
  EXPECT_TRUE(plain.groupLayout().empty());
}

}  // namespace
}  // namespace lsrl
