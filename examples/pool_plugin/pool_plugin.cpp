// SPDX-License-Identifier: Apache-2.0
// PoolPlugin: see pool_plugin.h. configurePlugin() takes the per-tensor scales from PluginTensorDesc::scale (as the
// guide's PoolPlugin does), getFieldsToSerialize() stores them with the pooling attributes, and onShapeChange() takes
// the image extents of the coming enqueue.
#include "pool_plugin.h"

#include "element_types.h"
#include "example_common.h"
#include "kiln/plugin_host.h"

#ifdef KILN_EXAMPLE_CUDA
#include "pool_kernel.h"
#endif

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace nvinfer1;

namespace
{

constexpr char const* kName = "PoolPlugin";
constexpr char const* kVersion = "1";
constexpr char const* kNamespace = "example";

//! The pooling: the attributes (mode, window) and the extents of the current images.
struct PoolingParams
{
    int32_t mMode{};      //!< 0: max, 1: average.
    int32_t mWindow[2]{}; //!< Window (and stride) height and width.
    int64_t mN{};         //!< Batch.
    int64_t mC{};         //!< Channels.
    int64_t mH{};         //!< Input height.
    int64_t mW{};         //!< Input width.
    int64_t mP{};         //!< Output height.
    int64_t mQ{};         //!< Output width.
};

bool isQuantized(DataType type)
{
    return type == DataType::kINT8 || type == DataType::kFP8;
}

#ifdef KILN_EXAMPLE_CUDA
PoolElement toPoolElement(DataType type)
{
    switch (type)
    {
    case DataType::kHALF: return PoolElement::kHALF;
    case DataType::kBF16: return PoolElement::kBF16;
    case DataType::kFP8: return PoolElement::kFP8;
    case DataType::kINT8: return PoolElement::kINT8;
    default: return PoolElement::kFLOAT;
    }
}
#endif

class PoolPlugin final : public IPluginV3,
                         public IPluginV3OneCore,
                         public IPluginV3OneBuild,
                         public IPluginV3OneRuntime,
                         public kiln::IPluginV3OneHost
{
public:
    PoolPlugin(int32_t mode, int32_t windowHeight, int32_t windowWidth, float inScale, float outScale)
        : mInHostScale(inScale)
        , mOutHostScale(outScale)
    {
        mPoolingParams.mMode = mode;
        mPoolingParams.mWindow[0] = windowHeight;
        mPoolingParams.mWindow[1] = windowWidth;
    }

    // ---- IPluginV3 ----
    IPluginCapability* getCapabilityInterface(PluginCapabilityType type) noexcept override
    {
        if (type == PluginCapabilityType::kCORE)
        {
            return static_cast<IPluginV3OneCore*>(this);
        }
        if (type == PluginCapabilityType::kBUILD)
        {
            return static_cast<IPluginV3OneBuild*>(this);
        }
        if (type == PluginCapabilityType::kRUNTIME)
        {
            return static_cast<IPluginV3OneRuntime*>(this);
        }
        if (type == kiln::kPLUGIN_CAPABILITY_HOST)
        {
            return static_cast<kiln::IPluginV3OneHost*>(this);
        }
        return nullptr;
    }

    IPluginV3* clone() noexcept override
    {
        try
        {
            return new PoolPlugin(*this);
        }
        catch (...)
        {
            return nullptr;
        }
    }

    // ---- IPluginV3OneCore ----
    char const* getPluginName() const noexcept override { return kName; }
    char const* getPluginVersion() const noexcept override { return kVersion; }
    char const* getPluginNamespace() const noexcept override { return kNamespace; }

    // ---- IPluginV3OneBuild ----
    int32_t getNbOutputs() const noexcept override { return 1; }

    int32_t getOutputDataTypes(DataType* outputTypes, int32_t /*nbOutputs*/, DataType const* inputTypes,
        int32_t /*nbInputs*/) const noexcept override
    {
        outputTypes[0] = inputTypes[0];
        return 0;
    }

    int32_t getOutputShapes(DimsExprs const* inputs, int32_t nbInputs, DimsExprs const* /*shapeInputs*/,
        int32_t /*nbShapeInputs*/, DimsExprs* outputs, int32_t /*nbOutputs*/,
        IExprBuilder& exprBuilder) noexcept override
    {
        if (nbInputs != 1 || inputs[0].nbDims != 4)
        {
            example::logError(kName, "expects one 4-D input [N, C, H, W]");
            return -1;
        }
        outputs[0] = inputs[0];
        for (int32_t axis = 0; axis < 2; ++axis) // [N, C, H / window height, W / window width]
        {
            outputs[0].d[2 + axis] = exprBuilder.operation(DimensionOperation::kFLOOR_DIV, *inputs[0].d[2 + axis],
                *exprBuilder.constant(mPoolingParams.mWindow[axis]));
        }
        return 0;
    }

    bool supportsFormatCombination(int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t /*nbInputs*/,
        int32_t /*nbOutputs*/) noexcept override
    {
        PluginTensorDesc const& desc = inOut[pos].desc;
        bool const typeOk = desc.type == DataType::kFLOAT || desc.type == DataType::kHALF
            || desc.type == DataType::kBF16 || desc.type == DataType::kFP8 || desc.type == DataType::kINT8;
        return desc.format == TensorFormat::kLINEAR && typeOk && desc.type == inOut[0].desc.type;
    }

    int32_t configurePlugin(DynamicPluginTensorDesc const* in, int32_t /*nbInputs*/, DynamicPluginTensorDesc const* out,
        int32_t /*nbOutputs*/) noexcept override
    {
        mInHostScale = in[0].desc.scale >= 0.0F ? in[0].desc.scale : -1.0F;
        mOutHostScale = out[0].desc.scale >= 0.0F ? out[0].desc.scale : -1.0F;
        if (isQuantized(in[0].desc.type) && !(mInHostScale > 0.0F && mOutHostScale > 0.0F))
        {
            example::logError(kName, "quantized input and output need positive scales (set their dynamic ranges)");
            return -1;
        }
        return 0;
    }

    // ---- IPluginV3OneRuntime ----
    int32_t onShapeChange(PluginTensorDesc const* in, int32_t /*nbInputs*/, PluginTensorDesc const* out,
        int32_t /*nbOutputs*/) noexcept override
    {
        mPoolingParams.mN = in[0].dims.d[0];
        mPoolingParams.mC = in[0].dims.d[1];
        mPoolingParams.mH = in[0].dims.d[2];
        mPoolingParams.mW = in[0].dims.d[3];
        mPoolingParams.mP = out[0].dims.d[2];
        mPoolingParams.mQ = out[0].dims.d[3];
        mType = in[0].type;
        // The scales the engine passes now must be the ones configurePlugin() saw at build time.
        if (isQuantized(mType) && (in[0].scale != mInHostScale || out[0].scale != mOutHostScale))
        {
            example::logError(kName,
                "the tensors' scales changed since the build: input " + std::to_string(in[0].scale) + " (built with "
                    + std::to_string(mInHostScale) + "), output " + std::to_string(out[0].scale) + " (built with "
                    + std::to_string(mOutHostScale) + ")");
            return -1;
        }
        return 0;
    }

    int32_t enqueue(PluginTensorDesc const* /*inputDesc*/, PluginTensorDesc const* /*outputDesc*/,
        void const* const* inputs, void* const* outputs, void* /*workspace*/, cudaStream_t stream) noexcept override
    {
#ifdef KILN_EXAMPLE_CUDA
        PoolingParams const& p = mPoolingParams;
        PoolShape const shape{
            p.mN * p.mC, p.mH, p.mW, p.mWindow[0], p.mWindow[1], p.mMode == 1, mInHostScale, mOutHostScale};
        cudaError_t const status = launchPool(inputs[0], outputs[0], toPoolElement(mType), shape, stream);
        return status == cudaSuccess ? 0 : -1;
#else
        (void)inputs, (void)outputs, (void)stream;
        return example::noCudaKernel(kName);
#endif
    }

    IPluginV3* attachToContext(IPluginResourceContext* /*context*/) noexcept override
    {
        return clone();
    }

    PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {
        mScales[0] = mInHostScale;
        mScales[1] = mOutHostScale;
        mFields.clear();
        mFields.emplace_back("mode", &mPoolingParams.mMode, PluginFieldType::kINT32, 1);
        mFields.emplace_back("window", mPoolingParams.mWindow, PluginFieldType::kINT32, 2);
        mFields.emplace_back("scales", mScales, PluginFieldType::kFLOAT32, 2);
        mFieldCollection.nbFields = static_cast<int32_t>(mFields.size());
        mFieldCollection.fields = mFields.data();
        return &mFieldCollection;
    }

    // ---- kiln::IPluginV3OneHost: the same pooling on host memory ----
    int32_t enqueueHost(PluginTensorDesc const* /*inputDesc*/, PluginTensorDesc const* /*outputDesc*/,
        void const* const* inputs, void* const* outputs, void* /*workspace*/) noexcept override
    {
        PoolingParams const& p = mPoolingParams;
        int64_t const windowHeight = p.mWindow[0];
        int64_t const windowWidth = p.mWindow[1];
        for (int64_t plane = 0; plane < p.mN * p.mC; ++plane)
        {
            for (int64_t row = 0; row < p.mP; ++row)
            {
                for (int64_t column = 0; column < p.mQ; ++column)
                {
                    float result = p.mMode == 1 ? 0.0F : -INFINITY;
                    for (int64_t i = 0; i < windowHeight; ++i)
                    {
                        for (int64_t j = 0; j < windowWidth; ++j)
                        {
                            int64_t const at
                                = (plane * p.mH + row * windowHeight + i) * p.mW + column * windowWidth + j;
                            float const value = example::loadElement(inputs[0], mType, at, mInHostScale);
                            result = p.mMode == 1 ? result + value : std::fmax(result, value);
                        }
                    }
                    if (p.mMode == 1)
                    {
                        result /= static_cast<float>(windowHeight * windowWidth);
                    }
                    example::storeElement(
                        outputs[0], mType, (plane * p.mP + row) * p.mQ + column, result, mOutHostScale);
                }
            }
        }
        return 0;
    }

private:
    PoolingParams mPoolingParams;
    float mInHostScale{-1.0F};
    float mOutHostScale{-1.0F};
    DataType mType{DataType::kFLOAT};
    float mScales[2]{};
    std::vector<PluginField> mFields;
    PluginFieldCollection mFieldCollection{};
};

class PoolPluginCreator final : public IPluginCreatorV3One
{
public:
    PoolPluginCreator()
    {
        mFieldNames.emplace_back("mode", nullptr, PluginFieldType::kINT32, 1);
        mFieldNames.emplace_back("window", nullptr, PluginFieldType::kINT32, 2);
        mFieldCollection.nbFields = static_cast<int32_t>(mFieldNames.size());
        mFieldCollection.fields = mFieldNames.data();
    }

