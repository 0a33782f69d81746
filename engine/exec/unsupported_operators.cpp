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
        { "", "Attention", 23, "no kernel yet" },
        { "", "Attention", 24, "no kernel yet" },
        { "", "Attention", 25, "no kernel yet" },
        { "", "BitCast", 26, "no kernel yet" },
        { "", "BitShift", 28, "signed integer inputs (new in 28) are not implemented" },
        { "", "BitwiseAnd", 18, "no kernel yet" },
        { "", "BitwiseNot", 18, "no kernel yet" },
        { "", "BitwiseOr", 18, "no kernel yet" },
        { "", "BitwiseXor", 18, "no kernel yet" },
        { "", "CausalConvWithState", 27, "no kernel yet" },
        { "", "CenterCropPad", 18, "no kernel yet" },
        { "", "Col2Im", 18, "no kernel yet" },
        { "", "CumProd", 26, "no kernel yet" },
        { "", "DeformConv", 19, "no kernel yet" },
        { "", "DeformConv", 22, "no kernel yet" },
        { "", "DequantizeLinear", 21,
            "blocked quantization (block_size) and the types of this version are not implemented" },
        { "", "DequantizeLinear", 23,
            "blocked quantization (block_size) and the types of this version are not implemented" },
        { "", "DequantizeLinear", 24,
            "blocked quantization (block_size) and the types of this version are not implemented" },
        { "", "DequantizeLinear", 25,
            "blocked quantization (block_size) and the types of this version are not implemented" },
        { "", "DequantizeLinear", 28,
            "blocked quantization (block_size) and the types of this version are not implemented" },
        { "", "Gelu", 20,
            "no kernel yet; onnx gives it a context-dependent function body, which the engine does not build" },
        { "", "GroupNormalization", 18, "no kernel yet" },
        { "", "GroupNormalization", 21, "no kernel yet; its function body is context-dependent" },
        { "", "ImageDecoder", 20, "no kernel yet" },
        { "", "LinearAttention", 27, "no kernel yet" },
        { "", "Mod", 28, "fmod=0 on floating-point inputs (defined from 28 on) is not implemented" },
        { "", "QuantizeLinear", 21,
            "blocked quantization (block_size, output_dtype) and the types of this version are not implemented" },
        { "", "QuantizeLinear", 23,
            "blocked quantization (block_size, output_dtype) and the types of this version are not implemented" },
        { "", "QuantizeLinear", 24,
            "blocked quantization (block_size, output_dtype) and the types of this version are not implemented" },
        { "", "QuantizeLinear", 25,
            "blocked quantization (block_size, output_dtype) and the types of this version are not implemented" },
        { "", "QuantizeLinear", 28,
            "blocked quantization (block_size, output_dtype) and the types of this version are not implemented" },
        { "", "RMSNormalization", 23, "no kernel yet; its function body is context-dependent" },
        { "", "Range", 27, "version 27 is not audited yet" },
        { "", "RegexFullMatch", 20, "no kernel yet" },
        { "", "RotaryEmbedding", 23, "no kernel yet" },
        { "", "SpaceToDepth", 28, "the CRD mode (new in 28) is not implemented" },
        { "", "StringConcat", 20, "no kernel yet" },
        { "", "StringSplit", 20, "no kernel yet" },
        { "", "TensorScatter", 24, "no kernel yet" },
        { "", "Upsample", 1,
            "experimental version with height_scale/width_scale attributes, superseded by Upsample-7 in 2017" },
        { "ai.onnx.ml", "TreeEnsemble", 5, "no kernel yet" },
        { "ai.onnx.ml", "TreeEnsembleClassifier", 5,
            "deprecated in ai.onnx.ml 5, which replaces it with TreeEnsemble" },
        { "ai.onnx.ml", "TreeEnsembleRegressor", 5, "deprecated in ai.onnx.ml 5, which replaces it with TreeEnsemble" },
        { "ai.onnx.preview", "FlexAttention", 1, "no kernel yet" },
        { "ai.onnx.preview.training", "Gradient", 1,
            "needs the automatic differentiation of a graph, which the engine does not do" },
    };
    return list;
}

} // namespace onnxscope
