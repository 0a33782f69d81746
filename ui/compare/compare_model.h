// SPDX-License-Identifier: MIT
#pragma once

#include "ui/common/compare_colours.h"
#include "ui/compare/compare_job.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

#include <vector>

namespace onnxscope {

/// Every row of a comparison, in side A's execution order (inputs and initializers first, then each node's outputs
/// per frame and iteration, then what only side B had): where, which value, both types, the errors and the status.
/// Adapts a CompareSession; nothing is copied.
class CompareRowsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        OrderColumn, // execution position (1-based), "input" / "init" for sources
        FrameColumn,
        IterationColumn,
        NodeColumn,
        OpColumn,
        ValueColumn,
        CounterpartColumn, // side B's producer of the paired value, and why they paired
        StatusColumn,
        MaxAbsColumn,
        MaxRelColumn,
        CosineColumn,
        MismatchesColumn,
        TypeAColumn,
        TypeBColumn,
        NoteColumn,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1, // numbers as numbers; OrderColumn sorts by row index (execution order)
        RowIndexRole, // int: index into ComparisonResult::rows
        StatusRole, // int: CompareStatus
        FilterRole, // names, node, op type and frame, for the text filter
        RootRole, // int: 2 for the first divergence's outputs, 1 for other roots', 0 otherwise
        OriginRole, // int: ValueOrigin
    };

    explicit CompareRowsModel(QObject* parent = nullptr);

    void setSession(CompareSessionPtr session);
    const CompareSessionPtr& session() const { return m_session; }
    void setMetric(ErrorMetric metric);
    /// The model row of a comparison row (they are the same; -1 when out of range).
    const CompareRow* rowAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    CompareSessionPtr m_session;
    std::vector<char> m_root; // per row: RootRole
    ErrorMetric m_metric = ErrorMetric::ToleranceRatio;
};

/// Filters the comparison rows by text and by kind of status, and sorts by CompareRowsModel::SortRole.
class CompareFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    enum class Show { All, Divergent, Unmatched, Matched, Roots };
    explicit CompareFilterModel(QObject* parent = nullptr);
    void setText(const QString& text);
    void setShow(Show show);
    Show show() const { return m_show; }
    void setInitializersShown(bool shown);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    QString m_text;
    Show m_show = Show::All;
    bool m_initializers = true;
};

} // namespace onnxscope
