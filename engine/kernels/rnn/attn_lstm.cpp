// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/rnn/recurrent_loop.h"

#include <limits>
#include <string>
#include <vector>

namespace onnxscope {

namespace {

/// AttnLSTM (com.microsoft 1): an LSTM (lstmCell: peepholes, input_forget, clip, activations) whose input at step t
/// is concat(X_t, ATTN_{t-1}) (ATTN_0 = 0), wrapped with Bahdanau attention over memory M [B, Tm, Dm]: KEYS = M·MW,
/// ALIGN = softmax over the first memory_seq_lens[b] steps of V · tanh(KEYS + H_t·QW), CONTEXT = ALIGN · M, ATTN_t =
/// concat(H_t, CONTEXT)·AW with AW, else CONTEXT. forward, reverse, bidirectional; sequence_lens (Y zero past a
/// row's length, Y_h/Y_c its last state); float and double (onnxruntime registers double but refuses it
/// when it runs: the double path has no onnxruntime reference). QW, MW, V and M are required
/// (the attention has no meaning without them).
class AttnLstm final : public Kernel {
public:
    explicit AttnLstm(const KernelInit& init)
        : m_attrs(init, { "Sigmoid", "Tanh", "Tanh" })
        , m_inputForget(init.attributes().getInt("input_forget", 0) != 0)
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const DataType type = ctx.input(0).dtype();
        if (type != DataType::Float && type != DataType::Double)
            throw ctx.error("X must be float or double (AttnLSTM's type constraint), got " + ctx.input(0).typeString());
        rnn::dispatchComputeType(ctx, [&]<class T>() { run<T>(ctx); });
    }

private:
    template <class T> void run(KernelContext& ctx) const
    {
        const DataType original = ctx.input(0).dtype();
        const DataType compute = DataTypeOf<T>::value;
        static const char* names[] = { "X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P", "QW", "MW",
            "V", "M", "memory_seq_lens", "AW" };
        for (size_t i : { 8, 9, 10, 11 })
            if (!ctx.hasInput(i))
                throw ctx.error(std::string(names[i]) + " is required: the attention mechanism needs QW, MW, V and M");
        for (size_t i : { 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 13 })
            if (ctx.hasInput(i) && ctx.input(i).dtype() != original)
                throw ctx.error(std::string(names[i]) + " is " + ctx.input(i).typeString() + " but X is "
                    + std::string(dataTypeName(original)));
        auto get = [&](size_t i) { return ctx.hasInput(i) ? rnn::toComputeType(ctx.input(i), compute) : Tensor(); };
        const Tensor x = get(0), w = get(1), r = get(2), b = get(3), h0 = get(5), c0 = get(6), p = get(7), qw = get(8),
                     mw = get(9), v = get(10), m = get(11), aw = get(13);
        const int64_t D = m_attrs.numDirections, H = m_attrs.hiddenSize;
        if (x.rank() != 3)
            throw ctx.error("X must be [seq_length, batch_size, input_size], got " + shapeToString(x.shape()));
        const int64_t S = x.dim(0), B = x.dim(1), I = x.dim(2);
        if (m.rank() != 3 || m.dim(0) != B)
            throw ctx.error("M must be [batch_size = " + std::to_string(B) + ", max_memory_step, memory_depth], got "
                + shapeToString(m.shape()));
        const int64_t Tm = m.dim(1), Dm = m.dim(2);
        if (qw.rank() != 3 || qw.dim(0) != D || qw.dim(1) != H)
            throw ctx.error("QW must be [num_directions, hidden_size, am_attn_size] with num_directions = "
                + std::to_string(D) + ", hidden_size = " + std::to_string(H) + ", got " + shapeToString(qw.shape()));
        const int64_t Am = qw.dim(2);
        auto expect = [&](const Tensor& t, size_t i, const Shape& shape) {
            if (t.defined() && t.shape() != shape)
                throw ctx.error(
                    std::string(names[i]) + " must be " + shapeToString(shape) + ", got " + shapeToString(t.shape()));
        };
        expect(mw, 9, { D, Dm, Am });
        expect(v, 10, { D, Am });
        const int64_t A = aw.defined() ? (aw.rank() == 3 ? aw.dim(2) : -1) : Dm;
        if (aw.defined())
            expect(aw, 13, { D, Dm + H, A });
        expect(w, 1, { D, 4 * H, I + A });
        expect(r, 2, { D, 4 * H, H });
        expect(b, 3, { D, 8 * H });
        expect(h0, 5, { D, B, H });
        expect(c0, 6, { D, B, H });
        expect(p, 7, { D, 3 * H });
        rnn::Dims dims;
        dims.seq = S;
        dims.batch = B;
        const auto lens = rnn::sequenceLengths(ctx, dims);
        std::vector<int64_t> memLens(static_cast<size_t>(B), Tm);
        if (ctx.hasInput(12)) {
            const Tensor& t = ctx.input(12);
            if (t.size() != static_cast<size_t>(B))
                throw ctx.error("memory_seq_lens must be [batch_size = " + std::to_string(B) + "], got "
                    + shapeToString(t.shape()));
            for (int64_t bi = 0; bi < B; ++bi) {
                const auto l = static_cast<int64_t>(t.toDouble(bi));
                if (l < 1 || l > Tm)
                    throw ctx.error("memory_seq_lens[" + std::to_string(bi) + "] = " + std::to_string(l)
                        + " is outside [1, max_memory_step " + std::to_string(Tm) + "]");
                memLens[static_cast<size_t>(bi)] = l;
            }
        }

        Tensor y(compute, { S, D, B, H }), yh(compute, { D, B, H }), yc(compute, { D, B, H });
        const T* X = x.data<T>().data();
        const T* Mm = m.data<T>().data();
        const size_t perDirActs = m_attrs.activations.size() / static_cast<size_t>(D);
        const int64_t G = 4 * H, in = I + A;
        std::vector<T> zeros(static_cast<size_t>(G), T(0)), xw(static_cast<size_t>(G)), hr(static_cast<size_t>(G)),
            xin(static_cast<size_t>(in)), keys(static_cast<size_t>(Tm * Am)), pq(static_cast<size_t>(Am)),
            score(static_cast<size_t>(Tm)), context(static_cast<size_t>(Dm)), attn(static_cast<size_t>(A)),
            hState(static_cast<size_t>(H)), cState(static_cast<size_t>(H));
        for (int64_t d = 0; d < D; ++d) {
            const bool backward = D == 2 ? d == 1 : m_attrs.reverse;
            const T* Wd = w.data<T>().data() + d * G * in;
            const T* Rd = r.data<T>().data() + d * G * H;
            const T* wb = b.defined() ? b.data<T>().data() + d * 2 * G : zeros.data();
            const T* rb = b.defined() ? wb + G : zeros.data();
            const T* P = p.defined() ? p.data<T>().data() + d * 3 * H : nullptr;
            const T* QW = qw.data<T>().data() + d * H * Am;
            const T* MW = mw.data<T>().data() + d * Dm * Am;
            const T* V = v.data<T>().data() + d * Am;
            const T* AW = aw.defined() ? aw.data<T>().data() + d * (Dm + H) * A : nullptr;
            for (int64_t bi = 0; bi < B; ++bi) {
                const T* Mb = Mm + bi * Tm * Dm;
                const int64_t ml = memLens[static_cast<size_t>(bi)];
                for (int64_t t = 0; t < ml; ++t)
                    for (int64_t a = 0; a < Am; ++a) {
                        T acc = 0;
                        for (int64_t k = 0; k < Dm; ++k)
                            acc += Mb[t * Dm + k] * MW[k * Am + a];
                        keys[static_cast<size_t>(t * Am + a)] = acc;
                    }
                for (int64_t j = 0; j < H; ++j) {
                    hState[static_cast<size_t>(j)] = h0.defined() ? h0.data<T>()[(d * B + bi) * H + j] : T(0);
                    cState[static_cast<size_t>(j)] = c0.defined() ? c0.data<T>()[(d * B + bi) * H + j] : T(0);
                }
                std::fill(attn.begin(), attn.end(), T(0));
                const int64_t len = lens[static_cast<size_t>(bi)];
                for (int64_t s = 0; s < len; ++s) {
                    const int64_t t = backward ? len - 1 - s : s;
                    std::copy_n(X + (t * B + bi) * I, I, xin.begin());
                    std::copy(attn.begin(), attn.end(), xin.begin() + I);
                    for (int64_t g = 0; g < G; ++g) {
                        T a = wb[g], c = 0;
                        for (int64_t k = 0; k < in; ++k)
                            a += Wd[g * in + k] * xin[static_cast<size_t>(k)];
                        for (int64_t k = 0; k < H; ++k)
                            c += Rd[g * H + k] * hState[static_cast<size_t>(k)];
                        xw[static_cast<size_t>(g)] = a;
                        hr[static_cast<size_t>(g)] = c;
                    }
                    rnn::Step<T> step { xw.data(), hr.data(), rb, P, nullptr, hState.data(), cState.data(),
                        m_attrs.activations.data() + d * perDirActs, H, m_attrs.clip };
                    rnn::lstmCell(step, m_inputForget);
                    attend(hState.data(), QW, V, keys.data(), Mb, ml, H, Am, Dm, pq, score, context);
                    if (AW)
                        for (int64_t a = 0; a < A; ++a) {
                            T acc = 0;
                            for (int64_t k = 0; k < H; ++k)
                                acc += hState[static_cast<size_t>(k)] * AW[k * A + a];
                            for (int64_t k = 0; k < Dm; ++k)
                                acc += context[static_cast<size_t>(k)] * AW[(H + k) * A + a];
                            attn[static_cast<size_t>(a)] = acc;
                        }
                    else
                        std::copy(context.begin(), context.end(), attn.begin());
                    std::copy(hState.begin(), hState.end(), y.data<T>().data() + ((t * D + d) * B + bi) * H);
                }
                std::copy(hState.begin(), hState.end(), yh.data<T>().data() + (d * B + bi) * H);
                std::copy(cState.begin(), cState.end(), yc.data<T>().data() + (d * B + bi) * H);
            }
        }
        rnn::setOutput(ctx, 0, rnn::fromComputeType(y, original), 0, true);
        rnn::setOutput(ctx, 1, rnn::fromComputeType(yh, original), 0, false);
        rnn::setOutput(ctx, 2, rnn::fromComputeType(yc, original), 0, false);
    }

