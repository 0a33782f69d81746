// SPDX-License-Identifier: MIT
#include "engine/core/version.h"

// ONNXSCOPE_VERSION comes from engine/CMakeLists.txt; the library versions are set on this file alone by
// packaging/CMakeLists.txt, so that a version change rebuilds one file.
#if !defined(ONNXSCOPE_VERSION) || !defined(ONNXSCOPE_ONNX_VERSION) || !defined(ONNXSCOPE_PROTOBUF_VERSION)
#error "version definitions missing: see packaging/CMakeLists.txt"
#endif

namespace onnxscope {

const char* onnxscopeVersion()
{
    return ONNXSCOPE_VERSION;
}
const char* onnxLibraryVersion()
{
    return ONNXSCOPE_ONNX_VERSION;
}
const char* protobufLibraryVersion()
{
    return ONNXSCOPE_PROTOBUF_VERSION;
}

std::string engineVersionLine(const std::string& program)
{
    return program + " " + onnxscopeVersion() + " (onnx " + onnxLibraryVersion() + ", protobuf "
        + protobufLibraryVersion() + ")";
}

} // namespace onnxscope
