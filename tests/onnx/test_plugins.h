// SPDX-License-Identifier: Apache-2.0
// Test plugins for the ONNX parser's tests: V3 (IPluginCreatorV3One) and V2 (IPluginCreator, IPluginV2DynamicExt)
// plugins with a configurable name, version, namespace and declared fields, whose creators record every field
// collection they get. On the host backend they compute y = x * scale (+ input 1); a V3 plugin with a shape input
// makes y the shape of that input's values, filled with x repeated, times scale.
//
//     auto log = std::make_shared<CreatorLog>();
//     TestCreatorV3 creator(log, "MyOp", "1", "", {{"scale", PluginFieldType::kFLOAT32}});
//     Registration reg(creator, "");          // registered in the builder's (global) registry until destroyed
//     ... parse ...  log->builds[0].fields[0].as<float>()
#pragma once

#include "NvInfer.h"
#include "kiln/plugin_host.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace kiln::onnx_test
{

using nvinfer1::PluginField;
using nvinfer1::PluginFieldCollection;
using nvinfer1::PluginFieldType;

//! One PluginField as a creator received it, copied.
struct FieldRecord
{
    std::string name;
    PluginFieldType type{};
    int32_t length{};
    std::vector<uint8_t> bytes; //!< length elements of type's size (kCHAR: length bytes).
    bool nullData{};

    template <typename T>
    std::vector<T> as() const
    {
        std::vector<T> out(bytes.size() / sizeof(T));
        if (!out.empty())
        {
            std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
        }
        return out;
    }
    std::string chars() const { return std::string(bytes.begin(), bytes.end()); }
};

inline size_t fieldElementSize(PluginFieldType type)
{
    switch (type)
    {
    case PluginFieldType::kFLOAT16: return 2;
    case PluginFieldType::kFLOAT32: return 4;
    case PluginFieldType::kFLOAT64: return 8;
    case PluginFieldType::kINT8: return 1;
    case PluginFieldType::kINT16: return 2;
    case PluginFieldType::kINT32: return 4;
    case PluginFieldType::kCHAR: return 1;
    case PluginFieldType::kBF16: return 2;
    case PluginFieldType::kINT64: return 8;
    default: return 0;
    }
}

//! One createPlugin call.
struct CreateCall
{
    std::string name; //!< The name createPlugin got (the node's name).
    bool runtime{};   //!< V3: TensorRTPhase::kRUNTIME.
    std::vector<FieldRecord> fields;

    FieldRecord const* field(std::string const& fieldName) const
    {
        for (FieldRecord const& f : fields)
        {
            if (f.name == fieldName)
            {
                return &f;
            }
        }
        return nullptr;
    }
    std::vector<std::string> fieldNames() const
    {
        std::vector<std::string> names;
        for (FieldRecord const& f : fields)
        {
            names.push_back(f.name);
        }
        return names;
    }
};

//! What one creator and its plugins saw.
struct CreatorLog
{
    std::mutex mutex;
    std::vector<CreateCall> builds; //!< createPlugin calls for the build phase (V2: every createPlugin).
    int32_t runtimeCreates{};       //!< createPlugin(kRUNTIME) / deserializePlugin calls.
    int32_t hostRuns{};             //!< enqueueHost calls.
    //! getOutputShapes (V3) / getOutputDimensions (V2): nbInputs, nbShapeInputs of the last call.
    int32_t lastNbInputs{-1};
    int32_t lastNbShapeInputs{-1};

    void record(char const* name, PluginFieldCollection const* fc, bool runtime)
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (runtime)
        {
            ++runtimeCreates;
            return;
        }
        CreateCall call;
        call.name = name != nullptr ? name : "";
        for (int32_t i = 0; fc != nullptr && i < fc->nbFields; ++i)
        {
            PluginField const& f = fc->fields[i];
            FieldRecord r;
            r.name = f.name != nullptr ? f.name : "";
            r.type = f.type;
            r.length = f.length;
            r.nullData = f.data == nullptr;
            size_t const size = fieldElementSize(f.type) * static_cast<size_t>(f.length < 0 ? 0 : f.length);
            if (f.data != nullptr && size != 0)
            {
                auto const* p = static_cast<uint8_t const*>(f.data);
                r.bytes.assign(p, p + size);
            }
            call.fields.push_back(std::move(r));
        }
        builds.push_back(std::move(call));
    }
};

