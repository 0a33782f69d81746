// SPDX-License-Identifier: MIT
#include "engine/core/tensor.h"

#include "engine/core/half.h"
#include "engine/core/sanitizer.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <new>
#include <unordered_map>
#include <utility>
#include <vector>
#include <malloc.h>
#include <sys/mman.h>
#if ONNXSCOPE_ASAN
#include <sanitizer/asan_interface.h>
#endif
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

// Whether tensor storage is kept in the engine's own caches (the block arena, the small-block caches) and malloc's
// thresholds are set. AddressSanitizer sees overflows and uses after free only in memory straight from malloc:
// sanitized builds keep every block there.
constexpr bool kOwnBlocks = !ONNXSCOPE_ASAN;

/// Address space for the storage cache's blocks, mapped from the system in chunks that ask for transparent huge pages
/// (madvise(MADV_HUGEPAGE), which Debian's default THP mode "madvise" honours). A debug run keeps every intermediate:
/// ocr_det writes 659 MiB per run, and with 4 KiB pages the first run faulted 184 000 of them (1.7 s on this VM) and
/// every run missed the TLB on most. Blocks are carved one after the other from 256 MiB chunks; a block larger than a
/// quarter of that is a mapping of its own. Chunks are never unmapped: a block whose memory is given back
/// (release()) keeps its address range for the next block of its size. Not thread-safe: StorageCache locks.
class BlockArena {
public:
    static constexpr size_t kHugePage = size_t(2) << 20;
    static constexpr size_t kChunk = size_t(256) << 20;

    static bool ownMapping(size_t bytes) { return bytes > kChunk / 4; }
    static size_t toHugePages(size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }

    /// A new block of `bytes` (a multiple of the page size), or null when the system refuses the mapping.
    void* allocate(size_t bytes)
    {
        if (ownMapping(bytes))
            return map(toHugePages(bytes));
        if (!m_chunk || m_used + bytes > kChunk) {
            // The rest of the previous chunk is address space only: it was never touched.
            m_chunk = static_cast<char*>(map(kChunk));
            m_used = 0;
            if (!m_chunk)
                return nullptr;
        }
        void* p = m_chunk + m_used;
        m_used += bytes;
        return p;
    }

    /// Gives the block's memory back to the system. A block in a chunk keeps its address range (reusable for a block
    /// of the same size, which faults in fresh pages); a block of its own is unmapped, and `true` says so.
    static bool release(void* p, size_t bytes)
    {
        if (ownMapping(bytes)) {
            munmap(p, toHugePages(bytes));
            return true;
        }
        madvise(p, bytes, MADV_DONTNEED);
        return false;
    }

private:
    /// `bytes` (a multiple of kHugePage) of fresh memory at an address aligned to kHugePage.
    static void* map(size_t bytes)
    {
        void* raw = mmap(nullptr, bytes + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (raw == MAP_FAILED)
            return nullptr;
        const auto start = reinterpret_cast<uintptr_t>(raw);
        const uintptr_t aligned = toHugePages(start);
        if (aligned > start)
            munmap(raw, aligned - start);
        if (const uintptr_t tail = start + kHugePage - aligned) // what is left of the mapping past aligned + bytes
            munmap(reinterpret_cast<void*>(aligned + bytes), tail);
        void* p = reinterpret_cast<void*>(aligned);
        madvise(p, bytes, MADV_HUGEPAGE); // a hint: without THP the block works the same with small pages
        return p;
    }

    char* m_chunk = nullptr;
    size_t m_used = 0;
};

/// Recently freed large blocks, by size, for the next tensor of that size: a run allocates the same shapes again
/// and again, and fresh memory costs a page fault per page. Holds at most limit() bytes; the memory of blocks beyond
/// that goes back to the system. Blocks come from the BlockArena (except in sanitized builds, or when the system
/// refuses a mapping: then from malloc, and back to free).
class StorageCache {
public:
    static constexpr size_t kMinBytes = size_t(64) << 10;

    std::atomic<size_t> limit { std::min(size_t(1) << 30, physicalMemory() / 8) };

    StorageCache()
    {
        // Smaller tensors and the kernels' buffers stay with malloc. glibc returns the top of its heap to the system
        // when more than 128 KiB are free there, and raises that bound (and the size from which it maps blocks) only
        // after freeing a mapped block: with large tensors no longer coming from malloc, that took several runs, and
        // until then each debug run of ocr_cls, which keeps ~2 MiB of small tensors, faulted them in again (535 faults,
        // 7 ms a run). These are the values glibc's own adjustment reaches (32 MiB, twice that for trimming).
        if (kOwnBlocks) {
            mallopt(M_MMAP_THRESHOLD, 32 << 20);
            mallopt(M_TRIM_THRESHOLD, 64 << 20);
        }
    }

