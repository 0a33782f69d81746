// SPDX-License-Identifier: MIT
// libFuzzer target: bytes -> Model::fromBytes -> Program (every kernel created, every initializer decoded).
// Nothing runs, so a model can never make it loop; any Error is the expected outcome for hostile bytes. Anything
// else escaping (another exception type, a crash, a sanitizer report, a leak) is a finding.
#include "engine/core/tensor.h"
#include "engine/exec/program.h"
#include "engine/model/model.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    // Far below -rss_limit_mb: an absurd initializer is an Error, not an out-of-memory report.
    onnxscope::Tensor::setAllocationLimit(size_t(64) << 20);
    // Function expansion near the default 100 000 nodes takes seconds under ASan; the same code paths are reached
    // with a smaller budget, at a rate of inputs that lets the fuzzer explore.
    onnxscope::Model::setFunctionNodeLimit(4096);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace onnxscope;
    try {
        // External data is looked up in a folder that does not exist, so a location can never read a real file.
        auto model = Model::fromBytes(
            std::string(reinterpret_cast<const char*>(data), size), "/nonexistent/onnxscope-fuzz", "fuzz.onnx");
        (void)model->initializerBytes();
        (void)Program::unsupportedNodes(*model);
        Program program(model);
    } catch (const Error&) {
    }
    return 0;
}
