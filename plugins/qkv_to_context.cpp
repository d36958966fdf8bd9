// SPDX-License-Identifier: Apache-2.0
#include "qkv_to_context.h"

#include "bert_common.h"
#include "elements.h"

#include <limits>

namespace kiln::plugins
{

namespace
{

using nvinfer1::DataType;
using nvinfer1::PluginField;
using nvinfer1::PluginFieldType;

struct QkvToContextFields
{
    DataType type{DataType::kFLOAT};
    int32_t hiddenSize{};
    int32_t numHeads{};
    int32_t hasMask{};
    float dqProbs{1.0F / 127.0F};
};

class QkvToContextPlugin final : public StandardPlugin
{
public:
    QkvToContextPlugin(std::string pluginNamespace, QkvToContextFields const& fields)
        : StandardPlugin(std::move(pluginNamespace))
        , mFields(fields)
        , mLabel(pluginLabel(kQkvToContextName, kQkvToContextVersion, mNamespace))
    {
    }

    nvinfer1::IPluginV3* clone() noexcept override
    {
        try
        {
            return new QkvToContextPlugin(*this);
        }
        catch (...)
        {
            return nullptr;
        }
    }

    char const* getPluginName() const noexcept override { return kQkvToContextName; }
    char const* getPluginVersion() const noexcept override { return kQkvToContextVersion; }

    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::DimsExprs const* /*shapeInputs*/, int32_t /*nbShapeInputs*/, nvinfer1::DimsExprs* outputs,
        int32_t nbOutputs, nvinfer1::IExprBuilder& exprBuilder) noexcept override
    {
        if (nbInputs != inputCount() || nbOutputs != 1 || inputs[0].nbDims != 5)
        {
            logError(mLabel.c_str(),
                "takes the packed QKV [S, B, 3 * hidden_size, 1, 1]"
                    + std::string(
                        mFields.hasMask != 0 ? " and the mask index [B, 1] (2 inputs)" : " (1 input; has_mask is 0)")
                    + " and has one output; it got " + std::to_string(nbInputs) + " inputs");
            return -1;
        }
        if (inputs[0].d[2]->isConstant() && inputs[0].d[2]->getConstantValue() != 3 * mFields.hiddenSize)
        {
            logError(mLabel.c_str(),
                "the packed QKV's extent 2 is " + std::to_string(inputs[0].d[2]->getConstantValue())
                    + "; it must be 3 * hidden_size, " + std::to_string(3 * mFields.hiddenSize));
            return -1;
        }
        outputs[0] = inputs[0];
        outputs[0].d[2] = exprBuilder.constant(mFields.hiddenSize);
        return 0;
    }

    bool supportsFormatCombination(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t /*nbInputs*/,
        int32_t /*nbOutputs*/) noexcept override
    {
        nvinfer1::PluginTensorDesc const& desc = inOut[pos].desc;
        bool const isMask = mFields.hasMask != 0 && pos == 1;
        return desc.format == nvinfer1::TensorFormat::kLINEAR
            && desc.type == (isMask ? DataType::kINT32 : mFields.type);
    }

    int32_t onShapeChange(nvinfer1::PluginTensorDesc const* in, int32_t nbInputs, nvinfer1::PluginTensorDesc const* out,
        int32_t nbOutputs) noexcept override
    {
        return nbInputs == inputCount() && nbOutputs == 1 && shapesAgree(in, out) ? 0 : -1;
    }

    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* /*workspace*/, cudaStream_t stream) noexcept override
    {
        if (!shapesAgree(inputDesc, outputDesc))
        {
            return -1;
        }
#ifdef KILN_PLUGINS_CUDA
        QkvToContextParams const params = paramsFor(inputDesc);
        if (params.outputCount() == 0)
        {
            return 0;
        }
        cudaError_t const status
            = launchQkvToContext(params, mFields.type, inputs[0], mask(inputs), outputs[0], stream);
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
        runQkvToContextHost(paramsFor(inputDesc), mFields.type, inputs[0], mask(inputs), outputs[0]);
        return 0;
    }

    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {
        mTypeId = typeIdOf(mFields.type);
        mSerialized = {PluginField{"type_id", &mTypeId, PluginFieldType::kINT32, 1},
            PluginField{"hidden_size", &mFields.hiddenSize, PluginFieldType::kINT32, 1},
            PluginField{"num_heads", &mFields.numHeads, PluginFieldType::kINT32, 1},
            PluginField{"has_mask", &mFields.hasMask, PluginFieldType::kINT32, 1},
            PluginField{"dq_probs", &mFields.dqProbs, PluginFieldType::kFLOAT32, 1}};
        mCollection = {static_cast<int32_t>(mSerialized.size()), mSerialized.data()};
        return &mCollection;
    }

private:
    QkvToContextPlugin(QkvToContextPlugin const& other)
        : StandardPlugin(other)
        , mFields(other.mFields)
        , mLabel(other.mLabel)
    {
    }

    int32_t inputCount() const noexcept
    {
        return mFields.hasMask != 0 ? 2 : 1;
    }

    int32_t const* mask(void const* const* inputs) const noexcept
    {
        return mFields.hasMask != 0 ? static_cast<int32_t const*>(inputs[1]) : nullptr;
    }

