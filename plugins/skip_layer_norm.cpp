// SPDX-License-Identifier: Apache-2.0
#include "skip_layer_norm.h"

#include "bert_common.h"
#include "elements.h"

#include <algorithm>
#include <limits>

namespace kiln::plugins
{

namespace
{

using nvinfer1::DataType;
using nvinfer1::PluginField;
using nvinfer1::PluginFieldType;

//! The fields of one plugin: the tensors' type and the per-element weights (bias empty when absent).
struct SkipLayerNormFields
{
    DataType type{DataType::kFLOAT};
    int32_t ld{};
    std::vector<float> gamma;
    std::vector<float> beta;
    std::vector<float> bias;
};

class SkipLayerNormPlugin final : public StandardPlugin
{
public:
    SkipLayerNormPlugin(std::string pluginNamespace, SkipLayerNormFields fields)
        : StandardPlugin(std::move(pluginNamespace))
        , mFields(std::move(fields))
        , mLabel(pluginLabel(kSkipLayerNormName, kSkipLayerNormVersion, mNamespace))
    {
    }

    nvinfer1::IPluginV3* clone() noexcept override
    {
        try
        {
            return new SkipLayerNormPlugin(*this);
        }
        catch (...)
        {
            return nullptr;
        }
    }

    char const* getPluginName() const noexcept override { return kSkipLayerNormName; }
    char const* getPluginVersion() const noexcept override { return kSkipLayerNormVersion; }

    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::DimsExprs const* /*shapeInputs*/, int32_t /*nbShapeInputs*/, nvinfer1::DimsExprs* outputs,
        int32_t nbOutputs, nvinfer1::IExprBuilder& /*exprBuilder*/) noexcept override
    {
        if (nbInputs != 2 || nbOutputs != 1 || inputs[0].nbDims != 5 || inputs[1].nbDims != 5)
        {
            logError(mLabel.c_str(),
                "takes input and skip [S, B, E, 1, 1] (2 inputs of 5 dimensions) and has one output; it got "
                    + std::to_string(nbInputs) + " inputs");
            return -1;
        }
        if (inputs[0].d[2]->isConstant() && inputs[0].d[2]->getConstantValue() != mFields.ld)
        {
            logError(mLabel.c_str(),
                "the hidden extent of input (dimension 2) is " + std::to_string(inputs[0].d[2]->getConstantValue())
                    + "; it must be ld, " + std::to_string(mFields.ld));
            return -1;
        }
        outputs[0] = inputs[0];
        return 0;
    }

    bool supportsFormatCombination(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t /*nbInputs*/,
        int32_t /*nbOutputs*/) noexcept override
    {
        nvinfer1::PluginTensorDesc const& desc = inOut[pos].desc;
        return desc.format == nvinfer1::TensorFormat::kLINEAR && desc.type == mFields.type;
    }

    int32_t onShapeChange(nvinfer1::PluginTensorDesc const* in, int32_t nbInputs, nvinfer1::PluginTensorDesc const* out,
        int32_t nbOutputs) noexcept override
    {
        return nbInputs == 2 && nbOutputs == 1 && shapesAgree(in, out) ? 0 : -1;
    }

    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* /*workspace*/, cudaStream_t stream) noexcept override
    {
        if (!shapesAgree(inputDesc, outputDesc))
        {
            return -1;
        }
#ifdef KILN_PLUGINS_CUDA
        SkipLayerNormParams const params = paramsFor(inputDesc);
        if (params.rows == 0)
        {
            return 0;
        }
        cudaError_t status = cudaSuccess;
        float const* gamma = mGammaDevice.upload(mFields.gamma, stream, status);
        float const* beta = status == cudaSuccess ? mBetaDevice.upload(mFields.beta, stream, status) : nullptr;
        float const* bias = status == cudaSuccess ? mBiasDevice.upload(mFields.bias, stream, status) : nullptr;
        if (status == cudaSuccess)
        {
            status = launchSkipLayerNorm(
                params, mFields.type, inputs[0], inputs[1], gamma, beta, bias, outputs[0], stream);
        }
        if (status != cudaSuccess)
        {
            logError(mLabel.c_str(), std::string("the CUDA kernel failed to launch: ") + cudaGetErrorString(status));
            return -1;
        }
        return 0;
#else
        static_cast<void>(inputs), static_cast<void>(outputs), static_cast<void>(stream);
        logError(mLabel.c_str(), "this build of the standard plugin library has no CUDA kernels");
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
        runSkipLayerNormHost(paramsFor(inputDesc), mFields.type, inputs[0], inputs[1], mFields.gamma.data(),
            mFields.beta.data(), mFields.bias.empty() ? nullptr : mFields.bias.data(), outputs[0]);
        return 0;
    }

    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {
        mTypeId = typeIdOf(mFields.type);
        auto const count = static_cast<int32_t>(mFields.ld);
        mSerialized = {PluginField{"type_id", &mTypeId, PluginFieldType::kINT32, 1},
            PluginField{"ld", &mFields.ld, PluginFieldType::kINT32, 1},
            PluginField{"beta", mFields.beta.data(), PluginFieldType::kFLOAT32, count},
            PluginField{"gamma", mFields.gamma.data(), PluginFieldType::kFLOAT32, count}};
        if (!mFields.bias.empty())
        {
            mSerialized.push_back(PluginField{"bias", mFields.bias.data(), PluginFieldType::kFLOAT32, count});
        }
        mCollection = {static_cast<int32_t>(mSerialized.size()), mSerialized.data()};
        return &mCollection;
    }

private:
    SkipLayerNormPlugin(SkipLayerNormPlugin const& other)
        : StandardPlugin(other)
        , mFields(other.mFields)
        , mLabel(other.mLabel)
    {
    }

