// SPDX-License-Identifier: MIT
#include "ui/graphview/view_graph.h"

#include "engine/model/model.h"
#include "engine/model/op_schema.h"
#include "engine/model/torch_origin.h"
#include "ui/common/graph_style.h"
#include "ui/common/tensor_format.h"

#include <QFontMetricsF>
#include <QHash>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <queue>
#include <unordered_map>

namespace onnxscope {

namespace {

struct RawScope {
    QString name;
    QString modulePath; // a PyTorch module's full path ("model.layers.0.self_attn"), "" for a name scope
    QString className; // that module's class, without its Python module ("Gemma3Attention")
    int parent = -1;
    std::vector<int> children;
    std::vector<NodeId> nodes;
    int total = 0;
    bool removed = false;
    bool collapsedByDefault = false;
    bool isChain = false;
};

int computeTotal(std::vector<RawScope>& scopes, int s)
{
    int total = static_cast<int>(scopes[static_cast<size_t>(s)].nodes.size());
    for (int c : scopes[static_cast<size_t>(s)].children)
        total += computeTotal(scopes, c);
    scopes[static_cast<size_t>(s)].total = total;
    return total;
}

// Dissolves one-node scopes into their parent and merges chains of scopes that only hold one child scope.
void normalise(std::vector<RawScope>& scopes, int s)
{
    for (int c : std::vector<int>(scopes[static_cast<size_t>(s)].children))
        normalise(scopes, c);
    auto& scope = scopes[static_cast<size_t>(s)];
    std::vector<int> kept;
    for (int c : scope.children) {
        auto& child = scopes[static_cast<size_t>(c)];
        if (child.total <= 1) {
            // After normalising, a one-node scope holds its node directly.
            scope.nodes.insert(scope.nodes.end(), child.nodes.begin(), child.nodes.end());
            child.removed = true;
            continue;
        }
        while (child.nodes.empty() && child.children.size() == 1) {
            auto& only = scopes[static_cast<size_t>(child.children.front())];
            const bool modules = !child.modulePath.isEmpty() && !only.modulePath.isEmpty();
            child.name += (modules ? QLatin1Char('.') : QLatin1Char('/')) + only.name;
            if (modules) {
                child.modulePath = only.modulePath;
                child.className = only.className;
            }
            child.nodes = std::move(only.nodes);
            child.children = std::move(only.children);
            for (int gc : child.children)
                scopes[static_cast<size_t>(gc)].parent = c;
            only.removed = true;
        }
        kept.push_back(c);
    }
    scope.children = std::move(kept);
    std::sort(scope.nodes.begin(), scope.nodes.end());
}

// Cuts the direct nodes of raw[s] into stretches of consecutive ranks when they span more than `maxRanks`: a long
// chain drawn flat is a one-pixel line when fitted to a window. The rank of a node is its longest path from the
// stretch's sources (a source, such as a Shape of an input, sits just above its first consumer instead). Cuts go
// where the fewest tensors cross (between two residual blocks, one), near equal lengths; each stretch becomes a
// group, cut again inside if still too deep.
void splitLongChains(const Graph& graph, std::vector<RawScope>& raw, int s, int maxRanks, std::vector<int>& local)
{
    constexpr int kMinNodes = 48;
    constexpr int kRanksPerStretch = 32;
    constexpr int kMaxStretches = 16;
    const std::vector<NodeId> members = raw[static_cast<size_t>(s)].nodes;
    if (members.size() < static_cast<size_t>(kMinNodes))
        return;
    const size_t count = members.size();
    for (size_t i = 0; i < count; ++i)
        local[static_cast<size_t>(members[i])] = static_cast<int>(i);
    std::vector<std::vector<int>> preds(count), succs(count);
    for (size_t i = 0; i < count; ++i) {
        const Node& node = graph.node(members[i]);
        for (const auto* list : { &node.inputs, &node.implicitInputs })
            for (ValueId v : *list) {
                if (v == kNoValue)
                    continue;
                const NodeId p = graph.value(v).producer;
                if (p < 0 || local[static_cast<size_t>(p)] < 0)
                    continue;
                const int from = local[static_cast<size_t>(p)];
                if (std::find(preds[i].begin(), preds[i].end(), from) != preds[i].end())
                    continue;
                preds[i].push_back(from);
                succs[static_cast<size_t>(from)].push_back(static_cast<int>(i));
            }
    }
    for (NodeId n : members)
        local[static_cast<size_t>(n)] = -1;
    // Longest path from the sources (Kahn's order); nodes on a cycle, which a valid graph has none of, stay at 0.
    std::vector<int> rank(count, 0), pending(count);
    std::vector<int> order;
    order.reserve(count);
    for (size_t i = 0; i < count; ++i) {
        pending[i] = static_cast<int>(preds[i].size());
        if (pending[i] == 0)
            order.push_back(static_cast<int>(i));
    }
    for (size_t k = 0; k < order.size(); ++k) {
        const int u = order[k];
        for (int w : succs[static_cast<size_t>(u)]) {
            rank[static_cast<size_t>(w)] = std::max(rank[static_cast<size_t>(w)], rank[static_cast<size_t>(u)] + 1);
            if (--pending[static_cast<size_t>(w)] == 0)
                order.push_back(w);
        }
    }
    for (size_t i = 0; i < count; ++i)
        if (preds[i].empty() && !succs[i].empty()) {
            int first = std::numeric_limits<int>::max();
            for (int w : succs[i])
                first = std::min(first, rank[static_cast<size_t>(w)]);
            rank[i] = std::max(0, first - 1);
        }
    const int ranks = *std::max_element(rank.begin(), rank.end()) + 1;
    if (ranks <= maxRanks)
        return;
    // crossing[t]: tensors produced at rank <= t and used after it.
    std::vector<int> crossing(static_cast<size_t>(ranks) + 1, 0);
    for (size_t i = 0; i < count; ++i) {
        int last = rank[i];
        for (int w : succs[i])
            last = std::max(last, rank[static_cast<size_t>(w)]);
        if (last > rank[i]) {
            crossing[static_cast<size_t>(rank[i])] += 1;
            crossing[static_cast<size_t>(last)] -= 1;
        }
    }
    for (size_t t = 1; t < crossing.size(); ++t)
        crossing[t] += crossing[t - 1];
    const int parts = std::clamp((ranks + kRanksPerStretch - 1) / kRanksPerStretch, 2, kMaxStretches);
    const double length = static_cast<double>(ranks) / parts;
    std::vector<int> ends; // the last rank of each stretch
    for (int start = 0; ranks - start > 1.5 * length;) {
        const int target = start + static_cast<int>(std::lround(length)) - 1;
        const int lo = start + std::max(0, static_cast<int>(std::ceil(0.6 * length)) - 1);
        const int hi = std::min(start + static_cast<int>(1.4 * length) - 1, ranks - 2);
        int best = std::clamp(target, lo, hi);
        for (int t = lo; t <= hi; ++t)
            if (crossing[static_cast<size_t>(t)] < crossing[static_cast<size_t>(best)]
                || (crossing[static_cast<size_t>(t)] == crossing[static_cast<size_t>(best)]
                    && std::abs(t - target) < std::abs(best - target)))
                best = t;
        ends.push_back(best);
        start = best + 1;
    }
    ends.push_back(ranks - 1);
    std::vector<std::vector<std::pair<int, NodeId>>> stretches(ends.size()); // (rank, node)
    for (size_t i = 0; i < count; ++i) {
        const size_t k = static_cast<size_t>(std::lower_bound(ends.begin(), ends.end(), rank[i]) - ends.begin());
        stretches[k].emplace_back(rank[i], members[i]);
    }
    raw[static_cast<size_t>(s)].nodes.clear();
    for (auto& ranked : stretches) {
        if (ranked.empty())
            continue;
        if (ranked.size() == 1) { // nothing to group
            raw[static_cast<size_t>(s)].nodes.push_back(ranked.front().second);
            continue;
        }
        // Named after its first and last node in rank order, so that the overview reads as the graph's own names.
        const auto [first, last] = std::minmax_element(ranked.begin(), ranked.end());
        RawScope stretch;
        stretch.name = QString::fromStdString(graph.node(first->second).displayName()) + QStringLiteral(" \u2026 ")
            + QString::fromStdString(graph.node(last->second).displayName());
        stretch.parent = s;
        for (const auto& member : ranked)
            stretch.nodes.push_back(member.second);
        std::sort(stretch.nodes.begin(), stretch.nodes.end());
        stretch.total = static_cast<int>(stretch.nodes.size());
        stretch.collapsedByDefault = true;
        stretch.isChain = true;
        raw.push_back(std::move(stretch));
        const int index = static_cast<int>(raw.size()) - 1;
        raw[static_cast<size_t>(s)].children.push_back(index);
        splitLongChains(graph, raw, index, maxRanks, local);
    }
    std::sort(raw[static_cast<size_t>(s)].nodes.begin(), raw[static_cast<size_t>(s)].nodes.end());
}

// Marks numbered siblings (layers.0 … layers.27, h.0 … h.11) to stay closed in the default view.
void markRepeatedSiblings(std::vector<RawScope>& raw, int s)
{
    static const QRegularExpression numbered(QStringLiteral("^(.*\\D)\\d+$"));
    QHash<QString, std::vector<int>> byStem;
    for (int c : raw[static_cast<size_t>(s)].children) {
        const QRegularExpressionMatch m = numbered.match(raw[static_cast<size_t>(c)].name);
        if (m.hasMatch())
            byStem[m.captured(1)].push_back(c);
        markRepeatedSiblings(raw, c);
    }
    for (const auto& siblings : std::as_const(byStem))
        if (siblings.size() >= static_cast<size_t>(ScopeTree::kRepeatedSiblings))
            for (int c : siblings)
                raw[static_cast<size_t>(c)].collapsedByDefault = true;
}

} // namespace

ScopeTree ScopeTree::build(
    const Graph& graph, const std::vector<bool>& hidden, int flatLimit, int blockSize, int maxChildren, int maxRanks)
{
    std::vector<RawScope> raw(1);
    QHash<QString, int> byPath;
    const auto& nodes = graph.nodes();
    std::vector<int> rawScopeOf(nodes.size(), -1);
    // A dynamo export groups by PyTorch module (pkg.torch.onnx.name_scopes); a node whose metadata does not parse
    // keeps the grouping by its name's "/" scopes, as other exports have it.
    const bool byModule = hasTorchModules(graph);
    for (const Node& node : nodes) {
        if (static_cast<size_t>(node.id) < hidden.size() && hidden[static_cast<size_t>(node.id)])
            continue;
        int current = 0;
        auto enter = [&](const QString& key, const QString& name, const QString& modulePath, const QString& cls) {
            auto it = byPath.find(key);
            if (it == byPath.end()) {
                RawScope scope;
                scope.name = name;
                scope.modulePath = modulePath;
                scope.className = cls;
                scope.parent = current;
                raw.push_back(scope);
                const int index = static_cast<int>(raw.size()) - 1;
                raw[static_cast<size_t>(current)].children.push_back(index);
                it = byPath.insert(key, index);
            }
            current = it.value();
        };
        TorchOrigin origin;
        if (byModule)
            origin = torchOrigin(node);
        if (origin.hasModules) {
            QString outer;
            for (const TorchModule& module : origin.modules) {
                const QString path = QString::fromStdString(module.path);
                if (path.isEmpty())
                    continue; // the root module is the graph
                // Named relative to the enclosing module: "layers.0" inside "model".
                const QString name
                    = !outer.isEmpty() && path.startsWith(outer + QLatin1Char('.')) ? path.mid(outer.size() + 1) : path;
                enter(QStringLiteral("module:") + path, name, path, QString::fromStdString(module.shortClassName()));
                outer = path;
            }
        } else {
            const QStringList parts = QString::fromStdString(node.name).split(QLatin1Char('/'), Qt::SkipEmptyParts);
            QString path;
            for (qsizetype i = 0; i + 1 < parts.size(); ++i) {
                path += QLatin1Char('/') + parts[i];
                enter(path, parts[i], {}, {});
            }
        }
        raw[static_cast<size_t>(current)].nodes.push_back(node.id);
        rawScopeOf[static_cast<size_t>(node.id)] = current;
    }
    computeTotal(raw, 0);
    normalise(raw, 0);
    computeTotal(raw, 0);
    if (raw[0].total > kRepeatedGraphNodes)
        markRepeatedSiblings(raw, 0);
    {
        std::vector<int> local(nodes.size(), -1);
        const size_t named = raw.size();
        for (size_t s = 0; s < named; ++s)
            if (!raw[s].removed)
                splitLongChains(graph, raw, static_cast<int>(s), maxRanks, local);
    }

    // Scopes with too many direct nodes to lay out flat are split into blocks of consecutive nodes.
    const size_t rawCount = raw.size();
    for (size_t s = 0; s < rawCount; ++s) {
        if (raw[s].removed || raw[s].nodes.size() <= static_cast<size_t>(flatLimit))
            continue;
        std::vector<NodeId> all = std::move(raw[s].nodes);
        raw[s].nodes.clear();
        for (size_t begin = 0; begin < all.size(); begin += static_cast<size_t>(blockSize)) {
            const size_t end = std::min(all.size(), begin + static_cast<size_t>(blockSize));
            RawScope block;
            block.name = QStringLiteral("nodes %1\u2013%2").arg(begin + 1).arg(end);
            block.parent = static_cast<int>(s);
            block.nodes.assign(
                all.begin() + static_cast<std::ptrdiff_t>(begin), all.begin() + static_cast<std::ptrdiff_t>(end));
            raw.push_back(std::move(block));
            raw[s].children.push_back(static_cast<int>(raw.size()) - 1);
        }
    }
    // Scopes with very many sub-scopes (layers.0 … layers.999) get an intermediate level of consecutive buckets, so
    // that opening one never puts more than about 50 boxes on screen.
    const size_t withBlocks = raw.size();
    for (size_t s = 0; s < withBlocks; ++s) {
        const size_t count = raw[s].children.size();
        if (raw[s].removed || count <= static_cast<size_t>(maxChildren))
            continue;
        const size_t bucket = std::max<size_t>(50, (count + 49) / 50);
        std::vector<int> buckets;
        for (size_t begin = 0; begin < count; begin += bucket) {
            const size_t end = std::min(count, begin + bucket);
            RawScope group;
            group.parent = static_cast<int>(s);
            group.children.assign(raw[s].children.begin() + static_cast<std::ptrdiff_t>(begin),
                raw[s].children.begin() + static_cast<std::ptrdiff_t>(end));
            group.name = raw[static_cast<size_t>(group.children.front())].name + QStringLiteral(" \u2026 ")
                + raw[static_cast<size_t>(group.children.back())].name;
            raw.push_back(std::move(group));
            const int index = static_cast<int>(raw.size()) - 1;
            for (int c : raw[static_cast<size_t>(index)].children)
                raw[static_cast<size_t>(c)].parent = index;
            buckets.push_back(index);
        }
        raw[s].children = std::move(buckets);
    }
    computeTotal(raw, 0);

    // Compact: renumber the kept scopes breadth first from the root.
    ScopeTree tree;
    tree.scopeOfNode.assign(nodes.size(), -1);
    std::vector<int> newIndex(raw.size(), -1);
    std::queue<int> queue;
    queue.push(0);
    newIndex[0] = 0;
    tree.scopes.push_back({});
    while (!queue.empty()) {
        const int r = queue.front();
        queue.pop();
        const int s = newIndex[static_cast<size_t>(r)];
        Scope& scope = tree.scopes[static_cast<size_t>(s)];
        scope.name = raw[static_cast<size_t>(r)].name;
        scope.modulePath = raw[static_cast<size_t>(r)].modulePath;
        scope.className = raw[static_cast<size_t>(r)].className;
        scope.collapsedByDefault = raw[static_cast<size_t>(r)].collapsedByDefault;
        scope.isChain = raw[static_cast<size_t>(r)].isChain;
        scope.nodes = raw[static_cast<size_t>(r)].nodes;
        scope.total = raw[static_cast<size_t>(r)].total;
        for (NodeId n : scope.nodes)
            tree.scopeOfNode[static_cast<size_t>(n)] = s;
        const auto children = raw[static_cast<size_t>(r)].children;
        const int depth = scope.depth;
        for (int c : children) {
            Scope child;
            child.parent = s;
            child.depth = depth + 1;
            tree.scopes.push_back(child);
            const int ci = static_cast<int>(tree.scopes.size()) - 1;
            tree.scopes[static_cast<size_t>(s)].children.push_back(ci);
            newIndex[static_cast<size_t>(c)] = ci;
            queue.push(c);
        }
    }
    return tree;
}

QString ScopeTree::path(int scope) const
{
    if (scope > 0 && !scopes[static_cast<size_t>(scope)].modulePath.isEmpty())
        return scopes[static_cast<size_t>(scope)].modulePath;
    QStringList parts;
    for (int s = scope; s > 0; s = scopes[static_cast<size_t>(s)].parent)
        parts.prepend(scopes[static_cast<size_t>(s)].name);
    return parts.join(QLatin1Char('/'));
}

QString ScopeTree::Scope::title() const
{
    return className.isEmpty() ? name : name + QStringLiteral(" \u00b7 ") + className;
}

bool ScopeTree::isAncestor(int ancestor, int scope) const
{
    for (int s = scope; s >= 0; s = scopes[static_cast<size_t>(s)].parent)
        if (s == ancestor)
            return true;
    return false;
}

std::set<int> ScopeTree::defaultExpansion(int budget) const
{
    std::set<int> expanded { 0 };
    if (scopes.empty())
        return expanded;
    long visible = static_cast<long>(scopes[0].nodes.size() + scopes[0].children.size());
    std::queue<int> queue;
    for (int c : scopes[0].children)
        queue.push(c);
    while (!queue.empty()) {
        const int s = queue.front();
        queue.pop();
        const auto& scope = scopes[static_cast<size_t>(s)];
        const long delta = static_cast<long>(scope.nodes.size() + scope.children.size()) - 1;
        if (scope.collapsedByDefault || visible + delta > budget)
            continue;
        visible += delta;
        expanded.insert(s);
        for (int c : scope.children)
            queue.push(c);
    }
    return expanded;
}

int ViewGraph::nodeItemCount() const
{
    return static_cast<int>(
        std::count_if(items.begin(), items.end(), [](const ViewItem& i) { return i.kind == ViewItem::Kind::Node; }));
}

int ViewGraph::itemOfValueProducer(ValueId value) const
{
    if (!graph || value < 0 || static_cast<size_t>(value) >= graph->values().size())
        return -1;
    const ValueInfo& v = graph->value(value);
    if (v.producer >= 0)
        return itemOfNode[static_cast<size_t>(v.producer)];
    for (size_t i = 0; i < items.size(); ++i)
        if (items[i].kind == ViewItem::Kind::Input && items[i].value == value)
            return static_cast<int>(i);
    return -1;
}

LayoutRequest ViewGraph::layoutRequest() const
{
    LayoutRequest request;
    request.nodes.reserve(items.size());
    for (const auto& item : items)
        request.nodes.push_back({ item.size.width(), item.size.height(), item.cluster });
    for (const auto& edge : edges)
        request.edges.push_back({ edge.from, edge.to, true });
    for (const auto& cluster : clusters)
        request.clusters.push_back({ cluster.parent, 18 });
    return request;
}

GraphOutline GraphOutline::build(const Graph& graph, bool foldConstants)
{
    GraphOutline outline;
    outline.graph = &graph;
    outline.folded.assign(graph.nodes().size(), false);
    std::set<ValueId> outputs(graph.outputs().begin(), graph.outputs().end());
    for (const Node& node : graph.nodes()) {
        if (!foldConstants)
            break;
        if (node.opType != "Constant" || !node.domain.empty() || !node.subgraphs.empty())
            continue;
        bool foldable = !node.outputs.empty();
        for (ValueId out : node.outputs)
            if (out == kNoValue || outputs.count(out) || graph.value(out).consumers.empty())
                foldable = false;
        outline.folded[static_cast<size_t>(node.id)] = foldable;
    }
    outline.scopes = ScopeTree::build(graph, outline.folded);
    return outline;
}

QString informativeNodeName(const Node& node)
{
    if (node.name.empty())
        return {};
    QString last = QString::fromStdString(node.name).section(QLatin1Char('/'), -1);
    if (last.isEmpty())
        return {};
    QString core = last;
    if (core.startsWith(QStringLiteral("p2o."), Qt::CaseInsensitive))
        core = core.mid(4);
    const QString op = QString::fromStdString(node.opType);
    static const QRegularExpression suffix(QStringLiteral("^([_.:\\-]?\\d+)*$"));
    if (core.startsWith(op, Qt::CaseInsensitive) && suffix.match(core.mid(op.size())).hasMatch())
        return {};
    return last;
}

namespace {

bool isFoldedValue(const GraphOutline& outline, const ValueInfo& v)
{
    if (v.hasInitializer() && (v.source == ValueInfo::Source::Initializer || v.source == ValueInfo::Source::Input))
        return true;
    return v.producer >= 0 && outline.folded[static_cast<size_t>(v.producer)];
}

QString foldedRow(
    const GraphOutline& outline, const Node& consumer, size_t port, const ValueInfo& v, const ValueType& type)
{
    QString name = QString::fromStdString(inputPortName(consumer, port));
    if (name.isEmpty())
        name = QString::fromStdString(v.name);
    Tensor small;
    try {
        if (v.hasInitializer()) {
            if (const InitializerInfo initializer = v.initializerInfo(); !initializer.external) {
                int64_t count = 1;
                for (int64_t d : initializer.shape)
                    count *= d;
                if (count <= 6)
                    small = v.initializerTensor();
            }
        } else if (v.producer >= 0) {
            const Node& c = outline.graph->node(v.producer);
            if (c.attributes.has("value")) {
                Tensor t = c.attributes.getTensor("value");
                if (t.size() <= 6)
                    small = t;
            }
        }
    } catch (const std::exception&) {
        small = Tensor();
    }
    if (small.defined() && small.dtype() != DataType::String) {
        QString values = formatTensorValues(small, 6);
        // Exporters write "to the end" of a Slice as the largest integer: say so.
        if (consumer.opType == "Slice" && consumer.domain.empty()
            && (name == QLatin1String("ends") || name == QLatin1String("starts"))) {
            static const QRegularExpression largest(QStringLiteral("(?<![\\d-])(9223372036854775807|2147483647)"));
            // Backwards to the start: the smallest integer, or minus the largest.
            static const QRegularExpression smallest(
                QStringLiteral("-(9223372036854775808|9223372036854775807|2147483648|2147483647)"));
            values.replace(largest, QStringLiteral("end")).replace(smallest, QStringLiteral("-end"));
        }
        return name + QStringLiteral(" = ") + values;
    }
    return name + QStringLiteral(" \u27e8") + formatShape(type) + QStringLiteral("\u27e9");
}

void measure(ViewItem& item)
{
    const GraphStyle& style = GraphStyle::instance();
    const QFontMetricsF title(style.titleFont);
    const QFontMetricsF text(style.textFont);
    double width = title.horizontalAdvance(item.title);
    double lines = 0;
    if (!item.subtitle.isEmpty()) {
        width = std::max(width, text.horizontalAdvance(item.subtitle));
        lines += 1;
    }
    for (const auto& row : item.rows)
        width = std::max(width, text.horizontalAdvance(row));
    lines += item.rows.size();
    width += 2 * style.padding;
    switch (item.kind) {
    case ViewItem::Kind::Node:
        if (item.hasSubgraphs || item.isFunction)
            width += 14;
        item.size = QSizeF(std::clamp(width, style.minNodeWidth, style.maxNodeWidth),
            style.headerHeight + (lines > 0 ? lines * style.rowHeight + 8 : 0));
        break;
    case ViewItem::Kind::Group:
        item.size = QSizeF(
            std::clamp(width + 16, 120.0, style.maxNodeWidth + 40), style.headerHeight + lines * style.rowHeight + 12);
        break;
    case ViewItem::Kind::Input:
    case ViewItem::Kind::Output:
        item.size = QSizeF(std::clamp(width + 16, 70.0, style.maxNodeWidth), 34);
        break;
    }
}

} // namespace

ViewGraph buildViewGraph(const GraphOutline& outline, const std::set<int>& expanded, const ValueTypeFunction& typeOf)
{
    const Graph& graph = *outline.graph;
    const ScopeTree& tree = outline.scopes;
    ViewGraph view;
    view.graph = &graph;
    view.itemOfNode.assign(graph.nodes().size(), -1);

    // rep[s]: the outermost collapsed scope containing s (-1 if s is visible); clusterOf[s] for visible scopes.
    const size_t scopeCount = tree.scopes.size();
    std::vector<int> rep(scopeCount, -1), clusterOf(scopeCount, -1);
    for (size_t s = 1; s < scopeCount; ++s) { // breadth-first numbering: parents come first
        const auto& scope = tree.scopes[s];
        const int p = scope.parent;
        if (rep[static_cast<size_t>(p)] != -1) {
            rep[s] = rep[static_cast<size_t>(p)];
        } else if (!expanded.count(static_cast<int>(s))) {
            rep[s] = static_cast<int>(s);
        } else {
            ViewCluster cluster;
            cluster.scope = static_cast<int>(s);
            cluster.parent = clusterOf[static_cast<size_t>(p)];
            cluster.title = scope.title();
            cluster.nodeCount = scope.total;
            view.clusters.push_back(cluster);
            clusterOf[s] = static_cast<int>(view.clusters.size()) - 1;
        }
    }

    auto typeLabel = [&](ValueId v) { return typeOf ? formatTypeShort(typeOf(graph, v)) : QStringLiteral("?"); };
    auto typeOfValue = [&](ValueId v) { return typeOf ? typeOf(graph, v) : graph.value(v).type; };

    std::unordered_map<ValueId, int> inputItem;
    auto addInput = [&](ValueId v, bool outer) {
        ViewItem item;
        item.kind = ViewItem::Kind::Input;
        item.value = v;
        item.outerScope = outer;
        item.title = QString::fromStdString(graph.value(v).name);
        item.subtitle = typeLabel(v);
        measure(item);
        view.items.push_back(item);
        inputItem[v] = static_cast<int>(view.items.size()) - 1;
    };
    for (ValueId v : graph.inputs())
        if (!isFoldedValue(outline, graph.value(v)))
            addInput(v, false);
    for (ValueId v : graph.outerScopeValues())
        addInput(v, true);

    std::unordered_map<int, int> groupItem;
    std::unordered_map<int, std::map<std::string, int>> groupOps;
    for (const Node& node : graph.nodes()) {
        const size_t n = static_cast<size_t>(node.id);
        if (outline.folded[n])
            continue;
        const int s = tree.scopeOfNode[n];
        const int r = s >= 0 ? rep[static_cast<size_t>(s)] : -1;
        if (r >= 0) {
            groupOps[r][node.opType] += 1;
            auto it = groupItem.find(r);
            if (it == groupItem.end()) {
                ViewItem item;
                item.kind = ViewItem::Kind::Group;
                item.scope = r;
                item.cluster = clusterOf[static_cast<size_t>(tree.scopes[static_cast<size_t>(r)].parent)];
                item.title = tree.scopes[static_cast<size_t>(r)].title();
                item.nodeCount = tree.scopes[static_cast<size_t>(r)].total;
                item.subtitle
                    = item.nodeCount == 1 ? QStringLiteral("1 node") : QStringLiteral("%1 nodes").arg(item.nodeCount);
                item.colour = QColor(0x4b, 0x6e, 0x9a);
                view.items.push_back(item);
                it = groupItem.emplace(r, static_cast<int>(view.items.size()) - 1).first;
            }
            view.itemOfNode[n] = it->second;
            continue;
        }
        ViewItem item;
        item.kind = ViewItem::Kind::Node;
        item.node = node.id;
        item.cluster = s >= 0 ? clusterOf[static_cast<size_t>(s)] : -1;
        item.title = QString::fromStdString(node.opType);
        item.subtitle = informativeNodeName(node);
        item.colour = OpCategories::instance().colour(item.title);
        for (size_t i = 0; i < node.inputs.size(); ++i) {
            const ValueId v = node.inputs[i];
            if (v != kNoValue && isFoldedValue(outline, graph.value(v)))
                item.rows << foldedRow(outline, node, i, graph.value(v), typeOfValue(v));
        }
        for (const auto& [attr, sub] : node.subgraphs) {
            item.hasSubgraphs = true;
            item.rows
                << QStringLiteral("\u25b8 %1 (%2 nodes)").arg(QString::fromStdString(attr)).arg(sub->nodes().size());
        }
        if (node.functionBody) {
            item.isFunction = true;
            item.rows << QStringLiteral("\u25b8 function body (%1 nodes)").arg(node.functionBody->nodes().size());
        }
        measure(item);
        view.items.push_back(item);
        view.itemOfNode[n] = static_cast<int>(view.items.size()) - 1;
    }
    for (auto& [r, ops] : groupOps) {
        std::vector<std::pair<int, std::string>> sorted;
        for (const auto& [op, count] : ops)
            sorted.emplace_back(-count, op);
        std::sort(sorted.begin(), sorted.end());
        QStringList parts;
        for (size_t i = 0; i < sorted.size() && i < 3; ++i)
            parts << (sorted[i].first == -1 ? QString::fromStdString(sorted[i].second)
                                            : QStringLiteral("%1 \u00d7%2")
                                                  .arg(QString::fromStdString(sorted[i].second))
                                                  .arg(-sorted[i].first));
        if (sorted.size() > 3)
            parts << QString(QChar(0x2026));
        ViewItem& item = view.items[static_cast<size_t>(groupItem[r])];
        item.rows << parts.join(QStringLiteral(" \u00b7 "));
        measure(item);
    }
    // Folded constants point at their first consumer, so that search and "centre on" land somewhere useful.
    for (const Node& node : graph.nodes()) {
        if (!outline.folded[static_cast<size_t>(node.id)])
            continue;
        for (ValueId out : node.outputs)
            if (out != kNoValue && !graph.value(out).consumers.empty()) {
                view.itemOfNode[static_cast<size_t>(node.id)]
                    = view.itemOfNode[static_cast<size_t>(graph.value(out).consumers.front())];
                break;
            }
    }
    std::vector<int> outputItem;
    for (ValueId v : graph.outputs()) {
        ViewItem item;
        item.kind = ViewItem::Kind::Output;
        item.value = v;
        item.title = QString::fromStdString(graph.value(v).name);
        item.subtitle = typeLabel(v);
        measure(item);
        view.items.push_back(item);
        outputItem.push_back(static_cast<int>(view.items.size()) - 1);
    }

    // One edge per pair of boxes; an outer-scope read only draws dashed when no real input joins the same boxes.
    std::map<std::pair<int, int>, size_t> edgeIndex;
    auto addEdge = [&](int from, int to, ValueId v, bool implicit) {
        if (from < 0 || to < 0 || from == to)
            return;
        const auto key = std::make_pair(from, to);
        auto it = edgeIndex.find(key);
        if (it == edgeIndex.end()) {
            ViewEdge edge;
            edge.from = from;
            edge.to = to;
            edge.implicit = implicit;
            view.edges.push_back(edge);
            it = edgeIndex.emplace(key, view.edges.size() - 1).first;
        }
        ViewEdge& edge = view.edges[it->second];
        edge.implicit = edge.implicit && implicit;
        if (std::find(edge.values.begin(), edge.values.end(), v) == edge.values.end())
            edge.values.push_back(v);
    };
    auto sourceOf = [&](ValueId v) -> int {
        const ValueInfo& info = graph.value(v);
        if (info.producer >= 0)
            return outline.folded[static_cast<size_t>(info.producer)]
                ? -1
                : view.itemOfNode[static_cast<size_t>(info.producer)];
        auto it = inputItem.find(v);
        return it == inputItem.end() ? -1 : it->second;
    };
    for (const Node& node : graph.nodes()) {
        if (outline.folded[static_cast<size_t>(node.id)])
            continue;
        const int to = view.itemOfNode[static_cast<size_t>(node.id)];
        for (ValueId v : node.inputs)
            if (v != kNoValue && !isFoldedValue(outline, graph.value(v)))
                addEdge(sourceOf(v), to, v, false);
        for (ValueId v : node.implicitInputs)
            if (v != kNoValue && !isFoldedValue(outline, graph.value(v)))
                addEdge(sourceOf(v), to, v, true);
    }
    for (size_t i = 0; i < graph.outputs().size(); ++i)
        addEdge(sourceOf(graph.outputs()[i]), outputItem[i], graph.outputs()[i], false);
    for (auto& edge : view.edges)
        edge.label = edge.values.size() == 1 ? typeLabel(edge.values.front())
                                             : QStringLiteral("%1 tensors").arg(edge.values.size());
    return view;
}

} // namespace onnxscope
