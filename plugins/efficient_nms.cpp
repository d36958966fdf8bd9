// SPDX-License-Identifier: Apache-2.0
#include "efficient_nms.h"

#include "elements.h"
#include "standard_plugin_v2.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>
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

//! The fields of EfficientNMS_TRT in its creator's order (TensorRT's).
constexpr char const* kStandardFields[] = {"score_threshold", "iou_threshold", "max_output_boxes", "background_class",
    "score_activation", "class_agnostic", "box_coding"};
//! The fields TensorRT's EfficientNMS_TRT creator requires.
constexpr char const* kRequiredFields[]
    = {"score_threshold", "iou_threshold", "max_output_boxes", "background_class", "score_activation", "box_coding"};
//! The fields of EfficientNMS_ONNX_TRT in its creator's order (TensorRT's).
constexpr char const* kOnnxFields[]
    = {"score_threshold", "iou_threshold", "max_output_boxes_per_class", "center_point_box"};

class EfficientNmsPlugin final : public StandardPluginV2
{
public:
    EfficientNmsPlugin(std::string pluginNamespace, EfficientNmsParams const& params)
        : StandardPluginV2(std::move(pluginNamespace))
        , mParams(params)
    {
    }

    char const* getPluginType() const noexcept override
    {
        return mParams.onnxIndices ? kEfficientNmsOnnxName : kEfficientNmsName;
    }
    char const* getPluginVersion() const noexcept override { return kEfficientNmsVersion; }
    int32_t getNbOutputs() const noexcept override { return mParams.onnxIndices ? 1 : 4; }

    nvinfer1::IPluginV2DynamicExt* clone() const noexcept override
    {
        try
        {
            return new EfficientNmsPlugin(*this);
        }
        catch (...)
        {
            return nullptr;
        }
    }

    DataType getOutputDataType(int32_t index, DataType const* inputTypes, int32_t nbInputs) const noexcept override
    {
        if (mParams.onnxIndices || index == 0 || index == 3 || nbInputs < 1)
        {
            return DataType::kINT32;
        }
        return inputTypes[0];
    }

