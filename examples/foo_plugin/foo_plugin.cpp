// SPDX-License-Identifier: Apache-2.0
// FooPlugin: see foo_plugin.h. The weights W are acquired from the plugin registry in onShapeChange(), which runs
// before the first enqueue in both the build and the run phase, and released in the destructor: the registry counts
// the users of key "W", so every live FooPlugin shares one copy, freed when the last one goes.
#include "foo_plugin.h"

#include "example_common.h"
#include "kiln/plugin_host.h"
#include "shared_weights.h"

#ifdef KILN_EXAMPLE_CUDA
#include "foo_kernel.h"
#endif

#include <mutex>
#include <string>

using namespace nvinfer1;

namespace
{

constexpr char const* kName = "FooPlugin";
constexpr char const* kVersion = "1";
constexpr char const* kNamespace = "example";
constexpr char const* kWeightsKey = "W";

std::mutex gActivityMutex;
std::map<std::string, FooActivity> gActivity;

void recordRun(std::string const& layer, TensorRTPhase phase, int32_t tactic)
{
    std::lock_guard<std::mutex> const lock(gActivityMutex);
    FooActivity& activity = gActivity[layer];
    if (phase == TensorRTPhase::kBUILD)
    {
        ++activity.timedRuns;
    }
    else
    {
        activity.runtimeTactic = tactic;
    }
}

class FooPlugin final : public IPluginV3,
                        public IPluginV3OneCore,
                        public IPluginV3OneBuild,
                        public IPluginV3OneRuntime,
                        public kiln::IPluginV3OneHost
{
public:
    FooPlugin(std::string layer, float scale, TensorRTPhase phase)
        : mLayer(std::move(layer))
        , mScale(scale)
        , mPhase(phase)
        // The timing-cache ID reflects the creation state only: the attribute and its value.
        , mTimingCacheId("scale=" + std::to_string(scale))
    {
    }

    FooPlugin(FooPlugin const&) = delete;
    FooPlugin& operator=(FooPlugin const&) = delete;

    ~FooPlugin() override
    {
        if (mWeights != nullptr && getPluginRegistry()->releasePluginResource(kWeightsKey) != 0)
        {
            example::logError(kName, "releasing the shared weights failed");
        }
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

    //! A new object with the same attributes and tactic; it acquires the weights for itself when it needs them.
    IPluginV3* clone() noexcept override
    {
        try
        {
            auto* copy = new FooPlugin(mLayer, mScale, mPhase);
            copy->mTactic = mTactic;
            return copy;
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
        IExprBuilder& /*exprBuilder*/) noexcept override
    {
        if (nbInputs != 1)
        {
            example::logError(kName, "expects one input");
            return -1;
        }
        outputs[0] = inputs[0];
        return 0;
    }

    bool supportsFormatCombination(int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t /*nbInputs*/,
        int32_t /*nbOutputs*/) noexcept override
    {
        return inOut[pos].desc.format == TensorFormat::kLINEAR && inOut[pos].desc.type == DataType::kFLOAT;
    }

    int32_t configurePlugin(DynamicPluginTensorDesc const* in, int32_t /*nbInputs*/,
        DynamicPluginTensorDesc const* /*out*/, int32_t /*nbOutputs*/) noexcept override
    {
        Dims const& dims = in[0].desc.dims;
        if (dims.nbDims < 1 || dims.d[dims.nbDims - 1] != kFooWidth)
        {
            example::logError(
                kName, "the input's last extent must be " + std::to_string(kFooWidth) + ", the length of W");
            return -1;
        }
        return 0;
    }

    int32_t getNbTactics() noexcept override { return 2; }

    int32_t getValidTactics(int32_t* tactics, int32_t nbTactics) noexcept override
    {
        if (nbTactics < 2)
        {
            return -1;
        }
        tactics[0] = 1; // one element per thread
        tactics[1] = 2; // four elements per thread
        return 0;
    }

    char const* getTimingCacheID() noexcept override { return mTimingCacheId.c_str(); }

    // ---- IPluginV3OneRuntime ----
    int32_t setTactic(int32_t tactic) noexcept override
    {
        if (tactic < 0 || tactic > 2)
        {
            example::logError(kName, "unknown tactic " + std::to_string(tactic));
            return -1;
        }
        mTactic = tactic;
        return 0;
    }

    int32_t onShapeChange(PluginTensorDesc const* /*in*/, int32_t /*nbInputs*/, PluginTensorDesc const* /*out*/,
        int32_t /*nbOutputs*/) noexcept override
    {
        if (mWeights == nullptr) // Acquire once per object: each acquisition counts one user.
        {
            SharedWeights blank{};
            mWeights = static_cast<SharedWeights*>(getPluginRegistry()->acquirePluginResource(kWeightsKey, &blank));
            if (mWeights == nullptr)
            {
                example::logError(kName, "could not acquire the shared weights \"W\"");
                return -1;
            }
        }
        return 0;
    }

    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* /*outputDesc*/,
        void const* const* inputs, void* const* outputs, void* /*workspace*/, cudaStream_t stream) noexcept override
    {
#ifdef KILN_EXAMPLE_CUDA
        if (mWeights == nullptr || mWeights->mWeights == nullptr)
        {
            example::logError(kName, "the shared weights have no device copy (no GPU was found when they were loaded)");
            return -1;
        }
        recordRun(mLayer, mPhase, mTactic);
        int64_t const rows = example::volume(inputDesc[0].dims) / kFooWidth;
        cudaError_t const status = launchFoo(static_cast<float const*>(inputs[0]), static_cast<float*>(outputs[0]),
            mWeights->mWeights, mScale, rows, kFooWidth, mTactic, stream);
        return status == cudaSuccess ? 0 : -1;
#else
        (void)inputDesc, (void)inputs, (void)outputs, (void)stream;
        return example::noCudaKernel(kName);
#endif
    }

    IPluginV3* attachToContext(IPluginResourceContext* /*context*/) noexcept override
    {
        return clone();
    }

    PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {
        mField = PluginField("scale", &mScale, PluginFieldType::kFLOAT32, 1);
        mFields = PluginFieldCollection{1, &mField};
        return &mFields;
    }

    // ---- kiln::IPluginV3OneHost: both tactics on host memory ----
    int32_t enqueueHost(PluginTensorDesc const* inputDesc, PluginTensorDesc const* /*outputDesc*/,
        void const* const* inputs, void* const* outputs, void* /*workspace*/) noexcept override
    {
        if (mWeights == nullptr)
        {
            example::logError(kName, "enqueueHost() before onShapeChange(): the shared weights are not acquired");
            return -1;
        }
        recordRun(mLayer, mPhase, mTactic);
        auto const* x = static_cast<float const*>(inputs[0]);
        auto* y = static_cast<float*>(outputs[0]);
        float const* w = mWeights->mHostWeights.data();
        int64_t const count = example::volume(inputDesc[0].dims);
        if (mTactic == 2) // four elements per step
        {
            for (int64_t first = 0; first < count; first += 4)
            {
                for (int64_t i = first; i < first + 4 && i < count; ++i)
                {
                    y[i] = mScale * x[i] + w[i % kFooWidth];
                }
            }
            return 0;
        }
        for (int64_t i = 0; i < count; ++i) // one element per step
        {
            y[i] = mScale * x[i] + w[i % kFooWidth];
        }
        return 0;
    }

private:
    std::string mLayer;
    float mScale;
    TensorRTPhase mPhase;
    std::string mTimingCacheId;
    int32_t mTactic{0};
    SharedWeights* mWeights{nullptr}; //!< Acquired in onShapeChange(), released in the destructor.
    PluginField mField;
    PluginFieldCollection mFields{};
};

class FooPluginCreator final : public IPluginCreatorV3One
{
public:
    FooPluginCreator()
        : mFieldName("scale", nullptr, PluginFieldType::kFLOAT32, 1)
        , mFieldNames{1, &mFieldName}
    {
    }

    IPluginV3* createPlugin(char const* name, PluginFieldCollection const* fc, TensorRTPhase phase) noexcept override
    {
        PluginField const* scale = example::findField(fc, "scale", PluginFieldType::kFLOAT32, 1);
        if (scale == nullptr)
        {
            example::logError(kName, "needs the field scale (kFLOAT32)");
            return nullptr;
        }
        try
        {
            return new FooPlugin(name != nullptr ? name : "", *static_cast<float const*>(scale->data), phase);
        }
        catch (...)
        {
            return nullptr;
        }
    }

    PluginFieldCollection const* getFieldNames() noexcept override { return &mFieldNames; }
    char const* getPluginName() const noexcept override { return kName; }
    char const* getPluginVersion() const noexcept override { return kVersion; }
    char const* getPluginNamespace() const noexcept override { return kNamespace; }

private:
    PluginField mFieldName;
    PluginFieldCollection mFieldNames;
};

} // namespace

IPluginCreatorV3One& fooPluginCreator()
{
    static FooPluginCreator creator;
    return creator;
}

std::map<std::string, FooActivity> fooActivity()
{
    std::lock_guard<std::mutex> const lock(gActivityMutex);
    return gActivity;
}
