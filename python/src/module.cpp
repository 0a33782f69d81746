// SPDX-License-Identifier: MIT
// onnxscope._onnxscope: the engine for Python (nanobind). The typed, documented API is the pure-Python package
// around it (python/onnxscope/); this layer converts values, releases the GIL while the engine runs, and turns
// Ctrl+C and exceptions raised in Python callbacks into pauses of the engine.
#include "engine/analysis/precision_check.h"
#include "engine/analysis/quant_error.h"
#include "engine/compare/comparison_json.h"
#include "engine/compare/divergence_extract.h"
#include "engine/compare/module_comparison.h"
#include "engine/compare/run_comparison.h"
#include "engine/core/allocation_limit.h"
#include "engine/core/byte_size.h"
#include "engine/core/thread_pool.h"
#include "engine/core/version.h"
#include "engine/exec/debug/debugger.h"
#include "engine/exec/extract_case.h"
#include "engine/exec/model_diagnostics.h"
#include "engine/exec/program.h"
#include "engine/exec/session.h"
#include "engine/exec/value_condition.h"
#include "engine/model/input_roles.h"
#include "engine/model/model.h"
#include "engine/model/torch_origin.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <limits>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <unordered_map>

namespace nb = nanobind;
using namespace nb::literals;

namespace onnxscope::python {

namespace {

/// A feed the model does not accept (name, element type, rank, fixed dims): a ValueError in Python.
struct InputError : Error {
    using Error::Error;
};
/// A model with nodes the engine has no kernel for, refused before anything runs.
struct UnsupportedModelError : Error {
    using Error::Error;
};

PyObject* g_error = nullptr;
PyObject* g_inputError = nullptr;
PyObject* g_unsupportedError = nullptr;

// ---- values ----------------------------------------------------------------------------------------------------

std::optional<nb::dlpack::dtype> nativeDtype(DataType type)
{
    using C = nb::dlpack::dtype_code;
    auto make = [](C code, int bits) {
        return nb::dlpack::dtype { static_cast<uint8_t>(code), static_cast<uint8_t>(bits), 1 };
    };
    switch (type) {
    case DataType::Float:
        return make(C::Float, 32);
    case DataType::Double:
        return make(C::Float, 64);
    case DataType::Float16:
        return make(C::Float, 16);
    case DataType::Int8:
        return make(C::Int, 8);
    case DataType::Int16:
        return make(C::Int, 16);
    case DataType::Int32:
        return make(C::Int, 32);
    case DataType::Int64:
        return make(C::Int, 64);
    case DataType::UInt8:
        return make(C::UInt, 8);
    case DataType::UInt16:
        return make(C::UInt, 16);
    case DataType::UInt32:
        return make(C::UInt, 32);
    case DataType::UInt64:
        return make(C::UInt, 64);
    case DataType::Bool:
        return make(C::Bool, 8);
    case DataType::Complex64:
        return make(C::Complex, 64);
    case DataType::Complex128:
        return make(C::Complex, 128);
    default:
        return std::nullopt;
    }
}

/// The ml_dtypes type of bfloat16 and the narrow types (the same one-element-per-byte layout as the engine's).
nb::object mlDtype(DataType type)
{
    try {
        return nb::module_::import_("ml_dtypes").attr(std::string(numpyTypeName(type)).c_str());
    } catch (nb::python_error&) {
        throw Error("a " + std::string(dataTypeName(type))
            + " value needs the ml_dtypes package to become a numpy array (pip install ml_dtypes)");
    }
}

/// A tensor as a numpy array. Zero-copy: the array owns a copy of the Tensor (shared storage), so it stays valid
/// after the session, the debugger or the model are gone. `writable` arrays are the tensor's only owner (else a copy);
/// the others are read-only views of storage the engine may share.
nb::object tensorToNumpy(Tensor tensor, bool writable)
{
    if (!tensor.defined())
        return nb::none();
    const Shape& shape = tensor.shape();
    if (tensor.dtype() == DataType::String) {
        nb::list items;
        for (const std::string& s : tensor.data<std::string>())
            items.append(nb::str(s.data(), s.size()));
        nb::module_ np = nb::module_::import_("numpy");
        nb::object array = np.attr("array")(items, "dtype"_a = np.attr("object_"));
        return array.attr("reshape")(nb::cast(std::vector<int64_t>(shape.begin(), shape.end())));
    }
    if (writable && !tensor.uniquelyOwned())
        tensor = tensor.clone();
    auto* holder = new Tensor(std::move(tensor));
    nb::capsule owner(holder, [](void* p) noexcept { delete static_cast<Tensor*>(p); });
    static uint64_t empty = 0;
    void* data = holder->size() == 0 ? static_cast<void*>(&empty)
        : writable                   ? holder->mutableRaw()
                                     : const_cast<void*>(holder->raw());
    std::vector<size_t> dims(shape.begin(), shape.end());
    const auto native = nativeDtype(holder->dtype());
    const nb::dlpack::dtype dtype = native ? *native
                                           : nb::dlpack::dtype { static_cast<uint8_t>(nb::dlpack::dtype_code::UInt),
                                                 static_cast<uint8_t>(8 * elementSize(holder->dtype())), 1 };
    nb::object array;
    if (writable)
        array = nb::cast(nb::ndarray<nb::numpy>(data, dims.size(), dims.data(), owner, nullptr, dtype));
    else
        array = nb::cast(nb::ndarray<nb::numpy, nb::ro>(data, dims.size(), dims.data(), owner, nullptr, dtype));
    if (!native)
        array = array.attr("view")(mlDtype(holder->dtype()));
    return array;
}

/// Sequences become lists, maps dicts, an empty optional (or no value) None.
nb::object valueToPython(const Value& value, bool writable)
{
    switch (value.kind()) {
    case Value::Kind::None:
        return nb::none();
    case Value::Kind::Tensor:
        return tensorToNumpy(value.tensor(), writable);
    case Value::Kind::Sequence: {
        nb::list items;
        for (const Value& item : value.sequence().items)
            items.append(valueToPython(item, writable));
        return items;
    }
    case Value::Kind::Map: {
        const Map& map = value.map();
        nb::object keys = tensorToNumpy(map.keys, false).attr("tolist")();
        nb::object values = tensorToNumpy(map.values, false).attr("tolist")();
        nb::dict result;
        nb::list k(keys), v(values);
        for (size_t i = 0; i < nb::len(k) && i < nb::len(v); ++i)
            result[k[i]] = v[i];
        return result;
    }
    case Value::Kind::Optional: {
        const Value* inner = value.optionalValue();
        return inner ? valueToPython(*inner, writable) : nb::none();
    }
    }
    return nb::none();
}

using RawBytes = nb::ndarray<const uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

/// A tensor from a contiguous array's bytes (the Python side passes `array.reshape(-1).view(numpy.uint8)`).
Value makeTensor(const std::string& dtypeName, const std::vector<int64_t>& shape, RawBytes bytes)
{
    const DataType type = dataTypeFromName(dtypeName);
    if (type == DataType::Undefined || type == DataType::String)
        throw InputError("arrays of dtype " + dtypeName + " are not ONNX tensors");
    Tensor tensor = Tensor::uninitialized(type, shape);
    if (bytes.size() != tensor.byteSize())
        throw InputError("an array of shape " + shapeToString(shape) + " and dtype " + dtypeName + " has "
            + std::to_string(bytes.size()) + " bytes, expected " + std::to_string(tensor.byteSize()));
    if (tensor.byteSize())
        std::memcpy(tensor.mutableRaw(), bytes.data(), tensor.byteSize());
    return Value(std::move(tensor));
}

/// Checks a string array's shape against the allocation limit before Python lists its items (a '|S0' array of
/// billions of empty strings takes no memory in numpy).
void checkStringShape(const std::vector<int64_t>& shape)
{
    try {
        checkedTensorCount(DataType::String, shape);
    } catch (const Error& e) {
        throw InputError(e.what());
    }
}

Value makeStringTensor(const std::vector<int64_t>& shape, const std::vector<std::string>& items)
{
    Tensor tensor(DataType::String, shape);
    if (static_cast<size_t>(tensor.size()) != items.size())
        throw InputError("a string array of shape " + shapeToString(shape) + " needs " + std::to_string(tensor.size())
            + " items, got " + std::to_string(items.size()));
    auto data = tensor.data<std::string>();
    std::copy(items.begin(), items.end(), data.begin());
    return Value(std::move(tensor));
}

Value makeSequence(const std::string& elementType, const std::vector<Value>& items)
{
    Sequence sequence;
    sequence.elementType = dataTypeFromName(elementType);
    for (const Value& item : items) {
        if (!item.isTensor())
            throw InputError("a sequence input holds tensors only");
        if (sequence.elementType == DataType::Undefined)
            sequence.elementType = item.tensor().dtype();
    }
    sequence.items = items;
    return Value(std::move(sequence));
}

// ---- Ctrl+C and exceptions raised in callbacks -------------------------------------------------------------------

/// A Python exception caught while the engine ran (in a callback, or KeyboardInterrupt from Ctrl+C), raised again once
/// the engine has stopped and the GIL is held.
class PendingError {
public:
    /// With the GIL held: takes the current Python error.
    void capture()
    {
        if (m_type)
            return;
        PyErr_Fetch(&m_type, &m_value, &m_traceback);
    }
    bool pending() const { return m_type != nullptr; }
    /// With the GIL held: raises it (as nb::python_error) if there is one.
    void raiseIfPending()
    {
        if (!m_type)
            return;
        PyErr_Restore(m_type, m_value, m_traceback);
        m_type = m_value = m_traceback = nullptr;
        throw nb::python_error();
    }
    ~PendingError()
    {
        if (m_type) {
            nb::gil_scoped_acquire gil;
            Py_XDECREF(m_type);
            Py_XDECREF(m_value);
            Py_XDECREF(m_traceback);
        }
    }

private:
    PyObject* m_type = nullptr;
    PyObject* m_value = nullptr;
    PyObject* m_traceback = nullptr;
};

/// Polls Python's signal handlers (Ctrl+C) every few nodes while the engine runs without the GIL.
class InterruptPoll {
public:
    explicit InterruptPoll(PendingError& pending)
        : m_pending(pending)
    {
    }
    /// True once a handler raised (KeyboardInterrupt): the caller stops at the next node boundary.
    bool interrupted()
    {
        if (m_pending.pending())
            return true;
        if (++m_count % 8 != 0)
            return false;
        nb::gil_scoped_acquire gil;
        if (PyErr_CheckSignals() != 0)
            m_pending.capture();
        return m_pending.pending();
    }

private:
    PendingError& m_pending;
    unsigned m_count = 0;
};

std::unique_ptr<ThreadPool> makePool(int threads)
{
    if (threads < 1)
        throw nb::value_error("threads must be at least 1");
    return threads > 1 ? std::make_unique<ThreadPool>(threads) : nullptr;
}

// ---- model -------------------------------------------------------------------------------------------------------

nb::object dimsToPython(const ValueType& type)
{
    if (!type.hasShape)
        return nb::none();
    nb::list dims;
    for (const Dim& d : type.shape) {
        if (d.known())
            dims.append(d.value);
        else if (!d.symbol.empty())
            dims.append(nb::str(d.symbol.c_str()));
        else
            dims.append(nb::none());
    }
    return dims;
}

std::string_view kindName(Value::Kind kind)
{
    switch (kind) {
    case Value::Kind::Tensor:
        return "tensor";
    case Value::Kind::Sequence:
        return "sequence";
    case Value::Kind::Map:
        return "map";
    case Value::Kind::Optional:
        return "optional";
    case Value::Kind::None:
        break;
    }
    return "unknown";
}

nb::dict valueInfoToPython(const ValueInfo& v)
{
    nb::dict d;
    d["name"] = v.name;
    d["kind"] = std::string(kindName(v.type.kind));
    d["type"] = v.type.toString();
    const DataType element = v.type.elementType;
    d["elem_type"] = element == DataType::Undefined ? nb::none() : nb::cast(std::string(dataTypeName(element)));
    d["dtype"] = element == DataType::Undefined ? nb::none() : nb::cast(std::string(numpyTypeName(element)));
    d["shape"] = dimsToPython(v.type);
    d["has_default"] = v.hasInitializer();
    return d;
}

nb::dict nodeToPython(const Graph& graph, const Node& node)
{
    nb::dict d;
    d["name"] = node.displayName();
    d["op_type"] = node.opType;
    d["domain"] = node.domain;
    d["opset"] = node.opset;
    nb::list inputs, outputs;
    for (ValueId v : node.inputs)
        inputs.append(v == kNoValue ? std::string() : graph.value(v).name);
    for (ValueId v : node.outputs)
        outputs.append(v == kNoValue ? std::string() : graph.value(v).name);
    d["inputs"] = inputs;
    d["outputs"] = outputs;
    nb::dict metadata;
    for (const auto& [key, value] : nodeMetadataProps(node))
        metadata[key.c_str()] = value;
    d["metadata_props"] = metadata;
    const TorchOrigin origin = torchOrigin(node);
    if (!origin.present) {
        d["pytorch"] = nb::none();
        return d;
    }
    nb::dict t;
    t["module"] = origin.hasModules ? nb::cast(origin.modulePath()) : nb::none();
    t["module_class"] = origin.hasModules ? nb::cast(origin.moduleClass()) : nb::none();
    nb::list modules;
    for (const TorchModule& m : origin.modules)
        modules.append(nb::make_tuple(m.path, m.className));
    t["modules"] = modules;
    t["fx_name"] = origin.fxName;
    t["fx_target"] = origin.fxTarget;
    t["fx_node"] = origin.fxNode;
    nb::list frames;
    for (const SourceFrame& f : origin.frames)
        frames.append(nb::make_tuple(f.file, f.line, f.function, f.code));
    t["stack"] = frames;
    const SourceFrame* source = origin.sourceFrame();
    t["source"] = source ? nb::cast(source->file + ":" + std::to_string(source->line)) : nb::none();
    t["error"] = origin.error.empty() ? nb::none() : nb::cast(origin.error);
    d["pytorch"] = t;
    return d;
}

void countOps(const Graph& graph, std::map<std::string, int64_t>& histogram)
{
    for (const Node& node : graph.nodes()) {
        ++histogram[node.domain.empty() ? node.opType : node.domain + "." + node.opType];
        for (const auto& [name, subgraph] : node.subgraphs)
            if (subgraph)
                countOps(*subgraph, histogram);
    }
}

class PyModel {
public:
    explicit PyModel(std::shared_ptr<Model> model)
        : m_model(std::move(model))
    {
    }

