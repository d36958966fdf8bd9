// SPDX-License-Identifier: Apache-2.0
#include "disentangled_attention.h"

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

class DisentangledAttentionPlugin final : public StandardPlugin
{
public:
    DisentangledAttentionPlugin(std::string pluginNamespace, int32_t span, float factor)
        : StandardPlugin(std::move(pluginNamespace))
        , mSpan(span)
        , mFactor(factor)
        , mLabel(pluginLabel(kDisentangledAttentionName, kDisentangledAttentionVersion, mNamespace))
    {
    }

    nvinfer1::IPluginV3* clone() noexcept override
    {
        try
        {
            return new DisentangledAttentionPlugin(*this);
        }
        catch (...)
        {
            return nullptr;
        }
    }

    char const* getPluginName() const noexcept override { return kDisentangledAttentionName; }
    char const* getPluginVersion() const noexcept override { return kDisentangledAttentionVersion; }

    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::DimsExprs const* /*shapeInputs*/, int32_t /*nbShapeInputs*/, nvinfer1::DimsExprs* outputs,
        int32_t nbOutputs, nvinfer1::IExprBuilder& /*exprBuilder*/) noexcept override
    {
        if (nbInputs != 3 || nbOutputs != 1 || inputs[0].nbDims != 3 || inputs[1].nbDims != 3 || inputs[2].nbDims != 3)
        {
            logError(mLabel.c_str(),
                "takes c2c [BN, S, S], c2p and p2c [BN, S, 2 * span] (3 inputs of 3 dimensions) and has one output; "
                "it got "
                    + std::to_string(nbInputs) + " inputs");
            return -1;
        }
        for (int32_t i = 1; i < 3; ++i)
        {
            if (inputs[i].d[2]->isConstant() && inputs[i].d[2]->getConstantValue() != 2 * static_cast<int64_t>(mSpan))
            {
                logError(mLabel.c_str(),
                    std::string(i == 1 ? "c2p" : "p2c") + "'s last extent is "
                        + std::to_string(inputs[i].d[2]->getConstantValue()) + "; it must be 2 * span, "
                        + std::to_string(2 * static_cast<int64_t>(mSpan)));
                return -1;
            }
        }
        outputs[0] = inputs[0];
        return 0;
    }

    bool supportsFormatCombination(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t /*nbInputs*/,
        int32_t /*nbOutputs*/) noexcept override
    {
        nvinfer1::PluginTensorDesc const& desc = inOut[pos].desc;
        if (desc.format != nvinfer1::TensorFormat::kLINEAR)
        {
            return false;
        }
        return pos == 0 ? isFloatOrHalf(desc.type) : desc.type == inOut[0].desc.type;
    }

    int32_t onShapeChange(nvinfer1::PluginTensorDesc const* in, int32_t nbInputs, nvinfer1::PluginTensorDesc const* out,
        int32_t nbOutputs) noexcept override
    {
        return nbInputs == 3 && nbOutputs == 1 && shapesAgree(in, out) ? 0 : -1;
    }

    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* /*workspace*/, cudaStream_t stream) noexcept override
    {
        if (!shapesAgree(inputDesc, outputDesc))
        {
            return -1;
        }
#ifdef KILN_PLUGINS_CUDA
        DisentangledAttentionParams const params = paramsFor(inputDesc);
        if (params.outputCount() == 0)
        {
            return 0;
        }
        cudaError_t const status = launchDisentangledAttention(
            params, inputDesc[0].type, inputs[0], inputs[1], inputs[2], outputs[0], stream);
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
        runDisentangledAttentionHost(
            paramsFor(inputDesc), inputDesc[0].type, inputs[0], inputs[1], inputs[2], outputs[0]);
        return 0;
    }

    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {
        mSerialized = {PluginField{"span", &mSpan, PluginFieldType::kINT32, 1},
            PluginField{"factor", &mFactor, PluginFieldType::kFLOAT32, 1}};
        mCollection = {static_cast<int32_t>(mSerialized.size()), mSerialized.data()};
        return &mCollection;
    }