//! The scale field of a collection (1 when absent or of another type).
inline float scaleOf(PluginFieldCollection const* fc)
{
    float scale = 1.0F;
    for (int32_t i = 0; fc != nullptr && i < fc->nbFields; ++i)
    {
        PluginField const& f = fc->fields[i];
        if (f.name != nullptr && std::strcmp(f.name, "scale") == 0 && f.type == PluginFieldType::kFLOAT32
            && f.length == 1 && f.data != nullptr)
        {
            std::memcpy(&scale, f.data, sizeof(float));
        }
    }
    return scale;
}

//! Name, version, namespace.
struct Identity
{
    std::string name;
    std::string version{"1"};
    std::string pluginNamespace;
};

//! The host computation both plugins share: out = in0 * scale (+ in1 when given, same volume); when out has more
//! elements than in0 (a V3 shape-input plugin), in0 repeats.
inline void compute(float const* in0, int64_t n0, float const* in1, float* out, int64_t nOut, float scale)
{
    for (int64_t i = 0; i < nOut; ++i)
    {
        float v = n0 > 0 ? in0[i % n0] * scale : 0.0F;
        out[i] = v + (in1 != nullptr ? in1[i] : 0.0F);
    }
}

inline int64_t volume(nvinfer1::Dims const& dims)
{
    int64_t v = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        v *= dims.d[i];
    }
    return v;
}