    //! Whether this run's tensors are the packed QKV [S, B, 3E, 1, 1], the mask [B, 1] or [B] (kINT32) and the
    //! context [S, B, E, 1, 1] of type_id's type; logs what differs otherwise (a corrupted plan is refused here).
    bool shapesAgree(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc) const
    {
        nvinfer1::Dims const& qkv = inputDesc[0].dims;
        nvinfer1::Dims const& out = outputDesc[0].dims;
        bool agree = isSequenceFirst5d(qkv, 3 * static_cast<int64_t>(mFields.hiddenSize))
            && isSequenceFirst5d(out, mFields.hiddenSize) && out.d[0] == qkv.d[0] && out.d[1] == qkv.d[1]
            && inputDesc[0].type == mFields.type && outputDesc[0].type == mFields.type;
        if (agree && mFields.hasMask != 0)
        {
            nvinfer1::Dims const& mask = inputDesc[1].dims;
            agree = inputDesc[1].type == DataType::kINT32 && mask.nbDims >= 1 && mask.nbDims <= 2
                && mask.d[0] == qkv.d[1] && (mask.nbDims == 1 || mask.d[1] == 1);
        }
        if (!agree)
        {
            logError(mLabel.c_str(),
                "the packed QKV must be [S, B, " + std::to_string(3 * static_cast<int64_t>(mFields.hiddenSize))
                    + ", 1, 1], the mask index kINT32 [B, 1] and the context [S, B, "
                    + std::to_string(mFields.hiddenSize) + ", 1, 1], of type_id's type; nothing was computed");
        }
        return agree;
    }

    QkvToContextParams paramsFor(nvinfer1::PluginTensorDesc const* inputDesc) const noexcept
    {
        return QkvToContextParams{
            inputDesc[0].dims.d[0], inputDesc[0].dims.d[1], mFields.numHeads, mFields.hiddenSize / mFields.numHeads};
    }

    QkvToContextFields mFields;
    std::string mLabel;
    int32_t mTypeId{};
    std::vector<PluginField> mSerialized;
    nvinfer1::PluginFieldCollection mCollection{};
};

template <typename T>
void qkvToContextHost(QkvToContextParams const& params, void const* qkv, int32_t const* mask, void* out)
{
    auto* y = static_cast<T*>(out);
    int64_t const count = params.outputCount();
    for (int64_t i = 0; i < count; ++i)
    {
        HostStore{}(y + i, qkvToContextValue(params, static_cast<T const*>(qkv), mask, i, HostLoad{}));
    }
}

} // namespace

void runQkvToContextHost(
    QkvToContextParams const& params, DataType type, void const* qkv, int32_t const* mask, void* out)
{
    if (type == DataType::kHALF)
    {
        qkvToContextHost<uint16_t>(params, qkv, mask, out);
    }
    else
    {
        qkvToContextHost<float>(params, qkv, mask, out);
    }
}

QkvToContextCreator::QkvToContextCreator()
    : StandardCreator({PluginField{"type_id", nullptr, PluginFieldType::kINT32, 1},
        PluginField{"hidden_size", nullptr, PluginFieldType::kINT32, 1},
        PluginField{"num_heads", nullptr, PluginFieldType::kINT32, 1},
        PluginField{"has_mask", nullptr, PluginFieldType::kINT32, 1},
        PluginField{"dq_probs", nullptr, PluginFieldType::kFLOAT32, 1}})
{
}

nvinfer1::IPluginV3* QkvToContextCreator::createPlugin(
    char const* /*name*/, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase /*phase*/) noexcept
{
    try
    {
        std::string const label = pluginLabel(kQkvToContextName, kQkvToContextVersion, mNamespace);
        FieldReader const fields(label.c_str(), fc);
        constexpr int32_t kAbsent = std::numeric_limits<int32_t>::min();
        int32_t typeId = kAbsent;
        QkvToContextFields plugin;
        plugin.hiddenSize = kAbsent;
        plugin.numHeads = kAbsent;
        if (!fields.readInt("type_id", typeId) || !fields.readInt("hidden_size", plugin.hiddenSize)
            || !fields.readInt("num_heads", plugin.numHeads) || !fields.readInt("has_mask", plugin.hasMask)
            || !fields.readFloat("dq_probs", plugin.dqProbs))
        {
            return nullptr;
        }
        std::string problem;
        if (typeId == kAbsent || plugin.hiddenSize == kAbsent || plugin.numHeads == kAbsent)
        {
            problem = "the fields type_id, hidden_size and num_heads are required";
        }
        else if (typeId != 0 && typeId != 1)
        {
            problem = "type_id is " + std::to_string(typeId) + "; kiln supports 0 (FP32) and 1 (FP16)"
                + (typeId == 2 ? ", not 2 (INT8)" : "");
        }
        else if (plugin.hiddenSize <= 0 || plugin.numHeads <= 0 || plugin.hiddenSize % plugin.numHeads != 0)
        {
            problem = "hidden_size " + std::to_string(plugin.hiddenSize) + " and num_heads "
                + std::to_string(plugin.numHeads) + " must be positive, num_heads dividing hidden_size";
        }
        else if (plugin.hasMask != 0 && plugin.hasMask != 1)
        {
            problem = "has_mask is " + std::to_string(plugin.hasMask) + "; it must be 0 or 1";
        }
        if (!problem.empty())
        {
            logError(label.c_str(), problem);
            return nullptr;
        }
        plugin.type = typeId == 1 ? DataType::kHALF : DataType::kFLOAT;
        return new QkvToContextPlugin(mNamespace, plugin);
    }
    catch (...)
    {
        return nullptr;
    }
}

} // namespace kiln::plugins
