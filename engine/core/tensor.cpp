// SPDX-License-Identifier: MIT
#include "engine/core/tensor.h"

#include "engine/core/half.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>
#include <unistd.h>

namespace onnxscope {

namespace {

size_t physicalMemory()
{
    long pages = sysconf(_SC_PHYS_PAGES);
    long pageSize = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || pageSize <= 0)
        return std::numeric_limits<size_t>::max();
    return static_cast<size_t>(pages) * static_cast<size_t>(pageSize);
}

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

std::string formatBytes(double bytes)
{
    const char* units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
    int u = 0;
    while (bytes >= 1024 && u < 6) {
        bytes /= 1024;
        ++u;
    }
    char buf[64];
    snprintf(buf, sizeof buf, "%.1f %s", bytes, units[u]);
    return buf;
}

/// Recently freed large blocks, by size, for the next tensor of that size: a run allocates the same shapes again
/// and again, and fresh memory costs a page fault per 4 KiB (and glibc returns large blocks to the system).
/// Holds at most limit() bytes; blocks beyond that are freed.
class StorageCache {
public:
    static constexpr size_t kMinBytes = size_t(64) << 10;

    std::atomic<size_t> limit { std::min(size_t(1) << 30, physicalMemory() / 8) };

    void* take(size_t bytes)
    {
        std::lock_guard lock(m_mutex);
        auto it = m_free.find(bytes);
        if (it == m_free.end() || it->second.empty())
            return nullptr;
        void* p = it->second.back();
        it->second.pop_back();
        m_held -= bytes;
        return p;
    }

    void give(void* p, size_t bytes)
    {
        {
            std::lock_guard lock(m_mutex);
            if (m_held + bytes <= limit.load(std::memory_order_relaxed)) {
                m_free[bytes].push_back(p);
                m_held += bytes;
                return;
            }
        }
        std::free(p);
    }

    void clear()
    {
        std::lock_guard lock(m_mutex);
        for (auto& [bytes, blocks] : m_free)
            for (void* p : blocks)
                std::free(p);
        m_free.clear();
        m_held = 0;
    }

    size_t held()
    {
        std::lock_guard lock(m_mutex);
        return m_held;
    }

private:
    std::mutex m_mutex;
    std::unordered_map<size_t, std::vector<void*>> m_free;
    size_t m_held = 0;
};

// Never destroyed: tensors may be released during static destruction.
StorageCache& storageCache()
{
    static StorageCache* cache = new StorageCache;
    return *cache;
}

} // namespace

size_t Tensor::allocationLimit() { return limitRef().load(); }
void Tensor::setAllocationLimit(size_t bytes) { limitRef().store(bytes); }

size_t Tensor::cachedStorageBytes() { return storageCache().held(); }
size_t Tensor::storageCacheLimit() { return storageCache().limit.load(); }
void Tensor::setStorageCacheLimit(size_t bytes)
{
    storageCache().limit.store(bytes);
    if (storageCache().held() > bytes)
        storageCache().clear();
}
void Tensor::releaseCachedStorage() { storageCache().clear(); }

std::shared_ptr<void> allocateStorage(DataType type, int64_t count, const Shape& shape, bool zeroed)
{
    check(type != DataType::Undefined, "cannot allocate a tensor of undefined element type");
    size_t elem = elementSize(type);
    if (count < 0 || static_cast<uint64_t>(count) > std::numeric_limits<size_t>::max() / elem
        || static_cast<size_t>(count) * elem > Tensor::allocationLimit()) {
        double bytes = static_cast<double>(count) * static_cast<double>(elem);
        throw Error("tensor " + std::string(dataTypeName(type)) + shapeToString(shape) + " would need "
            + formatBytes(bytes) + ", more than the allocation limit of " + formatBytes(Tensor::allocationLimit()));
    }
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
    void* p = cached ? storageCache().take(bytes) : nullptr;
    if (!p)
        p = std::aligned_alloc(64, bytes);
    if (!p)
        throw Error("out of memory allocating tensor " + std::string(dataTypeName(type)) + shapeToString(shape) + " ("
            + formatBytes(static_cast<double>(n * elem)) + ")");
    if (zeroed)
        std::memset(p, 0, bytes);
    if (cached)
        return std::shared_ptr<void>(p, [bytes](void* q) { storageCache().give(q, bytes); });
    return std::shared_ptr<void>(p, [](void* q) { std::free(q); });
}

namespace {

std::shared_ptr<const Shape> sharedShape(Shape shape)
{
    return shape.empty() ? nullptr : std::make_shared<const Shape>(std::move(shape));
}

} // namespace

const Shape& Tensor::emptyShape()
{
    static const Shape empty;
    return empty;
}

Tensor::Tensor(DataType type, Shape shape)
    : m_type(type)
    , m_shape(sharedShape(std::move(shape)))
    , m_size(elementCount(this->shape()))
    , m_storage(allocateStorage(type, m_size, this->shape()))
{
}

Tensor Tensor::uninitialized(DataType type, Shape shape)
{
    Tensor t;
    t.m_type = type;
    t.m_size = elementCount(shape);
    t.m_storage = allocateStorage(type, t.m_size, shape, false);
    t.m_shape = sharedShape(std::move(shape));
    return t;
}

Tensor::Tensor(DataType type, Shape shape, std::shared_ptr<const void> storage)
    : m_type(type)
    , m_shape(sharedShape(std::move(shape)))
    , m_size(elementCount(this->shape()))
    , m_storage(std::move(storage))
    , m_readOnly(true)
{
    check(type != DataType::String, "string tensors cannot wrap external storage");
}

void* Tensor::mutableRaw()
{
    if (m_readOnly) {
        auto copy = allocateStorage(m_type, m_size, shape());
        std::memcpy(copy.get(), m_storage.get(), byteSize());
        m_storage = copy;
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
    t.m_shape = sharedShape(std::move(shape));
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
        return std::numeric_limits<double>::quiet_NaN();
    }
}

std::string Tensor::typeString() const { return std::string(dataTypeName(m_type)) + shapeToString(shape()); }

} // namespace onnxscope
