// Helpers shared by the file-format tests: error capture (a graph file's load error among
// them), graph equality, temp dirs.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "common/error_of.h"
#include "core/graph/graph.h"
#include "core/io/graph_file.h"
#include "core/util/error.h"

namespace lsrl::testing_io {

using testing_common::errorOf;

// The error graphFromString gives for `text` read as "t.json" ("<no error>" if it loads).
inline std::string graphLoadError(const std::string& text) {
  return errorOf([&] { graphFromString(text, "t.json"); });
}

// EXPECT_THAT(text, HasSubstr(part)) without gmock.
#define EXPECT_CONTAINS(text, part)                                        \
  do {                                                                     \
    const std::string text_ = (text);                                      \
    EXPECT_NE(text_.find(part), std::string::npos)                         \
        << "expected to find: " << (part) << "\n           in: " << text_; \
  } while (0)

inline bool sameNode(const Node& a, const Node& b) {
  return a.id == b.id && a.op == b.op && a.dim == b.dim && a.inputs == b.inputs &&
         a.name == b.name && a.alwaysPositive == b.alwaysPositive && a.group == b.group &&
         a.slice == b.slice && a.A == b.A && a.B == b.B && a.b == b.b && a.init == b.init &&
         a.bias == b.bias;
}

// Reports the first difference between two graphs (empty if identical).
inline std::string graphDifference(const Graph& a, const Graph& b) {
  if (a.nodeCount() != b.nodeCount()) {
    return "node counts " + std::to_string(a.nodeCount()) + " vs " + std::to_string(b.nodeCount());
  }
  for (size_t i = 0; i < a.nodeCount(); ++i) {
    if (!sameNode(a.nodes()[i], b.nodes()[i])) return "node " + std::to_string(i) + " differs";
  }
  if (a.output() != b.output()) return "outputs differ";
  if (a.groups().size() != b.groups().size()) return "group counts differ";
  for (size_t i = 0; i < a.groups().size(); ++i) {
    const Group& x = a.groups()[i];
    const Group& y = b.groups()[i];
    if (x.id != y.id || x.function != y.function || x.params != y.params || x.parent != y.parent ||
        x.nodes != y.nodes || x.output != y.output || x.expanded != y.expanded) {
      return "group " + std::to_string(i) + " differs";
    }
  }
  if (a.layout().size() != b.layout().size()) return "layout sizes differ";
  for (const auto& [id, p] : a.layout()) {
    auto it = b.layout().find(id);
    if (it == b.layout().end() || it->second.x != p.x || it->second.y != p.y) {
      return "layout of node " + std::to_string(id) + " differs";
    }
  }
  if (a.groupLayout().size() != b.groupLayout().size()) return "group layout sizes differ";
  for (const auto& [id, p] : a.groupLayout()) {
    auto it = b.groupLayout().find(id);
    if (it == b.groupLayout().end() || it->second.x != p.x || it->second.y != p.y) {
      return "layout of group " + std::to_string(id) + " differs";
    }
  }
  return {};
}

// A fresh directory under the system temp folder, removed (with its content) at the end.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            ("lsrl-io-test-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(path_))
      names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  std::filesystem::path path_;
};

inline bool runningAsRoot() { return ::geteuid() == 0; }

}  // namespace lsrl::testing_io
