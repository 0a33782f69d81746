// SPDX-License-Identifier: MIT
#include "ui/nodeinspector/inspector_content.h"

#include "engine/model/op_schema.h"
#include "engine/model/torch_origin.h"
#include "ui/common/model_document.h"
#include "ui/common/tensor_format.h"

#include <QFileInfo>

#include <map>

namespace onnxscope {

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

QString joinNumbers(const auto& values, int limit = 32)
{
    QStringList parts;
    int i = 0;
    for (const auto& v : values) {
        if (i++ == limit) {
            parts << QString(QChar(0x2026));
            break;
        }
        parts << QString::number(v);
    }
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

QString tensorSummary(DataType dtype, const Shape& shape)
{
    const auto name = dataTypeName(dtype);
    return QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size())) + QStringLiteral(" \u27e8")
        + formatShape(shape) + QStringLiteral("\u27e9");
}

PropertyRow attributeRow(const Node& node, const Attribute& attr, ExternalDataStore* external)
{
    PropertyRow row;
    row.name = qs(attr.name());
    using A = AttributeType;
    switch (attr.type()) {
    case A::Float:
        row.value = QString::number(attr.floatValue(), 'g', 7);
        row.detail = QStringLiteral("float");
        break;
    case A::Int:
        row.value = QString::number(attr.intValue());
        row.detail = QStringLiteral("int");
        break;
    case A::String: {
        const std::string& s = attr.stringValue();
        row.value = QStringLiteral("\"%1\"").arg(QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())));
        row.detail = QStringLiteral("string");
        break;
    }
    case A::Floats:
        row.value = joinNumbers(attr.floats());
        row.detail = QStringLiteral("floats");
        break;
    case A::Ints:
        row.value = joinNumbers(attr.ints());
        row.detail = QStringLiteral("ints");
        break;
    case A::Strings: {
        QStringList parts;
        for (const auto& s : attr.strings())
            parts << QStringLiteral("\"%1\"").arg(qs(s));
        row.value = QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
        row.detail = QStringLiteral("strings");
        break;
    }
    case A::Tensor: {
        const QString summary = tensorSummary(attr.tensorType(), attr.tensorShape());
        row.detail = QStringLiteral("tensor");
        row.value = summary;
        try {
            const Tensor t = attr.tensor(external);
            if (t.size() <= 16)
                row.value = formatTensorValues(t, 16) + QStringLiteral("  ") + summary;
        } catch (const std::exception& e) {
            row.toolTip = qs(e.what());
        }
        row.tensor = [attr, external] { return attr.tensor(external); };
        row.tensorTitle = QStringLiteral("%1.%2").arg(qs(node.displayName()), row.name);
        break;
    }
    case A::Graph: {
        const Graph* graph = attr.graph();
        row.detail = QStringLiteral("graph");
        row.value = QStringLiteral("%1 (%2 nodes)")
                        .arg(graph ? qs(graph->name()) : QString())
                        .arg(graph ? graph->nodes().size() : 0);
        break;
    }
    case A::Graphs:
        row.detail = QStringLiteral("graphs");
        row.value = QStringLiteral("%1 graphs").arg(attr.graphs().size());
        break;
    case A::Tensors:
        row.detail = QStringLiteral("tensors");
        row.value = QStringLiteral("%1 tensors").arg(attr.tensorCount());
        break;
    case A::SparseTensor:
        row.detail = QStringLiteral("sparse tensor");
        row.value = joinNumbers(attr.sparseTensorShape());
        break;
    case A::Type:
        row.detail = QStringLiteral("type");
        row.value = qs(attr.typeValue().toString());
        break;
    default:
        row.detail = QStringLiteral("?");
        row.value = !attr.refAttrName().empty() ? QStringLiteral("ref %1").arg(qs(attr.refAttrName()))
                                                : QStringLiteral("(unsupported)");
        break;
    }
    if (!attr.refAttrName().empty())
        row.detail += QStringLiteral(" (ref %1)").arg(qs(attr.refAttrName()));
    return row;
}

