// SPDX-License-Identifier: MIT
#include "engine/compare/reference_values.h"

#include "engine/io/npy.h"
#include "engine/io/tensor_proto.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>

namespace fs = std::filesystem;

namespace onnxscope {

ReferenceValues ReferenceValues::load(const fs::path& path)
{
    if (fs::is_directory(path))
        return fromDumpFolder(path);
    std::string ext = path.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    check(fs::exists(path), "reference \"" + path.string() + "\" does not exist");
    check(ext == ".npz",
        "reference \"" + path.string() + "\" is neither a folder with manifest.json (run --dump-all) nor an .npz file");
    return fromNpz(path);
}

ReferenceValues ReferenceValues::fromDumpFolder(const fs::path& dir)
{
    ReferenceValues r;
    r.m_dir = dir;
    r.m_description = "reference folder " + dir.string();
    const fs::path manifestPath = dir / "manifest.json";
    std::error_code ec;
    check(fs::is_regular_file(manifestPath, ec),
        "reference folder \"" + dir.string()
            + "\" has no readable manifest.json (write one with "
              "onnxscope-cli run --dump-all --output-dir DIR)");
    const std::string text = readFileBytes(manifestPath); // its size checked against the allocation limit
    nlohmann::json manifest;
    try {
        manifest = nlohmann::json::parse(text);
    } catch (const std::exception& e) {
        throw Error("\"" + manifestPath.string() + "\" is not valid JSON: " + e.what());
    }
    check(manifest.is_object() && manifest.contains("tensors") && manifest["tensors"].is_array(),
        "\"" + manifestPath.string() + "\": expected an object with a \"tensors\" array");
    size_t k = 0;
    for (const auto& t : manifest["tensors"]) {
        const std::string where = "\"" + manifestPath.string() + "\", tensors[" + std::to_string(k++) + "]";
        check(
            t.is_object() && t.contains("name") && t["name"].is_string() && t.contains("file") && t["file"].is_string(),
            where + ": expected an object with string \"name\" and \"file\"");
        Entry e;
        e.name = t["name"].get<std::string>();
        e.file = t["file"].get<std::string>();
        e.framePath = t.contains("frame") && t["frame"].is_string() ? t["frame"].get<std::string>() : "main";
        if (t.contains("node") && t["node"].is_string())
            e.node = t["node"].get<std::string>();
        if (t.contains("dtype") && t["dtype"].is_string() && t.contains("shape") && t["shape"].is_array()) {
            Shape shape;
            for (const auto& d : t["shape"])
                if (d.is_number_integer())
                    shape.push_back(d.get<int64_t>());
            e.type = t["dtype"].get<std::string>() + shapeToString(shape);
        }
        const fs::path file(e.file);
        if (file.is_absolute() || file.filename() != file || e.file == "." || e.file == "..")
            e.note = "file \"" + e.file + "\" is not a plain file name inside the folder";
        else if (file.extension() != ".npy")
            e.note = "not a tensor (" + e.file + "); only .npy values are compared";
        if (!r.m_index.emplace(std::make_pair(e.framePath, e.name), r.m_entries.size()).second)
            continue; // a name repeated in one frame: the first one counts
        r.m_entries.push_back(std::move(e));
    }
    return r;
}

ReferenceValues ReferenceValues::fromNpz(const fs::path& file)
{
    std::vector<std::pair<std::pair<std::string, std::string>, Value>> values;
    for (auto& [key, tensor] : readNpz(file)) {
        const auto sep = key.rfind(" / ");
        if (sep == std::string::npos)
            values.push_back({ { "main", key }, Value(std::move(tensor)) });
        else
            values.push_back({ { key.substr(0, sep), key.substr(sep + 3) }, Value(std::move(tensor)) });
    }
    ReferenceValues r = fromValues(std::move(values));
    r.m_description = "reference archive " + file.string();
    return r;
}

ReferenceValues ReferenceValues::fromValues(std::vector<std::pair<std::pair<std::string, std::string>, Value>> values)
{
    ReferenceValues r;
    r.m_description = "reference values";
    for (auto& [key, value] : values) {
        if (!r.m_index.emplace(key, r.m_entries.size()).second)
            continue;
        Entry e;
        e.framePath = key.first;
        e.name = key.second;
        e.type = value.typeString();
        r.m_entries.push_back(std::move(e));
        r.m_inMemory.push_back(std::move(value));
    }
    return r;
}

int64_t ReferenceValues::find(const std::string& framePath, const std::string& name) const
{
    auto it = m_index.find({ framePath, name });
    return it == m_index.end() ? -1 : static_cast<int64_t>(it->second);
}

Value ReferenceValues::read(size_t index) const
{
    const Entry& e = m_entries.at(index);
    if (index < m_inMemory.size())
        return m_inMemory[index];
    check(e.note.empty(), "reference \"" + e.name + "\": " + e.note);
    return Value(readNpy(m_dir / e.file));
}

} // namespace onnxscope
