// SPDX-License-Identifier: Apache-2.0
// What the build protocols of both plugin families (plugin_build.cpp for V3, plugin_build_v2.cpp for V2) share: the
// plugin's data inputs and outputs as the build sees them, the depth-first format search, descriptors, the cost of
// the reformat layers a combination needs, and zeroed buffers for timing runs.
//
//     std::vector<PluginIo> io = describePluginIo(layer, nbDataInputs, in);
//     FormatSearch found = searchCombinations(io, in, limit, [&](std::size_t pos, Combination const& formats) {
//         return plugin.supportsFormatCombination(...);   // formats[0..pos] hold the combination so far
//     });
#pragma once

#include "builder/build_passes.h"
#include "runtime/executor.h"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace kiln
{

//! One data input or output of a plugin layer, as every step of its build sees it.
struct PluginIo
{
    Tensor const* tensor{};
    DataType type{};
    float scale{1.0F};
    Dims declared{};                          //!< Constant extents, -1 where the extent is dynamic.
    std::vector<ConcreteShape const*> shapes; //!< Per profile; null where the shape depends on run-time values.
    bool sizeDependent{};                     //!< An output whose shape waits for a size tensor.
};

//! One format per I/O position (data inputs, then outputs).
using Combination = std::vector<nvinfer1::TensorFormat>;

//! The first nbDataInputs inputs of layer, then its outputs.
std::vector<PluginIo> describePluginIo(Layer const& layer, std::size_t nbDataInputs, PluginBuildInputs const& in);

//! The result of searchCombinations.
struct FormatSearch
{
    std::vector<Combination> found;
    std::size_t deepest{}; //!< The deepest position asked about (where the search died when nothing was found).
};

//! Depth-first over the formats in.formatsFor offers each position: accepts(pos, formats) is asked with formats[0..pos]
//! set (later positions hold kLINEAR) and only after every earlier position was accepted; complete combinations are
//! collected up to limit.
FormatSearch searchCombinations(std::vector<PluginIo> const& io, PluginBuildInputs const& in, int32_t limit,
    std::function<bool(std::size_t, Combination const&)> const& accepts);

//! The error for a search over io's types that found nothing, naming the position where it died; typesFrom names the
//! call that gave the output types ("getOutputDataTypes()"); reducible: whether the plugin family may take
//! in.reducedType for kFLOAT inputs (V3), which the message then says was tried too, or how to allow.
Error noCombination(std::string const& who, std::vector<PluginIo> const& io, std::size_t nbInputs, std::size_t deepest,
    PluginBuildInputs const& in, char const* typesFrom, bool reducible);

//! Descriptors with the declared dims (wildcards) and the profile's kMIN/kOPT/kMAX.
std::vector<nvinfer1::DynamicPluginTensorDesc> dynamicDescs(
    std::vector<PluginIo> const& io, Combination const& combination, std::size_t profile);

//! "(kFLOAT kLINEAR, kHALF kCHW2)".
std::string combinationText(std::vector<PluginIo> const& io, Combination const& combination);

//! Milliseconds of the reformat layers the builder inserts for combination at profile's kOPT shapes: linear to the
//! format before an input, the format to linear after an output. The error opens with who.
Expected<float> reformatCost(std::string const& who, std::vector<PluginIo> const& io, std::size_t nbInputs,
    Combination const& combination, std::size_t profile, PluginBuildInputs const& in);

//! Zeroed memory of the build's backend (host, or device with PluginBuildInputs::device) and descriptors for one
//! timing run.
struct TimingRun
{
    std::vector<nvinfer1::PluginTensorDesc> descs; //!< Data inputs, then outputs.
    std::vector<MemoryBlock> storage;
    std::vector<void const*> inputs;
    std::vector<void*> outputs;
    MemoryBlock workspace;
    int64_t workspaceBytes{};
    void* workspacePointer() noexcept { return workspaceBytes == 0 ? nullptr : workspace.data(); }
};

//! Buffers at profile's kOPT shapes (a size-dependent output gets its upper bound's buffer and -1 for the extents
//! its size tensors decide) and a workspace of workspaceBytes. The error opens with who.
Expected<TimingRun> timingRun(std::string const& who, std::vector<PluginIo> const& io, std::size_t nbInputs,
    Combination const& combination, std::size_t profile, int64_t workspaceBytes, PluginBuildInputs const& in);

//! How long one call of once takes, averaged over iterations calls: host time on the host backend, CUDA events
//! around the calls on in.stream on the CUDA backend. status is the first non-zero status once returned (the
//! timing then stops); the error is a failure of the stream.
Expected<float> timeCalls(
    PluginBuildInputs const& in, int32_t iterations, std::function<int32_t()> const& once, int32_t& status);

} // namespace kiln
