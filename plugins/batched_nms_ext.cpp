// SPDX-License-Identifier: Apache-2.0
// BatchedNMS_TRT version "1", the IPluginV2Ext form of BatchedNMSDynamic_TRT (batched_nms.h says what it takes); the
// computation and the fields are batched_nms.cpp's.
#include "batched_nms.h"

#include "batched_nms_fields.h"
#include "common.h"
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
using nvinfer1::PluginField;
using nvinfer1::PluginTensorDesc;

//! The BatchedNMS_TRT form: an IPluginV2Ext, whose shapes are Dims without the batch axis. Its serialized form is its
//! fields in declared order, then the number of boxes per item that configurePlugin() gave it (enqueue(batchSize, ...)
//! has no shapes of its own), 4 bytes each.
class BatchedNmsPlugin final : public nvinfer1::IPluginV2Ext
{
public:
    BatchedNmsPlugin(std::string pluginNamespace, BatchedNmsParams const& params)
        : mNamespace(std::move(pluginNamespace))
        , mParams(params)
    {
    }

    char const* getPluginType() const noexcept override { return kBatchedNmsName; }
    char const* getPluginVersion() const noexcept override { return kBatchedNmsVersion; }
    int32_t getNbOutputs() const noexcept override { return 4; }

    nvinfer1::Dims getOutputDimensions(
        int32_t index, nvinfer1::Dims const* inputs, int32_t nbInputDims) noexcept override
    {
        if (nbInputDims != 2 || index < 0 || index > 3 || inputs[0].nbDims != 3
            || !(inputs[1].nbDims == 2 || (inputs[1].nbDims == 3 && inputs[1].d[2] == 1)))
        {
            logError(kBatchedNmsName,
                "takes boxes [N, 1 or numClasses, 4] and scores [N, numClasses] per batch item (2 inputs); it got "
                    + std::to_string(nbInputDims) + " inputs");
            return nvinfer1::Dims{-1, {}};
        }
        if (index == 0)
        {
            return nvinfer1::Dims{0, {}};
        }
        return index == 1 ? nvinfer1::Dims{2, {mParams.keepTopK, 4}} : nvinfer1::Dims{1, {mParams.keepTopK}};
    }

    bool supportsFormat(DataType type, nvinfer1::PluginFormat format) const noexcept override
    {
        return (type == DataType::kFLOAT || type == DataType::kINT32) && format == nvinfer1::TensorFormat::kLINEAR;
    }

    void configurePlugin(nvinfer1::Dims const* inputDims, int32_t nbInputs, nvinfer1::Dims const* /*outputDims*/,
        int32_t /*nbOutputs*/, DataType const* /*inputTypes*/, DataType const* /*outputTypes*/,
        bool const* /*inputIsBroadcast*/, bool const* /*outputIsBroadcast*/, nvinfer1::PluginFormat /*floatFormat*/,
        int32_t /*maxBatchSize*/) noexcept override
    {
        if (nbInputs == 2 && inputDims[0].nbDims == 3)
        {
            mBoxes = inputDims[0].d[0];
        }
    }

    int32_t initialize() noexcept override { return 0; }
    void terminate() noexcept override {}

    size_t getWorkspaceSize(int32_t maxBatchSize) const noexcept override
    {
#ifdef KILN_PLUGINS_CUDA
        BatchedNmsParams params = mParams;
        params.batch = maxBatchSize;
        params.boxes = mBoxes;
        return mBoxes >= 0 && maxBatchSize >= 0 ? batchedNmsWorkspaceSize(params) : 0;
#else
        static_cast<void>(maxBatchSize);
        return 0;
#endif
    }