QString typeText(const Graph& graph, ValueId v, const ModelDocument* document)
{
    return qs((document ? document->valueType(graph, v) : graph.value(v).type).toString());
}

PropertyRow valueRow(const Graph& graph, ValueId v, const QString& port, const ModelDocument* document)
{
    PropertyRow row;
    row.name = port;
    if (v == kNoValue) {
        row.value = QStringLiteral("(omitted)");
        return row;
    }
    const ValueInfo& info = graph.value(v);
    row.value = qs(info.name);
    row.detail = typeText(graph, v, document);
    row.valueRef = v;
    if (info.hasInitializer()) {
        const ValueInfo* value = &info;
        const Model* model = graph.model();
        row.tensor = [value, model] { return value->initializerTensor(model ? &model->externalData() : nullptr); };
        row.tensorTitle = qs(info.name);
        row.toolTip = QStringLiteral("Initializer \u2014 double-click to view");
    }
    return row;
}

const char* sourceName(ValueInfo::Source source)
{
    switch (source) {
    case ValueInfo::Source::Input:
        return "graph input";
    case ValueInfo::Source::Initializer:
        return "initializer";
    case ValueInfo::Source::NodeOutput:
        return "node output";
    case ValueInfo::Source::OuterScope:
        return "outer scope";
    }
    return "";
}

PropertyRow textRow(const QString& name, const QString& value, const QString& detail = {}, const QString& tip = {})
{
    PropertyRow row;
    row.name = name;
    row.value = value;
    row.detail = detail;
    row.toolTip = tip;
    return row;
}

} // namespace

PropertySection describeTorchOrigin(const Node& node)
{
    PropertySection section { QStringLiteral("PyTorch"), {} };
    const TorchOrigin origin = torchOrigin(node);
    if (!origin.present)
        return section;
    if (!origin.error.empty())
        section.rows.push_back(
            textRow(QStringLiteral("metadata"), QStringLiteral("does not parse"), {}, qs(origin.error)));
    if (origin.hasModules) {
        const QString path = qs(origin.modulePath());
        PropertyRow module = textRow(QStringLiteral("module"), path.isEmpty() ? QStringLiteral("(root module)") : path,
            qs(origin.modules.empty() ? std::string() : origin.modules.back().shortClassName()),
            qs(origin.moduleClass()));
        module.copyText = path;
        section.rows.push_back(module);
        QStringList classes, full;
        for (const TorchModule& m : origin.modules) {
            classes << qs(m.shortClassName());
            full << qs(m.path.empty() ? m.className : m.path + " \u00b7 " + m.className);
        }
        PropertyRow hierarchy = textRow(QStringLiteral("class hierarchy"), classes.join(QStringLiteral(" \u203a ")), {},
            full.join(QLatin1Char('\n')));
        QStringList copy;
        for (const TorchModule& m : origin.modules)
            copy << qs(m.className);
        if (!origin.fxTarget.empty())
            copy << qs(origin.fxTarget);
        hierarchy.copyText = copy.join(QLatin1Char('\n'));
        section.rows.push_back(hierarchy);
    }
    if (!origin.fxNode.empty() || !origin.fxName.empty()) {
        PropertyRow fx = textRow(QStringLiteral("FX node"), qs(origin.fxName.empty() ? origin.fxNode : origin.fxName),
            qs(origin.fxTarget), qs(origin.fxNode));
        fx.copyText = qs(origin.fxNode.empty() ? origin.fxName : origin.fxNode);
        section.rows.push_back(fx);
    }
    // Innermost frame first: the line that made the node, then its callers.
    for (auto it = origin.frames.rbegin(); it != origin.frames.rend(); ++it) {
        const QString file = qs(it->file);
        const QString location = QStringLiteral("%1:%2").arg(QFileInfo(file).fileName()).arg(it->line);
        PropertyRow frame
            = textRow(it == origin.frames.rbegin() ? QStringLiteral("source") : QStringLiteral("called from"), location,
                qs(it->function),
                QStringLiteral("%1:%2\n%3\nDouble-click to open it in your editor")
                    .arg(file)
                    .arg(it->line)
                    .arg(qs(it->code)));
        frame.copyText = QStringLiteral("%1:%2").arg(file).arg(it->line);
        frame.sourceFile = file;
        frame.sourceLine = it->line;
        section.rows.push_back(frame);
    }
    if (origin.frames.empty() && !origin.stackTrace.empty()) {
        PropertyRow trace
            = textRow(QStringLiteral("stack trace"), qs(origin.stackTrace).simplified(), {}, qs(origin.stackTrace));
        trace.copyText = qs(origin.stackTrace);
        section.rows.push_back(trace);
    }
    return section;
}

