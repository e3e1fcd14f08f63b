#include "app/studio/window/guarded_application.h"

#include <QTimer>
#include <cstdio>
#include <exception>

namespace lsrl::studio {

namespace {

GuardedApplication::Reporter& reporter() {
  static GuardedApplication::Reporter r;
  return r;
}
int caught = 0;
QString lastMessage;

void report(const QString& message) {
  ++caught;
  lastMessage = message;
  std::fprintf(stderr, "lsrl-studio: an action failed: %s\n", qPrintable(message));
  // Shown after the event returns: a message box's own event loop must not run inside
  // the handler that failed.
  if (reporter())
    QTimer::singleShot(0, qApp, [message] {
      if (reporter()) reporter()(message);
    });
}

}  // namespace

GuardedApplication::GuardedApplication(int& argc, char** argv) : QApplication(argc, argv) {}

bool GuardedApplication::notify(QObject* receiver, QEvent* event) {
  try {
    return QApplication::notify(receiver, event);
  } catch (const std::exception& e) {
    report(QString::fromUtf8(e.what()));
  } catch (...) {
    report(QStringLiteral("an unknown error"));
  }
  return false;
}

void GuardedApplication::setReporter(Reporter r) { reporter() = std::move(r); }

int GuardedApplication::caughtCount() { return caught; }

QString GuardedApplication::lastCaught() { return lastMessage; }

void GuardedApplication::resetCaught() {
  caught = 0;
  lastMessage.clear();
}

}  // namespace lsrl::studio
