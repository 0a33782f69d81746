// SPDX-License-Identifier: MIT
#include "app/cli/cli_util.h"
#include "app/cli/commands.h"

#include "engine/core/byte_size.h"
#include "engine/core/tensor.h"
#include "engine/core/text.h"
#include "engine/core/thread_pool.h"

#include <cctype>
#include <cmath>
#include <cstdio>

namespace onnxscope::cli {

nlohmann::json valueTypeJson(const ValueType& type)
{
    nlohmann::json j;
    switch (type.kind) {
    case Value::Kind::Tensor:
        j["kind"] = "tensor";
        break;
    case Value::Kind::Sequence:
        j["kind"] = "sequence";
        break;
    case Value::Kind::Map:
        j["kind"] = "map";
        break;
    case Value::Kind::Optional:
        j["kind"] = "optional";
        break;
    case Value::Kind::None:
        j["kind"] = "unknown";
        break;
    }
    j["type"] = type.toString();
    if (type.elementType != DataType::Undefined)
        j["dtype"] = std::string(dataTypeName(type.elementType));
    if (type.kind == Value::Kind::Tensor) {
        if (type.hasShape) {
            nlohmann::json shape = nlohmann::json::array();
            for (const auto& d : type.shape) {
                if (d.known())
                    shape.push_back(d.value);
                else if (!d.symbol.empty())
                    shape.push_back(d.symbol);
                else
                    shape.push_back(nullptr);
            }
            j["shape"] = shape;
        } else {
            j["shape"] = nullptr;
        }
    }
    return j;
}

uint64_t parseByteSize(const std::string& text, const std::string& option)
{
    try {
        return parseByteSizeOrThrow(text, option);
    } catch (const Error& e) {
        throw UsageError(e.what());
    }
}

void LimitOptions::addTo(CLI::App* cmd, bool loops)
{
    if (loops)
        cmd->add_option("--max-loop-iterations", maxLoopIterations,
               "Stop with an error when a Loop runs more than N iterations (0: no limit)")
            ->capture_default_str();
    cmd->add_option("--allocation-limit", allocationLimit,
        "Refuse any single tensor larger than SIZE (e.g. 512M, 4G) with an error naming its shape; the default is the "
        "machine's available memory");
}

void ThreadOptions::addTo(CLI::App* cmd)
{
    cmd->add_option("--threads", threads,
           "Threads a kernel may use (intra-op parallelism); 0 for every hardware thread ("
               + std::to_string(ThreadPool::hardwareThreads()) + " here)")
        ->capture_default_str();
}

std::unique_ptr<ThreadPool> ThreadOptions::makePool() const
{
    if (threads < 0)
        throw UsageError(
            "--threads expects 0 (every hardware thread) or a positive count, got " + std::to_string(threads));
    const int n = threads == 0 ? ThreadPool::hardwareThreads() : threads;
    return n > 1 ? std::make_unique<ThreadPool>(n) : nullptr;
}

ExecutionLimits LimitOptions::apply() const
{
    if (!allocationLimit.empty())
        Tensor::setAllocationLimit(static_cast<size_t>(parseByteSize(allocationLimit, "--allocation-limit")));
    if (maxLoopIterations < 0)
        throw UsageError(
            "--max-loop-iterations expects 0 (no limit) or a positive count, got " + std::to_string(maxLoopIterations));
    ExecutionLimits limits;
    limits.maxLoopIterations = maxLoopIterations;
    return limits;
}

} // namespace onnxscope::cli
