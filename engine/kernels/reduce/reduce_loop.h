// SPDX-License-Identifier: MIT
#pragma once

// The loop shared by the reduction kernels: folds every input element into the accumulator of its output element.
// Include only from kernel .cpp files.

#include "engine/core/tensor.h"

#include <vector>

namespace onnxscope {

/// Which axes a reduction removes, as a row-major walk: `dims` is the input shape with adjacent axes of the same
/// kind merged and size-1 axes dropped, `reduced[i]` whether dims[i] is reduced, `outStrides[i]` the output stride
/// of a kept dim (0 for a reduced one).
struct ReducePlan {
    std::vector<int64_t> dims;
    std::vector<bool> reduced;
    std::vector<int64_t> outStrides;

    /// `axes` must be normalised (in [0, rank)) and distinct.
    ReducePlan(const Shape& shape, const std::vector<int64_t>& axes)
    {
        std::vector<bool> mask(shape.size(), false);
        for (int64_t a : axes)
            mask[static_cast<size_t>(a)] = true;
        for (size_t i = 0; i < shape.size(); ++i) {
            if (shape[i] == 1)
                continue;
            if (!dims.empty() && reduced.back() == mask[i]) {
                dims.back() *= shape[i];
            } else {
                dims.push_back(shape[i]);
                reduced.push_back(mask[i]);
            }
        }
        outStrides.assign(dims.size(), 0);
        int64_t stride = 1;
        for (size_t i = dims.size(); i-- > 0;)
            if (!reduced[i]) {
                outStrides[i] = stride;
                stride *= dims[i];
            }
    }

    /// Calls fold(acc[o], x, o) for every input element x, where o is the index of its output element.
    /// The caller sizes and initialises acc (one entry per output element); an empty input folds nothing.
    template <class T, class Acc, class Fold> void run(const T* in, std::vector<Acc>& acc, Fold fold) const
    {
        int64_t total = 1;
        for (int64_t d : dims)
            total *= d;
        if (total == 0)
            return;
        if (dims.empty()) {
            fold(acc[0], in[0], int64_t(0));
            return;
        }
        const size_t rank = dims.size();
        const int64_t inner = dims[rank - 1];
        const bool innerReduced = reduced[rank - 1];
        std::vector<int64_t> index(rank, 0);
        int64_t out = 0;
        for (int64_t i = 0; i < total; i += inner) {
            const T* row = in + i;
            if (innerReduced) {
                Acc& a = acc[static_cast<size_t>(out)];
                for (int64_t j = 0; j < inner; ++j)
                    fold(a, row[j], out);
            } else {
                for (int64_t j = 0; j < inner; ++j)
                    fold(acc[static_cast<size_t>(out + j)], row[j], out + j);
            }
            for (size_t d = rank - 1; d-- > 0;) {
                out += outStrides[d];
                if (++index[d] < dims[d])
                    break;
                out -= outStrides[d] * dims[d];
                index[d] = 0;
            }
        }
    }
};

} // namespace onnxscope
