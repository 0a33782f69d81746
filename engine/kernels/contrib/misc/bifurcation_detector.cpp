// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <vector>

namespace onnxscope {

namespace {

/// BifurcationDetector (com.microsoft 1), the helper of onnxruntime's aggressive (speculative) decoding. All inputs
/// int64: src_tokens [S], cur_tokens [C], prev_suffix_match_idx (one value p), pred_tokens [S + 1 - p] (optional).
/// 1. tokens = cur_tokens, followed by pred_tokens up to and including the first one that differs from
///    src_tokens[p + i] (all of them when none differs). Without pred_tokens, tokens = cur_tokens.
/// 2. suffix_match_idx: for n = min_ngram_size .. max_ngram_size (defaults 1 and 3), the last n tokens are searched in
///    src_tokens. Not found: stop, keeping the result of the previous n. Found exactly once (at i): the result is
///    i + n, and the search stops when that reaches the end of src_tokens. Found more than once: the result is -1,
///    and the next n is tried. Starts at -1. Output with prev_suffix_match_idx's shape.
/// p outside [0, S] or pred_tokens of another length is refused (onnxruntime would read outside src_tokens).
class BifurcationDetector final : public Kernel {
public:
    explicit BifurcationDetector(const KernelInit& init)
        : m_min(init.attributes().getInt("min_ngram_size", 1))
        , m_max(init.attributes().getInt("max_ngram_size", 3))
    {
        if (m_min < 1)
            throw init.attributes().error("min_ngram_size", "must be at least 1, got " + std::to_string(m_min));
        if (m_max < m_min)
            throw init.attributes().error("max_ngram_size",
                "must be at least min_ngram_size " + std::to_string(m_min) + ", got " + std::to_string(m_max));
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& src = ctx.input(0);
        const Tensor& cur = ctx.input(1);
        const Tensor& prev = ctx.input(2);
        for (const auto& [t, what] : { std::pair { &src, "src_tokens" }, { &cur, "cur_tokens" } })
            if (t->dtype() != DataType::Int64 || t->rank() != 1)
                throw ctx.error(std::string(what) + " must be int64 [length], got " + t->typeString());
        if (prev.dtype() != DataType::Int64 || prev.size() != 1)
            throw ctx.error("prev_suffix_match_idx must be one int64, got " + prev.typeString());
        const auto s = src.data<int64_t>();
        std::vector<int64_t> tokens(cur.data<int64_t>().begin(), cur.data<int64_t>().end());
        if (ctx.hasInput(3)) {
            const Tensor& pred = ctx.input(3);
            const int64_t p = prev.data<int64_t>()[0];
            const int64_t srcLen = static_cast<int64_t>(s.size());
            if (p < 0 || p > srcLen)
                throw ctx.error("prev_suffix_match_idx " + std::to_string(p) + " is outside [0, "
                    + std::to_string(srcLen) + "], the length of src_tokens");
            if (pred.dtype() != DataType::Int64 || pred.rank() != 1 || pred.dim(0) != srcLen + 1 - p)
                throw ctx.error("pred_tokens must be int64 [" + std::to_string(srcLen + 1 - p)
                    + "] (src_tokens' length + 1 - prev_suffix_match_idx), got " + pred.typeString());
            const auto pr = pred.data<int64_t>();
            int64_t keep = 0;
            while (keep < srcLen - p && pr[static_cast<size_t>(keep)] == s[static_cast<size_t>(keep + p)])
                ++keep;
            tokens.insert(tokens.end(), pr.begin(), pr.begin() + keep + 1);
        }
        Tensor& out = ctx.allocateOutputUninitialized(0, DataType::Int64, { static_cast<int64_t>(tokens.size()) });
        std::copy(tokens.begin(), tokens.end(), out.data<int64_t>().begin());

        int64_t suffix = -1;
        const int64_t n = static_cast<int64_t>(tokens.size());
        for (int64_t g = m_min; g <= m_max && g <= n; ++g) {
            const auto gram = tokens.end() - g;
            const auto first = std::search(s.begin(), s.end(), gram, tokens.end());
            if (first == s.end())
                break;
            suffix = (first - s.begin()) + g;
            if (suffix >= static_cast<int64_t>(s.size()))
                break;
            if (std::search(first + 1, s.end(), gram, tokens.end()) != s.end())
                suffix = -1;
        }
        Tensor& idx = ctx.allocateOutputUninitialized(1, DataType::Int64, prev.shape());
        idx.data<int64_t>()[0] = suffix;
    }

private:
    int64_t m_min, m_max;
};

} // namespace

void registerBifurcationDetector(KernelRegistry& r)
{
    r.add("com.microsoft", "BifurcationDetector", 1, KernelRegistry::kLatest, makeFactory<BifurcationDetector>());
}

} // namespace onnxscope