class TestPluginV3 final : public nvinfer1::IPluginV3,
                           public nvinfer1::IPluginV3OneCore,
                           public nvinfer1::IPluginV3OneBuild,
                           public nvinfer1::IPluginV3OneRuntime,
                           public kiln::IPluginV3OneHost
{
public:
    TestPluginV3(std::shared_ptr<Identity const> identity, std::shared_ptr<CreatorLog> log, float scale)
        : mIdentity(std::move(identity))
        , mLog(std::move(log))
        , mScale(scale)
    {
    }

    nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept override
    {
        if (type == kiln::kPLUGIN_CAPABILITY_HOST)
        {
            return static_cast<kiln::IPluginV3OneHost*>(this);
        }
        switch (type)
        {
        case nvinfer1::PluginCapabilityType::kCORE: return static_cast<nvinfer1::IPluginV3OneCore*>(this);
        case nvinfer1::PluginCapabilityType::kBUILD: return static_cast<nvinfer1::IPluginV3OneBuild*>(this);
        case nvinfer1::PluginCapabilityType::kRUNTIME: return static_cast<nvinfer1::IPluginV3OneRuntime*>(this);
        }
        return nullptr;
    }
    nvinfer1::IPluginV3* clone() noexcept override
    {
        auto* copy = new TestPluginV3(mIdentity, mLog, mScale);
        copy->mNbInputs = mNbInputs;
        return copy;
    }

    char const* getPluginName() const noexcept override { return mIdentity->name.c_str(); }
    char const* getPluginVersion() const noexcept override { return mIdentity->version.c_str(); }
    char const* getPluginNamespace() const noexcept override { return mIdentity->pluginNamespace.c_str(); }

    int32_t configurePlugin(nvinfer1::DynamicPluginTensorDesc const*, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const*, int32_t) noexcept override
    {
        mNbInputs = nbInputs;
        return 0;
    }
    int32_t getOutputDataTypes(
        nvinfer1::DataType* outputTypes, int32_t, nvinfer1::DataType const*, int32_t) const noexcept override
    {
        outputTypes[0] = nvinfer1::DataType::kFLOAT;
        return 0;
    }
    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs, nvinfer1::DimsExprs const* shapeInputs,
        int32_t nbShapeInputs, nvinfer1::DimsExprs* outputs, int32_t, nvinfer1::IExprBuilder&) noexcept override
    {
        {
            std::lock_guard<std::mutex> lock(mLog->mutex);
            mLog->lastNbInputs = nbInputs;
            mLog->lastNbShapeInputs = nbShapeInputs;
        }
        if (nbShapeInputs > 0)
        {
            outputs[0] = shapeInputs[0]; // the shape input's values are the output's extents
            return 0;
        }
        if (nbInputs < 1)
        {
            return 1;
        }
        outputs[0] = inputs[0];
        return 0;
    }
    bool supportsFormatCombination(
        int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t, int32_t) noexcept override
    {
        return inOut[pos].desc.format == nvinfer1::TensorFormat::kLINEAR
            && inOut[pos].desc.type == nvinfer1::DataType::kFLOAT;
    }
    int32_t getNbOutputs() const noexcept override { return 1; }

    int32_t onShapeChange(nvinfer1::PluginTensorDesc const*, int32_t nbInputs, nvinfer1::PluginTensorDesc const*,
        int32_t) noexcept override
    {
        mNbInputs = nbInputs;
        return 0;
    }
    int32_t enqueue(nvinfer1::PluginTensorDesc const*, nvinfer1::PluginTensorDesc const*, void const* const*,
        void* const*, void*, cudaStream_t) noexcept override
    {
        return 1; // host backend only
    }
    nvinfer1::IPluginV3* attachToContext(nvinfer1::IPluginResourceContext*) noexcept override { return clone(); }
    PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {
        mField = PluginField{"scale", &mScale, PluginFieldType::kFLOAT32, 1};
        mCollection = PluginFieldCollection{1, &mField};
        return &mCollection;
    }

    int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void*) noexcept override
    {
        {
            std::lock_guard<std::mutex> lock(mLog->mutex);
            ++mLog->hostRuns;
        }
        if (mNbInputs < 1)
        {
            return 1;
        }
        float const* in1 = nullptr;
        if (mNbInputs > 1 && volume(inputDesc[1].dims) == volume(outputDesc[0].dims))
        {
            in1 = static_cast<float const*>(inputs[1]);
        }
        compute(static_cast<float const*>(inputs[0]), volume(inputDesc[0].dims), in1, static_cast<float*>(outputs[0]),
            volume(outputDesc[0].dims), mScale);
        return 0;
    }

private:
    std::shared_ptr<Identity const> mIdentity;
    std::shared_ptr<CreatorLog> mLog;
    float mScale;
    int32_t mNbInputs{0};
    PluginField mField{};
    PluginFieldCollection mCollection{};
};

//! A declared field: name and type.
struct Declared
{
    std::string name;
    PluginFieldType type{PluginFieldType::kFLOAT32};
};

//! The declared fields as a PluginFieldCollection whose names stay valid.
class DeclaredFields
{
public:
    explicit DeclaredFields(std::vector<Declared> declared)
        : mDeclared(std::move(declared))
    {
        for (Declared const& d : mDeclared)
        {
            mFields.push_back(PluginField{d.name.c_str(), nullptr, d.type, 0});
        }
        mCollection = PluginFieldCollection{static_cast<int32_t>(mFields.size()), mFields.data()};
    }
    DeclaredFields(DeclaredFields const&) = delete;
    PluginFieldCollection const* collection() const { return &mCollection; }

private:
    std::vector<Declared> mDeclared;
    std::vector<PluginField> mFields;
    PluginFieldCollection mCollection{};
};

class TestCreatorV3 final : public nvinfer1::IPluginCreatorV3One
{
public:
    TestCreatorV3(std::shared_ptr<CreatorLog> log, std::string name, std::string version = "1",
        std::string pluginNamespace = "", std::vector<Declared> declared = {{"scale", PluginFieldType::kFLOAT32}})
        : mIdentity(
            std::make_shared<Identity const>(Identity{std::move(name), std::move(version), std::move(pluginNamespace)}))
        , mLog(std::move(log))
        , mDeclared(std::move(declared))
    {
    }

