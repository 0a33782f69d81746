// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/data_type.h"
#include "engine/core/error.h"
#include "engine/core/shape.h"

#include <memory>
#include <span>
#include <string>

namespace onnxscope {

/// An N-dimensional array of one ONNX element type, stored contiguously in row-major order.
///
/// Storage is shared: copying a Tensor is cheap and both copies see the same elements, so a tensor kept for
/// inspection costs nothing extra. Use clone() for a deep copy. Kernels access elements through typed spans
/// (`data<float>()`), which check the element type. String tensors hold std::string elements.
/// Every allocation is checked against allocationLimit() before it happens, so an absurd shape is an Error
/// that names the shape, never a crash.
class Tensor {
public:
    Tensor() = default;
    Tensor(const Tensor&) = default;
    Tensor& operator=(const Tensor&) = default;
    /// Moves leave the source without a shape: it may have pointed into the storage block that moved.
    Tensor(Tensor&& other) noexcept;
    Tensor& operator=(Tensor&& other) noexcept;
    /// Allocates a zero-initialised tensor (empty strings for String).
    Tensor(DataType type, Shape shape);
    /// Allocates a tensor whose elements the caller will all overwrite: not zeroed (strings are still empty).
    static Tensor uninitialized(DataType type, Shape shape);
    /// Wraps existing storage of at least elementCount(shape) * elementSize(type) bytes (not for strings).
    Tensor(DataType type, Shape shape, std::shared_ptr<const void> storage);

    template <class T> static Tensor scalar(T value)
    {
        Tensor t(DataTypeOf<T>::value, {});
        t.data<T>()[0] = value;
        return t;
    }
    template <class T> static Tensor fromVector(const std::vector<T>& values, Shape shape)
    {
        Tensor t(DataTypeOf<T>::value, std::move(shape));
        check(static_cast<size_t>(t.size()) == values.size(), "Tensor::fromVector: value count does not match shape");
        std::copy(values.begin(), values.end(), t.data<T>().begin());
        return t;
    }
    template <class T> static Tensor vector1D(const std::vector<T>& values)
    {
        return fromVector(values, { static_cast<int64_t>(values.size()) });
    }

    bool defined() const { return m_type != DataType::Undefined; }
    DataType dtype() const { return m_type; }
    const Shape& shape() const { return m_shapeRef ? *m_shapeRef : emptyShape(); }
    int64_t rank() const { return m_shapeRef ? static_cast<int64_t>(m_shapeRef->size()) : 0; }
    int64_t dim(int64_t axis) const { return shape().at(static_cast<size_t>(axis)); }
    int64_t size() const { return m_size; }
    size_t byteSize() const { return static_cast<size_t>(m_size) * elementSize(m_type); }

    /// Typed view of the elements; throws Error if T is not this tensor's element type.
    template <class T> std::span<T> data()
    {
        checkType(DataTypeOf<std::remove_const_t<T>>::value);
        return { static_cast<T*>(mutableRaw()), static_cast<size_t>(m_size) };
    }
    template <class T> std::span<const T> data() const
    {
        checkType(DataTypeOf<std::remove_const_t<T>>::value);
        return { static_cast<const T*>(raw()), static_cast<size_t>(m_size) };
    }
    const void* raw() const { return m_storage.get(); }
    /// Writable pointer; tensors that wrap read-only storage (memory-mapped weights) are copied first.
    void* mutableRaw();

    /// True if no other tensor shares this one's storage and it is writable in place (not read-only, not strings):
    /// a kernel may then write its output over it.
    bool uniquelyOwned() const
    {
        return m_storage && !m_readOnly && m_type != DataType::String && m_storage.use_count() == 1;
    }

    /// A tensor sharing this one's storage with a different shape of the same element count.
    Tensor reshaped(Shape shape) const;
    Tensor clone() const;
    /// Element i converted to double (numeric and bool types; NaN for strings). For display and comparison.
    double toDouble(int64_t index) const;
    /// Human-readable "float[1, 3, 224, 224]".
    std::string typeString() const;

    /// Maximum bytes a single tensor may take; defaults to the machine's available memory (MemAvailable when the
    /// process first asks).
    static size_t allocationLimit();
    static void setAllocationLimit(size_t bytes);

    /// Storage of 64 KiB and more is kept when released (up to storageCacheLimit() bytes in all: by default an
    /// eighth of the machine's memory, at most 1 GiB) and handed to the next tensor of the same byte size, so that
    /// repeated runs, debug runs included, do not fault in fresh pages. Such storage is mapped in chunks that ask for
    /// transparent huge pages (not in sanitized builds): fewer page faults for a first run, fewer TLB misses after.
    /// Smaller storage is kept too, up to 16 MiB per thread, by the thread that releases it, for that thread's next
    /// tensor of the same size (not in sanitized builds).
    /// Bytes held now (the calling thread's small blocks included), and a way to give them back to the system (e.g.
    /// when a model is closed; small blocks: the calling thread's).
    static size_t cachedStorageBytes();
    static void releaseCachedStorage();
    static size_t storageCacheLimit();
    static void setStorageCacheLimit(size_t bytes);

private:
    void checkType(DataType requested) const;
    /// Allocates the storage for m_type and `shape`, and sets the shape. A small tensor's shape lives in its storage's
    /// block, so that a copy of the tensor changes one reference count, not two (each a locked instruction once the
    /// process has a second thread).
    void allocate(Shape shape, bool zeroed);
    /// The shape in a block of its own (none for a scalar), not in the storage's.
    void setOwnShape(Shape shape);

    DataType m_type = DataType::Undefined;
    static const Shape& emptyShape();
    /// The shape, immutable and shared, so that copying a tensor (a Value, a recorded value) allocates nothing: in
    /// m_storage's block (small tensors) or m_shape's (large, reshaped, and read-only ones over outside storage); null
    /// for a scalar.
    const Shape* m_shapeRef = nullptr;
    std::shared_ptr<const Shape> m_shape; // the shape when it has a block of its own
    int64_t m_size = 0;
    std::shared_ptr<const void> m_storage;
    bool m_readOnly = false;
};

/// Allocates storage for `count` elements of `type`, zeroed unless `zeroed` is false; throws Error naming `shape`
/// if over the limit.
std::shared_ptr<void> allocateStorage(DataType type, int64_t count, const Shape& shape, bool zeroed = true);

} // namespace onnxscope
