// SPDX-License-Identifier: MIT
#include "ui/debugger/debugger_panels.h"

#include "ui/common/full_text_delegate.h"

#include "engine/exec/value_condition.h"
#include "ui/common/tensor_format.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QCompleter>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <set>
#include <vector>

namespace onnxscope {

namespace {

QTableView* makeTable(QWidget* parent)
{
    auto* view = new QTableView(parent);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(20);
    view->horizontalHeader()->setHighlightSections(false);
    view->setWordWrap(false);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    FullTextDelegate::install(view);
    return view;
}

} // namespace

ValuesFilterModel::ValuesFilterModel(QObject* parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(ValuesModel::SortRole);
}

void ValuesFilterModel::setText(const QString& text)
{
    m_text = text.trimmed();
    invalidateFilter();
}

void ValuesFilterModel::setFrame(quint64 frameId)
{
    m_frame = frameId;
    invalidateFilter();
}

bool ValuesFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
    if (m_frame != 0 && index.data(ValuesModel::FrameIdRole).toULongLong() != m_frame)
        return false;
    if (m_text.isEmpty())
        return true;
    const QString haystack = index.data(ValuesModel::FilterRole).toString();
    for (const QString& word : m_text.split(QLatin1Char(' '), Qt::SkipEmptyParts))
        if (!haystack.contains(word, Qt::CaseInsensitive))
            return false;
    return true;
}

ValuesPanel::ValuesPanel(QWidget* parent)
    : QWidget(parent)
    , m_model(new ValuesModel(this))
    , m_proxy(new ValuesFilterModel(this))
    , m_view(makeTable(this))
    , m_filter(new QLineEdit(this))
    , m_frameOnly(new QCheckBox(QStringLiteral("Selected frame only"), this))
    , m_retention(new QComboBox(this))
    , m_keep(new QSpinBox(this))
    , m_summary(new QLabel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    auto* bar = new QHBoxLayout;
    m_filter->setPlaceholderText(QStringLiteral("Filter by name, node or op type"));
    m_filter->setClearButtonEnabled(true);
    bar->addWidget(m_filter, 1);
    bar->addWidget(m_frameOnly);
    bar->addWidget(new QLabel(QStringLiteral("Loop iterations kept:"), this));
    m_retention->addItems({ QStringLiteral("all"), QStringLiteral("last N"), QStringLiteral("none") });
    m_retention->setToolTip(QStringLiteral("Values of finished Loop/Scan iterations to keep in the next run"));
    bar->addWidget(m_retention);
    m_keep->setRange(1, 1'000'000);
    m_keep->setValue(10);
    m_keep->setPrefix(QStringLiteral("N = "));
    m_keep->setEnabled(false);
    bar->addWidget(m_keep);
    layout->addLayout(bar);
    m_proxy->setSourceModel(m_model);
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(-1, Qt::AscendingOrder);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_view->setColumnWidth(ValuesModel::NameColumn, 150);
    m_view->setColumnWidth(ValuesModel::ProducerColumn, 150);
    m_view->setColumnWidth(ValuesModel::FrameColumn, 70);
    // Statistics and errors print with 6 significant digits, at most as wide as "-8.88888e-08", plus the cell's
    // padding.
    const int numberWidth = m_view->fontMetrics().horizontalAdvance(QStringLiteral("-8.88888e-08")) + 16;
    for (int c = ValuesModel::IterationColumn; c < ValuesModel::ColumnCount; ++c) {
        int width = numberWidth;
        if (c == ValuesModel::ShapeColumn)
            width = 110;
        else if (c == ValuesModel::IterationColumn || c == ValuesModel::NanColumn || c == ValuesModel::InfColumn)
            width = 44;
        else if (c == ValuesModel::TypeColumn)
            width = 76;
        else if (c == ValuesModel::CompareStatusColumn)
            width = m_view->fontMetrics().horizontalAdvance(QStringLiteral("shape mismatch")) + 16;
        m_view->setColumnWidth(c, width);
    }
    layout->addWidget(m_view, 1);
    m_summary->setStyleSheet(QStringLiteral("color:#4b5563"));
    layout->addWidget(m_summary);

    connect(m_filter, &QLineEdit::textChanged, m_proxy, &ValuesFilterModel::setText);
    connect(m_frameOnly, &QCheckBox::toggled, this, [this](bool on) {
        if (!on)
            m_proxy->setFrame(0);
    });
    connect(m_retention, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_keep->setEnabled(i == 1);
        emit retentionChanged();
    });
    connect(m_keep, &QSpinBox::valueChanged, this, &ValuesPanel::retentionChanged);
    connect(
        m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
            if (!m_selecting && current.isValid())
                emit valueChosen(current.data(ValuesModel::ValueIndexRole).toInt());
        });
    connect(m_view, &QTableView::activated, this,
        [this](const QModelIndex& index) { emit valueActivated(index.data(ValuesModel::ValueIndexRole).toInt()); });
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_view, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        const QModelIndex index = m_view->indexAt(pos);
        if (!index.isValid() || m_rowActions.isEmpty())
            return;
        m_view->setCurrentIndex(index);
        QMenu menu(this);
        menu.addActions(m_rowActions);
        menu.exec(m_view->viewport()->mapToGlobal(pos));
    });
}

