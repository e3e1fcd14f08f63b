// The explorer's QApplication: the one guard at the event boundary. Every event Qt
// delivers (mouse, keys, timers, queued signals: every slot a person's action runs)
// passes through notify(); an exception that a handler let through is caught there,
// reported as a message (the handler's window shows it), and never unwinds through Qt's
// event loop, which is not exception-safe. Document edits are transactions of their own
// (app/studio/document), so an edit that threw has changed nothing.
#pragma once

#include <QApplication>
#include <QString>
#include <functional>

namespace lsrl::studio {

class GuardedApplication : public QApplication {
 public:
  GuardedApplication(int& argc, char** argv);

  bool notify(QObject* receiver, QEvent* event) override;

  // Who shows a caught error (the main window: status bar and a message box). Without
  // one it goes to stderr.
  using Reporter = std::function<void(const QString& message)>;
  static void setReporter(Reporter reporter);
  // Errors caught so far and the last one's text (tests assert that none escaped).
  static int caughtCount();
  static QString lastCaught();
  static void resetCaught();
};

}  // namespace lsrl::studio
