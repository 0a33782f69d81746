// SPDX-License-Identifier: MIT
// The intra-op thread pool (every index once, exceptions carried back, nested and concurrent loops) and the SIMD
// loops of engine/kernels/simd at every instruction-set level this CPU runs, against naive double-precision loops
// written here, over random sizes, strides and transposes with a fixed seed; NaN and infinity follow the scalar
// kernels' rules. Then whole kernels (Conv, ConvTranspose, MatMul, Gemm, broadcast Add/Mul, activations, Resize)
// with a pool of 3 threads against the same graph run on one thread. The plain single-threaded kernels are checked
// against references by the other engine tests, which CTest also runs once per SIMD level (ONNXSCOPE_SIMD).
#include "engine/core/sanitizer.h"
#include "engine/core/spare_vectors.h"
#include "engine/core/thread_pool.h"
#include "engine/exec/debug/debugger.h"
#include "engine/exec/session.h"
#include "engine/kernels/common/half_convert.h"
#include "engine/kernels/simd/simd.h"

#include <QtTest>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

using namespace onnxscope;

namespace {

constexpr unsigned kSeed = 20250117;

std::vector<float> randomFloats(std::mt19937& rng, size_t n, float lo = -1.0f, float hi = 1.0f)
{
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> v(n);
    for (float& x : v)
        x = dist(rng);
    return v;
}

/// |got - want| <= atol + rtol * |want|, NaN only where NaN is wanted, infinities equal.
bool close(double got, double want, double rtol = 1e-5, double atol = 1e-5)
{
    if (std::isnan(want))
        return std::isnan(got);
    if (std::isinf(want))
        return got == want;
    return std::abs(got - want) <= atol + rtol * std::abs(want);
}

double activationRef(simd::ActivationParams a, double x)
{
    switch (a.kind) {
    case simd::Activation::None:
        return x;
    case simd::Activation::Relu:
        return x > 0 ? x : 0.0;
    case simd::Activation::LeakyRelu:
        return x >= 0 ? x : a.alpha * x;
    case simd::Activation::Clip:
        return std::isnan(x) ? x : std::min<double>(std::max<double>(x, a.alpha), a.beta);
    case simd::Activation::Sigmoid:
        return 1.0 / (1.0 + std::exp(-x));
    case simd::Activation::Tanh:
        return std::tanh(x);
    case simd::Activation::HardSigmoid:
        return std::isnan(x) ? 1.0 : std::max(0.0, std::min(1.0, a.alpha * x + a.beta));
    case simd::Activation::HardSwish:
        return std::isnan(x) ? x : x * std::max(0.0, std::min(1.0, x / 6 + 0.5));
    case simd::Activation::Silu:
        return x / (1.0 + std::exp(-x));
    case simd::Activation::Gelu:
        return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    case simd::Activation::GeluTanh:
        return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
    case simd::Activation::Erf:
        return std::erf(x);
    case simd::Activation::Exp:
        return static_cast<float>(std::exp(x)); // rounded to float: inf past FLT_MAX
    }
    return 0;
}

double binaryRef(simd::BinaryOp op, double a, double b)
{
    switch (op) {
    case simd::BinaryOp::Add:
        return a + b;
    case simd::BinaryOp::Sub:
        return a - b;
    case simd::BinaryOp::Mul:
        return a * b;
    case simd::BinaryOp::Div:
        return a / b;
    case simd::BinaryOp::Max:
        return std::isnan(a) || std::isnan(b) ? std::numeric_limits<double>::quiet_NaN() : std::max(a, b);
    case simd::BinaryOp::Min:
        return std::isnan(a) || std::isnan(b) ? std::numeric_limits<double>::quiet_NaN() : std::min(a, b);
    }
    return 0;
}

std::string decl(const Shape& shape)
{
    std::string s = "float[";
    for (size_t i = 0; i < shape.size(); ++i)
        s += (i ? "," : "") + std::to_string(shape[i]);
    return s + "]";
}

/// Runs a one-node graph `node` (output y) on the inputs, with `pool` (null: one thread).
Tensor runGraph(const std::string& node, const std::vector<std::pair<std::string, Tensor>>& ins, ThreadPool* pool,
    int64_t opset = 14)
{
    std::string inputs;
    std::map<std::string, Value> values;
    for (const auto& [name, t] : ins) {
        inputs += (inputs.empty() ? "" : ", ") + decl(t.shape()) + " " + name;
        values[name] = Value(t);
    }
    const std::string text = "<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + "]>\nagraph (" + inputs
        + ") => (float[?] y) {\n" + node + "\n}";
    SessionOptions options;
    options.threadPool = pool;
    Session session(std::make_shared<Program>(Model::fromText(text)), options);
    return session.run(values).at("y").tensor();
}

Tensor randomTensor(std::mt19937& rng, const Shape& shape)
{
    Tensor t(DataType::Float, shape);
    auto v = randomFloats(rng, static_cast<size_t>(t.size()));
    std::copy(v.begin(), v.end(), t.data<float>().begin());
    return t;
}

} // namespace

namespace {

/// The /proc/self/smaps entry of the mapping that holds `address`: whether there is one, its resident KiB and its
/// VmFlags ("hg": madvise(MADV_HUGEPAGE)).
struct Mapping {
    bool found = false;
    size_t rssKib = 0;
    std::string flags;
};

Mapping mappingOf(const void* address)
{
    std::ifstream smaps("/proc/self/smaps");
    const auto at = reinterpret_cast<uintptr_t>(address);
    std::string line;
    Mapping m;
    bool inside = false;
    while (std::getline(smaps, line)) {
        unsigned long long start = 0, end = 0;
        if (std::sscanf(line.c_str(), "%llx-%llx ", &start, &end) == 2 && line.find('-') < line.find(' ')) {
            if (inside)
                break;
            inside = at >= start && at < end;
            m.found = inside;
        } else if (inside && line.rfind("Rss:", 0) == 0) {
            m.rssKib = std::stoull(line.substr(4));
        } else if (inside && line.rfind("VmFlags:", 0) == 0) {
            m.flags = line.substr(8);
        }
    }
    return m;
}

} // namespace

class TestSimd : public QObject {
    Q_OBJECT

private slots:
    void poolCoversEveryIndexOnce()
    {
        for (int threads : { 1, 2, 3, 5 }) {
            ThreadPool pool(threads);
            QCOMPARE(pool.threads(), threads);
            for (int64_t n : { 0, 1, 2, 7, 64, 1000, 100003 })
                for (int64_t grain : { 1, 3, 100, 5000 }) {
                    std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
                    std::atomic<int64_t> calls { 0 };
                    std::atomic<bool> emptyRange { false };
                    pool.parallelFor(n, grain, [&](int64_t b, int64_t e) {
                        if (b >= e)
                            emptyRange = true;
                        ++calls;
                        for (int64_t i = b; i < e; ++i)
                            ++hits[static_cast<size_t>(i)];
                    });
                    for (int64_t i = 0; i < n; ++i)
                        QVERIFY2(hits[static_cast<size_t>(i)] == 1,
                            qPrintable(QString("threads %1, n %2, grain %3: index %4 ran %5 times")
                                           .arg(threads)
                                           .arg(n)
                                           .arg(grain)
                                           .arg(i)
                                           .arg(hits[i].load())));
                    QVERIFY(!emptyRange);
                    QVERIFY(calls <= std::max<int64_t>(1, (n + grain - 1) / grain));
                }
        }
    }

    void poolRethrowsTheFirstErrorAfterEveryTask()
    {
        ThreadPool pool(3);
        std::atomic<int> finished { 0 };
        bool caught = false;
        try {
            pool.parallelFor(1000, 10, [&](int64_t b, int64_t e) {
                if (b <= 500 && 500 < e)
                    throw std::runtime_error("task failed");
                ++finished;
            });
        } catch (const std::runtime_error& e) {
            caught = std::string(e.what()) == "task failed";
        }
        QVERIFY(caught);
        // The pool is usable afterwards.
        std::atomic<int64_t> sum { 0 };
        pool.parallelFor(100, 1, [&](int64_t b, int64_t e) {
            for (int64_t i = b; i < e; ++i)
                sum += i;
        });
        QCOMPARE(sum.load(), int64_t(4950));
    }

    // A process with a second thread pays a lock for every shared_ptr count change, so a pool whose loops all stay
    // under the grain must not start one.
    void poolStartsItsWorkersWithTheFirstSplitLoop()
    {
        const auto threadsOfProcess = [] {
            return std::distance(
                std::filesystem::directory_iterator("/proc/self/task"), std::filesystem::directory_iterator {});
        };
        const auto before = threadsOfProcess();
        ThreadPool pool(3);
        int64_t sum = 0;
        for (int r = 0; r < 10; ++r) { // as kernels call it: under 2 grains, one range
            parallelFor(&pool, 100, 64, [&](int64_t b, int64_t e) { sum += e - b; });
            pool.parallelFor(50, 64, [&](int64_t b, int64_t e) { sum += e - b; });
        }
        QCOMPARE(sum, int64_t(1500));
        QCOMPARE(pool.startedWorkers(), 0);
        QCOMPARE(threadsOfProcess(), before);

        std::atomic<int64_t> split { 0 };
        pool.parallelFor(1000, 10, [&](int64_t b, int64_t e) { split += e - b; });
        QCOMPARE(split.load(), int64_t(1000));
        QCOMPARE(pool.startedWorkers(), 2);
        QCOMPARE(threadsOfProcess(), before + 2);
        pool.parallelFor(1000, 10, [&](int64_t b, int64_t e) { split += e - b; });
        QCOMPARE(split.load(), int64_t(2000));
        QCOMPARE(pool.startedWorkers(), 2); // started once

        // A pool can also start them at once (the GUI does: its process has threads anyway).
        ThreadPool eager(2);
        eager.startWorkers();
        QCOMPARE(eager.startedWorkers(), 1);
        QCOMPARE(threadsOfProcess(), before + 3);
        eager.startWorkers(); // no second start
        QCOMPARE(threadsOfProcess(), before + 3);
    }

    void nestedAndConcurrentLoopsRunWithoutDeadlock()
    {
        ThreadPool pool(2);
        std::atomic<int64_t> sum { 0 };
        pool.parallelFor(8, 1, [&](int64_t b, int64_t e) {
            for (int64_t i = b; i < e; ++i)
                pool.parallelFor(100, 1, [&](int64_t c, int64_t d) { sum += d - c; });
        });
        QCOMPARE(sum.load(), int64_t(800));
        sum = 0;
        std::vector<std::thread> callers;
        for (int t = 0; t < 4; ++t)
            callers.emplace_back([&] {
                for (int r = 0; r < 50; ++r)
                    pool.parallelFor(1000, 10, [&](int64_t c, int64_t d) { sum += d - c; });
            });
        for (auto& t : callers)
            t.join();
        QCOMPARE(sum.load(), int64_t(4 * 50 * 1000));
    }

