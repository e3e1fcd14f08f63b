#include "app/studio/panels/palette_panel.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIcon>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QPainter>
#include <QPixmap>
#include <QPushButton>
#include <QSpinBox>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "app/studio/editor/node_style.h"
#include "core/graph/checks.h"
#include "core/util/error.h"

namespace lsrl::studio {

namespace {

constexpr int kEntryRole = Qt::UserRole;

struct PrimitiveEntry {
  const char* name;
  Op op;
  bool slice;
  StyleOp style;
  const char* description;
};

const PrimitiveEntry kPrimitives[] = {
    {"Input", Op::Input, false, StyleOp::Input, "The program's input: one token's vector."},
    {"Linear", Op::Linear, false, StyleOp::Linear, "A·x + b (starts as the identity)."},
    {"Slice", Op::Linear, true, StyleOp::Slice, "Rows [start, end) of its input."},
    {"ReLU", Op::ReLU, false, StyleOp::ReLU, "max(x, 0) per entry."},
    {"LinState", Op::LinState, false, StyleOp::LinState,
     "Linear recurrence s_t = A·s_(t-1) + B·x_t + bias, from init."},
    {"Concat", Op::Concat, false, StyleOp::Concat, "Its inputs stacked, in slot order."},
    {"Multi", Op::Multi, false, StyleOp::Multi,
     "Products of the first and second halves of its input (width = half)."},
};

const PrimitiveEntry* findPrimitive(const QString& name) {
  for (const PrimitiveEntry& p : kPrimitives) {
    if (name == QLatin1String(p.name)) return &p;
  }
  return nullptr;
}

QIcon swatch(const QColor& colour) {
  QPixmap pixmap(14, 14);
  pixmap.fill(Qt::transparent);
  QPainter painter(&pixmap);
  painter.setPen(boxBorderColor());
  painter.setBrush(colour);
  painter.drawRoundedRect(QRectF(0.5, 0.5, 13, 13), 3, 3);
  return QIcon(pixmap);
}

// The tree lets entries be dragged into the editor as palette mime data.
class PaletteTree : public QTreeWidget {
 public:
  using QTreeWidget::QTreeWidget;

