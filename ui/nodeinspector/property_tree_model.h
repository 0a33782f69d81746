// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/tensor.h"
#include "engine/model/graph.h"

#include <QAbstractItemModel>

#include <functional>
#include <vector>

namespace onnxscope {

/// A row of the inspector: "kernel_shape | [3, 3] | ints". A row may open a tensor (initializer, tensor attribute)
/// or point at a tensor of the graph (inputs and outputs of a node).
struct PropertyRow {
    QString name;
    QString value;
    QString detail;
    QString toolTip;
    std::function<Tensor()> tensor; // set when the row can be opened in the tensor viewer
    QString tensorTitle;
    ValueId valueRef = kNoValue; // a tensor of the inspected graph, for "go to"
    NodeId nodeRef = -1;
    QString copyText; // what Copy puts on the clipboard when it is not `value` (the full text of an elided value)
    QString sourceFile; // a source file the row points at (a PyTorch node's stack trace), opened on double-click
    int sourceLine = 0;
};

struct PropertySection {
    QString title;
    std::vector<PropertyRow> rows;
};

/// Sections of name/value rows as a two-level tree: sections at the top, their rows below.
/// Columns: Name, Value, Detail (type or shape).
class PropertyTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { NameColumn, ValueColumn, DetailColumn, ColumnCount };
    enum Role {
        HasTensorRole = Qt::UserRole + 1, // bool: the row opens a tensor
        ValueRefRole, // int: ValueId of the row's tensor in the inspected graph, -1 if none
        NodeRefRole, // int: NodeId the row points at, -1 if none
        IsSectionRole, // bool
    };

    explicit PropertyTreeModel(QObject* parent = nullptr);

    void setSections(std::vector<PropertySection> sections);
    const std::vector<PropertySection>& sections() const { return m_sections; }
    /// The row behind an index, null for a section or an invalid index.
    const PropertyRow* row(const QModelIndex& index) const;
    /// The first row named `name` in the section titled `section` (tests, "find the attribute").
    QModelIndex find(const QString& section, const QString& name) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

private:
    std::vector<PropertySection> m_sections;
};

} // namespace onnxscope
