// SPDX-License-Identifier: MIT
#include "engine/model/torch_origin.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>

namespace onnxscope {

namespace {

constexpr std::string_view kNameScopes = "pkg.torch.onnx.name_scopes";
constexpr std::string_view kClassHierarchy = "pkg.torch.onnx.class_hierarchy";
constexpr std::string_view kFxNode = "pkg.torch.onnx.fx_node";
constexpr std::string_view kStackTrace = "pkg.torch.onnx.stack_trace";
constexpr std::string_view kTorchPrefix = "pkg.torch.onnx.";

void appendUtf8(std::string& out, uint32_t cp)
{
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xc0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xe0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
        out += static_cast<char>(0xf0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    }
}

bool hexValue(const std::string& s, size_t at, size_t digits, uint32_t& value)
{
    if (at + digits > s.size())
        return false;
    value = 0;
    for (size_t i = 0; i < digits; ++i) {
        const char c = s[at + i];
        if (!std::isxdigit(static_cast<unsigned char>(c)))
            return false;
        value = value * 16
            + static_cast<uint32_t>(std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return true;
}

// One Python string literal at s[i] (i at its quote); i ends past the closing quote.
bool parseStringLiteral(const std::string& s, size_t& i, std::string& out)
{
    const char quote = s[i++];
    out.clear();
    while (i < s.size()) {
        const char c = s[i++];
        if (c == quote)
            return true;
        if (c != '\\') {
            out += c;
            continue;
        }
        if (i >= s.size())
            return false;
        const char e = s[i++];
        uint32_t cp = 0;
        switch (e) {
        case 'n':
            out += '\n';
            break;
        case 't':
            out += '\t';
            break;
        case 'r':
            out += '\r';
            break;
        case '0':
            out += '\0';
            break;
        case '\\':
        case '\'':
        case '"':
            out += e;
            break;
        case 'x':
        case 'u':
        case 'U': {
            const size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
            if (!hexValue(s, i, digits, cp))
                return false;
            i += digits;
            appendUtf8(out, cp);
            break;
        }
        default:
            out += '\\';
            out += e;
        }
    }
    return false;
}

std::string trim(const std::string& s)
{
    const size_t b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos)
        return {};
    return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

} // namespace

// Hand-written: the values are Python repr() output, and no C++ library at hand reads Python literals.
bool parsePythonStringList(const std::string& text, std::vector<std::string>& items)
{
    items.clear();
    size_t i = 0;
    auto skip = [&] {
        while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
            ++i;
    };
    skip();
    if (i >= text.size() || (text[i] != '[' && text[i] != '('))
        return false;
    const char close = text[i] == '[' ? ']' : ')';
    ++i;
    skip();
    if (i < text.size() && text[i] == close) {
        ++i;
        skip();
        return i == text.size();
    }
    while (true) {
        skip();
        if (i >= text.size() || (text[i] != '\'' && text[i] != '"'))
            return false;
        std::string item;
        if (!parseStringLiteral(text, i, item))
            return false;
        items.push_back(std::move(item));
        skip();
        if (i < text.size() && text[i] == ',') {
            ++i;
            skip();
            if (i < text.size() && text[i] == close)
                break;
            continue;
        }
        if (i < text.size() && text[i] == close)
            break;
        return false;
    }
    ++i;
    skip();
    return i == text.size();
}

std::vector<SourceFrame> parsePythonStackTrace(const std::string& text)
{
    std::vector<SourceFrame> frames;
    size_t pos = 0;
    std::vector<std::string> lines;
    while (pos <= text.size()) {
        const size_t end = text.find('\n', pos);
        lines.push_back(text.substr(pos, end == std::string::npos ? std::string::npos : end - pos));
        if (end == std::string::npos)
            break;
        pos = end + 1;
    }
    for (size_t l = 0; l < lines.size(); ++l) {
        const std::string line = trim(lines[l]);
        if (line.rfind("File \"", 0) != 0)
            continue;
        const size_t close = line.find("\", line ", 6);
        if (close == std::string::npos)
            continue;
        SourceFrame frame;
        frame.file = line.substr(6, close - 6);
        size_t at = close + 8;
        size_t digits = at;
        while (digits < line.size() && std::isdigit(static_cast<unsigned char>(line[digits])))
            ++digits;
        if (digits == at)
            continue;
        frame.line = std::stoi(line.substr(at, std::min<size_t>(digits - at, 9)));
        if (const size_t in = line.find(", in ", digits); in != std::string::npos)
            frame.function = line.substr(in + 5);
        if (l + 1 < lines.size()) {
            const std::string next = trim(lines[l + 1]);
            if (!next.empty() && next.rfind("File \"", 0) != 0) {
                frame.code = next;
                ++l;
            }
        }
        frames.push_back(std::move(frame));
    }
    return frames;
}

std::string TorchModule::shortClassName() const
{
    const size_t dot = className.rfind('.');
    return dot == std::string::npos ? className : className.substr(dot + 1);
}

std::string TorchOrigin::modulePath() const
{
    return modules.empty() ? std::string() : modules.back().path;
}

std::string TorchOrigin::moduleClass() const
{
    return modules.empty() ? std::string() : modules.back().className;
}

const SourceFrame* TorchOrigin::sourceFrame() const
{
    return frames.empty() ? nullptr : &frames.back();
}

TorchOrigin torchOrigin(const Node& node)
{
    TorchOrigin origin;
    for (const auto& [key, value] : nodeMetadataProps(node))
        if (key.rfind(kTorchPrefix, 0) == 0) {
            origin.present = true;
            break;
        }
    if (!origin.present)
        return origin;
    if (const std::string* fx = nodeMetadataProp(node, kFxNode))
        origin.fxNode = *fx;
    if (const std::string* trace = nodeMetadataProp(node, kStackTrace)) {
        origin.stackTrace = *trace;
        origin.frames = parsePythonStackTrace(*trace);
    }
    const std::string* scopesText = nodeMetadataProp(node, kNameScopes);
    const std::string* classesText = nodeMetadataProp(node, kClassHierarchy);
    if (!scopesText)
        return origin;
    std::vector<std::string> scopes, classes;
    if (!parsePythonStringList(*scopesText, scopes)) {
        origin.error = std::string(kNameScopes) + ": expected a Python list of strings, got \""
            + scopesText->substr(0, 80) + (scopesText->size() > 80 ? "\u2026" : "") + "\"";
        return origin;
    }
    if (classesText && !parsePythonStringList(*classesText, classes)) {
        origin.error = std::string(kClassHierarchy) + ": expected a Python list of strings, got \""
            + classesText->substr(0, 80) + (classesText->size() > 80 ? "\u2026" : "") + "\"";
        return origin;
    }
    if (classesText && classes.size() != scopes.size()) {
        origin.error = std::string(kNameScopes) + " has " + std::to_string(scopes.size()) + " entries but "
            + std::string(kClassHierarchy) + " has " + std::to_string(classes.size());
        return origin;
    }
    if (scopes.empty()) {
        origin.error = std::string(kNameScopes) + " is an empty list";
        return origin;
    }
    // The last entry is the FX node itself; the others are the modules from the root down.
    origin.fxName = scopes.back();
    if (!classes.empty())
        origin.fxTarget = classes.back();
    for (size_t i = 0; i + 1 < scopes.size(); ++i)
        origin.modules.push_back({ scopes[i], classes.empty() ? std::string() : classes[i] });
    origin.hasModules = true;
    return origin;
}

bool hasTorchModules(const Graph& graph)
{
    for (const Node& node : graph.nodes())
        if (nodeMetadataProp(node, kNameScopes) && torchOrigin(node).hasModules)
            return true;
    return false;
}

std::vector<TorchModuleSummary> torchModules(const Graph& graph)
{
    std::vector<TorchModuleSummary> out;
    std::map<std::string, size_t> index;
    for (const Node& node : graph.nodes()) {
        if (!nodeMetadataProp(node, kNameScopes))
            continue;
        const TorchOrigin origin = torchOrigin(node);
        for (const TorchModule& m : origin.modules) {
            if (m.path.empty())
                continue;
            auto [it, added] = index.emplace(m.path, out.size());
            if (added)
                out.push_back({ m.path, m.className, 0 });
            out[it->second].nodes += 1;
        }
    }
    return out;
}

std::vector<NodeId> nodesOfTorchModule(const Graph& graph, const std::string& path)
{
    std::vector<NodeId> out;
    for (const Node& node : graph.nodes()) {
        if (!nodeMetadataProp(node, kNameScopes))
            continue;
        const TorchOrigin origin = torchOrigin(node);
        if (std::any_of(
                origin.modules.begin(), origin.modules.end(), [&](const TorchModule& m) { return m.path == path; }))
            out.push_back(node.id);
    }
    return out;
}

std::vector<Diagnostic> torchMetadataDiagnostics(const Model& model)
{
    constexpr size_t kListed = 5;
    std::vector<std::string> problems;
    size_t count = 0;
    std::function<void(const Graph&)> visit = [&](const Graph& graph) {
        for (const Node& node : graph.nodes()) {
            if (nodeMetadataProp(node, kNameScopes) || nodeMetadataProp(node, kClassHierarchy)) {
                const TorchOrigin origin = torchOrigin(node);
                if (!origin.error.empty()) {
                    if (problems.size() < kListed)
                        problems.push_back(node.label() + ": " + origin.error);
                    ++count;
                }
            }
            for (const auto& [attr, sub] : node.subgraphs)
                visit(*sub);
        }
    };
    visit(model.graph());
    if (count == 0)
        return {};
    std::string message = std::to_string(count) + (count == 1 ? " node's" : " nodes'")
        + " PyTorch metadata does not parse; " + (count == 1 ? "it keeps" : "they keep")
        + " the default grouping in the graph view:";
    for (const auto& p : problems)
        message += "\n  " + p;
    if (count > problems.size())
        message += "\n  \u2026 and " + std::to_string(count - problems.size()) + " more";
    return { Diagnostic { Diagnostic::Severity::Warning, "torch metadata", message } };
}

} // namespace onnxscope
