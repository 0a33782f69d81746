// SPDX-License-Identifier: MIT
#pragma once

#include "engine/compare/reference_values.h"
#include "engine/compare/value_alignment.h"
#include "engine/compare/value_comparison.h"
#include "engine/exec/session.h"

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace onnxscope {

/// Where a compared value came from.
enum class ValueOrigin { GraphInput, Initializer, NodeOutput };
std::string_view valueOriginName(ValueOrigin origin);

/// One value of the comparison: a graph input, an initializer or one output of one executed node, in one frame.
struct CompareRow {
    CompareStatus status = CompareStatus::Match;
    ValueOrigin origin = ValueOrigin::NodeOutput;
    std::string name; // side A's name (side B's for OnlyB rows)
    std::string nameB; // the name on side B (differs from `name` when mapped)
    std::string framePath; // "main", `main / Loop "l" iteration 3`, ...
    int64_t iteration = -1; // Loop iteration / Scan step of the innermost frame, -1 outside loops
    std::string node; // producer's display name ("" for inputs and initializers)
    std::string opType;
    const Graph* graph = nullptr; // side A's graph holding the producer (side B's for OnlyB), null if none
    NodeId nodeId = -1;
    uint64_t sequence = 0; // execution order on side A (0 for main inputs and initializers); B's for OnlyB
    std::string typeA, typeB; // "float[1, 3]", "" for the missing side
    ValueStats stats; // meaningful for Match and Mismatch
    std::string note;
    // The counterpart on side B (for paired rows): where it was produced, and why it was paired.
    PairedBy pairedBy = PairedBy::None;
    std::string frameB; // side B's frame path
    std::string nodeB, opTypeB; // side B's producer ("" for inputs and initializers)
    const Graph* graphB = nullptr;
    NodeId nodeIdB = -1;
    uint64_t sequenceB = 0; // side B's execution position of its producer (0 for sources)
    double alignDistance = 0; // content pairs: the sketch distance the alignment saw (0 for exact)
};

/// One executed node of side A and the worst of its outputs.
struct NodeCompare {
    std::string framePath;
    std::string node; // display name
    std::string opType;
    const Graph* graph = nullptr; // side A
    NodeId nodeId = -1;
    int64_t iteration = -1;
    uint64_t sequence = 0;
    CompareStatus status = CompareStatus::OnlyA; // the worst output status; OnlyA if no output was matched
    double maxAbsError = 0; // over matched outputs
    double maxRelError = 0;
    double minCosine = 1;
    double toleranceRatio = 0;
    std::vector<size_t> rows; // indices into ComparisonResult::rows
    /// Its outputs diverge while none of its inputs was downstream of an earlier divergence: a place where a
    /// difference starts. Inputs that are graph inputs or initializers are sources: when they differ they are the
    /// cause, listed in ComparisonResult::differingSources, and do not stop their consumer from being a root.
    bool root = false;
};

/// The outcome of a comparison run. Rows are in side A's execution order (main inputs and initializers first), then
/// the values only side B had, in B's order.
struct ComparisonResult {
    Tolerance tolerance;
    std::string sideA, sideB; // descriptions: model paths, "reference folder DIR"
    std::shared_ptr<const Program> programA, programB; // keep the graphs that rows point into alive (B may be null)
    std::vector<CompareRow> rows;
    std::vector<NodeCompare> nodes; // side A's executed nodes in execution order
    /// Index into `nodes` of the first divergence: the earliest node whose outputs mismatch while all its inputs
    /// produced by nodes matched. None if nothing diverged.
    std::optional<size_t> firstDivergence;
    std::vector<size_t> differingSources; // rows of graph inputs / initializers that differ
    /// Side A or B stopped on an error (the comparison covers what ran before it).
    std::string errorA, errorB;
    bool cancelled = false;
    /// The most bytes of values held at once while waiting for their counterpart on the other side (what streaming
    /// keeps in memory besides the two sessions' own live values).
    size_t peakHeldBytes = 0;
    /// How values were paired: Names (one pass), or Content / Auto (an alignment pass over both sides, then the
    /// comparison pass). `align` is the mode used, which for Auto is Names when every name of A is in B.
    AlignMode align = AlignMode::Names;
    size_t alignmentBytes = 0; // memory of the sketches the alignment pass kept (both sides)

    size_t count(CompareStatus status) const;
    /// Nothing diverged, nothing failed, nothing unmatched.
    bool allMatch() const;
    /// Some value diverged (mismatch, shape or kind), or a side failed or was cancelled before the end. Values only
    /// one side has are not a divergence.
    bool hasDivergence() const;
    /// Worst error per node of side A's graphs over all its executions (iterations): for colouring a graph.
    std::map<std::pair<const Graph*, NodeId>, const NodeCompare*> worstByNode() const;
    /// Side B's nodes as the pairs see them: per node of B's graphs, the worst of the rows whose counterpart it
    /// produced (over all executions), `root` when one of them is a root's output, and OnlyB for nodes none of whose
    /// values has a counterpart. For colouring side B's graph. `rows` holds the rows, `sequence` B's first execution.
    std::map<std::pair<const Graph*, NodeId>, NodeCompare> nodesOfB() const;
};

/// One side of a comparison that is executed: a program and its inputs.
struct RunSide {
    std::shared_ptr<const Program> program;
    std::map<std::string, Value> inputs;
    std::string description; // for reports; the model's display name if empty
};

struct CompareOptions {
    Tolerance tolerance { 1e-4, 1e-5 };
    /// Side A name -> side B name, for renamed tensors.
    std::map<std::string, std::string> nameMap;
    /// How values pair (compareRuns only; a reference pairs by name). Content and Auto run each side twice: once to
    /// sketch every value (value_alignment.h), then to compare the aligned pairs, streaming as by name.
    AlignMode align = AlignMode::Names;
    /// Compare the main graphs' initializers (by name) too. They are read in full, so this costs a pass over the
    /// weights; a differing initializer is reported as a cause of its consumers' divergence.
    bool compareInitializers = true;
    /// Called every so many executed nodes of side A with the count so far.
    std::function<void(uint64_t nodesDone)> progress;
    /// Set from another thread to stop early; the result then has `cancelled` set and covers what ran.
    const std::atomic<bool>* cancel = nullptr;
    SessionOptions sessionOptions;
};

/// Runs two executions side by side and compares every value they produce, matched by frame path and name (after
/// CompareOptions::nameMap) or aligned by shape and content (CompareOptions::align). The two sessions advance in turns
/// so that only values still waiting for their counterpart are held in memory: with similar graphs that is a handful,
/// whatever the model size. Values one side never produces are listed as OnlyA / OnlyB. A node failing on either side
/// ends the comparison at that point with errorA / errorB set; it never throws for a model error, only for invalid
/// options (empty program).
ComparisonResult compareRuns(const RunSide& a, const RunSide& b, const CompareOptions& options = {});

/// Runs side A and compares every value it produces with the reference value of the same frame path and name.
/// Reference values are read one at a time, when side A produces their counterpart.
ComparisonResult compareWithReference(
    const RunSide& a, const ReferenceValues& reference, const CompareOptions& options = {});

} // namespace onnxscope
