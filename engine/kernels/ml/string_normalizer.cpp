// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

#include <locale>
#include <unordered_set>

namespace onnxscope {

namespace {

enum class CaseChange { None, Lower, Upper };

/// UTF-8 <-> UTF-32 conversion by hand (std::wstring_convert is deprecated); invalid bytes pass through as U+FFFD.
std::u32string decodeUtf8(const std::string& s)
{
    std::u32string out;
    for (size_t i = 0; i < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (len == 0 || i + static_cast<size_t>(len) > s.size()) {
            out.push_back(0xFFFD);
            ++i;
            continue;
        }
        char32_t cp = len == 1 ? c : (c & (0x7F >> len));
        for (int k = 1; k < len; ++k)
            cp = (cp << 6) | (static_cast<unsigned char>(s[i + static_cast<size_t>(k)]) & 0x3F);
        out.push_back(cp);
        i += static_cast<size_t>(len);
    }
    return out;
}

std::string encodeUtf8(const std::u32string& s)
{
    std::string out;
    for (char32_t cp : s) {
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (cp >> 18));
            out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        }
    }
    return out;
}

/// A UTF-8 locale for case changes beyond ASCII, or the classic one when the system has none.
std::locale caseLocale(const std::string& requested)
{
    for (const std::string& name : { requested, std::string("en_US.UTF-8"), std::string("C.UTF-8") }) {
        if (name.empty())
            continue;
        try {
            return std::locale(name);
        } catch (const std::exception&) {
        }
    }
    return std::locale::classic();
}

/// StringNormalizer (ai.onnx 10): removes the stopwords (compared case-insensitively unless is_case_sensitive=1), then
/// lower- or upper-cases what is left (case_change_action LOWER / UPPER / NONE) using `locale` (en_US.UTF-8 by
/// default, as onnxruntime). Input [C] or [N, C]; rows keep the same length, so in [N, C] with N > 1 shorter rows
/// are padded with "" (the spec only defines [C] and [1, C]). If everything is removed the output is [""] ([1, 1]).
class StringNormalizer final : public Kernel {
public:
    explicit StringNormalizer(const KernelInit& init)
    {
        const auto& a = init.attributes();
        const std::string action = a.getString("case_change_action", "NONE");
        if (action == "NONE")
            m_case = CaseChange::None;
        else if (action == "LOWER")
            m_case = CaseChange::Lower;
        else if (action == "UPPER")
            m_case = CaseChange::Upper;
        else
            throw a.error("case_change_action", "unknown value \"" + action + "\" (expected LOWER, UPPER or NONE)");
        m_caseSensitive = a.getInt("is_case_sensitive", 0) != 0;
        m_locale = caseLocale(a.getString("locale", ""));
        for (const auto& w : a.getStrings("stopwords"))
            m_stopwords.insert(m_caseSensitive ? w : changeCase(w, CaseChange::Lower));
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (x.dtype() != DataType::String)
            throw ctx.error("input X must be string, got " + x.typeString());
        if (x.rank() != 1 && x.rank() != 2)
            throw ctx.error("input X must be [C] or [N, C], got " + x.typeString());
        const int64_t rows = x.rank() == 2 ? x.dim(0) : 1;
        const int64_t cols = x.dim(x.rank() - 1);
        auto src = x.data<std::string>();
        std::vector<std::vector<std::string>> kept(static_cast<size_t>(rows));
        size_t width = 0;
        for (int64_t r = 0; r < rows; ++r) {
            for (int64_t c = 0; c < cols; ++c) {
                const std::string& s = src[static_cast<size_t>(r * cols + c)];
                if (!m_stopwords.empty() && m_stopwords.count(m_caseSensitive ? s : changeCase(s, CaseChange::Lower)))
                    continue;
                kept[static_cast<size_t>(r)].push_back(changeCase(s, m_case));
            }
            width = std::max(width, kept[static_cast<size_t>(r)].size());
        }
        const int64_t w = std::max<int64_t>(static_cast<int64_t>(width), 1);
        Tensor& out = ctx.allocateOutput(0, DataType::String, x.rank() == 2 ? Shape { rows, w } : Shape { w });
        auto dst = out.data<std::string>();
        for (int64_t r = 0; r < rows; ++r)
            for (size_t c = 0; c < kept[static_cast<size_t>(r)].size(); ++c)
                dst[static_cast<size_t>(r * w) + c] = kept[static_cast<size_t>(r)][c];
    }

private:
    std::string changeCase(const std::string& s, CaseChange how) const
    {
        if (how == CaseChange::None)
            return s;
        std::u32string u = decodeUtf8(s);
        const auto& facet = std::use_facet<std::ctype<wchar_t>>(m_locale);
        for (char32_t& cp : u) {
            const wchar_t wc = static_cast<wchar_t>(cp);
            cp = static_cast<char32_t>(how == CaseChange::Lower ? facet.tolower(wc) : facet.toupper(wc));
        }
        return encodeUtf8(u);
    }

    CaseChange m_case = CaseChange::None;
    bool m_caseSensitive = false;
    std::locale m_locale;
    std::unordered_set<std::string> m_stopwords;
};

} // namespace

void registerStringNormalizer(KernelRegistry& r)
{
    r.add("", "StringNormalizer", 10, 10, makeFactory<StringNormalizer>());
}

} // namespace onnxscope
