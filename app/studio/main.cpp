// lsrl-studio: the LSRL Studio explorer. See window/startup_options.h for the command line.
#include <signal.h>

#include <QApplication>
#include <QFileInfo>
#include <cstdio>
#include <cstring>

#include "app/studio/window/examples_catalog.h"
#include "app/studio/window/guarded_application.h"
#include "app/studio/window/live_bench.h"
#include "app/studio/window/main_window.h"
#include "app/studio/window/screenshot.h"
#include "app/studio/window/startup_options.h"
#include "app/studio/zoo/model_run.h"
#include "app/studio/zoo/model_tab.h"
#include "app/studio/zoo/model_zoo_panel.h"

using namespace lsrl::studio;

namespace {

const ExampleEntry* findExample(const QString& name) {
  for (const ExampleEntry& e : exampleEntries()) {
    if (e.title == name || e.fileName == name || e.fileName == name + QStringLiteral(".json"))
      return &e;
  }
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  // Past a file-size limit (ulimit -f) a save fails with EFBIG and says so, instead of
  // SIGXFSZ ending the explorer and the unsaved work with it.
  ::signal(SIGXFSZ, SIG_IGN);
  // A benchmark runs offscreen: no display needed, nothing drawn on one.
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--bench") == 0) qputenv("QT_QPA_PLATFORM", "offscreen");
  GuardedApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("LSRL Studio"));
  QApplication::setApplicationName(QStringLiteral("lsrl-studio"));
  QApplication::setApplicationDisplayName(QStringLiteral("LSRL Studio"));
  QApplication::setApplicationVersion(QStringLiteral(LSRL_STUDIO_VERSION));
  QApplication::setDesktopFileName(QStringLiteral("lsrl-studio"));

  QString error;
  const auto options = parseStartupOptions(QApplication::arguments(), &error);
  if (!options) {
    std::fprintf(stderr, "lsrl-studio: %s\n%s", qPrintable(error), qPrintable(startupUsage()));
    return 2;
  }
  const bool headless = !options->screenshot.isEmpty() || !options->bench.isEmpty();
  MainWindow::Options windowOptions;
  windowOptions.interactive = !headless;
  windowOptions.autosave = !headless;
  MainWindow window(windowOptions);

  bool loaded = true;
  if (!options->file.isEmpty()) {
    loaded = window.openFile(options->file);
  } else if (!options->example.isEmpty()) {
    const ExampleEntry* entry = findExample(options->example);
    if (entry == nullptr) {
      std::fprintf(stderr, "lsrl-studio: no example named '%s'\n", qPrintable(options->example));
      return 2;
    }
    loaded = window.openExample(*entry);
  }
  if (headless) {
    if (!loaded) {
      std::fprintf(stderr, "lsrl-studio: %s\n", qPrintable(window.lastError()));
      return 1;
    }
    if (!options->bench.isEmpty())
      return runLiveBench(window, options->benchFit == QLatin1String("declared"));
    QString view = options->view.isEmpty() ? QStringLiteral("graph") : options->view;
    if (!options->model.isEmpty()) {
      const QString modelError = window.runModel(options->model, options->task);
      if (!modelError.isEmpty()) {
        std::fprintf(stderr, "lsrl-studio: --model %s: %s\n", qPrintable(options->model),
                     qPrintable(modelError));
        return 1;
      }
      if (options->view.isEmpty())
        view = QString::fromStdString(modelViewName(options->model.toStdString()));
    }
    const QString viewError = window.showView(view, options->step);
    if (!viewError.isEmpty()) {
      std::fprintf(stderr, "lsrl-studio: --view %s: %s\n", qPrintable(view), qPrintable(viewError));
      return 1;
    }
    try {
      renderScreenshot(window, options->screenshot, options->size);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "lsrl-studio: %s\n", e.what());
      return 1;
    }
    std::printf("wrote %s (%dx%d)\n", qPrintable(options->screenshot), options->size.width(),
                options->size.height());
    return 0;
  }
  window.show();
  if (options->recovery) window.offerRecovery();
  if (!options->model.isEmpty()) {
    // Interactive: the run goes on in the Models tab; errors show in its status line.
    window.modelTab()->zoo()->setKind(options->model);
    if (!options->task.isEmpty()) window.modelTab()->zoo()->setTask(options->task);
    window.showModelsTab();
    window.modelTab()->startRun();
  }
  return QApplication::exec();
}
