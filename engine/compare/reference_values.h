// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/value.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace onnxscope {

/// Values to compare against, instead of a second run: a `run --dump-all` folder (manifest.json + .npy files, read
/// one at a time when needed) or an .npz archive (array names are value names of the main graph, or
/// "<frame path> / <value name>" for values inside subgraphs).
class ReferenceValues {
public:
    struct Entry {
        std::string framePath;
        std::string name;
        std::string node; // producer recorded in the manifest, if any
        std::string file; // for folders: the file in the folder
        std::string type; // "float[1, 3]" when known without reading the value
        std::string note; // why it cannot be read, if so
    };

    /// A folder with manifest.json, or an .npz file. Errors name the file and what is wrong.
    static ReferenceValues load(const std::filesystem::path& path);
    static ReferenceValues fromDumpFolder(const std::filesystem::path& dir);
    static ReferenceValues fromNpz(const std::filesystem::path& file);
    /// From values in memory, keyed by (frame path, name).
    static ReferenceValues fromValues(std::vector<std::pair<std::pair<std::string, std::string>, Value>> values);

    const std::vector<Entry>& entries() const { return m_entries; }
    const std::string& description() const { return m_description; }
    /// Index of the entry for this frame path and name, or -1.
    int64_t find(const std::string& framePath, const std::string& name) const;
    /// The entry's value, read from disk for folders; Error naming the file if it cannot be read.
    Value read(size_t index) const;

private:
    std::filesystem::path m_dir;
    std::string m_description;
    std::vector<Entry> m_entries;
    std::vector<Value> m_inMemory; // npz / fromValues
    std::map<std::pair<std::string, std::string>, size_t> m_index;
};

} // namespace onnxscope
