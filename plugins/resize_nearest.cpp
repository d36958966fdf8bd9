// SPDX-License-Identifier: Apache-2.0
#include "resize_nearest.h"

#include "common.h"
#include "standard_plugin_v2.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

KILN_IGNORE_DEPRECATED_BEGIN

namespace kiln::plugins
{

namespace
{

using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::PluginField;
using nvinfer1::PluginFieldType;

//! The serialized plugin: scale, then the rank and the extents of the per-item input and output shapes (as
//! configurePlugin() gave them; enqueue(batchSize, ...) has no shapes of its own), all 4 bytes each.
constexpr size_t kMaxSerialized = sizeof(float) + sizeof(int32_t) * (1 + 2 * Dims::MAX_DIMS);

class ResizeNearestPlugin final : public nvinfer1::IPluginV2Ext
{
public:
    ResizeNearestPlugin(std::string pluginNamespace, float scale)
        : mNamespace(std::move(pluginNamespace))
        , mScale(scale)
    {
    }

    char const* getPluginType() const noexcept override { return kResizeNearestName; }
    char const* getPluginVersion() const noexcept override { return kResizeNearestVersion; }
    int32_t getNbOutputs() const noexcept override { return 1; }

    Dims getOutputDimensions(int32_t index, Dims const* inputs, int32_t nbInputDims) noexcept override
    {
        if (index != 0 || nbInputDims != 1 || inputs[0].nbDims < 2)
        {
            logError(kResizeNearestName,
                "takes one input of at least two axes (besides the batch) and has one output; it got "
                    + std::to_string(nbInputDims) + " inputs");
            return Dims{-1, {}};
        }
        Dims out = inputs[0];
        for (int32_t d = out.nbDims - 2; d < out.nbDims; ++d)
        {
            out.d[d] = resizeNearestExtent(out.d[d], mScale);
        }
        return out;
    }

    bool supportsFormat(DataType type, nvinfer1::PluginFormat format) const noexcept override
    {
        return type == DataType::kFLOAT && format == nvinfer1::TensorFormat::kLINEAR;
    }

    void configurePlugin(Dims const* inputDims, int32_t nbInputs, Dims const* outputDims, int32_t nbOutputs,
        DataType const* /*inputTypes*/, DataType const* /*outputTypes*/, bool const* /*inputIsBroadcast*/,
        bool const* /*outputIsBroadcast*/, nvinfer1::PluginFormat /*floatFormat*/,
        int32_t /*maxBatchSize*/) noexcept override
    {
        if (nbInputs == 1 && nbOutputs == 1)
        {
            mInput = inputDims[0];
            mOutput = outputDims[0];
        }
    }

    int32_t initialize() noexcept override { return 0; }
    void terminate() noexcept override {}
    size_t getWorkspaceSize(int32_t /*maxBatchSize*/) const noexcept override { return 0; }

    int32_t enqueue(int32_t batchSize, void const* const* inputs, void* const* outputs, void* /*workspace*/,
        cudaStream_t stream) noexcept override
    {
        ResizeNearestParams params;
        if (!paramsFor(batchSize, mInput, mOutput, params))
        {
            return -1;
        }
#ifdef KILN_PLUGINS_CUDA
        cudaError_t const status = launchResizeNearest(
            params, static_cast<float const*>(inputs[0]), static_cast<float*>(outputs[0]), stream);
        if (status != cudaSuccess)
        {
            logError(
                kResizeNearestName, std::string("the CUDA kernel failed to launch: ") + cudaGetErrorString(status));
            return -1;
        }
        return 0;
#else
        static_cast<void>(inputs), static_cast<void>(outputs), static_cast<void>(stream);
        logError(kResizeNearestName, "this build of the standard plugin library has no CUDA kernels");
        return -1;
#endif
    }