int ValuesPanel::heightMissingForRows(int rows) const
{
    return rows * m_view->verticalHeader()->defaultSectionSize() - m_view->viewport()->height();
}

void ValuesPanel::addStandardRowActions()
{
    const auto at = [this](int index) -> const RecordedValue* {
        const DebugSnapshotPtr& s = m_model->snapshot();
        if (!s || index < 0 || static_cast<size_t>(index) >= s->values.size())
            return nullptr;
        return &s->values[static_cast<size_t>(index)].record;
    };
    const auto current = [this, at] { return at(currentValueIndex()); };
    auto* goToProducer = new QAction(QStringLiteral("Go to Producer in Graph"), this);
    connect(goToProducer, &QAction::triggered, this, [this] { emit valueActivated(currentValueIndex()); });
    auto* exportValue = new QAction(QStringLiteral("Export Value\u2026"), this);
    connect(exportValue, &QAction::triggered, this, [this] { emit exportRequested(currentValueIndex()); });
    auto* copyValueName = new QAction(QStringLiteral("Copy Name"), this);
    connect(copyValueName, &QAction::triggered, this, [current] {
        if (const RecordedValue* r = current())
            QApplication::clipboard()->setText(QString::fromStdString(r->name));
    });
    auto* breakOnValue = new QAction(QStringLiteral("Break When This Value\u2026"), this);
    connect(breakOnValue, &QAction::triggered, this, [this, current] {
        const RecordedValue* r = current();
        if (!r || !r->graph || r->producer < 0)
            return;
        const Node& producer = r->graph->node(r->producer);
        int output = -1;
        for (size_t i = 0; i < producer.outputs.size(); ++i)
            if (producer.outputs[i] != kNoValue && r->graph->value(producer.outputs[i]).name == r->name)
                output = static_cast<int>(i);
        emit breakWhenRequested(QString::fromStdString(producer.displayName()), output);
    });
    m_rowActions << goToProducer << exportValue << copyValueName << breakOnValue;
    connect(this, &ValuesPanel::valueChosen, this, [at, goToProducer, breakOnValue](int index) {
        const RecordedValue* r = at(index);
        goToProducer->setEnabled(r && r->graph);
        breakOnValue->setEnabled(r && r->graph && r->producer >= 0); // not for the model's inputs
    });
}

int ValuesPanel::currentValueIndex() const
{
    const QModelIndex current = m_view->currentIndex();
    return current.isValid() ? current.data(ValuesModel::ValueIndexRole).toInt() : -1;
}

