// SPDX-License-Identifier: MIT
#include "engine/core/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace onnxscope {

namespace {

inline void cpuRelax()
{
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#else
    std::this_thread::yield();
#endif
}

// Pause instructions a worker spins for a new job before it sleeps (about half a millisecond).
constexpr int kSpinIterations = 20000;

thread_local int t_parallelDepth = 0;

} // namespace

// Written by hand rather than on Eigen's ThreadPool: kernels need a blocking parallel-for over index ranges with
// exceptions carried back to the caller, and Eigen's non-blocking pool would add a second scheduling layer on top.
struct ThreadPool::State {
    std::vector<std::thread> workers;
    std::mutex busy; // held by the thread whose loop owns the pool

    // The current job, published by bumping `generation`.
    RangeFn fn = nullptr;
    void* context = nullptr;
    int64_t n = 0, blockSize = 1, blockCount = 0;
    std::atomic<int64_t> nextBlock { 0 };
    std::atomic<int> workersLeft { 0 }; // workers not yet done with the current job
    std::atomic<bool> failed { false };
    std::exception_ptr error;
    std::mutex errorMutex;

    std::atomic<uint64_t> generation { 0 };
    std::atomic<bool> stop { false };
    std::mutex sleepMutex;
    std::condition_variable wake;

    void work()
    {
        for (;;) {
            const int64_t b = nextBlock.fetch_add(1, std::memory_order_relaxed);
            if (b >= blockCount)
                return;
            if (failed.load(std::memory_order_relaxed))
                continue;
            const int64_t begin = b * blockSize, end = std::min(n, begin + blockSize);
            try {
                fn(context, begin, end);
            } catch (...) {
                std::lock_guard lock(errorMutex);
                if (!error)
                    error = std::current_exception();
                failed = true;
            }
        }
    }

    void workerLoop()
    {
        t_parallelDepth = 1; // loops started from inside a task run serially
        uint64_t seen = 0;
        for (;;) {
            uint64_t g = generation.load(std::memory_order_acquire);
            for (int i = 0; g == seen && i < kSpinIterations && !stop.load(std::memory_order_relaxed); ++i) {
                cpuRelax();
                g = generation.load(std::memory_order_acquire);
            }
            if (g == seen) {
                std::unique_lock lock(sleepMutex);
                wake.wait(lock, [&] {
                    return generation.load(std::memory_order_acquire) != seen || stop.load(std::memory_order_relaxed);
                });
                g = generation.load(std::memory_order_acquire);
            }
            if (stop.load(std::memory_order_relaxed))
                return;
            seen = g;
            work();
            workersLeft.fetch_sub(1, std::memory_order_acq_rel);
        }
    }
};

ThreadPool::ThreadPool(int threads)
    : m_threads(std::max(1, threads))
    , m_state(std::make_unique<State>())
{
    for (int i = 1; i < m_threads; ++i)
        m_state->workers.emplace_back([s = m_state.get()] { s->workerLoop(); });
}

ThreadPool::~ThreadPool()
{
    {
        std::lock_guard lock(m_state->sleepMutex);
        m_state->stop = true;
    }
    m_state->wake.notify_all();
    for (auto& t : m_state->workers)
        t.join();
}

int ThreadPool::hardwareThreads() { return std::max(1u, std::thread::hardware_concurrency()); }

void ThreadPool::run(int64_t n, int64_t grain, RangeFn fn, void* context)
{
    if (n <= 0)
        return;
    grain = std::max<int64_t>(grain, 1);
    const int64_t maxBlocks = (n + grain - 1) / grain;
    State& s = *m_state;
    std::unique_lock busy(s.busy, std::try_to_lock);
    if (m_threads < 2 || maxBlocks < 2 || t_parallelDepth > 0 || !busy.owns_lock()) {
        fn(context, 0, n);
        return;
    }
    // A few blocks per thread, taken in order by whoever is free, balance uneven blocks and busy cores.
    const int64_t blocks = std::min<int64_t>(maxBlocks, int64_t(4) * m_threads);
    s.fn = fn;
    s.context = context;
    s.n = n;
    s.blockSize = (n + blocks - 1) / blocks;
    s.blockCount = (n + s.blockSize - 1) / s.blockSize;
    s.nextBlock.store(0, std::memory_order_relaxed);
    s.failed.store(false, std::memory_order_relaxed);
    s.error = nullptr;
    s.workersLeft.store(m_threads - 1, std::memory_order_relaxed);
    {
        std::lock_guard lock(s.sleepMutex);
        s.generation.fetch_add(1, std::memory_order_release);
    }
    s.wake.notify_all();
    ++t_parallelDepth;
    s.work();
    --t_parallelDepth;
    while (s.workersLeft.load(std::memory_order_acquire) > 0)
        cpuRelax();
    if (s.error)
        std::rethrow_exception(s.error);
}

} // namespace onnxscope
