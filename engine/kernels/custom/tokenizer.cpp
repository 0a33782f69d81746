// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

#include <regex>

namespace onnxscope {

namespace {

size_t utf8Length(const std::string& s)
{
    size_t n = 0;
    for (unsigned char c : s)
        n += (c & 0xC0) != 0x80;
    return n;
}

/// Tokenizer (com.microsoft 1, as onnxruntime's contrib op): splits every string of X ([C] or [N, C]) into tokens,
/// either the matches of the regular expression `tokenexp` or the pieces between matches of the `separators`
/// (regular expressions; a single empty separator splits into UTF-8 characters). Tokens shorter than `mincharnum`
/// characters are dropped; mark=1 adds the start/end markers "\x02" and "\x03". Output [..., T] padded with
/// `pad_value`, T the most tokens of any string ([..., 0] when there are none). Regular expressions are ECMAScript
/// (std::regex) where onnxruntime uses RE2: the same for the usual character-class patterns.
class Tokenizer final : public Kernel {
public:
    explicit Tokenizer(const KernelInit& init)
    {
        const auto& a = init.attributes();
        m_mark = a.getInt("mark", 0) != 0;
        m_pad = a.getString("pad_value", "#");
        m_minChars = a.getInt("mincharnum", 1);
        const std::string exp = a.getString("tokenexp", "");
        const auto separators = a.getStrings("separators");
        try {
            if (!exp.empty()) {
                m_tokenExp = std::regex(exp, std::regex::ECMAScript);
                m_useTokenExp = true;
            } else if (separators.size() == 1 && separators[0].empty()) {
                m_chars = true;
            } else if (!separators.empty()) {
                std::string all;
                for (const auto& s : separators) {
                    if (s.empty())
                        throw a.error("separators", "an empty separator is only allowed alone");
                    all += (all.empty() ? "" : "|") + ("(?:" + s + ")");
                }
                m_separators = std::regex(all, std::regex::ECMAScript);
            } else {
                throw init.error("one of 'tokenexp' and 'separators' is required");
            }
        } catch (const std::regex_error& e) {
            throw init.error(std::string("invalid regular expression: ") + e.what());
        }
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (x.dtype() != DataType::String)
            throw ctx.error("input X must be string, got " + x.typeString());
        if (x.rank() != 1 && x.rank() != 2)
            throw ctx.error("input X must be [C] or [N, C], got " + x.typeString());
        auto src = x.data<std::string>();
        std::vector<std::vector<std::string>> tokens(src.size());
        size_t most = 0;
        for (size_t i = 0; i < src.size(); ++i) {
            tokens[i] = split(src[i]);
            most = std::max(most, tokens[i].size());
        }
        Shape shape = x.shape();
        const size_t width = most == 0 ? 0 : most + (m_mark ? 2 : 0);
        shape.push_back(static_cast<int64_t>(width));
        Tensor& out = ctx.allocateOutput(0, DataType::String, shape);
        auto dst = out.data<std::string>();
        for (size_t i = 0; i < src.size() && width > 0; ++i) {
            std::string* row = dst.data() + i * width;
            size_t k = 0;
            if (m_mark)
                row[k++] = "\x02";
            for (const auto& t : tokens[i])
                row[k++] = t;
            while (k < width - (m_mark ? 1 : 0))
                row[k++] = m_pad;
            if (m_mark)
                row[k++] = "\x03";
        }
    }

private:
    std::vector<std::string> split(const std::string& s) const
    {
        std::vector<std::string> out;
        auto keep = [&](std::string t) {
            if (!t.empty() && static_cast<int64_t>(utf8Length(t)) >= m_minChars)
                out.push_back(std::move(t));
        };
        if (m_chars) {
            for (size_t i = 0; i < s.size();) {
                size_t len = 1;
                while (i + len < s.size() && (static_cast<unsigned char>(s[i + len]) & 0xC0) == 0x80)
                    ++len;
                out.push_back(s.substr(i, len));
                i += len;
            }
        } else if (m_useTokenExp) {
            for (auto it = std::sregex_iterator(s.begin(), s.end(), m_tokenExp); it != std::sregex_iterator(); ++it)
                keep(it->str());
        } else {
            size_t last = 0;
            for (auto it = std::sregex_iterator(s.begin(), s.end(), m_separators); it != std::sregex_iterator(); ++it) {
                keep(s.substr(last, static_cast<size_t>(it->position()) - last));
                last = static_cast<size_t>(it->position() + it->length());
            }
            keep(s.substr(last));
        }
        return out;
    }

    bool m_mark = false, m_chars = false, m_useTokenExp = false;
    std::string m_pad;
    int64_t m_minChars = 1;
    std::regex m_tokenExp, m_separators;
};

} // namespace

void registerTokenizer(KernelRegistry& r)
{
    r.add("com.microsoft", "Tokenizer", 1, KernelRegistry::kLatest, makeFactory<Tokenizer>());
    r.add("mlprodict", "Tokenizer", 1, KernelRegistry::kLatest, makeFactory<Tokenizer>());
}

} // namespace onnxscope
