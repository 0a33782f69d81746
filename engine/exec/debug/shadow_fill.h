// SPDX-License-Identifier: MIT
// The Debugger's shadow fill (log_shadow.cpp): the value log of the pending quiet stretches replayed node by node on a
// thread of its own while the stretches run, trailing their position.
#pragma once

#include "engine/exec/debug/debugger.h"

#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

namespace onnxscope {

struct Debugger::ShadowFill {
    std::unique_ptr<Debugger> debugger; // the replay's: its records, summaries, checkpoints and call records
    std::thread thread;
    std::mutex mutex;
    std::condition_variable cv;
    uint64_t target = UINT64_MAX; // guarded: the position to stop at, once the run stopped (completeLog)
    bool stop = false; // guarded: give up (stopShadow)
    bool done = false; // guarded: the thread ended (at the target, given up, or failed)
    std::exception_ptr failure; // written before `done`
};

} // namespace onnxscope
