// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/kernels.h"

#include <string>

namespace kiln::cuda
{

Error cudaFailure(cudaError_t status, char const* what)
{
    return Error{status == cudaErrorMemoryAllocation ? nvinfer1::ErrorCode::kFAILED_ALLOCATION
                                                     : nvinfer1::ErrorCode::kFAILED_EXECUTION,
        std::string(what) + " failed: " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")"};
}

} // namespace kiln::cuda
