// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

namespace {

/// Position input of SequenceAt/Insert/Erase: a scalar int32/int64, negative counts from the end. `size` is the
/// count of valid positions (items, or items + 1 for insertion). A negative position counts from the back of the
/// `items` present: -1 is the last item, also for insertion (where n, one past the last, is valid too).
int64_t position(KernelContext& ctx, size_t input, int64_t size, int64_t items)
{
    const Tensor& t = ctx.input(input);
    if (t.size() != 1 || (t.dtype() != DataType::Int64 && t.dtype() != DataType::Int32))
        throw ctx.error("position must be one int32 or int64, got " + t.typeString());
    int64_t p = static_cast<int64_t>(t.toDouble(0));
    if (t.dtype() == DataType::Int64)
        p = t.data<int64_t>()[0];
    const int64_t original = p;
    if (p < 0)
        p += items;
    if (p < 0 || p >= size)
        throw ctx.error("position " + std::to_string(original) + " is out of range for a sequence of "
            + std::to_string(size) + (size == 1 ? " valid position" : " valid positions"));
    return p;
}

/// SequenceEmpty-11: an empty sequence of `dtype` (default float).
class SequenceEmpty final : public Kernel {
public:
    explicit SequenceEmpty(const KernelInit& init)
    {
        m_type = dataTypeFromOnnx(static_cast<int32_t>(init.attributes().getInt("dtype", 1)));
        if (m_type == DataType::Undefined)
            throw init.attributes().error("dtype", "unknown element type");
    }
    void compute(KernelContext& ctx) const override { ctx.setOutput(0, Value(Sequence { m_type, {} })); }

private:
    DataType m_type;
};

/// SequenceConstruct-11: a sequence of its tensor inputs, which must share one element type.
class SequenceConstruct final : public Kernel {
public:
    explicit SequenceConstruct(const KernelInit&) { }
    void compute(KernelContext& ctx) const override
    {
        Sequence seq;
        for (size_t i = 0; i < ctx.inputCount(); ++i) {
            const Tensor& t = ctx.input(i);
            if (i == 0)
                seq.elementType = t.dtype();
            else if (t.dtype() != seq.elementType)
                throw ctx.error("input " + std::to_string(i) + " is " + t.typeString() + " but input 0 is "
                    + std::string(dataTypeName(seq.elementType)));
            seq.items.emplace_back(t);
        }
        ctx.setOutput(0, Value(std::move(seq)));
    }
};

/// SequenceInsert-11: inserts a tensor at `position` (default: the end).
class SequenceInsert final : public Kernel {
public:
    explicit SequenceInsert(const KernelInit&) { }
    void compute(KernelContext& ctx) const override
    {
        Sequence seq = ctx.inputValue(0).sequence(ctx.node().label() + ": input 0");
        const Tensor& t = ctx.input(1);
        if (!seq.items.empty() && t.dtype() != seq.elementType)
            throw ctx.error("cannot insert " + t.typeString() + " into a sequence of "
                + std::string(dataTypeName(seq.elementType)));
        seq.elementType = t.dtype();
        const int64_t n = static_cast<int64_t>(seq.items.size());
        int64_t p = ctx.hasInput(2) ? position(ctx, 2, n + 1, n) : n;
        seq.items.insert(seq.items.begin() + p, Value(t));
        ctx.setOutput(0, Value(std::move(seq)));
    }
};

/// SequenceAt-11: the tensor at `position`.
class SequenceAt final : public Kernel {
public:
    explicit SequenceAt(const KernelInit&) { }
    void compute(KernelContext& ctx) const override
    {
        const Sequence& seq = ctx.inputValue(0).sequence(ctx.node().label() + ": input 0");
        const int64_t n = static_cast<int64_t>(seq.items.size());
        int64_t p = position(ctx, 1, n, n);
        ctx.setOutput(0, seq.items[static_cast<size_t>(p)]);
    }
};

/// SequenceErase-11: removes the tensor at `position` (default: the last).
class SequenceErase final : public Kernel {
public:
    explicit SequenceErase(const KernelInit&) { }
    void compute(KernelContext& ctx) const override
    {
        Sequence seq = ctx.inputValue(0).sequence(ctx.node().label() + ": input 0");
        const int64_t n = static_cast<int64_t>(seq.items.size());
        if (n == 0)
            throw ctx.error("cannot erase from an empty sequence");
        int64_t p = ctx.hasInput(1) ? position(ctx, 1, n, n) : n - 1;
        seq.items.erase(seq.items.begin() + p);
        ctx.setOutput(0, Value(std::move(seq)));
    }
};

/// SequenceLength-11: the number of items as an int64 scalar.
class SequenceLength final : public Kernel {
public:
    explicit SequenceLength(const KernelInit&) { }
    void compute(KernelContext& ctx) const override
    {
        const Sequence& seq = ctx.inputValue(0).sequence(ctx.node().label() + ": input 0");
        ctx.setOutput(0, Value(Tensor::scalar<int64_t>(static_cast<int64_t>(seq.items.size()))));
    }
};

} // namespace

void registerSequenceBasic(KernelRegistry& r)
{
    r.add("", "SequenceEmpty", 11, 11, makeFactory<SequenceEmpty>());
    r.add("", "SequenceConstruct", 11, 11, makeFactory<SequenceConstruct>());
    r.add("", "SequenceInsert", 11, 11, makeFactory<SequenceInsert>());
    r.add("", "SequenceAt", 11, 11, makeFactory<SequenceAt>());
    r.add("", "SequenceErase", 11, 11, makeFactory<SequenceErase>());
    r.add("", "SequenceLength", 11, 11, makeFactory<SequenceLength>());
}

} // namespace onnxscope