    const Model& model() const { return *m_model; }

    /// The compiled program, built on first use. A model with unsupported nodes is refused here, before any node
    /// runs, with every such node listed.
    std::shared_ptr<const Program> program()
    {
        if (!m_program) {
            std::vector<std::string> unsupported;
            {
                nb::gil_scoped_release release;
                unsupported = Program::unsupportedNodes(*m_model);
            }
            if (!unsupported.empty()) {
                std::string list;
                for (const auto& u : unsupported)
                    list += "\n  " + u;
                throw UnsupportedModelError(m_model->displayName() + ": " + std::to_string(unsupported.size())
                    + " node(s) the engine cannot run:" + list);
            }
            nb::gil_scoped_release release;
            m_program = std::make_shared<Program>(m_model);
        }
        return m_program;
    }

private:
    std::shared_ptr<Model> m_model;
    std::shared_ptr<const Program> m_program;
};

/// Binds the feeds as a run would, without running a node: errors about them become InputError.
template <class Start> void startWithInputs(Start&& start)
{
    try {
        start();
    } catch (const InputError&) {
        throw;
    } catch (const Error& e) {
        throw InputError(e.what());
    }
}

nb::dict outputsToPython(const std::map<std::string, Value>& outputs, const std::vector<std::string>& order)
{
    nb::dict result;
    for (const auto& name : order) {
        auto it = outputs.find(name);
        if (it != outputs.end())
            result[name.c_str()] = valueToPython(it->second, true);
    }
    return result;
}

nb::dict extractCase(PyModel& pyModel, const std::vector<std::string>& nodes, const std::vector<std::string>& inputs,
    const std::vector<std::string>& outputs, const std::map<std::string, Value>& feeds, const std::string& folder,
    int threads)
{
    const Graph& graph = pyModel.model().graph();
    auto program = pyModel.program();
    ExtractedCase written;
    {
        nb::gil_scoped_release release;
        const SubgraphBoundary part
            = nodes.empty() ? subgraphBetween(graph, inputs, outputs) : subgraphOfNodes(graph, nodes);
        auto pool = makePool(threads);
        written = extractTestCase(program, part, feeds, folder, {}, pool.get());
    }
    nb::dict d;
    d["folder"] = folder;
    d["inputs"] = written.part.inputs;
    d["outputs"] = written.part.outputs;
    std::vector<std::string> names;
    for (NodeId n : written.part.nodes)
        names.push_back(graph.node(n).displayName());
    d["nodes"] = names;
    d["initializers"] = written.part.initializers;
    d["initializer_bytes"] = written.model.initializerBytes;
    d["external_data"] = written.model.externalData;
    return d;
}

nb::dict runModel(PyModel& pyModel, const std::map<std::string, Value>& feeds, int threads)
{
    auto program = pyModel.program();
    auto pool = makePool(threads);
    SessionOptions options;
    options.threadPool = pool.get();
    auto session = std::make_unique<Session>(program, options);
    PendingError pending;
    std::map<std::string, Value> outputs;
    std::vector<std::string> order;
    {
        nb::gil_scoped_release release;
        startWithInputs([&] { session->start(feeds); });
        InterruptPoll poll(pending);
        while (!poll.interrupted() && session->advance().kind != Session::StepKind::Finished) { }
        if (!pending.pending()) {
            outputs = session->outputs();
            order = session->outputNames();
        }
        // The session goes first, so that outputs are the only owners of their tensors (returned without a copy).
        session.reset();
    }
    pending.raiseIfPending();
    return outputsToPython(outputs, order);
}

nb::tuple recordToPython(const RecordedValue& r)
{
    std::string node;
    if (r.producer >= 0 && r.graph)
        node = r.graph->node(r.producer).displayName();
    return nb::make_tuple(r.framePath.str(), r.name.str(), r.iteration, node, r.sequence,
        r.dropped ? nb::none() : valueToPython(r.value, false), r.dropped, r.ordinal);
}

// ---- debugger ----------------------------------------------------------------------------------------------------

nb::dict eventToPython(const NodeEvent& event, int64_t iteration)
{
    nb::dict d;
    d["node"] = event.node.displayName();
    d["op_type"] = event.node.opType;
    d["domain"] = event.node.domain;
    d["frame"] = event.framePath;
    d["iteration"] = iteration;
    nb::list outputNames, outputs, inputNames, inputs;
    const Graph& graph = event.frame.graph();
    for (size_t i = 0; i < event.node.inputs.size(); ++i) {
        ValueId id = event.node.inputs[i];
        inputNames.append(id == kNoValue ? std::string() : graph.value(id).name);
        inputs.append(i < event.inputs.size() && event.inputs[i] ? valueToPython(*event.inputs[i], false) : nb::none());
    }
    for (size_t i = 0; i < event.node.outputs.size(); ++i) {
        ValueId id = event.node.outputs[i];
        outputNames.append(id == kNoValue ? std::string() : graph.value(id).name);
        outputs.append(i < event.outputs.size() ? valueToPython(event.outputs[i], false) : nb::none());
    }
    d["input_names"] = inputNames;
    d["inputs"] = inputs;
    d["output_names"] = outputNames;
    d["outputs"] = outputs;
    return d;
}

class PyDebugger : private SessionObserver {
public:
    PyDebugger(std::shared_ptr<const Program> program, const std::map<std::string, Value>& feeds, int threads,
        double memoryBudget, bool keepData)
        : m_program(std::move(program))
        , m_pool(makePool(threads))
    {
        DebuggerOptions options;
        options.session.threadPool = m_pool.get();
        if (memoryBudget > 0)
            options.memoryBudget = memoryBudget >= static_cast<double>(std::numeric_limits<size_t>::max())
                ? std::numeric_limits<size_t>::max()
                : static_cast<size_t>(memoryBudget);
        options.retention = keepData ? ValueRetention::Values : ValueRetention::Summaries;
        m_debugger = std::make_unique<Debugger>(m_program, options);
        m_debugger->addObserver(this);
        nb::gil_scoped_release release;
        startWithInputs([&] { m_debugger->start(feeds); });
    }
    ~PyDebugger() override
    {
        m_debugger->removeObserver(this);
        m_debugger.reset();
    }

