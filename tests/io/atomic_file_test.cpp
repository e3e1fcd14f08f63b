// writeFileAtomically / readWholeFile: content, permissions, cleanup on failure, and
// the error messages for missing files, folders and unreadable files.
#include "core/util/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "io/io_test_util.h"

namespace lsrl {
namespace {

using testing_io::errorOf;
using testing_io::TempDir;

TEST(AtomicFile, WritesAndReplaces) {
  TempDir dir;
  const std::string path = dir.file("a.txt");
  writeFileAtomically(path, "first");
  EXPECT_EQ(readWholeFile(path), "first");
  writeFileAtomically(path, std::string("with\0nul", 8));
  EXPECT_EQ(readWholeFile(path), std::string("with\0nul", 8));
  writeFileAtomically(path, "");
  EXPECT_EQ(readWholeFile(path), "");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"a.txt"});
  // Large content goes through the write loop.
  const std::string big(5 << 20, 'x');
  writeFileAtomically(path, big);
  EXPECT_EQ(readWholeFile(path), big);
}

TEST(AtomicFile, KeepsThePermissionsOfTheReplacedFile) {
  TempDir dir;
  const std::string path = dir.file("a.txt");
  writeFileAtomically(path, "1");
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  writeFileAtomically(path, "2");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}

TEST(AtomicFile, RefusesAReadOnlyFileAndKeepsIt) {
  // Holds for root too: the refusal looks at the mode bits, not at access().
  TempDir dir;
  const std::string path = dir.file("a.txt");
  writeFileAtomically(path, "old");
  ASSERT_EQ(::chmod(path.c_str(), 0444), 0);
  const std::string error = errorOf([&] { writeFileAtomically(path, "new"); });
  EXPECT_NE(error.find("read-only"), std::string::npos) << error;
  EXPECT_NE(error.find(path), std::string::npos) << error;
  EXPECT_EQ(readWholeFile(path), "old");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"a.txt"});
}

TEST(AtomicFile, RelativePathInTheCurrentFolder) {
  TempDir dir;
  const auto old = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  writeFileAtomically("rel.txt", "r");
  std::filesystem::current_path(old);
  EXPECT_EQ(readWholeFile(dir.file("rel.txt")), "r");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"rel.txt"});
}

TEST(AtomicFile, FailuresLeaveNoTemporaryAndTheOldFile) {
  TempDir dir;
  const std::string path = dir.file("a.txt");
  writeFileAtomically(path, "old");
  std::filesystem::create_directory(dir.file("d"));
  EXPECT_EQ(errorOf([&] { writeFileAtomically(dir.file("d"), "x"); }),
            "cannot save \"" + dir.file("d") + "\": it is a directory");
  EXPECT_EQ(errorOf([&] { writeFileAtomically(dir.file("missing/a.txt"), "x"); }),
            "cannot save \"" + dir.file("missing/a.txt") +
                "\": cannot create a temporary file in \"" + dir.file("missing") +
                "\": No such file or directory");
  EXPECT_EQ(errorOf([&] { writeFileAtomically("", "x"); }),
            "cannot save a file with an empty path");
  if (!testing_io::runningAsRoot()) {
    ASSERT_EQ(::chmod(dir.path().c_str(), 0500), 0);
    EXPECT_EQ(errorOf([&] { writeFileAtomically(path, "new"); }),
              "cannot save \"" + path + "\": cannot create a temporary file in \"" +
                  dir.path().string() + "\": Permission denied");
    ASSERT_EQ(::chmod(dir.path().c_str(), 0700), 0);
  }
  EXPECT_EQ(readWholeFile(path), "old");
  EXPECT_EQ((dir.entries()), (std::vector<std::string>{"a.txt", "d"}));
}

TEST(AtomicFile, ReadErrors) {
  TempDir dir;
  EXPECT_EQ(errorOf([&] { readWholeFile(dir.file("nope.json")); }),
            "cannot read \"" + dir.file("nope.json") + "\": no such file");
  EXPECT_EQ(errorOf([&] { readWholeFile(dir.path().string()); }),
            "cannot read \"" + dir.path().string() + "\": it is a directory, not a file");
  if (!testing_io::runningAsRoot()) {
    writeFileAtomically(dir.file("secret"), "s");
    ASSERT_EQ(::chmod(dir.file("secret").c_str(), 0), 0);
    EXPECT_EQ(errorOf([&] { readWholeFile(dir.file("secret")); }),
              "cannot read \"" + dir.file("secret") + "\": Permission denied");
  }
}

}  // namespace
}  // namespace lsrl
