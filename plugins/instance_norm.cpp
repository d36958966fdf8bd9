// SPDX-License-Identifier: Apache-2.0
#include "instance_norm.h"

#include "elements.h"
#include "field_arrays.h"

#include <cmath>

namespace kiln::plugins
{

namespace
{

using nvinfer1::DataType;
using nvinfer1::PluginField;
using nvinfer1::PluginFieldType;

class InstanceNormPlugin final : public StandardPlugin
{
public:
    InstanceNormPlugin(
        std::string pluginNamespace, NormParams const& params, std::vector<float> scales, std::vector<float> bias)
        : StandardPlugin(std::move(pluginNamespace))
        , mParams(params)
        , mScales(std::move(scales))
        , mBias(std::move(bias))
    {
    }

    nvinfer1::IPluginV3* clone() noexcept override
    {
        try
        {
            return new InstanceNormPlugin(*this);
        }
        catch (...)
        {
            return nullptr;
        }
    }

    char const* getPluginName() const noexcept override { return kInstanceNormName; }
    char const* getPluginVersion() const noexcept override { return kInstanceNormVersion; }

    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::DimsExprs const* /*shapeInputs*/, int32_t /*nbShapeInputs*/, nvinfer1::DimsExprs* outputs,
        int32_t nbOutputs, nvinfer1::IExprBuilder& /*exprBuilder*/) noexcept override
    {
        if (nbInputs != 1 || nbOutputs != 1 || inputs[0].nbDims < 3 || inputs[0].nbDims > 5)
        {
            logError(kInstanceNormName,
                "takes one input X [N, C, D1, ...] of rank 3 to 5 and has one output; it got "
                    + std::to_string(nbInputs) + " inputs"
                    + (nbInputs >= 1 ? ", X of rank " + std::to_string(inputs[0].nbDims) : std::string{}));
            return -1;
        }
        if (inputs[0].d[1]->isConstant() && inputs[0].d[1]->getConstantValue() != channelCount())
        {
            logError(kInstanceNormName,
                "X has " + std::to_string(inputs[0].d[1]->getConstantValue()) + " channels; the fields scales and "
                    + "bias hold " + std::to_string(channelCount()));
            return -1;
        }
        outputs[0] = inputs[0];
        return 0;
    }

    bool supportsFormatCombination(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t /*nbInputs*/,
        int32_t /*nbOutputs*/) noexcept override
    {
        nvinfer1::PluginTensorDesc const& desc = inOut[pos].desc;
        return desc.format == nvinfer1::TensorFormat::kLINEAR
            && (pos == 0 ? isFloatOrHalf(desc.type) : desc.type == inOut[0].desc.type);
    }