    nvinfer1::IPluginV3* createPlugin(
        char const* name, PluginFieldCollection const* fc, nvinfer1::TensorRTPhase phase) noexcept override
    {
        mLog->record(name, fc, phase == nvinfer1::TensorRTPhase::kRUNTIME);
        return failCreate ? nullptr : new TestPluginV3(mIdentity, mLog, scaleOf(fc));
    }
    PluginFieldCollection const* getFieldNames() noexcept override { return mDeclared.collection(); }
    char const* getPluginName() const noexcept override { return mIdentity->name.c_str(); }
    char const* getPluginVersion() const noexcept override { return mIdentity->version.c_str(); }
    char const* getPluginNamespace() const noexcept override { return mIdentity->pluginNamespace.c_str(); }

    bool failCreate{false}; //!< createPlugin returns nullptr (after recording the call).

private:
    std::shared_ptr<Identity const> mIdentity;
    std::shared_ptr<CreatorLog> mLog;
    DeclaredFields mDeclared;
};

KILN_IGNORE_DEPRECATED_BEGIN

//! The V2 test plugin (IPluginV2DynamicExt): y = x * scale (+ input 1).
class TestPluginV2 final : public nvinfer1::IPluginV2DynamicExt
{
public:
    TestPluginV2(std::shared_ptr<Identity const> identity, std::shared_ptr<CreatorLog> log, float scale)
        : mIdentity(std::move(identity))
        , mLog(std::move(log))
        , mScale(scale)
        , mNamespace(mIdentity->pluginNamespace)
    {
    }

    char const* getPluginType() const noexcept override { return mIdentity->name.c_str(); }
    char const* getPluginVersion() const noexcept override { return mIdentity->version.c_str(); }
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }
    void setPluginNamespace(char const* pluginNamespace) noexcept override
    {
        mNamespace = pluginNamespace != nullptr ? pluginNamespace : "";
    }
    int32_t getNbOutputs() const noexcept override { return 1; }
    int32_t initialize() noexcept override { return 0; }
    void terminate() noexcept override {}
    size_t getSerializationSize() const noexcept override { return sizeof(float); }
    void serialize(void* buffer) const noexcept override { std::memcpy(buffer, &mScale, sizeof(float)); }
    void destroy() noexcept override { delete this; }
    nvinfer1::IPluginV2DynamicExt* clone() const noexcept override
    {
        auto* copy = new TestPluginV2(mIdentity, mLog, mScale);
        copy->mNamespace = mNamespace;
        copy->mNbInputs = mNbInputs;
        return copy;
    }
    nvinfer1::DimsExprs getOutputDimensions(
        int32_t, nvinfer1::DimsExprs const* inputs, int32_t nbInputs, nvinfer1::IExprBuilder&) noexcept override
    {
        {
            std::lock_guard<std::mutex> lock(mLog->mutex);
            mLog->lastNbInputs = nbInputs;
        }
        return inputs[0];
    }
    bool supportsFormatCombination(
        int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t, int32_t) noexcept override
    {
        return inOut[pos].format == nvinfer1::TensorFormat::kLINEAR && inOut[pos].type == nvinfer1::DataType::kFLOAT;
    }
    void configurePlugin(nvinfer1::DynamicPluginTensorDesc const*, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const*, int32_t) noexcept override
    {
        mNbInputs = nbInputs;
    }
    size_t getWorkspaceSize(
        nvinfer1::PluginTensorDesc const*, int32_t, nvinfer1::PluginTensorDesc const*, int32_t) const noexcept override
    {
        return 0;
    }
    int32_t enqueue(nvinfer1::PluginTensorDesc const*, nvinfer1::PluginTensorDesc const*, void const* const*,
        void* const*, void*, cudaStream_t) noexcept override
    {
        return 1; // host backend only
    }
    nvinfer1::DataType getOutputDataType(int32_t, nvinfer1::DataType const*, int32_t) const noexcept override
    {
        return nvinfer1::DataType::kFLOAT;
    }

    int32_t runHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs)
    {
        {
            std::lock_guard<std::mutex> lock(mLog->mutex);
            ++mLog->hostRuns;
        }
        float const* in1 = mNbInputs > 1 ? static_cast<float const*>(inputs[1]) : nullptr;
        compute(static_cast<float const*>(inputs[0]), volume(inputDesc[0].dims), in1, static_cast<float*>(outputs[0]),
            volume(outputDesc[0].dims), mScale);
        return 0;
    }