    int32_t enqueue(int32_t batchSize, void const* const* inputs, void* const* outputs, void* workspace,
        cudaStream_t stream) noexcept override
    {
        if (mBoxes < 0 || batchSize < 0)
        {
            logError(kBatchedNmsName, "enqueue before configurePlugin: the number of boxes is not known");
            return -1;
        }
#ifdef KILN_PLUGINS_CUDA
        BatchedNmsParams params = mParams;
        params.batch = batchSize;
        params.boxes = mBoxes;
        cudaError_t const status
            = launchBatchedNms(params, DataType::kFLOAT, inputs[0], inputs[1], outputs, workspace, stream);
        if (status != cudaSuccess)
        {
            logError(kBatchedNmsName, std::string("the CUDA kernels failed to launch: ") + cudaGetErrorString(status));
            return -1;
        }
        return 0;
#else
        static_cast<void>(inputs), static_cast<void>(outputs), static_cast<void>(workspace);
        static_cast<void>(stream);
        logError(kBatchedNmsName, "this build of the standard plugin library has no CUDA kernels");
        return -1;
#endif
    }

    //! The host route: the descriptors carry the whole shapes, batch axis first.
    int32_t enqueueHost(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs) const noexcept
    {
        nvinfer1::Dims const& boxes = inputDesc[0].dims;
        nvinfer1::Dims const& scores = inputDesc[1].dims;
        int64_t const classes = mParams.numClasses;
        int64_t const kept = mParams.keepTopK;
        auto const is = [](nvinfer1::Dims const& d, std::initializer_list<int64_t> extents) {
            return d.nbDims == static_cast<int32_t>(extents.size()) && std::equal(extents.begin(), extents.end(), d.d);
        };
        int64_t const limit = std::numeric_limits<int32_t>::max();
        bool const agree = boxes.nbDims == 4 && boxes.d[2] == (mParams.shareLocation ? 1 : classes) && boxes.d[3] == 4
            && (scores.nbDims == 3 || (scores.nbDims == 4 && scores.d[3] == 1)) && scores.d[0] == boxes.d[0]
            && scores.d[1] == boxes.d[1] && scores.d[2] == classes && boxes.d[0] >= 0 && boxes.d[1] >= 0
            && boxes.d[1] * classes <= limit && (boxes.d[1] == 0 || boxes.d[0] <= limit / (boxes.d[1] * classes))
            && is(outputDesc[0].dims, {boxes.d[0]}) && is(outputDesc[1].dims, {boxes.d[0], kept, 4})
            && is(outputDesc[2].dims, {boxes.d[0], kept}) && is(outputDesc[3].dims, {boxes.d[0], kept});
        if (!agree)
        {
            logError(kBatchedNmsName,
                "the tensors of this run do not have the shapes its fields imply (boxes [B, N, 1 or numClasses, 4], "
                "scores [B, N, numClasses], outputs [B] and of keepTopK rows); nothing was computed");
            return -1;
        }
        BatchedNmsParams params = mParams;
        params.batch = boxes.d[0];
        params.boxes = boxes.d[1];
        try
        {
            runBatchedNmsHost(params, DataType::kFLOAT, inputs[0], inputs[1], outputs);
        }
        catch (...)
        {
            logError(kBatchedNmsName, "out of host memory");
            return -1;
        }
        return 0;
    }

    size_t getSerializationSize() const noexcept override
    {
        return (kBatchedNmsFieldCount + 1) * sizeof(int32_t);
    }

    void serialize(void* buffer) const noexcept override
    {
        try
        {
            auto* out = static_cast<char*>(buffer);
            for (PluginField const& field : batchedNmsFieldValues(mParams, mFlags))
            {
                std::memcpy(out, field.data, sizeof(int32_t));
                out += sizeof(int32_t);
            }
            auto const boxes = static_cast<int32_t>(mBoxes);
            std::memcpy(out, &boxes, sizeof boxes);
        }
        catch (...)
        {
            logError(kBatchedNmsName, "out of memory serializing the plugin");
        }
    }

    //! Sets the number of boxes per item from a serialized record (its last 4 bytes); false when it is negative.
    bool restoreBoxes(int32_t boxes) noexcept
    {
        mBoxes = boxes;
        return boxes >= 0;
    }