    /// A block of `bytes` (a multiple of the page size) and whether it is the arena's.
    std::pair<void*, bool> take(size_t bytes)
    {
        std::lock_guard lock(m_mutex);
        if (Block block = pop(m_free, bytes); block.p) {
            m_held -= bytes;
            return { block.p, block.arena };
        }
        if (Block block = pop(m_released, bytes); block.p)
            return { block.p, true };
        if (void* p = kOwnBlocks ? m_arena.allocate(bytes) : nullptr)
            return { p, true };
        return { std::aligned_alloc(64, bytes), false };
    }

    void give(void* p, size_t bytes, bool arena)
    {
        std::lock_guard lock(m_mutex);
        if (m_held + bytes <= limit.load(std::memory_order_relaxed)) {
            m_free[bytes].push_back({ p, arena });
            m_held += bytes;
            return;
        }
        discard({ p, arena }, bytes);
    }

    void clear()
    {
        std::lock_guard lock(m_mutex);
        for (auto& [bytes, blocks] : m_free)
            for (const Block& block : blocks)
                discard(block, bytes);
        m_free.clear();
        m_held = 0;
    }

    size_t held()
    {
        std::lock_guard lock(m_mutex);
        return m_held;
    }

private:
    struct Block {
        void* p = nullptr;
        bool arena = false; // from the BlockArena, else from malloc
    };
    using Blocks = std::unordered_map<size_t, std::vector<Block>>;

    /// The last block of this size in `from`, taken out of it; a null block if there is none.
    static Block pop(Blocks& from, size_t bytes)
    {
        auto it = from.find(bytes);
        if (it == from.end() || it->second.empty())
            return { nullptr, false };
        Block block = it->second.back();
        it->second.pop_back();
        return block;
    }

    /// Gives the block's memory back to the system (m_mutex held).
    void discard(Block block, size_t bytes)
    {
        if (!block.arena)
            std::free(block.p);
        else if (!BlockArena::release(block.p, bytes))
            m_released[bytes].push_back(block);
    }

    std::mutex m_mutex;
    BlockArena m_arena;
    Blocks m_free; // held: their memory is resident, counted in m_held
    Blocks m_released; // arena address ranges whose memory went back to the system
    size_t m_held = 0;
};

/// Recently freed blocks of small tensors (elements and control block, allocateInline()), by size, for the next
/// tensor of that size; one cache per thread, which takes the blocks that thread frees. A debug run keeps all its
/// outputs and frees them together at its end: malloc then merges neighbouring blocks and splits them again in the
/// next run, or keeps the few its own thread cache holds (7 of a size). hey_jarvis, 5000 runs, fastest: debug
/// 19.4-19.8 us with malloc alone, 17.2-18.4 us with malloc's thread cache unbounded (GLIBC_TUNABLES); plain runs
/// 15.0-15.5 either way; with this cache, 17.6-18.3 (medians 19.3 against 19.7-20.8 without). A cache shared by all
/// threads behind a mutex gave 18.3-18.8. Holds at most kLimit bytes; freed blocks are linked through their first
/// bytes. Not in sanitized builds, where malloc's own free lists catch a use after free.
class SmallBlockCache {
public:
    static constexpr size_t kLimit = size_t(16) << 20;
    static constexpr size_t kClasses = StorageCache::kMinBytes / 64; // n * 64 element bytes (0: shapes)

    ~SmallBlockCache()
    {
        clear();
        t_gone = true;
    }

    /// This thread's cache; null once the thread has destroyed it (blocks freed later go straight back to malloc).
    static SmallBlockCache* forThisThread()
    {
        if (!kOwnBlocks || t_gone)
            return nullptr;
        thread_local SmallBlockCache cache;
        return &cache;
    }

    /// A block of `bytes` whose elements take `elementBytes` (a multiple of 64 below StorageCache::kMinBytes); null
    /// if none of that size is held.
    void* take(size_t bytes, size_t elementBytes)
    {
        FreeBlock*& head = m_free[elementBytes / 64];
        FreeBlock* block = head;
        if (block) {
            head = block->next;
            m_held -= bytes;
        }
        return block;
    }

    /// Keeps the block unless that would pass kLimit; false if not kept.
    bool give(void* p, size_t bytes, size_t elementBytes)
    {
        if (m_held + bytes > kLimit)
            return false;
        auto* block = static_cast<FreeBlock*>(p);
        block->next = m_free[elementBytes / 64];
        m_free[elementBytes / 64] = block;
        m_held += bytes;
        return true;
    }

    size_t held() const { return m_held; }

    void clear()
    {
        for (FreeBlock*& head : m_free)
            while (FreeBlock* block = head) {
                head = block->next;
                ::operator delete(block);
            }
        m_held = 0;
    }

private:
    struct FreeBlock {
        FreeBlock* next;
    };
    static thread_local bool t_gone;

