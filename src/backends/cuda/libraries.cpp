// SPDX-License-Identifier: Apache-2.0
// The library handles and scratch memory of one execution context (kernels.h's Libraries): a cuBLASLt and a cuDNN
// handle made on first use, once their library is loaded (library_loader.h; cudnnSetStream called only when the stream
// changes), one workspace block that grows on demand in stream order, and the cache of prepared states. The errors of
// failed cuBLASLt and cuDNN calls and the cache's least-recently-used bookkeeping (libraries.h).
#include "backends/cuda/libraries.h"

#include "backends/cuda/kernels.h"
#include "backends/cuda/library_loader.h"
#include "backends/cuda/matmul_cache.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln::cuda
{

Error cublasFailure(cublasStatus_t status, char const* what)
{
    return Error{status == CUBLAS_STATUS_ALLOC_FAILED ? nvinfer1::ErrorCode::kFAILED_ALLOCATION
                                                      : nvinfer1::ErrorCode::kFAILED_EXECUTION,
        std::string(what) + " failed: " + cublasLtGetStatusName(status) + " (" + cublasLtGetStatusString(status) + ")"};
}

Error cudnnFailure(cudnnStatus_t status, char const* what)
{
    return Error{status == CUDNN_STATUS_ALLOC_FAILED ? nvinfer1::ErrorCode::kFAILED_ALLOCATION
                                                     : nvinfer1::ErrorCode::kFAILED_EXECUTION,
        std::string(what) + " failed: " + cudnnGetErrorString(status)};
}

uint32_t commonAlignment(void const* address, std::initializer_list<int64_t> offsets) noexcept
{
    constexpr uint64_t kMost = 256;
    uint64_t bits = address == nullptr ? kMost : reinterpret_cast<uintptr_t>(address);
    for (int64_t const offset : offsets)
    {
        bits |= static_cast<uint64_t>(offset < 0 ? -offset : offset);
    }
    bits |= kMost;
    return static_cast<uint32_t>(bits & (~bits + 1)); // The lowest set bit.
}

std::size_t PreparedCache::KeyHash::operator()(Key const& key) const noexcept
{
    // FNV-1a over the elements.
    uint64_t hash = 0xcbf29ce484222325ULL;
    for (int64_t const element : key)
    {
        hash = (hash ^ static_cast<uint64_t>(element)) * 0x100000001b3ULL;
    }
    return static_cast<std::size_t>(hash);
}

Prepared* PreparedCache::find(Key const& key)
{
    auto const hit = mIndex.find(key);
    if (hit == mIndex.end())
    {
        return nullptr;
    }
    mEntries.splice(mEntries.begin(), mEntries, hit->second);
    return mEntries.front().second.get();
}

Prepared* PreparedCache::insert(Key const& key, std::unique_ptr<Prepared> prepared)
{
    if (auto const same = mIndex.find(key); same != mIndex.end())
    {
        mEntries.erase(same->second);
        mIndex.erase(same);
    }
    while (mEntries.size() >= kCapacity)
    {
        mIndex.erase(mEntries.back().first);
        mEntries.pop_back();
    }
    mEntries.emplace_front(key, std::move(prepared));
    mIndex[key] = mEntries.begin();
    return mEntries.front().second.get();
}

struct Libraries::State
{
    cublasLtHandle_t cublasLt{};
    cudnnHandle_t cudnn{};
    cudaStream_t cudnnStream{}; //!< The stream the cuDNN handle is bound to.
    PreparedCache prepared;     //!< Emptied first when destroyed: its library objects go before the handles.
    void* block{};
    int64_t blockBytes{};
    cudaStream_t blockStream{}; //!< The stream of the last workspace request: the block's uses are ordered on it.
    cudaEvent_t handOver{};     //!< Orders a new stream after the old one when the workspace changes streams.
    bool handedOver{}; //!< finishRun recorded handOver after the block's last use: blockStream is not named again.
    //! The block was allocated during a stream capture, outside the graph (cudaMalloc): it is never freed in stream
    //! order, but retired.
    bool blockOutsideOrder{};
    //! Blocks given up while a graph may still use them (one replaced during a capture, or one from cudaMalloc), freed
    //! with the libraries. Each is at most half of the next, so together they are at most the current block's size.
    std::vector<void*> retired;
};

Libraries::Libraries()
    : mState(std::make_unique<State>())
{
}

Libraries::~Libraries()
{
    mState->prepared = PreparedCache{};
    // The context's work has finished when it is destroyed (as TensorRT requires of an execution context), so the
    // block can be freed at once: cudaFree does not wait for stream-ordered allocations.
    if (mState->block != nullptr)
    {
        static_cast<void>(cudaFree(mState->block));
    }
    for (void* block : mState->retired)
    {
        static_cast<void>(cudaFree(block));
    }
    if (mState->handOver != nullptr)
    {
        static_cast<void>(cudaEventDestroy(mState->handOver));
    }
    if (mState->cudnn != nullptr)
    {
        static_cast<void>(cudnnDestroy(mState->cudnn));
    }
    if (mState->cublasLt != nullptr)
    {
        static_cast<void>(cublasLtDestroy(mState->cublasLt));
    }
}

Expected<void*> Libraries::cublasLt()
{
    if (mState->cublasLt == nullptr)
    {
        if (std::optional<Error> missing = loadLibrary(GpuLibrary::kCUBLAS_LT))
        {
            return *std::move(missing);
        }
        cublasLtHandle_t handle{};
        if (cublasStatus_t const status = cublasLtCreate(&handle); status != CUBLAS_STATUS_SUCCESS)
        {
            return cublasFailure(status, "cublasLtCreate");
        }
        mState->cublasLt = handle;
    }
    return static_cast<void*>(mState->cublasLt);
}

Expected<void*> Libraries::planningCudnn()
{
    if (mState->cudnn == nullptr)
    {
        if (std::optional<Error> missing = loadLibrary(GpuLibrary::kCUDNN))
        {
            return *std::move(missing);
        }
        cudnnHandle_t handle{};
        if (cudnnStatus_t const status = cudnnCreate(&handle); status != CUDNN_STATUS_SUCCESS)
        {
            return cudnnFailure(status, "cudnnCreate");
        }
        mState->cudnn = handle;
        mState->cudnnStream = nullptr; // A new handle runs on the default stream.
    }
    return static_cast<void*>(mState->cudnn);
}

Expected<void*> Libraries::cudnn(cudaStream_t stream)
{
    if (Expected<void*> const made = planningCudnn(); !made)
    {
        return made;
    }
    if (stream != mState->cudnnStream)
    {
        if (cudnnStatus_t const status = cudnnSetStream(mState->cudnn, stream); status != CUDNN_STATUS_SUCCESS)
        {
            return cudnnFailure(status, "cudnnSetStream");
        }
        mState->cudnnStream = stream;
    }
    return static_cast<void*>(mState->cudnn);
}

PreparedCache& Libraries::prepared()
{
    return mState->prepared;
}

namespace
{

//! Whether stream is being captured into a graph (a failed query counts as captured: nothing then waits on it).
bool capturing(cudaStream_t stream) noexcept
{
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(stream, &status) != cudaSuccess)
    {
        static_cast<void>(cudaGetLastError());
        return true;
    }
    return status != cudaStreamCaptureStatusNone;
}

} // namespace

