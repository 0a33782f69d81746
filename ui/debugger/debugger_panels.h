// SPDX-License-Identifier: MIT
#pragma once

#include "ui/debugger/breakpoint_model.h"
#include "ui/debugger/call_stack_model.h"
#include "ui/debugger/profile_model.h"
#include "ui/debugger/values_model.h"

#include <QDialog>
#include <QSortFilterProxyModel>
#include <QWidget>

class QAction;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTableView;

namespace onnxscope {

/// Filters the Values list by text (name, producer, op type) and, optionally, by frame.
class ValuesFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit ValuesFilterModel(QObject* parent = nullptr);
    void setText(const QString& text);
    /// 0 shows every frame.
    void setFrame(quint64 frameId);
    quint64 frame() const { return m_frame; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    QString m_text;
    quint64 m_frame = 0;
};

/// The Values dock: every recorded value with statistics; filter, sort, and activate to inspect / go to the graph.
class ValuesPanel : public QWidget {
    Q_OBJECT
public:
    explicit ValuesPanel(QWidget* parent = nullptr);
    ValuesModel* model() const { return m_model; }
    ValuesFilterModel* proxy() const { return m_proxy; }
    QTableView* view() const { return m_view; }
    QLineEdit* filterEdit() const { return m_filter; }
    void setSnapshot(const DebugSnapshotPtr& snapshot);
    /// Shows only the values of one frame (0: all), as selecting a call-stack level does.
    void setFrameFilter(quint64 frameId, const QString& label);
    /// Selects the row of a value (by snapshot index) without emitting activated().
    void selectValue(int valueIndex);
    /// Iteration retention for the next run: index 0 all, 1 last N, 2 none.
    QComboBox* retentionBox() const { return m_retention; }
    QSpinBox* keepBox() const { return m_keep; }
    /// Actions of a value's context menu (go to the graph, export, ...); the row is made current, and valueChosen()
    /// emitted, before the menu opens, so they act on currentValueIndex().
    void setRowActions(const QList<QAction*>& actions) { m_rowActions = actions; }
    void addRowAction(QAction* action) { m_rowActions << action; }
    /// The row actions of the Values dock: Go to Producer in Graph (valueActivated), Export Value… (exportRequested),
    /// Copy Name, and Break When This Value… (breakWhenRequested with the producer and the output's index).
    void addStandardRowActions();
    const QList<QAction*>& rowActions() const { return m_rowActions; }
    /// The current row's index into the snapshot's values, -1 for none.
    int currentValueIndex() const;
    /// How much taller the panel must be for its table to show `rows` rows whole (negative when it shows more).
    int heightMissingForRows(int rows) const;

signals:
    /// A value was chosen (current row changed or double-clicked): index into the snapshot's values.
    void valueChosen(int valueIndex);
    /// Double-click / Enter: also go to the graph.
    void valueActivated(int valueIndex);
    void retentionChanged();
    void exportRequested(int valueIndex);
    /// A condition breakpoint after `node` on its output `output` was asked for.
    void breakWhenRequested(const QString& node, int output);

private:
    QList<QAction*> m_rowActions;
    ValuesModel* m_model;
    ValuesFilterModel* m_proxy;
    QTableView* m_view;
    QLineEdit* m_filter;
    QCheckBox* m_frameOnly;
    QComboBox* m_retention;
    QSpinBox* m_keep;
    QLabel* m_summary;
    bool m_selecting = false;
};

/// The Call Stack dock: frame path levels, innermost first; selecting one shows that frame.
class CallStackPanel : public QWidget {
    Q_OBJECT
public:
    explicit CallStackPanel(QWidget* parent = nullptr);
    CallStackModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }
    void setSnapshot(const DebugSnapshotPtr& snapshot);
    QString pathText() const;

signals:
    void frameSelected(const onnxscope::FrameSnapshot& frame, bool innermost);

private:
    CallStackModel* m_model;
    QTableView* m_view;
    QLabel* m_path;
};

/// Adds or edits a breakpoint: kind, node or op type (with completion), iteration filter, value condition.
class BreakpointDialog : public QDialog {
    Q_OBJECT
public:
    BreakpointDialog(const QStringList& nodeNames, const QStringList& opTypes, QWidget* parent = nullptr);
    void setSpec(const BreakpointSpec& spec);
    BreakpointSpec spec() const;

private:
    void updateFields();
    void validate();
    QComboBox* m_kind;
    QLineEdit* m_pattern;
    QSpinBox* m_iteration;
    QLineEdit* m_condition;
    QSpinBox* m_output;
    QLabel* m_error;
    QStringList m_nodeNames, m_opTypes;
    QPushButton* m_ok = nullptr;
};

/// The Breakpoints dock: enable/disable (check box), add, delete, go to the node.
class BreakpointsPanel : public QWidget {
    Q_OBJECT
public:
    BreakpointsPanel(BreakpointModel* model, QWidget* parent = nullptr);
    QTableView* view() const { return m_view; }
    /// Names offered for completion in the add dialog.
    void setNames(const QStringList& nodeNames, const QStringList& opTypes);
    /// The names of every node and op type of `graph` and its subgraphs.
    void setNames(const Graph& graph);
    /// `outputIndex`: for a value condition, which output of the node (-1: any).
    void showAddDialog(BreakpointSpec::Kind kind, const QString& pattern = {}, int outputIndex = -1);

signals:
    void goToNode(const QString& nodeName);

private:
    void removeSelected();
    BreakpointModel* m_model;
    QTableView* m_view;
    QStringList m_nodeNames, m_opTypes;
};

/// The Profile dock: time per node or per op type of the current run, sortable; "colour graph by time".
class ProfilePanel : public QWidget {
    Q_OBJECT
public:
    explicit ProfilePanel(QWidget* parent = nullptr);
    ProfileModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }
    QCheckBox* colourBox() const { return m_colour; }
    /// "main graph: 1.23 ms", and how often the run was interrupted when it was (tooltip: what that means).
    QLabel* summaryLabel() const { return m_total; }
    void setSnapshot(const DebugSnapshotPtr& snapshot);

signals:
    void colourByTimeToggled(bool on);
    void nodeActivated(const onnxscope::Graph* graph, onnxscope::NodeId node);

private:
    ProfileModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_view;
    QComboBox* m_mode;
    QCheckBox* m_colour;
    QLabel* m_total;
};

} // namespace onnxscope
