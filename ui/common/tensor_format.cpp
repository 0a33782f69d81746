// SPDX-License-Identifier: MIT
#include "ui/common/tensor_format.h"

#include "engine/core/byte_size.h"
#include "engine/core/text.h"

#include <QFontMetrics>
#include <QStringList>

#include <algorithm>
#include <cmath>

namespace onnxscope {

QString formatShape(const Shape& shape)
{
    if (shape.empty())
        return QStringLiteral("scalar");
    QStringList parts;
    for (int64_t d : shape)
        parts << QString::number(d);
    return parts.join(QChar(0x00D7));
}

namespace {

// Exporters and shape inference invent long names for unknown dims ("p2o.DynamicDimension.0", "unk__3"); on an edge
// label they only hide the shape, so they print as "?" (the full type is in the inspector).
QString shortSymbol(const std::string& symbol)
{
    if (symbol.empty() || symbol.rfind("unk__", 0) == 0 || symbol.size() > 12)
        return QStringLiteral("?");
    return QString::fromStdString(symbol);
}

} // namespace

QString formatShape(const ValueType& type)
{
    if (!type.hasShape)
        return QStringLiteral("?");
    if (type.shape.empty())
        return QStringLiteral("scalar");
    QStringList parts;
    for (const Dim& d : type.shape)
        parts << (d.known() ? QString::number(d.value) : shortSymbol(d.symbol));
    return parts.join(QChar(0x00D7));
}

QString formatTypeShort(const ValueType& type)
{
    switch (type.kind) {
    case Value::Kind::None:
        return QStringLiteral("?");
    case Value::Kind::Tensor: {
        const QString dtype = type.elementType == DataType::Undefined
            ? QStringLiteral("?")
            : QString::fromUtf8(
                dataTypeName(type.elementType).data(), static_cast<qsizetype>(dataTypeName(type.elementType).size()));
        if (!type.hasShape)
            return dtype;
        return dtype + QLatin1Char(' ') + formatShape(type);
    }
    default:
        return QString::fromStdString(type.toString());
    }
}

QString formatElement(const Tensor& tensor, int64_t index)
{
    if (index < 0 || index >= tensor.size())
        return {};
    const DataType t = tensor.dtype();
    if (t == DataType::String)
        return QStringLiteral("\"%1\"").arg(
            QString::fromStdString(escapeBytes(tensor.data<std::string>()[static_cast<size_t>(index)])));
    if (t == DataType::Bool)
        return tensor.toDouble(index) != 0 ? QStringLiteral("true") : QStringLiteral("false");
    if (t == DataType::Int64)
        return QString::number(tensor.data<int64_t>()[static_cast<size_t>(index)]);
    if (t == DataType::UInt64)
        return QString::number(tensor.data<uint64_t>()[static_cast<size_t>(index)]);
    if (isComplex(t)) {
        if (t == DataType::Complex64) {
            auto c = tensor.data<Complex64>()[static_cast<size_t>(index)];
            return QStringLiteral("%1%2%3i")
                .arg(c.real(), 0, 'g', 6)
                .arg(c.imag() < 0 ? QString() : QStringLiteral("+"))
                .arg(c.imag(), 0, 'g', 6);
        }
        auto c = tensor.data<Complex128>()[static_cast<size_t>(index)];
        return QStringLiteral("%1%2%3i")
            .arg(c.real(), 0, 'g', 8)
            .arg(c.imag() < 0 ? QString() : QStringLiteral("+"))
            .arg(c.imag(), 0, 'g', 8);
    }
    const double v = tensor.toDouble(index);
    if (isInteger(t) || isNarrowInteger(t))
        return QString::number(static_cast<long long>(v));
    if (std::isnan(v))
        return QStringLiteral("NaN");
    if (std::isinf(v))
        return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    return QString::number(v, 'g', t == DataType::Double ? 10 : 6);
}

QString formatTensorValues(const Tensor& tensor, int maxElements)
{
    if (!tensor.defined())
        return {};
    if (tensor.rank() == 0)
        return formatElement(tensor, 0);
    QStringList parts;
    const int64_t n = std::min<int64_t>(tensor.size(), maxElements);
    for (int64_t i = 0; i < n; ++i)
        parts << formatElement(tensor, i);
    if (tensor.size() > n)
        parts << QString(QChar(0x2026));
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

QString elementCountText(int64_t count)
{
    return count == 1 ? QStringLiteral("1 element") : QStringLiteral("%1 elements").arg(count);
}

int elementColumnWidth(const Tensor& tensor, const QFontMetrics& metrics, int minimum)
{
    constexpr int kPadding = 14, kMaximum = 320;
    constexpr int64_t kSamples = 4096;
    const int64_t n = tensor.size(), step = std::max<int64_t>(1, n / kSamples);
    int width = minimum;
    for (int64_t i = 0; i < n && width < kMaximum; i += step)
        width = std::max(width, metrics.horizontalAdvance(formatElement(tensor, i)) + kPadding);
    return std::min(width, kMaximum);
}

QString formatBytes(uint64_t bytes)
{
    return QString::fromStdString(formatByteCount(bytes));
}

std::optional<uint64_t> parseBytes(const QString& text)
{
    return parseByteSize(text.toStdString());
}

} // namespace onnxscope
