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

TEST(AtomicFile, TemporariesOfKilledWritesAreRemovedByTheNextWrite) {
  TempDir dir;
  const std::string path = dir.file("m.json");
  // A write killed before its rename leaves "<name>.tmp-<pid>-<random>"; pid 1 stays alive
  // (its temporary may still be in use), a pid far above pid_max is gone.
  writeFileAtomically(path + ".tmp-999999999-0123abcd", "dead");
  writeFileAtomically(path + ".tmp-1-0123abcd", "live");
  writeFileAtomically(path + ".tmp-notapid", "other");
  writeFileAtomically(path, "new");
  EXPECT_EQ(dir.entries(),
            (std::vector<std::string>{"m.json", "m.json.tmp-1-0123abcd", "m.json.tmp-notapid"}));
}

TEST(AtomicFile, OnlyRegularFilesAreReplacedAndLinksAreWrittenThrough) {
  TempDir dir;
  ASSERT_EQ(::mkfifo(dir.file("fifo").c_str(), 0600), 0);
  EXPECT_NE(errorOf([&] {
              writeFileAtomically(dir.file("fifo"), "x");
            }).find("it is a named pipe (FIFO), not a regular file"),
            std::string::npos);
  struct stat st {};
  ASSERT_EQ(::lstat(dir.file("fifo").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_NE(errorOf([&] { (void)readWholeFile(dir.file("fifo")); }).find("named pipe"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { (void)readWholeFile("/dev/null"); }).find("a character device"),
            std::string::npos);
  writeFileAtomically(dir.file("target"), "old");
  std::filesystem::create_symlink(dir.file("target"), dir.file("link"));
  writeFileAtomically(dir.file("link"), "new");
  EXPECT_TRUE(std::filesystem::is_symlink(dir.file("link")));
  EXPECT_EQ(readWholeFile(dir.file("target")), "new");
  std::filesystem::create_symlink(dir.file("nowhere/x"), dir.file("dangling"));
  EXPECT_NE(errorOf([&] {
              writeFileAtomically(dir.file("dangling"), "x");
            }).find("symbolic link to a missing file"),
            std::string::npos);
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
