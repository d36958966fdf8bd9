// SPDX-License-Identifier: Apache-2.0
// What the plugin examples share: a logger, plan files, shapes as text, plugin-field lookup, plugin error messages,
// and the one-line report each check prints. Header-only, on the public TensorRT API.
//
//     example::Logger logger("pad_plugin");
//     std::unique_ptr<nvinfer1::IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
//     example::writeFile(path, plan->data(), plan->size());
//     std::vector<char> const bytes = example::readFile(path);
//     ok = example::report("pad_plugin", "[1,3,17,20] -> [1,3,32,32]", maxDiff, 0.0) && ok;
#pragma once

#include "NvInferRuntime.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

namespace example
{

//! Prints kiln's warnings and errors to stderr, prefixed with the example's name.
class Logger final : public nvinfer1::ILogger
{
public:
    explicit Logger(char const* example)
        : mExample(example)
    {
    }

    void log(Severity severity, char const* msg) noexcept override
    {
        if (severity <= Severity::kWARNING)
        {
            std::cerr << mExample << ": kiln: " << msg << "\n";
        }
    }

private:
    char const* mExample;
};

//! Writes size bytes to path; false on failure.
inline bool writeFile(std::string const& path, void const* data, std::size_t size)
{
    std::ofstream file(path, std::ios::binary);
    file.write(static_cast<char const*>(data), static_cast<std::streamsize>(size));
    return static_cast<bool>(file);
}

//! path with tag inserted before its extension: ("dir/pool.plan", "kINT8") -> "dir/pool.kINT8.plan".
inline std::string taggedPath(std::string const& path, std::string const& tag)
{
    std::size_t const slash = path.find_last_of('/');
    std::size_t const dot = path.find_last_of('.');
    bool const hasExtension = dot != std::string::npos && (slash == std::string::npos || dot > slash);
    return hasExtension ? path.substr(0, dot) + "." + tag + path.substr(dot) : path + "." + tag;
}

//! The bytes of path; empty when it cannot be read.
inline std::vector<char> readFile(std::string const& path)
{
    std::ifstream file(path, std::ios::binary);
    return std::vector<char>{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

//! The number of elements of a tensor of shape dims (1 for a 0-D tensor).
inline int64_t volume(nvinfer1::Dims const& dims)
{
    int64_t count = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        count *= dims.d[i];
    }
    return count;
}

//! dims as "[1,3,17,20]".
inline std::string toString(nvinfer1::Dims const& dims)
{
    std::string text = "[";
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        text += (i == 0 ? "" : ",") + std::to_string(dims.d[i]);
    }
    return text + "]";
}

//! The field called name in fc when it has the given type and length (any length when length is -1); else nullptr.
inline nvinfer1::PluginField const* findField(
    nvinfer1::PluginFieldCollection const* fc, char const* name, nvinfer1::PluginFieldType type, int32_t length = -1)
{
    for (int32_t i = 0; fc != nullptr && i < fc->nbFields; ++i)
    {
        nvinfer1::PluginField const& field = fc->fields[i];
        if (field.name != nullptr && std::strcmp(field.name, name) == 0)
        {
            bool const fits = field.type == type && field.data != nullptr && (length < 0 || field.length == length);
            return fits ? &field : nullptr;
        }
    }
    return nullptr;
}

//! The V3 creator registered under (name, version, namespace), or nullptr when there is none or it is not a V3 one.
inline nvinfer1::IPluginCreatorV3One* findV3Creator(char const* name, char const* version, char const* pluginNamespace)
{
    nvinfer1::IPluginCreatorInterface* creator = getPluginRegistry()->getCreator(name, version, pluginNamespace);
    if (creator == nullptr || std::strcmp(creator->getInterfaceInfo().kind, "PLUGIN CREATOR_V3ONE") != 0)
    {
        return nullptr;
    }
    return static_cast<nvinfer1::IPluginCreatorV3One*>(creator);
}

//! Reports a plugin's error through the library's logger, naming the plugin.
inline void logError(char const* plugin, std::string const& message)
{
    std::string const text = std::string(plugin) + ": " + message;
    getLogger()->log(nvinfer1::ILogger::Severity::kERROR, text.c_str());
}

//! What enqueue() returns in a build without the CUDA toolkit: an error status, after saying why.
inline int32_t noCudaKernel(char const* plugin)
{
    logError(plugin,
        "this build has no CUDA kernel (the CUDA toolkit was not found); on kiln's host backend enqueueHost() runs "
        "the layer");
    return -1;
}

//! |actual - expected|, infinite when either is NaN (an output never written stays NaN).
inline double difference(float actual, float expected)
{
    double const d = std::fabs(static_cast<double>(actual) - static_cast<double>(expected));
    return std::isnan(d) ? INFINITY : d;
}

//! Prints "<example>: <what> max |diff| <d> OK" (or FAILED when d exceeds tolerance) and returns whether it passed.
inline bool report(char const* example, std::string const& what, double maxDiff, double tolerance)
{
    bool const ok = maxDiff <= tolerance;
    std::printf("%s: %s max |diff| %g %s\n", example, what.c_str(), maxDiff, ok ? "OK" : "FAILED");
    std::fflush(stdout); // Keep the order with kiln's messages on stderr.
    return ok;
}

//! Prints "<example>: <what> OK" or FAILED and returns ok.
inline bool report(char const* example, std::string const& what, bool ok)
{
    std::printf("%s: %s %s\n", example, what.c_str(), ok ? "OK" : "FAILED");
    std::fflush(stdout);
    return ok;
}

} // namespace example
