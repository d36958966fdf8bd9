// SPDX-License-Identifier: Apache-2.0
// Programmatic dependent launch (Hopper and later): a kernel launched with launchOverlapped may be scheduled while
// the kernel before it on the stream is still finishing, so its launch and block start-up overlap the other's tail
// instead of following its completion. Such a kernel must begin with awaitPrerequisites(), which waits until the
// kernel before it has completed and its writes are visible; nothing before that call may touch global memory. Where
// it can, it then calls allowDependents() so that the kernel after it may launch early in turn.
//
//     __global__ void scale(float const* in, float* out, int64_t n)
//     {
//         awaitPrerequisites();
//         allowDependents();
//         ...
//     }
//     cudaError_t const status = launchOverlapped<scale>(grid, block, 0, stream, in, out, n);
//
// The overlap is asked for only on devices of compute capability 9.0 or later and only for kernels compiled for them
// (a kernel built from older PTX lacks the wait: it launches normally). On other devices, or with the environment
// variable KILN_PROGRAMMATIC_LAUNCH=0 (a measuring aid), the launch is an ordinary stream-ordered one, and the two
// calls do nothing. A kernel that begins with awaitPrerequisites() may also be launched with <<<>>>.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace kiln::cuda
{

//! Waits until the kernel this one overlaps has completed and flushed its writes (no-op when not overlapped).
__device__ __forceinline__ void awaitPrerequisites()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

//! Lets the next kernel on the stream, when it was launched overlapped, start launching now.
__device__ __forceinline__ void allowDependents()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}

//! Whether KILN_PROGRAMMATIC_LAUNCH leaves programmatic dependent launch on (anything but "0"), read once.
inline bool programmaticLaunchAllowed()
{
    static bool const allowed = [] {
        char const* setting = std::getenv("KILN_PROGRAMMATIC_LAUNCH");
        return setting == nullptr || std::strcmp(setting, "0") != 0;
    }();
    return allowed;
}

//! Launches kKernel (which begins with awaitPrerequisites()) overlapped with the kernel before it on stream where the
//! current device and kKernel's binary support it, else as an ordinary launch. Devices 0 to 63 are checked once per
//! kernel; others are checked on every launch.
template <auto kKernel, typename... Args>
cudaError_t launchOverlapped(dim3 grid, dim3 block, size_t sharedBytes, cudaStream_t stream, Args... args)
{
    static std::atomic<uint64_t> checked{0}; // One pair per kernel: kKernel is a template argument.
    static std::atomic<uint64_t> capable{0};
    bool overlap = false;
    if (programmaticLaunchAllowed())
    {
        int32_t device = 0;
        if (cudaError_t const status = cudaGetDevice(&device); status != cudaSuccess)
        {
            return status;
        }
        uint64_t const bit = device >= 0 && device < 64 ? uint64_t{1} << device : 0;
        if (bit != 0 && (checked.load() & bit) != 0)
        {
            overlap = (capable.load() & bit) != 0;
        }
        else
        {
            int32_t major = 0;
            cudaFuncAttributes attributes{};
            overlap = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess
                && major >= 9 && cudaFuncGetAttributes(&attributes, kKernel) == cudaSuccess
                && attributes.ptxVersion >= 90;
            capable.fetch_or(overlap ? bit : 0);
            checked.fetch_or(bit);
        }
    }
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = sharedBytes;
    config.stream = stream;
    config.attrs = &attribute;
    config.numAttrs = overlap ? 1 : 0;
    return cudaLaunchKernelEx(&config, kKernel, args...);
}

} // namespace kiln::cuda