private:
    std::shared_ptr<Identity const> mIdentity;
    std::shared_ptr<CreatorLog> mLog;
    float mScale;
    std::string mNamespace;
    int32_t mNbInputs{1};
};

//! Runs TestPluginV2 on the host backend.
class TestRunnerV2 final : public kiln::IPluginV2HostRunner
{
public:
    int32_t enqueueHost(nvinfer1::IPluginV2& plugin, nvinfer1::PluginTensorDesc const* inputDesc,
        nvinfer1::PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs,
        void*) noexcept override
    {
        return static_cast<TestPluginV2&>(plugin).runHost(inputDesc, outputDesc, inputs, outputs);
    }
};

class TestCreatorV2 final : public nvinfer1::IPluginCreator
{
public:
    TestCreatorV2(std::shared_ptr<CreatorLog> log, std::string name, std::string version = "1",
        std::string pluginNamespace = "", std::vector<Declared> declared = {{"scale", PluginFieldType::kFLOAT32}})
        : mIdentity(
            std::make_shared<Identity const>(Identity{std::move(name), std::move(version), std::move(pluginNamespace)}))
        , mLog(std::move(log))
        , mDeclared(std::move(declared))
        , mNamespace(mIdentity->pluginNamespace)
    {
    }

    char const* getPluginName() const noexcept override { return mIdentity->name.c_str(); }
    char const* getPluginVersion() const noexcept override { return mIdentity->version.c_str(); }
    PluginFieldCollection const* getFieldNames() noexcept override { return mDeclared.collection(); }
    nvinfer1::IPluginV2* createPlugin(char const* name, PluginFieldCollection const* fc) noexcept override
    {
        mLog->record(name, fc, false);
        return new TestPluginV2(mIdentity, mLog, scaleOf(fc));
    }
    nvinfer1::IPluginV2* deserializePlugin(char const*, void const* data, size_t length) noexcept override
    {
        if (length != sizeof(float))
        {
            return nullptr;
        }
        float scale = 0.0F;
        std::memcpy(&scale, data, sizeof(float));
        {
            std::lock_guard<std::mutex> lock(mLog->mutex);
            ++mLog->runtimeCreates;
        }
        return new TestPluginV2(mIdentity, mLog, scale);
    }
    void setPluginNamespace(char const* pluginNamespace) noexcept override
    {
        mNamespace = pluginNamespace != nullptr ? pluginNamespace : "";
    }
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

private:
    std::shared_ptr<Identity const> mIdentity;
    std::shared_ptr<CreatorLog> mLog;
    DeclaredFields mDeclared;
    std::string mNamespace;
};

KILN_IGNORE_DEPRECATED_END

//! Keeps a creator registered in the builder's registry (kiln's builder uses the global one) under its own namespace.
class Registration
{
public:
    explicit Registration(nvinfer1::IPluginCreatorInterface& creator, char const* pluginNamespace)
        : mCreator(creator)
        , mRegistered(getPluginRegistry()->registerCreator(creator, pluginNamespace))
    {
    }
    Registration(Registration const&) = delete;
    ~Registration()
    {
        if (mRegistered)
        {
            getPluginRegistry()->deregisterCreator(mCreator);
        }
    }
    bool ok() const { return mRegistered; }

private:
    nvinfer1::IPluginCreatorInterface& mCreator;
    bool mRegistered;
};

} // namespace kiln::onnx_test