    FreeBlock* m_free[kClasses] = {};
    size_t m_held = 0;
};

thread_local bool SmallBlockCache::t_gone = false;

void* takeSmallBlock(size_t bytes, size_t elementBytes)
{
    SmallBlockCache* cache = SmallBlockCache::forThisThread();
    if (void* p = cache ? cache->take(bytes, elementBytes) : nullptr)
        return p;
    return ::operator new(bytes);
}

void giveSmallBlock(void* p, size_t bytes, size_t elementBytes)
{
    SmallBlockCache* cache = SmallBlockCache::forThisThread();
    if (!cache || !cache->give(p, bytes, elementBytes))
        ::operator delete(p);
}

/// The allocator with which a small tensor's elements share one block with its shared_ptr's control block
/// (std::allocate_shared asks it for the control block): room for `elementBytes` more, beginning at the first 64-byte
/// boundary past the control block, whose address allocate() writes to `*data`. A separate aligned_alloc cost a
/// tensor two allocations, and glibc's memalign takes neither its thread cache nor its fast bins (hey_jarvis, whose
/// tensors are all small: plain runs 18 -> 16 us, debug runs 23 -> 20.5 us).
template <class T>
struct InlineStorageAllocator {
    using value_type = T;

    size_t elementBytes = 0;
    void** data = nullptr;

    InlineStorageAllocator(size_t elementBytes, void** data)
        : elementBytes(elementBytes)
        , data(data)
    {
    }
    template <class U>
    InlineStorageAllocator(const InlineStorageAllocator<U>& other)
        : elementBytes(other.elementBytes)
        , data(other.data)
    {
    }

    /// The control block ends anywhere: up to 63 more bytes reach the next 64-byte boundary.
    size_t blockBytes(size_t n) const { return n * sizeof(T) + 63 + elementBytes; }

    T* allocate(size_t n)
    {
        auto* p = static_cast<char*>(takeSmallBlock(blockBytes(n), elementBytes));
        char* const head = p + n * sizeof(T);
        char* const elements = head + (64 - reinterpret_cast<uintptr_t>(head) % 64) % 64;
        *data = elements;
#if ONNXSCOPE_ASAN
        // AddressSanitizer sees the ends of the whole block: mark the padding on either side of the elements too.
        char* const end = elements + elementBytes;
        ASAN_POISON_MEMORY_REGION(head, static_cast<size_t>(elements - head));
        ASAN_POISON_MEMORY_REGION(end, static_cast<size_t>(p + blockBytes(n) - end));
#endif
        return reinterpret_cast<T*>(p);
    }
    void deallocate(T* p, size_t n) { giveSmallBlock(p, blockBytes(n), elementBytes); }

    template <class U>
    bool operator==(const InlineStorageAllocator<U>&) const
    {
        return true;
    }
};

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

// Never destroyed: tensors may be released during static destruction.
StorageCache& storageCache()
{
    static StorageCache* cache = new StorageCache;
    return *cache;
}

} // namespace

size_t Tensor::allocationLimit() { return limitRef().load(); }
void Tensor::setAllocationLimit(size_t bytes) { limitRef().store(bytes); }

size_t Tensor::cachedStorageBytes()
{
    const SmallBlockCache* small = SmallBlockCache::forThisThread();
    return storageCache().held() + (small ? small->held() : 0);
}
size_t Tensor::storageCacheLimit() { return storageCache().limit.load(); }
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
std::shared_ptr<void> allocateStorageFor(DataType type, int64_t count, const Shape& shape, bool zeroed,
    Shape* inlineShape, const Shape** shapeInBlock)
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
            + formatBytes(static_cast<double>(n * elem)) + ")");
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

/// The allocator of tensors' shared shapes: blocks from the thread's SmallBlockCache, in the size class that tensors'
/// elements never use (they take 64 bytes or more). A debug run keeps every output's shape until its end; with malloc,
/// each took a block from its slow path once its thread cache of 7 blocks of that size was empty.
template <class T>
struct ShapeBlockAllocator {
    using value_type = T;
    static constexpr size_t kElementBytes = 0; // SmallBlockCache's size class 0, which holds these blocks only

    ShapeBlockAllocator() = default;
    template <class U>
    ShapeBlockAllocator(const ShapeBlockAllocator<U>&)
    {
    }
    T* allocate(size_t n) { return static_cast<T*>(takeSmallBlock(n * sizeof(T), kElementBytes)); }
    void deallocate(T* p, size_t n) { giveSmallBlock(p, n * sizeof(T), kElementBytes); }
    template <class U>
    bool operator==(const ShapeBlockAllocator<U>&) const
    {
        return true;
    }
};

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
        return std::numeric_limits<double>::quiet_NaN();
    }
}

std::string Tensor::typeString() const { return std::string(dataTypeName(m_type)) + shapeToString(shape()); }

} // namespace onnxscope