    //! Whether this run's tensors are input, skip and output of one shape [S, B, ld, 1, 1] and the plugin's type;
    //! logs what differs otherwise (a corrupted plan is refused here rather than read or written past).
    bool shapesAgree(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc) const
    {
        nvinfer1::Dims const& in = inputDesc[0].dims;
        bool agree = isSequenceFirst5d(in, mFields.ld);
        for (nvinfer1::PluginTensorDesc const* desc : {&inputDesc[0], &inputDesc[1], &outputDesc[0]})
        {
            agree = agree && desc->type == mFields.type && desc->dims.nbDims == in.nbDims
                && std::equal(in.d, in.d + in.nbDims, desc->dims.d);
        }
        if (!agree)
        {
            logError(mLabel.c_str(),
                "input, skip and the output must be [S, B, ld, 1, 1] with ld " + std::to_string(mFields.ld)
                    + ", all of one shape and of type_id's type; nothing was computed");
        }
        return agree;
    }

    static SkipLayerNormParams paramsFor(nvinfer1::PluginTensorDesc const* inputDesc) noexcept
    {
        nvinfer1::Dims const& in = inputDesc[0].dims;
        return SkipLayerNormParams{in.d[0] * in.d[1], static_cast<int32_t>(in.d[2])};
    }

    SkipLayerNormFields mFields;
    std::string mLabel;
    int32_t mTypeId{};
    std::vector<PluginField> mSerialized;
    nvinfer1::PluginFieldCollection mCollection{};
#ifdef KILN_PLUGINS_CUDA
    DeviceFloats mGammaDevice;
    DeviceFloats mBetaDevice;
    DeviceFloats mBiasDevice;
#endif
};

template <typename T>
void skipLayerNormHost(SkipLayerNormParams const& params, void const* input, void const* skip, float const* gamma,
    float const* beta, float const* bias, void* out)
{
    for (int64_t row = 0; row < params.rows; ++row)
    {
        skipLayerNormRow(params, static_cast<T const*>(input), static_cast<T const*>(skip), gamma, beta, bias,
            static_cast<T*>(out), row, kBertLayerNormEpsilon, HostLoad{}, HostStore{});
    }
}

} // namespace

void runSkipLayerNormHost(SkipLayerNormParams const& params, DataType type, void const* input, void const* skip,
    float const* gamma, float const* beta, float const* bias, void* out)
{
    if (type == DataType::kHALF)
    {
        skipLayerNormHost<uint16_t>(params, input, skip, gamma, beta, bias, out);
    }
    else
    {
        skipLayerNormHost<float>(params, input, skip, gamma, beta, bias, out);
    }
}

SkipLayerNormCreator::SkipLayerNormCreator()
    : StandardCreator({PluginField{"type_id", nullptr, PluginFieldType::kINT32, 1},
        PluginField{"ld", nullptr, PluginFieldType::kINT32, 1},
        PluginField{"beta", nullptr, PluginFieldType::kFLOAT32, 0},
        PluginField{"gamma", nullptr, PluginFieldType::kFLOAT32, 0},
        PluginField{"bias", nullptr, PluginFieldType::kFLOAT32, 0}})
{
}

nvinfer1::IPluginV3* SkipLayerNormCreator::createPlugin(
    char const* /*name*/, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase /*phase*/) noexcept
{
    try
    {
        std::string const label = pluginLabel(kSkipLayerNormName, kSkipLayerNormVersion, mNamespace);
        FieldReader const fields(label.c_str(), fc);
        constexpr int32_t kAbsent = std::numeric_limits<int32_t>::min();
        int32_t typeId = kAbsent;
        SkipLayerNormFields plugin;
        plugin.ld = kAbsent;
        bool hasBeta = false;
        bool hasGamma = false;
        bool hasBias = false;
        if (!fields.readInt("type_id", typeId) || !fields.readInt("ld", plugin.ld)
            || !readWeightsField(label.c_str(), fc, "beta", plugin.beta, hasBeta)
            || !readWeightsField(label.c_str(), fc, "gamma", plugin.gamma, hasGamma)
            || !readWeightsField(label.c_str(), fc, "bias", plugin.bias, hasBias))
        {
            return nullptr;
        }
        std::string problem;
        if (typeId == kAbsent || plugin.ld == kAbsent || !hasBeta || !hasGamma)
        {
            problem = "the fields type_id, ld, beta and gamma are required";
        }
        else if (typeId != 0 && typeId != 1)
        {
            problem = "type_id is " + std::to_string(typeId) + "; kiln supports 0 (FP32) and 1 (FP16)"
                + (typeId == 2 ? ", not 2 (INT8)" : "");
        }
        else if (plugin.ld <= 0)
        {
            problem = "ld is " + std::to_string(plugin.ld) + "; it must be positive";
        }
        else if (plugin.beta.size() != static_cast<size_t>(plugin.ld)
            || plugin.gamma.size() != static_cast<size_t>(plugin.ld)
            || (hasBias && plugin.bias.size() != static_cast<size_t>(plugin.ld)))
        {
            problem = "beta, gamma and bias must have ld (" + std::to_string(plugin.ld) + ") elements; they have "
                + std::to_string(plugin.beta.size()) + ", " + std::to_string(plugin.gamma.size()) + " and "
                + (hasBias ? std::to_string(plugin.bias.size()) : std::string("no bias"));
        }
        if (!problem.empty())
        {
            logError(label.c_str(), problem);
            return nullptr;
        }
        plugin.type = typeId == 1 ? DataType::kHALF : DataType::kFLOAT;
        return new SkipLayerNormPlugin(mNamespace, std::move(plugin));
    }
    catch (...)
    {
        return nullptr;
    }
}

} // namespace kiln::plugins
