// SPDX-License-Identifier: Apache-2.0
// Plugins that record every call made to them, for the plugin-layer tests: a complete V3 plugin (core, build and
// runtime capabilities; the build capability is a member object, as plugins may have it) and V2 plugins of levels
// 0 (IPluginV2), 1 (IPluginV2Ext), 2 (IPluginV2IOExt) and 3 (IPluginV2DynamicExt). Each object has an id
// ("original", "clone1", ...); all objects made from one original share a PluginRecord and a PluginBehaviour.
#pragma once

#include "NvInfer.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln::test
{

//! What the plugins of one family did.
struct PluginRecord
{
    std::vector<std::string> calls; //!< "id:method", in order.
    int32_t clones{};               //!< Successful clone() calls.
    int32_t alive{};                //!< Objects not yet destroyed.
    std::vector<std::string> destroyed;

    //! The calls made to the object id, in order, without the id.
    std::vector<std::string> callsOf(std::string const& id) const
    {
        std::vector<std::string> result;
        for (auto const& call : calls)
        {
            if (call.size() > id.size() && call.compare(0, id.size(), id) == 0 && call[id.size()] == ':')
            {
                result.push_back(call.substr(id.size() + 1));
            }
        }
        return result;
    }
};

//! How the plugins of one family behave.
struct PluginBehaviour
{
    bool cloneFails{};
    bool noCore{};
    bool noBuild{};
    char const* buildKind{"PLUGIN_V3ONE_BUILD"};
    int32_t buildMajor{1};
    int32_t nbOutputs{2};
    int32_t outputTypesStatus{0};
    bool invalidOutputType{};    //!< Output types are reported as DataType 99.
    int32_t v2VersionOverride{}; //!< Non-zero: what getTensorRTVersion() of a level 0 or 3 V2 plugin reports.
};

//! The family's shared state.
struct PluginFamily
{
    PluginRecord record;
    PluginBehaviour behaviour;
};

//! Output i has the type of input 0 (kFLOAT without inputs) for i == 0, and kINT32 after.
inline nvinfer1::DataType recordedOutputType(int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs)
{
    return index == 0 ? (nbInputs > 0 ? inputTypes[0] : nvinfer1::DataType::kFLOAT) : nvinfer1::DataType::kINT32;
}

//! Counts an object of a family for its lifetime.
class FamilyMember
{
public:
    FamilyMember(std::shared_ptr<PluginFamily> family, std::string id)
        : mFamily(std::move(family))
        , mId(std::move(id))
    {
        ++mFamily->record.alive;
    }
    FamilyMember(FamilyMember const&) = delete;
    FamilyMember& operator=(FamilyMember const&) = delete;
    ~FamilyMember()
    {
        --mFamily->record.alive;
        mFamily->record.destroyed.push_back(mId);
    }

    void record(std::string const& call) const
    {
        std::string entry = mId;
        entry += ':';
        entry += call;
        mFamily->record.calls.push_back(std::move(entry));
    }
    PluginFamily& family() const { return *mFamily; }
    std::shared_ptr<PluginFamily> const& shared() const { return mFamily; }
    //! The id of the next clone.
    std::string nextCloneId() const
    {
        std::string id = "clone";
        id += std::to_string(mFamily->record.clones + 1);
        return id;
    }

private:
    std::shared_ptr<PluginFamily> mFamily;
    std::string mId;
};

//! A complete V3 plugin "Recording" version "1" namespace "test".
class RecordingV3Plugin final : public nvinfer1::IPluginV3,
                                public nvinfer1::IPluginV3OneCore,
                                public nvinfer1::IPluginV3OneRuntime
{
public:
    explicit RecordingV3Plugin(std::shared_ptr<PluginFamily> family, std::string id = "original")
        : mMember(std::move(family), std::move(id))
    {
    }

    nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept override
    {
        PluginBehaviour const& behaviour = mMember.family().behaviour;
        switch (type)
        {
        case nvinfer1::PluginCapabilityType::kCORE:
            mMember.record("getCapabilityInterface(kCORE)");
            return behaviour.noCore ? nullptr : static_cast<nvinfer1::IPluginV3OneCore*>(this);
        case nvinfer1::PluginCapabilityType::kBUILD:
            mMember.record("getCapabilityInterface(kBUILD)");
            return behaviour.noBuild ? nullptr : &mBuild;
        case nvinfer1::PluginCapabilityType::kRUNTIME:
            mMember.record("getCapabilityInterface(kRUNTIME)");
            return static_cast<nvinfer1::IPluginV3OneRuntime*>(this);
        }
        return nullptr;
    }

    nvinfer1::IPluginV3* clone() noexcept override
    {
        mMember.record("clone");
        if (mMember.family().behaviour.cloneFails)
        {
            return nullptr;
        }
        auto* copy = new RecordingV3Plugin(mMember.shared(), mMember.nextCloneId());
        ++mMember.family().record.clones;
        return copy;
    }

    char const* getPluginName() const noexcept override { return "Recording"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    char const* getPluginNamespace() const noexcept override { return "test"; }

    int32_t onShapeChange(
        nvinfer1::PluginTensorDesc const*, int32_t, nvinfer1::PluginTensorDesc const*, int32_t) noexcept override
    {
        return 0;
    }
    int32_t enqueue(nvinfer1::PluginTensorDesc const*, nvinfer1::PluginTensorDesc const*, void const* const*,
        void* const*, void*, cudaStream_t) noexcept override
    {
        return 0;
    }
    nvinfer1::IPluginV3* attachToContext(nvinfer1::IPluginResourceContext*) noexcept override { return clone(); }
    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override { return &mFields; }

private:
    class Build final : public nvinfer1::IPluginV3OneBuild
    {
    public:
        explicit Build(RecordingV3Plugin& owner)
            : mOwner(owner)
        {
        }
        nvinfer1::InterfaceInfo getInterfaceInfo() const noexcept override
        {
            PluginBehaviour const& behaviour = mOwner.mMember.family().behaviour;
            return nvinfer1::InterfaceInfo{behaviour.buildKind, behaviour.buildMajor, 0};
        }
        int32_t configurePlugin(nvinfer1::DynamicPluginTensorDesc const*, int32_t,
            nvinfer1::DynamicPluginTensorDesc const*, int32_t) noexcept override
        {
            mOwner.mMember.record("configurePlugin");
            return 0;
        }
        int32_t getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t nbOutputs,
            nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override
        {
            std::string call = "getOutputDataTypes(";
            call += std::to_string(nbOutputs);
            call += ';';
            for (int32_t i = 0; i < nbInputs; ++i)
            {
                call += ' ';
                call += std::to_string(static_cast<int32_t>(inputTypes[i]));
            }
            call += ')';
            mOwner.mMember.record(call);
            for (int32_t i = 0; i < nbOutputs; ++i)
            {
                outputTypes[i] = mOwner.mMember.family().behaviour.invalidOutputType
                    ? static_cast<nvinfer1::DataType>(99)
                    : recordedOutputType(i, inputTypes, nbInputs);
            }
            return mOwner.mMember.family().behaviour.outputTypesStatus;
        }
        int32_t getOutputShapes(nvinfer1::DimsExprs const*, int32_t, nvinfer1::DimsExprs const*, int32_t,
            nvinfer1::DimsExprs*, int32_t, nvinfer1::IExprBuilder&) noexcept override
        {
            mOwner.mMember.record("getOutputShapes");
            return 0;
        }
        bool supportsFormatCombination(
            int32_t, nvinfer1::DynamicPluginTensorDesc const*, int32_t, int32_t) noexcept override
        {
            return true;
        }
        int32_t getNbOutputs() const noexcept override
        {
            mOwner.mMember.record("getNbOutputs");
            return mOwner.mMember.family().behaviour.nbOutputs;
        }

    private:
        RecordingV3Plugin& mOwner;
    };

    FamilyMember mMember;
    Build mBuild{*this};
    nvinfer1::PluginFieldCollection mFields{};
};

//! What every V2 recording plugin shares; Base is the V2 interface of the level.
template <typename Base>
class RecordingV2Common : public Base
{
public:
    RecordingV2Common(std::shared_ptr<PluginFamily> family, std::string id)
        : mMember(std::move(family), std::move(id))
    {
    }

    char const* getPluginType() const noexcept override { return "RecordingV2"; }
    char const* getPluginVersion() const noexcept override { return "2"; }
    int32_t getNbOutputs() const noexcept override
    {
        mMember.record("getNbOutputs");
        return mMember.family().behaviour.nbOutputs;
    }
    int32_t initialize() noexcept override { return 0; }
    void terminate() noexcept override {}
    size_t getSerializationSize() const noexcept override { return 0; }
    void serialize(void*) const noexcept override {}
    void destroy() noexcept override
    {
        mMember.record("destroy");
        delete this;
    }
    void setPluginNamespace(char const* pluginNamespace) noexcept override { mNamespace = pluginNamespace; }
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

protected:
    ~RecordingV2Common() override = default;

    //! A new object of the same class, or nullptr when the family's clones fail.
    template <typename Self>
    Self* cloneAs() const
    {
        mMember.record("clone");
        if (mMember.family().behaviour.cloneFails)
        {
            return nullptr;
        }
        auto* copy = new Self(mMember.shared(), mMember.nextCloneId());
        ++mMember.family().record.clones;
        return copy;
    }

    FamilyMember mMember;
    std::string mNamespace{"testV2"};
};

//! Level 0.
class RecordingV2Plugin final : public RecordingV2Common<nvinfer1::IPluginV2>
{
public:
    explicit RecordingV2Plugin(std::shared_ptr<PluginFamily> family, std::string id = "original")
        : RecordingV2Common(std::move(family), std::move(id))
    {
    }
    int32_t getTensorRTVersion() const noexcept override
    {
        int32_t const forced = mMember.family().behaviour.v2VersionOverride;
        return forced != 0 ? forced : IPluginV2::getTensorRTVersion();
    }
    nvinfer1::Dims getOutputDimensions(int32_t, nvinfer1::Dims const* inputs, int32_t) noexcept override
    {
        return inputs[0];
    }
    bool supportsFormat(nvinfer1::DataType, nvinfer1::PluginFormat) const noexcept override { return true; }
    void configureWithFormat(nvinfer1::Dims const*, int32_t, nvinfer1::Dims const*, int32_t, nvinfer1::DataType,
        nvinfer1::PluginFormat, int32_t) noexcept override
    {
    }
    size_t getWorkspaceSize(int32_t) const noexcept override { return 0; }
    int32_t enqueue(int32_t, void const* const*, void* const*, void*, cudaStream_t) noexcept override { return 0; }
    nvinfer1::IPluginV2* clone() const noexcept override { return cloneAs<RecordingV2Plugin>(); }
};

//! Level 1.
class RecordingV2ExtPlugin final : public RecordingV2Common<nvinfer1::IPluginV2Ext>
{
public:
    explicit RecordingV2ExtPlugin(std::shared_ptr<PluginFamily> family, std::string id = "original")
        : RecordingV2Common(std::move(family), std::move(id))
    {
    }
    nvinfer1::Dims getOutputDimensions(int32_t, nvinfer1::Dims const* inputs, int32_t) noexcept override
    {
        return inputs[0];
    }
    bool supportsFormat(nvinfer1::DataType, nvinfer1::PluginFormat) const noexcept override { return true; }
    size_t getWorkspaceSize(int32_t) const noexcept override { return 0; }
    int32_t enqueue(int32_t, void const* const*, void* const*, void*, cudaStream_t) noexcept override { return 0; }
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override
    {
        std::string call = "getOutputDataType(";
        call += std::to_string(index);
        call += ')';
        mMember.record(call);
        return recordedOutputType(index, inputTypes, nbInputs);
    }
    bool isOutputBroadcastAcrossBatch(int32_t, bool const*, int32_t) const noexcept override { return false; }
    bool canBroadcastInputAcrossBatch(int32_t) const noexcept override { return false; }
    void configurePlugin(nvinfer1::Dims const*, int32_t, nvinfer1::Dims const*, int32_t, nvinfer1::DataType const*,
        nvinfer1::DataType const*, bool const*, bool const*, nvinfer1::PluginFormat, int32_t) noexcept override
    {
    }
    nvinfer1::IPluginV2Ext* clone() const noexcept override { return cloneAs<RecordingV2ExtPlugin>(); }
};

//! Level 2.
class RecordingV2IOExtPlugin final : public RecordingV2Common<nvinfer1::IPluginV2IOExt>
{
public:
    explicit RecordingV2IOExtPlugin(std::shared_ptr<PluginFamily> family, std::string id = "original")
        : RecordingV2Common(std::move(family), std::move(id))
    {
    }
    nvinfer1::Dims getOutputDimensions(int32_t, nvinfer1::Dims const* inputs, int32_t) noexcept override
    {
        return inputs[0];
    }
    size_t getWorkspaceSize(int32_t) const noexcept override { return 0; }
    int32_t enqueue(int32_t, void const* const*, void* const*, void*, cudaStream_t) noexcept override { return 0; }
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override
    {
        std::string call = "getOutputDataType(";
        call += std::to_string(index);
        call += ')';
        mMember.record(call);
        return recordedOutputType(index, inputTypes, nbInputs);
    }
    bool isOutputBroadcastAcrossBatch(int32_t, bool const*, int32_t) const noexcept override { return false; }
    bool canBroadcastInputAcrossBatch(int32_t) const noexcept override { return false; }
    void configurePlugin(
        nvinfer1::PluginTensorDesc const*, int32_t, nvinfer1::PluginTensorDesc const*, int32_t) noexcept override
    {
    }
    bool supportsFormatCombination(int32_t, nvinfer1::PluginTensorDesc const*, int32_t, int32_t) const noexcept override
    {
        return true;
    }
    nvinfer1::IPluginV2Ext* clone() const noexcept override { return cloneAs<RecordingV2IOExtPlugin>(); }
};

//! Level 3.
class RecordingV2DynamicPlugin final : public RecordingV2Common<nvinfer1::IPluginV2DynamicExt>
{
public:
    explicit RecordingV2DynamicPlugin(std::shared_ptr<PluginFamily> family, std::string id = "original")
        : RecordingV2Common(std::move(family), std::move(id))
    {
    }
    int32_t getTensorRTVersion() const noexcept override
    {
        int32_t const forced = mMember.family().behaviour.v2VersionOverride;
        return forced != 0 ? forced : IPluginV2DynamicExt::getTensorRTVersion();
    }
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override
    {
        std::string call = "getOutputDataType(";
        call += std::to_string(index);
        call += ')';
        mMember.record(call);
        return mMember.family().behaviour.invalidOutputType ? static_cast<nvinfer1::DataType>(99)
                                                            : recordedOutputType(index, inputTypes, nbInputs);
    }
    nvinfer1::DimsExprs getOutputDimensions(
        int32_t, nvinfer1::DimsExprs const* inputs, int32_t, nvinfer1::IExprBuilder&) noexcept override
    {
        return inputs[0];
    }
    bool supportsFormatCombination(int32_t, nvinfer1::PluginTensorDesc const*, int32_t, int32_t) noexcept override
    {
        return true;
    }
    void configurePlugin(nvinfer1::DynamicPluginTensorDesc const*, int32_t, nvinfer1::DynamicPluginTensorDesc const*,
        int32_t) noexcept override
    {
    }
    size_t getWorkspaceSize(
        nvinfer1::PluginTensorDesc const*, int32_t, nvinfer1::PluginTensorDesc const*, int32_t) const noexcept override
    {
        return 0;
    }
    int32_t enqueue(nvinfer1::PluginTensorDesc const*, nvinfer1::PluginTensorDesc const*, void const* const*,
        void* const*, void*, cudaStream_t) noexcept override
    {
        return 0;
    }
    nvinfer1::IPluginV2DynamicExt* clone() const noexcept override { return cloneAs<RecordingV2DynamicPlugin>(); }
};

} // namespace kiln::test
