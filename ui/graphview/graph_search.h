// SPDX-License-Identifier: MIT
#pragma once

#include "engine/model/graph.h"

#include <QAbstractListModel>

#include <vector>

namespace onnxscope {

/// One match of a search: a node (by name or op type) or a tensor (by name), in some graph of the model.
struct SearchResult {
    const Graph* graph = nullptr;
    NodeId node = -1;
    ValueId value = kNoValue;
    QString text; // what matched, for display
    QString detail; // op type or tensor type, and where
};

/// Case-insensitive substring search over node names, op types, PyTorch module paths (dynamo exports: a node is found
/// by its module's path) and tensor names of `graph` and, recursively, its
/// subgraphs and function bodies. Exact matches come first. At most `limit` results.
std::vector<SearchResult> searchGraph(const Graph& graph, const QString& query, size_t limit = 5000);

/// Search results for a list view. Roles: display (name), tooltip, DetailRole.
class SearchResultsModel : public QAbstractListModel {
    Q_OBJECT
public:
    enum Role { DetailRole = Qt::UserRole + 1 };
    explicit SearchResultsModel(QObject* parent = nullptr);
    void setResults(std::vector<SearchResult> results);
    const std::vector<SearchResult>& results() const { return m_results; }
    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
    std::vector<SearchResult> m_results;
};

} // namespace onnxscope
