// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <string_view>

namespace onnxscope {

namespace {

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/// StringSplit 20: each string of X split on `delimiter` into Y (X's shape plus one dimension, as long as the most
/// pieces, shorter rows padded with "") and Z (int64, X's shape: the piece counts), as Python's str.split. With a
/// delimiter, consecutive delimiters delimit empty strings; without one (or with ""), runs of whitespace separate
/// and leading and trailing whitespace is dropped. maxsplit (if given, not negative) limits the splits from the
/// left; the rest of the string (without leading whitespace, when splitting on whitespace) is the last piece.
/// Deviation: whitespace is ASCII whitespace only (Python also counts Unicode spaces).
class StringSplit final : public Kernel {
public:
    explicit StringSplit(const KernelInit& init)
    {
        m_delimiter = init.attributes().getString("delimiter", "");
        m_maxSplit = init.attributes().getInt("maxsplit", -1);
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (x.dtype() != DataType::String)
            throw ctx.error("input must be a string tensor, got " + x.typeString());
        auto in = x.data<std::string>();
        std::vector<std::vector<std::string_view>> pieces(in.size());
        size_t most = 0;
        for (size_t i = 0; i < in.size(); ++i) {
            pieces[i] = split(in[i]);
            most = std::max(most, pieces[i].size());
        }
        Shape yShape = x.shape();
        yShape.push_back(static_cast<int64_t>(most));
        Tensor& y = ctx.allocateOutput(0, DataType::String, yShape);
        auto out = y.data<std::string>();
        for (size_t i = 0; i < pieces.size(); ++i)
            for (size_t k = 0; k < pieces[i].size(); ++k)
                out[i * most + k] = std::string(pieces[i][k]);
        if (ctx.hasOutput(1)) {
            auto z = ctx.allocateOutput(1, DataType::Int64, x.shape()).data<int64_t>();
            for (size_t i = 0; i < pieces.size(); ++i)
                z[i] = static_cast<int64_t>(pieces[i].size());
        }
    }

private:
    std::vector<std::string_view> split(std::string_view s) const
    {
        std::vector<std::string_view> out;
        const bool limited = m_maxSplit >= 0;
        if (!m_delimiter.empty()) {
            size_t start = 0;
            while (!limited || static_cast<int64_t>(out.size()) < m_maxSplit) {
                const size_t at = s.find(m_delimiter, start);
                if (at == std::string_view::npos)
                    break;
                out.push_back(s.substr(start, at - start));
                start = at + m_delimiter.size();
            }
            out.push_back(s.substr(start));
            return out;
        }
        size_t i = 0;
        while (true) {
            while (i < s.size() && isSpace(s[i]))
                ++i;
            if (i == s.size())
                break;
            if (limited && static_cast<int64_t>(out.size()) == m_maxSplit) {
                out.push_back(s.substr(i)); // as Python: the rest keeps its trailing whitespace
                break;
            }
            const size_t start = i;
            while (i < s.size() && !isSpace(s[i]))
                ++i;
            out.push_back(s.substr(start, i - start));
        }
        return out;
    }

    std::string m_delimiter;
    int64_t m_maxSplit = -1;
};

} // namespace

void registerStringSplit(KernelRegistry& r)
{
    r.add("", "StringSplit", 20, 20, makeFactory<StringSplit>());
}

} // namespace onnxscope
