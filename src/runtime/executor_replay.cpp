// SPDX-License-Identifier: Apache-2.0
// The executor's replay of its layers from a CUDA graph of its own (runtime/executor.h, "Replay"): which programs can
// be captured, the key a graph is valid for, the capture on the executor's stream and the launch on the run's.
#include "runtime/executor.h"

#include "core/logging.h"
#include "network/layer_kinds.h"
#include "runtime/executor_support.h"

#include <algorithm>
#include <string>

#if KILN_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace kiln
{

using namespace executor_detail;

bool Executor::capturableProgram() const
{
    if (!mProgram.onDevice() || !mProgram.loops().blocks.empty() || !mProgram.branches().nodes.empty())
    {
        return false;
    }
    EngineModel const& model = mProgram.model();
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        auto const index = static_cast<int32_t>(l);
        if (mProgram.precomputed(index))
        {
            continue; // Runs on the host once per set of inputs, before the layers are captured.
        }
        LayerRecord const& layer = model.layers[l];
        // Every other layer runs on the device, binds no symbol and makes nothing the host reads while the layers
        // run.
        if (isPluginLayer(layer.type) || mProgram.layerSide(index) != Side::kDEVICE
            || !mProgram.symbolsBoundBy(index).empty())
        {
            return false;
        }
        // A plugin's output written in place of an input is not replayed; a reshape's view of its input is.
        if (std::any_of(layer.outputs.begin(), layer.outputs.end(), [&](int32_t output) {
                return mProgram.mirrored(output)
                    || (mProgram.aliasRoot(output) != output && !mProgram.reshapeView(index));
            }))
        {
            return false;
        }
    }
    auto const io = mProgram.ioTensors();
    return std::none_of(io.begin(), io.end(), [](EngineProgram::IoTensor const& t) { return t.dataDependent; });
}

void Executor::dropReplayGraph() noexcept
{
#if KILN_WITH_CUDA
    if (mReplay.graph != nullptr)
    {
        static_cast<void>(cudaGraphExecDestroy(mReplay.graph));
    }
#endif
    mReplay.graph = nullptr;
    mReplay.captured.inputs = -1;
}

#if KILN_WITH_CUDA

namespace
{

//! Whether graph holds a node that allocates or frees memory (the capture saw an allocation).
bool allocates(cudaGraph_t graph)
{
    size_t count = 0;
    if (cudaGraphGetNodes(graph, nullptr, &count) != cudaSuccess)
    {
        return true;
    }
    std::vector<cudaGraphNode_t> nodes(count);
    if (count > 0 && cudaGraphGetNodes(graph, nodes.data(), &count) != cudaSuccess)
    {
        return true;
    }
    return std::any_of(nodes.begin(), nodes.end(), [](cudaGraphNode_t node) {
        cudaGraphNodeType type{};
        return cudaGraphNodeGetType(node, &type) != cudaSuccess || type == cudaGraphNodeTypeMemAlloc
            || type == cudaGraphNodeTypeMemFree;
    });
}

} // namespace

bool Executor::captureLayers(Bindings const& bindings, ActivationMemory memory, cudaStream_t stream)
{
    if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess)
    {
        static_cast<void>(cudaGetLastError());
        return false;
    }
    bool copiedToHost = false;
    host::Status const ran = runLayers(bindings, memory, stream, copiedToHost);
    cudaGraph_t graph{};
    cudaError_t const ended = cudaStreamEndCapture(stream, &graph);
    bool const captured = ran && !copiedToHost && ended == cudaSuccess && graph != nullptr && !allocates(graph);
    cudaGraphExec_t exec{};
    bool const made = captured && cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess;
    if (graph != nullptr)
    {
        static_cast<void>(cudaGraphDestroy(graph));
    }
    if (!made)
    {
        std::string const why = !ran ? ran.error().message
            : ended != cudaSuccess   ? std::string(cudaGetErrorString(ended))
            : captured               ? "the graph could not be instantiated"
                                     : "the layers allocate memory or copy to the host";
        static_cast<void>(cudaGetLastError());
        log(Severity::kVERBOSE,
            "enqueueV3 of network '" + mProgram.model().name
                + "': its layers could not be captured in a CUDA graph, so they are launched one by one from now on ("
                + why + ")");
        return false;
    }
    mReplay.graph = exec;
    log(Severity::kVERBOSE,
        "enqueueV3 of network '" + mProgram.model().name
            + "': its layers are captured in a CUDA graph; runs with the same inputs, I/O addresses and memory launch "
              "it");
    return true;
}

std::optional<host::Status> Executor::replayLayers(
    Bindings const& bindings, ActivationMemory memory, cudaStream_t stream)
{
    if (!mReplay.capturable || mReplay.refused)
    {
        return std::nullopt;
    }
    if (mReplay.graph != nullptr && !mReplay.captured.matches(mInputsGeneration, bindings, memory))
    {
        dropReplayGraph(); // This run may move buffers the graph reads.
    }
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess)
    {
        static_cast<void>(cudaGetLastError());
        capture = cudaStreamCaptureStatusInvalidated;
    }
    bool const allocators = std::any_of(bindings.allocators.begin(), bindings.allocators.end(),
        [](nvinfer1::IOutputAllocator const* a) { return a != nullptr; });
    if (stream == nullptr || mTimeOnDevice || allocators || mDebugListener != nullptr
        || capture != cudaStreamCaptureStatusNone)
    {
        // Runs directly: the legacy default stream (no capture there), per-layer times, allocations, a debug
        // listener's calls, or the application's own capture.
        mReplay.lastDirect.inputs = -1;
        return std::nullopt;
    }
    if (mReplay.graph != nullptr)
    {
        if (cudaError_t const status = cudaGraphLaunch(mReplay.graph, stream); status != cudaSuccess)
        {
            static_cast<void>(cudaGetLastError());
            return host::Status{failure(ErrorCode::kFAILED_EXECUTION,
                std::string("launching the layers' CUDA graph failed: ") + cudaGetErrorString(status))};
        }
        return host::Status{host::Done{}};
    }
    bool copiedToHost = false;
    host::Status ran = runLayers(bindings, memory, stream, copiedToHost);
    if (!ran)
    {
        mReplay.lastDirect.inputs = -1;
        return ran;
    }
    bool const again = mReplay.lastDirect.matches(mInputsGeneration, bindings, memory);
    mReplay.lastDirect.assign(mInputsGeneration, bindings, memory);
    if (again)
    {
        if (captureLayers(bindings, memory, stream))
        {
            mReplay.captured.assign(mInputsGeneration, bindings, memory);
        }
        else
        {
            mReplay.refused = true;
        }
    }
    return ran;
}

#else

bool Executor::captureLayers(Bindings const& /*bindings*/, ActivationMemory /*memory*/, cudaStream_t /*stream*/)
{
    return false;
}

std::optional<host::Status> Executor::replayLayers(
    Bindings const& /*bindings*/, ActivationMemory /*memory*/, cudaStream_t /*stream*/)
{
    return std::nullopt;
}

#endif

} // namespace kiln
