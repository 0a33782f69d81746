// SPDX-License-Identifier: MIT
#include "engine/kernels/ml/tree_model.h"

#include "engine/kernels/ml/ml_common.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace onnxscope::ml {

namespace {

NodeMode parseMode(const NodeAttributes& a, const std::string& s)
{
    if (s == "BRANCH_LEQ")
        return NodeMode::Leq;
    if (s == "BRANCH_LT")
        return NodeMode::Lt;
    if (s == "BRANCH_GTE")
        return NodeMode::Gte;
    if (s == "BRANCH_GT")
        return NodeMode::Gt;
    if (s == "BRANCH_EQ")
        return NodeMode::Eq;
    if (s == "BRANCH_NEQ")
        return NodeMode::Neq;
    if (s == "LEAF")
        return NodeMode::Leaf;
    throw a.error("nodes_modes", "unknown mode \"" + s + "\"");
}

template <class X> inline bool goesTrue(const TreeModel::FlatNode& node, X v)
{
    const double x = static_cast<double>(v);
    if constexpr (std::is_floating_point_v<X>)
        if (node.missingTrue && std::isnan(x))
            return true;
    switch (node.mode) {
    case NodeMode::Leq:
        return x <= node.threshold;
    case NodeMode::Lt:
        return x < node.threshold;
    case NodeMode::Gte:
        return x >= node.threshold;
    case NodeMode::Gt:
        return x > node.threshold;
    case NodeMode::Eq:
        return x == node.threshold;
    case NodeMode::Neq:
        return x != node.threshold;
    case NodeMode::Leaf:
        break;
    }
    return false;
}

} // namespace

Aggregate readAggregate(const NodeAttributes& a)
{
    const std::string s = a.getString("aggregate_function", "SUM");
    if (s == "SUM")
        return Aggregate::Sum;
    if (s == "AVERAGE")
        return Aggregate::Average;
    if (s == "MIN")
        return Aggregate::Min;
    if (s == "MAX")
        return Aggregate::Max;
    throw a.error("aggregate_function", "unknown value \"" + s + "\" (expected SUM, AVERAGE, MIN or MAX)");
}

