// main() of the GUI tests: one GuardedApplication for every test, rendering offscreen unless
// the environment asks for another platform (xvfb-run with QT_QPA_PLATFORM=xcb).
#include <gtest/gtest.h>

#include <QApplication>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>

#include "app/studio/window/guarded_application.h"

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  // Settings and app data go to a test location, never the user's.
  QStandardPaths::setTestModeEnabled(true);
  // The explorer's own application class: the event-boundary guard is under test too.
  lsrl::studio::GuardedApplication app(argc, argv);
  // Each test process keeps its settings (recent files, ...) to itself: ctest runs
  // tests side by side, and one clearing the recent files must not touch another's.
  const QTemporaryDir settings;
  QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settings.path());
  QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settings.path());
  QApplication::setOrganizationName(QStringLiteral("LSRL Studio Tests"));
  QApplication::setApplicationName(QStringLiteral("lsrl-studio-tests"));
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