    void storageCacheHandsBackZeroedBlocks()
    {
        Tensor::releaseCachedStorage();
        const Shape shape { 512, 1024 }; // 2 MiB, above the cache's 64 KiB threshold
        const void* first = nullptr;
        {
            Tensor t = Tensor::uninitialized(DataType::Float, shape);
            first = t.raw();
            std::fill(t.data<float>().begin(), t.data<float>().end(), 7.0f);
        }
        QVERIFY(Tensor::cachedStorageBytes() >= size_t(2) << 20);
        Tensor zeroed(DataType::Float, shape);
        QCOMPARE(zeroed.raw(), first); // the released block, reused
        for (float v : zeroed.data<float>())
            QCOMPARE(v, 0.0f);
        QCOMPARE(Tensor::cachedStorageBytes(), size_t(0));
        Tensor::releaseCachedStorage();
    }

    void smallTensorsAreAlignedZeroedAndApart()
    {
        // Below the cache's 64 KiB the elements share one allocation with the storage's reference counts. Every size
        // and element type: elements at a 64-byte boundary, zeroed unless asked not to be, and no two tensors
        // overlapping (filled in turn with distinct bytes, each still reads its own; in sanitized builds, a write
        // past the elements would be reported).
        std::vector<Tensor> tensors;
        for (DataType type : { DataType::Float, DataType::Double, DataType::Int8, DataType::Bool, DataType::Float16 })
            for (int64_t n : { 0, 1, 3, 15, 16, 17, 63, 64, 65, 1000, 4096, 16383 }) {
                Tensor zeroed(type, { n });
                QVERIFY2(reinterpret_cast<uintptr_t>(zeroed.raw()) % 64 == 0, qPrintable(QString::number(n)));
                const auto* bytes = static_cast<const unsigned char*>(zeroed.raw());
                QVERIFY(std::all_of(bytes, bytes + zeroed.byteSize(), [](unsigned char b) { return b == 0; }));
                tensors.push_back(zeroed);
                tensors.push_back(Tensor::uninitialized(type, { n }));
                QVERIFY(reinterpret_cast<uintptr_t>(tensors.back().raw()) % 64 == 0);
            }
        for (size_t i = 0; i < tensors.size(); ++i)
            std::memset(tensors[i].mutableRaw(), static_cast<int>(i % 251), tensors[i].byteSize());
        for (size_t i = 0; i < tensors.size(); ++i) {
            const auto* bytes = static_cast<const unsigned char*>(tensors[i].raw());
            const auto mark = static_cast<unsigned char>(i % 251);
            QVERIFY2(std::all_of(bytes, bytes + tensors[i].byteSize(), [&](unsigned char b) { return b == mark; }),
                qPrintable(QString("tensor %1 was overwritten").arg(i)));
        }
        // A copy shares the elements; the storage outlives the tensor it was made for.
        Tensor copy = tensors[3];
        tensors.clear();
        QCOMPARE(static_cast<const unsigned char*>(copy.raw())[0], static_cast<unsigned char>(3));
    }

    void shapesOutliveTheTensorsTheyWereMadeFor()
    {
        // A small tensor's shape lives in its storage's block; a large one's, a reshaped one's and one over outside
        // storage have a block of their own. Each copy, move and reshape must keep a shape that reads right after
        // every other holder is gone (in sanitized builds, a shape read from a freed block is reported).
        for (int64_t n : { 2, 40000 }) { // 16 bytes and 160 KB: inline, and from the storage cache
            auto original = std::make_unique<Tensor>(DataType::Float, Shape { 1, n, 2 });
            original->data<float>()[0] = 5.0f;
            Tensor copy = *original;
            Tensor reshaped = original->reshaped({ 2 * n });
            original.reset();
            QCOMPARE(copy.shape(), (Shape { 1, n, 2 }));
            QCOMPARE(copy.rank(), int64_t(3));
            QCOMPARE(reshaped.shape(), (Shape { 2 * n }));

            Tensor moved = std::move(copy);
            QCOMPARE(moved.shape(), (Shape { 1, n, 2 }));
            QCOMPARE(copy.rank(), int64_t(0)); // NOLINT(bugprone-use-after-move): the moved-from state is defined
            Tensor assigned;
            assigned = std::move(moved);
            moved = Tensor(); // the source is reusable
            QCOMPARE(assigned.shape(), (Shape { 1, n, 2 }));
            QCOMPARE(assigned.data<float>()[0], 5.0f);
            assigned = Tensor::scalar(1.5f); // over a tensor whose shape lived in the storage let go of
            QCOMPARE(assigned.rank(), int64_t(0));
            QCOMPARE(assigned.size(), int64_t(1));
        }
        // Over outside storage: the first write copies the elements, and the shape stays when the outside storage goes.
        auto outside = std::make_shared<std::vector<float>>(6, 2.0f);
        Tensor wrapped(DataType::Float, { 2, 3 }, std::shared_ptr<const void>(outside, outside->data()));
        wrapped.data<float>()[1] = 7.0f;
        outside.reset();
        QCOMPARE(wrapped.shape(), (Shape { 2, 3 }));
        QCOMPARE(wrapped.data<float>()[0], 2.0f);
        QCOMPARE(wrapped.data<float>()[1], 7.0f);
    }

    void spareVectorsKeepEmptiedBlocksForTheirThread()
    {
        using Spare = SpareVectors<std::shared_ptr<int>>;
        auto held = std::make_shared<int>(7);
        std::vector<std::shared_ptr<int>> v = Spare::take(100);
        QVERIFY(v.empty() && v.capacity() >= 100);
        const void* block = v.data();
        v.assign(50, held);
        Spare::give(v);
        QCOMPARE(held.use_count(), 1L); // the elements were destroyed, the block kept
        std::vector<std::shared_ptr<int>> again = Spare::take(80);
        QCOMPARE(static_cast<const void*>(again.data()), block);
        QVERIFY(again.empty());
        std::vector<std::shared_ptr<int>> larger = Spare::take(200); // none kept has the room
        QVERIFY(larger.capacity() >= 200 && static_cast<const void*>(larger.data()) != block);
        // Another thread has its own: it does not get this thread's block.
        Spare::give(again);
        std::thread([&] { QVERIFY(static_cast<const void*>(Spare::take(10).data()) != block); }).join();
        QCOMPARE(static_cast<const void*>(Spare::take(10).data()), block);
        // A block beyond kMaxElements goes back to malloc (a kept one would come back here, to any size asked).
        std::vector<std::shared_ptr<int>> huge = Spare::take(Spare::kMaxElements + 1);
        Spare::give(huge);
        QVERIFY(Spare::take(10).capacity() < Spare::kMaxElements);
        // At most kMaxBytes in all: of six vectors of a little more than a quarter of it each, three are kept (told
        // apart from new ones by their capacities). Elements of 1 KiB, so that kMaxElements does not decide first.
        {
            using Block = std::array<uint64_t, 128>;
            using LargeSpare = SpareVectors<Block>;
            constexpr size_t quarter = LargeSpare::kMaxBytes / 4 / sizeof(Block);
            static_assert(quarter + 6 <= LargeSpare::kMaxElements);
            std::vector<std::vector<Block>> large;
            for (size_t i = 1; i <= 6; ++i)
                large.push_back(LargeSpare::take(quarter + i));
            for (auto& l : large)
                LargeSpare::give(l);
            size_t kept = 0;
            std::vector<std::vector<Block>> back;
            for (int i = 0; i < 6; ++i) {
                back.push_back(LargeSpare::take(quarter));
                kept += back.back().capacity() > quarter ? 1 : 0;
            }
            QCOMPARE(kept, size_t(3));
        }
        // At most kMaxKept are kept: told apart by their capacities, as malloc may hand out a freed block's address.
        std::vector<std::vector<std::shared_ptr<int>>> many;
        for (size_t i = 1; i <= Spare::kMaxKept + 4; ++i)
            many.push_back(Spare::take(1000 + i));
        for (auto& m : many)
            Spare::give(m);
        std::vector<std::vector<std::shared_ptr<int>>> taken;
        size_t reused = 0;
        for (size_t i = 0; i < Spare::kMaxKept + 4; ++i) {
            taken.push_back(Spare::take(1000));
            reused += taken.back().capacity() > 1000 ? 1 : 0;
        }
        QCOMPARE(reused, Spare::kMaxKept);
    }

    void smallBlocksGoBackToTheThreadThatFreesThem()
    {
        Tensor::releaseCachedStorage();
        QCOMPARE(Tensor::cachedStorageBytes(), size_t(0));
        const auto make = [](int count, int64_t elements) {
            std::vector<Tensor> out;
            for (int i = 0; i < count; ++i)
                out.push_back(Tensor::uninitialized(DataType::Float, { elements }));
            return out;
        };
        std::vector<Tensor> first = make(100, 100);
        std::set<const void*> addresses;
        for (const Tensor& t : first)
            addresses.insert(t.raw());
        first.clear();
        const size_t held = Tensor::cachedStorageBytes();
        if (ONNXSCOPE_ASAN) {
            QCOMPARE(held, size_t(0)); // malloc's own, where AddressSanitizer watches them
            return;
        }
        QVERIFY2(held >= 100 * 400, qPrintable(QString::number(held)));
        // The next tensors of that size take the same blocks, zeroed when asked to be.
        std::vector<Tensor> second = make(99, 100);
        second.emplace_back(DataType::Float, Shape { 100 });
        for (const Tensor& t : second)
            QVERIFY(addresses.count(t.raw()));
        for (float v : second.back().data<float>())
            QCOMPARE(v, 0.0f);
        QCOMPARE(Tensor::cachedStorageBytes(), size_t(0));
        second.clear();
        // At most 16 MiB: 400 tensors of 60 KiB are 23 MiB.
        make(400, 15 * 1024);
        QVERIFY(Tensor::cachedStorageBytes() <= size_t(16) << 20);
        QVERIFY(Tensor::cachedStorageBytes() >= size_t(15) << 20);
        Tensor::releaseCachedStorage();
        QCOMPARE(Tensor::cachedStorageBytes(), size_t(0));
        // Tensors made on one thread and freed on another, both ways; the other thread's cache goes with it.
        std::vector<Tensor> fromMain = make(50, 100);
        std::vector<Tensor> fromWorker;
        std::thread worker([&] {
            fromWorker = make(50, 200);
            fromMain.clear();
            QVERIFY(Tensor::cachedStorageBytes() >= 50 * 400);
        });
        worker.join();
        fromWorker.clear();
        QVERIFY(Tensor::cachedStorageBytes() >= 50 * 800);
        Tensor::releaseCachedStorage();
    }

