// The looped transformer's input generators (core/seed_models/looped_tasks.h): deterministic
// per seed, the documented widths and features, valid puzzles and correct answers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "common/expect_error.h"
#include "core/seed_models/looped.h"

namespace lsrl::seed_models {
namespace {

using testing_common::expectError;

TEST(LoopedTasks, DeterministicWithTheRightShapes) {
  const LoopedModel m;
  EXPECT_EQ(m.tasks(),
            (std::vector<std::string>{"random", "contextual_mapping", "sudoku", "countdown",
                                      "edit_distance", "lcs", "icl_decision_tree"}));
  const std::map<std::string, size_t> lengths = {{"random", 8},
                                                 {"contextual_mapping", 8},
                                                 {"sudoku", 16},
                                                 {"countdown", 20},
                                                 {"icl_decision_tree", 21}};
  for (const std::string& task : m.tasks()) {
    const LoopedTaskSample a = m.taskSample(task, 3), b = m.taskSample(task, 3);
    EXPECT_EQ(a.input, b.input) << task;
    EXPECT_EQ(a.text, b.text) << task;
    EXPECT_NE(m.taskInput(task, 3), m.taskInput(task, 4)) << task;
    for (const Vector& row : a.input) ASSERT_EQ(row.size(), 32u) << task;
    if (lengths.count(task)) {
      EXPECT_EQ(a.input.size(), lengths.at(task)) << task;
    }
    if (task != "random") {
      EXPECT_EQ(a.targets.size(), a.input.size()) << task;
    }
    EXPECT_FALSE(a.text.empty());
    // Every task runs through the default model.
    for (const Vector& r : m.run(a.input))
      for (const double v : r) EXPECT_TRUE(std::isfinite(v)) << task;
  }
  expectError([&] { m.taskInput("chess", 0); }, "looped", "unknown task \"chess\"");
  LoopedConfig narrow;
  narrow.d = 16;
  narrow.heads = 2;
  narrow.headDim = 8;
  expectError([&] { LoopedModel(narrow).taskInput("lcs", 0); }, "looped task \"lcs\"",
              "needs 28 channels, the model has d = 16");
}

TEST(LoopedTasks, SudokuIsAValidGridWithBlanks) {
  for (const int box : {2, 3}) {
    LoopedTaskParams p;
    p.sudokuBox = box;
    p.sudokuBlanks = box == 2 ? 6 : 45;
    const int n = box * box;
    for (uint64_t seed = 0; seed < 5; ++seed) {
      const LoopedTaskSample s = loopedTask("sudoku", p, 3 * n + 1, seed);
      ASSERT_EQ(s.input.size(), size_t(n * n));
      int blanks = 0;
      for (int cell = 0; cell < n * n; ++cell) {
        const Vector& row = s.input[size_t(cell)];
        const int digit = s.text[size_t(cell)] - '0';
        blanks += digit == 0;
        EXPECT_EQ(row[size_t(digit)], 1.0);
        EXPECT_EQ(row[size_t(n + 1 + cell / n)], 1.0);
        EXPECT_EQ(row[size_t(2 * n + 1 + cell % n)], 1.0);
        if (digit) {
          EXPECT_EQ(s.targets[size_t(cell)], digit);
        }
      }
      EXPECT_EQ(blanks, p.sudokuBlanks);
      // Rows, columns and boxes of the solution hold every digit once.
      for (int k = 0; k < n; ++k) {
        std::set<double> row, col, sub;
        for (int i = 0; i < n; ++i) {
          row.insert(s.targets[size_t(k * n + i)]);
          col.insert(s.targets[size_t(i * n + k)]);
          sub.insert(s.targets[size_t((k / box * box + i / box) * n + k % box * box + i % box)]);
        }
        EXPECT_EQ(row.size(), size_t(n));
        EXPECT_EQ(col.size(), size_t(n));
        EXPECT_EQ(sub.size(), size_t(n));
      }
    }
  }
}

TEST(LoopedTasks, CountdownChainsReachTheTarget) {
  for (uint64_t seed = 0; seed < 20; ++seed) {
    const LoopedTaskSample s = loopedTask("countdown", {}, 8, seed);
    ASSERT_EQ(s.targets.size(), 20u);
    const double target = s.targets[4];
    EXPECT_GE(target, 10);
    EXPECT_LE(target, 100);
    std::multiset<double> pool(s.targets.begin(), s.targets.begin() + 4);
    for (size_t k = 0; k < 3; ++k) {
      const double a = s.targets[5 + 5 * k], op = s.targets[6 + 5 * k], b = s.targets[7 + 5 * k],
                   c = s.targets[9 + 5 * k];
      EXPECT_EQ(s.targets[8 + 5 * k], -5);  // "="
      const double want = op == -1 ? a + b : op == -2 ? a - b : op == -3 ? a * b : a / b;
      EXPECT_EQ(c, want) << s.text;
      ASSERT_TRUE(pool.count(a) && pool.count(b)) << s.text;
      pool.erase(pool.find(a));
      pool.erase(pool.find(b));
      pool.insert(c);
    }
    EXPECT_EQ(pool, std::multiset<double>{target}) << s.text;
    for (size_t n = 5; n < 20; ++n) EXPECT_EQ(s.input[n][7], 1.0);  // blanks
    EXPECT_EQ(s.input[4][0], target / 100);
  }
}

TEST(LoopedTasks, StringTasksAndTheirAnswers) {
  EXPECT_EQ(editDistance("kitten", "sitting"), 3 + 3 + 2);  // 2 replaces, 1 insert
  EXPECT_EQ(editDistance("", "ab"), 4);
  EXPECT_EQ(editDistance("abc", "abc"), 0);
  EXPECT_EQ(editDistance("ab", "ba"), 4);  // delete + insert beats 2 replaces
  EXPECT_EQ(lcsLength("abcbdab", "bdcaba"), 4);
  EXPECT_EQ(lcsLength("", "abc"), 0);
  for (const std::string task : {"edit_distance", "lcs"})
    for (uint64_t seed = 0; seed < 10; ++seed) {
      const LoopedTaskSample s = loopedTask(task, {}, 28, seed);
      const size_t bar = s.text.find('|'), arrow = s.text.find(" →");
      const std::string a = s.text.substr(0, bar), b = s.text.substr(bar + 1, arrow - bar - 1);
      EXPECT_EQ(a.size(), 6u);
      if (task == "lcs") {
        EXPECT_EQ(b.size(), 6u);
      }
      ASSERT_EQ(s.input.size(), a.size() + b.size() + 1);
      const double answer = task == "lcs" ? lcsLength(a, b) : editDistance(a, b);
      for (const double t : s.targets) EXPECT_EQ(t, answer);
      EXPECT_EQ(s.input[a.size()][26], 1.0);  // separator
      EXPECT_EQ(s.input[0][size_t(a[0] - 'a')], 1.0);
      EXPECT_EQ(s.input.back()[27], 1.0);  // in B
    }
}

TEST(LoopedTasks, ContextualMappingAndIcl) {
  LoopedTaskParams p;
  p.tokens = 3;
  p.idBase = 4;
  const LoopedTaskSample s = loopedTask("contextual_mapping", p, 5, 1);
  std::vector<double> z;
  for (const Vector& r : s.input) {
    EXPECT_EQ(r[0], r[1]);
    EXPECT_EQ(r[2], 1.0);
    z.push_back(r[0]);
  }
  std::sort(z.rbegin(), z.rend());
  EXPECT_EQ(s.targets[0], z[0] * 16 + z[1] * 4 + z[2]);
  // The §6.2 construction computes exactly this target.
  EXPECT_EQ(LoopedModel::contextualMapping({}).run(s.input)[0][0], s.targets[0]);
  p.tokens = 5;
  expectError([&] { loopedTask("contextual_mapping", p, 5, 0); }, "contextual_mapping",
              "exceeds id_base");
  p.tokens = -1;
  expectError([&] { loopedTask("random", p, 5, 0); }, "looped task \"random\"", "negative");
  LoopedTaskParams box;
  box.sudokuBox = 4;
  expectError([&] { loopedTask("sudoku", box, 64, 0); }, "sudoku", "sudoku_box must be 2 or 3");

  const LoopedTaskSample icl = loopedTask("icl_decision_tree", {}, 8, 2);
  ASSERT_EQ(icl.input.size(), 21u);
  for (size_t n = 0; n < 21; ++n) {
    const bool isX = n % 2 == 0;
    EXPECT_EQ(icl.input[n][6], isX ? 1.0 : 0.0);
    EXPECT_EQ(icl.input[n][7], isX ? 0.0 : 1.0);
    if (isX) {
      EXPECT_TRUE(std::isfinite(icl.targets[n]));
    }
    if (!isX) {
      EXPECT_EQ(icl.input[n][5], icl.targets[n - 1]);
    }  // y = f(x) before
  }
}

}  // namespace
}  // namespace lsrl::seed_models
