// SPDX-License-Identifier: Apache-2.0
#include "emb_layer_norm.h"

#include "bert_common.h"

#include <algorithm>

namespace kiln::plugins
{

namespace
{

using nvinfer1::DataType;
using nvinfer1::PluginField;
using nvinfer1::PluginFieldType;

//! The fields of one plugin, the tables as floats.
struct EmbLayerNormFields
{
    std::vector<float> beta;
    std::vector<float> gamma;
    std::vector<float> word;
    std::vector<float> token;
    std::vector<float> position;
    int32_t outputFp16{};
    int32_t fullMask{};
    int32_t mhaTypeId{};

    int32_t ld() const { return static_cast<int32_t>(beta.size()); }
    DataType type() const { return outputFp16 != 0 ? DataType::kHALF : DataType::kFLOAT; }
};

class EmbLayerNormPlugin final : public StandardPlugin
{
public:
    EmbLayerNormPlugin(std::string pluginNamespace, EmbLayerNormFields fields)
        : StandardPlugin(std::move(pluginNamespace))
        , mFields(std::move(fields))
        , mLabel(pluginLabel(kEmbLayerNormName, kEmbLayerNormVersion, mNamespace))
    {
    }

    nvinfer1::IPluginV3* clone() noexcept override
    {
        try
        {
            return new EmbLayerNormPlugin(*this);
        }
        catch (...)
        {
            return nullptr;
        }
    }

    char const* getPluginName() const noexcept override { return kEmbLayerNormName; }
    char const* getPluginVersion() const noexcept override { return kEmbLayerNormVersion; }
    int32_t getNbOutputs() const noexcept override { return 2; }

    int32_t getOutputDataTypes(DataType* outputTypes, int32_t nbOutputs, DataType const* /*inputTypes*/,
        int32_t nbInputs) const noexcept override
    {
        if (nbOutputs != 2 || nbInputs != 3)
        {
            logError(mLabel.c_str(), "has 3 inputs and 2 outputs");
            return -1;
        }
        outputTypes[0] = mFields.type();
        outputTypes[1] = DataType::kINT32;
        return 0;
    }

    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::DimsExprs const* /*shapeInputs*/, int32_t /*nbShapeInputs*/, nvinfer1::DimsExprs* outputs,
        int32_t nbOutputs, nvinfer1::IExprBuilder& exprBuilder) noexcept override
    {
        if (nbInputs != 3 || nbOutputs != 2 || inputs[0].nbDims != 2 || inputs[1].nbDims != 2 || inputs[2].nbDims != 2)
        {
            logError(mLabel.c_str(),
                "takes input_ids, segment_ids and input_mask, each [S, B] (3 inputs of 2 dimensions), and has 2 "
                "outputs; it got "
                    + std::to_string(nbInputs) + " inputs");
            return -1;
        }
        outputs[0].nbDims = 5;
        outputs[0].d[0] = inputs[0].d[0];
        outputs[0].d[1] = inputs[0].d[1];
        outputs[0].d[2] = exprBuilder.constant(mFields.ld());
        outputs[0].d[3] = exprBuilder.constant(1);
        outputs[0].d[4] = exprBuilder.constant(1);
        outputs[1].nbDims = 2;
        outputs[1].d[0] = inputs[0].d[1];
        outputs[1].d[1] = exprBuilder.constant(1);
        return 0;
    }

    bool supportsFormatCombination(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t /*nbInputs*/,
        int32_t /*nbOutputs*/) noexcept override
    {
        nvinfer1::PluginTensorDesc const& desc = inOut[pos].desc;
        return desc.format == nvinfer1::TensorFormat::kLINEAR
            && desc.type == (pos == 3 ? mFields.type() : DataType::kINT32);
    }

