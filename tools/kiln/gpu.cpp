// SPDX-License-Identifier: Apache-2.0
#include "gpu.h"

#include "logger.h"

#include <algorithm>

#if KILN_TOOL_CUDA
#include <cuda_runtime_api.h>
#endif

namespace kiln_tool::gpu
{
namespace
{

#if KILN_TOOL_CUDA

void check(cudaError_t status, std::string const& call)
{
    if (status != cudaSuccess)
    {
        static_cast<void>(cudaGetLastError()); // clears a non-sticky error
        throw Failure(call + " failed: " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
    }
}

void freeDevice(void* memory)
{
    static_cast<void>(cudaFree(memory));
}

void freePinned(void* memory)
{
    static_cast<void>(cudaFreeHost(memory));
}

void destroyStream(cudaStream_t stream)
{
    static_cast<void>(cudaStreamDestroy(stream));
}

void destroyEvent(cudaEvent_t event)
{
    static_cast<void>(cudaEventDestroy(event));
}

#else

constexpr char const* kNoCuda = "kiln's command-line tool was built without the CUDA toolkit";

[[noreturn]] void noCuda()
{
    throw Failure(std::string(kNoCuda) + "; CUDA engines cannot run here (use --backend=host)");
}

void freeNothing(void*) {}
void destroyNoStream(cudaStream_t) {}
void destroyNoEvent(cudaEvent_t) {}

#endif

} // namespace

#if KILN_TOOL_CUDA

std::string unusableReason()
{
    int count = 0;
    cudaError_t const status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess)
    {
        static_cast<void>(cudaGetLastError());
        return std::string("no CUDA device can be used: cudaGetDeviceCount: ") + cudaGetErrorName(status) + " ("
            + cudaGetErrorString(status) + ")";
    }
    return count > 0 ? std::string() : std::string("no CUDA device can be used: cudaGetDeviceCount found none");
}

int32_t currentDevice()
{
    int device = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    return device;
}

void setCurrentDevice(int32_t device)
{
    check(cudaSetDevice(device), "cudaSetDevice(" + std::to_string(device) + ")");
}

std::string selectDevice(int32_t device)
{
    check(cudaSetDevice(device), "cudaSetDevice(" + std::to_string(device) + ")");
    cudaDeviceProp properties{};
    check(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
    return properties.name;
}

DeviceMemory::DeviceMemory(std::size_t bytes)
    : mMemory(nullptr, freeDevice)
{
    void* memory = nullptr;
    check(cudaMalloc(&memory, std::max<std::size_t>(bytes, 1)), "cudaMalloc of " + std::to_string(bytes) + " bytes");
    mMemory.reset(memory);
}

PinnedMemory::PinnedMemory(std::size_t bytes)
    : mMemory(nullptr, freePinned)
{
    void* memory = nullptr;
    check(cudaMallocHost(&memory, std::max<std::size_t>(bytes, 1)),
        "cudaMallocHost of " + std::to_string(bytes) + " bytes");
    mMemory.reset(memory);
}

Stream::Stream()
    : mStream(nullptr, destroyStream)
{
    cudaStream_t stream = nullptr;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    mStream.reset(stream);
}

void Stream::synchronize() const
{
    check(cudaStreamSynchronize(mStream.get()), "cudaStreamSynchronize");
}

Event::Event()
    : mEvent(nullptr, destroyEvent)
{
    cudaEvent_t event = nullptr;
    check(cudaEventCreate(&event), "cudaEventCreate");
    mEvent.reset(event);
}

void Event::record(Stream const& stream) const
{
    check(cudaEventRecord(mEvent.get(), stream.get()), "cudaEventRecord");
}

void Event::synchronize() const
{
    check(cudaEventSynchronize(mEvent.get()), "cudaEventSynchronize");
}

float Event::elapsedMs(Event const& start, Event const& end)
{
    float ms = 0.0F;
    check(cudaEventElapsedTime(&ms, start.mEvent.get(), end.mEvent.get()), "cudaEventElapsedTime");
    return ms;
}

void copyAsync(void* destination, void const* source, std::size_t bytes, Direction direction, Stream const& stream)
{
    bool const toDevice = direction == Direction::kHOST_TO_DEVICE;
    check(cudaMemcpyAsync(
              destination, source, bytes, toDevice ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, stream.get()),
        toDevice ? "cudaMemcpyAsync to the device" : "cudaMemcpyAsync to the host");
}

std::optional<Graph> Graph::capture(
    std::function<bool(cudaStream_t)> const& enqueue, Stream const& stream, std::string& why)
{
    if (cudaError_t const status = cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal);
        status != cudaSuccess)
    {
        static_cast<void>(cudaGetLastError());
        why = std::string("cudaStreamBeginCapture: ") + cudaGetErrorString(status);
        return std::nullopt;
    }
    bool const enqueued = enqueue(stream.get());
    cudaGraph_t graph = nullptr;
    cudaError_t const ended = cudaStreamEndCapture(stream.get(), &graph);
    std::unique_ptr<CUgraph_st, cudaError_t (*)(cudaGraph_t)> const owned(graph, cudaGraphDestroy);
    if (!enqueued || ended != cudaSuccess || graph == nullptr)
    {
        static_cast<void>(cudaGetLastError());
        why = !enqueued ? "enqueueV3 failed while the stream was captured"
                        : std::string("cudaStreamEndCapture: ") + cudaGetErrorString(ended);
        return std::nullopt;
    }
    cudaGraphExec_t exec = nullptr;
    if (cudaError_t const status = cudaGraphInstantiate(&exec, graph, 0); status != cudaSuccess)
    {
        static_cast<void>(cudaGetLastError());
        why = std::string("cudaGraphInstantiate: ") + cudaGetErrorString(status);
        return std::nullopt;
    }
    Graph result;
    result.mExec = std::shared_ptr<void>(exec, [](void* e) { cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(e)); });
    return result;
}

void Graph::launch(Stream const& stream) const
{
    check(cudaGraphLaunch(static_cast<cudaGraphExec_t>(mExec.get()), stream.get()), "cudaGraphLaunch");
}

#else

std::string unusableReason()
{
    return kNoCuda;
}

std::string selectDevice(int32_t)
{
    noCuda();
}

int32_t currentDevice()
{
    noCuda();
}

void setCurrentDevice(int32_t)
{
    noCuda();
}

DeviceMemory::DeviceMemory(std::size_t)
    : mMemory(nullptr, freeNothing)
{
    noCuda();
}

PinnedMemory::PinnedMemory(std::size_t)
    : mMemory(nullptr, freeNothing)
{
    noCuda();
}

Stream::Stream()
    : mStream(nullptr, destroyNoStream)
{
    noCuda();
}

void Stream::synchronize() const
{
    noCuda();
}

Event::Event()
    : mEvent(nullptr, destroyNoEvent)
{
    noCuda();
}

void Event::record(Stream const&) const
{
    noCuda();
}

void Event::synchronize() const
{
    noCuda();
}

float Event::elapsedMs(Event const&, Event const&)
{
    noCuda();
}

void copyAsync(void*, void const*, std::size_t, Direction, Stream const&)
{
    noCuda();
}

std::optional<Graph> Graph::capture(std::function<bool(cudaStream_t)> const&, Stream const&, std::string& why)
{
    why = kNoCuda;
    return std::nullopt;
}

void Graph::launch(Stream const&) const
{
    noCuda();
}

#endif

} // namespace kiln_tool::gpu
