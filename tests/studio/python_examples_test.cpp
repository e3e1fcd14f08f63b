// The explorer opens the Python example programs through the real `lsrl` module (built in
// this tree by app/python) and reloads one when it changes on disk. Built only with the
// Python module (LSRL_WITH_PYTHON); the fake-package tests of python_source_test.cpp run
// always.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <QFile>
#include <QTemporaryDir>

#include "app/studio/document/document.h"
#include "app/studio/window/layout_runner.h"
#include "app/studio/window/main_window.h"
#include "core/programs/tok2tok.h"
#include "core/util/atomic_file.h"
#include "studio/studio_test_util.h"

namespace lsrl::studio {
namespace {

std::string readText(const QString& path) {
  QFile f(path);
  EXPECT_TRUE(f.open(QIODevice::ReadOnly)) << path.toStdString();
  return f.readAll().toStdString();
}

// The op of every node, in order: a structure fingerprint to compare with a built-in.
std::vector<std::string> opsOf(const Graph& g) {
  std::vector<std::string> ops;
  for (const Node& n : g.nodes()) ops.emplace_back(n.countedOpName());
  return ops;
}

TEST(PythonExamples, OpensUaTok2tokAndReloadsItWhenItChanges) {
  ::unsetenv("LSRL_PYTHONPATH");  // the build tree's real package, not a test's fake one
  QTemporaryDir dir;
  const QString program = dir.filePath(QStringLiteral("ua_tok2tok.py"));
  const std::string source = readText(test::examplePath("ua_tok2tok.py"));
  writeFileAtomically(program.toStdString(), source);

  MainWindow window(test::windowOptions(dir.filePath(QStringLiteral("recovery"))));
  window.resize(1600, 1000);
  window.show();
  ASSERT_TRUE(window.openFile(program)) << window.lastError().toStdString();
  Document& doc = *window.document();
  EXPECT_EQ(doc.sourcePath(), program);
  EXPECT_EQ(opsOf(doc.graph()), opsOf(buildTok2tok({.L = 3})));
  EXPECT_EQ(doc.graph().node(doc.graph().output()).name, "output");
  // A .py file stores no layout: dot lays the graph out in the worker.
  EXPECT_TRUE(test::waitUntil([&] { return !window.layoutRunner()->isRunning(); }, 60000));
  test::waitUntil([] { return false; }, 300);  // the overview redraws on a timer
  test::saveScreenshot(window, QStringLiteral("python_ua_tok2tok_opened"));

  // The person edits the file: keys and values of two tokens, the multiplicative variant.
  const std::string defaultProgram = "program = ua_tok2tok()";
  const size_t at = source.find(defaultProgram);
  ASSERT_NE(at, std::string::npos) << "the example's module-level program line moved";
  std::string edited = source;
  edited.replace(at, defaultProgram.size(),
                 "program = ua_tok2tok(L=2, conditional=\"multiplicative\")");
  writeFileAtomically(program.toStdString(), edited);
  Tok2tokParams two;
  two.L = 2;
  two.conditional = Conditional::Multiplicative;
  const std::vector<std::string> expected = opsOf(buildTok2tok(two));
  EXPECT_TRUE(test::waitUntil([&] { return opsOf(doc.graph()) == expected; }, 60000))
      << window.lastError().toStdString();
  EXPECT_EQ(doc.sourcePath(), program);
  EXPECT_TRUE(test::waitUntil([&] { return !window.layoutRunner()->isRunning(); }, 60000));
  test::waitUntil([] { return false; }, 300);  // the overview redraws on a timer
  test::saveScreenshot(window, QStringLiteral("python_ua_tok2tok_reloaded"));
}

}  // namespace
}  // namespace lsrl::studio
