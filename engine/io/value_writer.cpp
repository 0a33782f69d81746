// SPDX-License-Identifier: MIT
#include "engine/io/value_writer.h"

#include "engine/core/text.h"
#include "engine/io/npy.h"
#include "engine/io/tensor_proto.h"

#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>

namespace fs = std::filesystem;

namespace onnxscope {

namespace {

std::string lowerSuffix(const fs::path& path)
{
    std::string ext = path.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    return ext;
}

/// Writes `bytes` to a temporary file beside `path` and renames it over `path`, so that a failed write never leaves
/// half a file under the name.
void writeFileAtomically(const fs::path& path, const std::string& bytes)
{
    fs::path temporary = path;
    temporary += ".part";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out)
            throw Error("cannot write \"" + path.string() + "\": " + std::strerror(errno));
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        out.close();
        if (!out.good()) {
            std::error_code ignored;
            fs::remove(temporary, ignored);
            throw Error("cannot write \"" + path.string() + "\"");
        }
    }
    std::error_code ec;
    fs::rename(temporary, path, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(temporary, ignored);
        throw Error("cannot write \"" + path.string() + "\": " + ec.message());
    }
}

/// JSON for a number as QJson and numpy readers expect it: integral values as integers, non-finite ones as null.
nlohmann::json jsonNumber(double v)
{
    if (!std::isfinite(v))
        return nullptr;
    if (v == std::floor(v) && std::abs(v) < 9.0e15)
        return static_cast<int64_t>(v);
    return v;
}

std::string csvCell(const Tensor& t, int64_t i)
{
    const auto index = static_cast<size_t>(i);
    switch (t.dtype()) {
    case DataType::String: {
        std::string s = "\"";
        for (char c : t.data<std::string>()[index]) {
            s += c;
            if (c == '"')
                s += '"';
        }
        return s + "\"";
    }
    case DataType::Bool:
        return t.toDouble(i) != 0 ? "1" : "0";
    case DataType::Int64:
        return std::to_string(t.data<int64_t>()[index]);
    case DataType::UInt64:
        return std::to_string(t.data<uint64_t>()[index]);
    default:
        break;
    }
    const double v = t.toDouble(i);
    if (isInteger(t.dtype()) || isNarrowInteger(t.dtype()))
        return std::to_string(static_cast<long long>(v));
    if (std::isnan(v))
        return "nan";
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    if (v == 0)
        return "0"; // -0 too, as spreadsheets write it
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", t.dtype() == DataType::Double ? 17 : 9, v);
    return buf;
}

nlohmann::json statsJson(const TensorStats& s)
{
    nlohmann::json o;
    o["count"] = s.count;
    if (s.numeric) {
        o["min"] = jsonNumber(s.min);
        o["max"] = jsonNumber(s.max);
        o["mean"] = jsonNumber(s.mean);
        o["std"] = jsonNumber(s.std);
        o["zeros"] = s.zeros;
        o["nan"] = s.nan;
        o["pos_inf"] = s.posInf;
        o["neg_inf"] = s.negInf;
    }
    return o;
}

/// NaN and infinities as the strings "nan", "inf", "-inf" (JSON has no such numbers).
nlohmann::json elementNumber(double v)
{
    if (std::isnan(v))
        return "nan";
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    return v;
}

nlohmann::json tensorJson(const Tensor& t)
{
    nlohmann::json j;
    j["dtype"] = std::string(dataTypeName(t.dtype()));
    j["shape"] = t.shape();
    nlohmann::json data = nlohmann::json::array();
    for (int64_t i = 0; i < t.size(); ++i) {
        switch (t.dtype()) {
        case DataType::String:
            data.push_back(escapeBytes(t.data<std::string>()[i]));
            break;
        case DataType::Bool:
            data.push_back(t.data<bool>()[i]);
            break;
        case DataType::Int64:
            data.push_back(t.data<int64_t>()[i]);
            break;
        case DataType::UInt64:
            data.push_back(t.data<uint64_t>()[i]);
            break;
        case DataType::Complex64:
            data.push_back(
                { elementNumber(t.data<Complex64>()[i].real()), elementNumber(t.data<Complex64>()[i].imag()) });
            break;
        case DataType::Complex128:
            data.push_back(
                { elementNumber(t.data<Complex128>()[i].real()), elementNumber(t.data<Complex128>()[i].imag()) });
            break;
        default:
            if (isInteger(t.dtype()) || isNarrowInteger(t.dtype()))
                data.push_back(static_cast<int64_t>(t.toDouble(i)));
            else
                data.push_back(elementNumber(t.toDouble(i)));
        }
    }
    j["data"] = std::move(data);
    return j;
}

