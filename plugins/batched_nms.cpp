// SPDX-License-Identifier: Apache-2.0
#include "batched_nms.h"

#include "batched_nms_fields.h"
#include "elements.h"
#include "standard_plugin_v2.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <limits>

KILN_IGNORE_DEPRECATED_BEGIN

namespace kiln::plugins
{

namespace
{

using nvinfer1::DataType;
using nvinfer1::DimsExprs;
using nvinfer1::PluginField;
using nvinfer1::PluginFieldType;
using nvinfer1::PluginTensorDesc;

//! The fields in TensorRT's creator's order, with their types.
constexpr std::pair<char const*, PluginFieldType> kFields[] = {{"shareLocation", PluginFieldType::kINT32},
    {"backgroundLabelId", PluginFieldType::kINT32}, {"numClasses", PluginFieldType::kINT32},
    {"topK", PluginFieldType::kINT32}, {"keepTopK", PluginFieldType::kINT32},
    {"scoreThreshold", PluginFieldType::kFLOAT32}, {"iouThreshold", PluginFieldType::kFLOAT32},
    {"isNormalized", PluginFieldType::kINT32}, {"clipBoxes", PluginFieldType::kINT32},
    {"scoreBits", PluginFieldType::kINT32}, {"caffeSemantics", PluginFieldType::kINT32}};
//! The first seven are required, as TensorRT's creator requires them.
constexpr int kRequiredFields = 7;

class BatchedNmsDynamicPlugin final : public StandardPluginV2
{
public:
    BatchedNmsDynamicPlugin(std::string pluginNamespace, BatchedNmsParams const& params)
        : StandardPluginV2(std::move(pluginNamespace))
        , mParams(params)
    {
    }

    char const* getPluginType() const noexcept override { return kBatchedNmsDynamicName; }
    char const* getPluginVersion() const noexcept override { return kBatchedNmsVersion; }
    int32_t getNbOutputs() const noexcept override { return 4; }

    nvinfer1::IPluginV2DynamicExt* clone() const noexcept override
    {
        try
        {
            return new BatchedNmsDynamicPlugin(*this);
        }
        catch (...)
        {
            return nullptr;
        }
    }

    DataType getOutputDataType(int32_t index, DataType const* inputTypes, int32_t nbInputs) const noexcept override
    {
        return index == 0 || nbInputs < 1 ? DataType::kINT32 : inputTypes[0];
    }

    DimsExprs getOutputDimensions(int32_t outputIndex, DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override
    {
        DimsExprs out{};
        out.nbDims = -1;
        if (nbInputs != 2 || inputs[0].nbDims != 4 || inputs[1].nbDims < 3 || inputs[1].nbDims > 4 || outputIndex < 0
            || outputIndex > 3)
        {
            logError(kBatchedNmsDynamicName,
                "takes boxes [B, N, 1 or numClasses, 4] and scores [B, N, numClasses] (2 inputs); it got "
                    + std::to_string(nbInputs) + " inputs");
            return out;
        }
        out.nbDims = outputIndex == 1 ? 3 : 2;
        out.d[0] = inputs[0].d[0];
        out.d[1] = exprBuilder.constant(outputIndex == 0 ? 1 : mParams.keepTopK);
        out.d[2] = exprBuilder.constant(4);
        return out;
    }

    bool supportsFormatCombination(
        int32_t pos, PluginTensorDesc const* inOut, int32_t /*nbInputs*/, int32_t /*nbOutputs*/) noexcept override
    {
        if (inOut[pos].format != nvinfer1::TensorFormat::kLINEAR)
        {
            return false;
        }
        if (pos == 2)
        {
            return inOut[pos].type == DataType::kINT32; // num_detections
        }
        return isFloatOrHalf(inOut[pos].type) && inOut[pos].type == inOut[0].type;
    }

    size_t getWorkspaceSize(PluginTensorDesc const* inputs, int32_t nbInputs, PluginTensorDesc const* outputs,
        int32_t nbOutputs) const noexcept override
    {
#ifdef KILN_PLUGINS_CUDA
        BatchedNmsParams params;
        if (nbInputs == 2 && nbOutputs == 4 && paramsFor(inputs, outputs, params))
        {
            return batchedNmsWorkspaceSize(params);
        }
#else
        static_cast<void>(inputs), static_cast<void>(nbInputs), static_cast<void>(outputs);
        static_cast<void>(nbOutputs);
#endif
        return 0;
    }

    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc, void const* const* inputs,
        void* const* outputs, void* workspace, cudaStream_t stream) noexcept override
    {
        BatchedNmsParams params;
        if (!checkedParams(inputDesc, outputDesc, params))
        {
            return -1;
        }
#ifdef KILN_PLUGINS_CUDA
        cudaError_t const status
            = launchBatchedNms(params, inputDesc[0].type, inputs[0], inputs[1], outputs, workspace, stream);
        if (status != cudaSuccess)
        {
            logError(kBatchedNmsDynamicName,
                std::string("the CUDA kernels failed to launch: ") + cudaGetErrorString(status));
            return -1;
        }
        return 0;
#else
        static_cast<void>(inputs), static_cast<void>(outputs), static_cast<void>(workspace);
        static_cast<void>(stream);
        logError(kBatchedNmsDynamicName, "this build of the standard plugin library has no CUDA kernels");
        return -1;
#endif
    }

