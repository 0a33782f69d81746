// SPDX-License-Identifier: MIT
#include "ui/debugger/value_condition.h"

#include "engine/exec/tensor_stats.h"

#include <cmath>
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

} // namespace

ValueCondition ValueCondition::parse(const std::string& text)
{
    ValueCondition c;
    c.m_text = text;
    static const std::regex kElement(R"(^\s*(any|all)\s*(\|x\||abs\(x\)|x)\s*(>=|<=|==|!=|=|>|<)\s*([-+0-9.eEinfINFnaN]+)\s*$)");
    static const std::regex kStat(R"(^\s*(min|max|mean|std|absmax|sum|count)\s*(>=|<=|==|!=|=|>|<)\s*([-+0-9.eEinfINFnaN]+)\s*$)");
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
        c.m_test = [any, absolute, cmp, ref](const Tensor& t) {
            bool result = !any;
            bool decided = false;
            forEachAsDouble(t, [&](int64_t, double v) {
                if (decided)
                    return;
                const bool hit = cmp(absolute ? std::abs(v) : v, ref);
                if (any && hit) {
                    result = true;
                    decided = true;
                } else if (!any && !hit) {
                    result = false;
                    decided = true;
                }
            });
            return result && t.dtype() != DataType::String;
        };
    } else if (std::regex_match(text, m, kStat)) {
        const std::string stat = m[1];
        const auto cmp = comparison(m[2]);
        const double ref = number(m[3]);
        c.m_test = [stat, cmp, ref](const Tensor& t) {
            const TensorStats s = computeStats(t);
            if (!s.numeric)
                return false;
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
            return cmp(v, ref);
        };
    } else if (std::regex_match(text, m, kFlag)) {
        const std::string flag = m[1];
        c.m_test = [flag](const Tensor& t) {
            const TensorStats s = computeStats(t);
            if (flag == "nan")
                return s.nan > 0;
            if (flag == "inf")
                return s.posInf + s.negInf > 0;
            return s.nonFinite() > 0;
        };
    } else {
        throw Error("condition \"" + text
            + "\" not understood; write e.g. \"any |x| > 1e4\", \"all x >= 0\", \"max > 100\", \"mean < 0\" or \"nan\"");
    }
    return c;
}

bool ValueCondition::matches(const Value& value) const
{
    if (!m_test)
        return false;
    if (value.isOptional())
        return value.optionalValue() && matches(*value.optionalValue());
    if (!value.isTensor())
        return false;
    return m_test(value.tensor());
}

} // namespace onnxscope