/// A JSON rendering of a value (sequences, maps and optionals with their elements inline).
nlohmann::json valueJson(const Value& value)
{
    nlohmann::json j;
    j["type"] = value.typeString();
    switch (value.kind()) {
    case Value::Kind::None:
        j["kind"] = "none";
        break;
    case Value::Kind::Tensor:
        j["kind"] = "tensor";
        j["value"] = tensorJson(value.tensor());
        break;
    case Value::Kind::Sequence: {
        j["kind"] = "sequence";
        j["element_dtype"] = std::string(dataTypeName(value.sequence().elementType));
        nlohmann::json items = nlohmann::json::array();
        for (const auto& item : value.sequence().items)
            items.push_back(valueJson(item));
        j["items"] = std::move(items);
        break;
    }
    case Value::Kind::Map:
        j["kind"] = "map";
        j["keys"] = tensorJson(value.map().keys);
        j["values"] = tensorJson(value.map().values);
        break;
    case Value::Kind::Optional:
        j["kind"] = "optional";
        j["value"] = value.optionalValue() ? valueJson(*value.optionalValue()) : nlohmann::json(nullptr);
        break;
    }
    return j;
}

std::string dumpJson(const nlohmann::json& j, int indent)
{
    return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

} // namespace

std::string safeFileName(std::string_view name)
{
    std::string out;
    for (char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.'
            || c == '_' || c == '-';
        out += ok ? c : '_';
        if (out.size() >= 100)
            break;
    }
    for (char& c : out) {
        if (c != '.')
            break;
        c = '_';
    }
    if (out.empty())
        out = "value";
    return out;
}

void writeCsv(const fs::path& path, const Tensor& tensor)
{
    check(tensor.defined(), "nothing to export");
    check(tensor.rank() <= 2,
        "CSV export takes 1-D or 2-D tensors; this one is " + tensor.typeString() + " (export it as .npy instead)");
    check(!isComplex(tensor.dtype()), "CSV export does not take complex tensors");
    const int64_t columns = tensor.rank() == 2 ? tensor.dim(1) : 1;
    const int64_t rows = columns > 0 ? tensor.size() / columns : (tensor.rank() == 2 ? tensor.dim(0) : 0);
    std::string out;
    for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < columns; ++c) {
            if (c)
                out += ',';
            out += csvCell(tensor, r * columns + c);
        }
        out += '\n';
    }
    writeFileAtomically(path, out);
}

void writeTensorFile(const fs::path& path, const Tensor& tensor, const std::string& name)
{
    check(tensor.defined(), "nothing to export");
    const std::string suffix = lowerSuffix(path);
    if (suffix == ".npy")
        writeNpy(path, npyCompatible(tensor));
    else if (suffix == ".pb")
        writeTensorProtoFile(path, tensor, name);
    else if (suffix == ".csv")
        writeCsv(path, tensor);
    else
        throw Error("\"" + path.string() + "\": choose a .npy, .pb or .csv file name");
}

void writeTensorArchive(const fs::path& path, const std::vector<std::pair<std::string, Tensor>>& tensors, bool compress)
{
    std::vector<std::pair<std::string, Tensor>> stored;
    stored.reserve(tensors.size());
    for (const auto& [name, t] : tensors)
        stored.emplace_back(name, npyCompatible(t));
    writeNpz(path, stored, compress);
}

void writeTensorFolder(
    const fs::path& folder, const std::vector<std::pair<std::string, Tensor>>& tensors, const std::string& suffix)
{
    std::error_code ec;
    fs::create_directories(folder, ec);
    check(fs::is_directory(folder), "cannot create folder \"" + folder.string() + "\"");
    nlohmann::json manifest = nlohmann::json::object();
    std::set<std::string> used; // lower-case file names: some file systems ignore case
    const auto lower = [](std::string s) {
        std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
        return s;
    };
    for (const auto& [name, t] : tensors) {
        const std::string base = safeFileName(name);
        std::string file = base + suffix;
        for (int n = 2; used.count(lower(file)); ++n)
            file = base + "_" + std::to_string(n) + suffix;
        used.insert(lower(file));
        writeTensorFile(folder / file, t, name);
        manifest[file] = name;
    }
    writeFileAtomically(folder / "manifest.json", dumpJson(manifest, 4));
}

