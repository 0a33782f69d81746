// SPDX-License-Identifier: MIT
// Precision advice (issue 44, part 4): which values of a float32 model would overflow or mostly flush to zero in
// float16 or bfloat16, which nodes must therefore stay in float32, and a mixed-precision copy of the model that
// keeps them there (docs/features.md, "Precision advice").
#pragma once

#include "engine/core/data_type.h"
#include "engine/core/error.h"
#include "engine/core/value.h"
#include "engine/exec/program.h"
#include "engine/exec/session.h"

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace onnxscope {

/// The narrower floating-point type a float32 model would be converted to.
struct PrecisionTarget {
    DataType type = DataType::Float16; // Float16 or BFloat16
    /// The largest finite value: 65504 for float16, 3.3895314e38 for bfloat16.
    double maxFinite() const;
    /// The smallest positive subnormal: 2^-24 for float16, 2^-133 for bfloat16.
    double smallestSubnormal() const;
    /// "fp16" or "bf16".
    const char* shortName() const;
};

/// "fp16"/"float16" or "bf16"/"bfloat16"; an Error for anything else.
PrecisionTarget parsePrecisionTarget(const std::string& text);

struct PrecisionCheckOptions {
    PrecisionTarget target;
    /// A value "mostly flushes to zero" when the share of its non-zero elements whose magnitude is below the
    /// target's smallest subnormal is above this (0.5: more than half of them).
    double underflowShare = 0.5;
    SessionOptions session;
    /// Called every so many executed nodes with the count so far (from the thread running the check).
    std::function<void(uint64_t nodesDone)> progress;
    /// Set from another thread to stop the run: checkPrecision then throws PrecisionCheckCancelled.
    const std::atomic<bool>* cancel = nullptr;
};

/// Thrown by checkPrecision when PrecisionCheckOptions::cancel was set.
class PrecisionCheckCancelled : public Error {
public:
    PrecisionCheckCancelled()
        : Error("the precision check was cancelled")
    {
    }
};

/// The range of one float32 value of the run, over every time it was produced (each Loop iteration, each call).
struct PrecisionValue {
    enum class Origin { NodeOutput, GraphInput, Initializer };
    std::string name;
    std::string framePath; // "main", or the frame of its first production inside a subgraph
    Origin origin = Origin::NodeOutput;
    std::string producer; // the node that makes it (display name), empty for a graph input or initializer
    std::string producerOp;
    int64_t elements = 0;
    int64_t nonZero = 0; // finite, non-zero elements
    int64_t overflow = 0; // finite elements with |x| > the target's largest finite value
    int64_t underflow = 0; // non-zero elements with |x| < the target's smallest subnormal
    int64_t nonFinite = 0; // NaN or Inf already in float32
    double min = 0, max = 0; // over the finite elements
    double minAbsNonZero = 0; // smallest non-zero magnitude (0 when there is none)
    bool overflows = false; // overflow > 0
    bool underflows = false; // underflowShare() > the threshold
    double underflowShare() const { return nonZero ? double(underflow) / double(nonZero) : 0.0; }
};

/// A node that must stay in float32, and why.
struct PrecisionNode {
    std::string name; // the file's name (empty when the node has none: it cannot go in a block list)
    std::string displayName;
    std::string opType;
    std::string framePath; // "main" for the main graph
    std::vector<std::string> reasons; // "produces \"x\", which overflows float16", "reads \"x\", which ..."
    bool overflow = false; // kept for an overflow (else only for underflow)
    /// What it does with the flagged values: makes one that overflows / mostly flushes to zero, or only reads them.
    bool producesOverflow = false;
    bool producesUnderflow = false;
    const Graph* graph = nullptr; // the graph holding it (the program's), for views
    NodeId nodeId = -1;
    std::vector<size_t> values; // indices into PrecisionReport::flagged of the values that made it kept
};

struct PrecisionReport {
    PrecisionTarget target;
    double underflowThreshold = 0.5;
    int64_t valuesChecked = 0; // float32 values whose range was read
    std::vector<PrecisionValue> flagged; // values that overflow or mostly underflow, in execution order
    std::vector<PrecisionNode> keep; // nodes to keep in float32, in execution order
    /// The float32 run's outputs, by name.
    std::map<std::string, Value> outputs;
    /// Warnings about the converters: a flagged value with several readers, which onnxconverter-common's
    /// convert_float_to_float16 (1.16) still passes through a float16 Cast between the kept nodes.
    std::vector<std::string> notes;
    /// Element types of the main graph's values in the run (node outputs, inputs, initializers), by name.
    std::map<std::string, DataType> valueTypes;

    /// keep's file names, for node_block_list (unnamed nodes left out: see unnamedKeep()).
    std::vector<std::string> blockList() const;
    size_t unnamedKeep() const;
};

/// Runs the program once in float32 on `inputs` and reads every float32 value's range (graph inputs, initializers,
/// every node output in every frame). Error when the run fails.
PrecisionReport checkPrecision(const std::shared_ptr<const Program>& program,
    const std::map<std::string, Value>& inputs, const PrecisionCheckOptions& options);

/// The report as JSON (docs/features.md, "Precision advice"): target, thresholds, flagged values with their
/// evidence, the nodes to keep and node_block_list.
std::string precisionReportJson(const PrecisionReport& report);

/// The keep-in-float32 list in the form the float16 converters take:
///  - json: {"node_block_list": [...]}: keyword arguments of onnxconverter_common.float16.convert_float_to_float16
///    and of onnxruntime.transformers.float16.convert_float_to_float16, **json.load(f);
///  - lines: one node name a line.
std::string blockListText(const PrecisionReport& report, bool json);

/// What writeMixedPrecisionModel() did.
struct MixedPrecisionResult {
    std::vector<std::string> lowered; // nodes converted to the target type
    /// Nodes with float32 values that stay in float32, and why ("block list", "no float16 kernel here: ...",
    /// "has subgraphs", "float inputs not convertible (schema)", "no schema").
    std::vector<std::pair<std::string, std::string>> keptFloat32;
    size_t casts = 0; // Cast nodes inserted
    struct OutputError {
        std::string name;
        double maxAbsError = 0;
        double maxAbsValue = 0; // the largest |x| of the float32 output, the scale of the error
        int64_t nonFinite = 0; // elements finite in float32 but not in the mixed model
        bool compared = false; // a float tensor on both sides
    };
    std::vector<OutputError> outputs;
};

/// Writes `path`: the main graph with every node that is not in `report.keep` (and can be) computing in the target
/// type, Casts where a value crosses between the two, graph inputs and outputs kept float32. Then runs it here on
/// `inputs` and compares each output with the float32 run's. A node whose kernel here fails on the target type is
/// kept in float32 (with every node of its op type) and the model written again. Nodes holding subgraphs stay float32
/// whole. Error when the model cannot be written or the mixed model fails for another reason.
MixedPrecisionResult writeMixedPrecisionModel(const Model& model, const PrecisionReport& report,
    const std::map<std::string, Value>& inputs, const std::filesystem::path& path, const SessionOptions& session = {});

/// The result as JSON: lowered, kept_fp32 [{node, reason}], casts, outputs [{name, max_abs_error, max_abs_value,
/// non_finite, compared}].
std::string mixedPrecisionJson(const MixedPrecisionResult& result);

} // namespace onnxscope
