// SPDX-License-Identifier: MIT
// The shadow fill: the value log of the pending quiet stretches replayed node by node while they run, on a core the run
// leaves free, trailing the run's position; completeLog() then waits only for what the replay has left when the run
// stops, and merges it as one segment (log_fill.cpp's mergeSegment). The replay starts at the checkpoint where the
// pending stretches began, which holds the values of a run node by node, so the log is bit-identical to one whatever
// the stretches fused.
#include "engine/exec/debug/shadow_fill.h"

#include "engine/core/thread_pool.h"

#include <chrono>
#include <cstdlib>
#include <string_view>
#include <system_error>

namespace onnxscope {

int Debugger::shadowMode()
{
    const char* v = std::getenv("ONNXSCOPE_LOG_SHADOW"); // read per stretch: tests set it
    if (!v || !*v)
        return 3;
    const std::string_view mode(v);
    return mode == "0" ? 0 : mode == "1" ? 1 : 2;
}

bool Debugger::shadowWanted() const
{
    if (m_shadow || m_options.retention != ValueRetention::Summaries
        || m_options.iterationRetention != IterationRetention::All)
        return false;
    // Never beside a run on more than one thread: the replay runs on one, and a kernel may split its work by the
    // thread count in a way that changes the rounding (parallelGemm's blocks go through different GEMM paths), so its
    // log would not be the run's node by node.
    const ThreadPool* pool = m_session.options().threadPool;
    const int runThreads = pool ? std::max(1, pool->threads()) : 1;
    const int mode = shadowMode();
    if (mode == 0 || runThreads > 1 || logThreads() < 2)
        return false;
    if (mode != 3)
        return true;
    // By default only with two hardware threads beyond the run's: on a machine of two, the replay on the second slowed
    // the run by up to 40 % (docs/performance.md: the two may share a core, or its caches), against a debug run's
    // goal of 1.10x a plain one.
    return ThreadPool::hardwareThreads() >= runThreads + 2;
}

void Debugger::startShadow()
{
    const Checkpoint* at = pendingLogStart();
    if (!at)
        return;
    auto shadow = std::make_unique<ShadowFill>();
    DebuggerOptions options = m_options;
    options.memoryBudget = m_options.memoryBudget / 2; // with the run's own, no more than the serial replay's
    shadow->debugger = std::make_unique<Debugger>(m_program, options);
    Debugger& seg = *shadow->debugger;
    Checkpoint start = seg.beginSegment(*this, *at);
    seg.m_session.options().threadPool = nullptr; // the run's pool is the run's: the replay takes the free core alone
    ShadowFill* raw = shadow.get();
    try {
        shadow->thread = std::thread([this, raw, start = std::move(start)] { shadowLoop(*raw, start); });
    } catch (const std::system_error&) {
        return; // no thread to be had: the log is filled after the stop, as without the shadow
    }
    m_shadow = std::move(shadow);
}

void Debugger::shadowLoop(ShadowFill& shadow, const Checkpoint& from)
{
    Debugger& seg = *shadow.debugger;
    std::exception_ptr failure;
    try {
        seg.m_replaying = true;
        const std::vector<CallRecord> none;
        Replayer replay(seg.m_session, &seg, none, from, seg);
        bool more = true;
        while (more) {
            uint64_t limit = 0;
            {
                std::unique_lock lock(shadow.mutex);
                while (true) {
                    const bool running = seg.m_session.state() == Session::State::Running;
                    if (shadow.stop || !running || seg.m_steps >= shadow.target) {
                        more = false;
                        break;
                    }
                    // Up to where the run is: it publishes its position after each step, without a notification.
                    limit = std::min(shadow.target, m_livePosition.load(std::memory_order_relaxed));
                    if (seg.m_steps < limit)
                        break;
                    shadow.cv.wait_for(lock, std::chrono::microseconds(200));
                }
            }
            while (more && seg.m_steps < limit && seg.m_session.state() == Session::State::Running)
                seg.advanceSession(&replay);
        }
        seg.m_replayedSteps = replay.advances();
    } catch (...) {
        failure = std::current_exception();
    }
    seg.m_replaying = false;
    std::lock_guard lock(shadow.mutex);
    shadow.failure = failure;
    shadow.done = true;
    shadow.cv.notify_all();
}

void Debugger::stopShadow()
{
    if (!m_shadow)
        return;
    {
        std::lock_guard lock(m_shadow->mutex);
        m_shadow->stop = true;
        m_shadow->cv.notify_all();
    }
    m_shadow->thread.join();
    m_shadow.reset();
}

Debugger::SegmentFill Debugger::fillLogFromShadow(const std::atomic<bool>* cancel)
{
    ShadowFill& shadow = *m_shadow;
    const uint64_t target = m_steps;
    {
        std::unique_lock lock(shadow.mutex);
        shadow.target = target;
        shadow.cv.notify_all();
        while (!shadow.done) {
            if (cancel && cancel->load()) {
                // The replay goes on trailing the run: a later stretch and fill take it up where it is.
                shadow.target = UINT64_MAX;
                return SegmentFill::Cancelled;
            }
            shadow.cv.wait_for(lock, std::chrono::milliseconds(1));
        }
    }
    shadow.thread.join();
    const std::unique_ptr<ShadowFill> owned = std::move(m_shadow);
    Debugger& seg = *owned->debugger;
    // A replay that did not arrive where the run stopped (it cannot, short of a defect) is left for the other fills.
    if (owned->failure || seg.m_steps != target || seg.m_session.state() != m_session.state()
        || seg.m_session.depth() != m_session.depth())
        return SegmentFill::NotApplicable;
    const Checkpoint* at = pendingLogStart();
    if (!at)
        return SegmentFill::NotApplicable;
    uint64_t ordinal = at->ordinal;
    uint64_t sequence = at->sequence;
    mergeSegment(seg, nullptr, true, ordinal, sequence);
    finishMergedLog(target, ordinal, sequence);
    // The stop holds what the log recorded, as after the serial replay: a run node by node's values, where the run's
    // own may differ in their last bits after a fused step (fusion.h).
    m_session.adoptPosition(seg.m_session);
    m_logShadow = true;
    return SegmentFill::Filled;
}

} // namespace onnxscope
