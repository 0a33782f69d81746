// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/tensor.h"

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace onnx {
class TensorProto;
class SparseTensorProto;
}

namespace onnxscope {

/// Resolves ONNX external data (TensorProto.data_location == EXTERNAL) against a model's folder.
///
/// Files are memory-mapped once and shared by every tensor that points into them, so weights are only paged in
/// when read. Locations that are absolute, leave the folder (`..`) or resolve through a symlink to outside it are
/// refused, as are missing files and offsets or lengths past the end of the file.
class ExternalDataStore {
public:
    explicit ExternalDataStore(std::filesystem::path baseDir);
    ~ExternalDataStore();

    const std::filesystem::path& baseDir() const { return m_baseDir; }
    /// Returns `length` bytes at `offset` of `location`, kept alive by the returned pointer. `tensorName` is for
    /// error messages.
    std::shared_ptr<const void> bytes(
        const std::string& location, uint64_t offset, uint64_t length, const std::string& tensorName);
    /// The size of the file `location` refers to, after the same checks as bytes().
    uint64_t fileSize(const std::string& location, const std::string& tensorName);

private:
    struct Mapping;
    std::shared_ptr<Mapping> map(const std::string& location, const std::string& tensorName);

    std::filesystem::path m_baseDir;
    std::mutex m_mutex;
    std::map<std::string, std::shared_ptr<Mapping>> m_mappings;
};

/// Converts a TensorProto to a Tensor, from its typed fields, raw_data or external data. `external` may be null
/// when the tensor is known to be internal; an external tensor then is an Error. Every size mismatch is an Error
/// naming the tensor.
Tensor tensorFromProto(const onnx::TensorProto& proto, ExternalDataStore* external = nullptr);
/// Densifies a COO SparseTensorProto (values [NNZ], indices [NNZ] linear or [NNZ, rank] int64, dims) into a Tensor
/// of its dense shape, zero where no value is given, as the ONNX spec allows an implementation to do. `what` names
/// it in errors ("sparse initializer \"A\""). The dense size is checked against the allocation limit before anything
/// is allocated; every index must be in range (sortedness is not required); an index given twice is an Error.
Tensor tensorFromSparseProto(
    const onnx::SparseTensorProto& proto, const std::string& what, ExternalDataStore* external = nullptr);
/// Converts a Tensor to a TensorProto (raw_data for numeric types, packed for the 4-, 2- and 6-bit types;
/// string_data for strings).
void tensorToProto(const Tensor& tensor, onnx::TensorProto& proto, const std::string& name = {});

/// Reads a serialized TensorProto file (.pb, as in ONNX backend test cases).
Tensor readTensorProtoFile(const std::filesystem::path& path, std::string* name = nullptr);
void writeTensorProtoFile(const std::filesystem::path& path, const Tensor& tensor, const std::string& name = {});

/// Reads a whole file into memory; Error naming the file if it cannot be read or holds more than
/// Tensor::allocationLimit() bytes (checked before it is read; a pipe or device is read in chunks, each checked).
std::string readFileBytes(const std::filesystem::path& path);
/// The same with a bound of its own (a model file is bounded by protobuf's 2 GiB, not by the tensor limit).
std::string readFileBytes(const std::filesystem::path& path, uint64_t maxBytes);

} // namespace onnxscope
