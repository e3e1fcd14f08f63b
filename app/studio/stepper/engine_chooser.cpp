#include "app/studio/stepper/engine_chooser.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QVBoxLayout>

namespace lsrl::studio {

EngineChooser::EngineChooser(QWidget* parent) : QWidget(parent) {
  mode_ = new QComboBox(this);
  mode_->addItems({tr("program exact"), tr("program float64"), tr("compiled exact"),
                   tr("compiled float64"), tr("compiled fp32")});
  mode_->setItemData(4,
                     tr("the compiled model in fp32 on the CPU batch runner (outputs only), "
                        "as lsrl run --backend cpu32 and PyTorch run exported weights"),
                     Qt::ToolTipRole);
  optimize_ = new QCheckBox(tr("optimise"), this);
  optimize_->setChecked(true);
  optimize_->setToolTip(
      tr("the compiler's exactness-preserving size optimisations; off is the "
         "paper's plain algorithm (slower)"));
  fitted_ = new QCheckBox(tr("fit constants"), this);
  fitted_->setToolTip(
      tr("fit the program's step scales and conditionals' lambda to the tokens' domain first "
         "(lsrl compile --precision; docs/precision.md): same answers there, right in "
         "float64 and fp32"));
  target_ = new QComboBox(this);
  target_->addItem(tr("path graph (every node)"));
  for (Target t : allTargets())
    target_->addItem(
        QString::fromUtf8(targetName(t).data(), static_cast<int>(targetName(t).size())) +
        tr(" (outputs only)"));
  // Two rows: in one, the chooser alone asked for 540 px and pushed the stepper past a
  // 1000 px window.
  // Long target names ("Gated Linear RNN (outputs only)") elide instead of widening.
  target_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  target_->setMinimumContentsLength(14);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* what = new QHBoxLayout;
  what->addWidget(mode_);
  what->addWidget(target_, 1);
  auto* how = new QHBoxLayout;
  how->addWidget(optimize_);
  how->addWidget(fitted_);
  how->addStretch(1);
  layout->addLayout(what);
  layout->addLayout(how);
  connect(mode_, &QComboBox::currentIndexChanged, this, [this] {
    updateEnabled();
    Q_EMIT changed();
  });
  connect(optimize_, &QCheckBox::toggled, this, &EngineChooser::changed);
  connect(fitted_, &QCheckBox::toggled, this, &EngineChooser::changed);
  connect(target_, &QComboBox::currentIndexChanged, this, &EngineChooser::changed);
  updateEnabled();
}

void EngineChooser::updateEnabled() {
  const bool compiled = mode_->currentIndex() >= 2;
  optimize_->setEnabled(compiled);
  fitted_->setEnabled(compiled);
  target_->setEnabled(compiled);
}

EngineSpec EngineChooser::spec() const {
  EngineSpec s;
  const int mode = mode_->currentIndex();
  s.source = mode >= 2 ? RunSource::Compiled : RunSource::Program;
  s.exact = mode == 0 || mode == 2;
  s.fp32 = mode == 4;
  s.optimize = optimize_->isChecked();
  s.fitted = s.source == RunSource::Compiled && fitted_->isChecked();
  if (s.source == RunSource::Compiled && target_->currentIndex() > 0)
    s.target = allTargets().at(static_cast<size_t>(target_->currentIndex() - 1));
  return s;
}

void EngineChooser::setSpec(const EngineSpec& s) {
  const bool compiled = s.source == RunSource::Compiled;
  mode_->setCurrentIndex(compiled && s.fp32 && !s.exact ? 4
                                                        : (compiled ? 2 : 0) + (s.exact ? 0 : 1));
  optimize_->setChecked(s.optimize);
  fitted_->setChecked(s.fitted);
  int index = 0;
  if (s.target) {
    const auto& all = allTargets();
    index = 1 + static_cast<int>(std::find(all.begin(), all.end(), *s.target) - all.begin());
  }
  target_->setCurrentIndex(index);
  updateEnabled();
}

}  // namespace lsrl::studio