    void storageCacheBlocksAskForHugePagesAndGoBack()
    {
#if ONNXSCOPE_ASAN
        QSKIP("sanitized builds keep every block in malloc's memory, where AddressSanitizer checks it");
#else
        Tensor::releaseCachedStorage();
        const Shape shape { 2048, 1024 }; // 8 MiB: a block in one of the arena's chunks
        const void* block = nullptr;
        size_t residentFilled = 0;
        {
            Tensor t(DataType::Float, shape);
            block = t.raw();
            std::fill(t.data<float>().begin(), t.data<float>().end(), 1.5f);
            const Mapping m = mappingOf(block);
            QVERIFY(m.found);
            if (QFile::exists("/sys/kernel/mm/transparent_hugepage/enabled"))
                QVERIFY2(m.flags.find(" hg") != std::string::npos, m.flags.c_str());
            residentFilled = m.rssKib;
            QVERIFY2(residentFilled >= 8192, qPrintable(QString::number(residentFilled)));
        }
        // Released to the cache, still resident; the thread's small-block cache holds the block of its shape too.
        const size_t cached = Tensor::cachedStorageBytes();
        QVERIFY2(cached >= (size_t(8) << 20) && cached < (size_t(8) << 20) + 256, qPrintable(QString::number(cached)));
        QCOMPARE(mappingOf(block).rssKib, residentFilled);
        Tensor::releaseCachedStorage(); // the memory goes back to the system, the address range stays
        const Mapping released = mappingOf(block);
        QVERIFY(released.found);
        QVERIFY2(released.rssKib + 8192 <= residentFilled,
            qPrintable(QString("%1 KiB resident after release, %2 before").arg(released.rssKib).arg(residentFilled)));
        {
            Tensor again(DataType::Float, shape);
            QCOMPARE(again.raw(), block); // the same range, for the same size
            for (float v : again.data<float>())
                QCOMPARE(v, 0.0f);
        }
        Tensor::releaseCachedStorage();

        // 80 MiB: a mapping of its own, unmapped when released.
        const void* big = nullptr;
        {
            Tensor t(DataType::Float, Shape { 20, 1024, 1024 });
            big = t.raw();
            t.data<float>()[t.size() - 1] = 3.0f;
            QVERIFY(mappingOf(big).found);
            QCOMPARE(reinterpret_cast<uintptr_t>(big) % (uintptr_t(2) << 20), uintptr_t(0));
        }
        Tensor::releaseCachedStorage();
        QVERIFY(!mappingOf(big).found);
#endif
    }

    void gemmMatchesNaiveProduct()
    {
        std::mt19937 rng(kSeed);
        std::uniform_int_distribution<int64_t> dim(1, 70);
        for (const simd::Ops* ops : simd::supportedOps()) {
            for (int trial = 0; trial < 60; ++trial) {
                const int64_t m = trial == 0 ? 130 : dim(rng), n = trial == 0 ? 257 : dim(rng),
                              k = trial == 0 ? 300 : (trial == 1 ? 0 : dim(rng));
                const bool ta = trial % 2, tb = (trial / 2) % 2, acc = (trial / 4) % 2;
                const int64_t lda = (ta ? m : k) + trial % 3, ldb = (tb ? k : n) + trial % 5, ldc = n + trial % 4;
                auto a = randomFloats(rng, static_cast<size_t>((ta ? k : m) * lda + 1));
                auto b = randomFloats(rng, static_cast<size_t>((tb ? n : k) * ldb + 1));
                auto c = randomFloats(rng, static_cast<size_t>(m * ldc));
                const auto c0 = c;
                ops->gemm(m, n, k, a.data(), lda, ta, b.data(), ldb, tb, c.data(), ldc, acc);
                for (int64_t i = 0; i < m; ++i)
                    for (int64_t j = 0; j < n; ++j) {
                        double want = acc ? c0[static_cast<size_t>(i * ldc + j)] : 0.0;
                        for (int64_t p = 0; p < k; ++p)
                            want += double(a[static_cast<size_t>(ta ? p * lda + i : i * lda + p)])
                                * b[static_cast<size_t>(tb ? j * ldb + p : p * ldb + j)];
                        const double got = c[static_cast<size_t>(i * ldc + j)];
                        QVERIFY2(close(got, want, 1e-4, 1e-4),
                            qPrintable(
                                QString("%1: m %2 n %3 k %4 transA %5 transB %6 accumulate %7, seed %8: C[%9, %10] "
                                        "= %11, expected %12")
                                    .arg(ops->name)
                                    .arg(m)
                                    .arg(n)
                                    .arg(k)
                                    .arg(ta)
                                    .arg(tb)
                                    .arg(acc)
                                    .arg(kSeed)
                                    .arg(i)
                                    .arg(j)
                                    .arg(got)
                                    .arg(want)));
                    }
                // Columns past n in each row of C are left alone.
                for (int64_t i = 0; i < m; ++i)
                    for (int64_t j = n; j < ldc; ++j)
                        QCOMPARE(c[static_cast<size_t>(i * ldc + j)], c0[static_cast<size_t>(i * ldc + j)]);
            }
        }
    }

    void gemmBiasMatchesNaiveProduct()
    {
        // Row counts around the register tiles (6 and 8 rows), column counts around whole and partial vectors and
        // below one vector (the narrow path of dot products).
        std::mt19937 rng(kSeed + 7);
        std::uniform_int_distribution<int64_t> rowsDist(1, 19), colsDist(1, 70), depthDist(0, 40), padDist(0, 5);
        for (const simd::Ops* ops : simd::supportedOps()) {
            for (int trial = 0; trial < 80; ++trial) {
                // Trial 1: fewer columns than a vector, k over several of the narrow path's blocks.
                const int64_t m = trial == 0 ? 96 : (trial == 1 ? 13 : rowsDist(rng)),
                              n = trial == 0 ? 300 : (trial == 1 ? 5 : colsDist(rng)),
                              k = trial == 0 ? 288 : (trial == 1 ? 1100 : depthDist(rng));
                const int64_t lda = k + padDist(rng), ldb = n + padDist(rng), ldc = n + padDist(rng);
                const bool withBias = trial % 3 != 0;
                auto a = randomFloats(rng, static_cast<size_t>(m * lda + 1));
                auto b = randomFloats(rng, static_cast<size_t>(k * ldb + 1));
                auto bias = randomFloats(rng, static_cast<size_t>(m));
                auto c = randomFloats(rng, static_cast<size_t>(m * ldc));
                const auto c0 = c;
                ops->gemmBias(m, n, k, a.data(), lda, b.data(), ldb, withBias ? bias.data() : nullptr, c.data(), ldc);
                for (int64_t i = 0; i < m; ++i) {
                    for (int64_t j = 0; j < n; ++j) {
                        double want = withBias ? bias[static_cast<size_t>(i)] : 0.0;
                        for (int64_t p = 0; p < k; ++p)
                            want += double(a[static_cast<size_t>(i * lda + p)]) * b[static_cast<size_t>(p * ldb + j)];
                        const double got = c[static_cast<size_t>(i * ldc + j)];
                        QVERIFY2(close(got, want, 1e-4, 1e-4),
                            qPrintable(QString("%1: m %2 n %3 k %4 bias %5, seed %6: C[%7, %8] = %9, expected %10")
                                           .arg(ops->name)
                                           .arg(m)
                                           .arg(n)
                                           .arg(k)
                                           .arg(withBias)
                                           .arg(kSeed + 7)
                                           .arg(i)
                                           .arg(j)
                                           .arg(got)
                                           .arg(want)));
                    }
                    for (int64_t j = n; j < ldc; ++j) // columns past n are left alone
                        QCOMPARE(c[static_cast<size_t>(i * ldc + j)], c0[static_cast<size_t>(i * ldc + j)]);
                }
            }
        }
    }

