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

bool readInstanceNormFields(nvinfer1::PluginFieldCollection const* fc, InstanceNormFields& fields)
{
    FieldReader const reader(kInstanceNormName, fc);
    int32_t relu = 0;
    if (!reader.readFloat("epsilon", fields.params.epsilon) || !reader.readInt("relu", relu)
        || !reader.readFloat("alpha", fields.params.alpha)
        || !readFloatArray(kInstanceNormName, fc, "scales", fields.scales)
        || !readFloatArray(kInstanceNormName, fc, "bias", fields.bias))
    {
        return false;
    }
    fields.params.relu = relu > 0;
    std::string const problem = instanceNormFieldProblem(fields);
    if (!problem.empty())
    {
        logError(kInstanceNormName, problem);
        return false;
    }
    return true;
}

std::string instanceNormFieldProblem(InstanceNormFields const& fields)
{
    if (!(fields.params.epsilon >= 0.0F))
    {
        return "epsilon is " + std::to_string(fields.params.epsilon) + "; it must be 0 or more";
    }
    if (fields.scales.empty() || fields.scales.size() != fields.bias.size())
    {
        return "scales and bias hold " + std::to_string(fields.scales.size()) + " and "
            + std::to_string(fields.bias.size()) + " values; they must hold one value per channel each";
    }
    return {};
}

std::string instanceNormBuildProblem(nvinfer1::DimsExprs const* inputs, int32_t nbInputs, int64_t channels)
{
    if (nbInputs != 1 || inputs[0].nbDims < 3 || inputs[0].nbDims > 5)
    {
        return "takes one input X [N, C, D1, ...] of rank 3 to 5 and has one output; it got " + std::to_string(nbInputs)
            + " inputs" + (nbInputs >= 1 ? ", X of rank " + std::to_string(inputs[0].nbDims) : std::string{});
    }
    if (inputs[0].d[1]->isConstant() && inputs[0].d[1]->getConstantValue() != channels)
    {
        return "X has " + std::to_string(inputs[0].d[1]->getConstantValue())
            + " channels; the fields scales and bias hold " + std::to_string(channels);
    }
    return {};
}

bool instanceNormSupports(int32_t pos, nvinfer1::PluginTensorDesc const* inOut)
{
    nvinfer1::PluginTensorDesc const& desc = inOut[pos];
    return desc.format == nvinfer1::TensorFormat::kLINEAR
        && (pos == 0 ? isFloatOrHalf(desc.type) : desc.type == inOut[0].type);
}

bool instanceNormRunAgrees(
    int64_t channels, nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc)
{
    nvinfer1::Dims const& x = inputDesc[0].dims;
    nvinfer1::Dims const& y = outputDesc[0].dims;
    bool agree = x.nbDims >= 3 && x.nbDims <= 5 && x.d[1] == channels && y.nbDims == x.nbDims;
    for (int32_t i = 0; agree && i < x.nbDims; ++i)
    {
        agree = x.d[i] == y.d[i] && x.d[i] >= 0;
    }
    if (!agree)
    {
        logError(kInstanceNormName,
            "the tensors of this run do not have the shapes its fields imply (X and Y [N, C, D1, ...] of rank 3 to 5, "
            "C = "
                + std::to_string(channels) + "); nothing was computed");
    }
    return agree;
}

