// SPDX-License-Identifier: MIT
#include "ui/common/input_spec.h"

#include "engine/core/cast.h"
#include "engine/io/input_reader.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

#include <random>

namespace onnxscope {

QString inputSourceName(InputSpec::Source source)
{
    switch (source) {
    case InputSpec::Source::Zeros:
        return QStringLiteral("Zeros");
    case InputSpec::Source::Ones:
        return QStringLiteral("Ones");
    case InputSpec::Source::Constant:
        return QStringLiteral("Constant");
    case InputSpec::Source::Uniform:
        return QStringLiteral("Uniform random");
    case InputSpec::Source::Normal:
        return QStringLiteral("Normal random");
    case InputSpec::Source::Range:
        return QStringLiteral("Range 0, 1, 2, \u2026");
    case InputSpec::Source::File:
        return QStringLiteral("File (.npy / .pb)");
    case InputSpec::Source::Typed:
        return QStringLiteral("Typed values");
    }
    return {};
}

QString dimKey(const QString& input, size_t axis, const Dim& dim)
{
    if (dim.known())
        return {};
    if (!dim.symbol.empty())
        return QString::fromStdString(dim.symbol);
    return QStringLiteral("%1[%2]").arg(input).arg(axis);
}

Shape resolveShape(const QString& input, const ValueType& type, const DimValues& dims)
{
    Shape shape;
    if (!type.hasShape)
        return { 1 };
    for (size_t axis = 0; axis < type.shape.size(); ++axis) {
        const Dim& d = type.shape[axis];
        if (d.known()) {
            shape.push_back(d.value);
            continue;
        }
        auto it = dims.find(dimKey(input, axis, d));
        shape.push_back(it == dims.end() ? 1 : it->second);
    }
    return shape;
}

Tensor readTensorFile(const QString& path)
{
    return readTensorFile(std::filesystem::path(path.toStdString()));
}

namespace {

QStringList typedTokens(const QString& text, bool strings)
{
    const QString trimmed = text.trimmed();
    if (strings) {
        if (trimmed.startsWith(QLatin1Char('['))) {
            QJsonParseError error;
            const QJsonDocument doc = QJsonDocument::fromJson(trimmed.toUtf8(), &error);
            check(error.error == QJsonParseError::NoError && doc.isArray(),
                "typed values: not a valid JSON array of strings: " + error.errorString().toStdString());
            QStringList out;
            std::function<void(const QJsonArray&)> flatten = [&](const QJsonArray& a) {
                for (const auto& v : a) {
                    if (v.isArray())
                        flatten(v.toArray());
                    else
                        out << (v.isString() ? v.toString() : v.toVariant().toString());
                }
            };
            flatten(doc.array());
            return out;
        }
        return trimmed.isEmpty() ? QStringList() : trimmed.split(QLatin1Char('\n'));
    }
    QString cleaned = trimmed;
    cleaned.replace(QRegularExpression(QStringLiteral("[\\[\\](){};,]")), QStringLiteral(" "));
    return cleaned.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts);
}

} // namespace

Tensor parseTypedValues(const QString& text, DataType dtype, const Shape& shape)
{
    QStringList tokens = typedTokens(text, dtype == DataType::String);
    Shape s = shape;
    if (s.size() == 1 && s[0] < 0)
        s[0] = tokens.size();
    int64_t expected = 1;
    for (int64_t d : s)
        expected *= d;
    // One value for a whole tensor fills it, as numpy broadcasts a scalar.
    if (tokens.size() == 1 && expected != 1)
        tokens = QStringList(static_cast<qsizetype>(expected), tokens.front());
    if (tokens.size() != expected)
        throw Error("typed values: expected " + std::to_string(expected) + " values for shape " + shapeToString(s)
            + ", got " + std::to_string(tokens.size()));
    Tensor strings(DataType::String, s);
    auto out = strings.data<std::string>();
    for (qsizetype i = 0; i < tokens.size(); ++i)
        out[static_cast<size_t>(i)] = tokens[i].toStdString();
    if (dtype == DataType::String)
        return strings;
    try {
        return castTensor(strings, dtype);
    } catch (const Error& e) {
        throw Error(std::string("typed values: ") + e.what());
    }
}

Tensor buildInputTensor(const QString& input, const InputSpec& spec, const ValueType& type, const DimValues& dims)
{
    const DataType dtype = type.elementType == DataType::Undefined ? DataType::Float : type.elementType;
    const std::string where = "input \"" + input.toStdString() + "\": ";
    Shape shape = resolveShape(input, type, dims);
    for (int64_t d : shape)
        if (d < 0)
            throw Error(where + "dimension values must be >= 0");
    Tensor result;
    try {
        switch (spec.source) {
        case InputSpec::Source::File:
            result = spec.fileTensor.defined() ? spec.fileTensor : readTensorFile(spec.filePath);
            break;
        case InputSpec::Source::Typed: {
            Shape typedShape = shape;
            // A 1-D input with a free dimension takes as many values as were typed.
            if (type.hasShape && type.shape.size() == 1 && !type.shape[0].known())
                typedShape[0] = -1;
            result = parseTypedValues(spec.text, dtype, typedShape);
            break;
        }
        case InputSpec::Source::Zeros:
            result = Tensor(dtype, shape);
            break;
        default: {
            if (dtype == DataType::String) {
                Tensor t(DataType::String, shape);
                if (spec.source != InputSpec::Source::Zeros)
                    for (auto& s : t.data<std::string>())
                        s = spec.source == InputSpec::Source::Constant ? QString::number(spec.constant).toStdString()
                                                                       : "1";
                result = t;
                break;
            }
            Tensor values(DataType::Double, shape);
            auto v = values.data<double>();
            std::mt19937_64 rng(spec.seed);
            switch (spec.source) {
            case InputSpec::Source::Ones:
                std::fill(v.begin(), v.end(), 1.0);
                break;
            case InputSpec::Source::Constant:
                std::fill(v.begin(), v.end(), spec.constant);
                break;
            case InputSpec::Source::Uniform: {
                std::uniform_real_distribution<double> dist(spec.low, spec.high);
                for (double& x : v)
                    x = dist(rng);
                break;
            }
            case InputSpec::Source::Normal: {
                std::normal_distribution<double> dist(spec.mean, spec.stddev);
                for (double& x : v)
                    x = dist(rng);
                break;
            }
            case InputSpec::Source::Range:
                for (size_t i = 0; i < v.size(); ++i)
                    v[i] = spec.rangeStart + spec.rangeStep * static_cast<double>(i);
                break;
            default:
                break;
            }
            if (isInteger(dtype)
                && (spec.source == InputSpec::Source::Uniform || spec.source == InputSpec::Source::Normal))
                for (double& x : v)
                    x = std::floor(x);
            result = castTensor(values, dtype);
            break;
        }
        }
    } catch (const Error& e) {
        const std::string message = e.what();
        throw Error(message.rfind(where, 0) == 0 ? message : where + message);
    }
    if (type.kind == Value::Kind::Tensor || type.kind == Value::Kind::None) {
        ValueType declared = type;
        declared.kind = Value::Kind::Tensor;
        if (declared.elementType == DataType::Undefined)
            declared.elementType = result.dtype();
        declared.checkValue(result, input.toStdString());
    }
    return result;
}

} // namespace onnxscope