    Debugger& debugger() { return *m_debugger; }

    /// Runs `action` without the GIL; raises what a callback raised (or KeyboardInterrupt), or Error if a node
    /// failed. Returns the stop.
    template <class Action> nb::dict resume(Action&& action)
    {
        m_running = true;
        StopInfo stop;
        {
            nb::gil_scoped_release release;
            stop = action();
        }
        m_running = false;
        m_pending.raiseIfPending();
        if (stop.reason == StopReason::Failed)
            throw Error(stop.message);
        return position();
    }

    /// continueRun() or runTo() with no Python hook: the debugger runs quiet stretches
    /// (engine/exec/debug/quiet_run.cpp, a plain run between the places where it can stop), which it does only with no
    /// observer of ours attached. So Ctrl+C is not polled per node: the run goes on a worker thread while this (the
    /// main) thread, where Python's signal handlers run, checks them every 20 ms and asks the debugger to pause
    /// (Debugger::requestPause, which a quiet stretch honours between steps, inside Loop iterations included). With
    /// hooks, node by node as before.
    template <class Action> nb::dict resumeQuiet(Action&& action)
    {
        if (!m_hooks.empty())
            return resume(std::forward<Action>(action));
        struct Detach {
            PyDebugger& d;
            explicit Detach(PyDebugger& debugger)
                : d(debugger)
            {
                d.m_debugger->removeObserver(&d);
            }
            ~Detach() { d.m_debugger->addObserver(&d); }
        };
        m_running = true;
        m_lastNode = nullptr; // not followed while detached: a pause names no last node rather than a stale one
        StopInfo stop;
        std::exception_ptr error;
        {
            Detach detach(*this);
            nb::gil_scoped_release release;
            std::mutex mutex;
            std::condition_variable doneChanged;
            bool done = false;
            std::thread worker([&] {
                try {
                    stop = action();
                } catch (...) {
                    error = std::current_exception();
                }
                std::lock_guard<std::mutex> lock(mutex);
                done = true;
                doneChanged.notify_one();
            });
            std::unique_lock<std::mutex> lock(mutex);
            while (!doneChanged.wait_for(lock, std::chrono::milliseconds(20), [&] { return done; })) {
                lock.unlock();
                {
                    nb::gil_scoped_acquire gil;
                    if (!m_pending.pending() && PyErr_CheckSignals() != 0) {
                        m_pending.capture();
                        m_debugger->requestPause();
                    }
                }
                lock.lock();
            }
            lock.unlock();
            worker.join();
        }
        m_running = false;
        if (error)
            std::rethrow_exception(error);
        m_pending.raiseIfPending();
        if (stop.reason == StopReason::Failed)
            throw Error(stop.message);
        return position();
    }