//! The workspace grown to bytes while its stream is captured into an application's graph (TensorRT asks for an
//! enqueueV3 outside a capture after each shape change, which sizes it; this is the case where that run was skipped).
//! A stream-ordered allocation there would be a node of the graph: the block would be the graph's, gone with it, and
//! the old block could not be freed there (only a graph's own allocations can). So the block is allocated outside the
//! graph, with this thread's capture mode relaxed for the call, and the old block, which the capture may already use,
//! is retired until the libraries go.
Expected<void*> Libraries::growInCapture(State& s, int64_t bytes)
{
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    if (cudaError_t const status = cudaThreadExchangeStreamCaptureMode(&mode); status != cudaSuccess)
    {
        return cudaFailure(status, "workspace: cudaThreadExchangeStreamCaptureMode");
    }
    void* block = nullptr;
    cudaError_t const status = cudaMalloc(&block, static_cast<size_t>(bytes));
    static_cast<void>(cudaThreadExchangeStreamCaptureMode(&mode));
    if (status != cudaSuccess)
    {
        static_cast<void>(cudaGetLastError());
        return Error{nvinfer1::ErrorCode::kFAILED_ALLOCATION,
            "workspace: cudaMalloc of " + std::to_string(bytes) + " bytes during a stream capture failed: "
                + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")"};
    }
    if (s.block != nullptr)
    {
        s.retired.push_back(s.block);
    }
    s.block = block;
    s.blockBytes = bytes;
    s.blockOutsideOrder = true;
    return block;
}