    int32_t enqueueHost(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* /*workspace*/) noexcept override
    {
        BatchedNmsParams params;
        if (!checkedParams(inputDesc, outputDesc, params))
        {
            return -1;
        }
        try
        {
            runBatchedNmsHost(params, inputDesc[0].type, inputs[0], inputs[1], outputs);
        }
        catch (...)
        {
            logError(kBatchedNmsDynamicName, "out of host memory");
            return -1;
        }
        return 0;
    }

protected:
    std::vector<PluginField> serializedFields() const override
    {
        return batchedNmsFieldValues(mParams, mSerialized);
    }

private:
    BatchedNmsDynamicPlugin(BatchedNmsDynamicPlugin const&) = default;

    //! The attributes with the extents of these tensors; false when they do not fit together.
    bool paramsFor(PluginTensorDesc const* in, PluginTensorDesc const* out, BatchedNmsParams& params) const noexcept
    {
        params = mParams;
        nvinfer1::Dims const& boxes = in[0].dims;
        nvinfer1::Dims const& scores = in[1].dims;
        int64_t const classes = mParams.numClasses;
        if (boxes.nbDims != 4 || boxes.d[2] != (mParams.shareLocation ? 1 : classes) || boxes.d[3] != 4
            || scores.nbDims < 3 || scores.nbDims > 4 || (scores.nbDims == 4 && scores.d[3] != 1)
            || scores.d[0] != boxes.d[0] || scores.d[1] != boxes.d[1] || scores.d[2] != classes)
        {
            return false;
        }
        params.batch = boxes.d[0];
        params.boxes = boxes.d[1];
        // Sort keys hold 32-bit indices, and the CUDA sorts count all images' elements in an int.
        int64_t const limit = std::numeric_limits<int32_t>::max();
        if (params.batch < 0 || params.boxes < 0 || params.boxes * classes > limit
            || (params.boxes > 0 && params.batch > limit / (params.boxes * classes)))
        {
            return false;
        }
        int64_t const kept = mParams.keepTopK;
        auto const is = [](nvinfer1::Dims const& d, std::initializer_list<int64_t> extents) {
            return d.nbDims == static_cast<int32_t>(extents.size()) && std::equal(extents.begin(), extents.end(), d.d);
        };
        return is(out[0].dims, {params.batch, 1}) && is(out[1].dims, {params.batch, kept, 4})
            && is(out[2].dims, {params.batch, kept}) && is(out[3].dims, {params.batch, kept});
    }

    bool checkedParams(PluginTensorDesc const* in, PluginTensorDesc const* out, BatchedNmsParams& params) const
    {
        if (!paramsFor(in, out, params))
        {
            logError(kBatchedNmsDynamicName,
                "the tensors of this run do not have the shapes its fields imply (boxes [B, N, 1 or numClasses, 4], "
                "scores [B, N, numClasses], outputs of keepTopK rows, at most 2^31 scores); nothing was computed");
            return false;
        }
        return true;
    }

