// SPDX-License-Identifier: MIT
#include "engine/exec/value_condition.h"

#include "engine/core/tensor_stats.h"
#include "engine/core/text.h"

#include <cmath>
#include <cstdio>
#include <regex>

namespace onnxscope {

namespace {

std::function<bool(double, double)> comparison(const std::string& op)
{
    if (op == ">")
        return [](double a, double b) { return a > b; };
    if (op == ">=")
        return [](double a, double b) { return a >= b; };
    if (op == "<")
        return [](double a, double b) { return a < b; };
    if (op == "<=")
        return [](double a, double b) { return a <= b; };
    if (op == "==" || op == "=")
        return [](double a, double b) { return a == b; };
    return [](double a, double b) { return a != b; };
}

std::string formatValue(double v)
{
    if (std::isnan(v))
        return "NaN";
    if (std::isinf(v))
        return v > 0 ? "+Inf" : "-Inf";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

ConditionMatch elementMatch(const Tensor& t, int64_t index, double v)
{
    return { index, formatValue(v) + " at index " + formatIndex(t.shape(), index) };
}

} // namespace

ValueCondition ValueCondition::parse(const std::string& text)
{
    ValueCondition c;
    c.m_text = text;
    static const std::regex kElement(
        R"(^\s*(any|all)\s*(\|x\||abs\(x\)|x)\s*(>=|<=|==|!=|=|>|<)\s*([-+0-9.eEinfINFnaN]+)\s*$)");
    static const std::regex kStat(
        R"(^\s*(min|max|mean|std|absmax|sum|count)\s*(>=|<=|==|!=|=|>|<)\s*([-+0-9.eEinfINFnaN]+)\s*$)");
    static const std::regex kFlag(R"(^\s*(nan|inf|nonfinite)\s*$)");
    std::smatch m;
    auto number = [&](const std::string& s) {
        try {
            size_t used = 0;
            const double v = std::stod(s, &used);
            check(used == s.size(), "");
            return v;
        } catch (...) {
            throw Error("condition \"" + text + "\": \"" + s + "\" is not a number");
        }
    };
    if (std::regex_match(text, m, kElement)) {
        const bool any = m[1] == "any";
        const bool absolute = m[2] != "x";
        const auto cmp = comparison(m[3]);
        const double ref = number(m[4]);
        c.m_test = [any, absolute, cmp, ref](const Tensor& t) -> std::optional<ConditionMatch> {
            bool result = !any;
            bool decided = false;
            ConditionMatch found;
            forEachAsDouble(t, [&](int64_t i, double v) {
                if (decided)
                    return;
                const bool hit = cmp(absolute ? std::abs(v) : v, ref);
                if (any && hit) {
                    result = true;
                    decided = true;
                    found = elementMatch(t, i, v);
                } else if (!any && !hit) {
                    result = false;
                    decided = true;
                }
            });
            if (!result || t.dtype() == DataType::String)
                return std::nullopt;
            if (!any)
                found.description = "all " + std::to_string(t.size()) + " elements";
            return found;
        };
    } else if (std::regex_match(text, m, kStat)) {
        const std::string stat = m[1];
        const auto cmp = comparison(m[2]);
        const double ref = number(m[3]);
        c.m_test = [stat, cmp, ref](const Tensor& t) -> std::optional<ConditionMatch> {
            const TensorStats s = computeStats(t);
            if (!s.numeric)
                return std::nullopt;
            double v = 0;
            if (stat == "min")
                v = s.min;
            else if (stat == "max")
                v = s.max;
            else if (stat == "mean")
                v = s.mean;
            else if (stat == "std")
                v = s.std;
            else if (stat == "absmax")
                v = std::max(std::abs(s.min), std::abs(s.max));
            else if (stat == "sum")
                v = s.mean * static_cast<double>(s.finite);
            else
                v = static_cast<double>(s.count);
            if (!cmp(v, ref))
                return std::nullopt;
            return ConditionMatch { -1, stat + " = " + formatValue(v) };
        };
    } else if (std::regex_match(text, m, kFlag)) {
        const std::string flag = m[1];
        c.m_test = [flag](const Tensor& t) -> std::optional<ConditionMatch> {
            const TensorStats s = computeStats(t);
            const bool met = flag == "nan" ? s.nan > 0 : flag == "inf" ? s.posInf + s.negInf > 0 : s.nonFinite() > 0;
            if (!met)
                return std::nullopt;
            ConditionMatch found { -1, flag == "nan" ? "NaN" : flag == "inf" ? "Inf" : "a non-finite value" };
            forEachAsDouble(t, [&](int64_t i, double v) {
                const bool hit = flag == "nan" ? std::isnan(v) : flag == "inf" ? std::isinf(v) : !std::isfinite(v);
                if (found.index < 0 && hit)
                    found = elementMatch(t, i, v);
            });
            return found;
        };
    } else {
        throw Error("condition \"" + text
            + "\" not understood; write e.g. \"any |x| > 1e4\", \"all x >= 0\", \"max > 100\", \"mean < 0\" or "
              "\"nan\"");
    }
    return c;
}

std::optional<ConditionMatch> ValueCondition::match(const Value& value) const
{
    if (!m_test)
        return std::nullopt;
    if (value.isOptional())
        return value.optionalValue() ? match(*value.optionalValue()) : std::nullopt;
    if (!value.isTensor())
        return std::nullopt;
    return m_test(value.tensor());
}

} // namespace onnxscope