    //! The host route: the descriptors carry the full shapes, batch axis first.
    int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs) const noexcept
    {
        Dims const& in = inputDesc[0].dims;
        Dims const& out = outputDesc[0].dims;
        if (in.nbDims < 3 || out.nbDims != in.nbDims)
        {
            logError(kResizeNearestName, "the tensors of this run have no batch axis, or ranks that differ");
            return -1;
        }
        Dims perItemIn{in.nbDims - 1, {}};
        Dims perItemOut{out.nbDims - 1, {}};
        for (int32_t d = 1; d < in.nbDims; ++d)
        {
            perItemIn.d[d - 1] = in.d[d];
            perItemOut.d[d - 1] = out.d[d];
        }
        ResizeNearestParams params;
        if (in.d[0] != out.d[0] || in.d[0] > INT32_MAX
            || !paramsFor(static_cast<int32_t>(in.d[0]), perItemIn, perItemOut, params))
        {
            return -1;
        }
        runResizeNearestHost(params, static_cast<float const*>(inputs[0]), static_cast<float*>(outputs[0]));
        return 0;
    }

    size_t getSerializationSize() const noexcept override
    {
        return sizeof(float) + sizeof(int32_t) * (1 + 2 * static_cast<size_t>(std::max(mInput.nbDims, 0)));
    }

    void serialize(void* buffer) const noexcept override
    {
        auto* out = static_cast<char*>(buffer);
        auto const put = [&out](void const* value) {
            std::memcpy(out, value, 4);
            out += 4;
        };
        put(&mScale);
        int32_t const rank = std::max(mInput.nbDims, 0);
        put(&rank);
        for (Dims const* dims : {&mInput, &mOutput})
        {
            for (int32_t d = 0; d < rank; ++d)
            {
                auto const extent = static_cast<int32_t>(dims->d[d]);
                put(&extent);
            }
        }
    }

    //! Restores what serialize() wrote; false when bytes are not such a record.
    bool restore(void const* bytes, size_t length) noexcept
    {
        auto const* in = static_cast<char const*>(bytes);
        int32_t rank = -1;
        if (length < 8)
        {
            return false;
        }
        std::memcpy(&rank, in + 4, 4);
        if (rank < 0 || rank > Dims::MAX_DIMS || length != 8 + 8 * static_cast<size_t>(rank))
        {
            return false;
        }
        mInput.nbDims = rank;
        mOutput.nbDims = rank;
        for (int32_t d = 0; d < rank; ++d)
        {
            int32_t extent = 0;
            std::memcpy(&extent, in + 8 + 4 * d, 4);
            mInput.d[d] = extent;
            std::memcpy(&extent, in + 8 + 4 * (rank + d), 4);
            mOutput.d[d] = extent;
        }
        return true;
    }

    void destroy() noexcept override
    {
        delete this;
    }

    nvinfer1::IPluginV2Ext* clone() const noexcept override
    {
        try
        {
            return new ResizeNearestPlugin(*this);
        }
        catch (...)
        {
            return nullptr;
        }
    }

    void setPluginNamespace(char const* pluginNamespace) noexcept override
    {
        try
        {
            mNamespace = pluginNamespace == nullptr ? "" : pluginNamespace;
        }
        catch (...)
        {
            logError(kResizeNearestName, "out of memory setting the namespace");
        }
    }
    char const* getPluginNamespace() const noexcept override
    {
        return mNamespace.c_str();
    }

    DataType getOutputDataType(
        int32_t /*index*/, DataType const* /*inputTypes*/, int32_t /*nbInputs*/) const noexcept override
    {
        return DataType::kFLOAT;
    }
    bool isOutputBroadcastAcrossBatch(
        int32_t /*outputIndex*/, bool const* /*inputIsBroadcasted*/, int32_t /*nbInputs*/) const noexcept override
    {
        return false;
    }
    bool canBroadcastInputAcrossBatch(int32_t /*inputIndex*/) const noexcept override
    {
        return false;
    }

private:
    ResizeNearestPlugin(ResizeNearestPlugin const&) = default;

    //! The extents of a run of batch items of per-item shapes in and out; false (logged) when out is not what the
    //! scale makes of in (a corrupted plan, or a plugin never configured).
    bool paramsFor(int32_t batch, Dims const& in, Dims const& out, ResizeNearestParams& params) const
    {
        bool agree = in.nbDims >= 2 && out.nbDims == in.nbDims && batch >= 0;
        for (int32_t d = 0; agree && d < in.nbDims; ++d)
        {
            int64_t const expected = d >= in.nbDims - 2 ? resizeNearestExtent(in.d[d], mScale) : in.d[d];
            agree = in.d[d] >= 0 && out.d[d] == expected;
        }
        if (!agree)
        {
            logError(kResizeNearestName,
                "the tensors of this run do not have the shapes its scale implies ([..., H, W] to [..., int(H * "
                "scale), int(W * scale)]); nothing was computed");
            return false;
        }
        params.scale = mScale;
        params.planes = batch;
        for (int32_t d = 0; d < in.nbDims - 2; ++d)
        {
            params.planes *= in.d[d];
        }
        params.height = in.d[in.nbDims - 2];
        params.width = in.d[in.nbDims - 1];
        params.outHeight = out.d[out.nbDims - 2];
        params.outWidth = out.d[out.nbDims - 1];
        return true;
    }

