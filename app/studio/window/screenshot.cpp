#include "app/studio/window/screenshot.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QImageWriter>
#include <QPainter>
#include <QPixmap>

#include "app/studio/editor/graph_view.h"
#include "app/studio/window/layout_runner.h"
#include "app/studio/window/main_window.h"
#include "app/studio/window/start_page.h"
#include "app/studio/zoo/model_tab.h"
#include "app/studio/zoo/model_view.h"
#include "core/util/error.h"

namespace lsrl::studio {

namespace {

// Lets queued work (the scene's change notifications, the overview's coalescing timer)
// run, so the picture shows the settled state.
void settle(int ms) {
  QElapsedTimer timer;
  timer.start();
  do {
    QApplication::processEvents(QEventLoop::AllEvents, 20);
  } while (timer.elapsed() < ms);
}

}  // namespace

void renderScreenshot(MainWindow& window, const QString& path, QSize size) {
  window.resize(size);
  window.show();
  settle(50);
  window.layoutRunner()->waitForFinished();
  // With nothing open the start page shows; its example pictures are drawn on a worker.
  // Only a page on screen is waited for: behind another tab (--model) they never came,
  // and every model screenshot took the whole 30 s.
  QElapsedTimer waited;
  waited.start();
  while (window.startPageShown() && window.startPage()->isVisible() &&
         window.startPage()->thumbnailsPending() > 0 && waited.elapsed() < 30000)
    settle(20);
  settle(50);
  window.graphView()->fitAll();
  settle(250);
  QImage image = window.grab().toImage();
  // A Models tab view with a 3D window paints it in (a grab does not capture it).
  ModelView* model = window.modelTab()->currentView();
  if (model != nullptr && model->isVisible()) {
    QPainter painter(&image);
    const QRect where(model->mapTo(&window, QPoint(0, 0)), model->size());
    painter.drawImage(where, model->renderImage());
  }
  QImageWriter writer(path, "png");
  if (!writer.write(image)) {
    throw Error(path.toStdString() + ": cannot write the screenshot (" +
                writer.errorString().toStdString() + ")");
  }
}

}  // namespace lsrl::studio
