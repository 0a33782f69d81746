// SPDX-License-Identifier: MIT
#include "engine/kernels/control/axis_slices.h"

#include "engine/kernels/common/element_copy.h"

#include <algorithm>

namespace onnxscope {

Tensor sliceAlongAxis(const Tensor& t, int64_t axis, int64_t index)
{
    const Shape& shape = t.shape();
    check(axis >= 0 && axis < t.rank(), "axis " + std::to_string(axis) + " is out of range for " + t.typeString());
    check(index >= 0 && index < shape[static_cast<size_t>(axis)], "index out of range");
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < axis; ++i)
        outer *= shape[static_cast<size_t>(i)];
    for (int64_t i = axis + 1; i < t.rank(); ++i)
        inner *= shape[static_cast<size_t>(i)];
    const int64_t n = shape[static_cast<size_t>(axis)];
    Shape outShape = shape;
    outShape.erase(outShape.begin() + axis);
    if (axis == 0 && t.dtype() != DataType::String) {
        // Contiguous block: copy once.
        Tensor out(t.dtype(), outShape);
        std::copy_n(static_cast<const char*>(t.raw()) + index * inner * elementSize(t.dtype()),
            inner * elementSize(t.dtype()), static_cast<char*>(out.mutableRaw()));
        return out;
    }
    Tensor out(t.dtype(), outShape);
    dispatchByElementSize(t.dtype(), [&]<class W>() {
        const W* src = elementsOf<W>(t);
        W* dst = mutableElementsOf<W>(out);
        for (int64_t o = 0; o < outer; ++o)
            std::copy_n(src + (o * n + index) * inner, inner, dst + o * inner);
    });
    return out;
}

Tensor stackAlongAxis(const std::vector<Tensor>& parts, int64_t axis, DataType emptyType, const Shape& emptySliceShape)
{
    if (parts.empty()) {
        Shape s = emptySliceShape;
        axis = std::clamp<int64_t>(axis, 0, static_cast<int64_t>(s.size()));
        s.insert(s.begin() + axis, 0);
        return Tensor(emptyType, s);
    }
    const Tensor& first = parts[0];
    for (const auto& p : parts) {
        check(p.dtype() == first.dtype(),
            "stacked values have different element types (" + first.typeString() + " and " + p.typeString() + ")");
        check(p.shape() == first.shape(),
            "stacked values have different shapes (" + first.typeString() + " and " + p.typeString() + ")");
    }
    check(axis >= 0 && axis <= first.rank(), "stack axis " + std::to_string(axis) + " is out of range");
    Shape outShape = first.shape();
    const int64_t n = static_cast<int64_t>(parts.size());
    outShape.insert(outShape.begin() + axis, n);
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < axis; ++i)
        outer *= first.shape()[static_cast<size_t>(i)];
    for (int64_t i = axis; i < first.rank(); ++i)
        inner *= first.shape()[static_cast<size_t>(i)];
    Tensor out(first.dtype(), outShape);
    dispatchByElementSize(first.dtype(), [&]<class W>() {
        W* dst = mutableElementsOf<W>(out);
        for (int64_t k = 0; k < n; ++k) {
            const W* src = elementsOf<W>(parts[static_cast<size_t>(k)]);
            for (int64_t o = 0; o < outer; ++o)
                std::copy_n(src + o * inner, inner, dst + (o * n + k) * inner);
        }
    });
    return out;
}

} // namespace onnxscope
