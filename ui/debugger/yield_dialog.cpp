// SPDX-License-Identifier: MIT
#include "ui/debugger/yield_dialog.h"

#include "ui/debugger/debug_controller.h"

#include "ui/common/input_spec.h"
#include "ui/common/tensor_format.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace onnxscope {

namespace {

QString describe(const Value& v)
{
    if (v.isNone())
        return QStringLiteral("(none)");
    QString text = QString::fromStdString(v.typeString());
    if (v.isTensor() && v.tensor().size() <= 64)
        text += QStringLiteral("  ") + formatTensorValues(v.tensor(), 8);
    return text;
}

} // namespace

YieldDialog::YieldDialog(const DebugSnapshot& snapshot, const std::map<std::string, Value>& remembered, QWidget* parent)
    : QDialog(parent)
    , m_outputs(new QTableWidget(this))
    , m_remember(new QCheckBox(QStringLiteral("Remember replacements for the next runs"), this))
    , m_error(new QLabel(this))
{
    setObjectName(QStringLiteral("yieldDialog"));
    setWindowTitle(QStringLiteral("YieldOp"));
    auto* layout = new QVBoxLayout(this);
    const Node* node = snapshot.nextNode();
    auto* intro = new QLabel(
        QStringLiteral("<b>%1</b> is about to run. Keep its inputs as its outputs, or load replacement tensors.")
            .arg(node ? QString::fromStdString(node->displayName()).toHtmlEscaped() : QStringLiteral("YieldOp")),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto* inputs = new QTableWidget(static_cast<int>(snapshot.yieldInputs.size()), 2, this);
    inputs->setHorizontalHeaderLabels({ QStringLiteral("Input"), QStringLiteral("Value") });
    inputs->horizontalHeader()->setStretchLastSection(true);
    inputs->verticalHeader()->hide();
    inputs->setEditTriggers(QAbstractItemView::NoEditTriggers);
    for (size_t i = 0; i < snapshot.yieldInputs.size(); ++i) {
        inputs->setItem(
            static_cast<int>(i), 0, new QTableWidgetItem(QString::fromStdString(snapshot.yieldInputs[i].first)));
        inputs->setItem(static_cast<int>(i), 1, new QTableWidgetItem(describe(snapshot.yieldInputs[i].second)));
    }
    inputs->setMaximumHeight(40 + 26 * std::min<int>(static_cast<int>(snapshot.yieldInputs.size()), 5));
    layout->addWidget(inputs);

    for (size_t i = 0; i < snapshot.yieldOutputs.size(); ++i) {
        Choice c;
        c.name = snapshot.yieldOutputs[i];
        if (i < snapshot.yieldInputs.size())
            c.input = snapshot.yieldInputs[i].second;
        if (auto it = remembered.find(c.name); it != remembered.end()) {
            c.replacement = it->second;
            c.label = QStringLiteral("remembered");
        }
        m_choices.push_back(std::move(c));
    }
    m_outputs->setObjectName(QStringLiteral("yieldOutputs"));
    m_outputs->setColumnCount(4);
    m_outputs->setRowCount(static_cast<int>(m_choices.size()));
    m_outputs->setHorizontalHeaderLabels(
        { QStringLiteral("Output"), QStringLiteral("Value used"), QString(), QString() });
    m_outputs->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_outputs->verticalHeader()->hide();
    m_outputs->setEditTriggers(QAbstractItemView::NoEditTriggers);
    for (int row = 0; row < static_cast<int>(m_choices.size()); ++row) {
        m_outputs->setItem(
            row, 0, new QTableWidgetItem(QString::fromStdString(m_choices[static_cast<size_t>(row)].name)));
        auto* keep = new QPushButton(QStringLiteral("Keep input"), m_outputs);
        auto* load = new QPushButton(QStringLiteral("Load\u2026"), m_outputs);
        const QString name = QString::fromStdString(m_choices[static_cast<size_t>(row)].name);
        connect(keep, &QPushButton::clicked, this, [this, name] { keepInput(name); });
        connect(load, &QPushButton::clicked, this, [this, name] {
            const QString path = QFileDialog::getOpenFileName(this, QStringLiteral("Replacement for %1").arg(name), {},
                QStringLiteral("Tensors (*.npy *.pb);;All files (*)"));
            if (!path.isEmpty())
                setReplacementFile(name, path);
        });
        m_outputs->setCellWidget(row, 2, keep);
        m_outputs->setCellWidget(row, 3, load);
        refreshRow(row);
    }
    layout->addWidget(m_outputs, 1);
    m_remember->setChecked(true);
    layout->addWidget(m_remember);
    m_error->setStyleSheet(QStringLiteral("color:#c62828"));
    m_error->setWordWrap(true);
    m_error->hide();
    layout->addWidget(m_error);

    auto* buttons = new QDialogButtonBox(this);
    QPushButton* go = buttons->addButton(QStringLiteral("Apply and Continue"), QDialogButtonBox::AcceptRole);
    go->setObjectName(QStringLiteral("applyContinue"));
    QPushButton* stay = buttons->addButton(QStringLiteral("Apply and Stay Paused"), QDialogButtonBox::AcceptRole);
    stay->setObjectName(QStringLiteral("applyStay"));
    buttons->addButton(QDialogButtonBox::Cancel);
    connect(go, &QPushButton::clicked, this, [this] {
        m_continue = true;
        accept();
    });
    connect(stay, &QPushButton::clicked, this, [this] {
        m_continue = false;
        accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    resize(640, 380);
}

int YieldDialog::rowOf(const QString& output) const
{
    for (size_t i = 0; i < m_choices.size(); ++i)
        if (QString::fromStdString(m_choices[i].name) == output)
            return static_cast<int>(i);
    return -1;
}

void YieldDialog::refreshRow(int row)
{
    const Choice& c = m_choices[static_cast<size_t>(row)];
    const QString text = c.replacement.isNone()
        ? QStringLiteral("input (identity): %1").arg(describe(c.input))
        : QStringLiteral("replacement from %1: %2").arg(c.label, describe(c.replacement));
    auto* item = new QTableWidgetItem(text);
    item->setToolTip(text);
    m_outputs->setItem(row, 1, item);
}

bool YieldDialog::setReplacementFile(const QString& output, const QString& path)
{
    try {
        setReplacement(output, readTensorFile(path), path);
        m_error->hide();
        return true;
    } catch (const std::exception& e) {
        m_error->setText(QString::fromStdString(e.what()));
        m_error->show();
        return false;
    }
}

void YieldDialog::setReplacement(const QString& output, const Tensor& tensor, const QString& label)
{
    const int row = rowOf(output);
    if (row < 0)
        return;
    m_choices[static_cast<size_t>(row)].replacement = tensor;
    m_choices[static_cast<size_t>(row)].label = label;
    refreshRow(row);
}

void YieldDialog::keepInput(const QString& output)
{
    const int row = rowOf(output);
    if (row < 0)
        return;
    m_choices[static_cast<size_t>(row)].replacement = Value();
    m_choices[static_cast<size_t>(row)].label.clear();
    refreshRow(row);
}

void YieldDialog::setRemember(bool remember)
{
    m_remember->setChecked(remember);
}
bool YieldDialog::remember() const
{
    return m_remember->isChecked();
}

std::map<std::string, Value> YieldDialog::outputs() const
{
    std::map<std::string, Value> out;
    for (const Choice& c : m_choices)
        out[c.name] = c.replacement.isNone() ? c.input : c.replacement;
    return out;
}

std::vector<std::string> YieldDialog::keptOutputs() const
{
    std::vector<std::string> out;
    for (const Choice& c : m_choices)
        if (c.replacement.isNone())
            out.push_back(c.name);
    return out;
}

QStringList YieldDialog::outputNames() const
{
    QStringList names;
    for (const Choice& c : m_choices)
        names << QString::fromStdString(c.name);
    return names;
}

void YieldDialog::answer(DebugController& controller) const
{
    std::map<std::string, Value> given;
    for (auto& [name, value] : outputs())
        if (!value.isNone())
            given[name] = value;
    const auto kept = keptOutputs();
    std::map<std::string, Value> replaced;
    for (const auto& [name, value] : given)
        if (std::find(kept.begin(), kept.end(), name) == kept.end())
            replaced[name] = value;
    for (const std::string& name : kept)
        controller.forgetYieldOutputs(name);
    controller.setYieldOutputs(replaced, remember());
    // Kept outputs are passed too, so that a replacement remembered earlier does not apply this time.
    std::map<std::string, Value> keptValues;
    for (const std::string& name : kept)
        if (given.count(name))
            keptValues[name] = given[name];
    controller.setYieldOutputs(keptValues, false);
    if (continueAfter())
        controller.continueRun();
}

} // namespace onnxscope
