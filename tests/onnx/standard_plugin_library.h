// SPDX-License-Identifier: Apache-2.0
// What a TensorRT application does before parsing a model whose nodes name TensorRT's standard plugins by op type
// (EfficientNMS_TRT, BatchedNMSDynamic_TRT, ...): load libnvinfer_plugin and call initLibNvInferPlugins, as
// onnx-tensorrt's backend and trtexec do. The parser itself loads the library only for the ops it imports as standard
// plugins (RoiAlign, DeformConv). This test program does not link the library: it opens the one beside libnvinfer.
//
//     ASSERT_EQ(initStandardPluginLibrary(), "");   // or ASSERT_TRUE(loadStandardPluginLibrary());
#pragma once

#include "NvInferRuntime.h"

#include <dlfcn.h>

#include <string>

namespace kiln::onnx_test
{

//! Where the plugins log: a logger that lives as long as the process, as the library keeps the one it is given. (The
//! parser's own load of the library hands it the logger current then, often a test's that is gone by the time a
//! later plugin logs; giving this one replaces it.)
class PluginLibraryLogger final : public nvinfer1::ILogger
{
public:
    void log(Severity /*severity*/, char const* /*msg*/) noexcept override {}
};

//! Loads kiln's libnvinfer_plugin.so.10 (beside libnvinfer, else from the library path) and calls its
//! initLibNvInferPlugins with a logger that is never destroyed; returns why that failed, or "" when it worked.
inline std::string initStandardPluginLibrary()
{
    static auto* logger = new PluginLibraryLogger();
    std::string path = "libnvinfer_plugin.so.10";
    Dl_info info{};
    if (dladdr(reinterpret_cast<void const*>(&getPluginRegistry), &info) != 0 && info.dli_fname != nullptr)
    {
        std::string const self = info.dli_fname;
        std::size_t const slash = self.find_last_of('/');
        if (slash != std::string::npos)
        {
            path = self.substr(0, slash + 1) + path;
        }
    }
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (handle == nullptr)
    {
        char const* error = dlerror();
        return error != nullptr ? error : path + " did not load";
    }
    using Init = bool (*)(void*, char const*);
    auto const init = reinterpret_cast<Init>(dlsym(handle, "initLibNvInferPlugins"));
    if (init == nullptr || !init(logger, ""))
    {
        return path + ": initLibNvInferPlugins is missing or failed";
    }
    return "";
}

//! initStandardPluginLibrary() as a yes or no.
inline bool loadStandardPluginLibrary()
{
    return initStandardPluginLibrary().empty();
}

} // namespace kiln::onnx_test
