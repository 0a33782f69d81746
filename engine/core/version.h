// SPDX-License-Identifier: MIT
#pragma once

#include <string>

namespace onnxscope {

/// onnxscope's version, from project(VERSION) in the top-level CMakeLists.txt.
const char* onnxscopeVersion();
/// The onnx library version the engine was built against (the ONNX CMake package's version).
const char* onnxLibraryVersion();
/// The protobuf library version the engine was built against.
const char* protobufLibraryVersion();
/// "<program> 0.1.0 (onnx 1.12.0, protobuf 3.21.12)": what `onnxscope-cli --version` prints.
std::string engineVersionLine(const std::string& program);

} // namespace onnxscope
