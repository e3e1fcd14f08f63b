// readHintFile / writeHintFile: a file the tools keep on their own is read when it is a
// usable regular file and otherwise ignored with a warning naming it (a directory, a FIFO
// that must not block, an oversized, linked or unreadable file), and is never written
// through a symbolic link.
#include "core/util/hint_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "core/util/atomic_file.h"
#include "core/util/forked_call.h"
#include "io/io_test_util.h"

namespace lsrl {
namespace {

using testing_io::TempDir;

constexpr std::string_view kWhat = "the test cache";

void writeText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// The warning contains the hint's name, its path and `why`; the content is absent.
void expectIgnored(const HintFileRead& read, const std::string& path, const std::string& why) {
  EXPECT_FALSE(read.content.has_value());
  EXPECT_NE(read.warning.find("the test cache is ignored"), std::string::npos) << read.warning;
  EXPECT_NE(read.warning.find("\"" + path + "\""), std::string::npos) << read.warning;
  EXPECT_NE(read.warning.find(why), std::string::npos) << read.warning;
}

TEST(HintFile, ReadsARegularFileAndTakesAMissingOneAsNone) {
  TempDir dir;
  const std::string path = dir.file("cache.json");
  const HintFileRead missing = readHintFile(path, 100, kWhat);
  EXPECT_FALSE(missing.content.has_value());
  EXPECT_EQ(missing.warning, "");
  writeText(path, "{\"a\": 1}");
  const HintFileRead read = readHintFile(path, 100, kWhat);
  ASSERT_TRUE(read.content.has_value()) << read.warning;
  EXPECT_EQ(*read.content, "{\"a\": 1}");
  EXPECT_EQ(read.warning, "");
}

TEST(HintFile, ADirectoryIsIgnoredWithAWarning) {
  TempDir dir;
  const std::string path = dir.file("cache.json");
  std::filesystem::create_directory(path);
  expectIgnored(readHintFile(path, 100, kWhat), path, "it is a directory");
}

TEST(HintFile, AFifoIsIgnoredAtOnceInsteadOfBlocking) {
  TempDir dir;
  const std::string path = dir.file("cache.json");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  // In a forked copy, so that a read that blocks (no writer ever comes) fails the test
  // at the deadline instead of hanging it.
  const ForkedCallResult r =
      callInForkedCopy([&] { return readHintFile(path, 100, kWhat).warning; }, 10000);
  ASSERT_EQ(r.ending, ForkedCallResult::Ending::Finished) << describeForkedEnding(r, 10000);
  EXPECT_NE(r.output.find("named pipe (FIFO)"), std::string::npos) << r.output;
  expectIgnored(readHintFile(path, 100, kWhat), path, "named pipe (FIFO)");
}

TEST(HintFile, AFileOverTheLimitIsIgnoredUnread) {
  TempDir dir;
  const std::string path = dir.file("cache.json");
  writeText(path, std::string(101, 'x'));
  expectIgnored(readHintFile(path, 100, kWhat), path, "101 bytes, over the limit of 100 bytes");
  writeText(path, std::string(100, 'x'));
  const HintFileRead atTheLimit = readHintFile(path, 100, kWhat);
  ASSERT_TRUE(atTheLimit.content.has_value()) << atTheLimit.warning;
  EXPECT_EQ(atTheLimit.content->size(), 100u);
}

TEST(HintFile, ASymbolicLinkIsNeitherFollowedNorWrittenThrough) {
  TempDir dir, elsewhere;
  const std::string outside = elsewhere.file("victim.txt");
  writeText(outside, "the user's own file");
  const std::string path = dir.file("cache.json");
  ASSERT_EQ(::symlink(outside.c_str(), path.c_str()), 0);
  expectIgnored(readHintFile(path, 100, kWhat), path, "symbolic link");

  const std::string why = writeHintFile(path, "{\"cache\": true}");
  EXPECT_NE(why.find("symbolic link"), std::string::npos) << why;
  EXPECT_NE(why.find("\"" + path + "\""), std::string::npos) << why;
  EXPECT_EQ(readWholeFile(outside), "the user's own file");
  EXPECT_TRUE(std::filesystem::is_symlink(path)) << "the link is left as it was";
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"cache.json"}) << "no temporary file left";
}

TEST(HintFile, AnUnreadableFileIsIgnoredWithTheSystemsReason) {
  TempDir dir;
  const std::string path = dir.file("cache.json");
  writeText(path, "{}");
  ASSERT_EQ(::chmod(path.c_str(), 0), 0);
  // Root reads files whatever their mode: the read runs as "nobody" then.
  const ForkedCallResult r = callInForkedCopy(
      [&] {
        if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0))
          throw std::runtime_error("cannot leave root");
        return readHintFile(path, 100, kWhat).warning;
      },
      10000);
  ASSERT_EQ(r.ending, ForkedCallResult::Ending::Finished) << r.output;
  EXPECT_NE(r.output.find("the test cache is ignored"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\"" + path + "\""), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Permission denied"), std::string::npos) << r.output;
}

TEST(HintFile, WritesAtomicallyOverARegularFileOnly) {
  TempDir dir;
  const std::string path = dir.file("cache.json");
  EXPECT_EQ(writeHintFile(path, "first"), "");
  EXPECT_EQ(writeHintFile(path, "second"), "");
  EXPECT_EQ(readWholeFile(path), "second");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"cache.json"});

  const std::string fifo = dir.file("fifo.json");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string why = writeHintFile(fifo, "x");
  EXPECT_NE(why.find("named pipe (FIFO)"), std::string::npos) << why;
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "what is not ours is left in place";

  const std::string folder = dir.file("folder.json");
  std::filesystem::create_directory(folder);
  EXPECT_NE(writeHintFile(folder, "x").find("it is a directory"), std::string::npos);
  EXPECT_TRUE(std::filesystem::is_directory(folder));
}

TEST(HintFile, TheWarningOfMalformedContentNamesTheHintAndItsFile) {
  EXPECT_EQ(ignoredHintWarning(kWhat, "/c/x.json", "is not valid JSON"),
            "the test cache is ignored: \"/c/x.json\" is not valid JSON");
  // A long path keeps its end, the file's name, within the bound on quoted input.
  const std::string deep = "/" + std::string(300, 'd') + "/scan-schedules.json";
  const std::string warning = ignoredHintWarning(kWhat, deep, "is not valid JSON");
  EXPECT_NE(warning.find("/scan-schedules.json\""), std::string::npos) << warning;
  EXPECT_LT(warning.size(), 200u) << warning;
}

}  // namespace
}  // namespace lsrl
