// The explorer opens Python programs (.py) and reloads them when they change on disk.
// The fake `lsrl` package (tests/common) stands in for the bindings here; the real
// examples/*.py are opened by the Python front end's own GUI test.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <QTemporaryDir>

#include "app/studio/document/document.h"
#include "app/studio/window/main_window.h"
#include "app/studio/window/source_watcher.h"
#include "common/fake_lsrl_package.h"
#include "core/util/atomic_file.h"
#include "studio/studio_test_util.h"

namespace lsrl::studio {
namespace {

std::string inputName(const Document& doc) { return doc.graph().node(0).name; }

TEST(PythonSource, OpensAProgramAndReloadsItWhenItChanges) {
  QTemporaryDir dir;
  lsrl::test::writeFakeLsrlPackage(dir.filePath(QStringLiteral("pkg")).toStdString());
  ::setenv("LSRL_PYTHONPATH", dir.filePath(QStringLiteral("pkg")).toUtf8().constData(), 1);
  const QString program = dir.filePath(QStringLiteral("prog.py"));
  writeFileAtomically(program.toStdString(), "import lsrl\nprogram = lsrl.ForEach('first')\n");

  MainWindow window(test::windowOptions(dir.filePath(QStringLiteral("recovery"))));
  window.resize(1200, 800);
  window.show();
  ASSERT_TRUE(window.openFile(program)) << window.lastError().toStdString();
  Document& doc = *window.document();
  EXPECT_EQ(inputName(doc), "first");
  EXPECT_EQ(doc.sourcePath(), program);
  EXPECT_TRUE(doc.filePath().isEmpty()) << "Save must not overwrite the .py";
  EXPECT_EQ(doc.displayName(), QStringLiteral("prog.py"));

  // An editor replacing the file (write a temporary, rename over): reloaded.
  writeFileAtomically(program.toStdString(), "import lsrl\nprogram = lsrl.ForEach('second')\n");
  EXPECT_TRUE(test::waitUntil([&] { return inputName(doc) == "second"; }, 10000));
  // A broken program keeps the last graph and says why.
  writeFileAtomically(program.toStdString(), "import lsrl\nraise RuntimeError('half-typed')\n");
  EXPECT_TRUE(test::waitUntil(
      [&] { return window.lastError().contains(QStringLiteral("half-typed")); }, 10000))
      << window.lastError().toStdString();
  EXPECT_EQ(inputName(doc), "second");
  writeFileAtomically(program.toStdString(), "import lsrl\nprogram = lsrl.ForEach('third')\n");
  EXPECT_TRUE(test::waitUntil([&] { return inputName(doc) == "third"; }, 10000));
  test::saveScreenshot(window, QStringLiteral("python_source_reloaded"));

  // Saved as a graph file, it is no longer tied to the program.
  ASSERT_TRUE(window.saveAs(dir.filePath(QStringLiteral("saved.json"))));
  EXPECT_TRUE(doc.sourcePath().isEmpty());
}

TEST(PythonSource, AFailingProgramIsNotOpened) {
  QTemporaryDir dir;
  lsrl::test::writeFakeLsrlPackage(dir.filePath(QStringLiteral("pkg")).toStdString());
  ::setenv("LSRL_PYTHONPATH", dir.filePath(QStringLiteral("pkg")).toUtf8().constData(), 1);
  const QString program = dir.filePath(QStringLiteral("bad.py"));
  writeFileAtomically(program.toStdString(), "import lsrl\n1/0\n");
  MainWindow window(test::windowOptions(dir.filePath(QStringLiteral("recovery"))));
  EXPECT_FALSE(window.openFile(program));
  EXPECT_TRUE(window.lastError().contains(QStringLiteral("ZeroDivisionError")))
      << window.lastError().toStdString();
  EXPECT_TRUE(window.lastError().contains(QStringLiteral("bad.py")));
}

}  // namespace
}  // namespace lsrl::studio
