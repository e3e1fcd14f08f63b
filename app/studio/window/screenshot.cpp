#include "app/studio/window/screenshot.h"

#include <QApplication>
#include <QImageWriter>
#include <QPixmap>

#include "app/studio/editor/graph_view.h"
#include "app/studio/window/layout_runner.h"
#include "app/studio/window/main_window.h"
#include "core/util/error.h"

namespace lsrl::studio {

void renderScreenshot(MainWindow& window, const QString& path, QSize size) {
  window.resize(size);
  window.show();
  QApplication::processEvents();
  window.layoutRunner()->waitForFinished();
  QApplication::processEvents();
  window.graphView()->fitAll();
  QApplication::processEvents();
  const QPixmap pixmap = window.grab();
  QImageWriter writer(path, "png");
  if (!writer.write(pixmap.toImage())) {
    throw Error(path.toStdString() + ": cannot write the screenshot (" +
                writer.errorString().toStdString() + ")");
  }
}

}  // namespace lsrl::studio
