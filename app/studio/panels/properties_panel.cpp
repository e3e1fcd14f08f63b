#include "app/studio/panels/properties_panel.h"

#include <QCheckBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStackedWidget>
#include <QTabWidget>
#include <QVBoxLayout>

#include "app/studio/document/sugar_catalog.h"
#include "app/studio/panels/matrix_editor.h"
#include "app/studio/panels/matrix_model.h"
#include "app/studio/panels/node_label.h"
#include "core/graph/checks.h"
#include "core/graph/sugar_replay.h"
#include "core/util/error.h"

namespace lsrl::studio {

namespace {

QString fromStd(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

// One "name = value" line per parameter; operands read as what is wired to them now.
QString groupSignature(const Graph& graph, GroupId id) {
  QStringList params;
  for (const auto& [key, value] : paramsAsWired(graph, id)) {
    params << QStringLiteral("%1 = %2").arg(fromStd(key), fromStd(value));
  }
  return params.join(QStringLiteral("\n"));
}

QLabel* selectableLabel(QWidget* parent) {
  auto* l = new QLabel(parent);
  l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  l->setWordWrap(true);
  return l;
}

}  // namespace

PropertiesPanel::PropertiesPanel(Document* document, QWidget* parent)
    : QWidget(parent), document_(document) {
  auto* layout = new QVBoxLayout(this);
  pages_ = new QStackedWidget(this);
  layout->addWidget(pages_);

  hint_ = new QLabel(tr("Select a node or a group in the editor to see and edit its properties."),
                     this);
  hint_->setWordWrap(true);
  hint_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  hint_->setStyleSheet(QStringLiteral("color: gray;"));
  pages_->addWidget(hint_);
  many_ = new QLabel(this);
  many_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  pages_->addWidget(many_);
  buildNodePage();
  buildGroupPage();
  pages_->setCurrentWidget(hint_);

  connect(document_, &Document::nodesChanged, this,
          [this](const std::vector<NodeId>&) { refresh(); });
  connect(document_, &Document::edgesChanged, this, &PropertiesPanel::refresh);
  connect(document_, &Document::problemsChanged, this, &PropertiesPanel::refresh);
  connect(document_, &Document::structureChanged, this, &PropertiesPanel::refresh);
  connect(document_, &Document::documentReplaced, this, [this] { showSelection({}); });
  connect(document_, &Document::changed, this, [this] {
    // A deleted node leaves the panel (ids are never re-used, so nothing else is shown).
    if (!selectionExists()) {
      showSelection({});
      Q_EMIT selectionCleared();
      return;
    }
    // Any change of the document (an edit elsewhere, an undo) outdates a refusal shown here.
    showError({});
    for (const auto& [field, editor] : editors_) editor->clearError();
  });
}

void PropertiesPanel::buildNodePage() {
  nodePage_ = new QWidget(this);
  auto* layout = new QVBoxLayout(nodePage_);
  layout->setContentsMargins(0, 0, 0, 0);
  title_ = new QLabel(nodePage_);
  title_->setObjectName(QStringLiteral("nodeTitle"));
  QFont bold = title_->font();
  bold.setBold(true);
  bold.setPointSizeF(bold.pointSizeF() * 1.15);
  title_->setFont(bold);
  layout->addWidget(title_);

  auto* form = new QFormLayout;
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  name_ = new QLineEdit(nodePage_);
  name_->setPlaceholderText(tr("unnamed"));
  form->addRow(tr("Name"), name_);

  widthLabel_ = new QLabel(tr("Width"), nodePage_);
  width_ = new QSpinBox(nodePage_);
  width_->setObjectName(QStringLiteral("nodeWidth"));
  width_->setRange(1, kMaxNodeDim);
  width_->setKeyboardTracking(false);
  form->addRow(widthLabel_, width_);

  sliceLabel_ = new QLabel(tr("Rows"), nodePage_);
  sliceRow_ = new QWidget(nodePage_);
  auto* sliceLayout = new QHBoxLayout(sliceRow_);
  sliceLayout->setContentsMargins(0, 0, 0, 0);
  sliceStart_ = new QSpinBox(sliceRow_);
  sliceStart_->setObjectName(QStringLiteral("sliceStart"));
  sliceEnd_ = new QSpinBox(sliceRow_);
  sliceEnd_->setObjectName(QStringLiteral("sliceEnd"));
  for (QSpinBox* s : {sliceStart_, sliceEnd_}) {
    s->setRange(0, kMaxNodeDim);
    s->setKeyboardTracking(false);
  }
  sliceLayout->addWidget(new QLabel(tr("from"), sliceRow_));
  sliceLayout->addWidget(sliceStart_);
  sliceLayout->addWidget(new QLabel(tr("to (excl.)"), sliceRow_));
  sliceLayout->addWidget(sliceEnd_);
  form->addRow(sliceLabel_, sliceRow_);

  inputs_ = new QWidget(nodePage_);
  inputsLayout_ = new QVBoxLayout(inputs_);
  inputsLayout_->setContentsMargins(0, 0, 0, 0);
  inputsLayout_->setSpacing(2);
  form->addRow(tr("Inputs"), inputs_);

  positive_ = new QCheckBox(tr("Always positive"), nodePage_);
  positive_->setObjectName(QStringLiteral("alwaysPositive"));
  positive_->setToolTip(tr("Every entry of this node's value is provably >= 0"));
  form->addRow(QString(), positive_);
  group_ = selectableLabel(nodePage_);
  form->addRow(tr("Group"), group_);
  setOutput_ = new QPushButton(tr("Set as output"), nodePage_);
  form->addRow(QString(), setOutput_);
  layout->addLayout(form);

  problems_ = selectableLabel(nodePage_);
  problems_->setObjectName(QStringLiteral("nodeProblems"));
  problems_->setStyleSheet(QStringLiteral("color: #c0392b;"));
  layout->addWidget(problems_);
  error_ = selectableLabel(nodePage_);
  error_->setStyleSheet(QStringLiteral("color: #c0392b; font-style: italic;"));
  error_->hide();
  layout->addWidget(error_);

  tabs_ = new QTabWidget(nodePage_);
  layout->addWidget(tabs_, 1);
  // Takes the room of the tabs for ops without matrices, so the form stays at the top.
  filler_ = new QWidget(nodePage_);
  filler_->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Expanding);
  layout->addWidget(filler_, 1);
  pages_->addWidget(nodePage_);