    IPluginV3* createPlugin(
        char const* /*name*/, PluginFieldCollection const* fc, TensorRTPhase phase) noexcept override
    {
        PluginField const* mode = example::findField(fc, "mode", PluginFieldType::kINT32, 1);
        PluginField const* window = example::findField(fc, "window", PluginFieldType::kINT32, 2);
        PluginField const* scales = example::findField(fc, "scales", PluginFieldType::kFLOAT32, 2);
        if (mode == nullptr || window == nullptr || (phase == TensorRTPhase::kRUNTIME && scales == nullptr))
        {
            example::logError(kName, "needs the fields mode (kINT32) and window (2 x kINT32), and scales at run time");
            return nullptr;
        }
        int32_t const modeValue = *static_cast<int32_t const*>(mode->data);
        auto const* windowValues = static_cast<int32_t const*>(window->data);
        if ((modeValue != 0 && modeValue != 1) || windowValues[0] < 1 || windowValues[1] < 1)
        {
            example::logError(kName, "mode must be 0 (max) or 1 (average), and the window at least 1 x 1");
            return nullptr;
        }
        auto const* scaleValues = scales != nullptr ? static_cast<float const*>(scales->data) : nullptr;
        try
        {
            return new PoolPlugin(modeValue, windowValues[0], windowValues[1],
                scaleValues != nullptr ? scaleValues[0] : -1.0F, scaleValues != nullptr ? scaleValues[1] : -1.0F);
        }
        catch (...)
        {
            return nullptr;
        }
    }

    PluginFieldCollection const* getFieldNames() noexcept override { return &mFieldCollection; }
    char const* getPluginName() const noexcept override { return kName; }
    char const* getPluginVersion() const noexcept override { return kVersion; }
    char const* getPluginNamespace() const noexcept override { return kNamespace; }

private:
    std::vector<PluginField> mFieldNames;
    PluginFieldCollection mFieldCollection{};
};

} // namespace

IPluginCreatorV3One& poolPluginCreator()
{
    static PoolPluginCreator creator;
    return creator;
}
