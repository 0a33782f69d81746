// SPDX-License-Identifier: MIT
#pragma once

// Compare by PyTorch module (issue #44): the outputs each module of a PyTorch model produced, as
// `onnxscope.torch.capture` records them in an .npz keyed by module path (docs/torch-compare.md), against the values
// that leave that module's scope in a dynamo export of the model (`pkg.torch.onnx.name_scopes`).

#include "engine/compare/run_comparison.h"

#include <optional>
#include <string>
#include <vector>

namespace onnxscope {

/// One key of a capture archive: `PATH`, `PATH#K` (the K-th tensor output), `PATH@C` (the C-th call of a module
/// called more than once, from 0) or `PATH@C#K`.
struct ModuleOutputKey {
    std::string module; // "blocks.0.attn"
    int call = 0;
    int output = -1; // -1: the module's only tensor output (no "#K")
};
/// Reads a key of that grammar; nullopt if `key` is not one (empty path, a bad number).
std::optional<ModuleOutputKey> parseModuleOutputKey(const std::string& key);

/// One module output of the reference paired with a value of the graph (or left unpaired).
struct ModuleOutputRow {
    std::string key; // the archive's key
    int output = -1; // as in ModuleOutputKey
    std::string value; // the graph value paired with it, "" if none
    std::string node, opType; // that value's producer
    NodeId nodeId = -1;
    /// Match / Mismatch / ShapeMismatch / KindMismatch after comparing; OnlyB when no value of the graph could be
    /// paired with it (see note); Skipped when the run stopped before its value was computed.
    CompareStatus status = CompareStatus::OnlyB;
    ValueStats stats;
    std::string typeA, typeB; // the run's value ("" if none) and the reference's
    std::string pairedBy; // "only value", "shape", "order" (several of the same shape: by execution order), ""
    std::string note;
};

/// One call of one module: its outputs compared.
struct ModuleCompare {
    std::string path; // "blocks.0.attn"
    std::string className; // full class from pkg.torch.onnx.class_hierarchy
    int call = 0;
    int calls = 1; // how many calls the reference recorded for this module
    size_t depth = 0; // number of dots + 1: a child's is larger than its parent's
    /// The worst of its rows: Match, a divergent status, or OnlyB / Skipped when none of its outputs was compared.
    CompareStatus status = CompareStatus::OnlyB;
    double maxAbsError = 0, maxRelError = 0, minCosine = 1;
    NodeId lastNode = -1; // the last node (execution order) producing one of its paired outputs
    std::vector<size_t> rows; // into ModuleComparisonResult::rows
    std::string note;
};

/// A key of the reference that names no module of the graph, with the module paths nearest to it.
struct UnmatchedModuleKey {
    std::string key;
    std::vector<std::string> nearest;
};

struct ModuleComparisonResult {
    Tolerance tolerance;
    std::string sideA, sideB;
    std::shared_ptr<const Program> programA; // keeps the graph the rows name alive
    /// Module calls in execution order: by the last node producing their outputs, a child before its parent when they
    /// end on the same value (the order in which PyTorch's forward hooks fire).
    std::vector<ModuleCompare> modules;
    std::vector<ModuleOutputRow> rows;
    /// Index into `modules` of the first module call whose outputs diverge.
    std::optional<size_t> firstDivergence;
    std::vector<UnmatchedModuleKey> unmatchedKeys;
    size_t graphModules = 0; // modules the graph's metadata names
    std::string errorA; // the run stopped on this error (what ran before it is compared)
    bool cancelled = false;

    size_t countModules(CompareStatus status) const;
    /// A module's outputs diverge, or the run failed or was cancelled.
    bool hasDivergence() const;
};

/// The module paths of `candidates` nearest to `key` by edit distance (at most `count`, nearest first).
std::vector<std::string> nearestModulePaths(
    const std::string& key, const std::vector<std::string>& candidates, size_t count = 3);

/// Runs side A (a dynamo export: its nodes carry pkg.torch.onnx.name_scopes) and compares, for every module call of
/// the reference, the module's outputs with the values leaving that module's scope in the graph: produced by a node
/// inside it (a submodule's included, nodes without metadata taking the scope of their neighbours) and read by a node
/// outside it or a graph output. Several outputs pair by shape, then by execution order; several calls of a shared
/// module pair with the scope's separate connected parts in execution order.
/// Throws Error when the graph has no module metadata, or when no key of the reference names a module of the graph
/// (the message lists the nearest module paths). Keys naming no module are listed in `unmatchedKeys` otherwise.
ModuleComparisonResult compareModulesWithReference(
    const RunSide& a, const ReferenceValues& reference, const CompareOptions& options = {});

/// The module comparison as a value comparison, for views built on ComparisonResult (the GUI's Compare table, graph
/// colouring, fetching a pair again): one row per module output (name: the graph value, or the key when unpaired;
/// nameB: the archive key; note: the module), one NodeCompare per paired output, in module order, `root` on the
/// divergent ones, and firstDivergence at the first divergent module's first divergent output.
ComparisonResult moduleComparisonAsValues(const ModuleComparisonResult& res);

/// The result as JSON ("onnxscope-module-compare", version 1, docs/torch-compare.md): what `compare --by module
/// --json` writes and what the Python module returns.
std::string moduleComparisonJson(const ModuleComparisonResult& res, int indent = 2);

} // namespace onnxscope