    BatchedNmsParams mParams;
    mutable std::array<int32_t, 4> mSerialized{}; //!< The boolean fields as the kINT32 values serialize() writes.
};

template <typename T>
void batchedNmsHost(BatchedNmsParams const& p, void const* boxesIn, void const* scoresIn, void* const* outputs)
{
    HostLoad const load;
    auto const* boxes = static_cast<T const*>(boxesIn);
    auto const* scores = static_cast<T const*>(scoresIn);
    auto const store = [](T* out, float v) {
        if constexpr (sizeof(T) == 2)
        {
            *out = floatToHalf(v);
        }
        else
        {
            *out = v;
        }
    };
    int64_t const kept = p.keepTopK;
    int64_t const classes = p.numClasses;
    int64_t const perClass = p.perClass();
    auto* count = static_cast<int32_t*>(outputs[0]);
    auto* outBoxes = static_cast<T*>(outputs[1]);
    auto* outScores = static_cast<T*>(outputs[2]);
    auto* outClasses = static_cast<T*>(outputs[3]);
    for (int64_t i = 0; i < p.batch * kept; ++i)
    {
        for (int k = 0; k < 4; ++k)
        {
            store(outBoxes + i * 4 + k, 0.0F);
        }
        store(outScores + i, 0.0F);
        store(outClasses + i, -1.0F);
    }
    std::vector<uint64_t> keys;
    std::vector<uint64_t> merged;
    std::vector<NmsBox> candidates;
    std::vector<char> suppressed;
    std::vector<int64_t> ranks(static_cast<size_t>(classes * perClass)); // The box of rank r in class c: [c, r].
    for (int64_t image = 0; image < p.batch; ++image)
    {
        merged.clear();
        auto const score = [&](int64_t n, int64_t c) { return load(scores[(image * p.boxes + n) * classes + c]); };
        for (int64_t c = 0; c < classes; ++c)
        {
            keys.clear();
            for (int64_t n = 0; n < p.boxes; ++n)
            {
                if (batchedNmsCandidate(p, score(n, c), c))
                {
                    keys.push_back(scoreOrderKey(score(n, c), static_cast<uint32_t>(n)));
                }
            }
            std::sort(keys.begin(), keys.end());
            size_t const m = std::min(keys.size(), static_cast<size_t>(perClass));
            candidates.resize(m);
            for (size_t j = 0; j < m; ++j)
            {
                candidates[j] = batchedNmsBox(p, boxes, image, keyElement(keys[j]), c, load);
            }
            suppressed.assign(m, 0);
            for (size_t i = 0; i < m; ++i)
            {
                if (suppressed[i] != 0)
                {
                    continue;
                }
                int64_t const n = keyElement(keys[i]);
                merged.push_back(scoreOrderKey(score(n, c), static_cast<uint32_t>(c * perClass + i)));
                for (size_t j = i + 1; j < m; ++j)
                {
                    if (suppressed[j] == 0 && batchedNmsIou(p, candidates[i], candidates[j]) > p.iouThreshold)
                    {
                        suppressed[j] = 1;
                    }
                }
            }
            for (size_t j = 0; j < m; ++j)
            {
                ranks[static_cast<size_t>(c * perClass) + j] = keyElement(keys[j]);
            }
        }
        std::sort(merged.begin(), merged.end());
        int64_t const found = std::min<int64_t>(static_cast<int64_t>(merged.size()), kept);
        for (int64_t d = 0; d < found; ++d)
        {
            uint32_t const element = keyElement(merged[static_cast<size_t>(d)]);
            int64_t const c = element / perClass;
            int64_t const n = ranks[element];
            NmsBox const b = batchedNmsBox(p, boxes, image, n, c, load);
            T* box = outBoxes + (image * kept + d) * 4;
            store(box + 0, batchedNmsOutputCoordinate(p, b.c0));
            store(box + 1, batchedNmsOutputCoordinate(p, b.c1));
            store(box + 2, batchedNmsOutputCoordinate(p, b.c2));
            store(box + 3, batchedNmsOutputCoordinate(p, b.c3));
            store(outScores + image * kept + d, score(n, c));
            store(outClasses + image * kept + d, static_cast<float>(c));
        }
        count[image] = static_cast<int32_t>(found);
    }
}

class BatchedNmsDynamicCreator final : public StandardCreatorV2
{
public:
    BatchedNmsDynamicCreator()
        : StandardCreatorV2(declaredBatchedNmsFields())
    {
    }

    char const* getPluginName() const noexcept override { return kBatchedNmsDynamicName; }
    char const* getPluginVersion() const noexcept override { return kBatchedNmsVersion; }

