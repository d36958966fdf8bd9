// SPDX-License-Identifier: Apache-2.0
// The kiln tool's timed inference, as trtexec times it: queries for --warmUp milliseconds, then queries until both
// --iterations and --duration are reached, one at a time per stream. Each query records its H2D copy, its compute
// (enqueueV3 or a CUDA graph's launch to completion), its D2H copy, and the host time of the enqueue call. A CUDA
// engine is timed with CUDA events on its stream; a host engine, whose enqueueV3 returns when the work is done, with
// the host's steady clock (its copies are zero: its I/O is in host memory).
//
// With --streams=N, N execution contexts of the engine (each with its own I/O buffers) run at once, each on a host
// thread of its own and, for a CUDA engine, on a CUDA stream of its own: every stream warms up, they start the timed
// run together, and each runs until it has made --iterations queries and --duration has passed. The trace holds the
// queries of every stream in the order they started, so the throughput counts them all. A host engine's contexts run
// on their threads the same way (kiln's contexts of one engine share nothing while they run).
//
//     Trace const trace = runInference(context, io, options, out);   // "[I] Warmup completed ..." to out
//     Trace const all = runInference({{&c0, &io0}, {&c1, &io1}}, options, out);
#pragma once

#include "options.h"
#include "tensors.h"

#include "NvInfer.h"

#include <cstdint>
#include <ostream>
#include <vector>

namespace kiln_tool
{

//! One query's times in milliseconds; startMs and endMs on the host's clock from the trace's start.
struct QueryTime
{
    double startMs{};
    double endMs{};
    double enqueueMs{};
    double h2dMs{};
    double computeMs{};
    double d2hMs{};

    //! trtexec's latency: H2D + compute + D2H.
    double latencyMs() const noexcept { return h2dMs + computeMs + d2hMs; }
};

struct Trace
{
    int64_t warmUpQueries{};
    double warmUpMs{};
    std::vector<QueryTime> queries;
    bool onDevice{};    //!< A CUDA engine (times from CUDA events).
    bool cudaGraph{};   //!< Queries replayed a CUDA graph.
    bool transfers{};   //!< Queries copied their inputs and outputs.
    int32_t streams{1}; //!< Contexts that ran at once; queries holds all of theirs, by start time.
};

//! One stream of the run: an execution context and the I/O bound to it.
struct InferenceStream
{
    nvinfer1::IExecutionContext* context{};
    IoBindings const* io{};
};

//! Runs and times the queries of every stream at once (options.streams is not read: streams says how many); each
//! stream's outputs' host copies hold its last query's results afterwards. The first failure of any stream is thrown
//! once every stream has stopped.
Trace runInference(std::vector<InferenceStream> const& streams, Options const& options, std::ostream& out);

//! runInference on one stream.
Trace runInference(
    nvinfer1::IExecutionContext& context, IoBindings const& io, Options const& options, std::ostream& out);

} // namespace kiln_tool