    void destroy() noexcept override
    {
        delete this;
    }

    nvinfer1::IPluginV2Ext* clone() const noexcept override
    {
        try
        {
            return new BatchedNmsPlugin(*this);
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
            logError(kBatchedNmsName, "out of memory setting the namespace");
        }
    }
    char const* getPluginNamespace() const noexcept override
    {
        return mNamespace.c_str();
    }

    DataType getOutputDataType(int32_t index, DataType const* inputTypes, int32_t nbInputs) const noexcept override
    {
        return index == 0 || nbInputs < 1 ? DataType::kINT32 : inputTypes[0];
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
    BatchedNmsPlugin(BatchedNmsPlugin const&) = default;

    std::string mNamespace;
    BatchedNmsParams mParams;
    int64_t mBoxes{-1}; //!< Boxes per item, from configurePlugin() or the plan.
    mutable std::array<int32_t, 4> mFlags{};
};

//! Sends kiln's host backend to BatchedNmsPlugin::enqueueHost(); registered only for BatchedNMS_TRT.
class BatchedNmsRunner final : public kiln::IPluginV2HostRunner
{
public:
    int32_t enqueueHost(nvinfer1::IPluginV2& plugin, PluginTensorDesc const* inputDesc,
        PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs,
        void* /*workspace*/) noexcept override
    {
        return static_cast<BatchedNmsPlugin&>(plugin).enqueueHost(inputDesc, outputDesc, inputs, outputs);
    }
};

class BatchedNmsCreator final : public StandardCreatorV2
{
public:
    BatchedNmsCreator()
        : StandardCreatorV2(declaredBatchedNmsFields())
    {
    }

    char const* getPluginName() const noexcept override { return kBatchedNmsName; }
    char const* getPluginVersion() const noexcept override { return kBatchedNmsVersion; }

    nvinfer1::IPluginV2* createPlugin(char const* /*name*/, nvinfer1::PluginFieldCollection const* fc) noexcept override
    {
        try
        {
            BatchedNmsParams p;
            return readBatchedNmsFields(kBatchedNmsName, fc, p) ? new BatchedNmsPlugin(mNamespace, p) : nullptr;
        }
        catch (...)
        {
            return nullptr;
        }
    }

    nvinfer1::IPluginV2* deserializePlugin(
        char const* name, void const* serialData, size_t serialLength) noexcept override
    {
        size_t const fieldBytes = kBatchedNmsFieldCount * sizeof(int32_t);
        if (serialData == nullptr || serialLength != fieldBytes + sizeof(int32_t))
        {
            logError(kBatchedNmsName,
                "the serialized plugin has " + std::to_string(serialLength) + " bytes; it must have "
                    + std::to_string(fieldBytes + sizeof(int32_t)) + " (its fields and the number of boxes)");
            return nullptr;
        }
        nvinfer1::IPluginV2* plugin = StandardCreatorV2::deserializePlugin(name, serialData, fieldBytes);
        int32_t boxes = -1;
        std::memcpy(&boxes, static_cast<char const*>(serialData) + fieldBytes, sizeof boxes);
        if (plugin != nullptr && !static_cast<BatchedNmsPlugin*>(plugin)->restoreBoxes(boxes))
        {
            logError(kBatchedNmsName, "the serialized number of boxes is " + std::to_string(boxes));
            plugin->destroy();
            return nullptr;
        }
        return plugin;
    }

    kiln::IPluginV2HostRunner& hostRunner() const noexcept override
    {
        static auto* runner = new BatchedNmsRunner(); // Outlives every engine: never destroyed.
        return *runner;
    }
};

} // namespace

std::unique_ptr<StandardCreatorV2> makeBatchedNmsCreator()
{
    return std::make_unique<BatchedNmsCreator>();
}

} // namespace kiln::plugins

KILN_IGNORE_DEPRECATED_END