    /// Fills in the value log of the quiet stretches without the GIL before a reader of the log (which would
    /// otherwise do it with the GIL held).
    void readyLog()
    {
        if (m_debugger->logComplete())
            return;
        nb::gil_scoped_release release;
        m_debugger->completeLog();
    }

    /// A reverse move or go_to: the debugger replays nodes without stopping, so hooks are not called and nothing asks
    /// it to pause (a request would be left for the next move); Ctrl+C is raised once the move is done.
    template <class Action> nb::dict resumeSilently(Action&& action)
    {
        m_silent = true;
        try {
            nb::dict position = resume(std::forward<Action>(action));
            m_silent = false;
            return position;
        } catch (...) {
            m_silent = false;
            throw;
        }
    }

    nb::dict position() const
    {
        const StopInfo& stop = m_debugger->lastStop();
        // A pause (Ctrl+C, a hook) stops after the node that ran last, which the stop does not name.
        const Node* last = stop.lastNode ? stop.lastNode : stop.reason == StopReason::Paused ? m_lastNode : nullptr;
        nb::dict d;
        d["reason"] = std::string(stopReasonName(stop.reason));
        d["message"] = stop.message;
        d["frame"] = stop.framePath;
        d["breakpoint"] = stop.breakpointId;
        d["next_node"] = stop.nextNode ? nb::cast(stop.nextNode->displayName()) : nb::none();
        d["next_op_type"] = stop.nextNode ? nb::cast(stop.nextNode->opType) : nb::none();
        d["last_node"] = last ? nb::cast(last->displayName()) : nb::none();
        d["last_op_type"] = last ? nb::cast(last->opType) : nb::none();
        d["depth"] = m_debugger->session().depth();
        d["finished"] = m_debugger->finished();
        d["step"] = m_debugger->position();
        return d;
    }

    /// The recorded value at this index of values(), rebuilt if it was dropped (without the GIL).
    nb::object materializeAt(size_t index)
    {
        readyLog();
        const std::vector<RecordedValue>& records = m_debugger->values();
        if (index >= records.size())
            throw nb::index_error("no recorded value at this index");
        Value value;
        {
            nb::gil_scoped_release release;
            value = m_debugger->materialize(records[index]);
        }
        return valueToPython(value, false);
    }

    /// The recorded value with this ordinal (the 8th item of values()' tuples), rebuilt if its data was not kept.
    nb::object materializeOrdinal(uint64_t ordinal)
    {
        readyLog();
        const RecordedValue* record = m_debugger->findRecord(ordinal);
        if (!record)
            throw Error("the debugger no longer records that value: a reverse move went back before it was made, or "
                        "it was forgotten to stay under the memory budget");
        Value value;
        {
            nb::gil_scoped_release release;
            value = m_debugger->materialize(*record);
        }
        return valueToPython(value, false);
    }

    /// The recorded values (materialize: each dropped one rebuilt (bit-identical, by replay from a checkpoint, with as
    /// few replays as possible and without the GIL): tuples as recordToPython's, the data always present.
    nb::list values(bool materialize)
    {
        readyLog();
        const std::vector<RecordedValue>& records = m_debugger->values();
        std::vector<const RecordedValue*> dropped;
        for (const RecordedValue& r : records)
            if (r.dropped && materialize)
                dropped.push_back(&r);
        std::unordered_map<uint64_t, Value> rebuilt; // by ordinal
        if (!dropped.empty()) {
            nb::gil_scoped_release release;
            m_debugger->materialize(
                dropped, [&](const RecordedValue& r, const Value& value) { rebuilt.emplace(r.ordinal, value); });
        }
        nb::list list;
        for (const RecordedValue& r : records) {
            auto it = r.dropped ? rebuilt.find(r.ordinal) : rebuilt.end();
            if (it == rebuilt.end()) {
                list.append(recordToPython(r));
                continue;
            }
            std::string node;
            if (r.producer >= 0 && r.graph)
                node = r.graph->node(r.producer).displayName();
            list.append(nb::make_tuple(r.framePath.str(), r.name.str(), r.iteration, node, r.sequence,
                valueToPython(it->second, false), true, r.ordinal));
        }
        return list;
    }

    /// The digests of the values whose data was dropped (what the debugger kept of them): ((frame, name, iteration),
    /// dict) pairs.
    nb::list digests()
    {
        readyLog();
        nb::list list;
        for (const RecordedValue& r : m_debugger->values()) {
            if (!r.dropped || !r.summary.valid)
                continue;
            const ValueDigest& g = r.summary;
            nb::dict d;
            d["type"] = g.typeString();
            d["shape"] = nb::cast(g.shape());
            d["bytes"] = g.bytes;
            if (g.stats) {
                const TensorStats& t = *g.stats;
                d["count"] = t.count;
                d["finite"] = t.finite;
                d["nan"] = t.nan;
                d["posinf"] = t.posInf;
                d["neginf"] = t.negInf;
                d["zeros"] = t.zeros;
                d["min"] = t.min;
                d["max"] = t.max;
                d["mean"] = t.mean;
                d["std"] = t.std;
            }
            nb::list sample;
            for (size_t i = 0; i < g.sampleSize; ++i)
                sample.append(g.sample[i]);
            d["sample"] = sample;
            nb::list histogram;
            for (int64_t count : g.histogram)
                histogram.append(count);
            d["histogram"] = histogram;
            d["histogram_range"] = nb::make_tuple(g.histogramLo, g.histogramHi);
            d["histogram_sampled"] = g.histogramSampled;
            list.append(nb::make_tuple(nb::make_tuple(r.framePath.str(), r.name.str(), r.iteration), d));
        }
        return list;
    }

