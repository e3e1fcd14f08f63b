// Helpers for the GUI tests: where screenshots go, example paths, event pumping.
#pragma once

#include <gtest/gtest.h>

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QSet>
#include <QString>
#include <QTemporaryDir>
#include <QWidget>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <vector>

#include "app/studio/document/document.h"
#include "app/studio/window/main_window.h"

namespace lsrl::studio::test {

// $LSRL_SCREENSHOT_DIR, else screenshots/ in the build tree (created).
inline QString screenshotDir() {
  QString dir = qEnvironmentVariable("LSRL_SCREENSHOT_DIR", QStringLiteral(LSRL_SCREENSHOT_DIR));
  QDir().mkpath(dir);
  return dir;
}

// Saves a PNG of `widget` as <screenshotDir>/<name>.png and returns its path.
inline QString saveScreenshot(QWidget& widget, const QString& name) {
  const QString path = QDir(screenshotDir()).filePath(name + QStringLiteral(".png"));
  widget.grab().save(path);
  return path;
}

// Shows `widget` first, so that layouts are in effect when grabbed, then saves its
// screenshot as saveScreenshot does and expects the file to exist.
inline void showAndSaveScreenshot(QWidget& widget, const QString& name) {
  widget.show();
  // Widgets added to a shown parent are shown from the event loop.
  QApplication::processEvents();
  const QString path = saveScreenshot(widget, name);
  EXPECT_TRUE(QFileInfo::exists(path)) << path.toStdString();
}

// Distinct colours in a coarse sample: a blank or one-colour picture has very few.
inline int distinctColours(const QImage& image) {
  QSet<QRgb> colours;
  for (int y = 0; y < image.height(); y += 4) {
    for (int x = 0; x < image.width(); x += 4) colours.insert(image.pixel(x, y));
  }
  return static_cast<int>(colours.size());
}

// Runs `program` with `arguments` on the given Qt platform, a private recovery folder;
// returns the exit code (-1 on a timeout) and stores stderr.
inline int runWithPlatform(const QString& program, const QStringList& arguments,
                           const QString& platform, QByteArray* errors) {
  QTemporaryDir recovery;
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(QStringLiteral("QT_QPA_PLATFORM"), platform);
  env.insert(QStringLiteral("LSRL_STUDIO_RECOVERY_DIR"), recovery.path());
  p.setProcessEnvironment(env);
  p.start(program, arguments);
  if (!p.waitForFinished(120000)) return -1;
  *errors = p.readAllStandardError();
  return p.exitCode();
}

inline QString examplePath(const char* file) {
  return QStringLiteral(LSRL_SOURCE_DIR "/examples/") + QString::fromUtf8(file);
}

// Processes events until `done` holds or `timeoutMs` passes; returns done().
inline bool waitUntil(const std::function<bool()>& done, int timeoutMs = 10000) {
  QElapsedTimer timer;
  timer.start();
  while (!done() && timer.elapsed() < timeoutMs)
    QApplication::processEvents(QEventLoop::AllEvents, 20);
  return done();
}

// Steps a view through steps 0..steps-1 (`rounds` times), repainting after each, and
// returns the median milliseconds per step; prints the median and max under `label`.
inline double medianStepRedrawMs(QWidget& view, int steps, const std::function<void(int)>& setStep,
                                 const char* label, int rounds = 1) {
  QApplication::processEvents();
  std::vector<double> ms;
  QElapsedTimer timer;
  for (int round = 0; round < rounds; ++round) {
    for (int t = 0; t < steps; ++t) {
      timer.start();
      setStep(t);
      view.repaint();
      ms.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
    }
  }
  std::sort(ms.begin(), ms.end());
  std::printf("%s step redraw: median %.2f ms, max %.2f ms over %zu steps\n", label,
              ms[ms.size() / 2], ms.back(), ms.size());
  return ms[ms.size() / 2];
}

// A main window for tests: no dialogs (errors go to lastError()), recovery files in
// `recoveryDir` rather than the user's folder.
inline MainWindow::Options windowOptions(const QString& recoveryDir) {
  MainWindow::Options o;
  o.interactive = false;
  o.recoveryDir = recoveryDir;
  return o;
}

// A view of type V over a document opened on an example file, shown at `size`.
template <class V>
struct ViewOnExample {
  ViewOnExample(const char* file, QSize size) {
    doc.openFile(examplePath(file));
    view = std::make_unique<V>(&doc, nullptr);
    view->resize(size);
    view->show();
  }
  Document doc;
  std::unique_ptr<V> view;
};

// Pixels of the frames the debranching player marks a step's rewrite with (the branch
// node's orange, the new nodes' green) in a picture.
inline int rewriteMarkPixels(const QImage& image) {
  auto near = [](const QColor& c, int r, int g, int b) {
    return std::abs(c.red() - r) < 20 && std::abs(c.green() - g) < 20 &&
           std::abs(c.blue() - b) < 20;
  };
  int count = 0;
  for (int y = 0; y < image.height(); ++y) {
    for (int x = 0; x < image.width(); ++x) {
      const QColor c = image.pixelColor(x, y);
      if (near(c, 230, 110, 0) || near(c, 40, 150, 60)) ++count;
    }
  }
  return count;
}

}  // namespace lsrl::studio::test
