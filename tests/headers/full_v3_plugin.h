// Test fixture: a V3 plugin that overrides every virtual method of IPluginV3, IPluginV3OneCore, IPluginV3OneBuildV2
// (the v_2_0 build capability) and IPluginV3OneRuntime, defaulted ones included, with `override` and the exact
// signatures of the spec (section 4); and its IPluginCreatorV3One creator, likewise complete. If a header changes
// a parameter, a `const` or adds a `noexcept`, this file stops compiling. Bodies return recognisable values
// (fixture_common.h) so tests can check dispatch through base-class pointers. C++14, RTTI-free.

#ifndef KILN_TESTS_HEADERS_FULL_V3_PLUGIN_H
#define KILN_TESTS_HEADERS_FULL_V3_PLUGIN_H

#include "NvInferRuntime.h"
#include "fixture_common.h"

#include <cstring>

namespace kiln_test
{

constexpr char const* kV3PluginName = "KilnFullV3";
constexpr char const* kV3PluginVersion = "3";

//! A V3 plugin with one class and four bases, as every V3 plugin of TensorRT's open-source tree is written.
class FullV3Plugin : public nvinfer1::IPluginV3,
                     public nvinfer1::IPluginV3OneCore,
                     public nvinfer1::IPluginV3OneBuildV2,
                     public nvinfer1::IPluginV3OneRuntime
{
public:
    explicit FullV3Plugin(float scale = 1.F, char const* pluginNamespace = "") noexcept
        : mScale(scale)
        , mNamespace(pluginNamespace)
    {
        mField = nvinfer1::PluginField("scale", &mScale, nvinfer1::PluginFieldType::kFLOAT32, 1);
        mFieldCollection.nbFields = 1;
        mFieldCollection.fields = &mField;
    }

    FullV3Plugin(FullV3Plugin const& other) noexcept
        : nvinfer1::IPluginV3(other)
        , nvinfer1::IPluginV3OneCore(other)
        , nvinfer1::IPluginV3OneBuildV2(other)
        , nvinfer1::IPluginV3OneRuntime(other)
        , mCounter(other.mCounter)
        , mScale(other.mScale)
        , mNamespace(other.mNamespace)
        , mTactic(other.mTactic)
        , mContext(other.mContext)
    {
        mField = nvinfer1::PluginField("scale", &mScale, nvinfer1::PluginFieldType::kFLOAT32, 1);
        mFieldCollection.nbFields = 1;
        mFieldCollection.fields = &mField;
    }

    FullV3Plugin& operator=(FullV3Plugin const&) = delete;

    ~FullV3Plugin() override = default;

    // IPluginV3 (slots 4-5).
    nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept override
    {
        switch (type)
        {
        case nvinfer1::PluginCapabilityType::kCORE: return static_cast<nvinfer1::IPluginV3OneCore*>(this);
        case nvinfer1::PluginCapabilityType::kBUILD: return static_cast<nvinfer1::IPluginV3OneBuildV2*>(this);
        case nvinfer1::PluginCapabilityType::kRUNTIME: return static_cast<nvinfer1::IPluginV3OneRuntime*>(this);
        }
        return nullptr;
    }

    nvinfer1::IPluginV3* clone() noexcept override { return new FullV3Plugin(*this); }

    // IPluginV3OneCore (slots 4-6).
    nvinfer1::AsciiChar const* getPluginName() const noexcept override { return kV3PluginName; }

    nvinfer1::AsciiChar const* getPluginVersion() const noexcept override { return kV3PluginVersion; }

    nvinfer1::AsciiChar const* getPluginNamespace() const noexcept override { return mNamespace; }

    // IPluginV3OneBuild (slots 4-14).
    int32_t configurePlugin(nvinfer1::DynamicPluginTensorDesc const* in, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept override
    {
        mLastNbInputs = (in != nullptr) ? nbInputs : -1;
        mLastNbOutputs = (out != nullptr) ? nbOutputs : -1;
        return kV3ConfigureResult;
    }

    int32_t getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t nbOutputs, const nvinfer1::DataType* inputTypes,
        int32_t nbInputs) const noexcept override
    {
        for (int32_t i = 0; i < nbOutputs; ++i)
        {
            outputTypes[i] = (nbInputs > 0) ? inputTypes[0] : nvinfer1::DataType::kFLOAT;
        }
        return kV3OutputDataTypesResult;
    }

    //! Output 0 has the shape of input 0 with its first extent doubled.
    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs, nvinfer1::DimsExprs const* shapeInputs,
        int32_t nbShapeInputs, nvinfer1::DimsExprs* outputs, int32_t nbOutputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override
    {
        static_cast<void>(shapeInputs);
        static_cast<void>(nbShapeInputs);
        if (nbInputs < 1 || nbOutputs < 1 || inputs[0].nbDims < 1)
        {
            return -1;
        }
        outputs[0] = inputs[0];
        nvinfer1::IDimensionExpr const* two = exprBuilder.constant(2);
        outputs[0].d[0] = exprBuilder.operation(nvinfer1::DimensionOperation::kPROD, *inputs[0].d[0], *two);
        return kV3OutputShapesResult;
    }

    bool supportsFormatCombination(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs) noexcept override
    {
        return pos < nbInputs + nbOutputs && inOut[pos].desc.format == nvinfer1::TensorFormat::kLINEAR
            && inOut[pos].desc.type == nvinfer1::DataType::kFLOAT;
    }

    int32_t getNbOutputs() const noexcept override { return kV3NbOutputs; }

    size_t getWorkspaceSize(nvinfer1::DynamicPluginTensorDesc const* inputs, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* outputs, int32_t nbOutputs) const noexcept override
    {
        static_cast<void>(inputs);
        static_cast<void>(nbInputs);
        static_cast<void>(outputs);
        static_cast<void>(nbOutputs);
        return static_cast<size_t>(kV3WorkspaceSize);
    }

    int32_t getValidTactics(int32_t* tactics, int32_t nbTactics) noexcept override
    {
        if (nbTactics >= 2)
        {
            tactics[0] = kV3FirstTactic;
            tactics[1] = kV3SecondTactic;
        }
        return kV3ValidTacticsResult;
    }

    int32_t getNbTactics() noexcept override { return kV3NbTactics; }

    char const* getTimingCacheID() noexcept override { return "kiln-timing-cache-id"; }

    int32_t getFormatCombinationLimit() noexcept override { return kV3FormatCombinationLimit; }

    char const* getMetadataString() noexcept override { return "kiln-metadata"; }

    // v_2_0::IPluginV3OneBuild (slot 15): output 0 is written in place of input 0.
    int32_t getAliasedInput(int32_t outputIndex) noexcept override { return (outputIndex == 0) ? 0 : -1; }

    // IPluginV3OneRuntime (slots 4-8).
    int32_t setTactic(int32_t tactic) noexcept override
    {
        mTactic = tactic;
        return kV3SetTacticResult;
    }

    int32_t onShapeChange(nvinfer1::PluginTensorDesc const* in, int32_t nbInputs, nvinfer1::PluginTensorDesc const* out,
        int32_t nbOutputs) noexcept override
    {
        mLastNbInputs = (in != nullptr) ? nbInputs : -1;
        mLastNbOutputs = (out != nullptr) ? nbOutputs : -1;
        return kV3ShapeChangeResult;
    }

    //! Host-side stand-in for a kernel: output[0] = scale * input[0], one float.
    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override
    {
        static_cast<void>(inputDesc);
        static_cast<void>(outputDesc);
        static_cast<void>(workspace);
        static_cast<void>(stream);
        static_cast<float*>(outputs[0])[0] = mScale * static_cast<float const*>(inputs[0])[0];
        return kV3EnqueueResult;
    }

    nvinfer1::IPluginV3* attachToContext(nvinfer1::IPluginResourceContext* context) noexcept override
    {
        FullV3Plugin* const copy = new FullV3Plugin(*this);
        copy->mContext = context;
        return copy;
    }

    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override { return &mFieldCollection; }

    // Test accessors.
    float scale() const noexcept { return mScale; }

    int32_t tactic() const noexcept { return mTactic; }

    int32_t lastNbInputs() const noexcept { return mLastNbInputs; }

    int32_t lastNbOutputs() const noexcept { return mLastNbOutputs; }

    nvinfer1::IPluginResourceContext* context() const noexcept { return mContext; }

private:
    LiveCounter mCounter;
    float mScale{1.F};
    char const* mNamespace{""};
    int32_t mTactic{0};
    int32_t mLastNbInputs{0};
    int32_t mLastNbOutputs{0};
    nvinfer1::IPluginResourceContext* mContext{nullptr};
    nvinfer1::PluginField mField;
    nvinfer1::PluginFieldCollection mFieldCollection{};
};

//! The creator of FullV3Plugin; reads an optional float field "scale".
class FullV3Creator : public nvinfer1::IPluginCreatorV3One
{
public:
    FullV3Creator() noexcept
    {
        mField = nvinfer1::PluginField("scale", nullptr, nvinfer1::PluginFieldType::kFLOAT32, 1);
        mFieldNames.nbFields = 1;
        mFieldNames.fields = &mField;
    }