void writeJsonSummary(const fs::path& path, const RunSummary& summary)
{
    nlohmann::json values = nlohmann::json::array();
    for (const ValueSummary& v : summary.values) {
        nlohmann::json o;
        o["name"] = v.name;
        o["node"] = v.node.empty() ? nlohmann::json(nullptr) : nlohmann::json(v.node);
        o["op_type"] = v.opType.empty() ? nlohmann::json(nullptr) : nlohmann::json(v.opType);
        o["frame"] = v.framePath;
        o["iteration"] = v.iteration;
        o["dropped"] = v.dropped;
        o["type"] = v.value.typeString();
        if (const Tensor* t = v.dropped ? nullptr : v.value.heldTensor()) {
            o["dtype"] = std::string(dataTypeName(t->dtype()));
            o["shape"] = t->shape();
        }
        if (v.stats)
            o["stats"] = statsJson(*v.stats);
        if (!v.tracePoint.empty())
            o["trace_point"] = v.tracePoint;
        values.push_back(std::move(o));
    }
    nlohmann::json root;
    root["model"] = summary.model;
    root["stop_reason"] = summary.stopReason;
    root["message"] = summary.message;
    root["values"] = std::move(values);
    writeFileAtomically(path, dumpJson(root, 4));
}

struct ValueWriter::Entries {
    nlohmann::json list = nlohmann::json::array();
};

ValueWriter::ValueWriter(fs::path folder)
    : m_folder(std::move(folder))
    , m_entries(std::make_unique<Entries>())
{
}

ValueWriter::~ValueWriter() = default;

size_t ValueWriter::count() const
{
    return m_entries->list.size();
}

void ValueWriter::write(const std::string& name, const Value& value, const std::string& node, const std::string& frame,
    const std::string& kind)
{
    const std::string base = std::to_string(m_next++) + "_" + safeFileName(name);
    nlohmann::json entry { { "name", name }, { "node", node }, { "frame", frame }, { "kind", kind } };
    const Value* v = &value;
    if (value.isOptional() && value.optionalValue() && value.optionalValue()->isTensor()) {
        v = value.optionalValue();
        entry["value_kind"] = "optional";
    }
    bool asNpy = v->isTensor();
    if (asNpy) {
        const Tensor& t = v->tensor();
        entry["dtype"] = std::string(dataTypeName(t.dtype()));
        entry["shape"] = t.shape();
        Tensor stored = npyCompatible(t);
        if (stored.dtype() != t.dtype())
            entry["file_dtype"] = std::string(dataTypeName(stored.dtype()));
        try {
            const std::string file = base + ".npy";
            try {
                writeNpy(m_folder / file, stored);
            } catch (const Error&) {
                std::error_code ignored;
                fs::remove(m_folder / file, ignored);
                throw;
            }
            entry["file"] = file;
        } catch (const Error& e) {
            if (t.dtype() != DataType::String) {
                m_failed = true;
                throw;
            }
            asNpy = false; // strings that are not UTF-8: fall back to JSON (invalid bytes replaced)
            entry["note"] = e.what();
        }
    } else {
        entry["dtype"] = v->typeString();
        entry["shape"] = nullptr;
    }
    if (!asNpy) {
        const std::string file = base + ".json";
        std::ofstream out(m_folder / file);
        out << dumpJson(valueJson(*v), 1);
        out.close();
        if (!out.good()) {
            m_failed = true;
            std::error_code ignored;
            fs::remove(m_folder / file, ignored);
            throw Error("cannot write \"" + (m_folder / file).string() + "\"");
        }
        entry["file"] = file;
    }
    m_entries->list.push_back(std::move(entry));
}

void ValueWriter::writeManifest() const
{
    const fs::path path = m_folder / "manifest.json";
    check(!m_failed,
        "\"" + m_folder.string() + "\" is incomplete: a value could not be written, so it gets no manifest.json");
    // Written beside and renamed: a manifest that is there is whole.
    writeFileAtomically(path, dumpJson(nlohmann::json { { "tensors", m_entries->list } }, 2));
}

} // namespace onnxscope