void ValuesPanel::setSnapshot(const DebugSnapshotPtr& snapshot)
{
    m_model->setSnapshot(snapshot);
    if (!snapshot) {
        m_summary->setText(QStringLiteral("No run yet: press F5 to run, F10 to step."));
        return;
    }
    QString text = QStringLiteral("%1 values \u00b7 %2 kept")
                       .arg(snapshot->values.size())
                       .arg(formatBytes(snapshot->recordedBytes + snapshot->checkpointBytes));
    size_t summarised = 0;
    for (const auto& v : snapshot->values)
        summarised += v.record.dropped;
    if (summarised > 0)
        text += QStringLiteral(" \u00b7 %1 as summaries (opening one rebuilds it)").arg(summarised);
    if (snapshot->forgottenValues > 0)
        text += QStringLiteral(" \u00b7 %1 forgotten to stay under the memory budget").arg(snapshot->forgottenValues);
    if (snapshot->summarising)
        text = QStringLiteral("%1 values known so far \u00b7 summarising the values of this stop\u2026")
                   .arg(snapshot->values.size());
    m_summary->setText(text);
}

void ValuesPanel::setFrameFilter(quint64 frameId, const QString& label)
{
    m_frameOnly->setText(frameId ? QStringLiteral("Frame: %1").arg(label) : QStringLiteral("Selected frame only"));
    m_frameOnly->setChecked(frameId != 0);
    m_proxy->setFrame(frameId);
}

void ValuesPanel::selectValue(int valueIndex)
{
    const QModelIndex source = m_model->index(valueIndex, 0);
    const QModelIndex index = m_proxy->mapFromSource(source);
    if (!index.isValid())
        return;
    m_selecting = true;
    m_view->setCurrentIndex(index);
    m_view->scrollTo(index);
    m_selecting = false;
}

CallStackPanel::CallStackPanel(QWidget* parent)
    : QWidget(parent)
    , m_model(new CallStackModel(this))
    , m_view(makeTable(this))
    , m_path(new QLabel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    m_path->setWordWrap(true);
    m_path->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_path);
    m_view->setModel(m_model);
    // The position ("before Mul_0", "in Loop_2 (Loop)") is short and always shown whole; the frame's label takes the
    // rest of the dock (it was 220 px wide, which left the position a few letters in the default 290 px dock).
    m_view->setColumnWidth(CallStackModel::LevelColumn, 28);
    m_view->horizontalHeader()->setSectionResizeMode(CallStackModel::FrameColumn, QHeaderView::Stretch);
    m_view->horizontalHeader()->setSectionResizeMode(CallStackModel::PositionColumn, QHeaderView::ResizeToContents);
    layout->addWidget(m_view, 1);
    connect(
        m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
            if (const FrameSnapshot* f = m_model->frameAt(current.row()))
                emit frameSelected(*f, current.row() == 0);
        });
    setSnapshot(nullptr);
}

void CallStackPanel::setSnapshot(const DebugSnapshotPtr& snapshot)
{
    m_model->setSnapshot(snapshot);
    const QString path = m_model->pathText();
    m_path->setText(path.isEmpty() ? QStringLiteral("<span style='color:#6b7280'>Not paused.</span>") : path);
}

QString CallStackPanel::pathText() const
{
    return m_model->pathText();
}

