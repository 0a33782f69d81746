// SPDX-License-Identifier: MIT
#pragma once

// The token inputs that EmbedLayerNormalization and QEmbedLayerNormalization (com.microsoft 1) share, and the checks
// both apply to them: input_ids (0), segment_ids (1, with segment_embedding at 4), mask (7), the epsilon attribute,
// the row lookup with its range check and the mask_index output. Include only from kernel .cpp files.

#include "engine/kernels/contrib/contrib_util.h"
#include "engine/kernels/kernel.h"

#include <string>

namespace onnxscope::contrib::embedding {

/// The epsilon attribute of both operators (default 1e-12).
inline float epsilon(const KernelInit& init)
{
    return init.attributes().getFloat("epsilon", 1e-12f);
}

/// input_ids, segment_ids and mask, checked: every one int32 [B, S]; segment_ids present iff segment_embedding
/// (input 4) is.
struct Tokens {
    int64_t B = 0, S = 0;
    const int32_t* ids = nullptr;
    const int32_t* segments = nullptr; ///< null when absent
    const int32_t* mask = nullptr; ///< null when absent
};

inline Tokens tokens(const KernelContext& ctx)
{
    const Tensor& ids = ctx.input(0);
    if (ids.dtype() != DataType::Int32 || ids.rank() != 2)
        throw ctx.error("input_ids must be int32 [B, S], got " + ids.typeString());
    Tokens t;
    t.B = ids.dim(0);
    t.S = ids.dim(1);
    t.ids = ids.data<int32_t>().data();
    if (ctx.hasInput(1) != ctx.hasInput(4))
        throw ctx.error("segment_ids and segment_embedding must be given together");
    const Shape shape { t.B, t.S };
    t.segments = int32Input(ctx, 1, shape, "segment_ids");
    t.mask = int32Input(ctx, 7, shape, "mask");
    return t;
}

/// Row `id` of a [rows, hidden] table, refused with the id when it is outside the table.
template <typename T>
const T* row(const KernelContext& ctx, const T* table, int64_t rows, int64_t hidden, int64_t id, const char* what)
{
    if (id < 0 || id >= rows)
        throw ctx.error(
            std::string(what) + " " + std::to_string(id) + " is outside the table's " + std::to_string(rows) + " rows");
    return table + id * hidden;
}

/// Output `index` (mask_index), when wanted: int32 [B], the number of ones in each row of mask (0 without mask).
inline void storeMaskIndex(KernelContext& ctx, size_t index, const Tokens& t)
{
    if (!ctx.hasOutput(index))
        return;
    Tensor& mi = ctx.allocateOutput(index, DataType::Int32, { t.B });
    for (int64_t b = 0; b < t.B; ++b) {
        int32_t count = 0;
        for (int64_t s = 0; t.mask && s < t.S; ++s)
            count += t.mask[b * t.S + s] == 1;
        mi.data<int32_t>()[static_cast<size_t>(b)] = count;
    }
}

} // namespace onnxscope::contrib::embedding
