// SPDX-License-Identifier: MIT
#pragma once

// The time loop shared by RNN, GRU and LSTM. Include only from kernel .cpp files in this folder (pulls in Eigen).

#include "engine/kernels/rnn/rnn_common.h"

#include <Eigen/Core>

namespace onnxscope::rnn {

template <class T> using MatrixRM = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T> using ConstMap = Eigen::Map<const MatrixRM<T>>;

/// What a cell sees for one batch row at one time step of one direction.
template <class T> struct Step {
    const T* xw; // X_t * W^T + Wb, gates * hidden values
    const T* hr; // H_{t-1} * R^T, gates * hidden values (without Rb)
    const T* rb; // Rb for this direction, gates * hidden values
    const T* peephole; // LSTM P for this direction (3 * hidden) or null
    const ConstMap<T>* r; // R of this direction [gates * hidden, hidden]
    T* h; // H_{t-1} in, H_t out (hidden values)
    T* c; // LSTM cell state in/out, or null
    const Activation* act; // this direction's activations
    int64_t hidden;
    float clip;
};

/// Runs every direction over the sequence: precomputes X * W^T for all steps with one GEMM, then per step
/// H * R^T with one GEMM, and calls `cell(Step<T>&)` per batch row. Writes Y [seq, dirs, batch, hidden] (zero past
/// each row's sequence length), Y_h and Y_c [dirs, batch, hidden] as outputs 0, 1, 2 (layout applied).
template <class T, class Cell>
void runRecurrent(KernelContext& ctx, const Attributes& a, const Dims& d, int64_t gates, bool cellState, Cell&& cell)
{
    const DataType original = ctx.input(0).dtype();
    const DataType compute = DataTypeOf<T>::value;
    const Tensor x = toComputeType(timeMajor(ctx.input(0), a.layout), compute);
    const Tensor w = toComputeType(ctx.input(1), compute);
    const Tensor r = toComputeType(ctx.input(2), compute);
    const Tensor b = ctx.hasInput(3) ? toComputeType(ctx.input(3), compute) : Tensor();
    const Tensor h0 = ctx.hasInput(5) ? toComputeType(timeMajor(ctx.input(5), a.layout), compute) : Tensor();
    const Tensor c0
        = cellState && ctx.hasInput(6) ? toComputeType(timeMajor(ctx.input(6), a.layout), compute) : Tensor();
    const Tensor p = cellState && ctx.hasInput(7) ? toComputeType(ctx.input(7), compute) : Tensor();
    const auto lens = sequenceLengths(ctx, d);
    const int64_t nd = a.numDirections, H = d.hidden, G = gates * H;
    const size_t perDirActs = a.activations.size() / static_cast<size_t>(nd);

    Tensor y(compute, { d.seq, nd, d.batch, H });
    Tensor yh(compute, { nd, d.batch, H });
    Tensor yc(compute, { nd, d.batch, H });
    std::vector<T> zeros(static_cast<size_t>(G), T(0));
    MatrixRM<T> xw(d.seq * d.batch, G), hr(d.batch, G), state(d.batch, H), cstate(d.batch, H);
    ConstMap<T> xs(x.data<T>().data(), d.seq * d.batch, d.input);
    for (int64_t dir = 0; dir < nd; ++dir) {
        const bool backward = nd == 2 ? dir == 1 : a.reverse;
        ConstMap<T> wd(w.data<T>().data() + dir * G * d.input, G, d.input);
        ConstMap<T> rd(r.data<T>().data() + dir * G * H, G, H);
        xw.noalias() = xs * wd.transpose();
        const T* rb = zeros.data();
        if (b.defined()) {
            Eigen::Map<const Eigen::Matrix<T, 1, Eigen::Dynamic>> wb(b.data<T>().data() + dir * 2 * G, G);
            xw.rowwise() += wb;
            rb = b.data<T>().data() + dir * 2 * G + G;
        }
        if (h0.defined())
            state = ConstMap<T>(h0.data<T>().data() + dir * d.batch * H, d.batch, H);
        else
            state.setZero();
        if (c0.defined())
            cstate = ConstMap<T>(c0.data<T>().data() + dir * d.batch * H, d.batch, H);
        else
            cstate.setZero();
        const T* peephole = p.defined() ? p.data<T>().data() + dir * 3 * H : nullptr;
        T* yOut = y.data<T>().data();
        for (int64_t s = 0; s < d.seq; ++s) {
            hr.noalias() = state * rd.transpose();
            for (int64_t bi = 0; bi < d.batch; ++bi) {
                const int64_t len = lens[static_cast<size_t>(bi)];
                if (s >= len)
                    continue;
                const int64_t t = backward ? len - 1 - s : s;
                Step<T> step { xw.data() + (t * d.batch + bi) * G, hr.data() + bi * G, rb, peephole, &rd,
                    state.data() + bi * H, cstate.data() + bi * H, a.activations.data() + dir * perDirActs, H, a.clip };
                cell(step);
                std::copy_n(state.data() + bi * H, H, yOut + ((t * nd + dir) * d.batch + bi) * H);
            }
        }
        std::copy_n(state.data(), d.batch * H, yh.data<T>().data() + dir * d.batch * H);
        std::copy_n(cstate.data(), d.batch * H, yc.data<T>().data() + dir * d.batch * H);
    }
    setOutput(ctx, 0, fromComputeType(y, original), a.layout, true);
    setOutput(ctx, 1, fromComputeType(yh, original), a.layout, false);
    if (cellState)
        setOutput(ctx, 2, fromComputeType(yc, original), a.layout, false);
}

/// Clips a gate pre-activation to [-clip, clip] when clip > 0.
template <class T> inline T clipped(T v, float clip)
{
    if (clip > 0)
        return std::min<T>(std::max<T>(v, T(-clip)), T(clip));
    return v;
}

/// The LSTM cell (LSTM, AttnLSTM, DynamicQuantizeLSTM's float part): gates i, o, f, c from xw + hr + rb, peepholes
/// P (i, o, f), input_forget (`coupled`: f = 1 - i), clip; updates s.c and s.h.
template <class T> void lstmCell(Step<T>& s, bool coupled)
{
    const int64_t H = s.hidden;
    const Activation &f = s.act[0], &g = s.act[1], &h = s.act[2];
    for (int64_t j = 0; j < H; ++j) {
        auto gate = [&](int64_t k) { return s.xw[k * H + j] + s.hr[k * H + j] + s.rb[k * H + j]; };
        const T cPrev = s.c[j];
        T iPre = gate(0), oPre = gate(1), fPre = gate(2), cPre = gate(3);
        if (s.peephole) {
            iPre += s.peephole[j] * cPrev;
            fPre += s.peephole[2 * H + j] * cPrev;
        }
        const T i = f(clipped(iPre, s.clip));
        const T ft = coupled ? T(1) - i : f(clipped(fPre, s.clip));
        const T c = g(clipped(cPre, s.clip));
        const T cNew = ft * cPrev + i * c;
        if (s.peephole)
            oPre += s.peephole[H + j] * cNew;
        const T o = f(clipped(oPre, s.clip));
        s.c[j] = cNew;
        s.h[j] = o * h(cNew);
    }
}

} // namespace onnxscope::rnn