 protected:
  QStringList mimeTypes() const override { return {QString::fromLatin1(kPaletteMimeType)}; }
  QMimeData* mimeData(const QList<QTreeWidgetItem*>& items) const override {
    if (items.isEmpty() || items[0]->data(0, kEntryRole).toString().isEmpty()) return nullptr;
    auto* mime = new QMimeData;
    mime->setData(QString::fromLatin1(kPaletteMimeType),
                  items[0]->data(0, kEntryRole).toString().toUtf8());
    return mime;
  }
};

}  // namespace

PalettePanel::PalettePanel(Document* document, std::function<NodePosition()> placement,
                           QWidget* parent)
    : QWidget(parent), document_(document), placement_(std::move(placement)) {
  auto* layout = new QVBoxLayout(this);
  tree_ = new PaletteTree(this);
  tree_->setHeaderHidden(true);
  tree_->setDragEnabled(true);
  tree_->setDragDropMode(QAbstractItemView::DragOnly);
  auto* primitives = new QTreeWidgetItem(tree_, {tr("Primitives")});
  for (const PrimitiveEntry& p : kPrimitives) {
    auto* item = new QTreeWidgetItem(primitives, {QString::fromLatin1(p.name)});
    item->setData(0, kEntryRole, QStringLiteral("primitive:%1").arg(QLatin1String(p.name)));
    item->setIcon(0, swatch(opFill(p.style)));
    item->setToolTip(0, tr(p.description));
  }
  auto* sugar = new QTreeWidgetItem(tree_, {tr("Sugar")});
  for (const SugarFunction& fn : sugarCatalog()) {
    auto* item = new QTreeWidgetItem(sugar, {QString::fromStdString(fn.name)});
    item->setData(0, kEntryRole, QStringLiteral("sugar:%1").arg(QString::fromStdString(fn.name)));
    item->setIcon(0, swatch(groupFill()));
    item->setToolTip(0, QString::fromStdString(fn.description));
  }
  for (QTreeWidgetItem* top : {primitives, sugar}) {
    top->setFlags(Qt::ItemIsEnabled);
    QFont bold = top->font(0);
    bold.setBold(true);
    top->setFont(0, bold);
  }
  tree_->expandAll();
  layout->addWidget(tree_, 1);

  description_ = new QLabel(this);
  description_->setWordWrap(true);
  layout->addWidget(description_);

  widthRow_ = new QWidget(this);
  auto* widthLayout = new QHBoxLayout(widthRow_);
  widthLayout->setContentsMargins(0, 0, 0, 0);
  widthLayout->addWidget(new QLabel(tr("Width"), widthRow_));
  width_ = new QSpinBox(widthRow_);
  width_->setRange(1, kMaxNodeDim);
  width_->setValue(1);
  widthLayout->addWidget(width_, 1);
  layout->addWidget(widthRow_);

  form_ = new QWidget(this);
  formLayout_ = new QFormLayout(form_);
  formLayout_->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(form_);

  error_ = new QLabel(this);
  error_->setObjectName(QStringLiteral("paletteError"));
  error_->setWordWrap(true);
  error_->setStyleSheet(QStringLiteral("color: #c0392b;"));
  error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  error_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  // The error keeps a fixed room of three lines, shown or not: a message appearing as the
  // person types must not move the fields under the mouse (the next click would land on
  // another field). A longer message is cut there; its tooltip has all of it.
  error_->setFixedHeight(3 * error_->fontMetrics().lineSpacing() + 2);
  QSizePolicy keepRoom = error_->sizePolicy();
  keepRoom.setRetainSizeWhenHidden(true);
  error_->setSizePolicy(keepRoom);
  error_->hide();
  layout->addWidget(error_);

  add_ = new QPushButton(tr("Add"), this);
  add_->setToolTip(
      tr("Add beside the selected box, else at the centre of the view (or double-click an "
         "entry, or drag it where it should go)"));
  layout->addWidget(add_);

  connect(tree_, &QTreeWidget::currentItemChanged, this, &PalettePanel::selectionChanged);
  connect(tree_, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item) {
    if (!item->data(0, kEntryRole).toString().isEmpty()) addSelected();
  });
  connect(add_, &QPushButton::clicked, this, [this] { addSelected(); });
  selectionChanged();
}

QString PalettePanel::selectedEntry() const {
  QTreeWidgetItem* item = tree_->currentItem();
  return item ? item->data(0, kEntryRole).toString() : QString();
}

bool PalettePanel::select(const QString& name) {
  for (QTreeWidgetItem* item : tree_->findItems(name, Qt::MatchExactly | Qt::MatchRecursive)) {
    if (!item->data(0, kEntryRole).toString().isEmpty()) {
      tree_->setCurrentItem(item);
      return true;
    }
  }
  return false;
}

bool PalettePanel::setParameter(const QString& name, const QString& text) {
  for (auto& [param, edit] : fields_) {
    if (QString::fromStdString(param.name) == name) {
      edit->setText(text);
      return true;
    }
  }
  return false;
}

void PalettePanel::selectionChanged() {
  const QString entry = selectedEntry();
  const SugarFunction* fn = nullptr;
  if (entry.startsWith(QLatin1String("sugar:"))) {
    fn = findSugarFunction(entry.mid(6).toStdString());
  }
  const PrimitiveEntry* primitive =
      entry.startsWith(QLatin1String("primitive:")) ? findPrimitive(entry.mid(10)) : nullptr;
  if (fn) {
    description_->setText(QString::fromStdString(fn->description));
  } else if (primitive) {
    description_->setText(tr(primitive->description));
  } else {
    description_->setText(tr("Choose a primitive or a sugar function to add."));
  }
  widthRow_->setVisible(primitive != nullptr);
  rebuildForm(fn);
  showError({});
  validate();
}

