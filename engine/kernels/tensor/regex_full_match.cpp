// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

#include <re2/re2.h>

#include <memory>

namespace onnxscope {

namespace {

/// RegexFullMatch 20: Y[i] (bool) is true when the whole of string X[i] matches `pattern`, in RE2's syntax (the
/// spec's, and the library used here). The pattern is compiled once, at plan time; an invalid one is an error
/// naming the attribute. Strings are matched as UTF-8.
class RegexFullMatch final : public Kernel {
public:
    explicit RegexFullMatch(const KernelInit& init)
    {
        const std::string pattern = init.attributes().requireString("pattern");
        RE2::Options options;
        options.set_log_errors(false);
        m_regex = std::make_unique<RE2>(pattern, options);
        if (!m_regex->ok())
            throw init.attributes().error("pattern", "invalid RE2 pattern: " + m_regex->error());
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (x.dtype() != DataType::String)
            throw ctx.error("input must be a string tensor, got " + x.typeString());
        auto in = x.data<std::string>();
        auto out = ctx.allocateOutputUninitialized(0, DataType::Bool, x.shape()).data<bool>();
        for (size_t i = 0; i < in.size(); ++i)
            out[i] = RE2::FullMatch(in[i], *m_regex);
    }

private:
    std::unique_ptr<RE2> m_regex;
};

} // namespace

void registerRegexFullMatch(KernelRegistry& r)
{
    r.add("", "RegexFullMatch", 20, 20, makeFactory<RegexFullMatch>());
}

} // namespace onnxscope