    nb::dict memoryReport()
    {
        readyLog();
        MemoryStats s = m_debugger->memoryStats();
        nb::dict d;
        d["budget"] = m_debugger->options().memoryBudget;
        d["kept_values"] = s.keptValues;
        d["dropped_values"] = s.droppedValues;
        d["forgotten_values"] = m_debugger->forgottenValues();
        d["recorded_bytes"] = s.recordedBytes;
        d["checkpoints"] = s.checkpoints;
        d["checkpoint_bytes"] = s.checkpointBytes;
        d["checkpoint_interval"] = s.checkpointInterval;
        d["rematerializations"] = s.rematerializations;
        d["replayed_steps"] = s.replayedSteps;
        d["rematerialization_seconds"] = std::chrono::duration<double>(s.rematerializationTime).count();
        d["notice"] = m_debugger->budgetNotice();
        d["quiet_stretches"] = m_debugger->quietStretches();
        return d;
    }

    /// Breakpoints as data (engine/exec/debug/breakpoint.h), built as the GUI and the CLI build them; only a Python
    /// callable is a closure. `node` is the value's name for kind "value".
    int addBreakpoint(const std::string& kind, const std::string& node, const std::string& opType,
        const std::string& when, nb::object callable, int64_t iteration)
    {
        using Kind = Breakpoint::Kind;
        Breakpoint b;
        if (kind == "nonfinite") {
            b = makeBreakpoint(Kind::NonFinite, {}, {}, -1, iteration);
        } else if (kind == "node") {
            b = makeBreakpoint(Kind::Node, node, {}, -1, iteration);
        } else if (kind == "op_type") {
            b = makeBreakpoint(Kind::OpType, opType, {}, -1, iteration);
        } else if (kind == "value") {
            b = makeBreakpoint(Kind::Value, node, when, -1, iteration);
        } else if (kind == "condition" && !when.empty()) {
            b = makeBreakpoint(Kind::Condition, node, when, -1, iteration);
            b.opType = opType;
            b.description = (node.empty() ? std::string("any node") : node) + ": " + when;
        } else if (kind == "condition") {
            b.kind = Kind::Condition;
            b.pattern = node;
            b.opType = opType;
            b.iteration = iteration < 0 ? -1 : iteration;
            auto fn = std::make_shared<nb::object>(std::move(callable));
            b.condition = [this, fn](const NodeEvent& event) {
                nb::gil_scoped_acquire gil;
                if (!fn->is_valid())
                    return false;
                try {
                    return nb::cast<bool>((*fn)(eventToPython(event, iterationOf(event))));
                } catch (nb::python_error& e) {
                    e.restore();
                    m_pending.capture();
                    m_debugger->requestPause();
                    return false;
                }
            };
            b.description = (node.empty() ? std::string("any node") : node) + ": Python condition";
            // The callable is released with the GIL held (the breakpoint may outlive a resume).
            m_callables.push_back(fn);
        } else {
            throw nb::value_error("unknown breakpoint kind");
        }
        return m_debugger->addBreakpoint(std::move(b));
    }

    void addHook(nb::object hook) { m_hooks.push_back(std::move(hook)); }
    void clearHooks() { m_hooks.clear(); }

    /// Python's cycle collector sees the callables the debugger holds (a hook that refers to its debugger is a
    /// cycle), and can let go of them.
    int traverse(visitproc visit, void* arg)
    {
        for (const nb::object& hook : m_hooks)
            Py_VISIT(hook.ptr());
        for (const auto& fn : m_callables)
            Py_VISIT(fn->ptr());
        return 0;
    }
    void clearCallables()
    {
        m_hooks.clear();
        for (const auto& fn : m_callables)
            *fn = nb::object();
    }

    std::shared_ptr<const Program> program() const { return m_program; }

private:
    /// The one iteration rule (engine/exec/debug/breakpoint.h): the iteration of the nearest enclosing Loop/Scan of
    /// the frame the node ran in, an If branch inside a loop iteration included.
    int64_t iterationOf(const NodeEvent&) const { return m_debugger->currentIteration(); }

    void afterNode(const NodeEvent& event) override
    {
        m_lastNode = &event.node;
        if (!m_running)
            return;
        if (m_silent) {
            m_poll.interrupted();
            return;
        }
        if (!m_hooks.empty() && !m_pending.pending()) {
            nb::gil_scoped_acquire gil;
            try {
                nb::dict info = eventToPython(event, iterationOf(event));
                for (const nb::object& hook : m_hooks) {
                    nb::object result = hook(info);
                    if (result.is_valid() && !result.is_none() && nb::cast<bool>(result)) {
                        m_debugger->requestPause();
                        break;
                    }
                }
            } catch (nb::python_error& e) {
                e.restore();
                m_pending.capture();
            }
        }
        if (m_poll.interrupted())
            m_debugger->requestPause();
    }
    bool wantsTiming() const override { return false; }