void PalettePanel::rebuildForm(const SugarFunction* fn) {
  while (formLayout_->rowCount() > 0) formLayout_->removeRow(0);
  fields_.clear();
  form_->setVisible(fn != nullptr);
  if (!fn) return;
  for (const SugarParam& p : fn->params) {
    auto* edit = new QLineEdit(QString::fromStdString(p.defaultText), form_);
    edit->setObjectName(QStringLiteral("param_") + QString::fromStdString(p.name));
    edit->setToolTip(QString::fromStdString(p.description));
    edit->setPlaceholderText(QString::fromStdString(p.defaultText));
    formLayout_->addRow(QString::fromStdString(p.name), edit);
    fields_.emplace_back(p, edit);
    connect(edit, &QLineEdit::textChanged, this, &PalettePanel::validate);
  }
}

void PalettePanel::validate() {
  QStringList problems;
  for (const auto& [param, edit] : fields_) {
    const auto why = sugarParamError(param, edit->text().toStdString());
    edit->setStyleSheet(why ? QStringLiteral("border: 1px solid #c0392b;") : QString());
    edit->setToolTip(why ? QString::fromStdString(*why)
                         : QString::fromStdString(param.description));
    if (why) {
      problems << QStringLiteral("%1: %2").arg(QString::fromStdString(param.name),
                                               QString::fromStdString(*why));
    }
  }
  showError(problems.join(QStringLiteral("\n")));
  add_->setEnabled(!selectedEntry().isEmpty() && problems.isEmpty());
}

SugarArgs PalettePanel::formArgs() const {
  SugarArgs args;
  for (const auto& [param, edit] : fields_) args[param.name] = edit->text().trimmed().toStdString();
  return args;
}

void PalettePanel::showError(const QString& message) {
  error_->setText(message);
  error_->setToolTip(message);
  error_->setVisible(!message.isEmpty());
}

QString PalettePanel::errorText() const { return error_->isHidden() ? QString() : error_->text(); }

std::vector<NodeId> PalettePanel::addSelected() {
  return add(selectedEntry(), formArgs(), width_->value(),
             placement_ ? placement_() : NodePosition{});
}

std::vector<NodeId> PalettePanel::addFromMime(const QString& text, NodePosition at) {
  // A dragged sugar entry takes the form's parameters when it is the one shown.
  const SugarArgs args = text == selectedEntry() ? formArgs() : SugarArgs{};
  return add(text, args, width_->value(), at);
}

std::vector<NodeId> PalettePanel::add(const QString& entry, const SugarArgs& args, int width,
                                      NodePosition at) {
  std::vector<NodeId> ids;
  try {
    if (entry.startsWith(QLatin1String("primitive:"))) {
      const PrimitiveEntry* p = findPrimitive(entry.mid(10));
      if (!p) throw Error("the palette has no primitive '" + entry.mid(10).toStdString() + "'");
      ids.push_back(document_->addPrimitive(p->op, width, at, p->slice));
    } else if (entry.startsWith(QLatin1String("sugar:"))) {
      const std::string name = entry.mid(6).toStdString();
      const SugarFragment call = buildSugarFragmentWithSlots(name, args);
      ids = document_->insertFragment(call.graph, at,
                                      tr("Add %1").arg(QString::fromStdString(name)), call.wires);
    } else {
      return {};
    }
  } catch (const Error& e) {
    showError(QString::fromUtf8(e.what()));
    return {};
  }
  showError({});
  if (!ids.empty()) Q_EMIT inserted(ids);
  return ids;
}

PalettePanel::~PalettePanel() {
  // Destroying the child widgets may emit (a focused line edit's editingFinished) after
  // this object's members are gone: cut those connections first.
  for (QObject* child : findChildren<QObject*>())
    QObject::disconnect(child, nullptr, this, nullptr);
}

}  // namespace lsrl::studio
