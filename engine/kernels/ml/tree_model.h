// SPDX-License-Identifier: MIT
#pragma once

// The flattened tree ensemble shared by TreeEnsembleRegressor/Classifier (and their mlprodict *Double variants).
// Include only from kernel .cpp files.

#include "engine/kernels/kernel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace onnxscope::ml {

enum class NodeMode : uint8_t { Leq, Lt, Gte, Gt, Eq, Neq, Leaf };
enum class Aggregate { Sum, Average, Min, Max };

/// A tree ensemble flattened into one compact node array (each tree contiguous, in depth-first order) so that
/// evaluation touches no allocator and little memory. A branch node holds its threshold, feature and the array
/// positions of its children; a leaf holds the range of its weights in `weights`.
struct TreeModel {
    struct FlatNode {
        double threshold; // thresholds are compared in double: exact for float and double inputs alike
        int32_t feature; // branch: feature index
        int32_t truePos; // branch: position of the true child; leaf: its own position
        int32_t falsePos; // branch: position of the false child; leaf: its own position
        NodeMode mode;
        uint8_t missingTrue; // NaN goes to the true child
    };
    struct Weight {
        int32_t target;
        double value;
    };
    /// The fast path's copy of `nodes` for float inputs when every branch is BRANCH_LEQ and every threshold is exactly
    /// a float (as the float nodes_values attribute always is): the comparison is the same in float as in double, and
    /// a node takes 16 bytes, four per cache line.
    struct FloatNode {
        float threshold;
        int32_t feature;
        int32_t truePos;
        int32_t falsePos;
    };
    std::vector<FlatNode> nodes;
    std::vector<FloatNode> floatNodes; // empty unless the float fast path applies
    std::vector<int32_t> roots; // one per tree, in tree id order
    std::vector<int32_t> depths; // per tree: the most branch nodes on a path from its root to a leaf
    std::vector<std::pair<int32_t, int32_t>> leafWeights; // by node position: first weight and count (leaves)
    std::vector<Weight> weights;
    int64_t targets = 0; // targets (regressor) or classes (classifier)
    int64_t maxFeature = -1;
    bool allLeq = true; // every branch is BRANCH_LEQ without missing-value tracking: the fast path

    /// Reads the nodes_* attributes and the leaf weights (prefix "target" or "class"); every inconsistency is an
    /// error naming the node and the attribute.
    static TreeModel build(const KernelInit& init, const std::string& weightPrefix, int64_t targets);

    /// Leaves point to themselves, so a fixed number of steps (the tree's depth) reaches the leaf without testing
    /// for it; the fast path steps several rows through a tree at once, interleaved.
    /// Evaluates every tree on rows [0, n) of x (row stride `features`), aggregating leaf weights into
    /// scores[row * targets + t] (initialised by the caller) and marking hasScore likewise.
    template <class X>
    void evaluate(const X* x, int64_t n, int64_t features, Aggregate agg, double* scores, uint8_t* hasScore) const;
};

Aggregate readAggregate(const NodeAttributes& attributes);

} // namespace onnxscope::ml