    std::shared_ptr<const Program> m_program;
    std::unique_ptr<ThreadPool> m_pool;
    std::unique_ptr<Debugger> m_debugger;
    PendingError m_pending;
    InterruptPoll m_poll { m_pending };
    std::vector<nb::object> m_hooks;
    std::vector<std::shared_ptr<nb::object>> m_callables;
    bool m_running = false;
    bool m_silent = false; // resumeSilently() is running
    const Node* m_lastNode = nullptr;
};

nb::tuple runIntermediate(PyModel& pyModel, const std::map<std::string, Value>& feeds, int threads)
{
    PyDebugger debugger(pyModel.program(), feeds, threads, std::numeric_limits<double>::infinity(), true);
    Debugger& d = debugger.debugger();
    while (!d.finished())
        debugger.resume([&] { return d.continueRun(); });
    nb::list records;
    for (const RecordedValue& r : d.values())
        records.append(recordToPython(r));
    nb::dict outputs;
    for (const auto& name : d.session().outputNames()) {
        auto it = d.session().outputs().find(name);
        if (it != d.session().outputs().end())
            outputs[name.c_str()] = valueToPython(it->second, false);
    }
    return nb::make_tuple(outputs, records);
}

// ---- compare -----------------------------------------------------------------------------------------------------

/// The comparison in the CLI's JSON format (docs/compare-format.md), as Python objects: the engine writes the
/// document, so the two never drift apart.
nb::dict resultToPython(const ComparisonResult& res, const std::string& sideBKind)
{
    const std::string text = comparisonJson(res, sideBKind, -1);
    return nb::cast<nb::dict>(nb::module_::import_("json").attr("loads")(nb::str(text.c_str(), text.size())));
}

template <class Compare> ComparisonResult runCompare(CompareOptions& options, Compare&& compare)
{
    PendingError pending;
    std::atomic<bool> cancel { false };
    ComparisonResult res;
    {
        nb::gil_scoped_release release;
        InterruptPoll poll(pending);
        options.cancel = &cancel;
        options.progress = [&](uint64_t) {
            if (poll.interrupted())
                cancel = true;
        };
        res = compare();
    }
    pending.raiseIfPending();
    return res;
}

void checkFeeds(const std::shared_ptr<const Program>& program, const std::map<std::string, Value>& feeds)
{
    nb::gil_scoped_release release;
    Session session(program);
    startWithInputs([&] { session.start(feeds); });
}

CompareOptions compareOptions(double rtol, double atol, bool initializers,
    const std::map<std::string, std::string>& names, const std::string& align)
{
    if (!(rtol >= 0) || !(atol >= 0))
        throw nb::value_error("rtol and atol must be non-negative");
    CompareOptions options;
    try {
        options.align = parseAlignMode(align);
    } catch (const Error& e) {
        throw nb::value_error(e.what());
    }
    options.tolerance = { rtol, atol };
    options.compareInitializers = initializers;
    options.nameMap = names;
    return options;
}

nb::dict compareModels(PyModel& a, const std::map<std::string, Value>& feedsA, PyModel& b,
    const std::map<std::string, Value>& feedsB, double rtol, double atol, bool initializers,
    const std::map<std::string, std::string>& names, const std::string& align, int threads,
    const std::string& extractFolder)
{
    RunSide sideA { a.program(), feedsA, a.model().displayName() };
    RunSide sideB { b.program(), feedsB, b.model().displayName() };
    checkFeeds(sideA.program, feedsA);
    checkFeeds(sideB.program, feedsB);
    CompareOptions options = compareOptions(rtol, atol, initializers, names, align);
    auto pool = makePool(threads);
    options.sessionOptions.threadPool = pool.get();
    ComparisonResult res = runCompare(options, [&] { return compareRuns(sideA, sideB, options); });
    if (res.cancelled)
        throw Error("the comparison was cancelled");
    nb::dict d = resultToPython(res, "model");
    if (!extractFolder.empty()) {
        DivergenceExtract x;
        {
            nb::gil_scoped_release release;
            x = extractFirstDivergence(res, sideA, sideB, extractFolder, pool.get());
        }
        nb::dict e;
        e["found"] = x.found;
        e["message"] = x.message;
        if (x.found) {
            e["folder"] = extractFolder;
            e["folder_a"] = x.caseA.folder.string();
            e["folder_b"] = x.caseB.folder.string();
            e["readme"] = x.readme.string();
            e["node_a"] = x.nodeA;
            e["op_type_a"] = x.opTypeA;
            e["node_b"] = x.nodeB;
            e["op_type_b"] = x.opTypeB;
            nb::list inputs;
            for (const auto& in : x.inputs) {
                nb::dict i;
                i["name_b"] = in.nameB;
                i["name_a"] = in.fromA ? nb::object(nb::str(in.nameA.c_str())) : nb::none();
                i["paired_by"] = std::string(pairedByName(in.pairedBy));
                i["from_a"] = in.fromA;
                i["note"] = in.note;
                inputs.append(i);
            }
            e["inputs"] = inputs;
            nb::list outputs;
            for (const auto& o : x.outputs) {
                nb::dict i;
                i["name_a"] = o.nameA;
                i["name_b"] = o.nameB;
                i["status"] = std::string(compareStatusName(o.comparison.status));
                i["max_abs_error"] = o.comparison.stats.maxAbsError;
                i["max_rel_error"] = o.comparison.stats.maxRelError;
                i["mismatches"] = o.comparison.stats.mismatches;
                outputs.append(i);
            }
            e["outputs"] = outputs;
            e["max_abs_error"] = x.maxAbsError;
        }
        d["divergence_extract"] = e;
    }
    return d;
}

// ---- precision advice ----------------------------------------------------------------------------------------------

/// check-precision's report (precisionReportJson) as Python objects, with "mixed" (mixedPrecisionJson) when the
/// mixed-precision model was written.
nb::dict checkPrecisionPy(PyModel& pyModel, const std::string& to, double underflowShare,
    const std::map<std::string, Value>& feeds, const std::string& write, int threads)
{
    PrecisionCheckOptions options;
    try {
        options.target = parsePrecisionTarget(to);
    } catch (const Error& e) {
        throw nb::value_error(e.what());
    }
    if (!(underflowShare >= 0 && underflowShare < 1))
        throw nb::value_error("underflow_share must be at least 0 and below 1");
    options.underflowShare = underflowShare;
    auto program = pyModel.program();
    checkFeeds(program, feeds);
    std::string text, mixed;
    {
        nb::gil_scoped_release release;
        auto pool = makePool(threads);
        options.session.threadPool = pool.get();
        const PrecisionReport report = checkPrecision(program, feeds, options);
        text = precisionReportJson(report);
        if (!write.empty())
            mixed
                = mixedPrecisionJson(writeMixedPrecisionModel(pyModel.model(), report, feeds, write, options.session));
    }
    nb::object loads = nb::module_::import_("json").attr("loads");
    nb::dict d = nb::cast<nb::dict>(loads(nb::str(text.c_str(), text.size())));
    if (!mixed.empty())
        d["mixed"] = loads(nb::str(mixed.c_str(), mixed.size()));
    return d;
}

/// check-quantization's report (quantErrorJson) as Python objects.
nb::dict checkQuantizationPy(
    PyModel& floatModel, PyModel& quantModel, const std::map<std::string, Value>& feeds, int threads)
{
    auto floatProgram = floatModel.program();
    auto quantProgram = quantModel.program();
    checkFeeds(floatProgram, feeds);
    std::string text;
    {
        nb::gil_scoped_release release;
        auto pool = makePool(threads);
        QuantErrorOptions options;
        options.session.threadPool = pool.get();
        text = quantErrorJson(checkQuantization(floatProgram, quantProgram, feeds, options));
    }
    return nb::cast<nb::dict>(nb::module_::import_("json").attr("loads")(nb::str(text.c_str(), text.size())));
}

nb::dict compareReference(PyModel& a, const std::map<std::string, Value>& feeds, const std::string& path,
    const std::vector<std::tuple<std::string, std::string, Value>>& values, double rtol, double atol, bool initializers,
    const std::map<std::string, std::string>& names, int threads)
{
    RunSide sideA { a.program(), feeds, a.model().displayName() };
    checkFeeds(sideA.program, feeds);
    ReferenceValues reference;
    if (!path.empty()) {
        nb::gil_scoped_release release;
        reference = ReferenceValues::load(path);
    } else {
        std::vector<std::pair<std::pair<std::string, std::string>, Value>> list;
        for (const auto& [frame, name, value] : values)
            list.push_back({ { frame, name }, value });
        reference = ReferenceValues::fromValues(std::move(list));
    }
    CompareOptions options = compareOptions(rtol, atol, initializers, names, "names");
    auto pool = makePool(threads);
    options.sessionOptions.threadPool = pool.get();
    ComparisonResult res = runCompare(options, [&] { return compareWithReference(sideA, reference, options); });
    if (res.cancelled)
        throw Error("the comparison was cancelled");
    return resultToPython(res, "reference");
}

/// compare --by module: the reference is an .npz (or arrays) keyed by module path, as onnxscope.torch.capture writes.
nb::dict compareModulesReference(PyModel& a, const std::map<std::string, Value>& feeds, const std::string& path,
    const std::vector<std::tuple<std::string, Value>>& values, double rtol, double atol, int threads)
{
    RunSide sideA { a.program(), feeds, a.model().displayName() };
    checkFeeds(sideA.program, feeds);
    ReferenceValues reference;
    if (!path.empty()) {
        nb::gil_scoped_release release;
        reference = ReferenceValues::load(path);
    } else {
        std::vector<std::pair<std::pair<std::string, std::string>, Value>> list;
        for (const auto& [key, value] : values)
            list.push_back({ { "main", key }, value });
        reference = ReferenceValues::fromValues(std::move(list));
    }
    CompareOptions options = compareOptions(rtol, atol, false, {}, "names");
    auto pool = makePool(threads);
    options.sessionOptions.threadPool = pool.get();
    PendingError pending;
    std::atomic<bool> cancel { false };
    ModuleComparisonResult res;
    {
        nb::gil_scoped_release release;
        InterruptPoll poll(pending);
        options.cancel = &cancel;
        options.progress = [&](uint64_t) {
            if (poll.interrupted())
                cancel = true;
        };
        res = compareModulesWithReference(sideA, reference, options);
    }
    pending.raiseIfPending();
    if (res.cancelled)
        throw Error("the comparison was cancelled");
    const std::string text = moduleComparisonJson(res, -1);
    return nb::cast<nb::dict>(nb::module_::import_("json").attr("loads")(nb::str(text.c_str(), text.size())));
}

int debuggerTraverse(PyObject* self, visitproc visit, void* arg)
{
    Py_VISIT(Py_TYPE(self));
    if (!nb::inst_ready(self))
        return 0;
    return nb::inst_ptr<PyDebugger>(self)->traverse(visit, arg);
}

int debuggerClear(PyObject* self)
{
    if (nb::inst_ready(self))
        nb::inst_ptr<PyDebugger>(self)->clearCallables();
    return 0;
}

PyType_Slot debuggerSlots[] = { { Py_tp_traverse, reinterpret_cast<void*>(debuggerTraverse) },
    { Py_tp_clear, reinterpret_cast<void*>(debuggerClear) }, { 0, nullptr } };

PyObject* newException(nb::module_& m, const char* name, PyObject* bases, const char* doc)
{
    const std::string qualified = std::string("onnxscope.") + name;
    PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases, nullptr);
    if (!type)
        throw nb::python_error();
    m.attr(name) = nb::handle(type);
    return type;
}

} // namespace

} // namespace onnxscope::python

