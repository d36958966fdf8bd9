// SPDX-License-Identifier: Apache-2.0
#include "crop_and_resize.h"

#include "elements.h"

#include <cstring>

namespace kiln::plugins
{

namespace
{

using nvinfer1::DataType;
using nvinfer1::PluginField;
using nvinfer1::PluginFieldType;

class CropAndResizePlugin final : public StandardPlugin
{
public:
    CropAndResizePlugin(std::string pluginNamespace, CropAndResizeParams const& params)
        : StandardPlugin(std::move(pluginNamespace))
        , mParams(params)
    {
    }

    nvinfer1::IPluginV3* clone() noexcept override
    {
        try
        {
            return new CropAndResizePlugin(*this);
        }
        catch (...)
        {
            return nullptr;
        }
    }

    char const* getPluginName() const noexcept override { return kCropAndResizeName; }
    char const* getPluginVersion() const noexcept override { return kCropAndResizeVersion; }

    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::DimsExprs const* /*shapeInputs*/, int32_t /*nbShapeInputs*/, nvinfer1::DimsExprs* outputs,
        int32_t nbOutputs, nvinfer1::IExprBuilder& exprBuilder) noexcept override
    {
        if (nbInputs != 2 || nbOutputs != 1 || inputs[0].nbDims != 4 || inputs[1].nbDims < 3 || inputs[1].nbDims > 4)
        {
            logError(kCropAndResizeName,
                "takes X [N, C, H, W] and rois [N, R, 4] (2 inputs) and has one output; it got "
                    + std::to_string(nbInputs) + " inputs");
            return -1;
        }
        outputs[0].nbDims = 5;
        outputs[0].d[0] = inputs[0].d[0];
        outputs[0].d[1] = inputs[1].d[1];
        outputs[0].d[2] = inputs[0].d[1];
        outputs[0].d[3] = exprBuilder.constant(mParams.cropHeight);
        outputs[0].d[4] = exprBuilder.constant(mParams.cropWidth);
        return 0;
    }

    bool supportsFormatCombination(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t /*nbInputs*/,
        int32_t /*nbOutputs*/) noexcept override
    {
        return inOut[pos].desc.format == nvinfer1::TensorFormat::kLINEAR && inOut[pos].desc.type == DataType::kFLOAT;
    }

    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* /*workspace*/, cudaStream_t stream) noexcept override
    {
        CropAndResizeParams params;
        if (!shapesAgree(inputDesc, outputDesc, params))
        {
            return -1;
        }
#ifdef KILN_PLUGINS_CUDA
        cudaError_t const status = launchCropAndResize(params, static_cast<float const*>(inputs[0]),
            static_cast<float const*>(inputs[1]), static_cast<float*>(outputs[0]), stream);
        if (status != cudaSuccess)
        {
            logError(
                kCropAndResizeName, std::string("the CUDA kernel failed to launch: ") + cudaGetErrorString(status));
            return -1;
        }
        return 0;
#else
        static_cast<void>(inputs), static_cast<void>(outputs), static_cast<void>(stream);
        logError(kCropAndResizeName, "this build of the standard plugin library has no CUDA kernels");
        return -1;
#endif
    }

    int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* /*workspace*/) noexcept override
    {
        CropAndResizeParams params;
        if (!shapesAgree(inputDesc, outputDesc, params))
        {
            return -1;
        }
        runCropAndResizeHost(params, static_cast<float const*>(inputs[0]), static_cast<float const*>(inputs[1]),
            static_cast<float*>(outputs[0]));
        return 0;
    }

    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {
        mFields = {PluginField{"crop_width", &mParams.cropWidth, PluginFieldType::kINT32, 1},
            PluginField{"crop_height", &mParams.cropHeight, PluginFieldType::kINT32, 1}};
        mCollection = {static_cast<int32_t>(mFields.size()), mFields.data()};
        return &mCollection;
    }

private:
    CropAndResizePlugin(CropAndResizePlugin const& other)
        : StandardPlugin(other)
        , mParams(other.mParams)
    {
    }

    bool shapesAgree(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        CropAndResizeParams& params) const
    {
        if (!cropAndResizeShapes(mParams, inputDesc[0].dims, inputDesc[1].dims, outputDesc[0].dims, params))
        {
            logError(kCropAndResizeName,
                "the tensors of this run do not have the shapes its fields imply (X [N, C, H, W], rois [N, R, 4], "
                "Y [N, R, C, crop_height, crop_width]); nothing was computed");
            return false;
        }
        return true;
    }

    CropAndResizeParams mParams;
    std::vector<PluginField> mFields;
    nvinfer1::PluginFieldCollection mCollection{};
};

} // namespace

void runCropAndResizeHost(CropAndResizeParams const& params, float const* x, float const* rois, float* y)
{
    int64_t const count = params.outputCount();
    for (int64_t i = 0; i < count; ++i)
    {
        y[i] = cropAndResizeValue(params, x, rois, i, HostLoad{});
    }
}

CropAndResizeCreator::CropAndResizeCreator()
    : StandardCreator({PluginField{"crop_width", nullptr, PluginFieldType::kINT32, 1},
        PluginField{"crop_height", nullptr, PluginFieldType::kINT32, 1}})
{
}

bool cropAndResizeShapes(CropAndResizeParams const& params, nvinfer1::Dims const& x, nvinfer1::Dims const& rois,
    nvinfer1::Dims const& y, CropAndResizeParams& run)
{
    bool const agree = x.nbDims == 4 && (rois.nbDims == 3 || (rois.nbDims == 4 && rois.d[3] == 1))
        && rois.d[0] == x.d[0] && rois.d[2] == 4 && y.nbDims == 5 && y.d[0] == x.d[0] && y.d[1] == rois.d[1]
        && y.d[2] == x.d[1] && y.d[3] == params.cropHeight && y.d[4] == params.cropWidth;
    if (agree)
    {
        run = params;
        run.batch = x.d[0];
        run.channels = x.d[1];
        run.height = x.d[2];
        run.width = x.d[3];
        run.boxes = rois.d[1];
    }
    return agree;
}

bool readCropAndResizeFields(nvinfer1::PluginFieldCollection const* fc, CropAndResizeParams& params)
{
    for (char const* required : {"crop_width", "crop_height"})
    {
        if (!hasField(fc, required))
        {
            logError(kCropAndResizeName, std::string("field ") + required + " is required");
            return false;
        }
    }
    FieldReader const fields(kCropAndResizeName, fc);
    if (!fields.readInt("crop_width", params.cropWidth) || !fields.readInt("crop_height", params.cropHeight))
    {
        return false;
    }
    if (params.cropWidth <= 0 || params.cropHeight <= 0)
    {
        logError(kCropAndResizeName,
            "crop_width and crop_height are " + std::to_string(params.cropWidth) + " and "
                + std::to_string(params.cropHeight) + "; they must be positive");
        return false;
    }
    return true;
}

nvinfer1::IPluginV3* CropAndResizeCreator::createPlugin(
    char const* /*name*/, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase /*phase*/) noexcept
{
    try
    {
        CropAndResizeParams params;
        return readCropAndResizeFields(fc, params) ? new CropAndResizePlugin(mNamespace, params) : nullptr;
    }
    catch (...)
    {
        return nullptr;
    }
}

} // namespace kiln::plugins
