// SPDX-License-Identifier: Apache-2.0
// What kiln's create*_INTERNAL entry points share: NvInfer.h's inline createInferBuilder and createInferRuntime pass
// the application's logger and the NV_TENSORRT_VERSION it was compiled against. A null logger or another TensorRT
// major version is refused with a message; otherwise the logger becomes kiln's current logger and the object is made.
//
//     extern "C" TENSORRTAPI void* createInferRuntime_INTERNAL(void* logger, int32_t version) noexcept
//     {
//         return kiln::createFromEntryPoint<nvinfer1::IRuntime, kiln::Runtime>("createInferRuntime", logger, version);
//     }
#pragma once

#include "core/logging.h"

#include "NvInferRuntime.h"

#include <cstdint>

namespace kiln
{

//! logger as the logger of entry point function ("createInferRuntime"), now kiln's current logger; or nullptr, with
//! the reason logged, when logger is null or version is not of TensorRT's major version.
nvinfer1::ILogger* acceptEntryPoint(char const* function, void* logger, int32_t version) noexcept;

//! Logs that entry point function ran out of memory.
void logOutOfMemory(char const* function) noexcept;

//! What entry point function returns: a new Object(logger) as an Interface*, or nullptr when acceptEntryPoint refuses
//! the call or memory runs out.
template <typename Interface, typename Object>
void* createFromEntryPoint(char const* function, void* logger, int32_t version) noexcept
{
    nvinfer1::ILogger* const accepted = acceptEntryPoint(function, logger, version);
    if (accepted == nullptr)
    {
        return nullptr;
    }
    try
    {
        return static_cast<Interface*>(new Object(*accepted));
    }
    catch (...)
    {
        logOutOfMemory(function);
        return nullptr;
    }
}

} // namespace kiln