TreeModel TreeModel::build(const KernelInit& init, const std::string& prefix, int64_t targets)
{
    const auto& a = init.attributes();
    const auto treeIds = a.getInts("nodes_treeids");
    const auto nodeIds = a.getInts("nodes_nodeids");
    const auto featureIds = a.getInts("nodes_featureids");
    const auto modes = a.getStrings("nodes_modes");
    const auto values = readFloatsOrTensor(a, "nodes_values");
    const auto trueIds = a.getInts("nodes_truenodeids");
    const auto falseIds = a.getInts("nodes_falsenodeids");
    const auto missing = a.getInts("nodes_missing_value_tracks_true");
    const size_t count = treeIds.size();
    auto sameSize = [&](size_t size, const char* name, bool optional) {
        if (size != count && !(optional && size == 0))
            throw a.error(name,
                "has " + std::to_string(size) + " values, expected " + std::to_string(count)
                    + " (one per node, as nodes_treeids)");
    };
    sameSize(nodeIds.size(), "nodes_nodeids", false);
    sameSize(featureIds.size(), "nodes_featureids", false);
    sameSize(modes.size(), "nodes_modes", false);
    sameSize(values.size(), "nodes_values", false);
    sameSize(trueIds.size(), "nodes_truenodeids", false);
    sameSize(falseIds.size(), "nodes_falsenodeids", false);
    sameSize(missing.size(), "nodes_missing_value_tracks_true", true);
    if (count > static_cast<size_t>(std::numeric_limits<int32_t>::max() / 2))
        throw init.error("too many tree nodes (" + std::to_string(count) + ")");

    std::map<std::pair<int64_t, int64_t>, size_t> byId; // (tree, node) -> attribute index
    for (size_t i = 0; i < count; ++i)
        if (!byId.emplace(std::pair { treeIds[i], nodeIds[i] }, i).second)
            throw a.error("nodes_nodeids",
                "node " + std::to_string(nodeIds[i]) + " of tree " + std::to_string(treeIds[i]) + " is defined twice");
    std::vector<NodeMode> parsed(count);
    std::vector<int64_t> trueIdx(count, -1), falseIdx(count, -1);
    std::vector<uint8_t> isChild(count, 0);
    for (size_t i = 0; i < count; ++i) {
        parsed[i] = parseMode(a, modes[i]);
        if (parsed[i] == NodeMode::Leaf)
            continue;
        auto child = [&](int64_t id, const char* name) {
            auto it = byId.find({ treeIds[i], id });
            if (it == byId.end())
                throw a.error(name,
                    "node " + std::to_string(nodeIds[i]) + " of tree " + std::to_string(treeIds[i]) + " points to node "
                        + std::to_string(id) + ", which does not exist in that tree");
            isChild[it->second] = 1;
            return static_cast<int64_t>(it->second);
        };
        trueIdx[i] = child(trueIds[i], "nodes_truenodeids");
        falseIdx[i] = child(falseIds[i], "nodes_falsenodeids");
        if (featureIds[i] < 0 || featureIds[i] > std::numeric_limits<int32_t>::max())
            throw a.error("nodes_featureids", "feature " + std::to_string(featureIds[i]) + " is out of range");
    }

    TreeModel m;
    m.targets = targets;
    // Leaf weights, grouped by node.
    const auto wTree = a.getInts(prefix + "_treeids");
    const auto wNode = a.getInts(prefix + "_nodeids");
    const auto wId = a.getInts(prefix + "_ids");
    const auto wValue = readFloatsOrTensor(a, prefix + "_weights");
    if (wNode.size() != wTree.size() || wId.size() != wTree.size() || wValue.size() != wTree.size())
        throw init.error("'" + prefix + "_treeids', '" + prefix + "_nodeids', '" + prefix + "_ids' and '" + prefix
            + "_weights' must have the same length");
    std::vector<std::vector<Weight>> leafWeights(count);
    for (size_t k = 0; k < wTree.size(); ++k) {
        auto it = byId.find({ wTree[k], wNode[k] });
        if (it == byId.end())
            throw a.error(prefix + "_nodeids",
                "weight " + std::to_string(k) + " refers to node " + std::to_string(wNode[k]) + " of tree "
                    + std::to_string(wTree[k]) + ", which does not exist");
        if (wId[k] < 0 || wId[k] >= targets)
            throw a.error(prefix + "_ids",
                "weight " + std::to_string(k) + " is for " + prefix + " " + std::to_string(wId[k]) + ", outside [0, "
                    + std::to_string(targets) + ")");
        leafWeights[it->second].push_back({ static_cast<int32_t>(wId[k]), wValue[k] });
    }

    // Roots: nodes no other node points to, one per tree, in tree id order (byId is sorted by tree then node).
    std::map<int64_t, size_t> rootOf;
    for (const auto& [key, i] : byId)
        if (!isChild[i] && !rootOf.emplace(key.first, i).second)
            throw a.error("nodes_treeids",
                "tree " + std::to_string(key.first) + " has more than one root (nodes no other node points to)");
    std::vector<int32_t> pos(count, -1);
    m.nodes.reserve(count); // never reallocated below: the stack holds pointers into it
    m.leafWeights.reserve(count);
    for (const auto& [tree, root] : rootOf) {
        // Depth-first copy; a node reached twice means the "tree" has a cycle or shared children.
        struct Item {
            size_t index;
            int32_t* patch;
            int32_t depth;
        };
        std::vector<Item> stack { { root, nullptr, 0 } };
        m.roots.push_back(static_cast<int32_t>(m.nodes.size()));
        int32_t treeDepth = 0;
        while (!stack.empty()) {
            auto [i, patch, depth] = stack.back();
            stack.pop_back();
            if (pos[i] >= 0)
                throw a.error("nodes_truenodeids",
                    "tree " + std::to_string(tree) + " is not a tree: node " + std::to_string(nodeIds[i])
                        + " is reached twice");
            const int32_t p = static_cast<int32_t>(m.nodes.size());
            pos[i] = p;
            if (patch)
                *patch = p;
            FlatNode node {};
            node.mode = parsed[i];
            node.threshold = values[i];
            node.feature = static_cast<int32_t>(featureIds[i]);
            node.missingTrue = missing.empty() ? 0 : static_cast<uint8_t>(missing[i] != 0);
            if (node.mode == NodeMode::Leaf) {
                node.feature = 0;
                node.truePos = node.falsePos = p;
                m.leafWeights.emplace_back(
                    static_cast<int32_t>(m.weights.size()), static_cast<int32_t>(leafWeights[i].size()));
                m.weights.insert(m.weights.end(), leafWeights[i].begin(), leafWeights[i].end());
                m.nodes.push_back(node);
                treeDepth = std::max(treeDepth, depth);
                continue;
            }
            if (node.mode != NodeMode::Leq || node.missingTrue)
                m.allLeq = false;
            m.maxFeature = std::max<int64_t>(m.maxFeature, node.feature);
            m.nodes.push_back(node);
            m.leafWeights.emplace_back(0, 0);
            // Children are patched in when they are copied; the true child comes right after its parent.
            stack.push_back({ static_cast<size_t>(falseIdx[i]), &m.nodes[static_cast<size_t>(p)].falsePos, depth + 1 });
            stack.push_back({ static_cast<size_t>(trueIdx[i]), &m.nodes[static_cast<size_t>(p)].truePos, depth + 1 });
        }
        m.depths.push_back(treeDepth);
    }
    for (size_t i = 0; i < count; ++i)
        if (pos[i] < 0)
            throw a.error("nodes_nodeids",
                "node " + std::to_string(nodeIds[i]) + " of tree " + std::to_string(treeIds[i])
                    + " cannot be reached from the root of its tree");
    if (m.weights.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max()))
        throw init.error("too many leaf weights");
    const bool floatThresholds = std::all_of(m.nodes.begin(), m.nodes.end(),
        [](const FlatNode& nd) { return static_cast<double>(static_cast<float>(nd.threshold)) == nd.threshold; });
    if (m.allLeq && floatThresholds) {
        m.floatNodes.reserve(m.nodes.size());
        for (const FlatNode& nd : m.nodes)
            m.floatNodes.push_back({ static_cast<float>(nd.threshold), nd.feature, nd.truePos, nd.falsePos });
    }
    return m;
}

