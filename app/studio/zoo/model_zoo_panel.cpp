#include "app/studio/zoo/model_zoo_panel.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <nlohmann/json.hpp>

#include "app/studio/zoo/trained_checkpoints.h"
#include "core/seed_models/seed_model.h"
#include "core/util/error.h"

namespace lsrl::studio {

namespace {

const char* kindTitle(const std::string& kind) {
  if (kind == "mingru") return "minGRU";
  if (kind == "minlstm") return "minLSTM";
  if (kind == "gateloop") return "GateLoop";
  if (kind == "lattice") return "Lattice";
  if (kind == "looped") return "Looped transformer";
  return kind.c_str();
}

// A line edit with a Browse… and a clear button.
QWidget* fileRow(QLineEdit* edit, QWidget* parent, const QString& filter) {
  auto* row = new QWidget(parent);
  auto* layout = new QHBoxLayout(row);
  layout->setContentsMargins(0, 0, 0, 0);
  edit->setClearButtonEnabled(true);
  auto* browse = new QToolButton;
  browse->setText(QStringLiteral("…"));
  QObject::connect(browse, &QToolButton::clicked, edit, [edit, filter] {
    const QString path = QFileDialog::getOpenFileName(edit, QString(), QString(), filter);
    if (!path.isEmpty()) edit->setText(path);
  });
  layout->addWidget(edit, 1);
  layout->addWidget(browse);
  return row;
}

}  // namespace

ModelZooPanel::ModelZooPanel(QWidget* parent) : QWidget(parent) {
  kind_ = new QComboBox;
  kind_->setObjectName(QStringLiteral("ModelKind"));
  for (const std::string& kind : seed_models::seedModelKinds())
    kind_->addItem(QString::fromUtf8(kindTitle(kind)), QString::fromStdString(kind));
  config_ = new QTableWidget(0, 2);
  config_->setHorizontalHeaderLabels({tr("key"), tr("value (JSON)")});
  config_->horizontalHeader()->setStretchLastSection(true);
  config_->verticalHeader()->hide();
  config_->setToolTip(tr("The model's config: sizes, modes and seed (JSON values)"));
  seed_ = new QSpinBox;
  seed_->setRange(0, 1 << 30);
  seed_->setToolTip(tr("The weights' seed (config key \"seed\")"));
  weights_ = new QLineEdit;
  weights_->setPlaceholderText(tr("random weights from the config"));
  task_ = new QComboBox;
  task_->setObjectName(QStringLiteral("ModelTask"));
  taskSeed_ = new QSpinBox;
  taskSeed_->setRange(0, 1 << 30);
  input_ = new QLineEdit;
  input_->setPlaceholderText(tr("or an input file IN.json"));
  backend_ = new QComboBox;
  backend_->addItem(tr("CPU (float64)"), QStringLiteral("cpu"));
  backend_->addItem(tr("Vulkan (fp32)"), QStringLiteral("vulkan"));
  if (!studioHasVulkan()) {
    backend_->setItemData(1, false, Qt::UserRole - 1);  // disabled entry
    backend_->setToolTip(tr("This build has no Vulkan runtime"));
  }
  run_ = new QPushButton(tr("Run"));
  run_->setDefault(true);
  train_ = new QPushButton(tr("Train…"));
  train_->setObjectName(QStringLiteral("TrainButton"));
  train_->setToolTip(tr("Train this config on one of its tasks (PyTorch), watching the curves"));
  trained_ = new QPushButton(tr("Trained"));
  trained_->setObjectName(QStringLiteral("TrainedWeights"));
  trained_->setToolTip(tr("The trained checkpoint shipped in examples/models"));
  random_ = new QPushButton(tr("Random"));
  random_->setObjectName(QStringLiteral("RandomWeights"));
  random_->setToolTip(tr("Seeded random weights of the same config"));
  default_ = new QPushButton(tr("Default"));
  default_->setObjectName(QStringLiteral("DefaultConfig"));
  default_->setToolTip(tr("The model's default config with seeded random weights"));
  auto* weightsChoice = new QWidget;
  auto* choiceLayout = new QHBoxLayout(weightsChoice);
  choiceLayout->setContentsMargins(0, 0, 0, 0);
  choiceLayout->addWidget(trained_);
  choiceLayout->addWidget(random_);
  choiceLayout->addWidget(default_);

  auto* form = new QFormLayout;
  form->addRow(tr("Model"), kind_);
  form->addRow(tr("Seed"), seed_);
  form->addRow(tr("Weights"),
               fileRow(weights_, this, tr("Weights (*.safetensors);;All files (*)")));
  form->addRow(QString(), weightsChoice);
  form->addRow(tr("Task"), task_);
  form->addRow(tr("Task seed"), taskSeed_);
  form->addRow(tr("Input"), fileRow(input_, this, tr("Token sequences (*.json);;All files (*)")));
  form->addRow(tr("Backend"), backend_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(form);
  layout->addWidget(new QLabel(tr("Config")));
  layout->addWidget(config_, 1);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(train_);
  buttons->addWidget(run_, 1);
  layout->addLayout(buttons);

  connect(kind_, &QComboBox::currentIndexChanged, this, [this] { loadKind(); });
  connect(weights_, &QLineEdit::textChanged, this, [this] { refreshInputs(); });
  connect(input_, &QLineEdit::textChanged, this, [this] { refreshInputs(); });
  connect(run_, &QPushButton::clicked, this, &ModelZooPanel::runRequested);
  connect(train_, &QPushButton::clicked, this, &ModelZooPanel::trainRequested);
  connect(trained_, &QPushButton::clicked, this, [this] { useTrainedWeights(); });
  connect(random_, &QPushButton::clicked, this, [this] { useRandomWeights(); });
  connect(default_, &QPushButton::clicked, this, [this] { useDefaultConfig(); });
  // Sizes decide which tasks exist (Lattice's assoc_recall needs key channels).
  connect(config_, &QTableWidget::itemChanged, this, [this] { refreshTasks(); });
  kind_->setCurrentIndex(std::max(0, kind_->findData(QStringLiteral("lattice"))));
  loadKind();
}

bool ModelZooPanel::setKind(const QString& kind) {
  const int index = kind_->findData(kind);
  if (index < 0) return false;
  if (index == kind_->currentIndex()) return true;
  kind_->setCurrentIndex(index);
  return true;
}

QString ModelZooPanel::kind() const { return kind_->currentData().toString(); }

void ModelZooPanel::loadKind() { showDefaultConfig(trainedCheckpoint(kind())); }

void ModelZooPanel::showDefaultConfig(const QString& weights) {
  showConfig(seed_models::makeSeedModel(kind().toStdString(), nlohmann::json::object())->config());
  {
    const QSignalBlocker quiet(weights_);
    weights_->setText(weights);
  }
  refreshInputs();
}

void ModelZooPanel::showConfig(const nlohmann::json& config) {
  const QSignalBlocker quiet(config_);
  config_->setRowCount(0);
  for (const auto& [key, value] : config.items()) {
    if (key == "seed") continue;  // its own spin box
    const int row = config_->rowCount();
    config_->insertRow(row);
    auto* keyItem = new QTableWidgetItem(QString::fromStdString(key));
    keyItem->setFlags(keyItem->flags() & ~Qt::ItemIsEditable);
    config_->setItem(row, 0, keyItem);
    config_->setItem(row, 1, new QTableWidgetItem(QString::fromStdString(value.dump())));
  }
  config_->resizeColumnToContents(0);
  seed_->setValue(config.value("seed", 0));
}

void ModelZooPanel::refreshInputs() {
  const QString weights = weights_->text().trimmed();
  const bool fromWeights = !weights.isEmpty();
  config_->setEnabled(!fromWeights);
  seed_->setEnabled(!fromWeights);
  trained_->setEnabled(!trainedCheckpoint(kind()).isEmpty() &&
                       weights != trainedCheckpoint(kind()));
  random_->setEnabled(fromWeights);
  const bool fromFile = !input_->text().trimmed().isEmpty();
  task_->setEnabled(!fromFile);
  taskSeed_->setEnabled(!fromFile);
  QString preferred;
  if (fromWeights) {
    // The file's config is what runs: show it, and offer the task it was trained on.
    try {
      nlohmann::json meta;
      showConfig(
          seed_models::loadSeedModel(kind().toStdString(), weights.toStdString(), &meta)->config());
      if (meta.contains("task") && meta["task"].is_string())
        preferred = QString::fromStdString(meta["task"].get<std::string>());
    } catch (const std::exception&) {
      // An unreadable file is reported when it runs; the form keeps what it shows.
    }
  }
  refreshTasks(preferred);
}

void ModelZooPanel::refreshTasks(const QString& preferred) {
  const QString current = preferred.isEmpty() ? task_->currentText() : preferred;
  std::vector<std::string> names;
  try {
    names = seed_models::makeSeedModel(kind().toStdString(), configJson())->tasks();
  } catch (const std::exception&) {
    names = seed_models::makeSeedModel(kind().toStdString(), nlohmann::json::object())->tasks();
  }
  task_->blockSignals(true);
  task_->clear();
  for (const std::string& task : names) task_->addItem(QString::fromStdString(task));
  task_->setCurrentIndex(std::max(0, task_->findText(current)));
  task_->blockSignals(false);
}

QString ModelZooPanel::weightsFile() const { return weights_->text().trimmed(); }

void ModelZooPanel::useTrainedWeights() { weights_->setText(trainedCheckpoint(kind())); }

void ModelZooPanel::useRandomWeights() { weights_->clear(); }

void ModelZooPanel::useDefaultConfig() { showDefaultConfig(QString()); }

QStringList ModelZooPanel::tasks() const {
  QStringList out;
  for (int i = 0; i < task_->count(); ++i) out << task_->itemText(i);
  return out;
}

bool ModelZooPanel::setConfigValue(const QString& key, const QString& jsonValue) {
  if (key == QLatin1String("seed")) {
    seed_->setValue(jsonValue.toInt());
    return true;
  }
  for (int row = 0; row < config_->rowCount(); ++row) {
    if (config_->item(row, 0)->text() == key) {
      config_->item(row, 1)->setText(jsonValue);
      return true;
    }
  }
  return false;
}

bool ModelZooPanel::setTask(const QString& task) {
  const int index = task_->findText(task);
  if (index >= 0) task_->setCurrentIndex(index);
  return index >= 0;
}

void ModelZooPanel::setTaskSeed(int seed) { taskSeed_->setValue(seed); }
void ModelZooPanel::setWeightsFile(const QString& path) { weights_->setText(path); }
void ModelZooPanel::setInputFile(const QString& path) { input_->setText(path); }

bool ModelZooPanel::setBackend(const QString& backend) {
  const int index = backend_->findData(backend);
  if (index < 0 || (backend == QLatin1String("vulkan") && !studioHasVulkan())) return false;
  backend_->setCurrentIndex(index);
  return true;
}

nlohmann::json ModelZooPanel::configJson() const {
  nlohmann::json config = nlohmann::json::object();
  for (int row = 0; row < config_->rowCount(); ++row) {
    const std::string key = config_->item(row, 0)->text().toStdString();
    const std::string text = config_->item(row, 1)->text().trimmed().toStdString();
    auto value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (value.is_discarded()) {
      throw Error("config \"" + key + "\": \"" + text +
                  "\" is not a JSON value (numbers as 4 or 0.5, strings in quotes: \"osr\")");
    }
    config[key] = std::move(value);
  }
  config["seed"] = seed_->value();
  return config;
}

ModelRunRequest ModelZooPanel::request() const {
  ModelRunRequest r;
  r.kind = kind().toStdString();
  r.weightsPath = weights_->text().trimmed().toStdString();
  if (r.weightsPath.empty()) r.config = configJson();
  r.inputPath = input_->text().trimmed().toStdString();
  if (r.inputPath.empty()) {
    r.task = task_->currentText().toStdString();
    r.taskSeed = static_cast<uint64_t>(taskSeed_->value());
  }
  r.backend = backend_->currentData().toString().toStdString();
  return r;
}

}  // namespace lsrl::studio