    int32_t onShapeChange(nvinfer1::PluginTensorDesc const* in, int32_t nbInputs, nvinfer1::PluginTensorDesc const* out,
        int32_t nbOutputs) noexcept override
    {
        return nbInputs == 3 && nbOutputs == 2 && shapesAgree(in, out) ? 0 : -1;
    }

    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* /*workspace*/, cudaStream_t stream) noexcept override
    {
        if (!shapesAgree(inputDesc, outputDesc))
        {
            return -1;
        }
#ifdef KILN_PLUGINS_CUDA
        EmbLayerNormParams const params = paramsFor(inputDesc);
        if (params.batch == 0)
        {
            return 0;
        }
        cudaError_t status = cudaSuccess;
        EmbLayerNormWeights weights;
        DeviceFloats* devices[] = {&mWordDevice, &mTokenDevice, &mPositionDevice, &mGammaDevice, &mBetaDevice};
        std::vector<float> const* hosts[]
            = {&mFields.word, &mFields.token, &mFields.position, &mFields.gamma, &mFields.beta};
        float const** targets[] = {&weights.word, &weights.token, &weights.position, &weights.gamma, &weights.beta};
        for (size_t i = 0; i < 5 && status == cudaSuccess; ++i)
        {
            *targets[i] = devices[i]->upload(*hosts[i], stream, status);
        }
        if (status == cudaSuccess)
        {
            status = launchEmbLayerNorm(params, mFields.type(), static_cast<int32_t const*>(inputs[0]),
                static_cast<int32_t const*>(inputs[1]), static_cast<int32_t const*>(inputs[2]), weights, outputs[0],
                static_cast<int32_t*>(outputs[1]), stream);
        }
        if (status != cudaSuccess)
        {
            logError(mLabel.c_str(), std::string("the CUDA kernels failed to launch: ") + cudaGetErrorString(status));
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
        runEmbLayerNormHost(paramsFor(inputDesc), mFields.type(), static_cast<int32_t const*>(inputs[0]),
            static_cast<int32_t const*>(inputs[1]), static_cast<int32_t const*>(inputs[2]), hostWeights(), outputs[0],
            static_cast<int32_t*>(outputs[1]));
        return 0;
    }

    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {
        auto weights = [](char const* name, std::vector<float> const& v) {
            return PluginField{name, v.data(), PluginFieldType::kFLOAT32, static_cast<int32_t>(v.size())};
        };
        mSerialized = {weights("bert_embeddings_layernorm_beta", mFields.beta),
            weights("bert_embeddings_layernorm_gamma", mFields.gamma),
            weights("bert_embeddings_word_embeddings", mFields.word),
            weights("bert_embeddings_token_type_embeddings", mFields.token),
            weights("bert_embeddings_position_embeddings", mFields.position),
            PluginField{"output_fp16", &mFields.outputFp16, PluginFieldType::kINT32, 1},
            PluginField{"full_mask", &mFields.fullMask, PluginFieldType::kINT32, 1},
            PluginField{"mha_type_id", &mFields.mhaTypeId, PluginFieldType::kINT32, 1}};
        mCollection = {static_cast<int32_t>(mSerialized.size()), mSerialized.data()};
        return &mCollection;
    }

private:
    EmbLayerNormPlugin(EmbLayerNormPlugin const& other)
        : StandardPlugin(other)
        , mFields(other.mFields)
        , mLabel(other.mLabel)
    {
    }

    EmbLayerNormWeights hostWeights() const noexcept
    {
        return {mFields.word.data(), mFields.token.data(), mFields.position.data(), mFields.gamma.data(),
            mFields.beta.data()};
    }

    //! Whether this run's tensors are the three [S, B] kINT32 inputs, [S, B, E, 1, 1] and [B, 1] kINT32; logs what
    //! differs otherwise (a corrupted plan is refused here rather than read or written past).
    bool shapesAgree(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc) const
    {
        nvinfer1::Dims const& ids = inputDesc[0].dims;
        bool agree = ids.nbDims == 2 && ids.d[0] >= 0 && ids.d[1] >= 0;
        for (int32_t i = 0; i < 3; ++i)
        {
            agree = agree && inputDesc[i].type == DataType::kINT32 && inputDesc[i].dims.nbDims == 2
                && inputDesc[i].dims.d[0] == ids.d[0] && inputDesc[i].dims.d[1] == ids.d[1];
        }
        nvinfer1::Dims const& out = outputDesc[0].dims;
        nvinfer1::Dims const& index = outputDesc[1].dims;
        agree = agree && isSequenceFirst5d(out, mFields.ld()) && out.d[0] == ids.d[0] && out.d[1] == ids.d[1]
            && outputDesc[0].type == mFields.type() && outputDesc[1].type == DataType::kINT32 && index.nbDims == 2
            && index.d[0] == ids.d[1] && index.d[1] == 1;
        if (!agree)
        {
            logError(mLabel.c_str(),
                "input_ids, segment_ids and input_mask must be kINT32 [S, B], and the outputs [S, B, "
                    + std::to_string(mFields.ld()) + ", 1, 1] and kINT32 [B, 1]; nothing was computed");
        }
        return agree;
    }

    EmbLayerNormParams paramsFor(nvinfer1::PluginTensorDesc const* inputDesc) const noexcept
    {
        auto const ld = static_cast<int64_t>(mFields.ld());
        return EmbLayerNormParams{inputDesc[0].dims.d[0], inputDesc[0].dims.d[1], mFields.ld(),
            static_cast<int64_t>(mFields.word.size()) / ld, static_cast<int64_t>(mFields.token.size()) / ld,
            static_cast<int64_t>(mFields.position.size()) / ld};
    }

    EmbLayerNormFields mFields;
    std::string mLabel;
    std::vector<PluginField> mSerialized;
    nvinfer1::PluginFieldCollection mCollection{};
#ifdef KILN_PLUGINS_CUDA
    DeviceFloats mWordDevice;
    DeviceFloats mTokenDevice;
    DeviceFloats mPositionDevice;
    DeviceFloats mGammaDevice;
    DeviceFloats mBetaDevice;
#endif
};

template <typename T>
void embLayerNormHost(EmbLayerNormParams const& params, int32_t const* ids, int32_t const* segments,
    EmbLayerNormWeights const& weights, void* out)
{
    for (int64_t row = 0; row < params.seq * params.batch; ++row)
    {
        embLayerNormRow(params, ids, segments, weights, static_cast<T*>(out), row, kBertLayerNormEpsilon, HostStore{});
    }
}

//! The names of the five weights fields, in the creator's order.
constexpr char const* kWeightNames[] = {"bert_embeddings_layernorm_beta", "bert_embeddings_layernorm_gamma",
    "bert_embeddings_word_embeddings", "bert_embeddings_token_type_embeddings", "bert_embeddings_position_embeddings"};

} // namespace

