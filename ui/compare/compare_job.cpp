// SPDX-License-Identifier: MIT
#include "ui/compare/compare_job.h"

#include "engine/core/cast.h"
#include "engine/io/input_reader.h"
#include "engine/model/model.h"

#include <QFileInfo>
#include <QFutureWatcher>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMetaObject>
#include <QtConcurrent>

#include <chrono>

namespace onnxscope {

namespace {

std::string inputsText(const Graph& graph)
{
    std::string text;
    for (ValueId id : graph.requiredInputs())
        text += (text.empty() ? "\"" : ", \"") + graph.value(id).name + "\"";
    return text.empty() ? std::string("none") : text;
}

/// Side B's value for an input it declares with another floating-point type than side A gave (fp32 vs fp16), as
/// `onnxscope-cli compare` converts it.
Value convertFor(const Value& value, const ValueType& declared)
{
    if (value.isTensor() && declared.kind == Value::Kind::Tensor && declared.elementType != DataType::Undefined
        && value.tensor().dtype() != declared.elementType && isFloatingPoint(value.tensor().dtype())
        && isFloatingPoint(declared.elementType))
        return Value(castTensor(value.tensor(), declared.elementType));
    return value;
}

/// Side B's inputs: files first, then side A's values for the inputs no file gives.
std::map<std::string, Value> inputsForB(
    const CompareRequest& request, const Graph& graphB, const std::map<std::string, Value>& inputsA)
{
    std::map<std::string, Value> inputs;
    if (request.randomInputsB)
        inputs = request.randomInputsB();
    for (const auto& [name, file] : request.inputFilesB) {
        const std::filesystem::path path = file.toStdString();
        check(QFileInfo::exists(file), "side B input file \"" + file.toStdString() + "\" does not exist");
        if (name.isEmpty()) {
            check(file.endsWith(QStringLiteral(".npz"), Qt::CaseInsensitive),
                "side B inputs: \"" + file.toStdString()
                    + "\" must be an .npz whose arrays are named after the inputs");
            for (auto& [key, value] : readInputArchive(path)) {
                const ValueId id = graphB.findValue(key);
                check(id != kNoValue && graphB.value(id).source == ValueInfo::Source::Input,
                    "side B inputs: \"" + file.toStdString() + "\" has an array \"" + key
                        + "\" but the model has no such input; its inputs are: " + inputsText(graphB));
                inputs[key] = std::move(value);
            }
            continue;
        }
        const std::string input = name.toStdString();
        const ValueId id = graphB.findValue(input);
        check(id != kNoValue && graphB.value(id).source == ValueInfo::Source::Input,
            "side B has no input \"" + input + "\"; its inputs are: " + inputsText(graphB));
        inputs[input] = readInputValue(input, path, &graphB.value(id).type);
    }
    // By name; when no name is shared and both declare as many inputs (a re-exported model), by position.
    const Graph& graphA = request.modelA->graph();
    bool anyShared = false;
    for (ValueId id : graphB.inputs())
        anyShared = anyShared || inputsA.count(graphB.value(id).name) > 0;
    bool byPosition = !anyShared && graphA.inputs().size() == graphB.inputs().size();
    for (size_t k = 0; byPosition && k < graphB.inputs().size(); ++k) {
        const ValueInfo& v = graphB.value(graphB.inputs()[k]);
        const auto it = inputsA.find(graphA.value(graphA.inputs()[k]).name);
        try {
            byPosition = it != inputsA.end();
            if (byPosition)
                v.type.checkValue(convertFor(it->second, v.type), v.name); // only when every input fits
        } catch (const Error&) {
            byPosition = false;
        }
    }
    for (size_t k = 0; k < graphB.inputs().size(); ++k) {
        const ValueInfo& v = graphB.value(graphB.inputs()[k]);
        if (inputs.count(v.name))
            continue;
        const auto it = inputsA.find(byPosition ? graphA.value(graphA.inputs()[k]).name : v.name);
        if (it != inputsA.end())
            inputs[v.name] = convertFor(it->second, v.type);
    }
    std::string missing;
    for (ValueId id : graphB.requiredInputs())
        if (!inputs.count(graphB.value(id).name) && graphB.value(id).type.kind != Value::Kind::Optional)
            missing += (missing.empty() ? "\"" : ", \"") + graphB.value(id).name + "\"";
    check(missing.empty(),
        "side B needs input " + missing
            + ", which side A does not have: give it a file under \"Inputs of side B\" in the Compare dialog");
    return inputs;
}

/// Captures one value of one frame as a session produces it.
class CaptureObserver : public SessionObserver {
public:
    CaptureObserver(std::string framePath, std::string name)
        : m_framePath(std::move(framePath))
        , m_name(std::move(name))
    {
    }
    void afterNode(const NodeEvent& e) override
    {
        if (m_done || e.framePath != m_framePath)
            return;
        const Graph& g = e.frame.graph();
        for (size_t i = 0; i < e.outputs.size() && i < e.node.outputs.size(); ++i)
            if (e.node.outputs[i] != kNoValue && g.value(e.node.outputs[i]).name == m_name) {
                m_value = e.outputs[i];
                m_done = true;
                return;
            }
    }
    bool done() const { return m_done; }
    const Value& value() const { return m_value; }

private:
    std::string m_framePath, m_name;
    Value m_value;
    bool m_done = false;
};

/// Runs `side` until it produces (frame path, name); graph inputs and initializers are read after start().
Value produce(const RunSide& side, const SessionOptions& options, const std::string& framePath, const std::string& name,
    ValueOrigin origin, const std::atomic<bool>* cancel)
{
    Session session(side.program, options);
    CaptureObserver capture(framePath, name);
    session.addObserver(&capture);
    session.start(side.inputs);
    if (origin != ValueOrigin::NodeOutput) {
        const Graph& g = side.program->model().graph();
        const ValueId id = g.findValue(name);
        check(id != kNoValue, "\"" + name + "\" is not a value of " + side.program->model().displayName());
        return session.frame(0).values.at(static_cast<size_t>(id));
    }
    while (!capture.done() && session.state() == Session::State::Running) {
        check(!(cancel && cancel->load()), "cancelled");
        session.advance();
    }
    check(capture.done(), "\"" + name + "\" at " + framePath + " was not produced by " + side.description);
    return capture.value();
}

} // namespace

int64_t CompareSession::rowOf(const std::string& framePath, const std::string& name) const
{
    const auto it = rowIndex.find({ framePath, name });
    return it == rowIndex.end() ? -1 : static_cast<int64_t>(it->second);
}

CompareSessionPtr runCompareRequest(
    const CompareRequest& request, const std::atomic<bool>* cancel, std::function<void(uint64_t)> progress)
{
    const auto started = std::chrono::steady_clock::now();
    check(request.modelA != nullptr, "compare: no model is open");
    auto session = std::make_shared<CompareSession>();
    session->kind = request.kind;
    session->descriptionA = request.descriptionA;
    session->options.tolerance = request.tolerance;
    session->options.nameMap = request.nameMap;
    session->options.compareInitializers = request.compareInitializers;
    if (request.kind == CompareRequest::Kind::Model)
        session->options.align = request.align;
    session->threadPool = request.threadPool;
    session->options.sessionOptions.threadPool = request.threadPool.get();
    session->options.cancel = cancel;
    session->options.progress = std::move(progress);

    RunSide& a = session->a;
    a.program = std::make_shared<Program>(request.modelA);
    a.description = request.descriptionA.toStdString();
    try {
        a.inputs = request.inputsA ? request.inputsA() : std::map<std::string, Value> {};
    } catch (const std::exception& e) {
        throw Error(std::string("side A inputs (Inputs dock): ") + e.what());
    }

    switch (request.kind) {
    case CompareRequest::Kind::Model: {
        check(!request.modelB.isEmpty(), "choose the model of side B");
        check(QFileInfo::exists(request.modelB), "side B: \"" + request.modelB.toStdString() + "\" does not exist");
        std::shared_ptr<const Model> modelB = Model::load(request.modelB.toStdString());
        RunSide b;
        b.program = std::make_shared<Program>(modelB);
        b.description = request.modelB.toStdString();
        b.inputs = inputsForB(request, modelB->graph(), a.inputs);
        session->b = std::move(b);
        session->descriptionB = request.modelB;
        break;
    }
    case CompareRequest::Kind::OtherInputs: {
        RunSide b;
        b.program = a.program;
        b.inputs = inputsForB(request, request.modelA->graph(), a.inputs);
        QStringList given;
        for (const auto& [name, file] : request.inputFilesB)
            given << (name.isEmpty() ? QFileInfo(file).fileName()
                                     : name + QLatin1Char('=') + QFileInfo(file).fileName());
        if (!request.randomDescription.isEmpty())
            given.prepend(request.randomDescription);
        session->descriptionB
            = QStringLiteral("%1 with other inputs (%2)")
                  .arg(QFileInfo(request.descriptionA).fileName(),
                      given.isEmpty() ? QStringLiteral("same as A") : given.join(QStringLiteral(", ")));
        b.description = session->descriptionB.toStdString();
        session->b = std::move(b);
        break;
    }
    case CompareRequest::Kind::Reference: {
        check(!request.reference.isEmpty(), "choose the reference folder or .npz of side B");
        check(QFileInfo::exists(request.reference),
            "reference \"" + request.reference.toStdString() + "\" does not exist");
        session->reference = std::make_shared<ReferenceValues>(ReferenceValues::load(request.reference.toStdString()));
        session->descriptionB = QString::fromStdString(session->reference->description());
        break;
    }
    }

    if (session->b) {
        session->result = compareRuns(a, *session->b, session->options);
    } else if (request.byModule) {
        auto modules = std::make_shared<ModuleComparisonResult>(
            compareModulesWithReference(a, *session->reference, session->options));
        session->result = moduleComparisonAsValues(*modules);
        session->modules = std::move(modules);
    } else {
        session->result = compareWithReference(a, *session->reference, session->options);
    }
    session->options.cancel = nullptr;
    session->options.progress = {};
    for (size_t i = 0; i < session->result.rows.size(); ++i) {
        const CompareRow& row = session->result.rows[i];
        if (row.status != CompareStatus::OnlyB)
            session->rowIndex.try_emplace({ row.framePath, row.name }, i);
    }
    session->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return session;
}

ValuePair fetchPair(const CompareSession& session, size_t index, const std::atomic<bool>* cancel)
{
    check(index < session.result.rows.size(), "no such comparison row");
    const CompareRow& row = session.result.rows[index];
    const SessionOptions& options = session.options.sessionOptions;
    ValuePair pair;
    if (row.status != CompareStatus::OnlyB)
        pair.a = produce(session.a, options, row.framePath, row.name, row.origin, cancel);
    if (row.status == CompareStatus::OnlyA)
        return pair;
    const std::string nameB = row.status == CompareStatus::OnlyB ? row.name : row.nameB;
    if (session.reference) {
        const int64_t entry = session.reference->find(row.framePath, nameB);
        check(entry >= 0, "the reference has no value \"" + nameB + "\" at " + row.framePath);
        pair.b = session.reference->read(static_cast<size_t>(entry));
    } else if (session.b) {
        const std::string& frameB
            = row.status == CompareStatus::OnlyB || row.frameB.empty() ? row.framePath : row.frameB;
        pair.b = produce(*session.b, options, frameB, nameB, row.origin, cancel);
    }
    return pair;
}

std::map<std::string, std::string> parseNameMap(const QString& text)
{
    std::map<std::string, std::string> map;
    const QString trimmed = text.trimmed();
    if (trimmed.startsWith(QLatin1Char('{'))) {
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(trimmed.toUtf8(), &error);
        check(error.error == QJsonParseError::NoError && doc.isObject(),
            "name mapping: not a JSON object of names: " + error.errorString().toStdString());
        const QJsonObject object = doc.object();
        for (auto it = object.begin(); it != object.end(); ++it) {
            check(
                it.value().isString(), "name mapping: the value of \"" + it.key().toStdString() + "\" is not a string");
            map[it.key().toStdString()] = it.value().toString().toStdString();
        }
        return map;
    }
    const QStringList lines = text.split(QLatin1Char('\n'));
    for (int i = 0; i < lines.size(); ++i) {
        QString line = lines[i];
        const int hash = line.indexOf(QLatin1Char('#'));
        if (hash >= 0)
            line.truncate(hash);
        line = line.trimmed();
        if (line.isEmpty())
            continue;
        QStringList parts;
        for (QChar separator : { QLatin1Char('='), QLatin1Char(','), QLatin1Char('\t'), QLatin1Char(' ') }) {
            const int at = line.indexOf(separator);
            if (at > 0) {
                parts = { line.left(at).trimmed(), line.mid(at + 1).trimmed() };
                break;
            }
        }
        check(parts.size() == 2 && !parts[0].isEmpty() && !parts[1].isEmpty() && !parts[1].contains(QLatin1Char(' ')),
            "name mapping, line " + std::to_string(i + 1) + ": expected NAME_A=NAME_B, got \"" + line.toStdString()
                + "\"");
        map[parts[0].toStdString()] = parts[1].toStdString();
    }
    return map;
}

CompareController::CompareController(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<CompareSessionPtr>();
    qRegisterMetaType<Value>();
}

CompareController::~CompareController()
{
    // Workers own copies of everything they read; stopping them only keeps the application's exit prompt.
    if (m_cancel)
        m_cancel->store(true);
    if (m_fetchCancel)
        m_fetchCancel->store(true);
    for (auto* watcher : findChildren<QFutureWatcherBase*>())
        watcher->waitForFinished();
}

bool CompareController::start(CompareRequest request)
{
    if (m_running)
        return false;
    m_running = true;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    auto cancel = m_cancel;
    QPointer<CompareController> self(this);
    auto* watcher = new QFutureWatcher<CompareSessionPtr>(this);
    auto error = std::make_shared<QString>();
    connect(watcher, &QFutureWatcher<CompareSessionPtr>::finished, this, [this, watcher, error] {
        watcher->deleteLater();
        m_running = false;
        const CompareSessionPtr session = watcher->result();
        if (session)
            emit finished(session);
        else
            emit failed(*error);
    });
    emit started();
    watcher->setFuture(QtConcurrent::run([request = std::move(request), cancel, self, error]() -> CompareSessionPtr {
        try {
            return runCompareRequest(request, cancel.get(), [self](uint64_t done) {
                QMetaObject::invokeMethod(
                    self.data(),
                    [self, done] {
                        if (self)
                            emit self->progress(static_cast<qint64>(done));
                    },
                    Qt::QueuedConnection);
            });
        } catch (const std::exception& e) {
            *error = QString::fromStdString(e.what());
        } catch (...) {
            *error = QStringLiteral("the comparison failed");
        }
        return nullptr;
    }));
    return true;
}

void CompareController::cancel()
{
    if (m_cancel)
        m_cancel->store(true);
}

void CompareController::requestPair(CompareSessionPtr session, size_t row)
{
    if (m_fetchCancel)
        m_fetchCancel->store(true);
    m_fetchCancel = std::make_shared<std::atomic<bool>>(false);
    auto cancel = m_fetchCancel;
    const quint64 generation = ++m_fetchGeneration;
    m_fetching = true;
    struct Outcome {
        ValuePair pair;
        QString error;
    };
    auto* watcher = new QFutureWatcher<Outcome>(this);
    connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher, generation, session, row] {
        watcher->deleteLater();
        if (generation != m_fetchGeneration)
            return;
        m_fetching = false;
        const Outcome o = watcher->result();
        if (o.error.isEmpty())
            emit pairFetched(session, static_cast<qint64>(row), o.pair.a, o.pair.b);
        else
            emit pairFailed(static_cast<qint64>(row), o.error);
    });
    watcher->setFuture(QtConcurrent::run([session, row, cancel]() -> Outcome {
        Outcome o;
        try {
            o.pair = fetchPair(*session, row, cancel.get());
        } catch (const std::exception& e) {
            o.error = QString::fromStdString(e.what());
        }
        return o;
    }));
}

} // namespace onnxscope