    size_t getWorkspaceSize(nvinfer1::DynamicPluginTensorDesc const* /*inputs*/, int32_t /*nbInputs*/,
        nvinfer1::DynamicPluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const noexcept override
    {
        return 2 * mScales.size() * sizeof(float); // the CUDA kernel reads scales and bias from the workspace
    }

    int32_t onShapeChange(nvinfer1::PluginTensorDesc const* in, int32_t nbInputs, nvinfer1::PluginTensorDesc const* out,
        int32_t nbOutputs) noexcept override
    {
        return nbInputs == 1 && nbOutputs == 1 && shapesAgree(in, out) ? 0 : -1;
    }

    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override
    {
        if (!shapesAgree(inputDesc, outputDesc))
        {
            return -1;
        }
#ifdef KILN_PLUGINS_CUDA
        NormParams const params = paramsFor(inputDesc);
        if (params.count() == 0)
        {
            return 0;
        }
        auto* scale = static_cast<float*>(workspace);
        float* bias = scale + mScales.size();
        size_t const bytes = mScales.size() * sizeof(float);
        cudaError_t status = cudaMemcpyAsync(scale, mScales.data(), bytes, cudaMemcpyHostToDevice, stream);
        if (status == cudaSuccess)
        {
            status = cudaMemcpyAsync(bias, mBias.data(), bytes, cudaMemcpyHostToDevice, stream);
        }
        if (status == cudaSuccess)
        {
            status = launchNorm(params, inputDesc[0].type, inputs[0], scale, bias, outputs[0], stream);
        }
        if (status != cudaSuccess)
        {
            logError(kInstanceNormName, std::string("the CUDA kernel failed to launch: ") + cudaGetErrorString(status));
            return -1;
        }
        return 0;
#else
        static_cast<void>(inputs), static_cast<void>(outputs), static_cast<void>(workspace), static_cast<void>(stream);
        logError(kInstanceNormName, "this build of the standard plugin library has no CUDA kernels");
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
        runNormHost(paramsFor(inputDesc), inputDesc[0].type, inputs[0], mScales.data(), mBias.data(), outputs[0]);
        return 0;
    }

    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {
        mSerializedRelu = mParams.relu ? 1 : 0;
        mFields = {PluginField{"epsilon", &mParams.epsilon, PluginFieldType::kFLOAT32, 1},
            PluginField{"scales", mScales.data(), PluginFieldType::kFLOAT32, channelCount()},
            PluginField{"bias", mBias.data(), PluginFieldType::kFLOAT32, channelCount()},
            PluginField{"relu", &mSerializedRelu, PluginFieldType::kINT32, 1},
            PluginField{"alpha", &mParams.alpha, PluginFieldType::kFLOAT32, 1}};
        mCollection = {static_cast<int32_t>(mFields.size()), mFields.data()};
        return &mCollection;
    }

private:
    InstanceNormPlugin(InstanceNormPlugin const& other)
        : StandardPlugin(other)
        , mParams(other.mParams)
        , mScales(other.mScales)
        , mBias(other.mBias)
    {
    }

    int32_t channelCount() const noexcept
    {
        return static_cast<int32_t>(mScales.size());
    }

    //! Whether this run's X is [N, C, ...] of rank 3 to 5 with the fields' C and Y has its shape; logs otherwise (a
    //! corrupted plan is refused here rather than read or written past).
    bool shapesAgree(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc) const
    {
        nvinfer1::Dims const& x = inputDesc[0].dims;
        nvinfer1::Dims const& y = outputDesc[0].dims;
        bool agree = x.nbDims >= 3 && x.nbDims <= 5 && x.d[1] == channelCount() && y.nbDims == x.nbDims;
        for (int32_t i = 0; agree && i < x.nbDims; ++i)
        {
            agree = x.d[i] == y.d[i] && x.d[i] >= 0;
        }
        if (!agree)
        {
            logError(kInstanceNormName,
                "the tensors of this run do not have the shapes its fields imply (X and Y [N, C, D1, ...] of rank 3 "
                "to 5, C = "
                    + std::to_string(channelCount()) + "); nothing was computed");
        }
        return agree;
    }

    NormParams paramsFor(nvinfer1::PluginTensorDesc const* inputDesc) const noexcept
    {
        NormParams params = mParams;
        nvinfer1::Dims const& x = inputDesc[0].dims;
        params.channels = x.d[1];
        params.planeSize = 1;
        for (int32_t i = 2; i < x.nbDims; ++i)
        {
            params.planeSize *= x.d[i];
        }
        params.segments = x.d[0] * x.d[1];
        params.segmentSize = params.planeSize;
        return params;
    }

    NormParams mParams;
    std::vector<float> mScales;
    std::vector<float> mBias;
    int32_t mSerializedRelu{};
    std::vector<PluginField> mFields;
    nvinfer1::PluginFieldCollection mCollection{};
};

template <typename T>
void normHost(NormParams const& p, void const* x, float const* scale, float const* bias, void* y)
{
    auto const* in = static_cast<T const*>(x);
    auto* out = static_cast<T*>(y);
    HostLoad const load;
    for (int64_t segment = 0; segment < p.segments; ++segment)
    {
        int64_t const first = segment * p.segmentSize;
        double sum = 0.0;
        for (int64_t i = first; i < first + p.segmentSize; ++i)
        {
            sum += load(in[i]);
        }
        double const mean = p.segmentSize > 0 ? sum / static_cast<double>(p.segmentSize) : 0.0;
        double squares = 0.0;
        for (int64_t i = first; i < first + p.segmentSize; ++i)
        {
            double const d = load(in[i]) - mean;
            squares += d * d;
        }
        double const variance = p.segmentSize > 0 ? squares / static_cast<double>(p.segmentSize) : 0.0;
        float const invStd = inverseDeviation(static_cast<float>(variance), p.epsilon);
        for (int64_t i = first; i < first + p.segmentSize; ++i)
        {
            int64_t const c = p.channelOf(i);
            float const v
                = normalizedValue(load(in[i]), static_cast<float>(mean), invStd, scale[c], bias[c], p.relu, p.alpha);
            if constexpr (sizeof(T) == 2)
            {
                out[i] = floatToHalf(v);
            }
            else
            {
                out[i] = v;
            }
        }
    }
}

} // namespace

void runNormHost(NormParams const& params, DataType type, void const* x, float const* scale, float const* bias, void* y)
{
    if (type == DataType::kHALF)
    {
        normHost<uint16_t>(params, x, scale, bias, y);
    }
    else
    {
        normHost<float>(params, x, scale, bias, y);
    }
}

InstanceNormCreator::InstanceNormCreator()
    : StandardCreator({PluginField{"epsilon", nullptr, PluginFieldType::kFLOAT32, 1},
        PluginField{"scales", nullptr, PluginFieldType::kFLOAT32, 1},
        PluginField{"bias", nullptr, PluginFieldType::kFLOAT32, 1},
        PluginField{"relu", nullptr, PluginFieldType::kINT32, 1},
        PluginField{"alpha", nullptr, PluginFieldType::kFLOAT32, 1}})
{
}

nvinfer1::IPluginV3* InstanceNormCreator::createPlugin(
    char const* /*name*/, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase /*phase*/) noexcept
{
    try
    {
        FieldReader const fields(kInstanceNormName, fc);
        NormParams params;
        int32_t relu = 0;
        std::vector<float> scales;
        std::vector<float> bias;
        if (!fields.readFloat("epsilon", params.epsilon) || !fields.readInt("relu", relu)
            || !fields.readFloat("alpha", params.alpha) || !readFloatArray(kInstanceNormName, fc, "scales", scales)
            || !readFloatArray(kInstanceNormName, fc, "bias", bias))
        {
            return nullptr;
        }
        std::string problem;
        if (!(params.epsilon >= 0.0F))
        {
            problem = "epsilon is " + std::to_string(params.epsilon) + "; it must be 0 or more";
        }
        else if (scales.empty() || scales.size() != bias.size())
        {
            problem = "scales and bias hold " + std::to_string(scales.size()) + " and " + std::to_string(bias.size())
                + " values; they must hold one value per channel each";
        }
        if (!problem.empty())
        {
            logError(kInstanceNormName, problem);
            return nullptr;
        }
        params.relu = relu > 0;
        return new InstanceNormPlugin(mNamespace, params, std::move(scales), std::move(bias));
    }
    catch (...)
    {
        return nullptr;
    }
}

} // namespace kiln::plugins
