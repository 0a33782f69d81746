// SPDX-License-Identifier: MIT
// The operator versions of onnx's schema registry that the engine does not run, with the reason. The test
// tests/engine/test_operator_coverage.cpp walks the registry: every version is covered by a kernel, by the function
// body onnx gives it, or by a line here; and a line here whose version has become runnable fails it, so the list
// only shrinks.
#include "engine/exec/operator_support.h"

namespace onnxscope {

const std::vector<UnsupportedOperator>& unsupportedOperators()
{
    static const std::vector<UnsupportedOperator> list = {
        { "", "Upsample", 1,
            "experimental version with height_scale/width_scale attributes, superseded by Upsample-7 in 2017" },
        { "ai.onnx.preview.training", "Gradient", 1,
            "needs the automatic differentiation of a graph, which the engine does not do" },
    };
    return list;
}

} // namespace onnxscope
