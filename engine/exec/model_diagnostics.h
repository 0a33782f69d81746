// SPDX-License-Identifier: MIT
#pragma once

#include "engine/model/model.h"

#include <vector>

namespace onnxscope {

/// The model's diagnostics (Model::diagnostics) as this build sees them: a checker error that only says onnx has no
/// schema for an op (e.g. SimplifiedLayerNormalization in the default domain, which onnxruntime registers there)
/// becomes a warning, with a note, when the engine has a kernel for every node of that op type, since the model opens
/// and runs. The lenient rules that onnxruntime applies and this build follows are warnings too: a com.microsoft or
/// com.microsoft.nchwc node without its domain import (run as version 1; the checker's error about it becomes a
/// warning), LayerNormalization below opset 17 and SimplifiedLayerNormalization in the default domain. Every other
/// diagnostic is as the model gives it. PyTorch metadata that does not parse
/// (torchMetadataDiagnostics) is added as a warning. The CLI's info, the GUI's Problems and Python share it.
std::vector<Diagnostic> diagnosticsForThisBuild(const Model& model);

} // namespace onnxscope
