// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <unordered_map>

namespace onnxscope {

namespace {

enum class TfIdfMode { Tf, Idf, TfIdf };

/// TfIdfVectorizer (ai.onnx 9): counts the n-grams of the pool (pool_strings or pool_int64s, grouped by length through
/// ngram_counts) in each row of X (string, int32 or int64; [C] or [N, C]) and writes them to the columns given by
/// ngram_indexes: TF counts, IDF weights[i] where present, TFIDF counts * weights[i] (weights default to 1). n-grams of
/// length min_gram_length..max_gram_length are taken with 0..max_skip_count items skipped between their elements;
/// unigrams are counted once. Output float [max(ngram_indexes) + 1] or [N, that].
class TfIdfVectorizer final : public Kernel {
public:
    explicit TfIdfVectorizer(const KernelInit& init)
    {
        const auto& a = init.attributes();
        m_minGram = a.requireInt("min_gram_length");
        m_maxGram = a.requireInt("max_gram_length");
        m_maxSkip = a.requireInt("max_skip_count");
        const std::string mode = a.requireString("mode");
        if (mode == "TF")
            m_mode = TfIdfMode::Tf;
        else if (mode == "IDF")
            m_mode = TfIdfMode::Idf;
        else if (mode == "TFIDF")
            m_mode = TfIdfMode::TfIdf;
        else
            throw a.error("mode", "unknown value \"" + mode + "\" (expected TF, IDF or TFIDF)");
        if (m_minGram < 1 || m_maxGram < m_minGram)
            throw init.error("needs 1 <= min_gram_length <= max_gram_length, got " + std::to_string(m_minGram) + " and "
                + std::to_string(m_maxGram));
        if (m_maxSkip < 0)
            throw a.error("max_skip_count", "must not be negative");
        const auto counts = a.getInts("ngram_counts");
        const auto indexes = a.getInts("ngram_indexes");
        m_weights = a.getFloats("weights");
        std::vector<std::string> pool = a.getStrings("pool_strings");
        const auto ints = a.getInts("pool_int64s");
        if (!ints.empty() && !pool.empty())
            throw init.error("only one of 'pool_strings' and 'pool_int64s' may be given");
        for (int64_t v : ints)
            pool.push_back(std::to_string(v));
        // ngram_counts[k] is where the n-grams of length k + 1 start in the pool.
        size_t ngram = 0;
        for (size_t k = 0; k < counts.size(); ++k) {
            const int64_t begin = counts[k];
            const int64_t end = k + 1 < counts.size() ? counts[k + 1] : static_cast<int64_t>(pool.size());
            const int64_t n = static_cast<int64_t>(k) + 1;
            if (begin < 0 || end < begin || end > static_cast<int64_t>(pool.size()) || (end - begin) % n != 0)
                throw a.error("ngram_counts",
                    "entry " + std::to_string(k) + " does not split the pool of " + std::to_string(pool.size())
                        + " items into " + std::to_string(n) + "-grams");
            for (int64_t i = begin; i < end; i += n, ++ngram) {
                if (ngram >= indexes.size())
                    throw a.error("ngram_indexes",
                        "has " + std::to_string(indexes.size()) + " values, fewer than the n-grams in the pool");
                if (indexes[ngram] < 0)
                    throw a.error("ngram_indexes", "must not be negative");
                std::string key;
                for (int64_t j = i; j < i + n; ++j)
                    key += pool[static_cast<size_t>(j)] + '\x1f';
                m_ngrams.emplace(std::move(key), indexes[ngram]);
                m_outputSize = std::max(m_outputSize, indexes[ngram] + 1);
            }
        }
        if (!m_weights.empty() && m_weights.size() < static_cast<size_t>(m_outputSize))
            throw a.error("weights",
                "has " + std::to_string(m_weights.size()) + " values, expected " + std::to_string(m_outputSize));
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (x.rank() > 2)
            throw ctx.error("input X must be [C] or [N, C], got " + x.typeString());
        std::vector<std::string> items(static_cast<size_t>(x.size()));
        if (x.dtype() == DataType::String) {
            items.assign(x.data<std::string>().begin(), x.data<std::string>().end());
        } else if (x.dtype() == DataType::Int64) {
            for (int64_t i = 0; i < x.size(); ++i)
                items[static_cast<size_t>(i)] = std::to_string(x.data<int64_t>()[static_cast<size_t>(i)]);
        } else if (x.dtype() == DataType::Int32) {
            for (int64_t i = 0; i < x.size(); ++i)
                items[static_cast<size_t>(i)] = std::to_string(x.data<int32_t>()[static_cast<size_t>(i)]);
        } else {
            throw ctx.error("input X must be string, int32 or int64, got " + x.typeString());
        }
        const int64_t rows = x.rank() == 2 ? x.dim(0) : 1;
        const int64_t cols = x.rank() == 0 ? 1 : x.dim(x.rank() - 1);
        Shape outShape = x.rank() == 2 ? Shape { rows, m_outputSize } : Shape { m_outputSize };
        Tensor& out = ctx.allocateOutput(0, DataType::Float, outShape);
        auto dst = out.data<float>();
        std::vector<int64_t> counts(static_cast<size_t>(m_outputSize));
        for (int64_t r = 0; r < rows; ++r) {
            std::fill(counts.begin(), counts.end(), 0);
            const std::string* row = items.data() + r * cols;
            for (int64_t skip = 0; skip <= m_maxSkip; ++skip) {
                const int64_t step = skip + 1;
                // Unigrams do not depend on the skip: count them in the first pass only.
                const int64_t nMin = skip > 0 ? std::max<int64_t>(m_minGram, 2) : m_minGram;
                for (int64_t start = 0; start < cols; ++start) {
                    std::string key;
                    for (int64_t n = 1; n <= m_maxGram; ++n) {
                        const int64_t pos = start + (n - 1) * step;
                        if (pos >= cols)
                            break;
                        key += row[pos] + '\x1f';
                        if (n < nMin)
                            continue;
                        if (auto it = m_ngrams.find(key); it != m_ngrams.end())
                            ++counts[static_cast<size_t>(it->second)];
                    }
                }
                if (nMin > m_maxGram)
                    break;
            }
            for (int64_t j = 0; j < m_outputSize; ++j) {
                const double c = static_cast<double>(counts[static_cast<size_t>(j)]);
                const double w = m_weights.empty() ? 1.0 : m_weights[static_cast<size_t>(j)];
                double v = c;
                if (m_mode == TfIdfMode::Idf)
                    v = c > 0 ? w : 0.0;
                else if (m_mode == TfIdfMode::TfIdf)
                    v = c * w;
                dst[static_cast<size_t>(r * m_outputSize + j)] = static_cast<float>(v);
            }
        }
    }

private:
    int64_t m_minGram = 1, m_maxGram = 1, m_maxSkip = 0, m_outputSize = 0;
    TfIdfMode m_mode = TfIdfMode::Tf;
    std::vector<float> m_weights;
    std::unordered_map<std::string, int64_t> m_ngrams; // n-gram items joined by \x1f -> output column
};

} // namespace

void registerTfIdfVectorizer(KernelRegistry& r)
{
    r.add("", "TfIdfVectorizer", 9, 9, makeFactory<TfIdfVectorizer>());
}

} // namespace onnxscope