    DimsExprs getOutputDimensions(int32_t outputIndex, DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override
    {
        DimsExprs out{};
        out.nbDims = -1;
        bool const inputsOk = mParams.onnxIndices ? nbInputs == 2 : (nbInputs == 2 || nbInputs == 3);
        if (!inputsOk || inputs[0].nbDims < 3 || inputs[0].nbDims > 4 || inputs[1].nbDims < 3 || inputs[1].nbDims > 4
            || outputIndex < 0 || outputIndex >= getNbOutputs())
        {
            logError(getPluginType(),
                std::string(mParams.onnxIndices ? "takes boxes [B, N, 4] and scores [B, N, C] (2 inputs)"
                                                : "takes boxes [B, N, 4] or [B, N, C, 4], scores [B, N, C] and "
                                                  "optionally anchors [1 or B, N, 4] (2 or 3 inputs)")
                    + "; it got " + std::to_string(nbInputs) + " inputs");
            return out;
        }
        nvinfer1::IDimensionExpr const* batch = inputs[0].d[0];
        nvinfer1::IDimensionExpr const* kept = exprBuilder.constant(mParams.maxOutputBoxes);
        if (mParams.onnxIndices)
        {
            out.nbDims = 2;
            out.d[0] = exprBuilder.operation(nvinfer1::DimensionOperation::kPROD, *batch, *kept);
            out.d[1] = exprBuilder.constant(3);
            return out;
        }
        out.d[0] = batch;
        out.d[1] = outputIndex == 0 ? exprBuilder.constant(1) : kept;
        out.nbDims = 2;
        if (outputIndex == 1)
        {
            out.nbDims = 3;
            out.d[2] = exprBuilder.constant(4);
        }
        return out;
    }

    bool supportsFormatCombination(
        int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t /*nbOutputs*/) noexcept override
    {
        if (inOut[pos].format != nvinfer1::TensorFormat::kLINEAR)
        {
            return false;
        }
        int32_t const output = pos - nbInputs;
        if (mParams.onnxIndices ? output == 0 : (output == 0 || output == 3))
        {
            return inOut[pos].type == DataType::kINT32;
        }
        return isFloatOrHalf(inOut[pos].type) && inOut[pos].type == inOut[0].type;
    }

    void configurePlugin(nvinfer1::DynamicPluginTensorDesc const* /*in*/, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* /*out*/, int32_t /*nbOutputs*/) noexcept override
    {
        mNbInputs = nbInputs;
    }

    size_t getWorkspaceSize(PluginTensorDesc const* inputs, int32_t nbInputs, PluginTensorDesc const* outputs,
        int32_t nbOutputs) const noexcept override
    {
#ifdef KILN_PLUGINS_CUDA
        EfficientNmsParams params;
        if (nbOutputs == getNbOutputs() && paramsFor(inputs, nbInputs, outputs, params))
        {
            return efficientNmsWorkspaceSize(params, inputs[0].type);
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
        EfficientNmsParams params;
        if (!checkedParams(inputDesc, outputDesc, params))
        {
            return -1;
        }
#ifdef KILN_PLUGINS_CUDA
        cudaError_t const status = launchEfficientNms(params, inputDesc[0].type, inputs[0], inputs[1],
            params.hasAnchors ? inputs[2] : nullptr, outputs, workspace, stream);
        if (status != cudaSuccess)
        {
            logError(getPluginType(), std::string("the CUDA kernels failed to launch: ") + cudaGetErrorString(status));
            return -1;
        }
        return 0;
#else
        static_cast<void>(inputs), static_cast<void>(outputs), static_cast<void>(workspace);
        static_cast<void>(stream);
        logError(getPluginType(), "this build of the standard plugin library has no CUDA kernels");
        return -1;
#endif
    }

    int32_t enqueueHost(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* /*workspace*/) noexcept override
    {
        EfficientNmsParams params;
        if (!checkedParams(inputDesc, outputDesc, params))
        {
            return -1;
        }
        try
        {
            runEfficientNmsHost(
                params, inputDesc[0].type, inputs[0], inputs[1], params.hasAnchors ? inputs[2] : nullptr, outputs);
        }
        catch (...)
        {
            logError(getPluginType(), "out of host memory");
            return -1;
        }
        return 0;
    }

protected:
    std::vector<PluginField> serializedFields() const override
    {
        mSerialized.scoreActivation = mParams.scoreActivation ? 1 : 0;
        mSerialized.classAgnostic = mParams.classAgnostic ? 1 : 0;
        EfficientNmsParams const& p = mParams;
        if (mParams.onnxIndices)
        {
            return {PluginField{kOnnxFields[0], &p.scoreThreshold, PluginFieldType::kFLOAT32, 1},
                PluginField{kOnnxFields[1], &p.iouThreshold, PluginFieldType::kFLOAT32, 1},
                PluginField{kOnnxFields[2], &p.maxOutputBoxesPerClass, PluginFieldType::kINT32, 1},
                PluginField{kOnnxFields[3], &p.boxCoding, PluginFieldType::kINT32, 1}};
        }
        return {PluginField{kStandardFields[0], &p.scoreThreshold, PluginFieldType::kFLOAT32, 1},
            PluginField{kStandardFields[1], &p.iouThreshold, PluginFieldType::kFLOAT32, 1},
            PluginField{kStandardFields[2], &p.maxOutputBoxes, PluginFieldType::kINT32, 1},
            PluginField{kStandardFields[3], &p.backgroundClass, PluginFieldType::kINT32, 1},
            PluginField{kStandardFields[4], &mSerialized.scoreActivation, PluginFieldType::kINT32, 1},
            PluginField{kStandardFields[5], &mSerialized.classAgnostic, PluginFieldType::kINT32, 1},
            PluginField{kStandardFields[6], &p.boxCoding, PluginFieldType::kINT32, 1}};
    }

private:
    EfficientNmsPlugin(EfficientNmsPlugin const&) = default;

    //! The attributes with the extents of these tensors; false when their ranks or extents do not fit together (a
    //! corrupted plan, or a run that was never configured).
    bool paramsFor(PluginTensorDesc const* in, int32_t nbInputs, PluginTensorDesc const* out,
        EfficientNmsParams& params) const noexcept
    {
        params = mParams;
        nvinfer1::Dims const& boxes = in[0].dims;
        nvinfer1::Dims const& scores = in[1].dims;
        if ((mParams.onnxIndices ? nbInputs != 2 : (nbInputs != 2 && nbInputs != 3)) || boxes.nbDims < 3
            || boxes.nbDims > 4 || boxes.d[boxes.nbDims - 1] != 4 || scores.nbDims < 3 || scores.nbDims > 4
            || (scores.nbDims == 4 && scores.d[3] != 1) || scores.d[0] != boxes.d[0] || scores.d[1] != boxes.d[1])
        {
            return false;
        }
        params.batch = boxes.d[0];
        params.boxes = boxes.d[1];
        params.classes = scores.d[2];
        params.boxPerClass = boxes.nbDims == 4 && boxes.d[2] != 1;
        if (params.boxPerClass && (boxes.d[2] != params.classes || mParams.onnxIndices))
        {
            return false;
        }
        params.hasAnchors = nbInputs == 3;
        if (params.hasAnchors)
        {
            nvinfer1::Dims const& anchors = in[2].dims;
            if (anchors.nbDims != 3 || (anchors.d[0] != 1 && anchors.d[0] != params.batch)
                || anchors.d[1] != params.boxes || anchors.d[2] != 4)
            {
                return false;
            }
            params.sharedAnchors = anchors.d[0] == 1;
        }
        // Element indices are 32-bit in the sort keys, and the CUDA sort counts all images' elements in an int.
        int64_t const limit = std::numeric_limits<int32_t>::max();
        if (params.batch < 0 || params.boxes < 0 || params.classes < 0 || params.elements() > limit
            || (params.elements() > 0 && params.batch > limit / params.elements()))
        {
            return false;
        }
        params.filterThreshold = efficientNmsFilterThreshold(mParams.scoreThreshold, mParams.scoreActivation);
        int64_t const kept = mParams.maxOutputBoxes;
        if (mParams.onnxIndices)
        {
            return out[0].dims.nbDims == 2 && out[0].dims.d[0] == params.batch * kept && out[0].dims.d[1] == 3;
        }
        auto const is = [](nvinfer1::Dims const& d, std::initializer_list<int64_t> extents) {
            return d.nbDims == static_cast<int32_t>(extents.size()) && std::equal(extents.begin(), extents.end(), d.d);
        };
        return is(out[0].dims, {params.batch, 1}) && is(out[1].dims, {params.batch, kept, 4})
            && is(out[2].dims, {params.batch, kept}) && is(out[3].dims, {params.batch, kept});
    }

    //! paramsFor() with this run's tensors; logs what is wrong otherwise.
    bool checkedParams(PluginTensorDesc const* in, PluginTensorDesc const* out, EfficientNmsParams& params) const
    {
        if (mNbInputs == 0)
        {
            logError(getPluginType(), "enqueue before configurePlugin: the number of inputs is not known");
            return false;
        }
        if (!paramsFor(in, mNbInputs, out, params))
        {
            logError(getPluginType(),
                "the tensors of this run do not have the shapes its fields imply (boxes [B, N, 4] or [B, N, C, 4], "
                "scores [B, N, C], anchors [1 or B, N, 4], outputs of max_output_boxes rows, at most 2^31 scores); "
                "nothing was computed");
            return false;
        }
        return true;
    }

    EfficientNmsParams mParams;
    int32_t mNbInputs{0};
    mutable struct
    {
        int32_t scoreActivation{};
        int32_t classAgnostic{};
    } mSerialized; //!< The boolean fields as the kINT32 values serialize() writes.
};

template <typename T>
void efficientNmsHost(
    EfficientNmsParams const& p, void const* boxesIn, void const* scoresIn, void const* anchorsIn, void* const* outputs)
{
    HostLoad const load;
    auto const* boxes = static_cast<T const*>(boxesIn);
    auto const* scores = static_cast<T const*>(scoresIn);
    auto const* anchors = static_cast<T const*>(anchorsIn);
    int64_t const elements = p.elements();
    int64_t const kept = p.maxOutputBoxes;
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
    std::vector<int32_t> rows; // The ONNX variant's (image, class, box) rows, image by image.
    if (!p.onnxIndices)
    {
        std::memset(outputs[0], 0, static_cast<size_t>(p.batch) * sizeof(int32_t));
        std::memset(outputs[1], 0, static_cast<size_t>(p.batch * kept * 4) * sizeof(T));
        std::memset(outputs[2], 0, static_cast<size_t>(p.batch * kept) * sizeof(T));
        std::memset(outputs[3], 0, static_cast<size_t>(p.batch * kept) * sizeof(int32_t));
    }
    std::vector<uint64_t> keys;
    std::vector<NmsBox> candidates;
    std::vector<char> suppressed;
    std::vector<int32_t> perClass;
    for (int64_t image = 0; image < p.batch; ++image)
    {
        keys.clear();
        for (int64_t e = 0; e < elements; ++e)
        {
            float const score = load(scores[image * elements + e]);
            if (efficientNmsCandidate(p, score, e))
            {
                keys.push_back(scoreOrderKey(score, static_cast<uint32_t>(e)));
            }
        }
        std::sort(keys.begin(), keys.end());
        size_t const n = std::min(keys.size(), static_cast<size_t>(kEfficientNmsMaxCandidates));
        candidates.resize(n);
        for (size_t j = 0; j < n; ++j)
        {
            candidates[j] = efficientNmsBox(p, boxes, anchors, image, keyElement(keys[j]), load);
        }
        suppressed.assign(n, 0);
        perClass.assign(static_cast<size_t>(p.classes), 0);
        int64_t written = 0;
        for (size_t i = 0; i < n && written < kept; ++i)
        {
            if (suppressed[i] != 0)
            {
                continue;
            }
            int64_t const element = keyElement(keys[i]);
            int64_t const cls = element % p.classes;
            for (size_t j = i + 1; j < n; ++j)
            {
                if (suppressed[j] == 0 && (p.classAgnostic || keyElement(keys[j]) % p.classes == cls)
                    && intersectionOverUnion(candidates[i], candidates[j]) >= p.iouThreshold)
                {
                    suppressed[j] = 1;
                }
            }
            if (p.maxOutputBoxesPerClass >= 0 && perClass[static_cast<size_t>(cls)]++ >= p.maxOutputBoxesPerClass)
            {
                continue; // Kept (it suppressed the boxes above) but over its class's limit: not written.
            }
            if (p.onnxIndices)
            {
                rows.insert(rows.end(),
                    {static_cast<int32_t>(image), static_cast<int32_t>(cls),
                        static_cast<int32_t>(element / p.classes)});
            }
            else
            {
                int64_t const slot = image * kept + written;
                NmsBox const& b = candidates[i];
                T* box = static_cast<T*>(outputs[1]) + slot * 4;
                store(box + 0, b.c0);
                store(box + 1, b.c1);
                store(box + 2, b.c2);
                store(box + 3, b.c3);
                float const raw = load(scores[image * elements + element]);
                store(static_cast<T*>(outputs[2]) + slot, efficientNmsOutputScore(p, raw));
                static_cast<int32_t*>(outputs[3])[slot] = static_cast<int32_t>(cls);
            }
            ++written;
        }
        if (!p.onnxIndices)
        {
            static_cast<int32_t*>(outputs[0])[image] = static_cast<int32_t>(written);
        }
    }
    if (p.onnxIndices)
    {
        auto* out = static_cast<int32_t*>(outputs[0]);
        size_t const total = static_cast<size_t>(p.batch * kept) * 3;
        for (size_t i = 0; i < total; ++i)
        {
            out[i] = rows.empty() ? -1 : (i < rows.size() ? rows[i] : rows[rows.size() - 3 + i % 3]);
        }
    }
}

//! The first of names that fc lacks, or nullptr.
template <size_t N>
char const* firstMissing(nvinfer1::PluginFieldCollection const* fc, char const* const (&names)[N])
{
    for (char const* name : names)
    {
        if (!hasField(fc, name))
        {
            return name;
        }
    }
    return nullptr;
}

std::vector<PluginField> declare(std::initializer_list<std::pair<char const*, PluginFieldType>> fields)
{
    std::vector<PluginField> declared;
    for (auto const& [name, type] : fields)
    {
        declared.push_back(PluginField{name, nullptr, type, 1});
    }
    return declared;
}

class EfficientNmsCreator final : public StandardCreatorV2
{
public:
    EfficientNmsCreator()
        : StandardCreatorV2(declare({{kStandardFields[0], PluginFieldType::kFLOAT32},
            {kStandardFields[1], PluginFieldType::kFLOAT32}, {kStandardFields[2], PluginFieldType::kINT32},
            {kStandardFields[3], PluginFieldType::kINT32}, {kStandardFields[4], PluginFieldType::kINT32},
            {kStandardFields[5], PluginFieldType::kINT32}, {kStandardFields[6], PluginFieldType::kINT32}}))
    {
    }

    char const* getPluginName() const noexcept override { return kEfficientNmsName; }
    char const* getPluginVersion() const noexcept override { return kEfficientNmsVersion; }

    nvinfer1::IPluginV2* createPlugin(char const* /*name*/, nvinfer1::PluginFieldCollection const* fc) noexcept override
    {
        try
        {
            if (char const* missing = firstMissing(fc, kRequiredFields))
            {
                logError(kEfficientNmsName, std::string("field ") + missing + " is required");
                return nullptr;
            }
            FieldReader const fields(kEfficientNmsName, fc);
            EfficientNmsParams p;
            int32_t activation = 0;
            int32_t agnostic = 0;
            if (!fields.readFloat("score_threshold", p.scoreThreshold)
                || !fields.readFloat("iou_threshold", p.iouThreshold)
                || !fields.readInt("max_output_boxes", p.maxOutputBoxes)
                || !fields.readInt("background_class", p.backgroundClass)
                || !fields.readInt("score_activation", activation) || !fields.readInt("class_agnostic", agnostic)
                || !fields.readInt("box_coding", p.boxCoding))
            {
                return nullptr;
            }
            std::string problem;
            if (!(p.scoreThreshold >= 0.0F))
            {
                problem = "score_threshold is " + std::to_string(p.scoreThreshold) + "; it must be >= 0";
            }
            else if (!(p.iouThreshold > 0.0F))
            {
                problem = "iou_threshold is " + std::to_string(p.iouThreshold) + "; it must be > 0";
            }
            else if (p.maxOutputBoxes <= 0)
            {
                problem = "max_output_boxes is " + std::to_string(p.maxOutputBoxes) + "; it must be positive";
            }
            else if ((activation != 0 && activation != 1) || (agnostic != 0 && agnostic != 1))
            {
                problem = "score_activation and class_agnostic are " + std::to_string(activation) + " and "
                    + std::to_string(agnostic) + "; each must be 0 or 1";
            }
            else if (p.boxCoding != 0 && p.boxCoding != 1)
            {
                problem = "box_coding is " + std::to_string(p.boxCoding)
                    + "; it must be 0 (corners) or 1 (centre and size)";
            }
            if (!problem.empty())
            {
                logError(kEfficientNmsName, problem);
                return nullptr;
            }
            p.scoreActivation = activation == 1;
            p.classAgnostic = agnostic == 1;
            return new EfficientNmsPlugin(mNamespace, p);
        }
        catch (...)
        {
            return nullptr;
        }
    }
};

class EfficientNmsOnnxCreator final : public StandardCreatorV2
{
public:
    EfficientNmsOnnxCreator()
        : StandardCreatorV2(
            declare({{kOnnxFields[0], PluginFieldType::kFLOAT32}, {kOnnxFields[1], PluginFieldType::kFLOAT32},
                {kOnnxFields[2], PluginFieldType::kINT32}, {kOnnxFields[3], PluginFieldType::kINT32}}))
    {
    }

    char const* getPluginName() const noexcept override { return kEfficientNmsOnnxName; }
    char const* getPluginVersion() const noexcept override { return kEfficientNmsVersion; }

    nvinfer1::IPluginV2* createPlugin(char const* /*name*/, nvinfer1::PluginFieldCollection const* fc) noexcept override
    {
        try
        {
            FieldReader const fields(kEfficientNmsOnnxName, fc);
            EfficientNmsParams p;
            if (!fields.readFloat("score_threshold", p.scoreThreshold)
                || !fields.readFloat("iou_threshold", p.iouThreshold)
                || !fields.readInt("max_output_boxes_per_class", p.maxOutputBoxesPerClass)
                || !fields.readInt("center_point_box", p.boxCoding))
            {
                return nullptr;
            }
            std::string problem;
            if (p.maxOutputBoxesPerClass <= 0)
            {
                problem = "max_output_boxes_per_class is " + std::to_string(p.maxOutputBoxesPerClass)
                    + "; it must be given, and positive";
            }
            else if (p.boxCoding != 0 && p.boxCoding != 1)
            {
                problem = "center_point_box is " + std::to_string(p.boxCoding)
                    + "; it must be 0 (corners) or 1 (centre and size)";
            }
            else if (p.scoreThreshold != p.scoreThreshold || p.iouThreshold != p.iouThreshold)
            {
                problem = "score_threshold and iou_threshold must be numbers";
            }
            if (!problem.empty())
            {
                logError(kEfficientNmsOnnxName, problem);
                return nullptr;
            }
            p.onnxIndices = true;
            p.maxOutputBoxes = p.maxOutputBoxesPerClass; // TensorRT's plugin: at most that many per image too.
            return new EfficientNmsPlugin(mNamespace, p);
        }
        catch (...)
        {
            return nullptr;
        }
    }
};

} // namespace

void runEfficientNmsHost(EfficientNmsParams const& params, DataType type, void const* boxes, void const* scores,
    void const* anchors, void* const* outputs)
{
    if (type == DataType::kHALF)
    {
        efficientNmsHost<uint16_t>(params, boxes, scores, anchors, outputs);
    }
    else
    {
        efficientNmsHost<float>(params, boxes, scores, anchors, outputs);
    }
}

std::unique_ptr<StandardCreatorV2> makeEfficientNmsCreator()
{
    return std::make_unique<EfficientNmsCreator>();
}

std::unique_ptr<StandardCreatorV2> makeEfficientNmsOnnxCreator()
{
    return std::make_unique<EfficientNmsOnnxCreator>();
}

} // namespace kiln::plugins

KILN_IGNORE_DEPRECATED_END
