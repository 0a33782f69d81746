// SPDX-License-Identifier: MIT
#include "ui/mainwindow/value_inspection.h"

#include "ui/debugger/debug_controller.h"
#include "ui/debugger/debugger_panels.h"
#include "ui/graphview/graph_view.h"
#include "ui/tensorinspector/tensor_inspector.h"

#include <QLabel>

namespace onnxscope {

namespace {

QString valueLabel(const RecordedValue& r)
{
    QString label = QString::fromStdString(r.name);
    if (r.framePath != "main")
        label += QStringLiteral(" @ ") + QString::fromStdString(r.framePath);
    return label;
}

} // namespace

ValueInspection::ValueInspection(
    DebugController* controller, TensorInspector* inspector, ValuesPanel* values, GraphView* view, QObject* parent)
    : QObject(parent)
    , m_controller(controller)
    , m_inspector(inspector)
    , m_values(values)
    , m_view(view)
{
    connect(m_controller, &DebugController::valueRebuilt, this, &ValueInspection::onValueRebuilt);
}

bool ValueInspection::inspectLatest(const Graph* graph, const std::string& name)
{
    const DebugSnapshotPtr s = m_controller->snapshot();
    if (!s)
        return false;
    for (size_t i = s->values.size(); i-- > 0;)
        if (s->values[i].record.graph == graph && s->values[i].record.name == name) {
            inspect(static_cast<int>(i));
            m_values->selectValue(static_cast<int>(i));
            return true;
        }
    return false;
}

void ValueInspection::clearRunValue()
{
    if (m_showsRunValue) {
        m_inspector->clear();
        m_showsRunValue = false;
    }
}

const RecordedValue* ValueInspection::recordedValue(int valueIndex) const
{
    const DebugSnapshotPtr s = m_controller->snapshot();
    if (!s || valueIndex < 0 || static_cast<size_t>(valueIndex) >= s->values.size())
        return nullptr;
    return &s->values[static_cast<size_t>(valueIndex)].record;
}

void ValueInspection::goTo(int valueIndex)
{
    inspect(valueIndex);
    if (const RecordedValue* r = recordedValue(valueIndex); r && r->graph)
        m_view->centerOnValue(r->graph, r->graph->findValue(r->name));
}

void ValueInspection::inspect(int valueIndex)
{
    if (m_inspector->isPinned())
        return;
    const DebugSnapshotPtr s = m_controller->snapshot(); // keeps the value alive while it is shown
    const RecordedValue* found = recordedValue(valueIndex);
    if (!found)
        return;
    const RecordedValue& r = *found;
    m_inspected = { r.graph, r.name.str(), r.ordinal };
    ++m_shownCount;
    if (r.dropped) {
        // Only its summary was kept: the worker rebuilds the data (from the frames of this position, or by a replay
        // from the nearest checkpoint), and valueRebuilt() shows it if it is still the value asked for.
        m_inspector->clear();
        m_rebuilding = m_controller->rebuildValue(r.ordinal) ? std::optional<uint64_t>(r.ordinal) : std::nullopt;
        m_showsRunValue = m_rebuilding.has_value();
        m_status->setText(m_rebuilding
                ? QStringLiteral("Rebuilding %1 from the nearest checkpoint\u2026").arg(valueLabel(r))
                : QStringLiteral("%1 was dropped to stay under the memory budget").arg(valueLabel(r)));
        return;
    }
    m_rebuilding.reset();
    m_inspector->setValue(title(r), r.value);
    m_showsRunValue = true;
    emit shown();
}

QString ValueInspection::title(const RecordedValue& r) const
{
    QString title = valueLabel(r);
    if (r.graph && r.producer >= 0)
        title += QStringLiteral("  \u2190 %1 (%2)")
                     .arg(QString::fromStdString(r.graph->node(r.producer).displayName()),
                         QString::fromStdString(r.graph->node(r.producer).opType));
    return title;
}

void ValueInspection::onValueRebuilt(quint64 ordinal, const Value& value, const QString& error, double ms)
{
    if (!m_rebuilding || *m_rebuilding != ordinal || m_inspector->isPinned())
        return;
    m_rebuilding.reset();
    const DebugSnapshotPtr s = m_controller->snapshot();
    const RecordedValue* r = nullptr;
    if (s)
        for (const auto& v : s->values)
            if (v.record.ordinal == ordinal)
                r = &v.record;
    if (!r)
        return;
    if (value.isNone()) {
        m_showsRunValue = false;
        const QString text = QStringLiteral("Could not rebuild %1: %2").arg(valueLabel(*r), error);
        m_status->setText(text);
        m_status->setToolTip(text);
        return;
    }
    m_inspector->setValue(title(*r), value);
    m_showsRunValue = true;
    m_status->setText(m_stopStatus);
    m_status->setToolTip(QStringLiteral("%1: rebuilt in %2 ms").arg(valueLabel(*r)).arg(ms, 0, 'f', 1));
    emit shown();
}

void ValueInspection::follow(const DebugSnapshot& snapshot)
{
    if (m_inspector->isPinned())
        return;
    // Values keep their ordinal (their place among every value the run made) when a reverse move makes them again.
    for (size_t i = snapshot.values.size(); i-- > 0;) {
        const RecordedValue& r = snapshot.values[i].record;
        if (r.ordinal == m_inspected.ordinal && r.graph == m_inspected.graph && r.name == m_inspected.name) {
            inspect(static_cast<int>(i));
            m_values->selectValue(static_cast<int>(i));
            return;
        }
    }
    m_inspector->clear();
    m_showsRunValue = false;
    const QString note
        = QStringLiteral("%1 is not produced yet at this position").arg(QString::fromStdString(m_inspected.name));
    m_stopStatus += QStringLiteral(" \u2014 ") + note;
    m_status->setText(m_stopStatus);
    m_status->setToolTip(m_stopStatus);
}

} // namespace onnxscope
