// SPDX-License-Identifier: Apache-2.0
// CropAndResizeDynamic version "1": the legacy IPluginV2DynamicExt form that TensorRT 10.16 still registers beside its
// IPluginV3 version "2" (crop_and_resize.h); the same inputs, output, fields and arithmetic (crop_and_resize_math.h).
#include "crop_and_resize.h"

#include "standard_plugin_v2.h"

#include <cstring>

KILN_IGNORE_DEPRECATED_BEGIN

namespace kiln::plugins
{

namespace
{

using nvinfer1::DataType;
using nvinfer1::PluginField;
using nvinfer1::PluginFieldType;
using nvinfer1::PluginTensorDesc;

class CropAndResizeLegacyPlugin final : public StandardPluginV2
{
public:
    CropAndResizeLegacyPlugin(std::string pluginNamespace, CropAndResizeParams const& params)
        : StandardPluginV2(std::move(pluginNamespace))
        , mParams(params)
    {
    }

    char const* getPluginType() const noexcept override { return kCropAndResizeName; }
    char const* getPluginVersion() const noexcept override { return kCropAndResizeLegacyVersion; }
    int32_t getNbOutputs() const noexcept override { return 1; }

    nvinfer1::IPluginV2DynamicExt* clone() const noexcept override
    {
        try
        {
            return new CropAndResizeLegacyPlugin(*this);
        }
        catch (...)
        {
            return nullptr;
        }
    }

    DataType getOutputDataType(
        int32_t /*index*/, DataType const* /*inputTypes*/, int32_t /*nbInputs*/) const noexcept override
    {
        return DataType::kFLOAT;
    }

    nvinfer1::DimsExprs getOutputDimensions(int32_t outputIndex, nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override
    {
        nvinfer1::DimsExprs out{};
        out.nbDims = -1;
        if (outputIndex != 0 || nbInputs != 2 || inputs[0].nbDims != 4 || inputs[1].nbDims < 3 || inputs[1].nbDims > 4)
        {
            logError(kCropAndResizeName,
                "version 1 takes X [N, C, H, W] and rois [N, R, 4] (2 inputs) and has one output; it got "
                    + std::to_string(nbInputs) + " inputs");
            return out;
        }
        out.nbDims = 5;
        out.d[0] = inputs[0].d[0];
        out.d[1] = inputs[1].d[1];
        out.d[2] = inputs[0].d[1];
        out.d[3] = exprBuilder.constant(mParams.cropHeight);
        out.d[4] = exprBuilder.constant(mParams.cropWidth);
        return out;
    }

    bool supportsFormatCombination(
        int32_t pos, PluginTensorDesc const* inOut, int32_t /*nbInputs*/, int32_t /*nbOutputs*/) noexcept override
    {
        return inOut[pos].format == nvinfer1::TensorFormat::kLINEAR && inOut[pos].type == DataType::kFLOAT;
    }

    size_t getWorkspaceSize(PluginTensorDesc const* /*inputs*/, int32_t /*nbInputs*/,
        PluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const noexcept override
    {
        return 0;
    }

    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc, void const* const* inputs,
        void* const* outputs, void* /*workspace*/, cudaStream_t stream) noexcept override
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

    int32_t enqueueHost(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
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

protected:
    std::vector<PluginField> serializedFields() const override
    {
        return {PluginField{"crop_width", &mParams.cropWidth, PluginFieldType::kINT32, 1},
            PluginField{"crop_height", &mParams.cropHeight, PluginFieldType::kINT32, 1}};
    }

private:
    CropAndResizeLegacyPlugin(CropAndResizeLegacyPlugin const&) = default;

    bool shapesAgree(
        PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc, CropAndResizeParams& params) const
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
};

class CropAndResizeLegacyCreator final : public StandardCreatorV2
{
public:
    CropAndResizeLegacyCreator()
        : StandardCreatorV2({PluginField{"crop_width", nullptr, PluginFieldType::kINT32, 1},
            PluginField{"crop_height", nullptr, PluginFieldType::kINT32, 1}})
    {
    }

    char const* getPluginName() const noexcept override { return kCropAndResizeName; }
    char const* getPluginVersion() const noexcept override { return kCropAndResizeLegacyVersion; }

    nvinfer1::IPluginV2* createPlugin(char const* /*name*/, nvinfer1::PluginFieldCollection const* fc) noexcept override
    {
        try
        {
            CropAndResizeParams params;
            return readCropAndResizeFields(fc, params) ? new CropAndResizeLegacyPlugin(mNamespace, params) : nullptr;
        }
        catch (...)
        {
            return nullptr;
        }
    }
};

} // namespace

std::unique_ptr<StandardCreatorV2> makeCropAndResizeLegacyCreator()
{
    return std::make_unique<CropAndResizeLegacyCreator>();
}

} // namespace kiln::plugins

KILN_IGNORE_DEPRECATED_END
