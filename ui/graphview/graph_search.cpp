// SPDX-License-Identifier: MIT
#include "ui/graphview/graph_search.h"

#include "engine/model/torch_origin.h"

#include <QColor>
#include <QFont>

namespace onnxscope {

namespace {

QString where(const Graph& graph)
{
    QStringList parts;
    for (const Graph* g = &graph; g && g->ownerNode(); g = g->parent())
        parts.prepend(QString::fromStdString(g->ownerNode()->displayName()));
    return parts.isEmpty() ? QString() : QStringLiteral(" \u2014 in ") + parts.join(QStringLiteral(" \u203a "));
}

void collect(const Graph& graph, const QString& query, size_t limit, std::vector<SearchResult>& exact,
    std::vector<SearchResult>& partial)
{
    const QString context = where(graph);
    auto add = [&](SearchResult r, const QString& matched) {
        auto& list = matched.compare(query, Qt::CaseInsensitive) == 0 ? exact : partial;
        if (exact.size() + partial.size() < limit)
            list.push_back(std::move(r));
    };
    for (const Node& node : graph.nodes()) {
        const QString name = QString::fromStdString(node.displayName());
        const QString op = QString::fromStdString(node.opType);
        if (name.contains(query, Qt::CaseInsensitive) || op.contains(query, Qt::CaseInsensitive)) {
            add({ &graph, node.id, kNoValue, name, op + context },
                name.contains(query, Qt::CaseInsensitive) ? name : op);
            continue;
        }
        // A dynamo export's node by its PyTorch module path ("layers.0.self_attn").
        if (nodeMetadataProp(node, "pkg.torch.onnx.name_scopes")) {
            const QString module = QString::fromStdString(torchOrigin(node).modulePath());
            if (module.contains(query, Qt::CaseInsensitive))
                add({ &graph, node.id, kNoValue, name, op + QStringLiteral(" in ") + module + context }, module);
        }
    }
    for (size_t v = 0; v < graph.values().size(); ++v) {
        const ValueInfo& info = graph.values()[v];
        if (info.source == ValueInfo::Source::OuterScope)
            continue; // found in the graph that defines it
        const QString name = QString::fromStdString(info.name);
        if (!name.isEmpty() && name.contains(query, Qt::CaseInsensitive))
            add({ &graph, -1, static_cast<ValueId>(v), name, QStringLiteral("tensor") + context }, name);
    }
    for (const Node& node : graph.nodes()) {
        for (const auto& [attr, sub] : node.subgraphs)
            collect(*sub, query, limit, exact, partial);
        if (node.functionBody)
            collect(*node.functionBody, query, limit, exact, partial);
    }
}

} // namespace

std::vector<SearchResult> searchGraph(const Graph& graph, const QString& query, size_t limit)
{
    std::vector<SearchResult> exact, partial;
    if (query.trimmed().isEmpty())
        return {};
    collect(graph, query.trimmed(), limit, exact, partial);
    exact.insert(exact.end(), std::make_move_iterator(partial.begin()), std::make_move_iterator(partial.end()));
    return exact;
}

SearchResultsModel::SearchResultsModel(QObject* parent)
    : QAbstractListModel(parent)
{
}

void SearchResultsModel::setResults(std::vector<SearchResult> results)
{
    beginResetModel();
    m_results = std::move(results);
    endResetModel();
}

int SearchResultsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_results.size());
}

QVariant SearchResultsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || static_cast<size_t>(index.row()) >= m_results.size())
        return {};
    const SearchResult& r = m_results[static_cast<size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        return QStringLiteral("%1   \u00b7 %2").arg(r.text, r.detail);
    case Qt::ToolTipRole:
        return r.text + QLatin1Char('\n') + r.detail;
    case DetailRole:
        return r.detail;
    case Qt::ForegroundRole:
        return r.node >= 0 ? QVariant() : QVariant(QColor(0x37, 0x47, 0x8a));
    default:
        return {};
    }
}

} // namespace onnxscope