    ~FullV3Creator() override = default;

    // IPluginCreatorV3One (slots 4-8).
    nvinfer1::IPluginV3* createPlugin(nvinfer1::AsciiChar const* name, nvinfer1::PluginFieldCollection const* fc,
        nvinfer1::TensorRTPhase phase) noexcept override
    {
        if (name == nullptr || std::strcmp(name, kV3PluginName) != 0)
        {
            return nullptr;
        }
        float scale = 1.F;
        for (int32_t i = 0; fc != nullptr && i < fc->nbFields; ++i)
        {
            nvinfer1::PluginField const& field = fc->fields[i];
            if (std::strcmp(field.name, "scale") == 0 && field.type == nvinfer1::PluginFieldType::kFLOAT32
                && field.length == 1)
            {
                scale = *static_cast<float const*>(field.data);
            }
        }
        mLastPhase = phase;
        return new FullV3Plugin(scale, mNamespace);
    }

    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override { return &mFieldNames; }

    nvinfer1::AsciiChar const* getPluginName() const noexcept override { return kV3PluginName; }

    nvinfer1::AsciiChar const* getPluginVersion() const noexcept override { return kV3PluginVersion; }

    nvinfer1::AsciiChar const* getPluginNamespace() const noexcept override { return mNamespace; }

    //! Not part of the interface: TensorRT's own V3 creators add it for initLibNvInferPlugins.
    void setPluginNamespace(char const* pluginNamespace) noexcept { mNamespace = pluginNamespace; }

    nvinfer1::TensorRTPhase lastPhase() const noexcept { return mLastPhase; }

private:
    LiveCounter mCounter;
    char const* mNamespace{""};
    nvinfer1::TensorRTPhase mLastPhase{nvinfer1::TensorRTPhase::kRUNTIME};
    nvinfer1::PluginField mField;
    nvinfer1::PluginFieldCollection mFieldNames{};
};

} // namespace kiln_test

#endif // KILN_TESTS_HEADERS_FULL_V3_PLUGIN_H
