// SPDX-License-Identifier: Apache-2.0
#include "inference.h"

#include "gpu.h"
#include "logger.h"

#include <chrono>
#include <memory>
#include <optional>

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

} // namespace

Trace runInference(
    nvinfer1::IExecutionContext& context, IoBindings const& io, Options const& options, std::ostream& out)
{
    Trace trace;
    trace.onDevice = io.onDevice();
    trace.transfers = io.onDevice() && !options.noDataTransfers;
    std::unique_ptr<QueryRunner> runner;
    if (io.onDevice())
    {
        auto device = std::make_unique<DeviceQueries>(context, io, trace.transfers, options.useCudaGraph);
        trace.cudaGraph = device->usesGraph();
        runner = std::move(device);
    }
    else
    {
        if (options.useCudaGraph)
        {
            logger().warning("--useCudaGraph: a host engine has no CUDA graphs; running enqueueV3 plainly");
        }
        runner = std::make_unique<HostQueries>(context);
    }

    out << "[I] Starting inference\n";
    Clock::time_point const warmUpStart = Clock::now();
    while (msBetween(warmUpStart, Clock::now()) < options.warmUpMs)
    {
        runner->run();
        ++trace.warmUpQueries;
    }
    trace.warmUpMs = msBetween(warmUpStart, Clock::now());
    out << "[I] Warmup completed " << trace.warmUpQueries << " queries over " << trace.warmUpMs << " ms\n";

    Clock::time_point const start = Clock::now();
    double const durationMs = options.durationSeconds * 1000.0;
    while (
        static_cast<int64_t>(trace.queries.size()) < options.iterations || msBetween(start, Clock::now()) < durationMs)
    {
        double const startMs = msBetween(start, Clock::now());
        QueryTime time = runner->run();
        time.startMs = startMs;
        time.endMs = msBetween(start, Clock::now());
        trace.queries.push_back(time);
    }
    runner->finish();
    out << "[I] Timing trace has " << trace.queries.size() << " queries over "
        << (trace.queries.back().endMs - trace.queries.front().startMs) / 1000.0 << " s\n";
    return trace;
}

} // namespace kiln_tool