BreakpointDialog::BreakpointDialog(const QStringList& nodeNames, const QStringList& opTypes, QWidget* parent)
    : QDialog(parent)
    , m_kind(new QComboBox(this))
    , m_pattern(new QLineEdit(this))
    , m_iteration(new QSpinBox(this))
    , m_condition(new QLineEdit(this))
    , m_output(new QSpinBox(this))
    , m_error(new QLabel(this))
    , m_nodeNames(nodeNames)
    , m_opTypes(opTypes)
{
    setWindowTitle(QStringLiteral("Breakpoint"));
    auto* form = new QFormLayout(this);
    m_kind->addItem(QStringLiteral("Before a node"), static_cast<int>(BreakpointSpec::Kind::Node));
    m_kind->addItem(QStringLiteral("Before any node of an op type"), static_cast<int>(BreakpointSpec::Kind::OpType));
    m_kind->addItem(QStringLiteral("After the first NaN/Inf"), static_cast<int>(BreakpointSpec::Kind::NonFinite));
    m_kind->addItem(QStringLiteral("After DEBUG nodes"), static_cast<int>(BreakpointSpec::Kind::DebugNodes));
    m_kind->addItem(
        QStringLiteral("When an output satisfies a condition"), static_cast<int>(BreakpointSpec::Kind::Condition));
    form->addRow(QStringLiteral("Break"), m_kind);
    form->addRow(QStringLiteral("Node / op type"), m_pattern);
    m_iteration->setRange(-1, 1'000'000'000);
    m_iteration->setSpecialValueText(QStringLiteral("every iteration"));
    m_iteration->setValue(-1);
    form->addRow(QStringLiteral("Loop iteration"), m_iteration);
    m_condition->setPlaceholderText(
        QStringLiteral("any |x| > 1e4   \u00b7   all x >= 0   \u00b7   max > 100   \u00b7   nan"));
    form->addRow(QStringLiteral("Condition"), m_condition);
    m_output->setRange(-1, 1000);
    m_output->setSpecialValueText(QStringLiteral("any output"));
    m_output->setValue(-1);
    form->addRow(QStringLiteral("Output"), m_output);
    m_error->setStyleSheet(QStringLiteral("color:#c62828"));
    m_error->setWordWrap(true);
    form->addRow(m_error);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_ok = buttons->button(QDialogButtonBox::Ok);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_kind, &QComboBox::currentIndexChanged, this, &BreakpointDialog::updateFields);
    connect(m_pattern, &QLineEdit::textChanged, this, &BreakpointDialog::validate);
    connect(m_condition, &QLineEdit::textChanged, this, &BreakpointDialog::validate);
    updateFields();
}

void BreakpointDialog::updateFields()
{
    const auto kind = static_cast<BreakpointSpec::Kind>(m_kind->currentData().toInt());
    const bool named = kind == BreakpointSpec::Kind::Node || kind == BreakpointSpec::Kind::OpType
        || kind == BreakpointSpec::Kind::Condition;
    m_pattern->setEnabled(named);
    m_pattern->setPlaceholderText(
        kind == BreakpointSpec::Kind::Condition ? QStringLiteral("node name (empty: any node)") : QString());
    auto* completer = new QCompleter(kind == BreakpointSpec::Kind::OpType ? m_opTypes : m_nodeNames, m_pattern);
    completer->setCaseSensitivity(Qt::CaseInsensitive);
    completer->setFilterMode(Qt::MatchContains);
    m_pattern->setCompleter(completer);
    m_iteration->setEnabled(named);
    m_condition->setEnabled(kind == BreakpointSpec::Kind::Condition);
    m_output->setEnabled(kind == BreakpointSpec::Kind::Condition);
    validate();
}