std::vector<PropertySection> describeNode(const Graph& graph, NodeId id, const ModelDocument* document)
{
    std::vector<PropertySection> sections;
    if (id < 0 || static_cast<size_t>(id) >= graph.nodes().size())
        return sections;
    const Node& node = graph.node(id);
    const OpSchemaInfo& schema = lookupOpSchema(node.opType, node.domain, node.opset);
    PropertySection info { QStringLiteral("Node"), {} };
    info.rows.push_back({ QStringLiteral("name"), node.name.empty() ? QStringLiteral("(unnamed)") : qs(node.name), {},
        {}, {}, {}, kNoValue, -1 });
    info.rows.push_back({ QStringLiteral("op type"), qs(node.opType), qs(schema.support), {}, {}, {}, kNoValue, -1 });
    info.rows.push_back({ QStringLiteral("domain"),
        node.domain.empty() ? QStringLiteral("ai.onnx (default)") : qs(node.domain), {}, {}, {}, {}, kNoValue, -1 });
    QString version = QStringLiteral("opset %1").arg(node.opset);
    if (schema.known)
        version += QStringLiteral(" \u2192 %1-%2").arg(qs(node.opType)).arg(schema.sinceVersion);
    else
        version += QStringLiteral(" (not in onnx's schema registry)");
    info.rows.push_back({ QStringLiteral("version"), version, {}, {}, {}, {}, kNoValue, -1 });
    if (!node.docString().empty())
        info.rows.push_back(
            { QStringLiteral("doc string"), qs(node.docString()), {}, qs(node.docString()), {}, {}, kNoValue, -1 });
    sections.push_back(std::move(info));
    if (PropertySection torch = describeTorchOrigin(node); !torch.rows.empty())
        sections.push_back(std::move(torch));

    PropertySection attributes { QStringLiteral("Attributes"), {} };
    ExternalDataStore* external = graph.model() ? &graph.model()->externalData() : nullptr;
    for (const Attribute& attr : node.attributeList())
        attributes.rows.push_back(attributeRow(node, attr, external));
    sections.push_back(std::move(attributes));

    PropertySection inputs { QStringLiteral("Inputs"), {} };
    for (size_t i = 0; i < node.inputs.size(); ++i) {
        QString port = qs(inputPortName(node, i));
        inputs.rows.push_back(
            valueRow(graph, node.inputs[i], port.isEmpty() ? QStringLiteral("input %1").arg(i) : port, document));
    }
    for (ValueId v : node.implicitInputs)
        inputs.rows.push_back(valueRow(graph, v, QStringLiteral("(outer scope)"), document));
    sections.push_back(std::move(inputs));

    PropertySection outputs { QStringLiteral("Outputs"), {} };
    for (size_t i = 0; i < node.outputs.size(); ++i) {
        QString port = qs(outputPortName(node, i));
        outputs.rows.push_back(
            valueRow(graph, node.outputs[i], port.isEmpty() ? QStringLiteral("output %1").arg(i) : port, document));
    }
    sections.push_back(std::move(outputs));

    if (!node.subgraphs.empty() || node.functionBody) {
        PropertySection subgraphs { QStringLiteral("Subgraphs"), {} };
        for (const auto& [name, sub] : node.subgraphs)
            subgraphs.rows.push_back({ qs(name), QStringLiteral("%1 nodes").arg(sub->nodes().size()),
                QStringLiteral("graph"), QStringLiteral("Double-click the node to open"), {}, {}, kNoValue, id });
        if (node.functionBody)
            subgraphs.rows.push_back({ QStringLiteral("function body"),
                QStringLiteral("%1 nodes").arg(node.functionBody->nodes().size()), QStringLiteral("function"),
                QStringLiteral("Double-click the node to open"), {}, {}, kNoValue, id });
        sections.push_back(std::move(subgraphs));
    }
    return sections;
}

