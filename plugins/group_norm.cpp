// SPDX-License-Identifier: Apache-2.0
#include "group_norm.h"

#include "common.h"
#include "instance_norm.h"

#include <cstring>

namespace kiln::plugins
{

KILN_IGNORE_DEPRECATED_BEGIN

namespace
{

using nvinfer1::DataType;
using nvinfer1::PluginField;
using nvinfer1::PluginFieldType;

//! Why eps or num_groups is refused; empty when both are good.
std::string fieldProblem(float epsilon, int32_t groups)
{
    if (!(epsilon > 0.0F))
    {
        return "eps is " + std::to_string(epsilon) + "; it must be positive";
    }
    if (groups <= 0)
    {
        return "num_groups is " + std::to_string(groups) + "; it must be positive";
    }
    return {};
}

class GroupNormPlugin final : public OneOutputPluginV2
{
public:
    GroupNormPlugin(float epsilon, int32_t groups)
        : mEpsilon(epsilon)
        , mGroups(groups)
    {
    }

    char const* getPluginType() const noexcept override { return kGroupNormName; }
    char const* getPluginVersion() const noexcept override { return kGroupNormVersion; }

    nvinfer1::IPluginV2DynamicExt* clone() const noexcept override
    {
        try
        {
            auto* plugin = new GroupNormPlugin(mEpsilon, mGroups);
            plugin->mNamespace = mNamespace;
            return plugin;
        }
        catch (...)
        {
            return nullptr;
        }
    }

    nvinfer1::DimsExprs getOutputDimensions(int32_t outputIndex, nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::IExprBuilder& /*exprBuilder*/) noexcept override
    {
        nvinfer1::DimsExprs refused{};
        refused.nbDims = -1;
        if (outputIndex != 0 || nbInputs != 3 || inputs[0].nbDims < 2 || inputs[1].nbDims != 1 || inputs[2].nbDims != 1)
        {
            logError(kGroupNormName,
                "takes X [N, C, ...], scale [C] and bias [C] (3 inputs) and has one output; it got "
                    + std::to_string(nbInputs) + " inputs");
            return refused;
        }
        if (inputs[0].d[1]->isConstant())
        {
            int64_t const channels = inputs[0].d[1]->getConstantValue();
            for (int32_t i = 1; i < 3; ++i)
            {
                if (inputs[i].d[0]->isConstant() && inputs[i].d[0]->getConstantValue() != channels)
                {
                    logError(kGroupNormName,
                        std::string(i == 1 ? "scale" : "bias") + " has "
                            + std::to_string(inputs[i].d[0]->getConstantValue()) + " values; X has "
                            + std::to_string(channels) + " channels");
                    return refused;
                }
            }
            if (channels % mGroups != 0)
            {
                logError(kGroupNormName,
                    "X has " + std::to_string(channels) + " channels; num_groups (" + std::to_string(mGroups)
                        + ") must divide them");
                return refused;
            }
        }
        return inputs[0];
    }

    bool supportsFormatCombination(int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t /*nbInputs*/,
        int32_t /*nbOutputs*/) noexcept override
    {
        return inOut[pos].format == nvinfer1::TensorFormat::kLINEAR && inOut[pos].type == DataType::kFLOAT;
    }

    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* /*workspace*/, cudaStream_t stream) noexcept override
    {
        if (!shapesAgree(inputDesc, outputDesc))
        {
            return -1;
        }
#ifdef KILN_PLUGINS_CUDA
        cudaError_t const status = launchNorm(paramsFor(inputDesc), DataType::kFLOAT, inputs[0],
            static_cast<float const*>(inputs[1]), static_cast<float const*>(inputs[2]), outputs[0], stream);
        if (status != cudaSuccess)
        {
            logError(kGroupNormName, std::string("the CUDA kernel failed to launch: ") + cudaGetErrorString(status));
            return -1;
        }
        return 0;
#else
        static_cast<void>(inputs), static_cast<void>(outputs), static_cast<void>(stream);
        logError(kGroupNormName, "this build of the standard plugin library has no CUDA kernels");
        return -1;
#endif
    }

    int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* /*workspace*/) noexcept override
    {
        if (!shapesAgree(inputDesc, outputDesc))
        {
            return -1;
        }
        runNormHost(paramsFor(inputDesc), DataType::kFLOAT, inputs[0], static_cast<float const*>(inputs[1]),
            static_cast<float const*>(inputs[2]), outputs[0]);
        return 0;
    }

