// SPDX-License-Identifier: MIT
#pragma once

#include <QAbstractTableModel>
#include <QList>
#include <QMetaType>
#include <QString>

namespace onnxscope {

/// A breakpoint as the user set it. The DebugController installs these in the engine's Debugger before each command.
struct BreakpointSpec {
    enum class Kind {
        Node, // before a node of this display name (any frame)
        OpType, // before any node of this op type
        NonFinite, // after the first node that produces NaN/Inf
        DebugNodes, // after every DEBUG node
        Condition, // after a node (`pattern`, or any node if empty) whose output satisfies `condition`
    };
    int id = 0;
    Kind kind = Kind::Node;
    QString pattern;
    bool enabled = true;
    qint64 iteration = -1; // only in this Loop iteration / Scan step, -1 for every one
    QString condition; // Kind::Condition: ValueCondition text, e.g. "any |x| > 1e4"
    int outputIndex = -1; // Kind::Condition: which output of the node; -1 for any
    int hits = 0;

    QString description() const;
};

/// The user's breakpoints. Columns: enabled (checkable) + kind, where, iteration, condition, hits.
class BreakpointModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { KindColumn, WhereColumn, IterationColumn, ConditionColumn, HitsColumn, ColumnCount };
    enum Role { IdRole = Qt::UserRole + 1 };

    explicit BreakpointModel(QObject* parent = nullptr);

    /// Adds a breakpoint and returns its id (assigned here).
    int add(BreakpointSpec spec);
    bool remove(int id);
    void clear();
    bool setEnabled(int id, bool enabled);
    /// Adds a node breakpoint, or removes the existing one on that node. Returns true if one now exists.
    bool toggleNode(const QString& nodeName);
    /// Enabled node breakpoint on this node?
    bool hasNodeBreakpoint(const QString& nodeName) const;
    /// On: enables the NaN/Inf breakpoint, adding one if there is none (never a second). Off: removes it.
    void setBreakOnNonFinite(bool on);
    /// Is an enabled NaN/Inf breakpoint set?
    bool breaksOnNonFinite() const;
    void recordHit(int id);
    void resetHits();

    /// The breakpoints (without hit counts) in the settings, for the model file at `modelPath`; restore() replaces the
    /// list with the ones saved for it (none if nothing was saved), skipping entries it cannot read.
    void save(const QString& modelPath) const;
    void restore(const QString& modelPath);

    const QList<BreakpointSpec>& breakpoints() const { return m_items; }
    const BreakpointSpec* find(int id) const;
    int rowOf(int id) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    /// Any change the debugger must know about (not hit counts).
    void breakpointsChanged();

private:
    QList<BreakpointSpec> m_items;
    int m_nextId = 1;
};

} // namespace onnxscope

Q_DECLARE_METATYPE(onnxscope::BreakpointSpec)
