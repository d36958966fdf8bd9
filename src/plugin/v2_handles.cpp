// SPDX-License-Identifier: Apache-2.0
#include "plugin/v2_handles.h"

#if KILN_WITH_CUDA
#include "backends/cuda/library_loader.h"

#include <cublas_v2.h>
#include <cudnn.h>
#endif

#include <string>

namespace kiln
{

struct V2Handles::State
{
    bool cudnnAllowed{};
    bool cublasAllowed{};
    bool made{};
    Pair handles;
    cudaStream_t stream{};
};

namespace
{

bool allows(nvinfer1::TacticSources sources, nvinfer1::TacticSource source) noexcept
{
    return (sources & (1U << static_cast<uint32_t>(source))) != 0;
}

} // namespace

V2Handles::V2Handles(nvinfer1::TacticSources sources, bool onDevice) noexcept
    : mState(new (std::nothrow) State)
{
    if (mState != nullptr && onDevice)
    {
        mState->cudnnAllowed = allows(sources, nvinfer1::TacticSource::kCUDNN);
        mState->cublasAllowed = allows(sources, nvinfer1::TacticSource::kCUBLAS);
    }
}

V2Handles::~V2Handles()
{
#if KILN_WITH_CUDA
    if (mState != nullptr && mState->handles.cudnn != nullptr)
    {
        static_cast<void>(cudnnDestroy(mState->handles.cudnn));
    }
    if (mState != nullptr && mState->handles.cublas != nullptr)
    {
        static_cast<void>(cublasDestroy(mState->handles.cublas));
    }
#endif
}

Expected<V2Handles::Pair> V2Handles::get()
{
    if (mState == nullptr)
    {
        return Error{nvinfer1::ErrorCode::kFAILED_ALLOCATION, "out of memory for the V2 plugins' library handles"};
    }
    if (mState->made)
    {
        return mState->handles;
    }
#if KILN_WITH_CUDA
    if (mState->cudnnAllowed)
    {
        if (auto missing = cuda::loadLibrary(cuda::GpuLibrary::kCUDNN))
        {
            return Error{missing->code, "the V2 plugins' cuDNN handle (TacticSource::kCUDNN): " + missing->message};
        }
        if (cudnnStatus_t const status = cudnnCreate(&mState->handles.cudnn); status != CUDNN_STATUS_SUCCESS)
        {
            mState->handles.cudnn = nullptr;
            return Error{nvinfer1::ErrorCode::kFAILED_INITIALIZATION,
                std::string("cudnnCreate for the V2 plugins' cuDNN handle (TacticSource::kCUDNN) failed: ")
                    + cudnnGetErrorString(status)};
        }
    }
    if (mState->cublasAllowed)
    {
        if (auto missing = cuda::loadLibrary(cuda::GpuLibrary::kCUBLAS))
        {
            return Error{missing->code, "the V2 plugins' cuBLAS handle (TacticSource::kCUBLAS): " + missing->message};
        }
        if (cublasStatus_t const status = cublasCreate(&mState->handles.cublas); status != CUBLAS_STATUS_SUCCESS)
        {
            mState->handles.cublas = nullptr;
            return Error{nvinfer1::ErrorCode::kFAILED_INITIALIZATION,
                std::string("cublasCreate for the V2 plugins' cuBLAS handle (TacticSource::kCUBLAS) failed: ")
                    + cublasGetStatusName(status)};
        }
    }
#endif
    mState->made = true;
    return mState->handles;
}

void V2Handles::setStream([[maybe_unused]] cudaStream_t stream) noexcept
{
#if KILN_WITH_CUDA
    if (mState == nullptr || !mState->made || stream == mState->stream)
    {
        return;
    }
    if (mState->handles.cudnn != nullptr)
    {
        static_cast<void>(cudnnSetStream(mState->handles.cudnn, stream));
    }
    if (mState->handles.cublas != nullptr)
    {
        static_cast<void>(cublasSetStream(mState->handles.cublas, stream));
    }
    mState->stream = stream;
#endif
}

} // namespace kiln