    size_t getSerializationSize() const noexcept override
    {
        return kSerializedSize;
    }

    void serialize(void* buffer) const noexcept override
    {
        int32_t const unused = 0;
        auto* out = static_cast<char*>(buffer);
        std::memcpy(out, &mEpsilon, 4);
        std::memcpy(out + 4, &mGroups, 4);
        std::memcpy(out + 8, &unused, 4);
    }

    static constexpr size_t kSerializedSize = 12;

private:
    //! Whether this run's X [N, C, ...] has C divisible by num_groups, scale and bias [C], and Y X's shape; logs
    //! otherwise.
    bool shapesAgree(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc) const
    {
        nvinfer1::Dims const& x = inputDesc[0].dims;
        nvinfer1::Dims const& y = outputDesc[0].dims;
        bool agree = x.nbDims >= 2 && x.d[1] % mGroups == 0 && inputDesc[1].dims.nbDims == 1
            && inputDesc[1].dims.d[0] == x.d[1] && inputDesc[2].dims.nbDims == 1 && inputDesc[2].dims.d[0] == x.d[1]
            && y.nbDims == x.nbDims;
        for (int32_t i = 0; agree && i < x.nbDims; ++i)
        {
            agree = x.d[i] == y.d[i] && x.d[i] >= 0;
        }
        if (!agree)
        {
            logError(kGroupNormName,
                "the tensors of this run do not have the shapes its fields imply (X and Y [N, C, ...] with C divisible "
                "by num_groups "
                    + std::to_string(mGroups) + ", scale and bias [C]); nothing was computed");
        }
        return agree;
    }

    NormParams paramsFor(nvinfer1::PluginTensorDesc const* inputDesc) const noexcept
    {
        nvinfer1::Dims const& x = inputDesc[0].dims;
        NormParams params;
        params.epsilon = mEpsilon;
        params.channels = x.d[1];
        params.planeSize = 1;
        for (int32_t i = 2; i < x.nbDims; ++i)
        {
            params.planeSize *= x.d[i];
        }
        params.segments = x.d[0] * mGroups;
        params.segmentSize = x.d[1] / mGroups * params.planeSize;
        return params;
    }

    float mEpsilon;
    int32_t mGroups;
};

} // namespace

GroupNormCreator::GroupNormCreator()
    : StandardCreatorV2({PluginField{"eps", nullptr, PluginFieldType::kFLOAT32, 1},
        PluginField{"num_groups", nullptr, PluginFieldType::kINT32, 1}})
{
}

nvinfer1::IPluginV2* GroupNormCreator::createPlugin(
    char const* /*name*/, nvinfer1::PluginFieldCollection const* fc) noexcept
{
    try
    {
        FieldReader const fields(kGroupNormName, fc);
        float epsilon = 1e-5F;
        int32_t groups = 1;
        if (!fields.readFloat("eps", epsilon) || !fields.readInt("num_groups", groups))
        {
            return nullptr;
        }
        if (std::string const problem = fieldProblem(epsilon, groups); !problem.empty())
        {
            logError(kGroupNormName, problem);
            return nullptr;
        }
        auto* plugin = new GroupNormPlugin(epsilon, groups);
        plugin->setPluginNamespace(mNamespace.c_str());
        return plugin;
    }
    catch (...)
    {
        return nullptr;
    }
}

nvinfer1::IPluginV2* GroupNormCreator::deserializePlugin(
    char const* /*name*/, void const* serialData, size_t serialLength) noexcept
{
    try
    {
        if (serialData == nullptr || serialLength != GroupNormPlugin::kSerializedSize)
        {
            logError(kGroupNormName,
                "a serialized plugin is " + std::to_string(GroupNormPlugin::kSerializedSize) + " bytes; this one is "
                    + std::to_string(serialLength));
            return nullptr;
        }
        float epsilon = 0.0F;
        int32_t groups = 0;
        std::memcpy(&epsilon, serialData, 4);
        std::memcpy(&groups, static_cast<char const*>(serialData) + 4, 4);
        if (std::string const problem = fieldProblem(epsilon, groups); !problem.empty())
        {
            logError(kGroupNormName, "the serialized plugin is refused: " + problem);
            return nullptr;
        }
        auto* plugin = new GroupNormPlugin(epsilon, groups);
        plugin->setPluginNamespace(mNamespace.c_str());
        return plugin;
    }
    catch (...)
    {
        return nullptr;
    }
}

KILN_IGNORE_DEPRECATED_END

} // namespace kiln::plugins