void BreakpointDialog::validate()
{
    const auto kind = static_cast<BreakpointSpec::Kind>(m_kind->currentData().toInt());
    QString error;
    if ((kind == BreakpointSpec::Kind::Node || kind == BreakpointSpec::Kind::OpType)
        && m_pattern->text().trimmed().isEmpty())
        error = QStringLiteral("Name the node or op type.");
    if (kind == BreakpointSpec::Kind::Condition) {
        try {
            ValueCondition::parse(m_condition->text().toStdString());
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
    }
    m_error->setText(error);
    if (m_ok)
        m_ok->setEnabled(error.isEmpty());
}

void BreakpointDialog::setSpec(const BreakpointSpec& spec)
{
    m_kind->setCurrentIndex(m_kind->findData(static_cast<int>(spec.kind)));
    m_pattern->setText(spec.pattern);
    m_iteration->setValue(static_cast<int>(spec.iteration));
    m_condition->setText(spec.condition);
    m_output->setValue(spec.outputIndex);
    validate();
}

BreakpointSpec BreakpointDialog::spec() const
{
    BreakpointSpec s;
    s.kind = static_cast<BreakpointSpec::Kind>(m_kind->currentData().toInt());
    if (m_pattern->isEnabled())
        s.pattern = m_pattern->text().trimmed();
    if (m_iteration->isEnabled())
        s.iteration = m_iteration->value();
    if (s.kind == BreakpointSpec::Kind::Condition) {
        s.condition = m_condition->text().trimmed();
        s.outputIndex = m_output->value();
    }
    return s;
}

BreakpointsPanel::BreakpointsPanel(BreakpointModel* model, QWidget* parent)
    : QWidget(parent)
    , m_model(model)
    , m_view(makeTable(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    auto* bar = new QHBoxLayout;
    auto* add = new QToolButton(this);
    add->setText(QStringLiteral("Add"));
    add->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(add);
    menu->addAction(QStringLiteral("Node\u2026"), this, [this] { showAddDialog(BreakpointSpec::Kind::Node); });
    menu->addAction(QStringLiteral("Op type\u2026"), this, [this] { showAddDialog(BreakpointSpec::Kind::OpType); });
    menu->addAction(QStringLiteral("First NaN/Inf"), this, [this] { m_model->setBreakOnNonFinite(true); });
    menu->addAction(QStringLiteral("DEBUG nodes"), this, [this] {
        BreakpointSpec s;
        s.kind = BreakpointSpec::Kind::DebugNodes;
        m_model->add(s);
    });
    menu->addAction(
        QStringLiteral("Value condition\u2026"), this, [this] { showAddDialog(BreakpointSpec::Kind::Condition); });
    add->setMenu(menu);
    bar->addWidget(add);
    auto* remove = new QPushButton(QStringLiteral("Delete"), this);
    connect(remove, &QPushButton::clicked, this, &BreakpointsPanel::removeSelected);
    bar->addWidget(remove);
    auto* enableAll = new QPushButton(QStringLiteral("Enable all"), this);
    connect(enableAll, &QPushButton::clicked, this, [this] {
        for (const auto& b : m_model->breakpoints())
            m_model->setEnabled(b.id, true);
    });
    bar->addWidget(enableAll);
    auto* disableAll = new QPushButton(QStringLiteral("Disable all"), this);
    connect(disableAll, &QPushButton::clicked, this, [this] {
        for (const auto& b : m_model->breakpoints())
            m_model->setEnabled(b.id, false);
    });
    bar->addWidget(disableAll);
    bar->addStretch(1);
    layout->addLayout(bar);
    m_view->setModel(m_model);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setColumnWidth(BreakpointModel::KindColumn, 110);
    m_view->setColumnWidth(BreakpointModel::WhereColumn, 180);
    m_view->setColumnWidth(BreakpointModel::IterationColumn, 70);
    m_view->setColumnWidth(BreakpointModel::ConditionColumn, 140);
    layout->addWidget(m_view, 1);
    connect(m_view, &QTableView::activated, this, [this](const QModelIndex& index) {
        if (const BreakpointSpec* b = m_model->find(index.data(BreakpointModel::IdRole).toInt()))
            if (b->kind == BreakpointSpec::Kind::Node
                || (b->kind == BreakpointSpec::Kind::Condition && !b->pattern.isEmpty()))
                emit goToNode(b->pattern);
    });
    auto* del = new QAction(this);
    del->setShortcut(QKeySequence::Delete);
    del->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(del, &QAction::triggered, this, &BreakpointsPanel::removeSelected);
    addAction(del);
}

void BreakpointsPanel::setNames(const QStringList& nodeNames, const QStringList& opTypes)
{
    m_nodeNames = nodeNames;
    m_opTypes = opTypes;
}

void BreakpointsPanel::showAddDialog(BreakpointSpec::Kind kind, const QString& pattern, int outputIndex)
{
    BreakpointDialog dialog(m_nodeNames, m_opTypes, this);
    BreakpointSpec s;
    s.kind = kind;
    s.pattern = pattern;
    s.outputIndex = outputIndex;
    if (kind == BreakpointSpec::Kind::Condition)
        s.condition = QStringLiteral("any |x| > 1e4");
    dialog.setSpec(s);
    if (dialog.exec() == QDialog::Accepted)
        m_model->add(dialog.spec());
}

void BreakpointsPanel::removeSelected()
{
    const QModelIndex current = m_view->currentIndex();
    if (current.isValid())
        m_model->remove(current.data(BreakpointModel::IdRole).toInt());
}

ProfilePanel::ProfilePanel(QWidget* parent)
    : QWidget(parent)
    , m_model(new ProfileModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_view(makeTable(this))
    , m_mode(new QComboBox(this))
    , m_colour(new QCheckBox(QStringLiteral("Colour graph by time"), this))
    , m_total(new QLabel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    auto* bar = new QHBoxLayout;
    m_mode->addItems({ QStringLiteral("Per node"), QStringLiteral("Per op type") });
    bar->addWidget(m_mode);
    bar->addWidget(m_colour);
    bar->addStretch(1);
    bar->addWidget(m_total);
    layout->addLayout(bar);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(ProfileModel::SortRole);
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(ProfileModel::TotalColumn, Qt::DescendingOrder);
    m_view->setColumnWidth(ProfileModel::NameColumn, 220);
    m_view->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(m_view, 1);
    connect(m_mode, &QComboBox::currentIndexChanged, this,
        [this](int i) { m_model->setMode(i == 0 ? ProfileModel::Mode::PerNode : ProfileModel::Mode::PerOpType); });
    connect(m_colour, &QCheckBox::toggled, this, &ProfilePanel::colourByTimeToggled);
    connect(m_view, &QTableView::activated, this, [this](const QModelIndex& index) {
        if (const ProfileModel::Row* r = m_model->rowAt(m_proxy->mapToSource(index).row()); r && r->graph)
            emit nodeActivated(r->graph, r->node);
    });
}

void ProfilePanel::setSnapshot(const DebugSnapshotPtr& snapshot)
{
    m_model->setSnapshot(snapshot);
    QString text, tip;
    if (snapshot) {
        text = QStringLiteral("main graph: %1 ms").arg(m_model->totalMilliseconds(), 0, 'f', 2);
        if (const int64_t n = snapshot->preemptions; n > 0) {
            // A short node that the scheduler interrupted looks many times slower than it is: say so where the
            // times are read, rather than let a 4 ms Max node of a 1 ms model send someone after its kernel.
            text += QStringLiteral(" \u00b7 interrupted %1\u00d7").arg(n);
            tip = QStringLiteral(
                "The system took the CPU from the thread running the nodes %1 time(s) during this run, "
                "for other threads or programs (involuntary context switches). The nodes it was "
                "running then show that wait in their time. For steadier figures, re-run with "
                "less else running, or time the model with onnxscope-cli run --repeat.")
                      .arg(n);
        }
    }
    m_total->setText(text);
    m_total->setToolTip(tip);
}

void BreakpointsPanel::setNames(const Graph& graph)
{
    QStringList nodes, ops;
    std::set<std::string> opSet;
    std::vector<const Graph*> stack { &graph };
    while (!stack.empty()) {
        const Graph* g = stack.back();
        stack.pop_back();
        for (const Node& n : g->nodes()) {
            nodes << QString::fromStdString(n.displayName());
            opSet.insert(n.opType);
            for (const auto& [attr, sub] : n.subgraphs)
                stack.push_back(sub.get());
        }
    }
    for (const auto& op : opSet)
        ops << QString::fromStdString(op);
    nodes.removeDuplicates();
    setNames(nodes, ops);
}

} // namespace onnxscope
