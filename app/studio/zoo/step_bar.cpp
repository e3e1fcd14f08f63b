#include "app/studio/zoo/step_bar.h"

#include <QAction>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QStyle>
#include <QTimer>
#include <QToolButton>
#include <algorithm>

namespace lsrl::studio {

StepBar::StepBar(QWidget* parent) : QWidget(parent) {
  auto button = [this](const char* name, QStyle::StandardPixmap icon, const QString& tip,
                       QKeySequence key) {
    auto* b = new QToolButton;
    b->setObjectName(QString::fromLatin1(name));
    b->setIcon(style()->standardIcon(icon));
    b->setToolTip(tip + QStringLiteral(" (") + key.toString(QKeySequence::NativeText) +
                  QLatin1Char(')'));
    auto* action = new QAction(tip, this);  // named: Help > Keyboard Shortcuts lists it
    action->setShortcut(key);
    action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(action);
    connect(action, &QAction::triggered, b, &QToolButton::click);
    return b;
  };
  first_ = button("StepFirst", QStyle::SP_MediaSkipBackward, tr("First step"),
                  QKeySequence(Qt::Key_Home));
  back_ =
      button("StepBack", QStyle::SP_MediaSeekBackward, tr("Step back"), QKeySequence(Qt::Key_Left));
  play_ = button("StepPlay", QStyle::SP_MediaPlay, tr("Play / pause"), QKeySequence(Qt::Key_Space));
  play_->setCheckable(true);
  forward_ = button("StepForward", QStyle::SP_MediaSeekForward, tr("Step forward"),
                    QKeySequence(Qt::Key_Right));
  last_ =
      button("StepLast", QStyle::SP_MediaSkipForward, tr("Last step"), QKeySequence(Qt::Key_End));
  slider_ = new QSlider(Qt::Horizontal);
  box_ = new QSpinBox;
  box_->setToolTip(tr("Go to step"));
  rate_ = new QSpinBox;
  rate_->setRange(1, 60);
  rate_->setValue(8);
  rate_->setSuffix(tr(" steps/s"));
  rate_->setToolTip(tr("Playing speed"));
  label_ = new QLabel;
  label_->setObjectName(QStringLiteral("StepLabel"));
  label_->setMinimumWidth(110);
  timer_ = new QTimer(this);

  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  for (QWidget* w :
       {static_cast<QWidget*>(first_), static_cast<QWidget*>(back_), static_cast<QWidget*>(play_),
        static_cast<QWidget*>(forward_), static_cast<QWidget*>(last_)})
    layout->addWidget(w);
  layout->addWidget(slider_, 1);
  layout->addWidget(box_);
  layout->addWidget(label_);
  layout->addWidget(rate_);

  connect(first_, &QToolButton::clicked, this, [this] { setStep(0); });
  connect(back_, &QToolButton::clicked, this, &StepBar::back);
  connect(forward_, &QToolButton::clicked, this, &StepBar::forward);
  connect(last_, &QToolButton::clicked, this, [this] { setStep(count_ - 1); });
  connect(play_, &QToolButton::toggled, this, &StepBar::setPlaying);
  connect(slider_, &QSlider::valueChanged, this, &StepBar::setStep);
  connect(box_, &QSpinBox::valueChanged, this, &StepBar::setStep);
  connect(rate_, &QSpinBox::valueChanged, this,
          [this](int rate) { timer_->setInterval(1000 / rate); });
  timer_->setInterval(1000 / rate_->value());
  connect(timer_, &QTimer::timeout, this, [this] {
    if (step_ + 1 >= count_) {
      setPlaying(false);
      return;
    }
    forward();
  });
  refresh();
}

void StepBar::setSteps(int count, const QString& unit) {
  setPlaying(false);
  count_ = std::max(0, count);
  unit_ = unit;
  step_ = 0;
  refresh();
  Q_EMIT stepChanged(step_);
}

bool StepBar::isPlaying() const { return timer_->isActive(); }

void StepBar::setStep(int step) {
  const int clamped = count_ > 0 ? std::clamp(step, 0, count_ - 1) : 0;
  if (clamped == step_) {
    refresh();
    return;
  }
  step_ = clamped;
  refresh();
  Q_EMIT stepChanged(step_);
}

void StepBar::forward() { setStep(step_ + 1); }
void StepBar::back() { setStep(step_ - 1); }

void StepBar::setPlaying(bool on) {
  on = on && count_ > 1;
  if (on && step_ + 1 >= count_) setStep(0);
  if (on)
    timer_->start();
  else
    timer_->stop();
  const QSignalBlocker block(play_);
  play_->setChecked(on);
  play_->setIcon(style()->standardIcon(on ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
}

void StepBar::refresh() {
  const bool any = count_ > 0;
  for (QWidget* w :
       {static_cast<QWidget*>(first_), static_cast<QWidget*>(back_), static_cast<QWidget*>(play_),
        static_cast<QWidget*>(forward_), static_cast<QWidget*>(last_),
        static_cast<QWidget*>(slider_), static_cast<QWidget*>(box_)})
    w->setEnabled(any);
  const QSignalBlocker a(slider_), b(box_);
  slider_->setRange(0, std::max(0, count_ - 1));
  slider_->setValue(step_);
  box_->setRange(0, std::max(0, count_ - 1));
  box_->setValue(step_);
  label_->setText(any ? tr("%1 %2 of %3").arg(unit_).arg(step_).arg(count_ - 1) : tr("no run"));
}

}  // namespace lsrl::studio
