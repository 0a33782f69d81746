// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/rnn/recurrent_loop.h"

namespace onnxscope {

namespace {

/// LSTM, versions 1, 7 and 14 (layout): gates i, o, f, c; peepholes P (i, o, f); input_forget couples the forget
/// gate to 1 - i; clip; forward, reverse and bidirectional; sequence_lens (rows past their length keep their state
/// and get zeros in Y); float, double and float16 (computed in float).
class Lstm final : public Kernel {
public:
    explicit Lstm(const KernelInit& init)
        : m_attrs(init, { "Sigmoid", "Tanh", "Tanh" })
        , m_inputForget(init.attributes().getInt("input_forget", 0) != 0)
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const rnn::Dims d = rnn::checkInputs(ctx, m_attrs, 4, true);
        rnn::dispatchComputeType(ctx, [&]<class T>() { run<T>(ctx, d); });
    }

private:
    template <class T> void run(KernelContext& ctx, const rnn::Dims& d) const
    {
        const bool coupled = m_inputForget;
        rnn::runRecurrent<T>(ctx, m_attrs, d, 4, true, [coupled](rnn::Step<T>& s) { rnn::lstmCell(s, coupled); });
    }

    rnn::Attributes m_attrs;
    bool m_inputForget;
};

} // namespace

void registerLstm(KernelRegistry& r)
{
    r.add("", "LSTM", 1, 22, makeFactory<Lstm>());
}

} // namespace onnxscope
