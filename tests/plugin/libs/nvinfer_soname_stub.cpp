// SPDX-License-Identifier: Apache-2.0
// Link-time stand-in for TensorRT's libnvinfer.so.10: it only gives the test plugin library something with that
// soname to link against. At run time the dependency resolves to kiln's libnvinfer.so.10, never to this file.
#include "NvInferRuntime.h"

extern "C" __attribute__((visibility("default"))) nvinfer1::IPluginRegistry* getPluginRegistry() noexcept
{
    return nullptr;
}
