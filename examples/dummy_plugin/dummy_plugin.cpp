// SPDX-License-Identifier: Apache-2.0
// DummyPlugin: see dummy_plugin.h. The constructor fills the field list once from the members (as the guide's
// DummyPlugin does), and getFieldsToSerialize() hands it out; createPlugin() reads the same names back, checks their
// types and lengths, and returns nullptr for anything missing or malformed.
#include "dummy_plugin.h"

#include "example_common.h"
#include "kiln/plugin_host.h"

#ifdef KILN_EXAMPLE_CUDA
#include "dummy_kernel.h"
#endif

#include <atomic>
#include <cstring>
#include <string>
#include <vector>

using namespace nvinfer1;

namespace
{

constexpr char const* kName = "DummyPlugin";
constexpr char const* kVersion = "1";
constexpr char const* kNamespace = "example";
constexpr int32_t kMaxVector = 64;

std::atomic<int32_t> gRuntimeCreations{0};

class DummyPlugin final : public IPluginV3,
                          public IPluginV3OneCore,
                          public IPluginV3OneBuild,
                          public IPluginV3OneRuntime,
                          public kiln::IPluginV3OneHost
{
public:
    DummyPlugin(int32_t intValue, std::vector<float> floatVector, DummyStruct dummyStruct)
        : mIntValue(intValue)
        , mFloatVector(std::move(floatVector))
        , mDummyStruct(dummyStruct)
    {
        mDataToSerialize.emplace_back("intScalar", &mIntValue, PluginFieldType::kINT32, 1);
        mDataToSerialize.emplace_back(
            "floatVector", mFloatVector.data(), PluginFieldType::kFLOAT32, static_cast<int32_t>(mFloatVector.size()));
        mDataToSerialize.emplace_back(
            "dummyStruct", &mDummyStruct, PluginFieldType::kUNKNOWN, static_cast<int32_t>(sizeof(DummyStruct)));
        mFCToSerialize.nbFields = static_cast<int32_t>(mDataToSerialize.size());
        mFCToSerialize.fields = mDataToSerialize.data();
    }

    // The field list points into this object: copies are made with the constructor (clone()), never by copying.
    DummyPlugin(DummyPlugin const&) = delete;
    DummyPlugin& operator=(DummyPlugin const&) = delete;

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
            return new DummyPlugin(mIntValue, mFloatVector, mDummyStruct);
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
        if (dims.nbDims < 1 || dims.d[dims.nbDims - 1] != static_cast<int64_t>(mFloatVector.size()))
        {
            example::logError(kName,
                "the input's last extent must be " + std::to_string(mFloatVector.size())
                    + ", the length of floatVector");
            return -1;
        }
        return 0;
    }

    // ---- IPluginV3OneRuntime ----
    int32_t onShapeChange(PluginTensorDesc const* /*in*/, int32_t /*nbInputs*/, PluginTensorDesc const* /*out*/,
        int32_t /*nbOutputs*/) noexcept override
    {
        return 0;
    }

    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* /*outputDesc*/,
        void const* const* inputs, void* const* outputs, void* /*workspace*/, cudaStream_t stream) noexcept override
    {
#ifdef KILN_EXAMPLE_CUDA
        auto const width = static_cast<int64_t>(mFloatVector.size());
        cudaError_t const status
            = launchDummy(static_cast<float const*>(inputs[0]), static_cast<float*>(outputs[0]), mFloatVector.data(),
                example::volume(inputDesc[0].dims) / width, width, mIntValue, mDummyStruct.a, mDummyStruct.b, stream);
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
        return &mFCToSerialize;
    }

    // ---- kiln::IPluginV3OneHost: the same arithmetic on host memory ----
    int32_t enqueueHost(PluginTensorDesc const* inputDesc, PluginTensorDesc const* /*outputDesc*/,
        void const* const* inputs, void* const* outputs, void* /*workspace*/) noexcept override
    {
        auto const* x = static_cast<float const*>(inputs[0]);
        auto* y = static_cast<float*>(outputs[0]);
        auto const width = static_cast<int64_t>(mFloatVector.size());
        auto const s = static_cast<float>(mIntValue);
        auto const a = static_cast<float>(mDummyStruct.a);
        for (int64_t i = 0; i < example::volume(inputDesc[0].dims); ++i)
        {
            float const inner = x[i] * mFloatVector[static_cast<std::size_t>(i % width)] + s;
            y[i] = mDummyStruct.b * inner + a;
        }
        return 0;
    }

private:
    int32_t mIntValue;
    std::vector<float> mFloatVector;
    DummyStruct mDummyStruct;
    std::vector<PluginField> mDataToSerialize;
    PluginFieldCollection mFCToSerialize{};
};

class DummyPluginCreator final : public IPluginCreatorV3One
{
public:
    DummyPluginCreator()
    {
        mFieldNames.emplace_back("intScalar", nullptr, PluginFieldType::kINT32, 1);
        mFieldNames.emplace_back("floatVector", nullptr, PluginFieldType::kFLOAT32, 0);
        mFieldNames.emplace_back(
            "dummyStruct", nullptr, PluginFieldType::kUNKNOWN, static_cast<int32_t>(sizeof(DummyStruct)));
        mFieldCollection.nbFields = static_cast<int32_t>(mFieldNames.size());
        mFieldCollection.fields = mFieldNames.data();
    }

    IPluginV3* createPlugin(
        char const* /*name*/, PluginFieldCollection const* fc, TensorRTPhase phase) noexcept override
    {
        PluginField const* intScalar = example::findField(fc, "intScalar", PluginFieldType::kINT32, 1);
        PluginField const* floatVector = example::findField(fc, "floatVector", PluginFieldType::kFLOAT32);
        PluginField const* dummyStruct = example::findField(
            fc, "dummyStruct", PluginFieldType::kUNKNOWN, static_cast<int32_t>(sizeof(DummyStruct)));
        if (intScalar == nullptr || floatVector == nullptr || dummyStruct == nullptr || floatVector->length < 1
            || floatVector->length > kMaxVector)
        {
            example::logError(kName,
                "needs intScalar (1 x kINT32), floatVector (1 to 64 x kFLOAT32) and dummyStruct (kUNKNOWN, "
                    + std::to_string(sizeof(DummyStruct)) + " bytes)");
            return nullptr;
        }
        auto const* floats = static_cast<float const*>(floatVector->data);
        DummyStruct restored{};
        std::memcpy(&restored, dummyStruct->data, sizeof(DummyStruct)); // Opaque bytes: no alignment promised.
        try
        {
            auto* plugin = new DummyPlugin(*static_cast<int32_t const*>(intScalar->data),
                std::vector<float>(floats, floats + floatVector->length), restored);
            gRuntimeCreations += phase == TensorRTPhase::kRUNTIME ? 1 : 0;
            return plugin;
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

IPluginCreatorV3One& dummyPluginCreator()
{
    static DummyPluginCreator creator;
    return creator;
}

int32_t dummyRuntimeCreations()
{
    return gRuntimeCreations;
}
