// SPDX-License-Identifier: MIT
#include "engine/core/cast.h"
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/tensor/indexing.h"

namespace onnxscope {

namespace {

using namespace indexing;

enum class PadMode { Constant, Reflect, Edge, Wrap };

/// Pad, every version, every element type. Opset 1 reads `paddings`, opset 2-10 `pads` and the float `value` from
/// attributes; opset 11+ read `pads`, the optional `constant_value` (a scalar of the data's type) and, from opset
/// 18, `axes` from inputs. Modes: constant, reflect and edge as numpy.pad does them (reflect repeats its mirror
/// when the pad is longer than the axis), and wrap (opset 19's). Negative pads crop the axis first; the other
/// modes then pad what is left.
class Pad final : public Kernel {
public:
    explicit Pad(const KernelInit& init)
        : m_opset(init.opset())
    {
        const auto& a = init.attributes();
        const std::string mode = a.getString("mode", "constant");
        if (mode == "constant")
            m_mode = PadMode::Constant;
        else if (mode == "reflect")
            m_mode = PadMode::Reflect;
        else if (mode == "edge")
            m_mode = PadMode::Edge;
        else if (mode == "wrap")
            m_mode = PadMode::Wrap;
        else
            throw a.error("mode", "expected constant, reflect, edge or wrap, got \"" + mode + "\"");
        if (m_opset < 11) {
            const char* name = m_opset < 2 ? "paddings" : "pads";
            if (!a.has(name))
                throw init.error(std::string("attribute '") + name + "' is required");
            m_pads = a.getInts(name);
            m_value = a.getFloat("value", 0.0f);
        }
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& data = ctx.input(0);
        const int64_t rank = data.rank();
        std::vector<int64_t> pads = m_opset < 11 ? m_pads : intListInput(ctx, 1, "input 'pads'");
        std::vector<int64_t> axes;
        if (m_opset >= 18 && ctx.hasInput(3)) {
            axes = intListInput(ctx, 3, "input 'axes'");
        } else {
            for (int64_t d = 0; d < rank; ++d)
                axes.push_back(d);
        }
        if (pads.size() != 2 * axes.size())
            throw ctx.error("'pads' has " + std::to_string(pads.size()) + " values, expected "
                + std::to_string(2 * axes.size()) + " for " + data.typeString());
        std::vector<int64_t> before(static_cast<size_t>(rank), 0), after(static_cast<size_t>(rank), 0);
        std::vector<bool> seen(static_cast<size_t>(rank), false);
        for (size_t i = 0; i < axes.size(); ++i) {
            int64_t axis = axes[i];
            if (axis < -rank || axis >= rank)
                throw ctx.error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
            axis = axis < 0 ? axis + rank : axis;
            if (seen[static_cast<size_t>(axis)])
                throw ctx.error("axis " + std::to_string(axis) + " is repeated");
            seen[static_cast<size_t>(axis)] = true;
            before[static_cast<size_t>(axis)] = pads[i];
            after[static_cast<size_t>(axis)] = pads[i + axes.size()];
        }

        // Per axis: the cropped input range [lo, hi) and the output size.
        Shape outShape(static_cast<size_t>(rank));
        std::vector<int64_t> lo(static_cast<size_t>(rank)), hi(static_cast<size_t>(rank));
        for (size_t d = 0; d < static_cast<size_t>(rank); ++d) {
            const int64_t dim = data.shape()[d];
            int64_t size = 0;
            if (before[d] < -dim || after[d] < -dim || __builtin_add_overflow(dim, before[d], &size)
                || __builtin_add_overflow(size, after[d], &size) || size < 0)
                throw ctx.error("pads " + shapeToString(pads) + " give axis " + std::to_string(d) + " of "
                    + data.typeString() + " an invalid size");
            outShape[d] = size;
            lo[d] = std::min(dim, std::max<int64_t>(0, -before[d]));
            hi[d] = std::max(lo[d], dim - std::max<int64_t>(0, -after[d]));
            if (m_mode != PadMode::Constant && hi[d] == lo[d] && size > 0)
                throw ctx.error("cannot pad an empty axis " + std::to_string(d) + " of " + data.typeString() + " in "
                    + modeName() + " mode");
        }
        Tensor& out = ctx.allocateOutput(0, data.dtype(), outShape);
        if (out.size() == 0)
            return;
        const Tensor fill = constantValue(ctx, data.dtype());

        // map[d][o]: the input index along axis d that output index o reads, or -1 for the constant.
        std::vector<std::vector<int64_t>> map(static_cast<size_t>(rank));
        for (size_t d = 0; d < static_cast<size_t>(rank); ++d) {
            const int64_t n = hi[d] - lo[d], shift = std::max<int64_t>(0, before[d]);
            map[d].resize(static_cast<size_t>(outShape[d]));
            for (int64_t o = 0; o < outShape[d]; ++o) {
                const int64_t i = o - shift; // index into the cropped range
                int64_t src = i;
                if (i < 0 || i >= n) {
                    switch (m_mode) {
                    case PadMode::Constant:
                        src = -1;
                        break;
                    case PadMode::Edge:
                        src = i < 0 ? 0 : n - 1;
                        break;
                    case PadMode::Wrap:
                        src = ((i % n) + n) % n;
                        break;
                    case PadMode::Reflect:
                        if (n == 1) {
                            src = 0;
                        } else {
                            const int64_t period = 2 * (n - 1);
                            src = ((i % period) + period) % period;
                            if (src >= n)
                                src = period - src;
                        }
                        break;
                    }
                }
                map[d][static_cast<size_t>(o)] = src < 0 ? -1 : src + lo[d];
            }
        }

        const auto strides = stridesOf(data.shape());
        byElementSize(data.dtype(), [&]<class W>() {
            const W* in = words<W>(data);
            W* po = mutableWords<W>(out);
            const W value = words<W>(fill)[0];
            if (rank == 0) {
                po[0] = in[0];
                return;
            }
            const size_t last = static_cast<size_t>(rank - 1);
            const int64_t inner = outShape[last];
            const auto& innerMap = map[last];
            std::vector<int64_t> index(last, 0);
            for (int64_t o = 0; o < out.size(); o += inner) {
                int64_t base = 0;
                bool constant = false;
                for (size_t d = 0; d < last; ++d) {
                    const int64_t s = map[d][static_cast<size_t>(index[d])];
                    if (s < 0) {
                        constant = true;
                        break;
                    }
                    base += s * strides[d];
                }
                for (int64_t j = 0; j < inner; ++j) {
                    const int64_t s = innerMap[static_cast<size_t>(j)];
                    po[o + j] = constant || s < 0 ? value : in[base + s];
                }
                for (size_t d = last; d-- > 0;) {
                    if (++index[d] < outShape[d])
                        break;
                    index[d] = 0;
                }
            }
        });
    }

private:
    std::string modeName() const
    {
        switch (m_mode) {
        case PadMode::Constant:
            return "constant";
        case PadMode::Reflect:
            return "reflect";
        case PadMode::Edge:
            return "edge";
        case PadMode::Wrap:
            return "wrap";
        }
        return "?";
    }

