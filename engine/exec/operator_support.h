// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace onnxscope {

/// One kernel of the engine, over a range of versions of its operator. In the domains that onnx's schema registry
/// defines, the range is one of schema since-versions (closed), and `versions` lists the versions it implements;
/// in custom domains it is one of opsets, and may be open (kLatest).
struct SupportedOperator {
    static constexpr int64_t kLatest = std::numeric_limits<int64_t>::max();

    std::string domain; // "" for the default domain (ai.onnx)
    std::string opType;
    int64_t sinceVersion = 1;
    int64_t lastVersion = kLatest; // kLatest: every later opset too (custom domains only)
    std::vector<int> versions; // the schema since-versions in the range; empty in custom domains
};

/// Every operator of the engine's kernel table, sorted by domain, op type and first version: what
/// `onnxscope-cli ops` lists.
std::vector<SupportedOperator> supportedOperators();

/// An operator version of onnx's schema registry that the engine cannot run, and why.
struct UnsupportedOperator {
    std::string domain; // "" for the default domain (ai.onnx)
    std::string opType;
    int sinceVersion = 0;
    std::string reason;
};

/// The operator versions of onnx's schema registry that have neither a kernel nor a function body the engine
/// runs, each with the reason. Every other version of every operator onnx defines runs.
const std::vector<UnsupportedOperator>& unsupportedOperators();

/// How the engine runs one version of an operator that onnx's schema registry defines.
enum class OperatorCoverage { Kernel, FunctionBody, Unsupported };

/// Kernel when a kernel implements (domain, opType, sinceVersion); else FunctionBody when onnx defines that version
/// as a function (the engine runs its body node by node); else Unsupported.
OperatorCoverage operatorCoverage(const std::string& domain, const std::string& opType, int sinceVersion);

} // namespace onnxscope
