// SPDX-License-Identifier: MIT
// Int8 per-layer error (issue 44, part 4): for a float model and its quantized copy (QDQ or QOperator, as
// onnxruntime.quantization writes them), each quantized layer's own error, the error it adds when fed the float run's
// inputs, apart from what it inherits from upstream (docs/features.md, "Int8 per-layer error").
#pragma once

#include "engine/core/error.h"
#include "engine/exec/program.h"
#include "engine/exec/session.h"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace onnxscope {

/// How one output compares with its float counterpart, in float64.
struct QuantErrorStats {
    bool computed = false;
    double maxAbsError = 0;
    double relativeL2 = 0; // ||q - f|| / ||f|| (||q - f|| when f is all zero)
    double cosine = 1; // 1 when both are all zero, 0 when only one is
    double floatMaxAbs = 0; // the float value's largest |x|, the scale of maxAbsError
};

/// One quantized layer of the quantized model and its float counterpart.
struct QuantLayer {
    enum class Format { QDQ, QOperator };
    Format format = Format::QDQ;
    std::string node; // the quantized model's node (display name)
    std::string opType; // its op ("Conv" between DequantizeLinear/QuantizeLinear, "QLinearConv", ...)
    std::string output; // the quantized model's value compared: the layer's dequantized output
    std::string floatValue; // the float model's value it pairs with
    std::string floatNode; // the float model's node making it ("" for none)
    std::string pairedBy; // "name" (onnxruntime's naming), "name+activation" (a removed Relu/Clip), "content"
    /// Its float inputs: the float model's values fed to the layer, quantized with the layer's own input scale and
    /// zero point (quantized model value <- float model value).
    std::vector<std::pair<std::string, std::string>> inputs;
    QuantErrorStats own; // the layer fed the float run's inputs, against the float output
    QuantErrorStats accumulated; // the quantized model's own run, against the float output
    std::string error; // why `own` could not be computed ("" when it was)
    int ownRank = 0; // 1 = the largest own relative L2 error
    int accumulatedRank = 0;
};

struct QuantErrorReport {
    std::vector<QuantLayer> layers; // ranked by own relative L2 error, largest first; unpaired layers last
    std::vector<std::string> unpaired; // quantized layers with no float counterpart, and why
    size_t floatValues = 0; // float model values kept from its run
    std::string format; // "QDQ", "QOperator" or "QDQ+QOperator"
};

struct QuantErrorOptions {
    SessionOptions session;
    /// Pair the layers whose output names do not pair with the float values by shape and content (value_alignment).
    bool pairByContent = true;
    /// Called after each layer run alone, with the count done and the number of layers (from the working thread).
    std::function<void(size_t done, size_t total)> progress;
    /// Set from another thread to stop: checkQuantization then throws QuantErrorCancelled.
    const std::atomic<bool>* cancel = nullptr;
};

/// Thrown by checkQuantization when QuantErrorOptions::cancel was set.
class QuantErrorCancelled : public Error {
public:
    QuantErrorCancelled()
        : Error("the int8 layer analysis was cancelled")
    {
    }
};

/// Runs the float program and the quantized program once on `inputs` (the same feeds, by name), then runs each
/// quantized layer alone on the float run's values: its activation inputs quantized with the layer's own scale and
/// zero point, its output dequantized with its own. A layer is a QLinear*/QGemm node (QOperator) or an operator
/// reading DequantizeLinear outputs (QDQ), with the Q/DQ pair after it. Error when a run fails or when no layer of
/// the quantized model pairs with a float value (naming a few of each side).
QuantErrorReport checkQuantization(const std::shared_ptr<const Program>& floatProgram,
    const std::shared_ptr<const Program>& quantProgram, const std::map<std::string, Value>& inputs,
    const QuantErrorOptions& options = {});

/// The report as JSON: format, layers [{rank, node, op_type, format, output, float_value, float_node, paired_by,
/// inputs, own: {max_abs_error, relative_l2, cosine, float_max_abs}, accumulated: {...}, accumulated_rank, error}],
/// unpaired.
std::string quantErrorJson(const QuantErrorReport& report);

} // namespace onnxscope
