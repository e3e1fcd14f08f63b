// The Models tab's step controls: first / back / play-pause / forward / last, a slider and
// a spin box over the run's steps ("token 3 of 64", "loop 2 of 8"), playing at a chosen
// rate. Left/Right/Home/End move when the tab has focus.
#pragma once

#include <QWidget>

class QLabel;
class QSlider;
class QSpinBox;
class QTimer;
class QToolButton;

namespace lsrl::studio {

class StepBar : public QWidget {
  Q_OBJECT

 public:
  explicit StepBar(QWidget* parent = nullptr);

  // `count` steps (0: disabled) named `unit` ("token", "loop"); goes to step 0.
  void setSteps(int count, const QString& unit);
  int count() const { return count_; }
  int step() const { return step_; }
  bool isPlaying() const;

 public Q_SLOTS:
  void setStep(int step);  // clamped; emits stepChanged when it changes
  void forward();
  void back();
  void setPlaying(bool on);

 Q_SIGNALS:
  void stepChanged(int step);

 private:
  void refresh();

  int count_ = 0;
  int step_ = 0;
  QString unit_;
  QToolButton* first_;
  QToolButton* back_;
  QToolButton* play_;
  QToolButton* forward_;
  QToolButton* last_;
  QSlider* slider_;
  QSpinBox* box_;
  QSpinBox* rate_;
  QLabel* label_;
  QTimer* timer_;
};

}  // namespace lsrl::studio