    nvinfer1::IPluginV2* createPlugin(char const* /*name*/, nvinfer1::PluginFieldCollection const* fc) noexcept override
    {
        try
        {
            BatchedNmsParams p;
            return readBatchedNmsFields(kBatchedNmsDynamicName, fc, p) ? new BatchedNmsDynamicPlugin(mNamespace, p)
                                                                       : nullptr;
        }
        catch (...)
        {
            return nullptr;
        }
    }
};

} // namespace

bool readBatchedNmsFields(char const* plugin, nvinfer1::PluginFieldCollection const* fc, BatchedNmsParams& p)
{
    for (int i = 0; i < kRequiredFields; ++i)
    {
        if (!hasField(fc, kFields[i].first))
        {
            logError(plugin, std::string("field ") + kFields[i].first + " is required");
            return false;
        }
    }
    FieldReader const fields(plugin, fc);
    int32_t flags[4] = {1, 1, 1, 1}; // shareLocation, isNormalized, clipBoxes, caffeSemantics
    if (!fields.readInt("shareLocation", flags[0]) || !fields.readInt("backgroundLabelId", p.backgroundLabelId)
        || !fields.readInt("numClasses", p.numClasses) || !fields.readInt("topK", p.topK)
        || !fields.readInt("keepTopK", p.keepTopK) || !fields.readFloat("scoreThreshold", p.scoreThreshold)
        || !fields.readFloat("iouThreshold", p.iouThreshold) || !fields.readInt("isNormalized", flags[1])
        || !fields.readInt("clipBoxes", flags[2]) || !fields.readInt("scoreBits", p.scoreBits)
        || !fields.readInt("caffeSemantics", flags[3]))
    {
        return false;
    }
    std::string problem;
    if (std::any_of(std::begin(flags), std::end(flags), [](int32_t f) { return f != 0 && f != 1; }))
    {
        problem = "shareLocation, isNormalized, clipBoxes and caffeSemantics are " + std::to_string(flags[0]) + ", "
            + std::to_string(flags[1]) + ", " + std::to_string(flags[2]) + " and " + std::to_string(flags[3])
            + "; each must be 0 or 1";
    }
    else if (p.numClasses <= 0)
    {
        problem = "numClasses is " + std::to_string(p.numClasses) + "; it must be positive";
    }
    else if (p.topK <= 0 || p.topK > kBatchedNmsMaxTopK)
    {
        problem = "topK is " + std::to_string(p.topK) + "; it must be 1 to " + std::to_string(kBatchedNmsMaxTopK);
    }
    else if (p.keepTopK <= 0 || p.keepTopK > p.topK)
    {
        problem
            = "keepTopK is " + std::to_string(p.keepTopK) + "; it must be 1 to topK (" + std::to_string(p.topK) + ")";
    }
    else if (p.scoreThreshold != p.scoreThreshold || p.iouThreshold != p.iouThreshold)
    {
        problem = "scoreThreshold and iouThreshold must be numbers";
    }
    if (!problem.empty())
    {
        logError(plugin, problem);
        return false;
    }
    p.shareLocation = flags[0] == 1;
    p.isNormalized = flags[1] == 1;
    p.clipBoxes = flags[2] == 1;
    p.caffeSemantics = flags[3] == 1;
    return true;
}

std::vector<PluginField> declaredBatchedNmsFields()
{
    std::vector<PluginField> fields;
    for (auto const& [name, type] : kFields)
    {
        fields.push_back(PluginField{name, nullptr, type, 1});
    }
    return fields;
}

std::vector<PluginField> batchedNmsFieldValues(BatchedNmsParams const& params, std::array<int32_t, 4>& flags)
{
    flags = {params.shareLocation ? 1 : 0, params.isNormalized ? 1 : 0, params.clipBoxes ? 1 : 0,
        params.caffeSemantics ? 1 : 0};
    void const* const values[]
        = {&flags[0], &params.backgroundLabelId, &params.numClasses, &params.topK, &params.keepTopK,
            &params.scoreThreshold, &params.iouThreshold, &flags[1], &flags[2], &params.scoreBits, &flags[3]};
    std::vector<PluginField> fields;
    for (size_t i = 0; i < std::size(kFields); ++i)
    {
        fields.push_back(PluginField{kFields[i].first, values[i], kFields[i].second, 1});
    }
    return fields;
}

void runBatchedNmsHost(
    BatchedNmsParams const& params, DataType type, void const* boxes, void const* scores, void* const* outputs)
{
    if (type == DataType::kHALF)
    {
        batchedNmsHost<uint16_t>(params, boxes, scores, outputs);
    }
    else
    {
        batchedNmsHost<float>(params, boxes, scores, outputs);
    }
}

std::unique_ptr<StandardCreatorV2> makeBatchedNmsDynamicCreator()
{
    return std::make_unique<BatchedNmsDynamicCreator>();
}

} // namespace kiln::plugins

KILN_IGNORE_DEPRECATED_END
