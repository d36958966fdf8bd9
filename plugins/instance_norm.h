// SPDX-License-Identifier: Apache-2.0
// InstanceNormalization_TRT version "3" (an IPluginV3, as TensorRT's InstanceNormalizationV3PluginCreator): ONNX
// InstanceNormalization with the per-channel scale and bias held as fields, and an optional leaky ReLU after it.
// Input X [N, C, D1, ...] of rank 3 to 5 (kFLOAT or kHALF); output of X's shape and type. Fields (TensorRT's names
// and types): epsilon (kFLOAT32; default 0, TensorRT's), scales and bias (kFLOAT32, C values each; required), relu
// (kINT32; default 0, above 0 applies the leaky ReLU) and alpha (kFLOAT32; default 0, its slope below 0). The
// arithmetic: instance_norm_math.h. Chosen by kiln: a negative or NaN epsilon, and scales and bias of different or zero
// lengths, are refused when the plugin is created; an X whose C differs from the fields' length, when it is built.
// Versions "1" and "2", TensorRT's legacy IPluginV2DynamicExt (which also has vectorized 5-D formats kiln lacks), are
// the same op (instance_norm_legacy.cpp).
#pragma once

#include "common.h"
#include "common_v2.h"
#include "instance_norm_math.h"

#include <string>
#include <vector>

namespace kiln::plugins
{

inline constexpr char const* kInstanceNormName = "InstanceNormalization_TRT";
inline constexpr char const* kInstanceNormVersion = "3";

//! Normalizes X into Y on host memory (instance_norm_math.h; InstanceNormalization_TRT and GroupNormalizationPlugin);
//! type is X's (kFLOAT, or kHALF as IEEE half bit patterns); scale and bias hold C floats.
void runNormHost(
    NormParams const& params, nvinfer1::DataType type, void const* x, float const* scale, float const* bias, void* y);

#ifdef KILN_PLUGINS_CUDA
//! Queues the same computation on stream (x, y, scale and bias in device memory); returns the launch's status.
cudaError_t launchNorm(NormParams const& params, nvinfer1::DataType type, void const* x, float const* scale,
    float const* bias, void* y, cudaStream_t stream);
#endif

//! The fields of one InstanceNormalization_TRT plugin: epsilon, relu and alpha in params; scales and bias.
struct InstanceNormFields
{
    NormParams params;
    std::vector<float> scales;
    std::vector<float> bias;
};

// What versions "3", "2" and "1" (instance_norm_legacy.cpp) share. Each logs what it refuses.
//! The fields every version's creator declares (TensorRT's names and types).
std::vector<nvinfer1::PluginField> instanceNormDeclaredFields();
//! Reads and checks the fields (absent ones keep their values in fields).
bool readInstanceNormFields(nvinfer1::PluginFieldCollection const* fc, InstanceNormFields& fields);
//! Why fields are refused; empty when they are good.
std::string instanceNormFieldProblem(InstanceNormFields const& fields);
//! Why the inputs' shapes at build time do not fit the fields' channels; empty if they do.
std::string instanceNormBuildProblem(nvinfer1::DimsExprs const* inputs, int32_t nbInputs, int64_t channels);
//! Whether tensor pos (X, then Y) may have its type and format, given X's.
bool instanceNormSupports(int32_t pos, nvinfer1::PluginTensorDesc const* inOut);
//! Whether a run's X and Y fit the fields' channels.
bool instanceNormRunAgrees(
    int64_t channels, nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc);
//! The parameters of a run (whose shapes agree) from the fields' params.
NormParams instanceNormRunParams(NormParams params, nvinfer1::PluginTensorDesc const* inputDesc);
//! The CUDA enqueue's workspace: the scales and the bias.
inline size_t instanceNormWorkspaceSize(InstanceNormFields const& fields)
{
    return 2 * fields.scales.size() * sizeof(float);
}
//! The checked run on the CUDA backend (workspace of instanceNormWorkspaceSize()) and on the host backend.
int32_t instanceNormEnqueue(InstanceNormFields const& fields, nvinfer1::PluginTensorDesc const* inputDesc,
    nvinfer1::PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs, void* workspace,
    cudaStream_t stream);
int32_t instanceNormEnqueueHost(InstanceNormFields const& fields, nvinfer1::PluginTensorDesc const* inputDesc,
    nvinfer1::PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs);

//! The creator of InstanceNormalization_TRT version "3".
class InstanceNormCreator final : public StandardCreator
{
public:
    InstanceNormCreator();

    nvinfer1::IPluginV3* createPlugin(
        char const* name, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase phase) noexcept override;
    char const* getPluginName() const noexcept override { return kInstanceNormName; }
    char const* getPluginVersion() const noexcept override { return kInstanceNormVersion; }
};

KILN_IGNORE_DEPRECATED_BEGIN

//! The creators of InstanceNormalization_TRT versions "1" and "2" (IPluginCreators of IPluginV2DynamicExt plugins,
//! TensorRT's legacy versions, "2" kept by TensorRT for compatibility): the same op and fields. Serialized as TensorRT
//! serializes them: epsilon (float), C (int32), the scales and the bias (each a uint64 count and its floats), relu
//! (int32), alpha (float).
class InstanceNormLegacyCreator final : public StandardCreatorV2
{
public:
    explicit InstanceNormLegacyCreator(char const* version);

    char const* getPluginName() const noexcept override { return kInstanceNormName; }
    char const* getPluginVersion() const noexcept override { return mVersion; }
    nvinfer1::IPluginV2* createPlugin(char const* name, nvinfer1::PluginFieldCollection const* fc) noexcept override;
    nvinfer1::IPluginV2* deserializePlugin(
        char const* name, void const* serialData, size_t serialLength) noexcept override;

private:
    char const* mVersion;
};

KILN_IGNORE_DEPRECATED_END

} // namespace kiln::plugins
