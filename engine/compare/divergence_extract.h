// SPDX-License-Identifier: MIT
#pragma once

#include "engine/compare/run_comparison.h"
#include "engine/exec/extract_case.h"

#include <filesystem>
#include <string>
#include <vector>

namespace onnxscope {

class ThreadPool;

/// Where one input of side B's extracted node got its value.
struct DivergenceInput {
    std::string nameB; // the input's name in B's case
    std::string nameA; // side A's value it took ("" when it kept B's own value)
    PairedBy pairedBy = PairedBy::None; // how the comparison paired it with A's value
    bool fromA = false;
    std::string note; // why B's own value was used, or how A's value was converted ("cast from float to float16")
};

/// One output of the extracted node: side A's value against side B's, both computed from the same inputs.
struct DivergenceOutput {
    std::string nameA, nameB;
    PairComparison comparison;
};

/// What extractFirstDivergence() did.
struct DivergenceExtract {
    bool found = false; // false: no node diverged, nothing was written; `message` says what the comparison found
    std::string message;
    std::string nodeA, opTypeA, nodeB, opTypeB;
    ExtractedCase caseA, caseB;
    std::vector<DivergenceInput> inputs; // side B's node inputs, in its case's order
    std::vector<DivergenceOutput> outputs; // A's outputs paired with B's
    double maxAbsError = 0; // over the paired outputs of the two cases
    std::filesystem::path readme;
};

/// The first divergence of `result` (compareRuns of `a` against `b`) as two standalone repros in ONNX's backend test
/// layout (extractTestCase): `folder/a/` holds side A's producer of the divergent value with the inputs A's run gave
/// it, `folder/b/` side B's producer of its counterpart fed the same values: each input of B's node takes the value
/// of A that the comparison paired with it (by name, or by content for renamed or fused graphs), so that the two
/// cases' expected outputs differ by the node's own error only. A floating-point value of A is cast to B's
/// floating-point type (an fp16 copy). An input without a counterpart among the values A's node reads (or A's graph
/// inputs), or whose counterpart has another shape or a type it does not cast to, keeps B's own value.
/// `folder/README.txt` states the sides, the nodes, where each input came from and the error between the two cases'
/// outputs. Nothing is written when no node diverged. Error when the divergent node runs inside a subgraph (Loop, If,
/// Scan), when side B is not a model, or when B's counterpart has no producer node.
DivergenceExtract extractFirstDivergence(const ComparisonResult& result, const RunSide& a, const RunSide& b,
    const std::filesystem::path& folder, ThreadPool* pool = nullptr);

} // namespace onnxscope
