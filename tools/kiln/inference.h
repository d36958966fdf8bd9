// SPDX-License-Identifier: Apache-2.0
// The kiln tool's timed inference, as trtexec times it: queries for --warmUp milliseconds, then queries until both
// --iterations and --duration are reached, one at a time. Each query records its H2D copy, its compute (enqueueV3 or
// a CUDA graph's launch to completion), its D2H copy, and the host time of the enqueue call. A CUDA engine is timed
// with CUDA events on one stream; a host engine, whose enqueueV3 returns when the work is done, with the host's
// steady clock (its copies are zero: its I/O is in host memory).
//
//     Trace const trace = runInference(context, io, options, out);   // "[I] Warmup completed ..." to out
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
    bool onDevice{};  //!< A CUDA engine (times from CUDA events).
    bool cudaGraph{}; //!< Queries replayed a CUDA graph.
    bool transfers{}; //!< Queries copied their inputs and outputs.
};

//! Runs and times the queries; the outputs' host copies hold the last query's results afterwards.
Trace runInference(
    nvinfer1::IExecutionContext& context, IoBindings const& io, Options const& options, std::ostream& out);

} // namespace kiln_tool
