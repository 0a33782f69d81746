// SPDX-License-Identifier: MIT
#pragma once

#include "engine/compare/expected_value_check.h"

#include <filesystem>
#include <string>
#include <vector>

namespace onnxscope {

/// The result of one ONNX backend test case folder (model.onnx + test_data_set_*/input_*.pb, output_*.pb).
struct BackendCaseResult {
    enum class Status { Passed, Failed, Skipped };
    std::string name; // the folder's name
    Status status = Status::Failed;
    std::string message; // why it failed or was skipped
};

class ThreadPool;

/// Runs every test_data_set of a backend test case folder and compares the outputs with `tolerance`, kernels on
/// `pool` (null: one thread). Never throws: load, run and comparison errors become a Failed result with the message.
BackendCaseResult runBackendCase(
    const std::filesystem::path& caseDir, Tolerance tolerance = {}, ThreadPool* pool = nullptr);

/// Case folders under `dir`: `dir` itself if it holds model.onnx, else its subfolders that do (sorted).
std::vector<std::filesystem::path> findBackendCases(const std::filesystem::path& dir);

} // namespace onnxscope
