// SPDX-License-Identifier: MIT
#include "engine/io/input_reader.h"

#include "engine/io/npy.h"
#include "engine/io/tensor_proto.h"
#include "engine/io/value_proto.h"

#include <algorithm>
#include <cctype>

namespace fs = std::filesystem;

namespace onnxscope {

InputFileFormat inputFileFormat(const fs::path& file)
{
    std::string ext = file.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    if (ext == ".npy")
        return InputFileFormat::Npy;
    if (ext == ".npz")
        return InputFileFormat::Npz;
    if (ext == ".pb")
        return InputFileFormat::Pb;
    return InputFileFormat::Unknown;
}

Value readInputValue(const std::string& name, const fs::path& file, const ValueType* declared)
{
    switch (inputFileFormat(file)) {
    case InputFileFormat::Npy:
        return Value(readNpy(file));
    case InputFileFormat::Pb:
        return readValueFile(file, declared);
    case InputFileFormat::Npz: {
        auto arrays = readNpz(file);
        for (auto& [key, t] : arrays)
            if (key == name)
                return Value(t);
        if (arrays.size() != 1) {
            std::string message = "\"";
            message += file.string();
            message += "\" holds " + std::to_string(arrays.size()) + " arrays and none is named \"" + name + "\"";
            throw Error(message);
        }
        return Value(arrays.front().second);
    }
    case InputFileFormat::Unknown:
        break;
    }
    throw Error("input \"" + name + "\": \"" + file.string() + "\" is neither .npy, .npz nor .pb");
}

std::vector<std::pair<std::string, Value>> readInputArchive(const fs::path& file)
{
    std::vector<std::pair<std::string, Value>> values;
    for (auto& [key, t] : readNpz(file))
        values.emplace_back(key, Value(t));
    return values;
}

Tensor readTensorFile(const fs::path& file)
{
    switch (inputFileFormat(file)) {
    case InputFileFormat::Npy:
        return readNpy(file);
    case InputFileFormat::Pb:
        return readTensorProtoFile(file);
    default:
        throw Error("\"" + file.string() + "\": expected a .npy or TensorProto .pb file");
    }
}

} // namespace onnxscope
