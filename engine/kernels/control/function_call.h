// SPDX-License-Identifier: MIT
#pragma once

#include "engine/kernels/kernel.h"

namespace onnxscope {

/// The kernel of a call to a model-local function: runs Node::functionBody as one nested frame.
std::unique_ptr<Kernel> makeFunctionCallKernel(const Node& node);

} // namespace onnxscope
