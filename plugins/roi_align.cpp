// SPDX-License-Identifier: Apache-2.0
#include "roi_align.h"

#include "elements.h"

namespace kiln::plugins
{

namespace
{

using nvinfer1::DataType;
using nvinfer1::PluginField;
using nvinfer1::PluginFieldType;

class RoiAlignPlugin final : public StandardPlugin
{
public:
    RoiAlignPlugin(std::string pluginNamespace, RoiAlignParams const& params)
        : StandardPlugin(std::move(pluginNamespace))
        , mParams(params)
    {
    }

    nvinfer1::IPluginV3* clone() noexcept override
    {
        try
        {
            return new RoiAlignPlugin(*this);
        }
        catch (...)
        {
            return nullptr;
        }
    }

    char const* getPluginName() const noexcept override { return kRoiAlignName; }
    char const* getPluginVersion() const noexcept override { return kRoiAlignVersion; }

    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::DimsExprs const* /*shapeInputs*/, int32_t /*nbShapeInputs*/, nvinfer1::DimsExprs* outputs,
        int32_t nbOutputs, nvinfer1::IExprBuilder& exprBuilder) noexcept override
    {
        if (nbInputs != 3 || nbOutputs != 1 || inputs[0].nbDims != 4 || inputs[1].nbDims != 2 || inputs[2].nbDims != 1)
        {
            logError(kRoiAlignName,
                "takes X [N, C, H, W], rois [R, 4] and batch_indices [R] (3 inputs), and has one "
                "output; it got "
                    + std::to_string(nbInputs) + " inputs");
            return -1;
        }
        if ((inputs[1].d[1]->isConstant() && inputs[1].d[1]->getConstantValue() != 4))
        {
            logError(kRoiAlignName,
                "rois must be [R, 4]; its second extent is " + std::to_string(inputs[1].d[1]->getConstantValue()));
            return -1;
        }
        outputs[0].nbDims = 4;
        outputs[0].d[0] = inputs[1].d[0];
        outputs[0].d[1] = inputs[0].d[1];
        outputs[0].d[2] = exprBuilder.constant(mParams.outputHeight);
        outputs[0].d[3] = exprBuilder.constant(mParams.outputWidth);
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
        if (pos == 0)
        {
            return isFloatOrHalf(desc.type);
        }
        if (pos == 2)
        {
            return desc.type == DataType::kINT32;
        }
        return desc.type == inOut[0].desc.type; // rois and the output: X's type.
    }

    int32_t onShapeChange(nvinfer1::PluginTensorDesc const* in, int32_t nbInputs,
        nvinfer1::PluginTensorDesc const* /*out*/, int32_t /*nbOutputs*/) noexcept override
    {
        // The run's shapes, checked once before enqueue reads them.
        if (nbInputs != 3 || in[0].dims.nbDims != 4 || in[1].dims.nbDims != 2 || in[1].dims.d[1] != 4
            || in[2].dims.nbDims != 1 || in[2].dims.d[0] != in[1].dims.d[0])
        {
            logError(kRoiAlignName,
                "needs X [N, C, H, W], rois [R, 4] and batch_indices [R]; rois has "
                    + std::to_string(nbInputs > 1 ? in[1].dims.nbDims : 0) + " dimensions");
            return -1;
        }
        return 0;
    }

    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* /*workspace*/, cudaStream_t stream) noexcept override
    {
        if (!shapesAgree(inputDesc, outputDesc))
        {
            return -1;
        }
#ifdef KILN_PLUGINS_CUDA
        RoiAlignParams const params = paramsFor(inputDesc);
        if (params.outputCount() == 0)
        {
            return 0;
        }
        cudaError_t const status = launchRoiAlign(params, inputDesc[0].type, inputs[0], inputs[1],
            static_cast<int32_t const*>(inputs[2]), outputs[0], stream);
        if (status != cudaSuccess)
        {
            logError(kRoiAlignName, std::string("the CUDA kernel failed to launch: ") + cudaGetErrorString(status));
            return -1;
        }
        return 0;
#else
        static_cast<void>(inputDesc), static_cast<void>(inputs), static_cast<void>(outputs), static_cast<void>(stream);
        logError(kRoiAlignName, "this build of the standard plugin library has no CUDA kernels");
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
        runRoiAlignHost(paramsFor(inputDesc), inputDesc[0].type, inputs[0], inputs[1],
            static_cast<int32_t const*>(inputs[2]), outputs[0]);
        return 0;
    }

    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {
        mSerialized.aligned = mParams.halfPixel ? 1 : 0;
        mSerialized.mode = mParams.maxMode ? 0 : 1;
        mFields = {PluginField{"coordinate_transformation_mode", &mSerialized.aligned, PluginFieldType::kINT32, 1},
            PluginField{"mode", &mSerialized.mode, PluginFieldType::kINT32, 1},
            PluginField{"output_height", &mParams.outputHeight, PluginFieldType::kINT32, 1},
            PluginField{"output_width", &mParams.outputWidth, PluginFieldType::kINT32, 1},
            PluginField{"sampling_ratio", &mParams.samplingRatio, PluginFieldType::kINT32, 1},
            PluginField{"spatial_scale", &mParams.spatialScale, PluginFieldType::kFLOAT32, 1}};
        mCollection = {static_cast<int32_t>(mFields.size()), mFields.data()};
        return &mCollection;
    }

private:
    RoiAlignPlugin(RoiAlignPlugin const& other)
        : StandardPlugin(other)
        , mParams(other.mParams)
    {
    }