NB_MODULE(_onnxscope, m)
{
    using namespace onnxscope;
    using namespace onnxscope::python;
    m.doc() = "The onnxscope engine (use the onnxscope package, not this module)";
    m.attr("__version__") = ONNXSCOPE_VERSION;

    g_error = newException(
        m, "Error", PyExc_RuntimeError, "An error of the onnxscope engine; its message names the cause.");
    {
        nb::tuple bases = nb::make_tuple(nb::handle(g_error), nb::handle(PyExc_ValueError));
        g_inputError = newException(m, "InputError", bases.ptr(),
            "Feeds the model does not accept (unknown name, wrong element type, rank or dimension); lists the "
            "model's inputs.");
    }
    g_unsupportedError = newException(m, "UnsupportedModelError", g_error,
        "The model has nodes the engine cannot run; raised before anything runs, listing them.");
    nb::register_exception_translator([](const std::exception_ptr& p, void*) {
        try {
            std::rethrow_exception(p);
        } catch (const InputError& e) {
            PyErr_SetString(g_inputError, e.what());
        } catch (const UnsupportedModelError& e) {
            PyErr_SetString(g_unsupportedError, e.what());
        } catch (const Error& e) {
            PyErr_SetString(g_error, e.what());
        }
    });

    nb::class_<Value>(m, "Value").def_prop_ro("type", &Value::typeString).def("to_python", [](const Value& v) {
        return valueToPython(v, true);
    });
    m.def("make_tensor", &makeTensor, "dtype"_a, "shape"_a, "data"_a);
    m.def("check_string_shape", &checkStringShape, "shape"_a);
    m.def(
        "parse_byte_size", [](const std::string& text) { return parseByteSize(text); }, "text"_a);
    m.def("make_string_tensor", &makeStringTensor, "shape"_a, "items"_a);
    m.def("make_sequence", &makeSequence, "elem_type"_a, "items"_a);
    m.def(
        "make_optional", [](std::optional<Value> inner) { return Value::optional(std::move(inner)); },
        "inner"_a.none());

    nb::class_<PyModel>(m, "Model")
        .def_static(
            "load_path",
            [](const std::string& path) {
                std::shared_ptr<Model> model;
                {
                    nb::gil_scoped_release release;
                    model = Model::load(path);
                }
                return PyModel(std::move(model));
            },
            "path"_a)
        .def_static(
            "load_bytes",
            [](nb::bytes data, const std::string& baseDir, const std::string& name) {
                std::string bytes(data.c_str(), data.size());
                std::shared_ptr<Model> model;
                {
                    nb::gil_scoped_release release;
                    model = Model::fromBytes(bytes, baseDir, name);
                }
                return PyModel(std::move(model));
            },
            "data"_a, "base_dir"_a, "name"_a)
        .def_prop_ro("name", [](const PyModel& p) { return p.model().displayName(); })
        .def_prop_ro("path", [](const PyModel& p) { return p.model().path().string(); })
        .def_prop_ro("inputs",
            [](const PyModel& p) {
                nb::list list;
                const Graph& g = p.model().graph();
                for (ValueId id : g.inputs())
                    list.append(valueInfoToPython(g.value(id)));
                return list;
            })
        .def_prop_ro("outputs",
            [](const PyModel& p) {
                nb::list list;
                const Graph& g = p.model().graph();
                for (ValueId id : g.outputs())
                    list.append(valueInfoToPython(g.value(id)));
                return list;
            })
        .def_prop_ro("opsets", [](const PyModel& p) { return p.model().opsets(); })
        .def_prop_ro("op_histogram",
            [](const PyModel& p) {
                std::map<std::string, int64_t> histogram;
                countOps(p.model().graph(), histogram);
                return histogram;
            })
        .def_prop_ro("node_count", [](const PyModel& p) { return p.model().graph().totalNodeCount(); })
        .def(
            "node",
            [](const PyModel& p, const std::string& name) {
                const Graph& g = p.model().graph();
                const NodeId id = g.findNode(name);
                if (id < 0)
                    throw Error(
                        "\"" + p.model().displayName() + "\" has no node named \"" + name + "\" in its main graph");
                return nodeToPython(g, g.node(id));
            },
            "name"_a)
        .def("node_names",
            [](const PyModel& p) {
                std::vector<std::string> names;
                for (const Node& n : p.model().graph().nodes())
                    names.push_back(n.displayName());
                return names;
            })
        .def(
            "default_inputs",
            [](const PyModel& p, uint64_t seed, const std::map<std::string, int64_t>& dims,
                const std::vector<std::string>& skip) {
                const Graph& g = p.model().graph();
                std::mt19937_64 rng(seed);
                std::set<std::string> usedDims;
                nb::list list;
                for (ValueId id : g.requiredInputs()) {
                    const ValueInfo& v = g.value(id);
                    if (v.type.kind == Value::Kind::Optional
                        || std::find(skip.begin(), skip.end(), v.name) != skip.end())
                        continue;
                    std::string rule;
                    Value value = defaultInputValue(g, id, dims, usedDims, rng, nullptr, rule);
                    list.append(nb::make_tuple(v.name, valueToPython(value, true), rule));
                }
                return list;
            },
            "seed"_a, "dims"_a, "skip"_a)
        .def("torch_modules",
            [](const PyModel& p) {
                nb::list list;
                for (const TorchModuleSummary& m : torchModules(p.model().graph()))
                    list.append(nb::make_tuple(m.path, m.className, m.nodes));
                return list;
            })
        .def(
            "torch_module_nodes",
            [](const PyModel& p, const std::string& path) {
                std::vector<std::string> names;
                const Graph& g = p.model().graph();
                for (NodeId id : nodesOfTorchModule(g, path))
                    names.push_back(g.node(id).displayName());
                return names;
            },
            "path"_a)
        .def("unsupported_nodes",
            [](const PyModel& p) {
                nb::gil_scoped_release release;
                return Program::unsupportedNodes(p.model());
            })
        .def("diagnostics",
            [](const PyModel& p) {
                std::vector<Diagnostic> diagnostics;
                {
                    nb::gil_scoped_release release;
                    diagnostics = diagnosticsForThisBuild(p.model());
                }
                nb::list list;
                for (const auto& d : diagnostics)
                    list.append(nb::make_tuple(
                        d.severity == Diagnostic::Severity::Error ? "error" : "warning", d.source, d.message));
                return list;
            })
        .def("prepare", [](PyModel& p) { p.program(); })
        .def("run", &runModel, "feeds"_a, "threads"_a)
        .def("extract", &extractCase, "nodes"_a, "inputs"_a, "outputs"_a, "feeds"_a, "folder"_a, "threads"_a)
        .def("run_intermediate", &runIntermediate, "feeds"_a, "threads"_a)
        .def("check_precision", &checkPrecisionPy, "to"_a, "underflow_share"_a, "feeds"_a, "write"_a, "threads"_a)
        .def("check_quantization", &checkQuantizationPy, "quantized"_a, "feeds"_a, "threads"_a);

    nb::class_<PyDebugger>(m, "Debugger", nb::type_slots(debuggerSlots))
        .def(
            "__init__",
            [](PyDebugger* self, PyModel& model, const std::map<std::string, Value>& feeds, int threads,
                double memoryBudget,
                bool keepData) { new (self) PyDebugger(model.program(), feeds, threads, memoryBudget, keepData); },
            "model"_a, "feeds"_a, "threads"_a, "memory_budget"_a, "keep_data"_a)
        .def("step", [](PyDebugger& d) { return d.resume([&] { return d.debugger().step(); }); })
        .def("step_into", [](PyDebugger& d) { return d.resume([&] { return d.debugger().stepInto(); }); })
        .def("step_out", [](PyDebugger& d) { return d.resume([&] { return d.debugger().stepOut(); }); })
        .def("cont", [](PyDebugger& d) { return d.resumeQuiet([&] { return d.debugger().continueRun(); }); })
        .def(
            "run_to",
            [](PyDebugger& d, const std::string& node) {
                return d.resumeQuiet([&] { return d.debugger().runTo(node); });
            },
            "node"_a)
        .def("step_back", [](PyDebugger& d) { return d.resumeSilently([&] { return d.debugger().stepBack(); }); })
        .def("step_back_into",
            [](PyDebugger& d) { return d.resumeSilently([&] { return d.debugger().stepBackInto(); }); })
        .def(
            "step_back_out", [](PyDebugger& d) { return d.resumeSilently([&] { return d.debugger().stepBackOut(); }); })
        .def("reverse_cont",
            [](PyDebugger& d) { return d.resumeSilently([&] { return d.debugger().reverseContinue(); }); })
        .def(
            "run_back_to",
            [](PyDebugger& d, const std::string& node) {
                return d.resumeSilently([&] { return d.debugger().runBackTo(node); });
            },
            "node"_a)
        .def(
            "go_to",
            [](PyDebugger& d, uint64_t step) {
                return d.resumeSilently([&] { return d.debugger().goToPosition(step); });
            },
            "step"_a)
        .def("memory_report", &PyDebugger::memoryReport)
        .def("digests", &PyDebugger::digests)
        .def("restart",
            [](PyDebugger& d) {
                nb::gil_scoped_release release;
                d.debugger().reset();
            })
        .def("position", &PyDebugger::position)
        .def("add_breakpoint", &PyDebugger::addBreakpoint, "kind"_a, "node"_a, "op_type"_a, "when"_a,
            "callable"_a.none(), "iteration"_a)
        .def("remove_breakpoint", [](PyDebugger& d, int id) { return d.debugger().removeBreakpoint(id); })
        .def("set_breakpoint_enabled",
            [](PyDebugger& d, int id, bool enabled) { return d.debugger().setBreakpointEnabled(id, enabled); })
        .def("breakpoints",
            [](PyDebugger& d) {
                nb::list list;
                for (const auto& b : d.debugger().breakpoints())
                    list.append(nb::make_tuple(b.id, b.description, b.enabled));
                return list;
            })
        .def("add_hook", &PyDebugger::addHook)
        .def("clear_hooks", &PyDebugger::clearHooks)
        .def("values", &PyDebugger::values, "materialize"_a)
        .def("materialize", &PyDebugger::materializeAt, "index"_a)
        .def("materialize_ordinal", &PyDebugger::materializeOrdinal, "ordinal"_a)
        .def("recorded_bytes", [](PyDebugger& d) { return d.debugger().recordedBytes(); })
        .def("outputs", [](PyDebugger& d) {
            nb::dict outputs;
            const Session& s = d.debugger().session();
            for (const auto& name : s.outputNames()) {
                auto it = s.outputs().find(name);
                if (it != s.outputs().end())
                    outputs[name.c_str()] = valueToPython(it->second, false);
            }
            return outputs;
        });

    m.def("compare_models", &compareModels, "a"_a, "feeds_a"_a, "b"_a, "feeds_b"_a, "rtol"_a, "atol"_a,
        "initializers"_a, "names"_a, "align"_a, "threads"_a, "extract_folder"_a);
    m.def("compare_reference", &compareReference, "a"_a, "feeds"_a, "path"_a, "values"_a, "rtol"_a, "atol"_a,
        "initializers"_a, "names"_a, "threads"_a);
    m.def("compare_modules_reference", &compareModulesReference, "a"_a, "feeds"_a, "path"_a, "values"_a, "rtol"_a,
        "atol"_a, "threads"_a);
}
