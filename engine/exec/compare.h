// SPDX-License-Identifier: MIT
#pragma once

#include "engine/exec/session.h"
#include "engine/exec/value_compare.h"

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace onnxscope {

/// How one compared value came out.
enum class CompareStatus {
    Match, // every element within tolerance, NaN/Inf in the same places
    Mismatch, // same shape, some elements differ (see ValueStats)
    ShapeMismatch, // both tensors, different shapes (or sequences of different lengths)
    KindMismatch, // tensor vs sequence, number vs string, ...
    OnlyA, // side A produced it, side B never did
    OnlyB, // side B produced it (or the reference holds it), side A never did
    Skipped, // present on both sides but not comparable (e.g. an unreadable reference file); see `note`
};

std::string_view compareStatusName(CompareStatus status);
/// Mismatch, ShapeMismatch or KindMismatch.
bool isDivergent(CompareStatus status);

/// Element statistics of one compared pair, computed in float64 whatever the two element types are.
/// Errors are |a - b|, relative errors |a - b| / |b| (elements where b == 0 are left out of maxRelError and governed
/// by maxAbsError), b being side B (the reference). NaN/Inf elements do not enter the error numbers; they are
/// counted, and a NaN on one side only, or an infinity that differs, is a mismatching element.
struct ValueStats {
    bool numeric = true; // false for strings: only `mismatches` is meaningful
    int64_t elements = 0;
    double maxAbsError = 0;
    double maxRelError = 0;
    double meanAbsError = 0;
    double cosine = 1; // of the finite elements as vectors; 1 when both are all zero, 0 when only one is
    int64_t mismatches = 0; // elements failing |a - b| <= atol + rtol * |b| (integers and bools: a != b)
    int64_t nanA = 0, nanB = 0, infA = 0, infB = 0;
    int64_t nonFiniteMismatches = 0; // NaN on one side only, or infinities that differ
    int64_t worstIndex = -1; // flat index of maxAbsError (or of the first non-finite mismatch if that is all)
    /// max over elements of |a - b| / (atol + rtol * |b|): <= 1 means within tolerance. Infinity when a NaN/Inf
    /// differs.
    double toleranceRatio = 0;
};

/// Element statistics of two values (tensors, sequences item by item, maps keys and values, optionals unwrapped)
/// and the resulting status (Match, Mismatch, ShapeMismatch or KindMismatch). For the diff view as much as for runs.
struct PairComparison {
    CompareStatus status = CompareStatus::Match;
    ValueStats stats;
    std::string note; // why ShapeMismatch / KindMismatch
};
PairComparison compareValuePair(const Value& a, const Value& b, Tolerance tolerance);

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

    size_t count(CompareStatus status) const;
    /// Nothing diverged, nothing failed, nothing unmatched.
    bool allMatch() const;
    /// Some value diverged (mismatch, shape or kind), or a side failed or was cancelled before the end. Values only
    /// one side has are not a divergence.
    bool hasDivergence() const;
    /// Worst error per node of side A's graphs over all its executions (iterations): for colouring a graph.
    std::map<std::pair<const Graph*, NodeId>, const NodeCompare*> worstByNode() const;
};

/// Values to compare against, instead of a second run: a `run --dump-all` folder (manifest.json + .npy files, read
/// one at a time when needed) or an .npz archive (array names are value names of the main graph, or
/// "<frame path> / <value name>" for values inside subgraphs).
class ReferenceValues {
public:
    struct Entry {
        std::string framePath;
        std::string name;
        std::string node; // producer recorded in the manifest, if any
        std::string file; // for folders: the file in the folder
        std::string type; // "float[1, 3]" when known without reading the value
        std::string note; // why it cannot be read, if so
    };

    /// A folder with manifest.json, or an .npz file. Errors name the file and what is wrong.
    static ReferenceValues load(const std::filesystem::path& path);
    static ReferenceValues fromDumpFolder(const std::filesystem::path& dir);
    static ReferenceValues fromNpz(const std::filesystem::path& file);
    /// From values in memory, keyed by (frame path, name).
    static ReferenceValues fromValues(std::vector<std::pair<std::pair<std::string, std::string>, Value>> values);

    const std::vector<Entry>& entries() const { return m_entries; }
    const std::string& description() const { return m_description; }
    /// Index of the entry for this frame path and name, or -1.
    int64_t find(const std::string& framePath, const std::string& name) const;
    /// The entry's value, read from disk for folders; Error naming the file if it cannot be read.
    Value read(size_t index) const;

private:
    std::filesystem::path m_dir;
    std::string m_description;
    std::vector<Entry> m_entries;
    std::vector<Value> m_inMemory; // npz / fromValues
    std::map<std::pair<std::string, std::string>, size_t> m_index;
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
/// CompareOptions::nameMap). The two sessions advance in turns so that only values still waiting for their
/// counterpart are held in memory: with similar graphs that is a handful, whatever the model size. Values one side
/// never produces are listed as OnlyA / OnlyB. A node failing on either side ends the comparison at that point with
/// errorA / errorB set; it never throws for a model error, only for invalid options (empty program).
ComparisonResult compareRuns(const RunSide& a, const RunSide& b, const CompareOptions& options = {});

/// Runs side A and compares every value it produces with the reference value of the same frame path and name.
/// Reference values are read one at a time, when side A produces their counterpart.
ComparisonResult compareWithReference(const RunSide& a, const ReferenceValues& reference,
    const CompareOptions& options = {});

} // namespace onnxscope
