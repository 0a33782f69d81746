// SPDX-License-Identifier: MIT
#pragma once

#include "ui/common/debug_snapshot.h"

#include <QString>

namespace onnxscope {

// Qt faces of the engine's value writer (engine/io/value_writer.h), which holds the formats and the file-name rule.

/// Writes one tensor by the path's suffix: .npy (numpy), .pb (TensorProto), .csv (1-D and 2-D). Throws Error.
void exportTensor(const QString& path, const Tensor& tensor, const QString& name = {});
/// CSV of a 1-D (one value per line) or 2-D tensor (one row per line); strings quoted as in RFC 4180.
void exportCsv(const QString& path, const Tensor& tensor);

/// The name each exportable value gets in an archive or folder: its own name in the main graph, and
/// "name @ frame path" inside subgraphs (the same name recurs in every iteration). Only tensors (and optionals
/// holding one) that were not dropped are listed, in execution order, the latest of each key.
std::vector<std::pair<std::string, Tensor>> exportableTensors(const DebugSnapshot& snapshot);

/// Every computed tensor in one .npz (a real zip, via the engine's libzip writer). Returns the count written.
int exportAllNpz(const QString& path, const DebugSnapshot& snapshot, bool compress = true);
/// Every computed tensor as `<folder>/<safe name>.npy` or `.pb`, plus `manifest.json` mapping file names to value
/// names. Returns the count written.
int exportAllToFolder(const QString& folder, const DebugSnapshot& snapshot, const QString& suffix);
/// JSON summary of every recorded value: name, node, op type, frame, iteration, dtype, shape, statistics.
void exportJsonSummary(const QString& path, const DebugSnapshot& snapshot);
/// A copy of the model where each computed main-graph value is attached as an initializer feeding a DEBUG node
/// (domain mlprodict), so the values can be seen in other graph viewers. Returns the number of values attached.
int exportDebugModel(const QString& path, const DebugSnapshot& snapshot);

/// A file-system-safe version of a value name: the engine's safeFileName() rule.
QString safeFileName(const QString& name);

} // namespace onnxscope