    /// The padding value as a one-element tensor of the data's type.
    Tensor constantValue(const KernelContext& ctx, DataType type) const
    {
        if (m_opset >= 11 && ctx.hasInput(2)) {
            const Tensor& v = ctx.input(2);
            if (v.dtype() != type)
                throw ctx.error("input 'constant_value' is " + v.typeString() + " but the data is "
                    + std::string(dataTypeName(type)));
            if (v.size() != 1)
                throw ctx.error("input 'constant_value' must hold one value, got " + v.typeString());
            return v;
        }
        if (isNarrow(type)) // float8, int4, ... (docs/element-types.md): the value converted as Cast does
            return castTensor(Tensor::scalar<float>(m_value), type);
        Tensor t(type, {});
        if (type == DataType::String)
            return t;
        dispatch<TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t,
            uint32_t, uint64_t, bool, Complex64, Complex128>>(type, ctx.node(), [&]<class T>() {
            if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
                // Out-of-range float to integer conversion is undefined; saturate instead.
                const double v = m_value;
                t.data<T>()[0] = v != v                                       ? T(0)
                    : v <= static_cast<double>(std::numeric_limits<T>::min()) ? std::numeric_limits<T>::min()
                    : v >= static_cast<double>(std::numeric_limits<T>::max()) ? std::numeric_limits<T>::max()
                                                                              : static_cast<T>(v);
            } else if constexpr (std::is_same_v<T, bool>) {
                t.data<T>()[0] = m_value != 0.0f;
            } else {
                t.data<T>()[0] = T(m_value);
            }
        });
        return t;
    }

    int64_t m_opset;
    PadMode m_mode = PadMode::Constant;
    std::vector<int64_t> m_pads;
    float m_value = 0.0f;
};

} // namespace

void registerPad(KernelRegistry& r)
{
    r.add("", "Pad", 1, 25, makeFactory<Pad>());
}

} // namespace onnxscope