void runEmbLayerNormHost(EmbLayerNormParams const& params, DataType type, int32_t const* ids, int32_t const* segments,
    int32_t const* mask, EmbLayerNormWeights const& weights, void* out, int32_t* maskIndex)
{
    if (type == DataType::kHALF)
    {
        embLayerNormHost<uint16_t>(params, ids, segments, weights, out);
    }
    else
    {
        embLayerNormHost<float>(params, ids, segments, weights, out);
    }
    for (int64_t b = 0; b < params.batch; ++b)
    {
        maskIndex[b] = embMaskIndex(params, mask, b);
    }
}

EmbLayerNormCreator::EmbLayerNormCreator()
    : StandardCreator({PluginField{kWeightNames[0], nullptr, PluginFieldType::kFLOAT32, 0},
        PluginField{kWeightNames[1], nullptr, PluginFieldType::kFLOAT32, 0},
        PluginField{kWeightNames[2], nullptr, PluginFieldType::kFLOAT32, 0},
        PluginField{kWeightNames[3], nullptr, PluginFieldType::kFLOAT32, 0},
        PluginField{kWeightNames[4], nullptr, PluginFieldType::kFLOAT32, 0},
        PluginField{"output_fp16", nullptr, PluginFieldType::kINT32, 1},
        PluginField{"full_mask", nullptr, PluginFieldType::kINT32, 1},
        PluginField{"mha_type_id", nullptr, PluginFieldType::kINT32, 1}})
{
}