    void gemmBiasOnPackedPanelsEqualsTheUnpackedTiles()
    {
        // Products with many rows and a deep k run on panels of B packed block by block of k; fewer rows run on the
        // register tiles over B in place. Each element is the same chain of multiply-adds either way, so C computed
        // whole equals C computed a few rows at a time, to the bit: across blocks of k (depth past 192 and 256),
        // row counts that end in a partial tile, and column counts that end in partial panels and vectors. The
        // baseline level runs on Eigen's GEMM, whose blocking depends on the sizes: there only the definition holds.
        std::mt19937 rng(kSeed + 8);
        std::uniform_int_distribution<int64_t> rowsDist(16, 70), colsDist(16, 230), depthDist(32, 700), padDist(0, 3);
        for (const simd::Ops* ops : simd::supportedOps()) {
            for (int trial = 0; trial < 30; ++trial) {
                const int64_t m = rowsDist(rng), n = colsDist(rng), k = trial == 0 ? 1100 : depthDist(rng);
                const int64_t lda = k + padDist(rng), ldb = n + padDist(rng), ldc = n + padDist(rng);
                const bool withBias = trial % 2 == 0;
                const auto a = randomFloats(rng, static_cast<size_t>(m * lda));
                const auto b = randomFloats(rng, static_cast<size_t>(k * ldb));
                const auto bias = randomFloats(rng, static_cast<size_t>(m));
                const auto c0 = randomFloats(rng, static_cast<size_t>(m * ldc));
                auto whole = c0, byRows = c0;
                ops->gemmBias(
                    m, n, k, a.data(), lda, b.data(), ldb, withBias ? bias.data() : nullptr, whole.data(), ldc);
                for (int64_t i = 0; i < m; i += 5) {
                    const int64_t rows = std::min<int64_t>(5, m - i);
                    ops->gemmBias(rows, n, k, a.data() + i * lda, lda, b.data(), ldb,
                        withBias ? bias.data() + i : nullptr, byRows.data() + i * ldc, ldc);
                }
                for (int64_t i = 0; i < m; ++i)
                    for (int64_t j = 0; j < ldc; ++j) {
                        const size_t at = static_cast<size_t>(i * ldc + j);
                        const bool tiled = std::string(ops->name) != "baseline";
                        QVERIFY2(!tiled || whole[at] == byRows[at],
                            qPrintable(QString("%1: m %2 n %3 k %4: C[%5, %6] = %7 whole, %8 by rows")
                                           .arg(ops->name)
                                           .arg(m)
                                           .arg(n)
                                           .arg(k)
                                           .arg(i)
                                           .arg(j)
                                           .arg(whole[at], 0, 'g', 9)
                                           .arg(byRows[at], 0, 'g', 9)));
                        if (j >= n)
                            QCOMPARE(whole[at], c0[at]);
                    }
                // gemmPanels (B in panels of kGemmPanel columns) and gemmPackedA (A packed by packA, B in place or in
                // panels) give the same floats.
                std::vector<float> panels(static_cast<size_t>(k * n + simd::kGemmPanelSlack), 0.0f);
                for (int64_t j0 = 0; j0 < n; j0 += simd::kGemmPanel) {
                    const int64_t w = std::min(simd::kGemmPanel, n - j0);
                    for (int64_t p = 0; p < k; ++p)
                        for (int64_t q = 0; q < w; ++q)
                            panels[static_cast<size_t>(j0 * k + p * w + q)] = b[static_cast<size_t>(p * ldb + j0 + q)];
                }
                std::vector<float> ap(static_cast<size_t>((m + ops->packRows - 1) / ops->packRows * ops->packRows * k));
                ops->packA(m, k, a.data(), lda, ap.data());
                const float* bp = withBias ? bias.data() : nullptr;
                auto viaPanels = c0, packedInPlace = c0, packedPanels = c0;
                ops->gemmPanels(m, n, k, a.data(), lda, panels.data(), bp, viaPanels.data(), ldc);
                ops->gemmPackedA(m, n, k, ap.data(), b.data(), ldb, bp, packedInPlace.data(), ldc);
                ops->gemmPackedA(m, n, k, ap.data(), panels.data(), 0, bp, packedPanels.data(), ldc);
                for (const auto* other : { &viaPanels, &packedInPlace, &packedPanels })
                    for (size_t at = 0; at < whole.size(); ++at) {
                        const bool outside = static_cast<int64_t>(at) % ldc >= n;
                        QVERIFY2(outside
                                ? (*other)[at] == c0[at]
                                : (std::string(ops->name) != "baseline" ? (*other)[at] == whole[at]
                                                                        : close((*other)[at], whole[at], 1e-4, 1e-4)),
                            qPrintable(QString("%1: m %2 n %3 k %4: element %5 = %6, gemmBias %7")
                                           .arg(ops->name)
                                           .arg(m)
                                           .arg(n)
                                           .arg(k)
                                           .arg(at)
                                           .arg((*other)[at], 0, 'g', 9)
                                           .arg(whole[at], 0, 'g', 9)));
                    }
                // And against the definition, for the packed path's own correctness.
                for (int64_t i = 0; i < m; i += 7)
                    for (int64_t j = 0; j < n; j += 3) {
                        double want = withBias ? bias[static_cast<size_t>(i)] : 0.0;
                        for (int64_t p = 0; p < k; ++p)
                            want += double(a[static_cast<size_t>(i * lda + p)]) * b[static_cast<size_t>(p * ldb + j)];
                        QVERIFY(close(whole[static_cast<size_t>(i * ldc + j)], want, 1e-4, 1e-4));
                    }
            }
        }
    }

    void activationsMatchTheScalarRules()
    {
        std::mt19937 rng(kSeed + 1);
        auto x = randomFloats(rng, 1037, -8.0f, 8.0f);
        const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
        for (float special :
            { nan, inf, -inf, 0.0f, -0.0f, 100.0f, -100.0f, 3.0f, -3.0f, 88.5f, 88.72f, 88.73f, -87.5f, -103.0f })
            x.push_back(special);
        const simd::ActivationParams params[] = { { simd::Activation::None }, { simd::Activation::Relu },
            { simd::Activation::LeakyRelu, 0.1f }, { simd::Activation::Clip, -0.5f, 2.0f },
            { simd::Activation::Sigmoid }, { simd::Activation::Tanh }, { simd::Activation::HardSigmoid, 0.2f, 0.5f },
            { simd::Activation::HardSwish }, { simd::Activation::Silu }, { simd::Activation::Gelu },
            { simd::Activation::GeluTanh }, { simd::Activation::Erf }, { simd::Activation::Exp } };
        for (const simd::Ops* ops : simd::supportedOps())
            for (const auto& p : params) {
                std::vector<float> y(x.size());
                ops->activation(x.data(), y.data(), static_cast<int64_t>(x.size()), p);
                std::vector<float> inPlace = x;
                ops->activation(inPlace.data(), inPlace.data(), static_cast<int64_t>(x.size()), p);
                for (size_t i = 0; i < x.size(); ++i) {
                    const double want = activationRef(p, x[i]);
                    QVERIFY2(close(y[i], want, 2e-6, 1e-6),
                        qPrintable(QString("%1, activation %2: f(%3) = %4, expected %5")
                                       .arg(ops->name)
                                       .arg(int(p.kind))
                                       .arg(x[i])
                                       .arg(y[i])
                                       .arg(want)));
                    QVERIFY2(std::isnan(y[i]) ? std::isnan(inPlace[i]) : inPlace[i] == y[i],
                        qPrintable(QString("%1, activation %2 in place: f(%3) = %4, out of place %5")
                                       .arg(ops->name)
                                       .arg(int(p.kind))
                                       .arg(x[i])
                                       .arg(inPlace[i])
                                       .arg(y[i])));
                }
            }
    }

    void biasActivationAddsPerRow()
    {
        std::mt19937 rng(kSeed + 2);
        for (const simd::Ops* ops : simd::supportedOps()) {
            const int64_t rows = 5, size = 37;
            auto y = randomFloats(rng, rows * size);
            auto bias = randomFloats(rng, rows);
            const auto y0 = y;
            ops->biasActivation(y.data(), rows, size, bias.data(), { simd::Activation::Relu });
            for (int64_t r = 0; r < rows; ++r)
                for (int64_t i = 0; i < size; ++i)
                    QVERIFY(close(
                        y[size_t(r * size + i)], std::max(0.0, double(y0[size_t(r * size + i)]) + bias[size_t(r)])));
        }
    }

    void binaryMatchesForEveryStridePattern()
    {
        std::mt19937 rng(kSeed + 3);
        auto a = randomFloats(rng, 515), b = randomFloats(rng, 515);
        a[3] = std::numeric_limits<float>::quiet_NaN();
        b[7] = std::numeric_limits<float>::quiet_NaN();
        b[9] = 0.0f;
        for (const simd::Ops* ops : simd::supportedOps())
            for (auto op : { simd::BinaryOp::Add, simd::BinaryOp::Sub, simd::BinaryOp::Mul, simd::BinaryOp::Div,
                     simd::BinaryOp::Max, simd::BinaryOp::Min })
                for (int64_t sa : { 0, 1 })
                    for (int64_t sb : { 0, 1 }) {
                        std::vector<float> y(a.size());
                        ops->binary(op, a.data(), sa, b.data(), sb, y.data(), static_cast<int64_t>(y.size()));
                        for (size_t i = 0; i < y.size(); ++i) {
                            const double want = binaryRef(op, a[sa ? i : 0], b[sb ? i : 0]);
                            QVERIFY2(close(y[i], want, 1e-6, 0),
                                qPrintable(QString("%1, op %2, strides %3/%4: y[%5] = %6, expected %7")
                                               .arg(ops->name)
                                               .arg(int(op))
                                               .arg(sa)
                                               .arg(sb)
                                               .arg(i)
                                               .arg(y[i])
                                               .arg(want)));
                        }
                    }
    }

