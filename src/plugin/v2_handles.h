// SPDX-License-Identifier: Apache-2.0
// The cuDNN and cuBLAS handles that the legacy IPluginV2Ext::attachToContext(cudnnContext*, cublasContext*,
// IGpuAllocator*) hands V2 plugins. On the CUDA backend they are real handles when the tactic sources allow them
// (TacticSource::kCUDNN, kCUBLAS; TensorRT 10 turns both off by default, and plugins then receive null, as there);
// elsewhere they are null. A set is made when first asked for and lives as long as its owner: the build of a layer, or
// an execution context. Before a V2 plugin runs, the handles are pointed at the stream it runs on.
//
//     V2Handles handles(settings.tacticSources, onDevice);
//     auto made = handles.get();                     // error: the library or library call that failed
//     plugin.attachToContext(made.value().cudnn, made.value().cublas, allocator);
//     handles.setStream(stream);                     // before enqueue()
#pragma once

#include "NvInferRuntime.h"
#include "core/error.h"

#include <memory>

namespace kiln
{

class V2Handles
{
public:
    //! The handles the plugins of an engine on the CUDA backend (onDevice) get for sources; null ones elsewhere.
    V2Handles(nvinfer1::TacticSources sources, bool onDevice) noexcept;
    ~V2Handles();
    V2Handles(V2Handles const&) = delete;
    V2Handles& operator=(V2Handles const&) = delete;

    struct Pair
    {
        cudnnContext* cudnn{};
        cublasContext* cublas{};
    };

    //! The handles, made on the first call (cuDNN and cuBLAS are loaded then: backends/cuda/library_loader.h); null
    //! for a source not allowed. The error names the library that could not be loaded, or the failed library call.
    Expected<Pair> get();

    //! Points the handles made so far at stream.
    void setStream(cudaStream_t stream) noexcept;

private:
    struct State;
    std::unique_ptr<State> mState;
};

} // namespace kiln
