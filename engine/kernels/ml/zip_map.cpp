// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

namespace {

/// ZipMap (ai.onnx.ml 1): float X [N, C] (or [C]) -> a sequence of N maps, each from the C class labels
/// (classlabels_int64s or classlabels_strings) to the row's scores.
class ZipMap final : public Kernel {
public:
    explicit ZipMap(const KernelInit& init)
    {
        const auto& a = init.attributes();
        auto strings = a.getStrings("classlabels_strings");
        auto ints = a.getInts("classlabels_int64s");
        if (strings.empty() == ints.empty())
            throw init.error("exactly one of 'classlabels_strings' and 'classlabels_int64s' must be given");
        m_keys = strings.empty() ? Tensor::vector1D(ints) : Tensor::vector1D(strings);
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (x.dtype() != DataType::Float)
            throw ctx.error("input X must be float, got " + x.typeString());
        if (x.rank() != 1 && x.rank() != 2)
            throw ctx.error("input X must be [N, C] or [C], got " + x.typeString());
        const int64_t c = x.dim(x.rank() - 1);
        const int64_t n = x.rank() == 1 ? 1 : x.dim(0);
        if (c != m_keys.size())
            throw ctx.error("input X has " + std::to_string(c) + " columns but there are "
                + std::to_string(m_keys.size()) + " class labels");
        Sequence seq;
        seq.elementType = DataType::Float;
        seq.items.reserve(static_cast<size_t>(n));
        auto src = x.data<float>();
        for (int64_t r = 0; r < n; ++r) {
            Tensor values(DataType::Float, { c });
            std::copy(src.begin() + r * c, src.begin() + (r + 1) * c, values.data<float>().begin());
            seq.items.emplace_back(Map { m_keys, values });
        }
        ctx.setOutput(0, Value(std::move(seq)));
    }

private:
    Tensor m_keys;
};

} // namespace

void registerZipMap(KernelRegistry& r)
{
    r.add("ai.onnx.ml", "ZipMap", 1, 1, makeFactory<ZipMap>());
}

} // namespace onnxscope
