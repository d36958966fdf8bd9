// SPDX-License-Identifier: Apache-2.0
// Loads kiln's standard plugin library (libnvinfer_plugin.so.10, beside libkiln) and registers its creators under
// namespace "", for ONNX tests whose nodes name a standard plugin by op type: the parser loads the library itself
// only for the ops it imports as standard plugins (RoiAlign, DeformConv, InstanceNormalization without
// kNATIVE_INSTANCENORM), as an application calls initLibNvInferPlugins() before parsing.
//
//     ASSERT_TRUE(loadStandardPluginLibrary());
#pragma once

#include "NvInferRuntime.h"

#include <dlfcn.h>

#include <string>

namespace kiln::onnx_test
{

//! Loads the library once per process (it stays loaded) and calls its initLibNvInferPlugins(nullptr, ""); false when
//! it cannot be found or has no such function.
inline bool loadStandardPluginLibrary()
{
    static bool const loaded = [] {
        Dl_info info{};
        if (dladdr(reinterpret_cast<void const*>(&getPluginRegistry), &info) == 0 || info.dli_fname == nullptr)
        {
            return false;
        }
        std::string path = info.dli_fname;
        path = path.substr(0, path.find_last_of('/') + 1) + "libnvinfer_plugin.so.10";
        void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
        if (handle == nullptr)
        {
            return false;
        }
        using Init = bool (*)(void*, char const*);
        auto init = reinterpret_cast<Init>(dlsym(handle, "initLibNvInferPlugins"));
        return init != nullptr && init(nullptr, "");
    }();
    return loaded;
}

} // namespace kiln::onnx_test