  connect(name_, &QLineEdit::editingFinished, this, [this] {
    if (selection_.size() != 1 || selection_[0].kind != ItemRef::Kind::Node) return;
    if (!selectionExists()) return;
    const NodeId id = selection_[0].id;
    const std::string name = name_->text().trimmed().toStdString();
    if (document_->graph().node(id).name != name) edit([&] { document_->rename(id, name); });
  });
  connect(width_, &QSpinBox::valueChanged, this, [this](int dim) {
    const NodeId id = selection_.value(0).id;
    edit([&] { document_->setInputWidth(id, dim); });
  });
  auto sliceEdited = [this] {
    const NodeId id = selection_.value(0).id;
    edit([&] { document_->setSliceRange(id, sliceStart_->value(), sliceEnd_->value()); });
  };
  connect(sliceStart_, &QSpinBox::valueChanged, this, sliceEdited);
  connect(sliceEnd_, &QSpinBox::valueChanged, this, sliceEdited);
  connect(positive_, &QCheckBox::toggled, this, [this](bool on) {
    const NodeId id = selection_.value(0).id;
    edit([&] { document_->setAlwaysPositive(id, on); });
  });
  connect(setOutput_, &QPushButton::clicked, this, [this] {
    const NodeId id = selection_.value(0).id;
    edit([&] { document_->setOutput(id); });
  });
}

void PropertiesPanel::buildGroupPage() {
  groupPage_ = new QWidget(this);
  auto* layout = new QVBoxLayout(groupPage_);
  layout->setContentsMargins(0, 0, 0, 0);
  groupTitle_ = new QLabel(groupPage_);
  QFont bold = groupTitle_->font();
  bold.setBold(true);
  bold.setPointSizeF(bold.pointSizeF() * 1.15);
  groupTitle_->setFont(bold);
  layout->addWidget(groupTitle_);
  auto* form = new QFormLayout;
  groupParams_ = selectableLabel(groupPage_);
  form->addRow(tr("Parameters"), groupParams_);
  groupMembers_ = new QLabel(groupPage_);
  form->addRow(tr("Members"), groupMembers_);
  groupOutput_ = selectableLabel(groupPage_);
  form->addRow(tr("Output"), groupOutput_);
  layout->addLayout(form);
  // The call's constants, editable: the call is made again with the value typed.
  groupConstants_ = new QWidget(groupPage_);
  new QFormLayout(groupConstants_);
  groupConstants_->layout()->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(groupConstants_);
  groupError_ = selectableLabel(groupPage_);
  groupError_->setStyleSheet(QStringLiteral("color: #c0392b; font-style: italic;"));
  groupError_->hide();
  layout->addWidget(groupError_);
  auto* buttons = new QHBoxLayout;
  expand_ = new QPushButton(groupPage_);
  buttons->addWidget(expand_);
  // A sugar call's value is its output node's: the group can be the program's output.
  groupSetOutput_ = new QPushButton(tr("Set as output"), groupPage_);
  buttons->addWidget(groupSetOutput_);
  buttons->addStretch(1);
  layout->addLayout(buttons);
  layout->addStretch(1);
  pages_->addWidget(groupPage_);
  connect(groupSetOutput_, &QPushButton::clicked, this, [this] {
    if (selection_.size() != 1 || selection_[0].kind != ItemRef::Kind::Group) return;
    const NodeId out = document_->graph().groups()[static_cast<size_t>(selection_[0].id)].output;
    edit([&] { document_->setOutput(out); });
  });
  connect(expand_, &QPushButton::clicked, this, [this] {
    if (selection_.size() != 1 || selection_[0].kind != ItemRef::Kind::Group) return;
    const GroupId id = selection_[0].id;
    const bool expanded = document_->graph().groups()[static_cast<size_t>(id)].expanded;
    edit([&] { document_->setGroupExpanded(id, !expanded); });
  });
}

template <typename Edit>
void PropertiesPanel::edit(Edit&& f) {
  try {
    f();
    showError({});
  } catch (const Error& e) {
    showError(QString::fromUtf8(e.what()));
    refresh();  // put the controls back to the document's values
  }
}

void PropertiesPanel::showError(const QString& message) {
  for (QLabel* label : {error_, groupError_}) {
    label->setText(message);
    label->setVisible(!message.isEmpty());
  }
}

QString PropertiesPanel::errorText() const { return error_->text(); }

QString PropertiesPanel::problemsText() const { return problems_->text(); }

MatrixEditor* PropertiesPanel::matrixEditor(Field field) const {
  if (pages_->currentWidget() != nodePage_) return nullptr;
  for (const auto& [f, editor] : editors_) {
    if (f == field) return editor;
  }
  return nullptr;
}

bool PropertiesPanel::selectionExists() const {
  for (const ItemRef& item : selection_)
    if (!document_->contains(item)) return false;
  return true;
}

void PropertiesPanel::showSelection(const QList<ItemRef>& items) {
  selection_ = items;
  // A refusal concerns the edit just tried: choosing again starts clean.
  showError({});
  for (const auto& [field, editor] : editors_) editor->clearError();
  if (!selectionExists()) selection_.clear();
  refresh();
}

void PropertiesPanel::refresh() {
  if (!selectionExists()) selection_.clear();
  if (selection_.isEmpty()) {
    pages_->setCurrentWidget(hint_);
  } else if (selection_.size() > 1) {
    many_->setText(tr("%1 items selected.\nSelect one node or group to see its properties.")
                       .arg(selection_.size()));
    pages_->setCurrentWidget(many_);
  } else if (selection_[0].kind == ItemRef::Kind::Node) {
    refreshNode(selection_[0].id);
    pages_->setCurrentWidget(nodePage_);
  } else {
    refreshGroup(selection_[0].id);
    pages_->setCurrentWidget(groupPage_);
  }
}

void PropertiesPanel::refreshNode(NodeId id) {
  const Graph& g = document_->graph();
  const Node& n = g.node(id);
  QString title = QStringLiteral("%1 #%2").arg(fromStd(n.countedOpName())).arg(id);
  title += QStringLiteral("  ·  width %1").arg(n.dim);
  if (g.output() == id) title += tr("  ·  output");
  title_->setText(title);
  if (!name_->hasFocus()) name_->setText(QString::fromStdString(n.name));

  const bool input = n.op == Op::Input;
  widthLabel_->setVisible(input);
  width_->setVisible(input);
  sliceLabel_->setVisible(n.isSlice());
  sliceRow_->setVisible(n.isSlice());
  {
    const QSignalBlocker b1(width_), b2(sliceStart_), b3(sliceEnd_), b4(positive_);
    width_->setValue(n.dim);
    if (n.slice) {
      sliceStart_->setValue(n.slice->start);
      sliceEnd_->setValue(n.slice->end);
    }
    positive_->setChecked(n.alwaysPositive);
  }
  rebuildInputs(n);

  if (!g.containsGroup(n.group)) {
    group_->setText(tr("none"));
  } else {
    const Group& gr = g.groups()[static_cast<size_t>(n.group)];
    QStringList params;
    for (const auto& [key, value] : gr.params) {
      params << QStringLiteral("%1=%2").arg(fromStd(key), fromStd(value));
    }
    QString text = QStringLiteral("%1(%2)").arg(fromStd(gr.function), params.join(", "));
    // The enclosing calls, innermost first (an f_step inside f_larger).
    for (GroupId p = gr.parent; p >= 0 && static_cast<size_t>(p) < g.groups().size();
         p = g.groups()[static_cast<size_t>(p)].parent) {
      text += tr(" in %1").arg(fromStd(g.groups()[static_cast<size_t>(p)].function));
    }
    group_->setText(text);
  }
  setOutput_->setEnabled(g.output() != id);
  setOutput_->setText(g.output() == id ? tr("This is the output") : tr("Set as output"));

  QStringList problems;
  for (const Problem& p : document_->problemsOf(id)) problems << QString::fromStdString(p.message);
  problems_->setText(problems.join(QStringLiteral("\n")));
  problems_->setVisible(!problems.isEmpty());

  rebuildMatrixTabs(n);
}

void PropertiesPanel::rebuildInputs(const Node& node) {
  const Graph& g = document_->graph();
  // Rebuilt only when what it shows changed: refresh runs several times per edit.
  QString signature = QString::number(node.id);
  for (NodeId from : node.inputs) {
    signature += QLatin1Char('|') + nodeLabel(g, from);
    if (g.contains(from)) {
      signature += QLatin1Char(':') + QString::number(g.node(from).dim);
    }
  }
  if (signature == inputsSignature_) return;
  inputsSignature_ = signature;
  while (QLayoutItem* item = inputsLayout_->takeAt(0)) {
    if (QWidget* w = item->widget()) {
      w->hide();  // deleted later (it may be the button being clicked), unseen until then
      w->deleteLater();
    }
    delete item;
  }
  if (node.inputs.empty()) {
    auto* none = new QLabel(node.op == Op::Input ? tr("none (the program's input)")
                                                 : tr("none: connect a node in the editor"),
                            inputs_);
    none->setStyleSheet(QStringLiteral("color: gray;"));
    inputsLayout_->addWidget(none);
    return;
  }
  for (size_t slot = 0; slot < node.inputs.size(); ++slot) {
    const NodeId from = node.inputs[slot];
    auto* row = new QWidget(inputs_);
    auto* rowLayout = new QHBoxLayout(row);
    rowLayout->setContentsMargins(0, 0, 0, 0);
    QString text;
    if (from == kNoNode) {
      text = tr("%1: not connected").arg(slot);
    } else {
      text = QStringLiteral("%1: %2").arg(slot).arg(nodeLabel(g, from));
      if (g.contains(from)) {
        text += tr(" (width %1)").arg(g.node(from).dim);
      }
    }
    auto* label = new QLabel(text, row);
    if (from == kNoNode) label->setStyleSheet(QStringLiteral("color: #c0392b;"));
    rowLayout->addWidget(label, 1);
    if (from != kNoNode) {
      auto* button = new QPushButton(tr("Disconnect"), row);
      button->setToolTip(tr("Disconnect input %1").arg(slot));
      const NodeId to = node.id;
      const int s = static_cast<int>(slot);
      connect(button, &QPushButton::clicked, this,
              [this, to, s] { edit([&] { document_->disconnect(to, s); }); });
      rowLayout->addWidget(button);
    }
    inputsLayout_->addWidget(row);
  }
}

void PropertiesPanel::rebuildMatrixTabs(const Node& node) {
  // Editors follow the document by themselves; they are rebuilt only when another node
  // (or another op after an undo) is shown, so that edits keep the table's scroll state.
  if (tabsNode_ == node.id && tabsOp_ == node.op) return;
  const int current = tabs_->currentIndex();
  const bool sameNode = tabsNode_ == node.id;
  tabs_->clear();
  for (auto& [field, editor] : editors_) editor->deleteLater();
  editors_.clear();
  tabsNode_ = node.id;
  tabsOp_ = node.op;
  for (Field field : fieldsOf(node)) {
    auto* editor = new MatrixEditor(document_, tabs_);
    editor->setTarget(node.id, field);
    tabs_->addTab(editor, fromStd(fieldName(field)));
    editors_.emplace_back(field, editor);
  }
  if (sameNode && current >= 0 && current < tabs_->count()) tabs_->setCurrentIndex(current);
  tabs_->setVisible(!editors_.empty());
  filler_->setVisible(editors_.empty());
}

void PropertiesPanel::refreshGroup(GroupId id) {
  const Graph& g = document_->graph();
  const Group& gr = g.groups()[static_cast<size_t>(id)];
  groupTitle_->setText(tr("%1  ·  group #%2  ·  %3")
                           .arg(fromStd(gr.function))
                           .arg(id)
                           .arg(gr.expanded ? tr("expanded") : tr("collapsed")));
  groupParams_->setText(gr.params.empty() ? tr("none") : groupSignature(g, id));
  groupMembers_->setText(gr.nodes.size() == 1 ? tr("1 node") : tr("%1 nodes").arg(gr.nodes.size()));
  groupOutput_->setText(gr.output == kNoNode ? tr("none") : nodeLabel(g, gr.output));
  expand_->setText(gr.expanded ? tr("Collapse") : tr("Expand"));
  const bool isOutput = gr.output != kNoNode && g.output() == gr.output;
  groupSetOutput_->setEnabled(g.contains(gr.output) && !isOutput);
  groupSetOutput_->setText(isOutput ? tr("This is the output") : tr("Set as output"));
  refreshConstants(id);
}

void PropertiesPanel::refreshConstants(GroupId id) {
  const Group& gr = document_->graph().groups()[static_cast<size_t>(id)];
  std::vector<std::string> keys;
  for (const auto& [key, value] : gr.params)
    if (document_->isEditableParameter(id, key)) keys.push_back(key);
  std::vector<std::string> shown;
  for (const auto& [key, field] : constantFields_) shown.push_back(key);
  auto* form = static_cast<QFormLayout*>(groupConstants_->layout());
  if (id != constantsGroup_ || keys != shown) {
    // Another call: new fields. (The same call keeps its fields, and the focus in them.)
    while (form->rowCount() > 0) form->removeRow(0);
    constantFields_.clear();
    constantsGroup_ = id;
    for (const std::string& key : keys) {
      auto* field = new QLineEdit(groupConstants_);
      field->setObjectName(QStringLiteral("group_param_") + fromStd(key));
      field->setToolTip(
          tr("Type a value (exact grammar: 1/1000, 1e10) and press Enter: the "
             "call is made again with it"));
      form->addRow(fromStd(key), field);
      constantFields_.emplace_back(key, field);
      connect(field, &QLineEdit::editingFinished, this, [this, key, field] {
        const GroupId group = constantsGroup_;
        if (!document_->graph().containsGroup(group)) return;
        const std::string text = field->text().trimmed().toStdString();
        const std::string* now =
            findParam(document_->graph().groups()[static_cast<size_t>(group)].params, key);
        if (now == nullptr || *now == text) return;
        edit([&] { document_->setGroupParameter(group, key, text); });
      });
    }
  }
  for (const auto& [key, field] : constantFields_) {
    if (field->hasFocus() && field->isModified()) continue;  // being typed into
    const std::string* value = findParam(gr.params, key);
    field->setText(value ? fromStd(*value) : QString());
    field->setModified(false);
  }
  groupConstants_->setVisible(!constantFields_.empty());
}

PropertiesPanel::~PropertiesPanel() {
  // Destroying the child widgets may emit (a focused line edit's editingFinished) after
  // this object's members are gone: cut those connections first.
  for (QObject* child : findChildren<QObject*>())
    QObject::disconnect(child, nullptr, this, nullptr);
}

}  // namespace lsrl::studio
