// SPDX-License-Identifier: Apache-2.0
// What the BERT family of standard plugins (CustomSkipLayerNormPluginDynamic, CustomEmbLayerNormPluginDynamic,
// CustomQKVToContextPluginDynamic, DisentangledAttention_TRT) shares: reading TensorRT's "Weights" fields (kFLOAT32 or
// kFLOAT16 values of any count), storing a float into a host element, the epsilon of their layer norms, and a copy of
// a plugin's weights in device memory made on its first CUDA run.
//
//     std::vector<float> gamma;
//     bool present = false;
//     if (!readWeightsField(kName, fc, "gamma", gamma, present)) { return nullptr; }   // wrong type: logged, refused
//     float const* onDevice = mGammaDevice.upload(mGamma, stream, status);              // enqueue(), CUDA only
#pragma once

#include "common.h"

#include <cstdint>
#include <string>
#include <vector>

#ifndef __CUDACC__
#include "core/float_convert.h"
#endif

#ifdef KILN_PLUGINS_CUDA
#include <cuda_runtime_api.h>
#endif

namespace kiln::plugins
{

//! The epsilon the BERT layer norms add to the variance (TensorRT's skip layer norm kernels add 1e-5).
inline constexpr float kBertLayerNormEpsilon = 1e-5F;

//! Reads the field called name as weights: kFLOAT32 or kFLOAT16 values (one or more), converted to float. Returns
//! true with present false and values untouched when the field is absent; false (logged, naming plugin) when it has
//! another type, no data or no element.
bool readWeightsField(char const* plugin, nvinfer1::PluginFieldCollection const* fc, char const* name,
    std::vector<float>& values, bool& present);

//! Rounds each value to the nearest FP16 value (kept as float), as a plugin that keeps its weights in half does.
void roundToHalf(std::vector<float>& values);

//! The DataType that TensorRT's type_id fields encode: 0 kFLOAT, 1 kHALF, 2 kINT8; -1 for anything else.
inline int32_t typeIdOf(nvinfer1::DataType type)
{
    return type == nvinfer1::DataType::kFLOAT ? 0 : type == nvinfer1::DataType::kHALF ? 1 : -1;
}

#ifndef __CUDACC__
//! Stores a float into a host element: kFLOAT as is, kHALF as its bit pattern.
struct HostStore
{
    void operator()(float* out, float v) const noexcept { *out = v; }
    void operator()(uint16_t* out, float v) const noexcept { *out = floatToHalf(v); }
};
#endif

#ifdef KILN_PLUGINS_CUDA
//! A device copy of host floats, made on the first upload() and freed with the object. Copies of the object start
//! without one (each plugin object uploads its own).
class DeviceFloats
{
public:
    DeviceFloats() = default;
    DeviceFloats(DeviceFloats const& /*other*/) noexcept {}
    DeviceFloats& operator=(DeviceFloats const&) = delete;
    ~DeviceFloats();

    //! The device copy of host (copied on stream the first time); nullptr with status set when that failed. An empty
    //! host vector gives nullptr and cudaSuccess.
    float const* upload(std::vector<float> const& host, cudaStream_t stream, cudaError_t& status) noexcept;

private:
    float* mDevice{};
};
#endif

} // namespace kiln::plugins

namespace kiln::plugins
{

//! How the BERT plugins name themselves in errors: `<name> version "<version>" namespace "<namespace>"`.
std::string pluginLabel(char const* name, char const* version, std::string const& pluginNamespace);

//! Whether dims is [S, B, E, 1, 1] for the given E (any S and B, none negative).
bool isSequenceFirst5d(nvinfer1::Dims const& dims, int64_t hidden);

//! The elements of dims (0 when an extent is negative).
int64_t volumeOf(nvinfer1::Dims const& dims);

} // namespace kiln::plugins
