// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/tensor_stats.h"
#include "engine/core/value.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace onnxscope {

/// The one rule for turning a value name into a file name, for every file the engine writes after a value:
/// - ASCII letters, digits, '.', '_' and '-' are kept; every other byte becomes '_' (so a name never reaches
///   outside its folder, and a non-ASCII character becomes one '_' per UTF-8 byte: no file system mangles it);
/// - leading dots become '_' (no hidden files, never "." or "..");
/// - at most 100 bytes, which leaves room for a prefix and a suffix within any file system's 255;
/// - an empty name becomes "value".
std::string safeFileName(std::string_view name);

/// Writes one tensor by the path's suffix (any case): .npy (numpy; bfloat16, which numpy lacks, as float32), .pb
/// (a TensorProto named `name`) or .csv (writeCsv). Error for any other suffix, an undefined tensor or a write error.
void writeTensorFile(const std::filesystem::path& path, const Tensor& tensor, const std::string& name = {});
/// CSV of a 1-D (one value per line) or 2-D tensor (one row per line). Strings are quoted as in RFC 4180, bools are
/// 0/1, integers exact, floats with 9 (double: 17) significant digits, non-finite values nan, inf, -inf. Error for
/// other ranks and complex tensors.
void writeCsv(const std::filesystem::path& path, const Tensor& tensor);

/// Every tensor in one .npz archive under its name (bfloat16 as float32); `compress` deflates the entries.
void writeTensorArchive(const std::filesystem::path& path, const std::vector<std::pair<std::string, Tensor>>& tensors,
    bool compress = true);
/// Every tensor as `<folder>/<safeFileName(name)><suffix>` (".npy" or ".pb"; "_2", "_3", ... when two file names
/// would differ only in case), plus `manifest.json` mapping each file name to its value name. Creates the folder.
void writeTensorFolder(const std::filesystem::path& folder, const std::vector<std::pair<std::string, Tensor>>& tensors,
    const std::string& suffix);

/// One recorded value in a JSON summary.
struct ValueSummary {
    std::string name;
    std::string node; // the producer's display name, empty for graph inputs
    std::string opType; // the producer's op type, empty for graph inputs
    std::string framePath;
    int64_t iteration = -1;
    bool dropped = false;
    Value value; // None once dropped
    std::optional<TensorStats> stats;
    std::string tracePoint; // the DEBUG node's display name, for trace points
};

/// A stopped or finished run as a JSON summary: the model, why it stopped, and every recorded value.
struct RunSummary {
    std::string model;
    std::string stopReason;
    std::string message;
    std::vector<ValueSummary> values;
};

/// Writes `{"model", "stop_reason", "message", "values": [{name, node, op_type, frame, iteration, dropped, type,
/// dtype, shape, stats, trace_point}]}`; non-finite statistics are null.
void writeJsonSummary(const std::filesystem::path& path, const RunSummary& summary);

/// Writes a run's values as they come into one folder, as `onnxscope-cli run --output-dir` does: each value as
/// `<k>_<safeFileName(name)>.npy` (k counts from 0), or `.json` for sequences, maps, empty optionals and strings that
/// are not UTF-8, and a `manifest.json` listing them: `{"tensors": [{name, node, frame, kind, dtype, shape, file,
/// [file_dtype], [value_kind], [note]}]}`.
class ValueWriter {
public:
    explicit ValueWriter(std::filesystem::path folder);
    ~ValueWriter();
    ValueWriter(const ValueWriter&) = delete;
    ValueWriter& operator=(const ValueWriter&) = delete;

    /// Writes one value: `node` is its producer's display name (empty for none), `frame` the frame path, `kind`
    /// "output" or "intermediate".
    void write(const std::string& name, const Value& value, const std::string& node, const std::string& frame,
        const std::string& kind);
    /// (Re)writes manifest.json with every value written so far. Refused (Error) after a write failed: a folder with a
    /// manifest looks complete.
    void writeManifest() const;
    /// Whether a write failed (its partial file was removed).
    bool failed() const { return m_failed; }
    /// Values written so far.
    size_t count() const;
    const std::filesystem::path& folder() const { return m_folder; }

private:
    struct Entries;
    std::filesystem::path m_folder;
    size_t m_next = 0;
    bool m_failed = false;
    std::unique_ptr<Entries> m_entries;
};

} // namespace onnxscope
