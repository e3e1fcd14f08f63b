// The common face of the Models tab's views: a view draws one model kind's run
// (model_run.h) at a step the tab's step bar chooses, and lists its exports. The tab owns
// the run and the step; views only draw.
#pragma once

#include <QImage>
#include <QString>
#include <QWidget>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "app/studio/zoo/model_run.h"

namespace lsrl::studio {

// One entry of a view's Export menu: writes `path` (ending in `suffix`, ".png", ".svg",
// ".csv"), throwing lsrl::Error naming the path on failure.
struct ViewExport {
  QString label;   // "Slot geometry (PNG + CSV of the points)"
  QString suffix;  // ".png"
  std::function<void(const QString& path)> write;
};

// `image` (a grab of `owner`) with `window`'s picture painted where the window container
// `container` sits: 3D windows are not part of a widget grab.
QImage paintWindowInto(QImage image, const QWidget* owner, const QWidget* container,
                       const std::function<QImage(QSize)>& render);

// The trace array `name` that `view` ("GateLoop") draws, with `rank` axes; throws
// lsrl::Error naming the view, the array, and the shape expected vs got.
const Tensor& viewTraceArray(const seed_models::Trace& trace, const std::string& view,
                             const std::string& name, size_t rank);

class ModelView : public QWidget {
  Q_OBJECT

 public:
  using QWidget::QWidget;

  // Shows `run` (a run of a kind this view draws) from step 0. Throws lsrl::Error when the
  // trace lacks an array the view needs (naming it).
  virtual void setRun(std::shared_ptr<const ModelRun> run) = 0;
  // Redraws for step `step` (clamped to the run's steps).
  virtual void setStep(int step) = 0;
  virtual std::vector<ViewExport> exports() = 0;
  // The view as shown (screenshots); views with 3D windows paint them in.
  virtual QImage renderImage() { return grab().toImage(); }

 Q_SIGNALS:
  // The user picked a step in a plot (a heat map column, a chart point).
  void stepRequested(int step);
};

}  // namespace lsrl::studio
