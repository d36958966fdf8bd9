// SPDX-License-Identifier: Apache-2.0
// PTX for the GPU tests' AOT kernels, compiled with NVRTC for the first device.
#pragma once

#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include <gtest/gtest.h>

#include <string>

namespace kiln::test
{

//! PTX of source (CUDA C++, named fileName in messages) for device 0, or an empty string (with a gtest failure
//! recorded).
inline std::string compilePtx(char const* source, char const* fileName)
{
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess)
    {
        ADD_FAILURE() << "cudaGetDeviceProperties failed";
        return {};
    }
    nvrtcProgram program{};
    if (nvrtcCreateProgram(&program, source, fileName, 0, nullptr, nullptr) != NVRTC_SUCCESS)
    {
        ADD_FAILURE() << "nvrtcCreateProgram failed";
        return {};
    }
    std::string const arch = "--gpu-architecture=compute_" + std::to_string(prop.major) + std::to_string(prop.minor);
    char const* options[] = {arch.c_str()};
    nvrtcResult const compiled = nvrtcCompileProgram(program, 1, options);
    std::size_t logSize = 0;
    nvrtcGetProgramLogSize(program, &logSize);
    std::string log(logSize, '\0');
    nvrtcGetProgramLog(program, log.data());
    std::string ptx;
    if (compiled == NVRTC_SUCCESS)
    {
        std::size_t size = 0;
        nvrtcGetPTXSize(program, &size);
        ptx.resize(size);
        nvrtcGetPTX(program, ptx.data());
    }
    else
    {
        ADD_FAILURE() << "NVRTC: " << nvrtcGetErrorString(compiled) << "\n" << log;
    }
    nvrtcDestroyProgram(&program);
    return ptx;
}

} // namespace kiln::test