NormParams instanceNormRunParams(NormParams params, nvinfer1::PluginTensorDesc const* inputDesc)
{
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

int32_t instanceNormEnqueue(InstanceNormFields const& fields, nvinfer1::PluginTensorDesc const* inputDesc,
    nvinfer1::PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs, void* workspace,
    cudaStream_t stream)
{
    if (!instanceNormRunAgrees(static_cast<int64_t>(fields.scales.size()), inputDesc, outputDesc))
    {
        return -1;
    }
#ifdef KILN_PLUGINS_CUDA
    NormParams const params = instanceNormRunParams(fields.params, inputDesc);
    if (params.count() == 0)
    {
        return 0;
    }
    // The kernel reads scales and bias from the workspace (instanceNormWorkspaceSize()).
    auto* scale = static_cast<float*>(workspace);
    float* bias = scale + fields.scales.size();
    size_t const bytes = fields.scales.size() * sizeof(float);
    cudaError_t status = cudaMemcpyAsync(scale, fields.scales.data(), bytes, cudaMemcpyHostToDevice, stream);
    if (status == cudaSuccess)
    {
        status = cudaMemcpyAsync(bias, fields.bias.data(), bytes, cudaMemcpyHostToDevice, stream);
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

int32_t instanceNormEnqueueHost(InstanceNormFields const& fields, nvinfer1::PluginTensorDesc const* inputDesc,
    nvinfer1::PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs)
{
    if (!instanceNormRunAgrees(static_cast<int64_t>(fields.scales.size()), inputDesc, outputDesc))
    {
        return -1;
    }
    runNormHost(instanceNormRunParams(fields.params, inputDesc), inputDesc[0].type, inputs[0], fields.scales.data(),
        fields.bias.data(), outputs[0]);
    return 0;
}

namespace
{

class InstanceNormPlugin final : public StandardPlugin
{
public:
    InstanceNormPlugin(std::string pluginNamespace, InstanceNormFields fields)
        : StandardPlugin(std::move(pluginNamespace))
        , mFields(std::move(fields))
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
        std::string const problem
            = instanceNormBuildProblem(inputs, nbInputs, static_cast<int64_t>(mFields.scales.size()));
        if (!problem.empty() || nbOutputs != 1)
        {
            logError(kInstanceNormName, problem.empty() ? std::string("has one output") : problem);
            return -1;
        }
        outputs[0] = inputs[0];
        return 0;
    }

    bool supportsFormatCombination(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t /*nbInputs*/,
        int32_t /*nbOutputs*/) noexcept override
    {
        nvinfer1::PluginTensorDesc const descs[2] = {inOut[0].desc, pos > 0 ? inOut[1].desc : inOut[0].desc};
        return pos < 2 && instanceNormSupports(pos, descs);
    }

    size_t getWorkspaceSize(nvinfer1::DynamicPluginTensorDesc const* /*inputs*/, int32_t /*nbInputs*/,
        nvinfer1::DynamicPluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const noexcept override
    {
        return instanceNormWorkspaceSize(mFields);
    }

    int32_t onShapeChange(nvinfer1::PluginTensorDesc const* in, int32_t nbInputs, nvinfer1::PluginTensorDesc const* out,
        int32_t nbOutputs) noexcept override
    {
        return nbInputs == 1 && nbOutputs == 1
                && instanceNormRunAgrees(static_cast<int64_t>(mFields.scales.size()), in, out)
            ? 0
            : -1;
    }

    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override
    {
        return instanceNormEnqueue(mFields, inputDesc, outputDesc, inputs, outputs, workspace, stream);
    }

    int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* /*workspace*/) noexcept override
    {
        return instanceNormEnqueueHost(mFields, inputDesc, outputDesc, inputs, outputs);
    }

    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {
        mSerializedRelu = mFields.params.relu ? 1 : 0;
        auto const channels = static_cast<int32_t>(mFields.scales.size());
        mSerialized = {PluginField{"epsilon", &mFields.params.epsilon, PluginFieldType::kFLOAT32, 1},
            PluginField{"scales", mFields.scales.data(), PluginFieldType::kFLOAT32, channels},
            PluginField{"bias", mFields.bias.data(), PluginFieldType::kFLOAT32, channels},
            PluginField{"relu", &mSerializedRelu, PluginFieldType::kINT32, 1},
            PluginField{"alpha", &mFields.params.alpha, PluginFieldType::kFLOAT32, 1}};
        mCollection = {static_cast<int32_t>(mSerialized.size()), mSerialized.data()};
        return &mCollection;
    }

private:
    InstanceNormPlugin(InstanceNormPlugin const& other)
        : StandardPlugin(other)
        , mFields(other.mFields)
    {
    }

    InstanceNormFields mFields;
    int32_t mSerializedRelu{};
    std::vector<PluginField> mSerialized;
    nvinfer1::PluginFieldCollection mCollection{};
};

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
    : StandardCreator(instanceNormDeclaredFields())
{
}

std::vector<PluginField> instanceNormDeclaredFields()
{
    return {PluginField{"epsilon", nullptr, PluginFieldType::kFLOAT32, 1},
        PluginField{"scales", nullptr, PluginFieldType::kFLOAT32, 1},
        PluginField{"bias", nullptr, PluginFieldType::kFLOAT32, 1},
        PluginField{"relu", nullptr, PluginFieldType::kINT32, 1},
        PluginField{"alpha", nullptr, PluginFieldType::kFLOAT32, 1}};
}

nvinfer1::IPluginV3* InstanceNormCreator::createPlugin(
    char const* /*name*/, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase /*phase*/) noexcept
{
    try
    {
        InstanceNormFields fields;
        if (!readInstanceNormFields(fc, fields))
        {
            return nullptr;
        }
        return new InstanceNormPlugin(mNamespace, std::move(fields));
    }
    catch (...)
    {
        return nullptr;
    }
}

} // namespace kiln::plugins
