// The explorer's recovery files are hint files (core/util/hint_file.h), and only the
// explorer reads them, so their mutation test is here rather than in
// tests/robustness/mutation_test.py: a directory, FIFO, symbolic link, oversized or
// malformed file in the recovery folder is skipped at once with one warning naming it and
// left in place, and 300 seeded mutants of a valid recovery file are each either offered
// and restored, or skipped or refused with a message, never a crash or a foreign exception.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <algorithm>
#include <cstdio>
#include <iterator>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <typeinfo>
#include <vector>

#include "app/studio/document/document.h"
#include "app/studio/window/autosave.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/forked_call.h"
#include "core/util/quote_input.h"
#include "studio/studio_test_util.h"

namespace lsrl::studio {
namespace {

std::string& capturedWarnings() {
  static std::string text;
  return text;
}

void captureWarning(QtMsgType type, const QMessageLogContext&, const QString& message) {
  if (type == QtWarningMsg) capturedWarnings() += message.toStdString() + "\n";
}

// findRecoverable with the warnings it gave, for one call.
struct Found {
  std::vector<RecoveryEntry> entries;
  std::string warnings;
};

Found findWithWarnings(const QString& dir) {
  capturedWarnings().clear();
  const QtMessageHandler previous = qInstallMessageHandler(captureWarning);
  Found found{Autosave::findRecoverable(dir), capturedWarnings()};
  qInstallMessageHandler(previous);
  return found;
}

std::string validRecoveryText(const QString& dir) {
  Document doc;
  doc.openFile(test::examplePath("more_ones.json"));
  doc.rename(1, "edited");
  const QString file = dir + QStringLiteral("/valid.lsrl-recovery.json");
  Autosave::write(doc, file);
  return readWholeFile(file.toStdString());
}

TEST(RecoveryFiles, UnusableFilesAreSkippedAtOnceWithOneWarningEachAndKept) {
  QTemporaryDir dir, elsewhere;
  const std::string root = dir.path().toStdString() + "/";
  const std::string valid = validRecoveryText(dir.path());
  ASSERT_EQ(::mkdir((root + "folder.lsrl-recovery.json").c_str(), 0700), 0);
  ASSERT_EQ(::mkfifo((root + "fifo.lsrl-recovery.json").c_str(), 0600), 0);
  const std::string outside = elsewhere.path().toStdString() + "/work.json";
  writeFileAtomically(outside, valid);
  ASSERT_EQ(::symlink(outside.c_str(), (root + "link.lsrl-recovery.json").c_str()), 0);
  writeFileAtomically(root + "bad.lsrl-recovery.json", valid.substr(0, valid.size() / 2));
  // Sparse: 300 MiB long without taking the disk.
  writeFileAtomically(root + "big.lsrl-recovery.json", "{}");
  ASSERT_EQ(::truncate((root + "big.lsrl-recovery.json").c_str(), off_t{300} << 20), 0);

  // In a forked copy first, so that a read that blocks on the FIFO fails the test at the
  // deadline instead of hanging it.
  const ForkedCallResult r = callInForkedCopy(
      [&] { return std::to_string(Autosave::findRecoverable(dir.path()).size()); }, 20000);
  ASSERT_EQ(r.ending, ForkedCallResult::Ending::Finished) << describeForkedEnding(r, 20000);
  EXPECT_EQ(r.output, "1");

  const Found found = findWithWarnings(dir.path());
  ASSERT_EQ(found.entries.size(), 1u);
  EXPECT_TRUE(found.entries[0].recoveryFile.endsWith(QStringLiteral("valid.lsrl-recovery.json")));
  for (const auto& [name, why] : std::vector<std::pair<std::string, std::string>>{
           {"folder", "it is a directory"},
           {"fifo", "named pipe (FIFO)"},
           {"link", "symbolic link"},
           {"bad", "is not valid JSON"},
           {"big", "over the limit of 268,435,456 bytes"}}) {
    SCOPED_TRACE(name);
    const std::string path = root + name + ".lsrl-recovery.json";
    const std::string line = "a recovery file is ignored: ";
    const size_t at = found.warnings.find("/" + name + ".lsrl-recovery.json\"");
    ASSERT_NE(at, std::string::npos) << found.warnings;
    const size_t start = found.warnings.rfind('\n', at) + 1;  // npos + 1 = 0
    const std::string warning = found.warnings.substr(start, found.warnings.find('\n', at) - start);
    EXPECT_EQ(warning.rfind(line, 0), 0u) << warning;
    EXPECT_NE(warning.find(why), std::string::npos) << warning;
    EXPECT_TRUE(QFileInfo(QString::fromStdString(path)).exists() ||
                QFileInfo(QString::fromStdString(path)).isSymLink())
        << "left for inspection";
  }
  EXPECT_EQ(std::count(found.warnings.begin(), found.warnings.end(), '\n'), 5) << found.warnings;
  EXPECT_EQ(readWholeFile(outside), valid) << "the link's target is untouched";
}

// A mutant of `text`: bytes changed, cut, deleted, duplicated or inserted, or (as JSON, half
// the time) one value replaced by an awkward one.
std::string mutate(const std::string& text, std::mt19937& rng) {
  auto below = [&](size_t n) {
    return n == 0 ? 0 : std::uniform_int_distribution<size_t>(0, n - 1)(rng);
  };
  std::string s = text;
  switch (below(10)) {  // 5..9: JSON-aware
    case 0:
      for (size_t k = 0, n = 1 + below(8); k < n; ++k) s[below(s.size())] = char(below(256));
      break;
    case 1:
      s.resize(below(s.size()));
      break;
    case 2:
      s.erase(below(s.size()), 1 + below(64));
      break;
    case 3: {
      const size_t at = below(s.size());
      s.insert(at, s.substr(at, 1 + below(256)));
      break;
    }
    case 4: {
      static const char* const kBits[] = {"\\u0000", "{", "]", "\"", "-", "1e400", "\xff\xfe"};
      s.insert(below(s.size() + 1), kBits[below(std::size(kBits))]);
      break;
    }
    default: {
      nlohmann::json doc = nlohmann::json::parse(text);
      static const nlohmann::json kValues[] = {nullptr,
                                               -1,
                                               7,
                                               1e308,
                                               "",
                                               "x",
                                               nlohmann::json::array(),
                                               nlohmann::json::object(),
                                               nlohmann::json::array({nlohmann::json::array()}),
                                               true,
                                               "1/0",
                                               9007199254740993ull};
      // A key of the record, or of one of its graph's nodes.
      nlohmann::json* target = &doc;
      if (below(2) == 0 && doc["graph"].contains("nodes") && !doc["graph"]["nodes"].empty())
        target = &doc["graph"]["nodes"][below(doc["graph"]["nodes"].size())];
      std::vector<std::string> keys;
      for (const auto& [key, value] : target->items()) keys.push_back(key);
      (*target)[keys[below(keys.size())]] = kValues[below(std::size(kValues))];
      s = doc.dump();
    }
  }
  return s;
}

TEST(RecoveryFiles, MutantsAreRestoredOrRefusedWithAMessageNeverAForeignException) {
  QTemporaryDir base;
  const std::string valid = validRecoveryText(base.path());
  std::mt19937 rng(40);
  int restored = 0, skipped = 0, refused = 0;
  for (int i = 0; i < 300; ++i) {
    QTemporaryDir dir;
    const std::string mutant = mutate(valid, rng);
    const std::string path = dir.path().toStdString() + "/m.lsrl-recovery.json";
    writeFileAtomically(path, mutant);
    const Found found = findWithWarnings(dir.path());
    if (found.entries.empty()) {
      ++skipped;
      EXPECT_NE(found.warnings.find("/m.lsrl-recovery.json\""), std::string::npos)
          << "mutant " << i << " was skipped without a warning";
      continue;
    }
    Document doc;
    try {
      Autosave::restore(found.entries[0], &doc);
      ++restored;
      EXPECT_TRUE(doc.isModified());
      EXPECT_FALSE(QFile::exists(QString::fromStdString(path)))
          << "restored work is not offered again";
    } catch (const Error& e) {
      ++refused;
      EXPECT_LE(std::string(e.what()).size(), kMaxErrorMessage + 100);
      EXPECT_TRUE(QFile::exists(QString::fromStdString(path))) << "refused work is kept";
    } catch (const std::exception& e) {
      ADD_FAILURE() << "mutant " << i << ": " << typeid(e).name() << ": " << e.what() << "\n"
                    << quoteInput(mutant, std::string::npos, 200);
    }
  }
  std::printf("[ measure ] recovery mutants: %d restored, %d skipped, %d refused\n", restored,
              skipped, refused);
  // The mutants reach every outcome (else the test would not test them).
  EXPECT_GT(restored, 0);
  EXPECT_GT(skipped, 0);
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace lsrl::studio
