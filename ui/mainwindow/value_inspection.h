// SPDX-License-Identifier: MIT
#pragma once

#include "ui/common/debug_snapshot.h"

#include <QObject>
#include <QString>

#include <optional>
#include <string>

class QLabel;

namespace onnxscope {

class DebugController;
class GraphView;
class TensorInspector;
class ValuesPanel;

/// The run's values in the Tensor Inspector: the value chosen in the Values dock, in the graph or after a stop. A
/// value whose data the run did not keep is rebuilt by the worker first (the status line says so); after a reverse
/// move the value shown is followed to the same value made again, or the inspector says it is not made yet.
class ValueInspection : public QObject {
    Q_OBJECT
public:
    ValueInspection(
        DebugController* controller, TensorInspector* inspector, ValuesPanel* values, GraphView* view, QObject* parent);
    /// The debugger's status line, which says what is being rebuilt (set once it exists).
    void setStatusLabel(QLabel* status) { m_status = status; }

    /// The recorded value at an index of the current snapshot's values, null if none.
    const RecordedValue* recordedValue(int valueIndex) const;
    /// Shows a recorded value (index into the snapshot's values).
    void inspect(int valueIndex);
    /// Inspects a value and shows it in the graph (its edge, or its producer).
    void goTo(int valueIndex);
    /// Inspects the latest value named `name` made in `graph` and selects it in the Values dock; false if none.
    bool inspectLatest(const Graph* graph, const std::string& name);
    /// After a stop that showed no new value: shows the inspected value as made at this position (after a reverse move,
    /// the same value made again), or clears the inspector and says it is not produced yet.
    void follow(const DebugSnapshot& snapshot);
    /// Whether the inspector shows a value of the current run (not an initializer).
    bool showsRunValue() const { return m_showsRunValue; }
    void setShowsRunValue(bool shows) { m_showsRunValue = shows; }
    /// Clears the inspector if it shows a value of the run.
    void clearRunValue();
    /// Counts inspect() calls that showed a value.
    uint64_t shownCount() const { return m_shownCount; }
    /// What the status said when the run last stopped; follow() adds to it.
    const QString& stopStatus() const { return m_stopStatus; }
    void setStopStatus(const QString& text) { m_stopStatus = text; }

signals:
    /// A value was shown: the actions that depend on the inspector's tensor follow.
    void shown();

private:
    QString title(const RecordedValue& r) const;
    void onValueRebuilt(quint64 ordinal, const Value& value, const QString& error, double ms);

    DebugController* m_controller;
    TensorInspector* m_inspector;
    ValuesPanel* m_values;
    GraphView* m_view;
    QLabel* m_status = nullptr;
    QString m_stopStatus;
    bool m_showsRunValue = false;
    struct InspectedValue {
        const Graph* graph = nullptr;
        std::string name;
        uint64_t ordinal = 0;
    };
    InspectedValue m_inspected; // what inspect() showed last
    std::optional<uint64_t> m_rebuilding; // the ordinal of the value the inspector waits for (rebuildValue)
    uint64_t m_shownCount = 0;
};

} // namespace onnxscope
