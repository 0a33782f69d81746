// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/tensor.h"
#include "engine/model/graph.h"

#include <QWidget>

class QLabel;
class QTextBrowser;
class QTreeView;

namespace onnxscope {

class ModelDocument;
class PropertyTreeModel;

/// The Inspector dock: what is selected in the graph (a node, a tensor, a group), as property sections, with the
/// operator's documentation below. Double-clicking a tensor row opens it; a node or tensor row goes to it.
class NodeInspector : public QWidget {
    Q_OBJECT
public:
    explicit NodeInspector(QWidget* parent = nullptr);

    void setDocument(const ModelDocument* document) { m_document = document; }
    void showNode(const Graph* graph, NodeId node);
    void showValue(const Graph* graph, ValueId value);
    void showText(const QString& title, const QString& text);
    void clear();

    PropertyTreeModel* model() const { return m_model; }
    QTreeView* view() const { return m_view; }
    QString title() const;
    QString documentation() const;
    /// Copies a row's value (its full text, e.g. a frame's path:line) to the clipboard and returns it.
    QString copyRow(const QModelIndex& index) const;
    /// Opens `file` at `line` in $VISUAL or $EDITOR (`editor +line file`), else with the desktop's handler; a message
    /// when the file is not on this machine. False when nothing could be started.
    static bool openSource(const QString& file, int line);

signals:
    void tensorRequested(const QString& title, const Tensor& tensor);
    void goToNode(const Graph* graph, NodeId node);
    void goToValue(const Graph* graph, ValueId value);

private:
    void activated(const QModelIndex& index);
    void setTitle(const QString& kind, const QString& name, const QString& colour);

    const ModelDocument* m_document = nullptr;
    const Graph* m_graph = nullptr;
    QLabel* m_title;
    QTreeView* m_view;
    PropertyTreeModel* m_model;
    QTextBrowser* m_docs;
};

/// The Model dock: model properties (IR version, opsets, producer, metadata, inputs, outputs, initializers,
/// functions, operator counts).
class ModelProperties : public QWidget {
    Q_OBJECT
public:
    explicit ModelProperties(QWidget* parent = nullptr);
    void showModel(const ModelDocument* document);
    PropertyTreeModel* model() const { return m_model; }

private:
    QTreeView* m_view;
    PropertyTreeModel* m_model;
};

} // namespace onnxscope
