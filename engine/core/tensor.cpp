// SPDX-License-Identifier: MIT
#include "engine/core/tensor.h"

#include "engine/core/allocation_limit.h"
#include "engine/core/byte_size.h"
#include "engine/core/half.h"
#include "engine/core/narrow_types.h"
#include "engine/core/small_block_cache.h"
#include "engine/core/storage_cache.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <utility>

namespace onnxscope {

namespace {

/// Memory the kernel says can be allocated without swapping (MemAvailable), when first asked; total memory if unknown.
size_t availableMemory()
{
    if (FILE* f = std::fopen("/proc/meminfo", "r")) {
        char line[256];
        unsigned long long kib = 0;
        bool found = false;
        while (!found && std::fgets(line, sizeof line, f))
            found = std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1;
        std::fclose(f);
        if (found && kib > 0)
            return static_cast<size_t>(kib) * 1024;
    }
    return physicalMemory();
}

std::atomic<size_t>& limitRef()
{
    static std::atomic<size_t> limit { availableMemory() };
    return limit;
}

/// What allocate_shared constructs in the control block: the tensor's shape, if it gives one; the elements follow.
struct InlineStorage {
    InlineStorage() = default;
    explicit InlineStorage(Shape&& shape)
        : shape(std::move(shape))
    {
    }
    Shape shape;
};

/// `bytes` (a multiple of 64) for a tensor's elements at a 64-byte boundary, in the same block as the shared_ptr's
/// control block; null if there is no memory for it. With `shape`, the block holds it too (moved in only once the
/// block is there) and `*shapeInBlock` points at it.
std::shared_ptr<void> allocateInline(size_t bytes, Shape* shape, const Shape** shapeInBlock)
{
    void* data = nullptr;
    try {
        InlineStorageAllocator<InlineStorage> allocator(bytes, &data);
        auto block = shape ? std::allocate_shared<InlineStorage>(allocator, std::move(*shape))
                           : std::allocate_shared<InlineStorage>(allocator);
        if (shapeInBlock)
            *shapeInBlock = &block->shape;
        return std::shared_ptr<void>(std::move(block), data);
    } catch (const std::bad_alloc&) {
        return nullptr;
    }
}

} // namespace

size_t Tensor::allocationLimit()
{
    return limitRef().load();
}

void Tensor::setAllocationLimit(size_t bytes)
{
    limitRef().store(bytes);
}

namespace {

[[noreturn]] void throwOverLimit(const std::string& what, double bytes)
{
    throw Error(what + " would need " + formatByteCount(bytes) + ", more than the allocation limit of "
        + formatByteCount(static_cast<double>(Tensor::allocationLimit())));
}

/// The check of allocateStorage and checkedTensorCount: `count` elements of `type` (a count already known to be
/// non-negative) fit the limit.
void checkTensorBytes(DataType type, int64_t count, const Shape& shape)
{
    check(type != DataType::Undefined, "cannot allocate a tensor of undefined element type");
    const size_t elem = elementSize(type);
    if (count < 0 || static_cast<uint64_t>(count) > std::numeric_limits<size_t>::max() / elem
        || static_cast<size_t>(count) * elem > Tensor::allocationLimit())
        throwOverLimit("tensor " + std::string(dataTypeName(type)) + shapeToString(shape),
            static_cast<double>(count) * static_cast<double>(elem));
}

} // namespace

int64_t checkedTensorCount(DataType type, const Shape& shape)
{
    const int64_t count = elementCount(shape);
    checkTensorBytes(type, count, shape);
    return count;
}

void checkAllocation(uint64_t count, uint64_t itemBytes, const std::string& what)
{
    uint64_t bytes = 0;
    if (__builtin_mul_overflow(count, itemBytes, &bytes) || bytes > Tensor::allocationLimit())
        throwOverLimit(what, static_cast<double>(count) * static_cast<double>(itemBytes));
}

size_t Tensor::cachedStorageBytes()
{
    const SmallBlockCache* small = SmallBlockCache::forThisThread();
    return storageCache().held() + (small ? small->held() : 0);
}
size_t Tensor::storageCacheLimit()
{
    return storageCache().limit.load();
}
void Tensor::setStorageCacheLimit(size_t bytes)
{
    storageCache().limit.store(bytes);
    if (storageCache().held() > bytes)
        storageCache().clear();
}
void Tensor::releaseCachedStorage()
{
    storageCache().clear();
    if (SmallBlockCache* cache = SmallBlockCache::forThisThread())
        cache->clear();
}

namespace {

/// allocateStorage; when the elements share the block of the shared_ptr's control block and `inlineShape` is given,
/// the block holds that shape too, moved from `*inlineShape` (see allocateInline).
std::shared_ptr<void> allocateStorageFor(
    DataType type, int64_t count, const Shape& shape, bool zeroed, Shape* inlineShape, const Shape** shapeInBlock)
{
    checkTensorBytes(type, count, shape);
    const size_t elem = elementSize(type);
    size_t n = static_cast<size_t>(count);
    if (type == DataType::String) {
        std::string* p = new (std::nothrow) std::string[n > 0 ? n : 1];
        if (!p)
            throw Error("out of memory allocating string tensor " + shapeToString(shape));
        return std::shared_ptr<void>(p, [](void* q) { delete[] static_cast<std::string*>(q); });
    }
    // 64-byte alignment suits Eigen's vectorised maps; at least one byte so data() is never null. Large blocks are
    // rounded to whole pages and go through the cache.
    size_t bytes = std::max<size_t>(((n * elem + 63) / 64) * 64, 64);
    const bool cached = bytes >= StorageCache::kMinBytes;
    if (cached)
        bytes = (bytes + 4095) / 4096 * 4096;
    std::shared_ptr<void> storage;
    if (!cached) {
        storage = allocateInline(bytes, inlineShape, shapeInBlock);
    } else if (const std::pair<void*, bool> block = storageCache().take(bytes); block.first) {
        // Not a structured binding: the deleter captures `arena`, which clang 14 does not allow for one.
        const bool arena = block.second;
        storage = std::shared_ptr<void>(block.first, [bytes, arena](void* q) { storageCache().give(q, bytes, arena); });
    }
    if (!storage)
        throw Error("out of memory allocating tensor " + std::string(dataTypeName(type)) + shapeToString(shape) + " ("
            + formatByteCount(static_cast<double>(n * elem)) + ")");
    if (zeroed)
        std::memset(storage.get(), 0, bytes);
    return storage;
}

} // namespace

std::shared_ptr<void> allocateStorage(DataType type, int64_t count, const Shape& shape, bool zeroed)
{
    return allocateStorageFor(type, count, shape, zeroed, nullptr, nullptr);
}

namespace {

/// A shape in a block of its own (ShapeBlockAllocator); null for a scalar.
std::shared_ptr<const Shape> sharedShape(Shape shape)
{
    return shape.empty() ? nullptr
                         : std::allocate_shared<const Shape>(ShapeBlockAllocator<const Shape>(), std::move(shape));
}

} // namespace

const Shape& Tensor::emptyShape()
{
    static const Shape empty;
    return empty;
}

Tensor::Tensor(Tensor&& other) noexcept
    : m_type(other.m_type)
    , m_shapeRef(std::exchange(other.m_shapeRef, nullptr))
    , m_shape(std::move(other.m_shape))
    , m_size(other.m_size)
    , m_storage(std::move(other.m_storage))
    , m_readOnly(other.m_readOnly)
{
}

Tensor& Tensor::operator=(Tensor&& other) noexcept
{
    if (this != &other) {
        m_type = other.m_type;
        m_shapeRef = std::exchange(other.m_shapeRef, nullptr);
        m_shape = std::move(other.m_shape);
        m_size = other.m_size;
        m_storage = std::move(other.m_storage);
        m_readOnly = other.m_readOnly;
    }
    return *this;
}

void Tensor::setOwnShape(Shape shape)
{
    m_shape = sharedShape(std::move(shape));
    m_shapeRef = m_shape.get();
}

void Tensor::allocate(Shape shape, bool zeroed)
{
    m_size = elementCount(shape);
    const Shape* inBlock = nullptr;
    m_storage = allocateStorageFor(m_type, m_size, shape, zeroed, &shape, &inBlock);
    if (inBlock) {
        m_shape.reset();
        m_shapeRef = inBlock->empty() ? nullptr : inBlock;
    } else {
        setOwnShape(std::move(shape));
    }
}

Tensor::Tensor(DataType type, Shape shape)
    : m_type(type)
{
    allocate(std::move(shape), true);
}

Tensor Tensor::uninitialized(DataType type, Shape shape)
{
    Tensor t;
    t.m_type = type;
    t.allocate(std::move(shape), false);
    return t;
}

Tensor::Tensor(DataType type, Shape shape, std::shared_ptr<const void> storage)
    : m_type(type)
    , m_size(elementCount(shape))
    , m_storage(std::move(storage))
    , m_readOnly(true)
{
    check(type != DataType::String, "string tensors cannot wrap external storage");
    setOwnShape(std::move(shape));
}

void* Tensor::mutableRaw()
{
    if (m_readOnly) {
        auto copy = allocateStorage(m_type, m_size, shape());
        std::memcpy(copy.get(), m_storage.get(), byteSize());
        m_storage = copy; // the shape is not in the storage let go of: outside storage has a shape block of its own
        m_readOnly = false;
    }
    return const_cast<void*>(m_storage.get());
}

void Tensor::checkType(DataType requested) const
{
    if (requested != m_type)
        throw Error("tensor of type " + std::string(dataTypeName(m_type)) + " accessed as "
            + std::string(dataTypeName(requested)));
}

Tensor Tensor::reshaped(Shape shape) const
{
    Tensor t = *this;
    int64_t n = elementCount(shape);
    if (n != m_size) // not check(): the message would be built on every call
        throw Error("cannot reshape " + typeString() + " to " + shapeToString(shape));
    t.setOwnShape(std::move(shape));
    return t;
}

Tensor Tensor::clone() const
{
    if (!defined())
        return {};
    Tensor t(m_type, shape());
    if (m_type == DataType::String) {
        auto src = data<std::string>();
        std::copy(src.begin(), src.end(), t.data<std::string>().begin());
    } else {
        std::memcpy(t.mutableRaw(), raw(), byteSize());
    }
    return t;
}

double Tensor::toDouble(int64_t i) const
{
    switch (m_type) {
    case DataType::Float:
        return data<float>()[i];
    case DataType::Double:
        return data<double>()[i];
    case DataType::Float16:
        return static_cast<float>(data<Float16>()[i]);
    case DataType::BFloat16:
        return static_cast<float>(data<BFloat16>()[i]);
    case DataType::Int8:
        return data<int8_t>()[i];
    case DataType::Int16:
        return data<int16_t>()[i];
    case DataType::Int32:
        return data<int32_t>()[i];
    case DataType::Int64:
        return static_cast<double>(data<int64_t>()[i]);
    case DataType::UInt8:
        return data<uint8_t>()[i];
    case DataType::UInt16:
        return data<uint16_t>()[i];
    case DataType::UInt32:
        return data<uint32_t>()[i];
    case DataType::UInt64:
        return static_cast<double>(data<uint64_t>()[i]);
    case DataType::Bool:
        return data<bool>()[i] ? 1.0 : 0.0;
    case DataType::Complex64:
        return data<Complex64>()[i].real();
    case DataType::Complex128:
        return data<Complex128>()[i].real();
    default:
        if (isNarrow(m_type))
            return narrowToDouble(m_type, static_cast<const uint8_t*>(raw())[i]);
        return std::numeric_limits<double>::quiet_NaN();
    }
}

std::string Tensor::typeString() const
{
    return std::string(dataTypeName(m_type)) + shapeToString(shape());
}

} // namespace onnxscope