    /// Bahdanau attention of query h over the first ml memory steps: context = softmax(V · tanh(keys + h·QW)) · M.
    template <class T>
    static void attend(const T* h, const T* QW, const T* V, const T* keys, const T* M, int64_t ml, int64_t H,
        int64_t Am, int64_t Dm, std::vector<T>& pq, std::vector<T>& score, std::vector<T>& context)
    {
        for (int64_t a = 0; a < Am; ++a) {
            T acc = 0;
            for (int64_t k = 0; k < H; ++k)
                acc += h[k] * QW[k * Am + a];
            pq[static_cast<size_t>(a)] = acc;
        }
        T mx = -std::numeric_limits<T>::infinity();
        for (int64_t t = 0; t < ml; ++t) {
            T acc = 0;
            for (int64_t a = 0; a < Am; ++a)
                acc += V[a] * std::tanh(keys[t * Am + a] + pq[static_cast<size_t>(a)]);
            score[static_cast<size_t>(t)] = acc;
            mx = std::max(mx, acc);
        }
        T sum = 0;
        for (int64_t t = 0; t < ml; ++t) {
            score[static_cast<size_t>(t)] = std::exp(score[static_cast<size_t>(t)] - mx);
            sum += score[static_cast<size_t>(t)];
        }
        std::fill(context.begin(), context.end(), T(0));
        for (int64_t t = 0; t < ml; ++t)
            for (int64_t k = 0; k < Dm; ++k)
                context[static_cast<size_t>(k)] += score[static_cast<size_t>(t)] / sum * M[t * Dm + k];
    }

    rnn::Attributes m_attrs;
    bool m_inputForget;
};

} // namespace

void registerAttnLstm(KernelRegistry& r)
{
    r.add("com.microsoft", "AttnLSTM", 1, KernelRegistry::kLatest, makeFactory<AttnLstm>());
}

} // namespace onnxscope