private:
    DisentangledAttentionPlugin(DisentangledAttentionPlugin const& other)
        : StandardPlugin(other)
        , mSpan(other.mSpan)
        , mFactor(other.mFactor)
        , mLabel(other.mLabel)
    {
    }

    //! Whether this run's tensors are c2c [BN, S, S], c2p and p2c [BN, S, 2 * span] and the output [BN, S, S], all of
    //! one float type; logs what differs otherwise (a corrupted plan is refused here rather than read past).
    bool shapesAgree(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc) const
    {
        nvinfer1::Dims const& c2c = inputDesc[0].dims;
        bool agree = c2c.nbDims == 3 && c2c.d[0] >= 0 && c2c.d[1] >= 0 && c2c.d[1] == c2c.d[2]
            && isFloatOrHalf(inputDesc[0].type);
        for (int32_t i = 1; i < 3; ++i)
        {
            nvinfer1::Dims const& d = inputDesc[i].dims;
            agree = agree && d.nbDims == 3 && d.d[0] == c2c.d[0] && d.d[1] == c2c.d[1]
                && d.d[2] == 2 * static_cast<int64_t>(mSpan) && inputDesc[i].type == inputDesc[0].type;
        }
        nvinfer1::Dims const& out = outputDesc[0].dims;
        agree = agree && out.nbDims == 3 && std::equal(c2c.d, c2c.d + 3, out.d)
            && outputDesc[0].type == inputDesc[0].type;
        if (!agree)
        {
            logError(mLabel.c_str(),
                "c2c and the output must be [BN, S, S], c2p and p2c [BN, S, "
                    + std::to_string(2 * static_cast<int64_t>(mSpan))
                    + "], all of one type, kFLOAT or kHALF; nothing was computed");
        }
        return agree;
    }

    DisentangledAttentionParams paramsFor(nvinfer1::PluginTensorDesc const* inputDesc) const noexcept
    {
        return DisentangledAttentionParams{mSpan, mFactor, inputDesc[0].dims.d[0], inputDesc[0].dims.d[1]};
    }

    int32_t mSpan;
    float mFactor;
    std::string mLabel;
    std::vector<PluginField> mSerialized;
    nvinfer1::PluginFieldCollection mCollection{};
};

template <typename T>
void disentangledAttentionHost(
    DisentangledAttentionParams const& params, void const* c2c, void const* c2p, void const* p2c, void* out)
{
    auto* y = static_cast<T*>(out);
    int64_t const count = params.outputCount();
    for (int64_t i = 0; i < count; ++i)
    {
        HostStore{}(y + i,
            disentangledAttentionValue(params, static_cast<T const*>(c2c), static_cast<T const*>(c2p),
                static_cast<T const*>(p2c), i, HostLoad{}));
    }
}

} // namespace

void runDisentangledAttentionHost(DisentangledAttentionParams const& params, DataType type, void const* c2c,
    void const* c2p, void const* p2c, void* out)
{
    if (type == DataType::kHALF)
    {
        disentangledAttentionHost<uint16_t>(params, c2c, c2p, p2c, out);
    }
    else
    {
        disentangledAttentionHost<float>(params, c2c, c2p, p2c, out);
    }
}

DisentangledAttentionCreator::DisentangledAttentionCreator()
    : StandardCreator({PluginField{"span", nullptr, PluginFieldType::kINT32, 1},
        PluginField{"factor", nullptr, PluginFieldType::kFLOAT32, 1}})
{
}

nvinfer1::IPluginV3* DisentangledAttentionCreator::createPlugin(
    char const* /*name*/, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase /*phase*/) noexcept
{
    try
    {
        std::string const label = pluginLabel(kDisentangledAttentionName, kDisentangledAttentionVersion, mNamespace);
        FieldReader const fields(label.c_str(), fc);
        constexpr int32_t kAbsent = std::numeric_limits<int32_t>::min();
        int32_t span = kAbsent;
        float factor = std::numeric_limits<float>::quiet_NaN();
        if (!fields.readInt("span", span) || !fields.readFloat("factor", factor))
        {
            return nullptr;
        }
        std::string problem;
        if (span == kAbsent || factor != factor)
        {
            problem = "the fields span and factor are required";
        }
        else if (span <= 0)
        {
            problem = "span is " + std::to_string(span) + "; it must be positive";
        }
        else if (!(factor > 0.0F && factor < 1.0F))
        {
            problem = "factor is " + std::to_string(factor) + "; it must be in (0, 1) (1 / sqrt(3 * head size))";
        }
        if (!problem.empty())
        {
            logError(label.c_str(), problem);
            return nullptr;
        }
        return new DisentangledAttentionPlugin(mNamespace, span, factor);
    }
    catch (...)
    {
        return nullptr;
    }
}

} // namespace kiln::plugins
