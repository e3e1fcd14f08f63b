// main() of the GUI tests: one GuardedApplication for every test, rendering offscreen unless
// the environment asks for another platform (xvfb-run with QT_QPA_PLATFORM=xcb).
#include <gtest/gtest.h>

#include <QApplication>
#include <QStandardPaths>

#include "app/studio/window/guarded_application.h"

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  // Settings and app data go to a test location, never the user's.
  QStandardPaths::setTestModeEnabled(true);
  // The explorer's own application class: the event-boundary guard is under test too.
  lsrl::studio::GuardedApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("LSRL Studio Tests"));
  QApplication::setApplicationName(QStringLiteral("lsrl-studio-tests"));
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