    std::string mNamespace;
    float mScale;
    Dims mInput{-1, {}};
    Dims mOutput{-1, {}};
};

//! Sends kiln's host backend to ResizeNearestPlugin::enqueueHost(); registered only for ResizeNearest_TRT.
class ResizeNearestRunner final : public kiln::IPluginV2HostRunner
{
public:
    int32_t enqueueHost(nvinfer1::IPluginV2& plugin, nvinfer1::PluginTensorDesc const* inputDesc,
        nvinfer1::PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs,
        void* /*workspace*/) noexcept override
    {
        return static_cast<ResizeNearestPlugin&>(plugin).enqueueHost(inputDesc, outputDesc, inputs, outputs);
    }
};

class ResizeNearestCreator final : public StandardCreatorV2
{
public:
    ResizeNearestCreator()
        : StandardCreatorV2({PluginField{"scale", nullptr, PluginFieldType::kFLOAT32, 1}})
    {
    }

    char const* getPluginName() const noexcept override { return kResizeNearestName; }
    char const* getPluginVersion() const noexcept override { return kResizeNearestVersion; }

    nvinfer1::IPluginV2* createPlugin(char const* /*name*/, nvinfer1::PluginFieldCollection const* fc) noexcept override
    {
        try
        {
            return create(fc);
        }
        catch (...)
        {
            return nullptr;
        }
    }

    nvinfer1::IPluginV2* deserializePlugin(
        char const* /*name*/, void const* serialData, size_t serialLength) noexcept override
    {
        try
        {
            if (serialData == nullptr || serialLength < 8 || serialLength > kMaxSerialized)
            {
                logError(kResizeNearestName,
                    "the serialized plugin has " + std::to_string(serialLength) + " bytes; it must have 8 to "
                        + std::to_string(kMaxSerialized));
                return nullptr;
            }
            PluginField const scale{"scale", serialData, PluginFieldType::kFLOAT32, 1};
            nvinfer1::PluginFieldCollection const fc{1, &scale};
            ResizeNearestPlugin* plugin = create(&fc);
            if (plugin != nullptr && !plugin->restore(serialData, serialLength))
            {
                logError(kResizeNearestName, "the serialized plugin's shapes are malformed");
                plugin->destroy();
                return nullptr;
            }
            return plugin;
        }
        catch (...)
        {
            return nullptr;
        }
    }

    kiln::IPluginV2HostRunner& hostRunner() const noexcept override
    {
        static auto* runner = new ResizeNearestRunner(); // Outlives every engine: never destroyed.
        return *runner;
    }

private:
    ResizeNearestPlugin* create(nvinfer1::PluginFieldCollection const* fc) const
    {
        if (!hasField(fc, "scale"))
        {
            logError(kResizeNearestName, "field scale is required");
            return nullptr;
        }
        float scale = 0.0F;
        if (!FieldReader(kResizeNearestName, fc).readFloat("scale", scale))
        {
            return nullptr;
        }
        if (!(scale > 0.0F) || scale > 65536.0F)
        {
            logError(kResizeNearestName, "scale is " + std::to_string(scale) + "; it must be positive (at most 65536)");
            return nullptr;
        }
        return new ResizeNearestPlugin(mNamespace, scale);
    }
};

} // namespace

void runResizeNearestHost(ResizeNearestParams const& params, float const* x, float* y)
{
    int64_t const count = params.outputCount();
    for (int64_t i = 0; i < count; ++i)
    {
        y[i] = x[resizeNearestInputIndex(params, i)];
    }
}

std::unique_ptr<StandardCreatorV2> makeResizeNearestCreator()
{
    return std::make_unique<ResizeNearestCreator>();
}

} // namespace kiln::plugins

KILN_IGNORE_DEPRECATED_END
