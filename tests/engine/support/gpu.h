// SPDX-License-Identifier: Apache-2.0
// Whether the GPU tests here can run: a CUDA device the runtime can use (tests skip cleanly otherwise).
#pragma once

#include <cuda_runtime_api.h>

namespace kiln::test
{

inline bool gpuUsable()
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess)
    {
        static_cast<void>(cudaGetLastError());
        return false;
    }
    return count > 0;
}

} // namespace kiln::test