Expected<void*> Libraries::workspace(int64_t bytes, cudaStream_t stream)
{
    State& s = *mState;
    if (bytes < 0)
    {
        return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
            "workspace: a request for " + std::to_string(bytes) + " bytes (negative)"};
    }
    // Work already queued on the block's stream may still use it: a request from another stream waits for that work
    // (without blocking the host) before the block is used or freed there. After finishRun that work is fenced by
    // handOver already, and its stream is no longer named (it may be destroyed). A stream being captured into a graph
    // waits as an external event node (a plain wait there on work outside the capture is
    // cudaErrorStreamCaptureIsolation): each launch of the graph waits for the work recorded before it.
    if (s.block != nullptr && (s.handedOver || stream != s.blockStream))
    {
        bool const captured = capturing(stream);
        bool recordedOutside = true;
        if (!s.handedOver)
        {
            if (s.handOver == nullptr)
            {
                if (cudaError_t const status = cudaEventCreateWithFlags(&s.handOver, cudaEventDisableTiming);
                    status != cudaSuccess)
                {
                    return cudaFailure(status, "workspace: cudaEventCreateWithFlags");
                }
            }
            recordedOutside = !capturing(s.blockStream);
            if (cudaError_t const status = cudaEventRecord(s.handOver, s.blockStream); status != cudaSuccess)
            {
                return cudaFailure(status, "workspace: cudaEventRecord");
            }
        }
        unsigned int const flags = captured && recordedOutside ? cudaEventWaitExternal : cudaEventWaitDefault;
        if (cudaError_t const status = cudaStreamWaitEvent(stream, s.handOver, flags); status != cudaSuccess)
        {
            return cudaFailure(status, "workspace: cudaStreamWaitEvent");
        }
    }
    s.blockStream = stream;
    s.handedOver = false;
    if (bytes <= s.blockBytes)
    {
        return s.block;
    }
    // Grow to at least twice the old size (in whole MiB), so that a run of growing requests allocates few times.
    constexpr int64_t kMiB = int64_t{1} << 20;
    int64_t const wanted = std::max(bytes, 2 * s.blockBytes);
    int64_t const rounded = (wanted + kMiB - 1) / kMiB * kMiB;
    if (capturing(stream))
    {
        return growInCapture(s, rounded);
    }
    if (s.block != nullptr)
    {
        if (s.blockOutsideOrder)
        {
            s.retired.push_back(s.block);
        }
        else if (cudaError_t const status = cudaFreeAsync(s.block, stream); status != cudaSuccess)
        {
            return cudaFailure(status, "workspace: cudaFreeAsync");
        }
        s.block = nullptr;
        s.blockBytes = 0;
        s.blockOutsideOrder = false;
    }
    void* block = nullptr;
    if (cudaError_t const status = cudaMallocAsync(&block, static_cast<size_t>(rounded), stream); status != cudaSuccess)
    {
        static_cast<void>(cudaGetLastError());
        return Error{nvinfer1::ErrorCode::kFAILED_ALLOCATION,
            "workspace: cudaMallocAsync of " + std::to_string(rounded) + " bytes failed: " + cudaGetErrorName(status)
                + " (" + cudaGetErrorString(status) + ")"};
    }
    s.block = block;
    s.blockBytes = rounded;
    return block;
}

void Libraries::finishRun(cudaStream_t stream) noexcept
{
    State& s = *mState;
    if (s.block == nullptr || s.handedOver || s.blockStream != stream)
    {
        return;
    }
    if (capturing(stream))
    {
        return;
    }
    if (s.handOver == nullptr && cudaEventCreateWithFlags(&s.handOver, cudaEventDisableTiming) != cudaSuccess)
    {
        static_cast<void>(cudaGetLastError());
        return;
    }
    if (cudaEventRecord(s.handOver, stream) != cudaSuccess)
    {
        static_cast<void>(cudaGetLastError());
        return;
    }
    s.handedOver = true;
}

MatmulCache& Libraries::matmulCache()
{
    if (mMatmulCache == nullptr)
    {
        mMatmulCache = std::make_unique<MatmulCache>();
    }
    return *mMatmulCache;
}

} // namespace kiln::cuda
