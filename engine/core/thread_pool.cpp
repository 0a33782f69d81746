// SPDX-License-Identifier: MIT
#include "engine/core/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>
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
//
// The caller never waits for a worker to wake up: it takes blocks itself and waits only for blocks that a worker
// has taken and not finished. Blocks are claimed from `next`, which holds the job number in its high 32 bits, so a
// worker that wakes late for a finished job claims nothing from the next one.
struct ThreadPool::State {
    std::vector<std::thread> workers;
    std::mutex busy; // held by the thread whose loop owns the pool

    // The current job; its fields change only while no block of it is claimed and unfinished.
    RangeFn fn = nullptr;
    void* context = nullptr;
    int64_t n = 0, blockSize = 1;
    std::atomic<int64_t> blockCount { 0 }; // atomic: read before a claim, possibly while the next job is set up
    std::atomic<uint64_t> next { 0 }; // job << 32 | next block index
    std::atomic<int64_t> done { 0 }; // blocks of the current job finished
    std::atomic<bool> failed { false };
    std::exception_ptr error;
    std::mutex errorMutex;

    std::atomic<uint32_t> job { 0 };
    std::atomic<bool> stop { false };
    bool startTried = false; // written under `busy`
    std::atomic<int> started { 0 }; // workers.size(), readable without `busy`
    std::mutex sleepMutex;
    std::condition_variable wake;

    /// Claims and runs blocks of job `j` until none is left.
    void work(uint32_t j)
    {
        for (;;) {
            uint64_t v = next.load(std::memory_order_acquire);
            int64_t b = 0;
            for (;;) {
                if (static_cast<uint32_t>(v >> 32) != j)
                    return;
                b = static_cast<int64_t>(v & 0xffffffffu);
                if (b >= blockCount.load(std::memory_order_relaxed))
                    return;
                if (next.compare_exchange_weak(v, v + 1, std::memory_order_acq_rel, std::memory_order_acquire))
                    break;
            }
            if (!failed.load(std::memory_order_relaxed)) {
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
            done.fetch_add(1, std::memory_order_acq_rel);
        }
    }

    void workerLoop()
    {
        t_parallelDepth = 1; // loops started from inside a task run serially
        uint32_t seen = 0;
        for (;;) {
            uint32_t j = job.load(std::memory_order_acquire);
            for (int i = 0; j == seen && i < kSpinIterations && !stop.load(std::memory_order_relaxed); ++i) {
                cpuRelax();
                j = job.load(std::memory_order_acquire);
            }
            if (j == seen) {
                std::unique_lock lock(sleepMutex);
                wake.wait(lock, [&] {
                    return job.load(std::memory_order_acquire) != seen || stop.load(std::memory_order_relaxed);
                });
                j = job.load(std::memory_order_acquire);
            }
            if (stop.load(std::memory_order_relaxed))
                return;
            seen = j;
            work(j);
        }
    }
};

ThreadPool::ThreadPool(int threads)
    : m_threads(std::max(1, threads))
    , m_state(std::make_unique<State>())
{
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

void ThreadPool::startWorkersLocked()
{
    State& s = *m_state;
    if (s.startTried)
        return;
    s.startTried = true;
    try {
        for (int i = 1; i < m_threads; ++i)
            s.workers.emplace_back([state = &s] { state->workerLoop(); });
    } catch (const std::system_error&) { // no more threads: run on those that started, or on this one
    }
    s.started.store(static_cast<int>(s.workers.size()), std::memory_order_relaxed);
}

void ThreadPool::startWorkers()
{
    std::lock_guard busy(m_state->busy);
    startWorkersLocked();
}

int ThreadPool::startedWorkers() const
{
    return m_state->started.load(std::memory_order_relaxed);
}

int ThreadPool::hardwareThreads()
{
    static const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); // reads /sys
    return hardware;
}

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
    startWorkersLocked(); // the first loop that is split starts the workers
    if (s.workers.empty()) {
        fn(context, 0, n);
        return;
    }
    // A few blocks per thread, taken in order by whoever is free, balance uneven blocks and busy cores.
    const int64_t blocks = std::min<int64_t>(maxBlocks, int64_t(4) * m_threads);
    s.fn = fn;
    s.context = context;
    s.n = n;
    s.blockSize = (n + blocks - 1) / blocks;
    const int64_t blockCount = (n + s.blockSize - 1) / s.blockSize;
    s.blockCount.store(blockCount, std::memory_order_relaxed);
    s.done.store(0, std::memory_order_relaxed);
    s.failed.store(false, std::memory_order_relaxed);
    s.error = nullptr;
    const uint32_t j = s.job.load(std::memory_order_relaxed) + 1;
    s.next.store(static_cast<uint64_t>(j) << 32, std::memory_order_release);
    {
        std::lock_guard lock(s.sleepMutex);
        s.job.store(j, std::memory_order_release);
    }
    s.wake.notify_all();
    ++t_parallelDepth;
    s.work(j);
    --t_parallelDepth;
    while (s.done.load(std::memory_order_acquire) < blockCount)
        cpuRelax();
    if (s.error)
        std::rethrow_exception(s.error);
}

} // namespace onnxscope
