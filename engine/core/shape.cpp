// SPDX-License-Identifier: MIT
#include "engine/core/shape.h"

#include "engine/core/error.h"

#include <algorithm>

namespace onnxscope {

int64_t checkedMul(int64_t a, int64_t b, const std::string& what)
{
    int64_t result = 0;
    if (__builtin_mul_overflow(a, b, &result))
        throw Error(what + ": " + std::to_string(a) + " x " + std::to_string(b) + " overflows int64");
    return result;
}

int64_t elementCount(const Shape& shape)
{
    int64_t count = 1;
    for (int64_t d : shape) {
        if (d < 0)
            throw Error("shape " + shapeToString(shape) + " has a negative dimension");
        // The message is built only on overflow: this runs for every tensor a kernel makes.
        int64_t product = 0;
        if (__builtin_mul_overflow(count, d, &product))
            checkedMul(count, d, "element count of shape " + shapeToString(shape));
        count = product;
    }
    return count;
}

std::string shapeToString(const Shape& shape)
{
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) {
        if (i)
            s += ", ";
        s += std::to_string(shape[i]);
    }
    return s + "]";
}

std::vector<int64_t> stridesOf(const Shape& shape)
{
    std::vector<int64_t> strides(shape.size(), 1);
    for (size_t i = shape.size(); i-- > 1;)
        strides[i - 1] = strides[i] * shape[i];
    return strides;
}

Shape broadcastShapes(const Shape& a, const Shape& b)
{
    size_t rank = std::max(a.size(), b.size());
    Shape out(rank);
    for (size_t i = 0; i < rank; ++i) {
        int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
        int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
        if (da == db || db == 1)
            out[i] = da;
        else if (da == 1)
            out[i] = db;
        else
            throw Error("shapes " + shapeToString(a) + " and " + shapeToString(b) + " cannot be broadcast");
    }
    return out;
}

int64_t normalizeAxis(int64_t axis, int64_t rank, const std::string& what)
{
    if (axis < -rank || axis >= std::max<int64_t>(rank, 1))
        throw Error(what + " " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    return axis < 0 ? axis + rank : axis;
}

} // namespace onnxscope
