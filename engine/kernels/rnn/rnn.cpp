// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/rnn/recurrent_loop.h"

namespace onnxscope {

namespace {

/// RNN, versions 1, 7 and 14 (layout): H_t = f(X_t W^T + H_{t-1} R^T + Wb + Rb), default f = Tanh; clip; all
/// directions; sequence_lens; float, double and float16 (computed in float).
class Rnn final : public Kernel {
public:
    explicit Rnn(const KernelInit& init)
        : m_attrs(init, { "Tanh" })
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const rnn::Dims d = rnn::checkInputs(ctx, m_attrs, 1, false);
        rnn::dispatchComputeType(ctx, [&]<class T>() { run<T>(ctx, d); });
    }

private:
    template <class T> void run(KernelContext& ctx, const rnn::Dims& d) const
    {
        rnn::runRecurrent<T>(ctx, m_attrs, d, 1, false, [](rnn::Step<T>& s) {
            for (int64_t j = 0; j < s.hidden; ++j)
                s.h[j] = s.act[0](rnn::clipped(s.xw[j] + s.hr[j] + s.rb[j], s.clip));
        });
    }

    rnn::Attributes m_attrs;
};

} // namespace

void registerRnn(KernelRegistry& r)
{
    r.add("", "RNN", 1, 22, makeFactory<Rnn>());
}

} // namespace onnxscope
