// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

#include <random>

namespace onnxscope {

namespace {

/// Dropout 1, 6, 7, 10, 12, 13. Inference (every version before 12, and 12+ unless the training_mode input is
/// true): output = data, mask all true (bool from 10, the data's type in 7-9). Versions 1 and 6 are run as
/// inference whatever is_test says, as onnxruntime and ONNX's version converter treat them. Training (12+): mask =
/// u >= ratio, output = data * mask / (1 - ratio), where u are uniform draws from numpy's legacy RandomState
/// stream (MT19937 seeded like np.random.seed(seed), 53-bit doubles), so seeded results match numpy's; without
/// a seed the stream is seeded from the node's name, so runs are reproducible. Ratio input (12+) of any float
/// type, default 0.5; must lie in [0, 1). data float, double, float16, bfloat16.
class Dropout final : public Kernel {
public:
    explicit Dropout(const KernelInit& init)
        : m_opset(init.opset())
        , m_ratio(init.attributes().getFloat("ratio", 0.5f))
    {
        if (init.attributes().has("seed")) {
            m_seed = static_cast<uint32_t>(init.attributes().getInt("seed", 0));
        } else {
            for (char c : init.node.displayName())
                m_seed = m_seed * 31u + static_cast<unsigned char>(c);
        }
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        double ratio = m_ratio;
        bool training = false;
        if (m_opset >= 12) {
            if (ctx.hasInput(1)) {
                const Tensor& r = ctx.input(1);
                if (r.size() != 1)
                    throw ctx.error("ratio must be a scalar, got " + r.typeString());
                dispatch<FloatTypes>(
                    r.dtype(), ctx.node(), ": ratio", [&]<class T>() { ratio = static_cast<double>(r.data<T>()[0]); });
            }
            if (ctx.hasInput(2)) {
                const Tensor& t = ctx.input(2);
                if (t.dtype() != DataType::Bool || t.size() != 1)
                    throw ctx.error("training_mode must be a bool scalar, got " + t.typeString());
                training = t.data<bool>()[0];
            }
        }
        if (training && !(ratio >= 0 && ratio < 1))
            throw ctx.error("ratio must be in [0, 1), got " + std::to_string(ratio));
        training = training && ratio > 0;
        const bool wantMask = ctx.hasOutput(1);
        const DataType maskType = m_opset >= 10 ? DataType::Bool : x.dtype();
        if (!training) {
            ctx.setOutput(0, x);
            if (wantMask) {
                Tensor& mask = ctx.allocateOutput(1, maskType, x.shape());
                dispatch<TypeList<bool, float, double, Float16, BFloat16>>(maskType, ctx.node(),
                    [&]<class M>() { std::fill(mask.data<M>().begin(), mask.data<M>().end(), M(1)); });
            }
            return;
        }
        Tensor& y = ctx.allocateOutput(0, x.dtype(), x.shape());
        Tensor mask(DataType::Bool, x.shape());
        auto m = mask.data<bool>();
        std::mt19937 gen(m_seed);
        for (bool& keep : m) {
            const uint32_t a = gen() >> 5, b = gen() >> 6;
            keep = (a * 67108864.0 + b) / 9007199254740992.0 >= ratio;
        }
        const double scale = 1.0 / (1.0 - ratio);
        dispatch<FloatTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            auto in = x.data<T>();
            auto out = y.data<T>();
            for (size_t i = 0; i < in.size(); ++i)
                out[i] = m[i] ? static_cast<T>(static_cast<double>(in[i]) * scale) : T(0);
        });
        if (wantMask)
            ctx.setOutput(1, mask);
    }

private:
    int64_t m_opset;
    double m_ratio;
    uint32_t m_seed = 0;
};

} // namespace

void registerDropout(KernelRegistry& r)
{
    r.add("", "Dropout", 1, 22, makeFactory<Dropout>());
}

} // namespace onnxscope
