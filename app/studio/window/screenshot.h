// Headless rendering of the main window: lay out, show the requested view, render to
// PNG. QWidget::grab() paints widgets (and Qt Charts); embedded OpenGL areas need
// QScreen::grabWindow() and are added with the views that use them.
#pragma once

#include <QSize>
#include <QString>

namespace lsrl::studio {

class MainWindow;

// Resizes and shows `window`, waits for a running layout, fits the graph, renders and
// writes `path` (PNG). Throws lsrl::Error naming the path if it cannot be written.
void renderScreenshot(MainWindow& window, const QString& path, QSize size);

}  // namespace lsrl::studio
