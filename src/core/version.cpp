// SPDX-License-Identifier: Apache-2.0
// The version entry points: kiln reports the TensorRT release whose API it implements.
#include "NvInferRuntime.h"

extern "C" TENSORRTAPI int32_t getInferLibVersion() noexcept
{
    return static_cast<int32_t>(NV_TENSORRT_VERSION);
}

extern "C" TENSORRTAPI int32_t getInferLibMajorVersion() noexcept
{
    return NV_TENSORRT_MAJOR;
}

extern "C" TENSORRTAPI int32_t getInferLibMinorVersion() noexcept
{
    return NV_TENSORRT_MINOR;
}

extern "C" TENSORRTAPI int32_t getInferLibPatchVersion() noexcept
{
    return NV_TENSORRT_PATCH;
}

extern "C" TENSORRTAPI int32_t getInferLibBuildVersion() noexcept
{
    return NV_TENSORRT_BUILD;
}
