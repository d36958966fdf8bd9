// SPDX-License-Identifier: Apache-2.0
#include "inference.h"

#include "gpu.h"
#include "logger.h"

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <thread>

namespace kiln_tool
{
namespace
{

using Clock = std::chrono::steady_clock;

double msBetween(Clock::time_point start, Clock::time_point end)
{
    return std::chrono::duration<double, std::milli>(end - start).count();
}

//! Runs one query to completion and times its parts.
class QueryRunner
{
public:
    virtual ~QueryRunner() = default;
    virtual QueryTime run() = 0;
    //! Makes the outputs' host copies hold the last query's results.
    virtual void finish() {}
};

//! A host engine: enqueueV3 runs the work on the calling thread, on I/O in host memory.
class HostQueries final : public QueryRunner
{
public:
    explicit HostQueries(nvinfer1::IExecutionContext& context)
        : mContext(context)
    {
    }

    QueryTime run() override
    {
        Clock::time_point const start = Clock::now();
        if (!mContext.enqueueV3(nullptr))
        {
            throw Failure("enqueueV3 failed (kiln's error above says why)");
        }
        QueryTime time;
        time.enqueueMs = time.computeMs = msBetween(start, Clock::now());
        return time;
    }

private:
    nvinfer1::IExecutionContext& mContext;
};

//! A CUDA engine: copies and work on one stream, timed between CUDA events; optionally replayed from a CUDA graph.
class DeviceQueries final : public QueryRunner
{
public:
    DeviceQueries(nvinfer1::IExecutionContext& context, IoBindings const& io, bool transfers, bool useGraph)
        : mContext(context)
        , mIo(io)
        , mTransfers(transfers)
    {
        if (!useGraph)
        {
            return;
        }
        // One plain run first, so that what kiln sets up on the first enqueue stays out of the graph.
        enqueue();
        mStream.synchronize();
        std::string why;
        mGraph = gpu::Graph::capture([&](cudaStream_t stream) { return mContext.enqueueV3(stream); }, mStream, why);
        if (!mGraph)
        {
            logger().warning(
                "--useCudaGraph: capturing enqueueV3 in a CUDA graph failed (" + why + "); running enqueueV3 plainly");
        }
    }

    bool usesGraph() const noexcept { return mGraph.has_value(); }

    QueryTime run() override
    {
        mH2dStart.record(mStream);
        if (mTransfers)
        {
            mIo.upload(mStream);
        }
        mComputeStart.record(mStream);
        Clock::time_point const start = Clock::now();
        enqueue();
        double const enqueueMs = msBetween(start, Clock::now());
        mComputeEnd.record(mStream);
        if (mTransfers)
        {
            mIo.download(mStream);
        }
        mD2hEnd.record(mStream);
        mD2hEnd.synchronize();
        QueryTime time;
        time.enqueueMs = enqueueMs;
        time.h2dMs = mTransfers ? gpu::Event::elapsedMs(mH2dStart, mComputeStart) : 0.0;
        time.computeMs = gpu::Event::elapsedMs(mComputeStart, mComputeEnd);
        time.d2hMs = mTransfers ? gpu::Event::elapsedMs(mComputeEnd, mD2hEnd) : 0.0;
        return time;
    }

    void finish() override
    {
        if (!mTransfers)
        {
            mIo.download(mStream);
            mStream.synchronize();
        }
    }

private:
    void enqueue()
    {
        if (mGraph)
        {
            mGraph->launch(mStream);
        }
        else if (!mContext.enqueueV3(mStream.get()))
        {
            throw Failure("enqueueV3 failed (kiln's error above says why)");
        }
    }

    nvinfer1::IExecutionContext& mContext;
    IoBindings const& mIo;
    bool mTransfers;
    gpu::Stream mStream;
    gpu::Event mH2dStart;
    gpu::Event mComputeStart;
    gpu::Event mComputeEnd;
    gpu::Event mD2hEnd;
    std::optional<gpu::Graph> mGraph;
};

//! One stream's part of the run: its warm-up queries and its timed queries.
struct StreamRun
{
    int64_t warmUpQueries{};
    std::vector<QueryTime> queries;
    std::exception_ptr failure;
};

//! What the streams share: when the timed run started, whether a stream failed (the others then stop), and the
//! barrier that ends every stream's warm-up before any times a query.
class RunPhases
{
public:
    explicit RunPhases(std::ptrdiff_t streams)
        : mWarmUpStart(Clock::now())
        , mBarrier(streams, Completion{this})
    {
    }

    //! Warm-up done: waits for the other streams; the timed run's start is then set.
    void warmedUp() { mBarrier.arrive_and_wait(); }
    //! A stream that failed before warmedUp() leaves the barrier so that the others do not wait for it.
    void leave() { mBarrier.arrive_and_drop(); }

    void fail() noexcept { mFailed.store(true); }
    bool failed() const noexcept { return mFailed.load(); }