std::vector<PropertySection> describeValue(const Graph& graph, ValueId id, const ModelDocument* document)
{
    std::vector<PropertySection> sections;
    if (id < 0 || static_cast<size_t>(id) >= graph.values().size())
        return sections;
    const ValueInfo& v = graph.value(id);
    PropertySection tensor { QStringLiteral("Tensor"), {} };
    tensor.rows.push_back({ QStringLiteral("name"), qs(v.name), {}, {}, {}, {}, kNoValue, -1 });
    const ValueType type = document ? document->valueType(graph, id) : v.type;
    tensor.rows.push_back({ QStringLiteral("type"), qs(type.toString()),
        v.type.kind != Value::Kind::None ? QStringLiteral("declared")
                                         : (type.kind != Value::Kind::None ? QStringLiteral("inferred") : QString()),
        {}, {}, {}, kNoValue, -1 });
    if (type.kind == Value::Kind::Tensor) {
        const auto name = dataTypeName(type.elementType);
        tensor.rows.push_back({ QStringLiteral("dtype"),
            QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size())), {}, {}, {}, {}, kNoValue, -1 });
        tensor.rows.push_back({ QStringLiteral("shape"), formatShape(type), {}, {}, {}, {}, kNoValue, -1 });
    }
    tensor.rows.push_back(
        { QStringLiteral("source"), QString::fromLatin1(sourceName(v.source)), {}, {}, {}, {}, kNoValue, -1 });
    sections.push_back(std::move(tensor));

    PropertySection producer { QStringLiteral("Producer"), {} };
    if (v.producer >= 0) {
        const Node& p = graph.node(v.producer);
        producer.rows.push_back({ qs(p.opType), qs(p.displayName()), {}, {}, {}, {}, kNoValue, p.id });
    } else {
        producer.rows.push_back(
            { QString::fromLatin1(sourceName(v.source)), QStringLiteral("\u2014"), {}, {}, {}, {}, kNoValue, -1 });
    }
    sections.push_back(std::move(producer));

    PropertySection consumers { QStringLiteral("Consumers"), {} };
    for (NodeId c : v.consumers) {
        const Node& n = graph.node(c);
        QString port;
        for (size_t i = 0; i < n.inputs.size(); ++i)
            if (n.inputs[i] == id)
                port = qs(inputPortName(n, i));
        consumers.rows.push_back({ qs(n.opType), qs(n.displayName()),
            port.isEmpty() ? QString() : QStringLiteral("as %1").arg(port), {}, {}, {}, kNoValue, c });
    }
    for (ValueId out : graph.outputs())
        if (out == id)
            consumers.rows.push_back({ QStringLiteral("graph output"), qs(v.name), {}, {}, {}, {}, kNoValue, -1 });
    sections.push_back(std::move(consumers));

    if (v.hasInitializer()) {
        PropertySection init { QStringLiteral("Initializer"), {} };
        PropertyRow row = valueRow(graph, id, QStringLiteral("values"), document);
        row.value = QStringLiteral("double-click to view");
        const InitializerInfo initializer = v.initializerInfo();
        if (initializer.external) {
            row.detail = initializer.location.empty() ? QStringLiteral("external data")
                                                      : QStringLiteral("external: %1").arg(qs(initializer.location));
        } else {
            try {
                int64_t count = 1;
                for (int64_t d : initializer.shape)
                    count *= d;
                if (count <= 64)
                    row.value = formatTensorValues(v.initializerTensor(), 16);
            } catch (const std::exception& e) {
                row.value = qs(e.what());
            }
        }
        init.rows.push_back(std::move(row));
        sections.push_back(std::move(init));
    }
    return sections;
}

