// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>

namespace onnxscope {

/// The intra-op thread pool kernels share (SessionOptions::threadPool, KernelContext::threadPool()). threads() is
/// the total number of threads that work on a parallelFor, the calling thread included, so a pool of 1 starts no
/// thread. Workers start with the first loop that is split, not with the pool: once a process has a second thread,
/// every shared_ptr count change becomes a locked instruction and malloc locks its arena, which made small models
/// (whose loops all stay under the grain) 5-10 % slower with a pool of 2 than of 1. Workers spin briefly after a
/// task before they sleep, so that the many short parallel loops of one run do not pay a wake-up each.
///
/// Only one parallelFor runs at a time: a call from inside a task, or while another thread's loop holds the pool,
/// runs its whole range on the calling thread. The first exception a task throws is rethrown by parallelFor once
/// every task has finished.
class ThreadPool {
public:
    explicit ThreadPool(int threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int threads() const { return m_threads; }

    /// Worker threads started so far: 0 until the first loop that is split, then threads() - 1 (fewer only if the
    /// system refused to start one; the loops then run on those there are).
    int startedWorkers() const;
    /// Starts the workers now rather than with the first split loop: for a pool whose process has other threads
    /// anyway (the GUI), so that no run pays for starting them. Does nothing once they were started.
    void startWorkers();

    /// Calls fn(begin, end) over disjoint ranges that cover [0, n), each of at least `grain` items (except the last
    /// one), in parallel. `Fn` is any callable taking (int64_t, int64_t).
    template <class Fn> void parallelFor(int64_t n, int64_t grain, Fn&& fn)
    {
        run(
            n, grain, [](void* f, int64_t b, int64_t e) { (*static_cast<std::remove_reference_t<Fn>*>(f))(b, e); },
            const_cast<void*>(static_cast<const void*>(&fn)));
    }

    /// Threads the machine can run at once (at least 1).
    static int hardwareThreads();

private:
    using RangeFn = void (*)(void*, int64_t, int64_t);
    void run(int64_t n, int64_t grain, RangeFn fn, void* context);
    void startWorkersLocked(); // with State::busy held

    struct State;
    int m_threads;
    std::unique_ptr<State> m_state;
};

/// pool->parallelFor(n, grain, fn), or fn(0, n) when pool is null, has one thread, or n is below 2 * grain.
template <class Fn> void parallelFor(ThreadPool* pool, int64_t n, int64_t grain, Fn&& fn)
{
    if (n <= 0)
        return;
    if (!pool || pool->threads() < 2 || n < 2 * grain)
        fn(int64_t(0), n);
    else
        pool->parallelFor(n, grain, fn);
}

} // namespace onnxscope
