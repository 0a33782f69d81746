// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/rnn/recurrent_loop.h"

namespace onnxscope {

namespace {

/// GRU, versions 1, 3, 7 and 14 (layout): gates z, r, h; linear_before_reset applies r after the recurrent product
/// (h = g(Xh + r * (H Rh^T + Rbh))) instead of before it (h = g(Xh + (r * H) Rh^T + Rbh)); clip; all directions;
/// sequence_lens; float, double and float16 (computed in float).
class Gru final : public Kernel {
public:
    explicit Gru(const KernelInit& init)
        : m_attrs(init, { "Sigmoid", "Tanh" })
        , m_linearBeforeReset(init.attributes().getInt("linear_before_reset", 0) != 0)
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const rnn::Dims d = rnn::checkInputs(ctx, m_attrs, 3, false);
        rnn::dispatchComputeType(ctx, [&]<class T>() { run<T>(ctx, d); });
    }

private:
    template <class T> void run(KernelContext& ctx, const rnn::Dims& d) const
    {
        const bool lbr = m_linearBeforeReset;
        std::vector<T> z(static_cast<size_t>(d.hidden)), rh(static_cast<size_t>(d.hidden));
        rnn::runRecurrent<T>(ctx, m_attrs, d, 3, false, [&](rnn::Step<T>& s) {
            const int64_t H = s.hidden;
            const rnn::Activation &f = s.act[0], &g = s.act[1];
            for (int64_t j = 0; j < H; ++j) {
                z[j] = f(rnn::clipped(s.xw[j] + s.hr[j] + s.rb[j], s.clip));
                const T r = f(rnn::clipped(s.xw[H + j] + s.hr[H + j] + s.rb[H + j], s.clip));
                rh[j] = lbr ? r * (s.hr[2 * H + j] + s.rb[2 * H + j]) : r * s.h[j];
            }
            if (!lbr) {
                // (r * H_{t-1}) Rh^T needs the whole reset vector first.
                Eigen::Map<const Eigen::Matrix<T, 1, Eigen::Dynamic>> rv(rh.data(), H);
                Eigen::Matrix<T, 1, Eigen::Dynamic> prod = rv * s.r->bottomRows(H).transpose();
                for (int64_t j = 0; j < H; ++j)
                    rh[j] = prod[j] + s.rb[2 * H + j];
            }
            for (int64_t j = 0; j < H; ++j) {
                const T h = g(rnn::clipped(s.xw[2 * H + j] + rh[j], s.clip));
                s.h[j] = (T(1) - z[j]) * h + z[j] * s.h[j];
            }
        });
    }

    rnn::Attributes m_attrs;
    bool m_linearBeforeReset;
};

} // namespace

void registerGru(KernelRegistry& r)
{
    r.add("", "GRU", 1, 22, makeFactory<Gru>());
}

} // namespace onnxscope