std::vector<PropertySection> describeModel(const Model& model, const QString& path)
{
    std::vector<PropertySection> sections;
    const ModelMetadata metadata = model.metadata();
    PropertySection info { QStringLiteral("Model"), {} };
    auto add = [](PropertySection& s, const QString& name, const QString& value, const QString& detail = {}) {
        PropertyRow row;
        row.name = name;
        row.value = value;
        row.detail = detail;
        if (value.size() > 40)
            row.toolTip = value;
        s.rows.push_back(std::move(row));
    };
    add(info, QStringLiteral("file"), path.isEmpty() ? qs(model.displayName()) : QFileInfo(path).fileName(), path);
    if (!path.isEmpty())
        add(info, QStringLiteral("file size"), formatBytes(static_cast<uint64_t>(QFileInfo(path).size())));
    add(info, QStringLiteral("IR version"), QString::number(metadata.irVersion));
    add(info, QStringLiteral("producer"),
        (qs(metadata.producerName) + QLatin1Char(' ') + qs(metadata.producerVersion)).trimmed());
    if (!metadata.domain.empty())
        add(info, QStringLiteral("domain"), qs(metadata.domain));
    if (metadata.modelVersion != 0)
        add(info, QStringLiteral("model version"), QString::number(metadata.modelVersion));
    add(info, QStringLiteral("graph"), qs(model.graph().name()));
    if (!metadata.docString.empty())
        add(info, QStringLiteral("doc string"), qs(metadata.docString));
    if (!model.graph().docString().empty())
        add(info, QStringLiteral("graph doc"), qs(model.graph().docString()));
    add(info, QStringLiteral("nodes"), QString::number(model.graph().nodes().size()),
        QStringLiteral("%1 with subgraphs and functions").arg(model.graph().totalNodeCount()));
    sections.push_back(std::move(info));

    PropertySection opsets { QStringLiteral("Opsets"), {} };
    for (const auto& [domain, version] : model.opsets())
        add(opsets, domain.empty() ? QStringLiteral("ai.onnx") : qs(domain), QString::number(version));
    sections.push_back(std::move(opsets));

    if (!metadata.properties.empty()) {
        PropertySection meta { QStringLiteral("Metadata"), {} };
        for (const auto& [key, value] : metadata.properties)
            add(meta, qs(key), qs(value));
        sections.push_back(std::move(meta));
    }
    const Graph& g = model.graph();
    PropertySection inputs { QStringLiteral("Inputs"), {} };
    for (ValueId v : g.requiredInputs())
        add(inputs, qs(g.value(v).name), qs(g.value(v).type.toString()));
    sections.push_back(std::move(inputs));
    PropertySection outputs { QStringLiteral("Outputs"), {} };
    for (ValueId v : g.outputs())
        add(outputs, qs(g.value(v).name), qs(g.value(v).type.toString()));
    sections.push_back(std::move(outputs));

    PropertySection inits { QStringLiteral("Initializers"), {} };
    size_t external = 0;
    for (ValueId v : g.initializers())
        if (g.value(v).hasInitializer() && g.value(v).initializerInfo().external)
            ++external;
    add(inits, QStringLiteral("count"), QString::number(g.initializers().size()));
    add(inits, QStringLiteral("size"), formatBytes(model.initializerBytes()));
    if (external > 0)
        add(inits, QStringLiteral("external"), QStringLiteral("%1 tensors (memory-mapped on demand)").arg(external));
    sections.push_back(std::move(inits));

    if (const std::vector<FunctionInfo> modelFunctions = model.functions(); !modelFunctions.empty()) {
        PropertySection functions { QStringLiteral("Functions"), {} };
        for (const auto& f : modelFunctions) {
            // "name:overload" (IR 10); the signature, attributes, doc_string and metadata_props in the tooltip.
            add(functions, qs(f.overload.empty() ? f.name : f.name + ":" + f.overload),
                QStringLiteral("%1 nodes").arg(f.nodeCount), qs(f.domain));
            auto join = [](const std::vector<std::string>& parts) {
                QStringList out;
                for (const auto& p : parts)
                    out << qs(p);
                return out.join(QStringLiteral(", "));
            };
            QString tip = QStringLiteral("%1(%2) \u2192 (%3)").arg(qs(f.name), join(f.inputs), join(f.outputs));
            if (!f.attributes.empty())
                tip += QStringLiteral("\nattributes: ") + join(f.attributes);
            if (!f.doc.empty())
                tip += QStringLiteral("\n") + qs(f.doc);
            for (const auto& [key, value] : f.metadata)
                tip += QStringLiteral("\n%1: %2").arg(qs(key), qs(value));
            functions.rows.back().toolTip = tip;
        }
        sections.push_back(std::move(functions));
    }
    std::map<std::string, int> counts;
    std::function<void(const Graph&)> count = [&](const Graph& graph) {
        for (const Node& n : graph.nodes()) {
            counts[n.domain.empty() ? n.opType : n.domain + "." + n.opType] += 1;
            for (const auto& [name, sub] : n.subgraphs)
                count(*sub);
        }
    };
    count(g);
    std::vector<std::pair<int, std::string>> sorted;
    for (const auto& [op, n] : counts)
        sorted.emplace_back(-n, op);
    std::sort(sorted.begin(), sorted.end());
    PropertySection ops { QStringLiteral("Operators"), {} };
    for (const auto& [n, op] : sorted)
        add(ops, qs(op), QString::number(-n));
    sections.push_back(std::move(ops));
    return sections;
}