    Clock::time_point warmUpStart() const noexcept { return mWarmUpStart; }
    Clock::time_point start() const noexcept { return mStart; }

private:
    struct Completion
    {
        RunPhases* phases;
        void operator()() const noexcept { phases->mStart = Clock::now(); }
    };

    Clock::time_point mWarmUpStart;
    Clock::time_point mStart;
    std::atomic<bool> mFailed{false};
    std::barrier<Completion> mBarrier;
};

//! Warms runner up, then runs its timed queries until both --iterations and --duration are reached (or another
//! stream failed); the failure, if any, is kept in run.
void runStream(QueryRunner& runner, Options const& options, RunPhases& phases, StreamRun& run)
{
    bool arrived = false;
    try
    {
        while (!phases.failed() && msBetween(phases.warmUpStart(), Clock::now()) < options.warmUpMs)
        {
            runner.run();
            ++run.warmUpQueries;
        }
        arrived = true;
        phases.warmedUp();
        Clock::time_point const start = phases.start();
        double const durationMs = options.durationSeconds * 1000.0;
        while (!phases.failed()
            && (static_cast<int64_t>(run.queries.size()) < options.iterations
                || msBetween(start, Clock::now()) < durationMs))
        {
            double const startMs = msBetween(start, Clock::now());
            QueryTime time = runner.run();
            time.startMs = startMs;
            time.endMs = msBetween(start, Clock::now());
            run.queries.push_back(time);
        }
        runner.finish();
    }
    catch (...)
    {
        run.failure = std::current_exception();
        phases.fail();
        if (!arrived)
        {
            phases.leave();
        }
    }
}

} // namespace

Trace runInference(std::vector<InferenceStream> const& streams, Options const& options, std::ostream& out)
{
    Trace trace;
    IoBindings const& first = *streams.front().io;
    trace.onDevice = first.onDevice();
    trace.transfers = first.onDevice() && !options.noDataTransfers;
    trace.streams = static_cast<int32_t>(streams.size());
    trace.cudaGraph = trace.onDevice && options.useCudaGraph;
    if (options.useCudaGraph && !trace.onDevice)
    {
        logger().warning("--useCudaGraph: a host engine has no CUDA graphs; running enqueueV3 plainly");
    }
    std::vector<std::unique_ptr<QueryRunner>> runners;
    for (InferenceStream const& stream : streams)
    {
        if (trace.onDevice)
        {
            auto device
                = std::make_unique<DeviceQueries>(*stream.context, *stream.io, trace.transfers, options.useCudaGraph);
            trace.cudaGraph = trace.cudaGraph && device->usesGraph();
            runners.push_back(std::move(device));
        }
        else
        {
            runners.push_back(std::make_unique<HostQueries>(*stream.context));
        }
    }

    out << "[I] Starting inference" << (streams.size() > 1 ? " on " + std::to_string(streams.size()) + " streams" : "")
        << "\n";
    RunPhases phases(static_cast<std::ptrdiff_t>(runners.size()));
    std::vector<StreamRun> runs(runners.size());
    if (runners.size() == 1)
    {
        runStream(*runners.front(), options, phases, runs.front());
    }
    else
    {
        // Each stream on a thread of its own, on the device this thread uses (a new thread starts on device 0).
        int32_t const device = trace.onDevice ? gpu::currentDevice() : 0;
        std::vector<std::thread> threads;
        for (std::size_t i = 0; i < runners.size(); ++i)
        {
            threads.emplace_back([&, i] {
                if (trace.onDevice)
                {
                    try
                    {
                        gpu::setCurrentDevice(device);
                    }
                    catch (...)
                    {
                        runs[i].failure = std::current_exception();
                        phases.fail();
                        phases.leave();
                        return;
                    }
                }
                runStream(*runners[i], options, phases, runs[i]);
            });
        }
        for (std::thread& thread : threads)
        {
            thread.join();
        }
    }
    for (StreamRun& run : runs)
    {
        if (run.failure)
        {
            std::rethrow_exception(run.failure);
        }
        trace.warmUpQueries += run.warmUpQueries;
        trace.queries.insert(trace.queries.end(), run.queries.begin(), run.queries.end());
    }
    trace.warmUpMs = msBetween(phases.warmUpStart(), phases.start());
    std::stable_sort(trace.queries.begin(), trace.queries.end(),
        [](QueryTime const& a, QueryTime const& b) { return a.startMs < b.startMs; });
    out << "[I] Warmup completed " << trace.warmUpQueries << " queries over " << trace.warmUpMs << " ms\n";
    double lastEndMs = 0.0;
    for (QueryTime const& query : trace.queries)
    {
        lastEndMs = std::max(lastEndMs, query.endMs);
    }
    out << "[I] Timing trace has " << trace.queries.size() << " queries over "
        << (lastEndMs - trace.queries.front().startMs) / 1000.0 << " s\n";
    return trace;
}

Trace runInference(
    nvinfer1::IExecutionContext& context, IoBindings const& io, Options const& options, std::ostream& out)
{
    return runInference({InferenceStream{&context, &io}}, options, out);
}

} // namespace kiln_tool