    void inPlaceLoopsMatchTheOutOfPlaceOnes()
    {
        std::mt19937 rng(kSeed + 8);
        const auto a = randomFloats(rng, 1003), b = randomFloats(rng, 1003);
        for (const simd::Ops* ops : simd::supportedOps()) {
            for (auto op : { simd::BinaryOp::Sub, simd::BinaryOp::Div })
                for (int64_t sa : { 0, 1 })
                    for (int64_t sb : { 0, 1 }) {
                        if (!sa && !sb)
                            continue;
                        std::vector<float> expected(a.size());
                        ops->binary(op, a.data(), sa, b.data(), sb, expected.data(), int64_t(a.size()));
                        // Written over whichever operand is a whole vector.
                        std::vector<float> y = sa ? a : b;
                        ops->binary(op, sa ? y.data() : a.data(), sa, sa ? b.data() : y.data(), sb, y.data(),
                            int64_t(y.size()));
                        QVERIFY2(y == expected,
                            qPrintable(QString("%1, op %2, strides %3/%4, over %5")
                                           .arg(ops->name)
                                           .arg(int(op))
                                           .arg(sa)
                                           .arg(sb)
                                           .arg(sa ? "a" : "b")));
                        if (sa && sb) {
                            std::vector<float> yb = b;
                            ops->binary(op, a.data(), 1, yb.data(), 1, yb.data(), int64_t(yb.size()));
                            QVERIFY(yb == expected);
                        }
                    }
            for (auto kind : { simd::Activation::Relu, simd::Activation::Clip, simd::Activation::HardSwish })
                for (size_t n : { size_t(1), size_t(17), a.size() }) {
                    std::vector<float> expected(n), y(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n));
                    ops->activation(a.data(), expected.data(), int64_t(n), { kind, -0.5f, 0.5f });
                    ops->activation(y.data(), y.data(), int64_t(n), { kind, -0.5f, 0.5f });
                    QVERIFY(y == expected);
                }
        }
    }

    void plainRunsWriteOverDeadValuesOnly()
    {
        // t dies at the Add, which may write over it in a plain run; the caller's x and the debugger's recorded t
        // must stay intact.
        const std::string text = "<ir_version: 8, opset_import: [\"\" : 14]>\n"
                                 "agraph (float[1000] x, float[1000] c) => (float[1000] y) {\n"
                                 "  t = Relu(x)\n  u = Add(t, c)\n  y = Mul(u, c)\n}";
        auto program = std::make_shared<Program>(Model::fromText(text));
        std::mt19937 rng(kSeed + 9);
        Tensor x = randomTensor(rng, { 1000 }), c = randomTensor(rng, { 1000 });
        const Tensor x0 = x.clone(), c0 = c.clone();
        std::vector<float> expected(1000), relu(1000);
        for (size_t i = 0; i < 1000; ++i) {
            relu[i] = std::max(0.0f, x0.data<float>()[i]);
            expected[i] = (relu[i] + c0.data<float>()[i]) * c0.data<float>()[i];
        }
        const std::map<std::string, Value> inputs { { "x", Value(x) }, { "c", Value(c) } };
        Session plain(program);
        for (int run = 0; run < 2; ++run) {
            const Tensor y = plain.run(inputs).at("y").tensor();
            for (size_t i = 0; i < 1000; ++i)
                QCOMPARE(y.data<float>()[i], expected[i]);
        }
        // Keeping the data of every value, or only summaries (t then rebuilt by a replay).
        for (const ValueRetention retention : { ValueRetention::Values, ValueRetention::Summaries }) {
            DebuggerOptions options;
            options.retention = retention;
            Debugger debugger(program, options);
            debugger.start(inputs);
            debugger.continueRun();
            QVERIFY(debugger.finished());
            const RecordedValue* t = debugger.findValue("t");
            QVERIFY(t);
            QCOMPARE(t->value.isTensor(), retention == ValueRetention::Values);
            const Value tv = debugger.materialize(*t);
            QVERIFY(tv.isTensor());
            for (size_t i = 0; i < 1000; ++i)
                QCOMPARE(tv.tensor().data<float>()[i], relu[i]);
            for (size_t i = 0; i < 1000; ++i) {
                QCOMPARE(x.data<float>()[i], x0.data<float>()[i]);
                QCOMPARE(c.data<float>()[i], c0.data<float>()[i]);
            }
        }

        // t read by two nodes: the first (Add) must leave it to the second (Sub), which may write over it. The
        // executor gives kernels their inputs by address, so the frame is t's only holder while Add runs.
        const std::string twoReaders = "<ir_version: 8, opset_import: [\"\" : 14]>\n"
                                       "agraph (float[1000] x, float[1000] c) => (float[1000] y) {\n"
                                       "  t = Relu(x)\n  u = Add(t, c)\n  v = Sub(t, c)\n  y = Mul(u, v)\n}";
        Session twice(std::make_shared<Program>(Model::fromText(twoReaders)));
        for (int run = 0; run < 2; ++run) {
            const Tensor y = twice.run(inputs).at("y").tensor();
            for (size_t i = 0; i < 1000; ++i)
                QCOMPARE(y.data<float>()[i], (relu[i] + c0.data<float>()[i]) * (relu[i] - c0.data<float>()[i]));
        }
    }

    void reductionsAndSoftmaxMatch()
    {
        std::mt19937 rng(kSeed + 4);
        for (const simd::Ops* ops : simd::supportedOps())
            for (int64_t cols : { 1, 3, 16, 17, 1000 }) {
                const int64_t rows = 7;
                auto x = randomFloats(rng, static_cast<size_t>(rows * cols), -5.0f, 5.0f);
                for (auto op : { simd::ReduceOp::Sum, simd::ReduceOp::Mean, simd::ReduceOp::SumSquare,
                         simd::ReduceOp::L1, simd::ReduceOp::L2 }) {
                    std::vector<float> y(static_cast<size_t>(rows));
                    ops->reduceRows(op, x.data(), y.data(), rows, cols);
                    for (int64_t r = 0; r < rows; ++r) {
                        double s = 0;
                        for (int64_t i = 0; i < cols; ++i) {
                            const double v = x[size_t(r * cols + i)];
                            s += op == simd::ReduceOp::SumSquare || op == simd::ReduceOp::L2 ? v * v
                                : op == simd::ReduceOp::L1                                   ? std::abs(v)
                                                                                             : v;
                        }
                        const double want = op == simd::ReduceOp::Mean ? s / double(cols)
                            : op == simd::ReduceOp::L2                 ? std::sqrt(s)
                                                                       : s;
                        QVERIFY2(close(y[size_t(r)], want, 1e-5, 1e-4),
                            qPrintable(QString("%1, reduce %2 over %3: %4, expected %5")
                                           .arg(ops->name)
                                           .arg(int(op))
                                           .arg(cols)
                                           .arg(y[size_t(r)])
                                           .arg(want)));
                    }
                }
                for (bool log : { false, true }) {
                    std::vector<float> y(x.size());
                    ops->softmaxRows(x.data(), y.data(), rows, cols, log);
                    for (int64_t r = 0; r < rows; ++r) {
                        double mx = -1e300, s = 0;
                        for (int64_t i = 0; i < cols; ++i)
                            mx = std::max(mx, double(x[size_t(r * cols + i)]));
                        for (int64_t i = 0; i < cols; ++i)
                            s += std::exp(double(x[size_t(r * cols + i)]) - mx);
                        for (int64_t i = 0; i < cols; ++i) {
                            const double v = double(x[size_t(r * cols + i)]) - mx;
                            const double want = log ? v - std::log(s) : std::exp(v) / s;
                            QVERIFY2(close(y[size_t(r * cols + i)], want, 1e-5, 1e-6),
                                qPrintable(QString("%1, %2softmax over %3: %4, expected %5")
                                               .arg(ops->name)
                                               .arg(log ? "log" : "")
                                               .arg(cols)
                                               .arg(y[size_t(r * cols + i)])
                                               .arg(want)));
                        }
                    }
                }
            }
    }

    void halfConversionsMatchEigens()
    {
        // Every float16 bit pattern to float, as Eigen's scalar conversion gives it (NaN to NaN).
        std::vector<Float16> all(65536);
        for (uint32_t bits = 0; bits < 65536; ++bits)
            all[bits] = Eigen::numext::bit_cast<Float16>(static_cast<uint16_t>(bits));
        std::vector<float> f(all.size());
        halfToFloat(all.data(), f.data(), static_cast<int64_t>(all.size()));
        for (size_t i = 0; i < all.size(); ++i) {
            const float want = static_cast<float>(all[i]);
            QVERIFY2(std::isnan(want) ? std::isnan(f[i]) : f[i] == want, qPrintable(QString::number(i)));
        }
        // Floats to float16, rounded to nearest even as Eigen does: every float16 value, the midpoints between
        // neighbours, and random floats over the range; an odd count exercises the tail.
        std::vector<float> in;
        for (size_t i = 0; i + 1 < f.size(); ++i)
            if (std::isfinite(f[i])) {
                in.push_back(f[i]);
                if (std::isfinite(f[i + 1]) && (f[i] > 0) == (f[i + 1] > 0))
                    in.push_back((f[i] + f[i + 1]) / 2);
            }
        std::mt19937 rng(kSeed + 11);
        std::uniform_real_distribution<float> wide(-70000.0f, 70000.0f);
        for (int i = 0; i < 10001; ++i)
            in.push_back(wide(rng));
        in.push_back(std::numeric_limits<float>::infinity());
        in.push_back(1e-9f);
        std::vector<Float16> h(in.size());
        floatToHalf(in.data(), h.data(), static_cast<int64_t>(in.size()));
        for (size_t i = 0; i < in.size(); ++i)
            QVERIFY2(Eigen::numext::bit_cast<uint16_t>(h[i]) == Eigen::numext::bit_cast<uint16_t>(Float16(in[i])),
                qPrintable(QString("%1").arg(double(in[i]), 0, 'g', 9)));
    }

    void chunkStatsMatchTheScalarSums()
    {
        std::mt19937 rng(kSeed + 9);
        for (const simd::Ops* ops : simd::supportedOps())
            for (int64_t n : { 0, 1, 7, 16, 33, 4096 }) {
                auto x = randomFloats(rng, static_cast<size_t>(n), -3.0f, 3.0f);
                for (size_t i = 0; i < x.size(); i += 5)
                    x[i] = 0.0f;
                float lo = 0, hi = 0, sum = 0, sumSq = 0;
                int64_t zeros = -1;
                QVERIFY(ops->chunkStats(x.data(), n, &lo, &hi, &sum, &sumSq, &zeros));
                double s = 0, q = 0;
                float wantLo = std::numeric_limits<float>::infinity(), wantHi = -wantLo;
                int64_t wantZeros = 0;
                for (float v : x) {
                    s += v;
                    q += double(v) * v;
                    wantLo = std::min(wantLo, v);
                    wantHi = std::max(wantHi, v);
                    wantZeros += v == 0.0f;
                }
                const QString where = QString("%1, %2 elements").arg(ops->name).arg(n);
                QVERIFY2(zeros == wantZeros, qPrintable(where));
                if (n > 0) {
                    QVERIFY2(lo == wantLo && hi == wantHi, qPrintable(where));
                    QVERIFY2(close(sum, s, 1e-4, 1e-3) && close(sumSq, q, 1e-5, 1e-3), qPrintable(where));
                }
                // A NaN or an Inf anywhere, the tail included, makes the chunk one to count element by element.
                if (n > 0)
                    for (float bad : { std::nanf(""), std::numeric_limits<float>::infinity(),
                             -std::numeric_limits<float>::infinity() }) {
                        for (int64_t at : { int64_t(0), n - 1, n / 2 }) {
                            auto y = x;
                            y[size_t(at)] = bad;
                            QVERIFY2(!ops->chunkStats(y.data(), n, &lo, &hi, &sum, &sumSq, &zeros),
                                qPrintable(where + QString(" with %1 at %2").arg(bad).arg(at)));
                        }
                    }
            }
    }

    void fourBitWeightsMatchTheirDefinition()
    {
        // dequantize4: (code - zero) * scale exactly, codes two a byte with the low nibble first, at every level, for
        // blocks of 16 to 128 and a K that ends inside a block. dot4: 1 to 4 rows of A (reordered as simd.h says)
        // against the same column, against a double-precision sum.
        std::mt19937 rng(kSeed + 13);
        std::uniform_int_distribution<int> byte(0, 255), code(0, 15);
        for (const simd::Ops* ops : simd::supportedOps())
            for (int64_t block : { 16, 32, 64, 128 })
                for (int64_t k : { block, 3 * block, 5 * block - 7, 2 * block + 16 }) {
                    const int64_t blocks = (k + block - 1) / block;
                    std::vector<uint8_t> codes(static_cast<size_t>(blocks * block / 2));
                    for (auto& c : codes)
                        c = static_cast<uint8_t>(byte(rng));
                    std::vector<float> zero(static_cast<size_t>(blocks)), scale = randomFloats(rng, zero.size());
                    for (auto& z : zero)
                        z = static_cast<float>(code(rng));
                    zero[0] = 8.0f;
                    const auto codeAt = [&](int64_t i) { return (codes[size_t(i / 2)] >> ((i % 2) * 4)) & 0x0F; };
                    std::vector<float> w(static_cast<size_t>(k) + 1, -1.0f);
                    ops->dequantize4(codes.data(), k, block, zero.data(), scale.data(), w.data());
                    const QString where = QString("%1, block %2, K %3").arg(ops->name).arg(block).arg(k);
                    for (int64_t i = 0; i < k; ++i) {
                        const float want = (float(codeAt(i)) - zero[size_t(i / block)]) * scale[size_t(i / block)];
                        QVERIFY2(w[size_t(i)] == want, qPrintable(where + QString(" at %1").arg(i)));
                    }
                    QVERIFY2(w[size_t(k)] == -1.0f, qPrintable(where + " wrote past K"));
                    // dequantize4Panel: the same codes as columns of a panel, for 1 to 37 columns (whole vectors and
                    // a tail), each column's codes a row of `rowBytes` (more than one column's blocks), zero and
                    // scale a row per block; W's rows padded by 3.
                    for (int64_t columns : { int64_t(1), int64_t(8), int64_t(16), int64_t(37) }) {
                        const int64_t rowBytes = blocks * block / 2 + 5, ldz = columns + 2, ldw = columns + 3;
                        std::vector<uint8_t> panelCodes(size_t(columns * rowBytes));
                        for (auto& c : panelCodes)
                            c = static_cast<uint8_t>(byte(rng));
                        std::vector<float> zt(size_t(blocks * ldz)), st = randomFloats(rng, zt.size());
                        for (auto& z : zt)
                            z = static_cast<float>(code(rng));
                        std::vector<float> panel(size_t(k * ldw), -1.0f);
                        ops->dequantize4Panel(panelCodes.data(), rowBytes, columns, k, block, zt.data(), st.data(), ldz,
                            panel.data(), ldw);
                        for (int64_t n = 0; n < columns; ++n)
                            for (int64_t i = 0; i < k; ++i) {
                                const int c = (panelCodes[size_t(n * rowBytes + i / 2)] >> ((i % 2) * 4)) & 0x0F;
                                const int64_t j = i / block;
                                const float want = (float(c) - zt[size_t(j * ldz + n)]) * st[size_t(j * ldz + n)];
                                QVERIFY2(panel[size_t(i * ldw + n)] == want,
                                    qPrintable(where
                                        + QString(", panel of %1 columns, at [%2, %3]").arg(columns).arg(i).arg(n)));
                            }
                        for (int64_t i = 0; i < k; ++i)
                            for (int64_t n = columns; n < ldw; ++n)
                                QVERIFY2(
                                    panel[size_t(i * ldw + n)] == -1.0f, qPrintable(where + " wrote past the panel"));
                    }
                    if (block % ops->q4Unit != 0)
                        continue;
                    const int64_t padded = blocks * block, unit = ops->q4Unit;
                    for (int64_t rows = 1; rows <= 4; ++rows) {
                        const int64_t lda = padded + 3;
                        std::vector<float> a = randomFloats(rng, size_t(rows * k)), reordered(size_t(rows * lda), 0.0f);
                        for (int64_t r = 0; r < rows; ++r)
                            for (int64_t i = 0; i < k; ++i) {
                                const int64_t u = i / unit * unit, at = i - u;
                                reordered[size_t(r * lda + u + (at % 2 ? unit / 2 : 0) + at / 2)]
                                    = a[size_t(r * k + i)];
                            }
                        std::vector<float> y(size_t(rows * 5), -7.0f);
                        ops->dot4(codes.data(), blocks, block, zero.data(), scale.data(), reordered.data(), lda, rows,
                            y.data(), 5);
                        for (int64_t r = 0; r < rows; ++r) {
                            double want = 0, magnitude = 0;
                            for (int64_t i = 0; i < k; ++i) {
                                const double term = double(a[size_t(r * k + i)])
                                    * (double(codeAt(i)) - zero[size_t(i / block)]) * scale[size_t(i / block)];
                                want += term;
                                magnitude += std::fabs(term);
                            }
                            QVERIFY2(std::fabs(y[size_t(r * 5)] - want) <= 1e-5 * magnitude + 1e-6,
                                qPrintable(where
                                    + QString(", %1 rows, row %2: %3 against %4")
                                          .arg(rows)
                                          .arg(r)
                                          .arg(y[size_t(r * 5)])
                                          .arg(want)));
                            for (int64_t c = 1; c < 5; ++c)
                                QVERIFY2(y[size_t(r * 5 + c)] == -7.0f, qPrintable(where + " wrote past its column"));
                        }
                    }
                }
    }

    void int8DotsOfFourBitWeightsMatchTheirDefinition()
    {
        // dot4Int8 against its definition in double precision: the integer dot products of each block, scaled, less
        // the zero points' share; blocks of 32 to 128, 1 to 4 rows, row strides wider than the rows.
        std::mt19937 rng(kSeed + 15);
        std::uniform_int_distribution<int> byte(0, 255), step(-127, 127), code(0, 15);
        for (const simd::Ops* ops : simd::supportedOps())
            for (int64_t block : { 32, 64, 128 })
                for (int64_t blocks : { 1, 3, 8 })
                    for (int64_t rows = 1; rows <= 4; ++rows) {
                        const int64_t k = blocks * block, lda = k + 32, ldas = blocks + 2;
                        std::vector<uint8_t> codes(size_t(k / 2));
                        for (auto& c : codes)
                            c = static_cast<uint8_t>(byte(rng));
                        std::vector<int8_t> qa(size_t(rows * lda));
                        for (auto& q : qa)
                            q = static_cast<int8_t>(step(rng));
                        std::vector<float> zero(static_cast<size_t>(blocks)),
                            scale = randomFloats(rng, zero.size()), aScale = randomFloats(rng, size_t(rows * ldas)),
                            aSum = randomFloats(rng, aScale.size(), -50.0f, 50.0f);
                        for (auto& z : zero)
                            z = float(code(rng));
                        std::vector<float> y(size_t(rows * 3), -7.0f);
                        ops->dot4Int8(codes.data(), blocks, block, zero.data(), scale.data(), qa.data(), lda,
                            aScale.data(), aSum.data(), ldas, rows, y.data(), 3);
                        for (int64_t r = 0; r < rows; ++r) {
                            double want = 0, magnitude = 0;
                            for (int64_t j = 0; j < blocks; ++j) {
                                int64_t dot = 0;
                                for (int64_t i = j * block; i < (j + 1) * block; ++i) {
                                    const int c = (codes[size_t(i / 2)] >> ((i % 2) * 4)) & 0x0F;
                                    // A's 32 values of a unit: the even-indexed first, then the odd-indexed.
                                    const int64_t u = i / 32 * 32, at = i - u;
                                    dot += c * qa[size_t(r * lda + u + (at % 2 ? 16 : 0) + at / 2)];
                                }
                                const double term
                                    = double(scale[size_t(j)]) * aScale[size_t(r * ldas + j)] * double(dot);
                                const double share
                                    = double(zero[size_t(j)]) * scale[size_t(j)] * aSum[size_t(r * ldas + j)];
                                want += term - share;
                                magnitude += std::fabs(term) + std::fabs(share);
                            }
                            QVERIFY2(std::fabs(y[size_t(r * 3)] - want) <= 1e-5 * magnitude + 1e-6,
                                qPrintable(QString("%1, block %2, %3 blocks, %4 rows, row %5: %6 against %7")
                                               .arg(ops->name)
                                               .arg(block)
                                               .arg(blocks)
                                               .arg(rows)
                                               .arg(r)
                                               .arg(y[size_t(r * 3)])
                                               .arg(want)));
                            QVERIFY(y[size_t(r * 3 + 1)] == -7.0f && y[size_t(r * 3 + 2)] == -7.0f);
                        }
                    }
    }

    void int8ProductsMatchTheScalarReference()
    {
        // gemmS8U8 (VNNI where the CPU has it) and its widening path at every level against int32 loops: rows and
        // columns not multiples of the tiles, K = 1 to 4 * 67, extreme bytes (-128, 127 against 0, 255), row and
        // column output strides.
        std::mt19937 rng(kSeed + 21);
        std::uniform_int_distribution<int> byte(0, 255);
        for (const simd::Ops* ops : simd::supportedOps())
            for (auto gemm : { ops->gemmS8U8, ops->gemmS8U8Widening })
                for (int64_t m : { 1, 3, 4, 5, 9 })
                    for (int64_t n : { 1, 15, 16, 17, 33, 50 })
                        for (int64_t k : { 1, 3, 4, 19, 268 })
                            for (bool extreme : { false, true }) {
                                const int64_t k4 = (k + 3) / 4, ldw = 4 * k4 + 8, panels = (n + 15) / 16;
                                std::vector<int8_t> w(size_t(m * ldw), 0);
                                std::vector<uint8_t> x(size_t(panels * k4 * 64), 0);
                                std::vector<int32_t> xs(size_t(k * n));
                                for (int64_t i = 0; i < m; ++i)
                                    for (int64_t kk = 0; kk < k; ++kk)
                                        w[size_t(i * ldw + kk)] = static_cast<int8_t>(extreme ? -128 : byte(rng) - 128);
                                for (int64_t kk = 0; kk < k; ++kk)
                                    for (int64_t j = 0; j < n; ++j) {
                                        const int v = extreme ? 255 : byte(rng);
                                        xs[size_t(kk * n + j)] = v;
                                        x[size_t((j / 16) * k4 * 64 + (kk / 4) * 64 + (j % 16) * 4 + kk % 4)]
                                            = static_cast<uint8_t>(v);
                                    }
                                // Transposed output (column stride m + 1, row stride 1) inside a guard band.
                                const int64_t ldcCol = m + 1;
                                std::vector<int32_t> c(size_t(n * ldcCol + 4), -7);
                                gemm(m, n, k4, w.data(), ldw, x.data(), c.data(), 1, ldcCol);
                                for (int64_t i = 0; i < m; ++i)
                                    for (int64_t j = 0; j < n; ++j) {
                                        int32_t want = 0;
                                        for (int64_t kk = 0; kk < k; ++kk)
                                            want += int32_t(w[size_t(i * ldw + kk)]) * xs[size_t(kk * n + j)];
                                        const int32_t got = c[size_t(j * ldcCol + i)];
                                        QVERIFY2(got == want,
                                            qPrintable(QString("%1 (%2), m %3 n %4 k %5, [%6, %7]: %8 against %9")
                                                           .arg(ops->name)
                                                           .arg(gemm == ops->gemmS8U8 ? ops->int8Path : "widening")
                                                           .arg(m)
                                                           .arg(n)
                                                           .arg(k)
                                                           .arg(i)
                                                           .arg(j)
                                                           .arg(got)
                                                           .arg(want)));
                                    }
                                for (int64_t j = 0; j < n; ++j)
                                    QVERIFY(c[size_t(j * ldcCol + m)] == -7);
                                QVERIFY(c[size_t(n * ldcCol)] == -7);
                                // Row-major output, row stride n.
                                std::vector<int32_t> r(size_t(m * n));
                                gemm(m, n, k4, w.data(), ldw, x.data(), r.data(), n, 1);
                                for (int64_t i = 0; i < m; ++i)
                                    for (int64_t j = 0; j < n; ++j)
                                        QVERIFY(r[size_t(i * n + j)] == c[size_t(j * ldcCol + i)]);
                            }
    }

    void int8StepsRoundTheProductLikeNearbyint()
    {
        // int8Steps: the product x * (127 / max) rounded on its own (not fused into an FMA), then to the
        // nearest integer, ties to even; blocks of 16 and 32, a tail block, a block of zeros, exact halves.
        std::mt19937 rng(kSeed + 14);
        for (const simd::Ops* ops : simd::supportedOps())
            for (int64_t block : { 16, 32 })
                for (int64_t n : { block, 4 * block + 5 }) {
                    std::vector<float> x = randomFloats(rng, size_t(n), -3.0f, 3.0f);
                    // The first block: max 3, so the factor 127 / 3 is inexact, and values whose float product is
                    // a half while the exact one is not, on the side away from the even neighbour: rounding the
                    // exact product (an FMA) gives the other integer.
                    x[0] = 3.0f;
                    const float factor = 127.0f / 3.0f;
                    int64_t at = 1;
                    for (int k = 0; k < 126 && at < std::min<int64_t>(block, n); ++k) {
                        float v = (float(k) + 0.5f) / factor;
                        for (int step = 0; step < 8; ++step, v = std::nextafter(v, 4.0f)) {
                            const float product = v * factor;
                            const double exact = double(v) * double(factor);
                            const bool evenBelow = k % 2 == 0;
                            if (product == float(k) + 0.5f && (evenBelow ? exact > product : exact < product)) {
                                x[size_t(at++)] = v;
                                break;
                            }
                        }
                    }
                    QVERIFY(at > 4);
                    if (n > 2 * block)
                        std::fill(x.begin() + block, x.begin() + 2 * block, 0.0f);
                    const int64_t blocks = (n + block - 1) / block;
                    std::vector<int8_t> q(size_t(n), int8_t(-128));
                    std::vector<float> steps(size_t(blocks) + 1, -9.0f);
                    std::vector<float> values(size_t(n), -9.0f);
                    ops->int8Steps(x.data(), n, block, q.data(), values.data(), steps.data());
                    QVERIFY2(steps[size_t(blocks)] == -9.0f, "int8Steps wrote past the last block's step");
                    for (int64_t b0 = 0; b0 < n; b0 += block) {
                        const int64_t end = std::min(n, b0 + block);
                        float amax = 0;
                        for (int64_t i = b0; i < end; ++i)
                            amax = std::max(amax, std::fabs(x[size_t(i)]));
                        QVERIFY2(steps[size_t(b0 / block)] == amax / 127.0f,
                            qPrintable(QString("%1, block %2, n %3, step of block %4")
                                           .arg(ops->name)
                                           .arg(block)
                                           .arg(n)
                                           .arg(b0 / block)));
                        const float inverse = amax != 0 ? 127.0f / amax : 0.0f;
                        for (int64_t i = b0; i < end; ++i) {
                            volatile float product = x[size_t(i)] * inverse;
                            const float want = std::clamp(std::nearbyint(float(product)), -127.0f, 127.0f);
                            QVERIFY2(values[size_t(i)] == want * (amax / 127.0f),
                                qPrintable(QString("%1, block %2, n %3, value at %4")
                                               .arg(ops->name)
                                               .arg(block)
                                               .arg(n)
                                               .arg(i)));
                            QVERIFY2(q[size_t(i)] == want,
                                qPrintable(QString("%1, block %2, n %3, at %4: %5 against %6")
                                               .arg(ops->name)
                                               .arg(block)
                                               .arg(n)
                                               .arg(i)
                                               .arg(int(q[size_t(i)]))
                                               .arg(want)));
                        }
                    }
                }
    }

    void requantizeBytesMatchTheScalarRule()
    {
        // QLinearConv's requantization: the same bytes at every level as the product-then-sum rule in scalar code (no
        // fused multiply-add), over sums near the int32 limits (wrapping with the bias), ties of the rounding, NaN
        // (an infinite scale times 0) and the clamps of both types and a fused Relu's range.
        std::mt19937 rng(kSeed + 9);
        std::uniform_int_distribution<int32_t> any(
            std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
        std::uniform_int_distribution<int32_t> small(-3000, 3000);
        std::vector<int32_t> acc;
        for (int i = 0; i < 1200; ++i)
            acc.push_back(i % 3 == 0 ? any(rng) : small(rng));
        for (int32_t v : { 0, 1, -1, 5, -5, std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min() })
            acc.push_back(v);
        const float inf = std::numeric_limits<float>::infinity();
        struct Case {
            int32_t bias;
            float scale, offset, lo, hi;
            int32_t zero;
            bool isSigned;
        };
        const Case cases[]
            = { { 0, 0.01f, 0.0f, -128.0f, 127.0f, 0, true }, { 17, 0.5f, 0.0f, -3.0f, 252.0f, 3, false },
                  { -2000, 0.25f, 0.3f, 0.0f, 127.0f, -1, true }, { 5, inf, 0.0f, 0.0f, 255.0f, 0, false },
                  { 100000, 1e-4f, -2.5f, -130.0f, 125.0f, 2, true }, { 0, 0.5f, 0.5f, -10.0f, 245.0f, 10, false } };
        for (const simd::Ops* ops : simd::supportedOps())
            for (const Case& k : cases) {
                std::vector<uint8_t> got(acc.size());
                ops->requantizeBytes(acc.data(), static_cast<int64_t>(acc.size()), k.bias, k.scale, k.offset, k.lo,
                    k.hi, k.zero, k.isSigned, got.data());
                for (size_t j = 0; j < acc.size(); ++j) {
                    const auto sum
                        = static_cast<int32_t>(static_cast<uint32_t>(acc[j]) + static_cast<uint32_t>(k.bias));
                    const volatile float product = static_cast<float>(sum) * k.scale; // rounded before the sum
                    float v = product + k.offset;
                    v = v > k.lo ? v : k.lo; // NaN to lo
                    v = v < k.hi ? v : k.hi;
                    const int32_t q = static_cast<int32_t>(std::nearbyint(v)) + k.zero;
                    const uint8_t want
                        = k.isSigned ? static_cast<uint8_t>(static_cast<int8_t>(q)) : static_cast<uint8_t>(q);
                    QVERIFY2(got[j] == want,
                        qPrintable(QString("%1: acc %2 bias %3 scale %4: %5, expected %6")
                                       .arg(ops->name)
                                       .arg(acc[j])
                                       .arg(k.bias)
                                       .arg(k.scale)
                                       .arg(got[j])
                                       .arg(want)));
                }
            }
    }

    void qlinearAddBytesMatchTheScalarRule()
    {
        // QLinearAdd's bytes: fma(a, r1, fma(b, r2, c)) (or fma(a, r1, c) without b), rounded half to even and
        // saturated; uint8 and int8, odd lengths past every vector width, ratios that saturate both ends, sums on
        // exact halves, zero points 0, 128 and 255 folded into c.
        std::mt19937 rng(kSeed + 21);
        std::uniform_int_distribution<int> byte(0, 255);
        for (const simd::Ops* ops : simd::supportedOps())
            for (bool isSigned : { false, true })
                for (bool withB : { true, false })
                    for (int zero : { 0, 128, 255 })
                        for (int64_t n : { 1, 15, 67, 131 }) {
                            std::vector<uint8_t> a(static_cast<size_t>(n)), b(a.size()), y(a.size() + 1, 0xAB);
                            for (size_t i = 0; i < a.size(); ++i) {
                                a[i] = uint8_t(byte(rng));
                                b[i] = uint8_t(byte(rng));
                            }
                            // 0.5 ratios make exact halves; 3.0 saturates.
                            const float r1 = n % 2 ? 0.5f : 3.0f, r2 = 0.25f + float(zero) / 512.0f;
                            const float c = float(zero) - (isSigned ? 0.0f : 100.0f) + 0.25f * float(n % 3);
                            ops->qlinearAddBytes(
                                isSigned, a.data(), withB ? b.data() : nullptr, n, r1, r2, c, y.data());
                            QVERIFY2(y[size_t(n)] == 0xAB, "qlinearAddBytes wrote past n");
                            for (size_t i = 0; i < size_t(n); ++i) {
                                const auto value = [&](uint8_t v) { return isSigned ? float(int8_t(v)) : float(v); };
                                const float inner = withB ? std::fma(value(b[i]), r2, c) : c;
                                const double v = std::nearbyint(double(std::fma(value(a[i]), r1, inner)));
                                const double want = std::clamp(v, isSigned ? -128.0 : 0.0, isSigned ? 127.0 : 255.0);
                                const double got = isSigned ? double(int8_t(y[i])) : double(y[i]);
                                QVERIFY2(got == want,
                                    qPrintable(QString("%1, signed %2, b %3, zero %4, n %5, at %6: %7 against %8")
                                                   .arg(ops->name)
                                                   .arg(isSigned)
                                                   .arg(withB)
                                                   .arg(zero)
                                                   .arg(n)
                                                   .arg(i)
                                                   .arg(got)
                                                   .arg(want)));
                            }
                        }
    }

    void depthwiseMatchesNaiveConvolution()
    {
        std::mt19937 rng(kSeed + 5);
        // Odd trials have wide rows, one in four with stride 1 across; one in three are small planes of stride 1 and
        // rows as wide as the input's. Kernels up to 7, dilations up to 3 (DeepLab's are larger; the path does not
        // depend on it). Trial 0 has rows too long for the band buffer (the fallback).
        std::uniform_int_distribution<int64_t> size(1, 19), width(16, 150), kernel(1, 7), stride(1, 3), dil(1, 3),
            pad(0, 3);
        for (const simd::Ops* ops : simd::supportedOps())
            for (int trial = 0; trial < 240; ++trial) {
                simd::DepthwiseGeometry g;
                g.inH = trial == 0 ? 20 : size(rng);
                g.inW = trial == 0 ? 1500 : trial % 2 ? width(rng) : size(rng);
                g.kernelH = trial == 0 ? 7 : kernel(rng);
                g.kernelW = kernel(rng);
                g.strideH = stride(rng);
                g.strideW = trial % 4 == 1 ? 1 : stride(rng);
                g.dilationH = trial == 0 ? 3 : dil(rng);
                g.dilationW = dil(rng);
                g.padTop = pad(rng);
                g.padLeft = pad(rng);
                int64_t padBottom = pad(rng), padRight = pad(rng);
                if (trial % 3 == 2) {
                    // Stride 1 with rows as wide as the input's, small planes (7 x 7, 14 x 14 ...): one flat run of
                    // vectors per plane, under masks for the rows and columns outside the input.
                    g.strideH = g.strideW = 1;
                    const int64_t extent = (g.kernelW - 1) * g.dilationW;
                    g.padLeft = std::uniform_int_distribution<int64_t>(0, extent)(rng);
                    padRight = extent - g.padLeft;
                    g.inW = size(rng);
                    padBottom = std::max<int64_t>(0, (g.kernelH - 1) * g.dilationH + 1 - g.inH - g.padTop) + pad(rng);
                }
                const int64_t spanH = g.inH + g.padTop + padBottom - ((g.kernelH - 1) * g.dilationH + 1);
                const int64_t spanW = g.inW + g.padLeft + padRight - ((g.kernelW - 1) * g.dilationW + 1);
                if (spanH < 0 || spanW < 0)
                    continue;
                g.outH = spanH / g.strideH + 1;
                g.outW = spanW / g.strideW + 1;
                const int64_t channels = 3;
                auto x = randomFloats(rng, size_t(channels * g.inH * g.inW));
                auto w = randomFloats(rng, size_t(channels * g.kernelH * g.kernelW));
                auto bias = randomFloats(rng, size_t(channels));
                std::vector<float> y(size_t(channels * g.outH * g.outW));
                ops->depthwise2d(x.data(), w.data(), bias.data(), y.data(), channels, g, { simd::Activation::Relu });
                for (int64_t c = 0; c < channels; ++c)
                    for (int64_t oh = 0; oh < g.outH; ++oh)
                        for (int64_t ow = 0; ow < g.outW; ++ow) {
                            double want = bias[size_t(c)];
                            for (int64_t kh = 0; kh < g.kernelH; ++kh)
                                for (int64_t kw = 0; kw < g.kernelW; ++kw) {
                                    const int64_t ih = oh * g.strideH - g.padTop + kh * g.dilationH;
                                    const int64_t iw = ow * g.strideW - g.padLeft + kw * g.dilationW;
                                    if (ih >= 0 && ih < g.inH && iw >= 0 && iw < g.inW)
                                        want += double(x[size_t((c * g.inH + ih) * g.inW + iw)])
                                            * w[size_t((c * g.kernelH + kh) * g.kernelW + kw)];
                                }
                            want = std::max(want, 0.0);
                            const double got = y[size_t((c * g.outH + oh) * g.outW + ow)];
                            QVERIFY2(close(got, want, 1e-5, 1e-5),
                                qPrintable(QString("%1: in %2x%3 kernel %4x%5 stride %6x%7 dilation %8x%9 pad %10,%11, "
                                                   "seed %12: y[%13, %14, %15] = %16, expected %17")
                                               .arg(ops->name)
                                               .arg(g.inH)
                                               .arg(g.inW)
                                               .arg(g.kernelH)
                                               .arg(g.kernelW)
                                               .arg(g.strideH)
                                               .arg(g.strideW)
                                               .arg(g.dilationH)
                                               .arg(g.dilationW)
                                               .arg(g.padTop)
                                               .arg(g.padLeft)
                                               .arg(kSeed + 5)
                                               .arg(c)
                                               .arg(oh)
                                               .arg(ow)
                                               .arg(got)
                                               .arg(want)));
                        }
            }
    }

    void broadcastBinaryMatchesNumpyRules()
    {
        std::mt19937 rng(kSeed + 6);
        ThreadPool pool(3);
        const std::vector<std::pair<Shape, Shape>> cases { { { 2, 3, 4, 5 }, { 1, 3, 1, 1 } },
            { { 2, 3, 4, 5 }, { 5 } }, { { 2, 3, 4, 5 }, { 4, 1 } }, { { 3, 1 }, { 1, 4 } },
            { { 1, 64, 40, 40 }, { 1, 64, 1, 1 } }, { { 6, 1, 5 }, { 6, 7, 1 } }, { { 1 }, { 3, 2 } },
            { { 2, 1, 3, 1 }, { 1, 4, 1, 6 } }, { { 8, 300 }, { 8, 1 } }, { { 4, 1, 1 }, { 4, 200, 300 } } };
        for (const auto& [sa, sb] : cases) {
            const Shape out = broadcastShapes(sa, sb);
            auto a = randomFloats(rng, size_t(elementCount(sa))), b = randomFloats(rng, size_t(elementCount(sb)));
            std::vector<float> y(size_t(elementCount(out)));
            simd::broadcastBinary(&pool, simd::BinaryOp::Sub, a.data(), sa, b.data(), sb, y.data(), out);
            const auto so = stridesOf(out);
            for (int64_t i = 0; i < elementCount(out); ++i) {
                int64_t ia = 0, ib = 0, rest = i;
                for (size_t d = 0; d < out.size(); ++d) {
                    const int64_t idx = rest / so[d];
                    rest %= so[d];
                    const size_t offA = out.size() - sa.size(), offB = out.size() - sb.size();
                    if (d >= offA)
                        ia = ia * sa[d - offA] + (sa[d - offA] == 1 ? 0 : idx);
                    if (d >= offB)
                        ib = ib * sb[d - offB] + (sb[d - offB] == 1 ? 0 : idx);
                }
                QVERIFY2(y[size_t(i)] == a[size_t(ia)] - b[size_t(ib)],
                    qPrintable(
                        QString("%1 - %2: element %3")
                            .arg(QString::fromStdString(shapeToString(sa)), QString::fromStdString(shapeToString(sb)))
                            .arg(i)));
            }
        }
    }

    void kernelsGiveTheSameResultOnThreeThreads()
    {
        std::mt19937 rng(kSeed + 7);
        ThreadPool pool(3);
        struct Case {
            std::string node;
            std::vector<std::pair<std::string, Shape>> inputs;
        };
        const std::vector<Case> cases {
            { "y = Conv <pads = [1, 1, 1, 1]> (x, w, b)",
                { { "x", { 2, 16, 33, 35 } }, { "w", { 24, 16, 3, 3 } }, { "b", { 24 } } } },
            { "y = Conv <strides = [2, 2], pads = [1, 1, 1, 1], group = 16> (x, w, b)",
                { { "x", { 1, 16, 65, 64 } }, { "w", { 16, 1, 3, 3 } }, { "b", { 16 } } } },
            { "y = Conv (x, w)", { { "x", { 1, 64, 40, 41 } }, { "w", { 32, 64, 1, 1 } } } },
            // Too few column chunks for the threads: split by blocks of output channels (the columns made once and
            // shared by the blocks; pointwise: strips and blocks), with a partial last block.
            { "y = Conv <pads = [1, 1, 1, 1]> (x, w, b)",
                { { "x", { 1, 96, 7, 7 } }, { "w", { 100, 96, 3, 3 } }, { "b", { 100 } } } },
            { "y = Conv <strides = [2, 2], pads = [1, 1, 1, 1]> (x, w)",
                { { "x", { 2, 32, 20, 21 } }, { "w", { 120, 32, 3, 3 } } } },
            { "y = Conv <strides = [2, 2], pads = [1, 1, 1, 1]> (x, w)",
                { { "x", { 4, 64, 28, 28 } }, { "w", { 192, 64, 3, 3 } } } },
            { "y = Conv (x, w, b)", { { "x", { 1, 160, 7, 7 } }, { "w", { 200, 160, 1, 1 } }, { "b", { 200 } } } },
            { "y = Conv <strides = [160]> (x, w)", { { "x", { 1, 1, 1280 } }, { "w", { 257, 1, 512 } } } },
            { "y = ConvTranspose <strides = [2, 2]> (x, w, b)",
                { { "x", { 1, 32, 40, 40 } }, { "w", { 32, 8, 2, 2 } }, { "b", { 8 } } } },
            { "y = MatMul (a, b)", { { "a", { 3, 70, 96 } }, { "b", { 96, 130 } } } },
            { "y = MatMul (a, b)", { { "a", { 2, 3, 64, 32 } }, { "b", { 2, 3, 32, 64 } } } },
            { "y = Gemm <alpha = 0.5, beta = 2.0, transB = 1> (a, b, c)",
                { { "a", { 96, 200 } }, { "b", { 150, 200 } }, { "c", { 150 } } } },
            { "y = Add (a, b)", { { "a", { 1, 64, 80, 80 } }, { "b", { 1, 64, 1, 1 } } } },
            { "y = Mul (a, b)", { { "a", { 4, 100, 300 } }, { "b", { 300 } } } },
            { "y = HardSwish (a)", { { "a", { 1, 64, 100, 100 } } } },
            { "y = Sigmoid (a)", { { "a", { 1, 64, 100, 100 } } } },
            { "y = Resize <mode = \"nearest\", coordinate_transformation_mode = \"asymmetric\", nearest_mode = "
              "\"floor\"> "
              "(a, roi, s)",
                { { "a", { 1, 8, 30, 40 } }, { "roi", { 0 } }, { "s", { 4 } } } },
            // QuantizeLinear and DequantizeLinear split by runs of one channel's parameters, and per tensor.
            { "q = QuantizeLinear <axis = 1> (a, qs)\n y = DequantizeLinear <axis = 1> (q, qs)",
                { { "a", { 1, 64, 60, 61 } }, { "qs", { 64 } } } },
            { "q = QuantizeLinear (a, qs)\n y = DequantizeLinear (q, qs)",
                { { "a", { 2, 64, 45, 47 } }, { "qs", {} } } },
        };
        for (const auto& c : cases) {
            std::vector<std::pair<std::string, Tensor>> ins;
            for (const auto& [name, shape] : c.inputs) {
                Tensor t = randomTensor(rng, shape);
                if (name == "s")
                    t = Tensor::fromVector<float>({ 1.0f, 1.0f, 2.0f, 2.0f }, { 4 });
                ins.emplace_back(name, t);
            }
            const Tensor one = runGraph(c.node, ins, nullptr);
            const Tensor three = runGraph(c.node, ins, &pool);
            QCOMPARE(three.shape(), one.shape());
            auto p1 = one.data<float>(), p3 = three.data<float>();
            for (size_t i = 0; i < p1.size(); ++i)
                QVERIFY2(close(p3[i], p1[i], 1e-5, 1e-5),
                    qPrintable(QString("%1: element %2 is %3 on three threads, %4 on one")
                                   .arg(QString::fromStdString(c.node))
                                   .arg(i)
                                   .arg(p3[i])
                                   .arg(p1[i])));
        }
    }
};

QTEST_APPLESS_MAIN(TestSimd)
#include "test_simd.moc"
