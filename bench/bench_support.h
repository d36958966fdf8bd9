// SPDX-License-Identifier: Apache-2.0
// What kiln_bench's blocks share, apart from kiln itself: errors, the seeded generator that torch_blocks.py repeats,
// IEEE half conversion, JSON lines, CUDA resources, and timing with CUDA events (per launch, or replaying a graph).
//
//     std::vector<float> w = kiln_bench::generate(kiln_bench::TensorSpec{32, 1.0 / std::sqrt(512.0)}, 512 * 512);
//     kiln_bench::Timing t = kiln_bench::timeLaunches(launch, stream, 20, 100);    // t.median, t.p10, t.p90 in ms
//     kiln_bench::JsonLine{}.str("block", "conv_stack").num("ms_median", t.median).print();
#pragma once

#include "json_line.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln_bench
{

//! A failure of one block; the message becomes the "error" field of its line.
class BenchError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

//! Throws BenchError naming call when status is not cudaSuccess.
inline void cudaCheck(cudaError_t status, char const* call)
{
    if (status != cudaSuccess)
    {
        static_cast<void>(cudaGetLastError()); // Clear a sticky-free error so the next block starts clean.
        throw BenchError(
            std::string(call) + " failed: " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
    }
}

// ---------------------------------------------------------------------------------------------------------------
// The shared generator (torch_blocks.py has the same one, see its gen_values).
//
//   mix32(x):  x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16     (all mod 2^32)
//   h       = mix32(seed * 0x9e3779b9 + i)                                                   (mod 2^32)
//   base    = float((h >> 8) * 2 - 2^24) * 2^-24          in [-1, 1), exact in fp32
//   value_i = float32(base * scale) + offset              two fp32 operations, scale and offset rounded to fp32
//
// A counter-based hash rather than a sequential LCG, so that Python can draw millions of values with vectorized
// integer operations; it needs no state and no ordering between tensors.
// ---------------------------------------------------------------------------------------------------------------

constexpr uint32_t mix32(uint32_t x) noexcept
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

//! The value at index of the stream seed, in [-1, 1).
inline float benchValue(uint32_t seed, uint32_t index) noexcept
{
    uint32_t const h = mix32(seed * 0x9e3779b9U + index);
    return static_cast<float>(static_cast<int32_t>(h >> 8) * 2 - (1 << 24)) * 0x1p-24F;
}

//! How one tensor of weights or inputs is drawn: value_i = benchValue(seed, i) * scale + offset.
struct TensorSpec
{
    uint32_t seed;
    double scale;
    double offset{0.0};
};

inline std::vector<float> generate(TensorSpec const& spec, int64_t count)
{
    float const scale = static_cast<float>(spec.scale);
    float const offset = static_cast<float>(spec.offset);
    std::vector<float> values(static_cast<std::size_t>(count));
    for (int64_t i = 0; i < count; ++i)
    {
        float const scaled = benchValue(spec.seed, static_cast<uint32_t>(i)) * scale;
        values[static_cast<std::size_t>(i)] = scaled + offset;
    }
    return values;
}

//! value as IEEE half, rounded to nearest even (what torch's .half() does).
inline uint16_t toHalf(float value) noexcept
{
    uint32_t const bits = std::bit_cast<uint32_t>(value);
    auto const sign = static_cast<uint16_t>((bits >> 16) & 0x8000U);
    uint32_t magnitude = bits & 0x7fffffffU;
    if (magnitude >= 0x7f800000U)
    {
        return static_cast<uint16_t>(sign | (magnitude > 0x7f800000U ? 0x7e00U : 0x7c00U));
    }
    if (magnitude >= 0x477ff000U) // 65520 and above round to infinity.
    {
        return static_cast<uint16_t>(sign | 0x7c00U);
    }
    if (magnitude < 0x38800000U) // Below 2^-14: a subnormal half; adding 0.5 rounds to a multiple of 2^-24.
    {
        float const shifted = std::bit_cast<float>(magnitude) + 0.5F;
        return static_cast<uint16_t>(sign | (std::bit_cast<uint32_t>(shifted) - 0x3f000000U));
    }
    uint32_t const odd = (magnitude >> 13) & 1U;
    magnitude += 0xc8000fffU + odd; // Exponent rebias (-112 << 23) and round-to-nearest-even on the 13 dropped bits.
    return static_cast<uint16_t>(sign | (magnitude >> 13));
}

inline float fromHalf(uint16_t half) noexcept
{
    int const exponent = (half >> 10) & 0x1f;
    int const mantissa = half & 0x3ff;
    float magnitude = 0.0F;
    if (exponent == 0)
    {
        magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    }
    else if (exponent == 31)
    {
        magnitude = mantissa == 0 ? INFINITY : NAN;
    }
    else
    {
        magnitude = std::ldexp(static_cast<float>(mantissa + 1024), exponent - 25);
    }
    return (half & 0x8000U) != 0 ? -magnitude : magnitude;
}

// ---------------------------------------------------------------------------------------------------------------
// CUDA resources and timing.
// ---------------------------------------------------------------------------------------------------------------

struct CudaFree
{
    void operator()(void* pointer) const noexcept { static_cast<void>(cudaFree(pointer)); }
};
using DeviceBuffer = std::unique_ptr<void, CudaFree>;

inline DeviceBuffer deviceAlloc(std::size_t bytes)
{
    void* pointer = nullptr;
    cudaCheck(cudaMalloc(&pointer, std::max<std::size_t>(bytes, 1)), "cudaMalloc");
    return DeviceBuffer(pointer);
}

class Stream
{
public:
    Stream() { cudaCheck(cudaStreamCreateWithFlags(&mStream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags"); }
    ~Stream() { static_cast<void>(cudaStreamDestroy(mStream)); }
    Stream(Stream const&) = delete;
    Stream& operator=(Stream const&) = delete;

    cudaStream_t get() const noexcept { return mStream; }

private:
    cudaStream_t mStream{};
};

//! Events created and destroyed together.
class EventPool
{
public:
    explicit EventPool(std::size_t count)
    {
        mEvents.reserve(count);
        for (std::size_t i = 0; i < count; ++i)
        {
            cudaEvent_t event{};
            cudaCheck(cudaEventCreate(&event), "cudaEventCreate");
            mEvents.push_back(event);
        }
    }
    ~EventPool()
    {
        for (cudaEvent_t const event : mEvents)
        {
            static_cast<void>(cudaEventDestroy(event));
        }
    }
    EventPool(EventPool const&) = delete;
    EventPool& operator=(EventPool const&) = delete;

    cudaEvent_t operator[](std::size_t i) const noexcept { return mEvents[i]; }

private:
    std::vector<cudaEvent_t> mEvents;
};

//! A launch on a stream: throws BenchError when it cannot be enqueued.
using Launch = std::function<void(cudaStream_t)>;

struct Timing
{
    double median{};
    double p10{};
    double p90{};
    double mean{};
    double min{};
};

//! The q-quantile of sorted values with linear interpolation between ranks (numpy's default; torch_blocks.py agrees).
inline double quantile(std::vector<double> const& sorted, double q)
{
    double const position = q * static_cast<double>(sorted.size() - 1);
    auto const below = static_cast<std::size_t>(std::floor(position));
    std::size_t const above = std::min(below + 1, sorted.size() - 1);
    double const fraction = position - static_cast<double>(below);
    return sorted[below] + (sorted[above] - sorted[below]) * fraction;
}

//! The statistics of times (milliseconds, at least one).
inline Timing summarize(std::vector<double> times)
{
    std::sort(times.begin(), times.end());
    Timing timing;
    timing.median = quantile(times, 0.5);
    timing.p10 = quantile(times, 0.1);
    timing.p90 = quantile(times, 0.9);
    timing.min = times.front();
    double total = 0.0;
    for (double const t : times)
    {
        total += t;
    }
    timing.mean = total / static_cast<double>(times.size());
    return timing;
}

//! The timing fields of a JSON line: ms_median, ms_p10, ms_p90, ms_mean, ms_min, iterations, warmup.
inline JsonLine& addTiming(JsonLine& line, Timing const& t, int32_t iterations, int32_t warmup)
{
    return line.num("ms_median", t.median)
        .num("ms_p10", t.p10)
        .num("ms_p90", t.p90)
        .num("ms_mean", t.mean)
        .num("ms_min", t.min)
        .integer("iterations", iterations)
        .integer("warmup", warmup);
}

//! Runs launch warmup times, then iterations times, each between two events on stream; milliseconds per iteration.
//! The iterations are queued back to back and read after one synchronization, as torch_blocks.py does.
inline Timing timeLaunches(Launch const& launch, cudaStream_t stream, int32_t warmup, int32_t iterations)
{
    for (int32_t i = 0; i < warmup; ++i)
    {
        launch(stream);
    }
    cudaCheck(cudaStreamSynchronize(stream), "cudaStreamSynchronize after the warm-up");
    auto const count = static_cast<std::size_t>(iterations);
    EventPool const starts(count);
    EventPool const stops(count);
    for (std::size_t i = 0; i < count; ++i)
    {
        cudaCheck(cudaEventRecord(starts[i], stream), "cudaEventRecord");
        launch(stream);
        cudaCheck(cudaEventRecord(stops[i], stream), "cudaEventRecord");
    }
    cudaCheck(cudaStreamSynchronize(stream), "cudaStreamSynchronize after the timed iterations");
    std::vector<double> times(count);
    for (std::size_t i = 0; i < count; ++i)
    {
        float ms = 0.0F;
        cudaCheck(cudaEventElapsedTime(&ms, starts[i], stops[i]), "cudaEventElapsedTime");
        times[i] = ms;
    }
    return summarize(std::move(times));
}

//! An instantiated CUDA graph holding what one launch enqueued.
class Graph
{
public:
    Graph(Launch const& launch, cudaStream_t stream)
    {
        cudaCheck(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
        cudaGraph_t graph{};
        try
        {
            launch(stream);
        }
        catch (...)
        {
            if (cudaStreamEndCapture(stream, &graph) == cudaSuccess && graph != nullptr)
            {
                static_cast<void>(cudaGraphDestroy(graph));
            }
            static_cast<void>(cudaGetLastError());
            throw;
        }
        cudaCheck(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
        cudaError_t const status = cudaGraphInstantiate(&mExec, graph, 0);
        static_cast<void>(cudaGraphDestroy(graph));
        cudaCheck(status, "cudaGraphInstantiate");
    }
    ~Graph() { static_cast<void>(cudaGraphExecDestroy(mExec)); }
    Graph(Graph const&) = delete;
    Graph& operator=(Graph const&) = delete;

    void replay(cudaStream_t stream) const { cudaCheck(cudaGraphLaunch(mExec, stream), "cudaGraphLaunch"); }

private:
    cudaGraphExec_t mExec{};
};

//! Free device memory now, after the device's queued work and any pool trimming it triggers.
inline std::size_t freeDeviceBytes()
{
    cudaCheck(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    std::size_t freeBytes = 0;
    std::size_t totalBytes = 0;
    cudaCheck(cudaMemGetInfo(&freeBytes, &totalBytes), "cudaMemGetInfo");
    return freeBytes;
}

} // namespace kiln_bench
