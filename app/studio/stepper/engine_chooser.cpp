#include "app/studio/stepper/engine_chooser.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QPushButton>
#include <QVBoxLayout>

#include "app/studio/common/elided_label.h"
#include "app/studio/common/file_dialogs.h"

namespace lsrl::studio {

namespace {

enum Mode : int {
  kProgramExact,
  kProgramFloat64,
  kCompiledExact,
  kCompiledFloat64,
  kCompiledFp32,
  kWeightsFile
};

}  // namespace

EngineChooser::EngineChooser(QWidget* parent) : QWidget(parent) {
  mode_ = new QComboBox(this);
  mode_->addItems({tr("program exact"), tr("program float64"), tr("compiled exact"),
                   tr("compiled float64"), tr("compiled fp32"), tr("weights file…")});
  mode_->setItemData(kCompiledFp32,
                     tr("the compiled model in fp32 on the CPU batch runner (outputs only), "
                        "as lsrl run --backend cpu32 and PyTorch run exported weights"),
                     Qt::ToolTipRole);
  mode_->setItemData(kWeightsFile,
                     tr("a weights file (lsrl export, or lsrl.torch.save_compiled after "
                        "fine-tuning) run in float64 (outputs only)"),
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
  // A weights file's name, elided: a long one must not widen the stepper either.
  weightsName_ = new ElidedLabel(this);
  weightsChoose_ = new QPushButton(tr("Choose…"), this);
  weightsChoose_->setToolTip(tr("another weights file"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  // A weights file's name and Choose… take the target's place: a file has its own.
  auto* what = new QHBoxLayout;
  what->addWidget(mode_);
  what->addWidget(target_, 1);
  what->addWidget(weightsName_, 1);
  what->addWidget(weightsChoose_);
  auto* how = new QHBoxLayout;
  how->addWidget(optimize_);
  how->addWidget(fitted_);
  how->addStretch(1);
  layout->addLayout(what);
  layout->addLayout(how);
  connect(mode_, &QComboBox::currentIndexChanged, this, [this](int index) {
    if (index != kWeightsFile) modeBeforeWeights_ = index;
    updateEnabled();
    Q_EMIT changed();
  });
  // Chosen by the person (not by setSpec): ask for the file once the list has closed.
  connect(mode_, &QComboBox::activated, this, [this](int index) {
    if (index == kWeightsFile)
      QMetaObject::invokeMethod(this, &EngineChooser::askWeightsFile, Qt::QueuedConnection);
  });
  connect(weightsChoose_, &QPushButton::clicked, this, &EngineChooser::askWeightsFile);
  connect(optimize_, &QCheckBox::toggled, this, &EngineChooser::changed);
  connect(fitted_, &QCheckBox::toggled, this, &EngineChooser::changed);
  connect(target_, &QComboBox::currentIndexChanged, this, &EngineChooser::changed);
  setWeightsPath({});
  updateEnabled();
}

void EngineChooser::updateEnabled() {
  const bool weights = mode_->currentIndex() == kWeightsFile;
  const bool compiled = mode_->currentIndex() >= kCompiledExact && !weights;
  optimize_->setEnabled(compiled);
  fitted_->setEnabled(compiled);
  target_->setEnabled(compiled);
  target_->setVisible(!weights);
  weightsName_->setVisible(weights);
  weightsChoose_->setVisible(weights);
}

void EngineChooser::askWeightsFile() {
  const QString path =
      askOpenPath(this, tr("Weights file to run"), weightsFileFilter(), weightsPath_);
  if (!path.isEmpty()) {
    setWeightsPath(path);
    Q_EMIT changed();
  } else if (weightsPath_.isEmpty() && mode_->currentIndex() == kWeightsFile) {
    mode_->setCurrentIndex(modeBeforeWeights_);
  }
}

void EngineChooser::setWeightsPath(const QString& path) {
  weightsPath_ = path;
  weightsName_->setText(path.isEmpty() ? tr("no file chosen") : QFileInfo(path).fileName());
  weightsName_->setToolTip(path);
}

EngineSpec EngineChooser::spec() const {
  const int mode = mode_->currentIndex();
  if (mode == kWeightsFile) return EngineSpec::weightsFile(weightsPath_.toStdString());
  EngineSpec s;
  s.source = mode >= kCompiledExact ? RunSource::Compiled : RunSource::Program;
  s.exact = mode == kProgramExact || mode == kCompiledExact;
  s.fp32 = mode == kCompiledFp32;
  s.optimize = optimize_->isChecked();
  s.fitted = s.source == RunSource::Compiled && fitted_->isChecked();
  if (s.source == RunSource::Compiled && target_->currentIndex() > 0)
    s.target = allTargets().at(static_cast<size_t>(target_->currentIndex() - 1));
  return s;
}

void EngineChooser::setSpec(const EngineSpec& s) {
  if (s.source == RunSource::WeightsFile) {
    setWeightsPath(QString::fromStdString(s.weightsPath));
    mode_->setCurrentIndex(kWeightsFile);
    updateEnabled();
    return;
  }
  const bool compiled = s.source == RunSource::Compiled;
  mode_->setCurrentIndex(compiled && s.fp32 && !s.exact
                             ? kCompiledFp32
                             : (compiled ? kCompiledExact : kProgramExact) + (s.exact ? 0 : 1));
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