    //! Whether this run's tensors have the shapes the attributes and X, rois and batch indices imply (X [N, C, H, W],
    //! rois [R, 4], batch indices [R], Y [R, C, output_height, output_width]); logs what differs otherwise. A plan
    //! whose recorded output shape disagrees with its fields (a corrupted or hostile one) is refused here rather than
    //! written past.
    bool shapesAgree(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc) const
    {
        nvinfer1::Dims const& x = inputDesc[0].dims;
        nvinfer1::Dims const& rois = inputDesc[1].dims;
        nvinfer1::Dims const& batch = inputDesc[2].dims;
        nvinfer1::Dims const& y = outputDesc[0].dims;
        bool const agree = x.nbDims == 4 && rois.nbDims == 2 && rois.d[1] == 4 && batch.nbDims == 1
            && batch.d[0] == rois.d[0] && y.nbDims == 4 && y.d[0] == rois.d[0] && y.d[1] == x.d[1]
            && y.d[2] == mParams.outputHeight && y.d[3] == mParams.outputWidth;
        if (!agree)
        {
            logError(kRoiAlignName,
                "the tensors of this run do not have the shapes its attributes imply (X [N, C, H, W], rois [R, 4], "
                "batch_indices [R], Y [R, C, output_height, output_width]); nothing was computed");
        }
        return agree;
    }

    //! The attributes with the extents of this run.
    RoiAlignParams paramsFor(nvinfer1::PluginTensorDesc const* inputDesc) const noexcept
    {
        RoiAlignParams params = mParams;
        params.batch = inputDesc[0].dims.d[0];
        params.channels = inputDesc[0].dims.d[1];
        params.height = inputDesc[0].dims.d[2];
        params.width = inputDesc[0].dims.d[3];
        params.rois = inputDesc[1].dims.d[0];
        return params;
    }

    RoiAlignParams mParams;
    struct
    {
        int32_t aligned{};
        int32_t mode{};
    } mSerialized;
    std::vector<PluginField> mFields;
    nvinfer1::PluginFieldCollection mCollection{};
};

template <typename T>
void roiAlignHost(RoiAlignParams const& params, void const* x, void const* rois, int32_t const* batchIndices, void* y)
{
    auto* out = static_cast<T*>(y);
    int64_t const count = params.outputCount();
    for (int64_t i = 0; i < count; ++i)
    {
        float const v
            = roiAlignValue(params, static_cast<T const*>(x), static_cast<T const*>(rois), batchIndices, i, HostLoad{});
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

} // namespace

void runRoiAlignHost(
    RoiAlignParams const& params, DataType type, void const* x, void const* rois, int32_t const* batchIndices, void* y)
{
    if (type == DataType::kHALF)
    {
        roiAlignHost<uint16_t>(params, x, rois, batchIndices, y);
    }
    else
    {
        roiAlignHost<float>(params, x, rois, batchIndices, y);
    }
}

RoiAlignCreator::RoiAlignCreator()
    : StandardCreator({PluginField{"coordinate_transformation_mode", nullptr, PluginFieldType::kINT32, 1},
        PluginField{"mode", nullptr, PluginFieldType::kINT32, 1},
        PluginField{"output_height", nullptr, PluginFieldType::kINT32, 1},
        PluginField{"output_width", nullptr, PluginFieldType::kINT32, 1},
        PluginField{"sampling_ratio", nullptr, PluginFieldType::kINT32, 1},
        PluginField{"spatial_scale", nullptr, PluginFieldType::kFLOAT32, 1}})
{
}

nvinfer1::IPluginV3* RoiAlignCreator::createPlugin(
    char const* /*name*/, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase /*phase*/) noexcept
{
    try
    {
        FieldReader const fields(kRoiAlignName, fc);
        int32_t aligned = 1;
        int32_t mode = 1;
        RoiAlignParams params;
        if (!fields.readInt("coordinate_transformation_mode", aligned) || !fields.readInt("mode", mode)
            || !fields.readInt("output_height", params.outputHeight)
            || !fields.readInt("output_width", params.outputWidth)
            || !fields.readInt("sampling_ratio", params.samplingRatio)
            || !fields.readFloat("spatial_scale", params.spatialScale))
        {
            return nullptr;
        }
        std::string problem;
        if (aligned != 0 && aligned != 1)
        {
            problem = "coordinate_transformation_mode is " + std::to_string(aligned)
                + "; it must be 1 (half_pixel) or 0 (output_half_pixel)";
        }
        else if (mode != 0 && mode != 1)
        {
            problem = "mode is " + std::to_string(mode) + "; it must be 1 (avg) or 0 (max)";
        }
        else if (params.outputHeight <= 0 || params.outputWidth <= 0)
        {
            problem = "output_height and output_width are " + std::to_string(params.outputHeight) + " and "
                + std::to_string(params.outputWidth) + "; they must be positive";
        }
        else if (params.samplingRatio < 0 || params.samplingRatio > kMaxSamplingGrid)
        {
            problem = "sampling_ratio is " + std::to_string(params.samplingRatio) + "; it must be 0 (adaptive) to "
                + std::to_string(kMaxSamplingGrid);
        }
        else if (!(params.spatialScale > 0.0F))
        {
            problem = "spatial_scale is " + std::to_string(params.spatialScale) + "; it must be positive";
        }
        if (!problem.empty())
        {
            logError(kRoiAlignName, problem);
            return nullptr;
        }
        params.halfPixel = aligned == 1;
        params.maxMode = mode == 0;
        return new RoiAlignPlugin(mNamespace, params);
    }
    catch (...)
    {
        return nullptr;
    }
}

} // namespace kiln::plugins
