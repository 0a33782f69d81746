// SPDX-License-Identifier: MIT
#include "engine/kernels/common/int_input.h"
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

namespace {

/// Reshape 1 (target shape in the `shape` attribute), 5, 13 and 14 (target shape as an int64 input; 14 adds
/// `allowzero`). A 0 copies the input's dimension at that position (with allowzero=1 it is a literal 0), one -1 is
/// inferred from the element count. Any element type; the output shares the input's storage.
class Reshape final : public Kernel {
public:
    explicit Reshape(const KernelInit& init)
    {
        if (init.opset() < 5) {
            if (!init.attributes().has("shape"))
                throw init.error("attribute 'shape' is required in opset " + std::to_string(init.opset()));
            m_attrShape = init.attributes().getInts("shape");
            m_hasAttrShape = true;
        }
        if (init.opset() >= 14)
            m_allowZero = init.attributes().getInt("allowzero", 0) != 0;
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& data = ctx.input(0);
        const std::vector<int64_t> requested = m_hasAttrShape ? m_attrShape : readIntList(ctx, 1, "shape");
        Shape shape(requested.size());
        int64_t inferred = -1;
        bool hasZero = false;
        for (size_t i = 0; i < requested.size(); ++i) {
            const int64_t d = requested[i];
            if (d == -1) {
                if (inferred >= 0)
                    throw ctx.error("shape " + shapeToString(requested) + " has more than one -1");
                inferred = static_cast<int64_t>(i);
                shape[i] = 1;
            } else if (d == 0 && !m_allowZero) {
                if (static_cast<int64_t>(i) >= data.rank())
                    throw ctx.error("shape " + shapeToString(requested) + ": 0 at position " + std::to_string(i)
                        + " copies a dimension the input " + shapeToString(data.shape()) + " does not have");
                shape[i] = data.dim(static_cast<int64_t>(i));
            } else if (d < 0) {
                throw ctx.error("shape " + shapeToString(requested) + " has an invalid dimension " + std::to_string(d));
            } else {
                hasZero = hasZero || d == 0;
                shape[i] = d;
            }
        }
        if (hasZero && inferred >= 0)
            throw ctx.error("shape " + shapeToString(requested) + " has both a -1 and a 0 with allowzero=1");
        int64_t known = 0;
        try {
            known = elementCount(shape);
        } catch (const Error& e) {
            throw ctx.error(e.what());
        }
        if (inferred >= 0) {
            if (known == 0 || data.size() % known != 0)
                throw ctx.error("cannot reshape " + data.typeString() + " to " + shapeToString(requested)
                    + ": the -1 cannot be inferred");
            shape[static_cast<size_t>(inferred)] = data.size() / known;
        } else if (known != data.size()) {
            throw ctx.error("cannot reshape " + data.typeString() + " (" + std::to_string(data.size())
                + " elements) to " + shapeToString(requested) + " (" + std::to_string(known) + " elements)");
        }
        ctx.setOutput(0, Value(data.reshaped(shape)));
    }

private:
    bool m_hasAttrShape = false;
    std::vector<int64_t> m_attrShape;
    bool m_allowZero = false;
};

} // namespace

void registerReshape(KernelRegistry& r)
{
    r.add("", "Reshape", 1, 25, makeFactory<Reshape>());
}

} // namespace onnxscope
