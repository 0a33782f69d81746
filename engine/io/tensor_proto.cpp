// SPDX-License-Identifier: MIT
#include "engine/io/tensor_proto.h"

#include "engine/core/allocation_limit.h"
#include "engine/core/half.h"
#include "engine/core/narrow_types.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace onnxscope {

struct ExternalDataStore::Mapping {
    void* address = nullptr;
    uint64_t size = 0;
    ~Mapping()
    {
        if (address && size)
            munmap(address, size);
    }
};

ExternalDataStore::ExternalDataStore(fs::path baseDir)
    : m_baseDir(std::move(baseDir))
{
}

ExternalDataStore::~ExternalDataStore() = default;

std::shared_ptr<ExternalDataStore::Mapping> ExternalDataStore::map(
    const std::string& location, const std::string& tensorName)
{
    std::lock_guard lock(m_mutex);
    if (auto it = m_mappings.find(location); it != m_mappings.end())
        return it->second;

    const std::string what = "tensor \"" + tensorName + "\": external data file \"" + location + "\"";
    fs::path rel(location);
    check(!location.empty(), "tensor \"" + tensorName + "\": external data has no location");
    check(!rel.is_absolute() && !rel.has_root_name() && !rel.has_root_directory(),
        what + " is an absolute path; only paths inside the model's folder are allowed");
    for (const auto& part : rel)
        check(part != "..", what + " leaves the model's folder");
    std::error_code ec;
    fs::path base = fs::weakly_canonical(m_baseDir.empty() ? fs::current_path() : m_baseDir, ec);
    fs::path full = base / rel;
    check(fs::exists(full, ec), what + " does not exist (looked for " + full.string() + ")");
    fs::path real = fs::canonical(full, ec);
    check(!ec, what + " cannot be resolved: " + ec.message());
    auto [baseEnd, realIt] = std::mismatch(base.begin(), base.end(), real.begin(), real.end());
    check(baseEnd == base.end(), what + " resolves to " + real.string() + ", outside the model's folder");
    check(fs::is_regular_file(real, ec), what + " is not a regular file");

    int fd = ::open(real.c_str(), O_RDONLY | O_CLOEXEC);
    check(fd >= 0, what + " cannot be opened: " + std::strerror(errno));
    struct stat st { };
    if (fstat(fd, &st) != 0) {
        ::close(fd);
        throw Error(what + " cannot be read: " + std::strerror(errno));
    }
    auto mapping = std::make_shared<Mapping>();
    mapping->size = static_cast<uint64_t>(st.st_size);
    if (mapping->size > 0) {
        void* addr = mmap(nullptr, mapping->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (addr == MAP_FAILED) {
            ::close(fd);
            throw Error(what + " cannot be memory-mapped: " + std::strerror(errno));
        }
        mapping->address = addr;
    }
    ::close(fd);
    m_mappings[location] = mapping;
    return mapping;
}

uint64_t ExternalDataStore::fileSize(const std::string& location, const std::string& tensorName)
{
    return map(location, tensorName)->size;
}

std::shared_ptr<const void> ExternalDataStore::bytes(
    const std::string& location, uint64_t offset, uint64_t length, const std::string& tensorName)
{
    auto mapping = map(location, tensorName);
    check(offset <= mapping->size && length <= mapping->size - offset,
        "tensor \"" + tensorName + "\": external data of " + std::to_string(length) + " bytes at offset "
            + std::to_string(offset) + " lies past the end of \"" + location + "\" (" + std::to_string(mapping->size)
            + " bytes)");
    if (length == 0) {
        static const uint64_t empty[8] = {};
        return std::shared_ptr<const void>(mapping, empty);
    }
    // Aliasing constructor: the tensor keeps the whole mapping alive.
    return std::shared_ptr<const void>(mapping, static_cast<const char*>(mapping->address) + offset);
}

namespace {

template <class Dst, class Field> void copyTyped(Tensor& t, const Field& field, const std::string& name)
{
    check(static_cast<int64_t>(field.size()) == t.size(),
        "tensor \"" + name + "\": " + std::to_string(field.size()) + " values stored but its shape "
            + shapeToString(t.shape()) + " needs " + std::to_string(t.size()));
    auto out = t.data<Dst>();
    for (int64_t i = 0; i < t.size(); ++i)
        out[i] = static_cast<Dst>(field.Get(static_cast<int>(i)));
}

template <class Dst, class Field> void copyBits16(Tensor& t, const Field& field, const std::string& name)
{
    check(static_cast<int64_t>(field.size()) == t.size(),
        "tensor \"" + name + "\": " + std::to_string(field.size()) + " values stored but its shape "
            + shapeToString(t.shape()) + " needs " + std::to_string(t.size()));
    auto out = t.data<Dst>();
    for (int64_t i = 0; i < t.size(); ++i)
        out[i] = Eigen::numext::bit_cast<Dst>(static_cast<uint16_t>(field.Get(static_cast<int>(i))));
}

template <class C, class Field> void copyComplex(Tensor& t, const Field& field, const std::string& name)
{
    check(static_cast<int64_t>(field.size()) == 2 * t.size(),
        "tensor \"" + name + "\": " + std::to_string(field.size()) + " values stored but complex shape "
            + shapeToString(t.shape()) + " needs " + std::to_string(2 * t.size()));
    auto out = t.data<C>();
    for (int64_t i = 0; i < t.size(); ++i)
        out[i] = C(field.Get(static_cast<int>(2 * i)), field.Get(static_cast<int>(2 * i + 1)));
}

/// How many values the typed field that `type` is stored in holds (2 per element for complex types).
int64_t storedValueCount(const onnx::TensorProto& proto, DataType type)
{
    if (isNarrow(type))
        return proto.int32_data_size();
    switch (type) {
    case DataType::Float:
    case DataType::Complex64:
        return proto.float_data_size();
    case DataType::Double:
    case DataType::Complex128:
        return proto.double_data_size();
    case DataType::Int64:
        return proto.int64_data_size();
    case DataType::UInt32:
    case DataType::UInt64:
        return proto.uint64_data_size();
    case DataType::String:
        return proto.string_data_size();
    default:
        return proto.int32_data_size();
    }
}

/// The bytes `count` elements of `type` take in raw_data or external data (packed for the narrow types),
/// overflow-checked: a wrapped size would let a few bytes pass for a tensor of huge dims.
uint64_t storedByteSize(DataType type, int64_t count, const std::string& name, const Shape& shape)
{
    uint64_t bytes = 0;
    try {
        if (isNarrow(type))
            bytes = packedByteSize(type, count);
        else if (__builtin_mul_overflow(static_cast<uint64_t>(count), elementSize(type), &bytes))
            throw Error("it overflows 64 bits");
    } catch (const Error& e) {
        throw Error("tensor \"" + name + "\": byte size of " + std::string(dataTypeName(type)) + shapeToString(shape)
            + ": " + e.what());
    }
    return bytes;
}

Shape protoShape(const onnx::TensorProto& proto, const std::string& name)
{
    Shape shape(proto.dims().begin(), proto.dims().end());
    for (int64_t d : shape)
        check(d >= 0, "tensor \"" + name + "\" has a negative dimension in its shape " + shapeToString(shape));
    return shape;
}

} // namespace

Tensor tensorFromProto(const onnx::TensorProto& proto, ExternalDataStore* external)
{
    const std::string& name = proto.name();
    DataType type = dataTypeFromOnnx(proto.data_type());
    check(type != DataType::Undefined,
        "tensor \"" + name + "\" has unknown element type " + std::to_string(proto.data_type()));
    check(!proto.has_segment(), "tensor \"" + name + "\" is segmented, which is not supported");
    Shape shape = protoShape(proto, name);
    int64_t count = 0;
    try {
        count = elementCount(shape);
    } catch (const Error& e) {
        throw Error("tensor \"" + name + "\": " + e.what());
    }

    if (proto.data_location() == onnx::TensorProto_DataLocation_EXTERNAL) {
        check(type != DataType::String, "tensor \"" + name + "\": string tensors cannot use external data");
        std::string location;
        uint64_t offset = 0;
        int64_t length = -1;
        auto number = [&](const std::string& key, const std::string& text) -> uint64_t {
            uint64_t value = 0;
            auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
            check(ec == std::errc() && end == text.data() + text.size() && !text.empty(),
                "tensor \"" + name + "\": external data " + key + " \"" + text + "\" is not a number");
            return value;
        };
        for (const auto& kv : proto.external_data()) {
            if (kv.key() == "location") {
                location = kv.value();
            } else if (kv.key() == "offset") {
                offset = number(kv.key(), kv.value());
            } else if (kv.key() == "length") {
                const uint64_t n = number(kv.key(), kv.value());
                check(n <= static_cast<uint64_t>(INT64_MAX),
                    "tensor \"" + name + "\": external data length " + kv.value() + " is too large");
                length = static_cast<int64_t>(n);
            }
        }
        check(external != nullptr, "tensor \"" + name + "\" uses external data, but no model folder is known");
        const uint64_t needed = storedByteSize(type, count, name, shape);
        if (length < 0) {
            uint64_t size = external->fileSize(location, name);
            check(offset <= size,
                "tensor \"" + name + "\": external data offset " + std::to_string(offset) + " lies past the end of \""
                    + location + "\"");
            length = static_cast<int64_t>(size - offset);
        }
        check(static_cast<uint64_t>(length) == needed,
            "tensor \"" + name + "\": external data length " + std::to_string(length) + " bytes, but "
                + std::string(dataTypeName(type)) + shapeToString(shape) + " needs " + std::to_string(needed));
        auto bytes = external->bytes(location, offset, static_cast<uint64_t>(length), name);
        if (isNarrow(type)) {
            Tensor t(type, shape);
            unpackElements(
                type, static_cast<const uint8_t*>(bytes.get()), count, static_cast<uint8_t*>(t.mutableRaw()));
            return t;
        }
        if (reinterpret_cast<uintptr_t>(bytes.get()) % 64 != 0) {
            Tensor t(type, shape);
            std::memcpy(t.mutableRaw(), bytes.get(), needed);
            return t;
        }
        return Tensor(type, shape, bytes);
    }

    // Every size is checked before anything is allocated: dims that promise more than the file holds are an Error
    // naming the tensor, not a huge zeroed allocation.
    const std::string described = std::string(dataTypeName(type)) + shapeToString(shape);
    if (proto.has_raw_data()) {
        check(type != DataType::String, "tensor \"" + name + "\": string tensors cannot use raw_data");
        const std::string& raw = proto.raw_data();
        const uint64_t needed = storedByteSize(type, count, name, shape);
        check(raw.size() == needed,
            "tensor \"" + name + "\": raw_data has " + std::to_string(raw.size()) + " bytes but " + described
                + " needs " + std::to_string(needed));
    } else {
        const int64_t stored = storedValueCount(proto, type);
        // int32_data holds narrow types packed as raw_data does, one byte per value, except float6 (one element per
        // value).
        const int64_t needed = isComplex(type) ? checkedMul(count, 2, "tensor \"" + name + "\" size")
            : isNarrow(type) && bitWidth(type) < 8 && bitWidth(type) != 6
            ? static_cast<int64_t>(storedByteSize(type, count, name, shape))
            : count;
        check(stored == needed,
            "tensor \"" + name + "\": " + std::to_string(stored) + (type == DataType::String ? " strings" : " values")
                + " stored but its shape " + shapeToString(shape) + " needs " + std::to_string(needed));
    }
    Tensor t;
    try {
        t = Tensor(type, shape);
    } catch (const Error& e) {
        throw Error("tensor \"" + name + "\": " + e.what());
    }
    if (proto.has_raw_data()) {
        const std::string& raw = proto.raw_data();
        if (isNarrow(type))
            unpackElements(
                type, reinterpret_cast<const uint8_t*>(raw.data()), count, static_cast<uint8_t*>(t.mutableRaw()));
        else if (!raw.empty())
            std::memcpy(t.mutableRaw(), raw.data(), raw.size());
        return t;
    }
    if (isNarrow(type)) {
        auto* out = static_cast<uint8_t*>(t.mutableRaw());
        const auto& field = proto.int32_data();
        if (bitWidth(type) == 6) {
            for (int64_t i = 0; i < count; ++i)
                out[i] = narrowFromBits(type, static_cast<uint32_t>(field.Get(static_cast<int>(i))));
        } else {
            std::string packed(static_cast<size_t>(field.size()), '\0');
            for (int i = 0; i < field.size(); ++i)
                packed[static_cast<size_t>(i)] = static_cast<char>(field.Get(i) & 0xFF);
            unpackElements(type, reinterpret_cast<const uint8_t*>(packed.data()), count, out);
        }
        return t;
    }
    switch (type) {
    case DataType::Float:
        copyTyped<float>(t, proto.float_data(), name);
        break;
    case DataType::Double:
        copyTyped<double>(t, proto.double_data(), name);
        break;
    case DataType::Int64:
        copyTyped<int64_t>(t, proto.int64_data(), name);
        break;
    case DataType::UInt32:
        copyTyped<uint32_t>(t, proto.uint64_data(), name);
        break;
    case DataType::UInt64:
        copyTyped<uint64_t>(t, proto.uint64_data(), name);
        break;
    case DataType::Int32:
        copyTyped<int32_t>(t, proto.int32_data(), name);
        break;
    case DataType::Int16:
        copyTyped<int16_t>(t, proto.int32_data(), name);
        break;
    case DataType::Int8:
        copyTyped<int8_t>(t, proto.int32_data(), name);
        break;
    case DataType::UInt16:
        copyTyped<uint16_t>(t, proto.int32_data(), name);
        break;
    case DataType::UInt8:
        copyTyped<uint8_t>(t, proto.int32_data(), name);
        break;
    case DataType::Bool:
        copyTyped<bool>(t, proto.int32_data(), name);
        break;
    case DataType::Float16:
        copyBits16<Float16>(t, proto.int32_data(), name);
        break;
    case DataType::BFloat16:
        copyBits16<BFloat16>(t, proto.int32_data(), name);
        break;
    case DataType::Complex64:
        copyComplex<Complex64>(t, proto.float_data(), name);
        break;
    case DataType::Complex128:
        copyComplex<Complex128>(t, proto.double_data(), name);
        break;
    case DataType::String: {
        check(static_cast<int64_t>(proto.string_data_size()) == t.size(),
            "tensor \"" + name + "\": " + std::to_string(proto.string_data_size()) + " strings stored but its shape "
                + shapeToString(shape) + " needs " + std::to_string(t.size()));
        auto out = t.data<std::string>();
        for (int64_t i = 0; i < t.size(); ++i)
            out[i] = proto.string_data(static_cast<int>(i));
        break;
    }
    default:
        throw Error("tensor \"" + name + "\" has unsupported element type");
    }
    return t;
}

Tensor tensorFromSparseProto(const onnx::SparseTensorProto& proto, const std::string& what, ExternalDataStore* external)
{
    check(proto.has_values(), what + " has no values");
    Shape dims(proto.dims().begin(), proto.dims().end());
    for (int64_t d : dims)
        check(d >= 0, what + " has a negative dimension in its dims " + shapeToString(dims));
    const DataType type = dataTypeFromOnnx(proto.values().data_type());
    check(type != DataType::Undefined,
        what + " has values of unknown element type " + std::to_string(proto.values().data_type()));
    int64_t denseCount = 0;
    try {
        denseCount = checkedTensorCount(type, dims);
    } catch (const Error& e) {
        throw Error(what + ": " + e.what());
    }
    // The values and indices are read (and their sizes checked) before the dense tensor is allocated.
    Tensor values;
    Tensor indices;
    try {
        values = tensorFromProto(proto.values(), external);
        indices = proto.has_indices() ? tensorFromProto(proto.indices(), external) : Tensor();
    } catch (const Error& e) {
        throw Error(what + ": " + e.what());
    }
    check(values.shape().size() == 1, what + ": values must be 1-D [NNZ], got " + values.typeString());
    const int64_t nnz = values.shape()[0];
    check(nnz <= denseCount,
        what + " has " + std::to_string(nnz) + " values, more than its " + std::to_string(denseCount) + " elements");
    const size_t rank = dims.size();
    std::vector<int64_t> linear(static_cast<size_t>(nnz));
    if (nnz > 0) {
        check(indices.defined(), what + " has " + std::to_string(nnz) + " values but no indices");
        check(indices.dtype() == DataType::Int64, what + ": indices must be int64, got " + indices.typeString());
        const auto idx = indices.data<int64_t>();
        const Shape& is = indices.shape();
        const bool isLinear = is.size() == 1 && is[0] == nnz;
        const bool isCoords = is.size() == 2 && is[0] == nnz && is[1] == static_cast<int64_t>(rank);
        check(isLinear || isCoords,
            what + ": indices must be int64[" + std::to_string(nnz) + "] (linear) or int64[" + std::to_string(nnz)
                + ", " + std::to_string(rank) + "] (coordinates) for " + std::to_string(nnz) + " values of dense shape "
                + shapeToString(dims) + ", got " + indices.typeString());
        for (int64_t k = 0; k < nnz; ++k) {
            int64_t at = 0;
            if (isLinear) {
                at = idx[static_cast<size_t>(k)];
                if (at < 0 || at >= denseCount)
                    throw Error(what + ": linear index " + std::to_string(at) + " of value " + std::to_string(k)
                        + " is outside [0, " + std::to_string(denseCount) + ")");
            } else {
                for (size_t d = 0; d < rank; ++d) {
                    const int64_t c = idx[static_cast<size_t>(k) * rank + d];
                    if (c < 0 || c >= dims[d])
                        throw Error(what + ": index " + std::to_string(c) + " of value " + std::to_string(k)
                            + " in dimension " + std::to_string(d) + " is outside [0, " + std::to_string(dims[d])
                            + ")");
                    at = at * dims[d] + c;
                }
            }
            linear[static_cast<size_t>(k)] = at;
        }
        std::vector<int64_t> sorted = linear;
        std::sort(sorted.begin(), sorted.end());
        auto dup = std::adjacent_find(sorted.begin(), sorted.end());
        if (dup != sorted.end())
            throw Error(what + " gives the element at linear index " + std::to_string(*dup) + " twice");
    }
    Tensor dense(type, dims);
    if (type == DataType::String) {
        auto out = dense.data<std::string>();
        auto in = values.data<std::string>();
        for (int64_t k = 0; k < nnz; ++k)
            out[static_cast<size_t>(linear[static_cast<size_t>(k)])] = in[static_cast<size_t>(k)];
    } else {
        const size_t es = elementSize(type);
        auto* out = static_cast<unsigned char*>(dense.mutableRaw());
        const auto* in = static_cast<const unsigned char*>(values.raw());
        for (int64_t k = 0; k < nnz; ++k)
            std::memcpy(
                out + static_cast<size_t>(linear[static_cast<size_t>(k)]) * es, in + static_cast<size_t>(k) * es, es);
    }
    return dense;
}

void tensorToProto(const Tensor& tensor, onnx::TensorProto& proto, const std::string& name)
{
    proto.Clear();
    if (!name.empty())
        proto.set_name(name);
    proto.set_data_type(static_cast<int32_t>(tensor.dtype()));
    for (int64_t d : tensor.shape())
        proto.add_dims(d);
    if (tensor.dtype() == DataType::String) {
        for (const auto& s : tensor.data<std::string>())
            proto.add_string_data(s);
        return;
    }
    if (isNarrow(tensor.dtype())) {
        std::string packed(packedByteSize(tensor.dtype(), tensor.size()), '\0');
        packElements(tensor.dtype(), static_cast<const uint8_t*>(tensor.raw()), tensor.size(),
            reinterpret_cast<uint8_t*>(packed.data()));
        proto.set_raw_data(std::move(packed));
        return;
    }
    proto.set_raw_data(std::string(static_cast<const char*>(tensor.raw()), tensor.byteSize()));
}

namespace {

/// Reads `path` whole; `checkSize(bytes, what)` throws if `bytes` are too many, before they are read.
template <class CheckSize> std::string readBoundedFile(const fs::path& path, CheckSize checkSize)
{
    const std::string what = "\"" + path.string() + "\"";
    std::ifstream in(path, std::ios::binary);
    check(in.good(), "cannot open " + what + ": " + std::strerror(errno));
    // A file that is not regular (a pipe, a device such as /dev/zero behind a .npy name) has no size to check
    // first: it is read in chunks, each checked, so it cannot fill the memory.
    std::error_code ec;
    const bool regular = fs::is_regular_file(path, ec);
    const uint64_t size = regular ? fs::file_size(path, ec) : 0;
    const bool sized = regular && !ec;
    if (sized)
        checkSize(size, what);
    std::string bytes;
    bytes.reserve(sized ? static_cast<size_t>(size) : 0);
    char chunk[1 << 16];
    while (in) {
        in.read(chunk, sizeof chunk);
        const auto got = static_cast<size_t>(in.gcount());
        if (got == 0)
            break;
        checkSize(bytes.size() + got, what);
        bytes.append(chunk, got);
    }
    check(!in.bad(), "cannot read " + what);
    return bytes;
}

} // namespace

std::string readFileBytes(const fs::path& path)
{
    return readBoundedFile(
        path, [](uint64_t bytes, const std::string& what) { checkAllocation(bytes, 1, "reading " + what); });
}

std::string readFileBytes(const fs::path& path, uint64_t maxBytes)
{
    return readBoundedFile(path, [maxBytes](uint64_t bytes, const std::string& what) {
        check(
            bytes <= maxBytes, what + " holds more than " + std::to_string(maxBytes) + " bytes, more than can be read");
    });
}

Tensor readTensorProtoFile(const fs::path& path, std::string* name)
{
    std::string bytes = readFileBytes(path);
    onnx::TensorProto proto;
    check(proto.ParseFromString(bytes), "\"" + path.string() + "\" is not a valid serialized TensorProto");
    if (name)
        *name = proto.name();
    ExternalDataStore store(path.parent_path());
    try {
        return tensorFromProto(proto, &store);
    } catch (const Error& e) {
        throw Error("\"" + path.string() + "\": " + e.what());
    }
}

void writeTensorProtoFile(const fs::path& path, const Tensor& tensor, const std::string& name)
{
    // protobuf refuses to parse (and to serialize) a message of 2 GiB or more; the raw data is most of it.
    constexpr size_t kProtobufLimit = (size_t(2) << 30) - (size_t(1) << 20);
    if (tensor.byteSize() >= kProtobufLimit)
        throw Error("\"" + path.string() + "\": " + tensor.typeString() + " holds "
            + std::to_string(tensor.byteSize() >> 20)
            + " MiB, more than a TensorProto (.pb) can: protobuf messages stop at 2 GB; write it as .npy");
    onnx::TensorProto proto;
    tensorToProto(tensor, proto, name);
    std::ofstream out(path, std::ios::binary);
    check(out.good(), "cannot write \"" + path.string() + "\": " + std::strerror(errno));
    check(proto.SerializeToOstream(&out), "cannot write \"" + path.string() + "\"");
}

} // namespace onnxscope