namespace {

/// Markdown with the "<", ">" and "&" of its prose escaped, so that "Tensor<T>" reads as text and not as an HTML tag
/// that hides the rest; code spans and fenced blocks keep them, since markdown shows those literally.
QString escapeMarkdownHtml(const QString& text)
{
    QString out;
    out.reserve(text.size() + 16);
    bool fenced = false;
    const QStringList lines = text.split(QLatin1Char('\n'));
    for (qsizetype l = 0; l < lines.size(); ++l) {
        const QString& line = lines[l];
        if (line.trimmed().startsWith(QStringLiteral("```"))) {
            fenced = !fenced;
            out += line;
        } else if (fenced) {
            out += line;
        } else {
            bool code = false;
            for (QChar c : line) {
                if (c == QLatin1Char('`'))
                    code = !code;
                if (!code && c == QLatin1Char('<'))
                    out += QStringLiteral("&lt;");
                else if (!code && c == QLatin1Char('>'))
                    out += QStringLiteral("&gt;");
                else if (!code && c == QLatin1Char('&'))
                    out += QStringLiteral("&amp;");
                else
                    out += c;
            }
        }
        if (l + 1 < lines.size())
            out += QLatin1Char('\n');
    }
    return out;
}

} // namespace

QString operatorDocumentationMarkdown(const Node& node)
{
    const OpSchemaInfo& schema = lookupOpSchema(node.opType, node.domain, node.opset);
    QString md = QStringLiteral("### %1\n\n").arg(qs(node.opType));
    if (!schema.known)
        return md
            + QStringLiteral(
                "*onnx's schema registry (onnx 1.12) does not know %1 in domain \u201c%2\u201d at opset %3: "
                "a custom or newer operator.*\n")
                  .arg(qs(node.opType), node.domain.empty() ? QStringLiteral("ai.onnx") : qs(node.domain))
                  .arg(node.opset);
    md += QStringLiteral("*%1 version %2%3*\n\n")
              .arg(schema.domain.empty() ? QStringLiteral("ai.onnx") : qs(schema.domain))
              .arg(schema.sinceVersion)
              .arg(schema.support.empty() ? QString() : QStringLiteral(", ") + qs(schema.support));
    md += schema.doc.empty() ? QStringLiteral("*No documentation in this build of onnx.*")
                             : escapeMarkdownHtml(qs(schema.doc));
    return md;
}

} // namespace onnxscope