nvinfer1::IPluginV3* EmbLayerNormCreator::createPlugin(
    char const* /*name*/, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase /*phase*/) noexcept
{
    try
    {
        std::string const label = pluginLabel(kEmbLayerNormName, kEmbLayerNormVersion, mNamespace);
        FieldReader const fields(label.c_str(), fc);
        EmbLayerNormFields plugin;
        std::vector<float>* tables[] = {&plugin.beta, &plugin.gamma, &plugin.word, &plugin.token, &plugin.position};
        std::string missing;
        for (size_t i = 0; i < 5; ++i)
        {
            bool present = false;
            if (!readWeightsField(label.c_str(), fc, kWeightNames[i], *tables[i], present))
            {
                return nullptr;
            }
            if (!present)
            {
                missing += std::string(missing.empty() ? "" : ", ") + kWeightNames[i];
            }
        }
        if (!fields.readInt("output_fp16", plugin.outputFp16) || !fields.readInt("full_mask", plugin.fullMask)
            || !fields.readInt("mha_type_id", plugin.mhaTypeId))
        {
            return nullptr;
        }
        std::string problem;
        auto const ld = static_cast<size_t>(plugin.ld());
        if (!missing.empty())
        {
            problem = "the weights " + missing + " are required";
        }
        else if (plugin.gamma.size() != ld)
        {
            problem = "bert_embeddings_layernorm_gamma has " + std::to_string(plugin.gamma.size())
                + " elements; it must have as many as bert_embeddings_layernorm_beta (" + std::to_string(ld) + ")";
        }
        else if (plugin.word.size() % ld != 0 || plugin.token.size() % ld != 0 || plugin.position.size() % ld != 0)
        {
            problem = "the word, token type and position embeddings must be whole rows of the hidden size "
                + std::to_string(ld) + "; they have " + std::to_string(plugin.word.size()) + ", "
                + std::to_string(plugin.token.size()) + " and " + std::to_string(plugin.position.size()) + " elements";
        }
        else if (plugin.outputFp16 != 0 && plugin.outputFp16 != 1)
        {
            problem = "output_fp16 is " + std::to_string(plugin.outputFp16) + "; it must be 0 or 1";
        }
        else if (plugin.fullMask != 0)
        {
            problem = "full_mask is " + std::to_string(plugin.fullMask)
                + "; kiln gives only the unfused mask index [B, 1] (full_mask 0), having none of TensorRT's fused "
                  "attention kernels that read the packed mask";
        }
        else if (plugin.mhaTypeId < 0 || plugin.mhaTypeId > 3)
        {
            problem = "mha_type_id is " + std::to_string(plugin.mhaTypeId) + "; it must be 0 to 3";
        }
        if (!problem.empty())
        {
            logError(label.c_str(), problem);
            return nullptr;
        }
        if (plugin.mhaTypeId != 0)
        {
            logWarning(label.c_str(),
                "mha_type_id " + std::to_string(plugin.mhaTypeId)
                    + " is accepted and ignored: it picks the type of the mask TensorRT's fused attention kernels read, "
                      "and kiln's mask index output is always kINT32 [B, 1]");
        }
        if (plugin.outputFp16 != 0)
        {
            roundToHalf(plugin.word);
            roundToHalf(plugin.token);
            roundToHalf(plugin.position);
        }
        return new EmbLayerNormPlugin(mNamespace, std::move(plugin));
    }
    catch (...)
    {
        return nullptr;
    }
}

} // namespace kiln::plugins