template <class X>
void TreeModel::evaluate(const X* x, int64_t n, int64_t features, Aggregate agg, double* scores, uint8_t* has) const
{
    // Rows are processed in blocks, all trees per block, so that a tree's nodes stay in cache across the block.
    constexpr int64_t kBlock = 128;
    constexpr int64_t kLanes = 16;
    const FlatNode* base = nodes.data();
    auto accumulate = [&](int64_t r, int32_t leaf) {
        double* s = scores + r * targets;
        uint8_t* h = has + r * targets;
        const auto [first, count] = leafWeights[static_cast<size_t>(leaf)];
        for (const Weight* w = weights.data() + first; w != weights.data() + first + count; ++w) {
            double& dst = s[w->target];
            switch (agg) {
            case Aggregate::Sum:
            case Aggregate::Average:
                dst += w->value;
                break;
            case Aggregate::Min:
                dst = h[w->target] && dst <= w->value ? dst : w->value;
                break;
            case Aggregate::Max:
                dst = h[w->target] && dst >= w->value ? dst : w->value;
                break;
            }
            h[w->target] = 1;
        }
    };
    // kLanes rows step through a tree together: independent chains the CPU overlaps. Leaves point to themselves, so
    // `depth` steps end on every row's leaf. Node is FlatNode (compared in double) or FloatNode (float inputs).
    auto lanes = [&]<class Node, class C>(const Node* nodesOf, int64_t r, int32_t root, int32_t depth) {
        int32_t pos[kLanes];
        const X* rows[kLanes];
        for (int64_t k = 0; k < kLanes; ++k) {
            pos[k] = root;
            rows[k] = x + (r + k) * features;
        }
        for (int32_t d = 0; d < depth; ++d)
            for (int64_t k = 0; k < kLanes; ++k) {
                const Node& nd = nodesOf[pos[k]];
                // Branch-free select: the comparison is data-dependent and a conditional jump would mispredict on
                // about half the steps.
                const int32_t goTrue = -static_cast<int32_t>(static_cast<C>(rows[k][nd.feature]) <= nd.threshold);
                pos[k] = nd.falsePos ^ ((nd.truePos ^ nd.falsePos) & goTrue);
            }
        for (int64_t k = 0; k < kLanes; ++k)
            accumulate(r + k, pos[k]);
    };
    const bool useFloat = std::is_same_v<X, float> && !floatNodes.empty();
    for (int64_t r0 = 0; r0 < n; r0 += kBlock) {
        const int64_t r1 = std::min(n, r0 + kBlock);
        for (size_t t = 0; t < roots.size(); ++t) {
            const int32_t root = roots[t];
            const int32_t depth = depths[t];
            int64_t r = r0;
            if (useFloat) {
                for (; r + kLanes <= r1; r += kLanes)
                    lanes.template operator()<FloatNode, float>(floatNodes.data(), r, root, depth);
            } else if (allLeq) {
                for (; r + kLanes <= r1; r += kLanes)
                    lanes.template operator()<FlatNode, double>(base, r, root, depth);
            }
            for (; r < r1; ++r) {
                const X* row = x + r * features;
                const FlatNode* node = base + root;
                while (node->mode != NodeMode::Leaf)
                    node = base + (goesTrue(*node, row[node->feature]) ? node->truePos : node->falsePos);
                accumulate(r, static_cast<int32_t>(node - base));
            }
        }
    }
}

template void TreeModel::evaluate<float>(const float*, int64_t, int64_t, Aggregate, double*, uint8_t*) const;
template void TreeModel::evaluate<double>(const double*, int64_t, int64_t, Aggregate, double*, uint8_t*) const;
template void TreeModel::evaluate<int32_t>(const int32_t*, int64_t, int64_t, Aggregate, double*, uint8_t*) const;
template void TreeModel::evaluate<int64_t>(const int64_t*, int64_t, int64_t, Aggregate, double*, uint8_t*) const;

} // namespace onnxscope::ml
