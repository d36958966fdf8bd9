// SPDX-License-Identifier: Apache-2.0
// What the ONNX tests of the BERT family of standard plugins share. Their nodes are plugin nodes (the op type is the
// plugin's name, plugin_version its V3 version, the fields attributes; weights as TENSOR attributes), which the parser
// imports from the registry. These creators are registered when kiln's standard plugin library loads, as TensorRT's
// libnvinfer_plugin registers them: loadStandardPluginLibrary() loads it from beside libkiln, as the parser itself
// does, and calls nothing in it. Run by ctest, each test is a process of its own, so the creators it finds are those
// the load registered.
#pragma once

#include "checks.h"
#include "model_builder.h"

#include "NvInferRuntime.h"

#include <dlfcn.h>

#include <cstring>
#include <string>
#include <vector>

namespace kiln::onnx_test
{

//! Loads libnvinfer_plugin.so.10 from libkiln's folder; an empty string, or why it failed.
inline std::string loadStandardPluginLibrary()
{
    Dl_info info{};
    if (dladdr(reinterpret_cast<void const*>(&getPluginRegistry), &info) == 0 || info.dli_fname == nullptr)
    {
        return "dladdr found no library for getPluginRegistry";
    }
    std::string path = info.dli_fname;
    path = path.substr(0, path.find_last_of('/') + 1) + "libnvinfer_plugin.so.10";
    if (dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr)
    {
        char const* why = dlerror();
        return path + ": " + (why != nullptr ? why : "dlopen failed");
    }
    return {};
}

//! Floats that carry the bit patterns of ints (Harness binds every input and output as a float buffer).
inline std::vector<float> intBits(std::vector<int32_t> const& values)
{
    std::vector<float> out(values.size());
    std::memcpy(out.data(), values.data(), values.size() * sizeof(int32_t));
    return out;
}

inline std::vector<int32_t> intsOf(std::vector<float> const& bits)
{
    std::vector<int32_t> out(bits.size());
    std::memcpy(out.data(), bits.data(), bits.size() * sizeof(int32_t));
    return out;
}

//! Layer norm of each row of ld values (biased variance plus 1e-5), in double, then gamma and beta.
inline std::vector<float> layerNormRows(
    std::vector<double> const& x, size_t ld, std::vector<float> const& gamma, std::vector<float> const& beta)
{
    std::vector<float> out(x.size());
    for (size_t r = 0; r < x.size() / ld; ++r)
    {
        double mean = 0.0;
        for (size_t i = 0; i < ld; ++i)
        {
            mean += x[r * ld + i] / static_cast<double>(ld);
        }
        double variance = 0.0;
        for (size_t i = 0; i < ld; ++i)
        {
            variance += (x[r * ld + i] - mean) * (x[r * ld + i] - mean) / static_cast<double>(ld);
        }
        for (size_t i = 0; i < ld; ++i)
        {
            out[r * ld + i]
                = static_cast<float>(gamma[i] * (x[r * ld + i] - mean) / std::sqrt(variance + 1e-5) + beta[i]);
        }
    }
    return out;
}

} // namespace kiln::onnx_test
