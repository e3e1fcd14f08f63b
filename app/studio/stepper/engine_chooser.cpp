#include "app/studio/stepper/engine_chooser.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>

namespace lsrl::studio {

EngineChooser::EngineChooser(QWidget* parent) : QWidget(parent) {
  mode_ = new QComboBox(this);
  mode_->addItems(
      {tr("program exact"), tr("program float64"), tr("compiled exact"), tr("compiled float64")});
  optimize_ = new QCheckBox(tr("optimise"), this);
  optimize_->setChecked(true);
  optimize_->setToolTip(
      tr("the compiler's exactness-preserving size optimisations; off is the "
         "paper's plain algorithm (slower)"));
  target_ = new QComboBox(this);
  target_->addItem(tr("path graph (every node)"));
  for (Target t : allTargets())
    target_->addItem(
        QString::fromUtf8(targetName(t).data(), static_cast<int>(targetName(t).size())) +
        tr(" (outputs only)"));
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(mode_);
  layout->addWidget(optimize_);
  layout->addWidget(target_, 1);
  connect(mode_, &QComboBox::currentIndexChanged, this, [this] {
    updateEnabled();
    Q_EMIT changed();
  });
  connect(optimize_, &QCheckBox::toggled, this, &EngineChooser::changed);
  connect(target_, &QComboBox::currentIndexChanged, this, &EngineChooser::changed);
  updateEnabled();
}

void EngineChooser::updateEnabled() {
  const bool compiled = mode_->currentIndex() >= 2;
  optimize_->setEnabled(compiled);
  target_->setEnabled(compiled);
}

EngineSpec EngineChooser::spec() const {
  EngineSpec s;
  s.source = mode_->currentIndex() >= 2 ? RunSource::Compiled : RunSource::Program;
  s.exact = mode_->currentIndex() % 2 == 0;
  s.optimize = optimize_->isChecked();
  if (s.source == RunSource::Compiled && target_->currentIndex() > 0)
    s.target = allTargets().at(static_cast<size_t>(target_->currentIndex() - 1));
  return s;
}

void EngineChooser::setSpec(const EngineSpec& s) {
  mode_->setCurrentIndex((s.source == RunSource::Compiled ? 2 : 0) + (s.exact ? 0 : 1));
  optimize_->setChecked(s.optimize);
  int index = 0;
  if (s.target) {
    const auto& all = allTargets();
    index = 1 + static_cast<int>(std::find(all.begin(), all.end(), *s.target) - all.begin());
  }
  target_->setCurrentIndex(index);
  updateEnabled();
}

}  // namespace lsrl::studio
