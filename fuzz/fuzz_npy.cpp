// SPDX-License-Identifier: MIT
// libFuzzer target: bytes -> parseNpy. What parses must serialize again and parse back to the same tensor
// (strings that are not UTF-8 excepted: serializeNpy refuses them with an Error).
#include "engine/core/tensor.h"
#include "engine/io/npy.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    onnxscope::Tensor::setAllocationLimit(size_t(64) << 20);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace onnxscope;
    Tensor t;
    try {
        t = parseNpy(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.npy");
    } catch (const Error&) {
        return 0;
    }
    std::string again;
    try {
        again = serializeNpy(npyCompatible(t));
    } catch (const Error&) {
        return 0;
    }
    Tensor back = parseNpy(again, "round trip");
    if (back.dtype() != t.dtype() || back.shape() != t.shape())
        std::abort();
    if (t.dtype() == DataType::String) {
        for (int64_t i = 0; i < t.size(); ++i)
            if (back.data<std::string>()[i] != t.data<std::string>()[i])
                std::abort();
    } else if (t.byteSize() && std::memcmp(back.raw(), t.raw(), t.byteSize()) != 0) {
        std::abort();
    }
    return 0;
}
