// SPDX-License-Identifier: Apache-2.0
#include "core/entry_point.h"

#include <cstdio>

namespace kiln
{

nvinfer1::ILogger* acceptEntryPoint(char const* function, void* logger, int32_t version) noexcept
{
    // Messages are formatted into fixed buffers: nothing here may throw.
    char message[256];
    if (logger == nullptr)
    {
        std::snprintf(message, sizeof(message), "%s: the logger is null", function);
        log(Severity::kERROR, message);
        return nullptr;
    }
    auto* const userLogger = static_cast<nvinfer1::ILogger*>(logger);
    int32_t const major = version / 10000;
    if (major != NV_TENSORRT_MAJOR)
    {
        std::snprintf(message, sizeof(message),
            "%s: the application was compiled against TensorRT %d.%d.%d (NV_TENSORRT_VERSION %d); kiln implements the "
            "TensorRT %d API",
            function, static_cast<int>(major), static_cast<int>(version / 100 % 100), static_cast<int>(version % 100),
            static_cast<int>(version), NV_TENSORRT_MAJOR);
        userLogger->log(Severity::kERROR, message);
        return nullptr;
    }
    setLogger(userLogger);
    return userLogger;
}

void logOutOfMemory(char const* function) noexcept
{
    char message[128];
    std::snprintf(message, sizeof(message), "%s: out of memory", function);
    log(Severity::kERROR, message);
}

} // namespace kiln
