// SPDX-License-Identifier: Apache-2.0
// Finding a V3 plugin's host capability (src/plugin/host_capability.h) without calling the plugin outside TensorRT's
// contract: a plugin whose class derives from kiln::IPluginV3OneHost is found as that base and runs through the pointer
// found; a plugin written for TensorRT alone is not found and never sees a capability type TensorRT would not send; a
// host capability of another major version is refused; a host object of its own is asked for only once the plugin is
// declared with kilnRegisterPluginV3Host(). Refusals name the plugin and say how to opt in.
#include "plugin/host_capability.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace
{

using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::DynamicPluginTensorDesc;
using nvinfer1::IPluginCapability;
using nvinfer1::IPluginV3;
using nvinfer1::PluginCapabilityType;
using nvinfer1::PluginTensorDesc;

constexpr char const* kName = "Doubler";
constexpr char const* kVersion = "2";
constexpr char const* kNamespace = "test.ns";

//! The TensorRT part of a plugin that doubles a float tensor: core, build and runtime capabilities, with enqueue
//! doing the work on host pointers (there is no GPU here). Derived classes decide what getCapabilityInterface()
//! answers for types other than kCORE, kBUILD and kRUNTIME.
class DoublerBase : public IPluginV3,
                    public nvinfer1::IPluginV3OneCore,
                    public nvinfer1::IPluginV3OneBuild,
                    public nvinfer1::IPluginV3OneRuntime
{
public:
    //! The TensorRT capabilities, or nullptr for another type.
    IPluginCapability* tensorRTCapability(PluginCapabilityType type) noexcept
    {
        switch (type)
        {
        case PluginCapabilityType::kCORE: return static_cast<IPluginV3OneCore*>(this);
        case PluginCapabilityType::kBUILD: return static_cast<IPluginV3OneBuild*>(this);
        case PluginCapabilityType::kRUNTIME: return static_cast<IPluginV3OneRuntime*>(this);
        }
        return nullptr;
    }

    char const* getPluginName() const noexcept override { return kName; }
    char const* getPluginVersion() const noexcept override { return kVersion; }
    char const* getPluginNamespace() const noexcept override { return kNamespace; }

    int32_t configurePlugin(DynamicPluginTensorDesc const* /*in*/, int32_t /*nbInputs*/,
        DynamicPluginTensorDesc const* /*out*/, int32_t /*nbOutputs*/) noexcept override
    {
        return 0;
    }
    int32_t getOutputDataTypes(
        DataType* outputTypes, int32_t nbOutputs, DataType const* inputTypes, int32_t nbInputs) const noexcept override
    {
        if (nbOutputs != 1 || nbInputs != 1)
        {
            return -1;
        }
        outputTypes[0] = inputTypes[0];
        return 0;
    }
    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::DimsExprs const* /*shapeInputs*/, int32_t /*nbShapeInputs*/, nvinfer1::DimsExprs* outputs,
        int32_t nbOutputs, nvinfer1::IExprBuilder& /*exprBuilder*/) noexcept override
    {
        if (nbOutputs != 1 || nbInputs != 1)
        {
            return -1;
        }
        outputs[0] = inputs[0];
        return 0;
    }
    bool supportsFormatCombination(int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t /*nbInputs*/,
        int32_t /*nbOutputs*/) noexcept override
    {
        return inOut[pos].desc.type == DataType::kFLOAT && inOut[pos].desc.format == nvinfer1::TensorFormat::kLINEAR;
    }
    int32_t getNbOutputs() const noexcept override { return 1; }

    int32_t onShapeChange(PluginTensorDesc const* in, int32_t nbInputs, PluginTensorDesc const* /*out*/,
        int32_t nbOutputs) noexcept override
    {
        if (nbInputs != 1 || nbOutputs != 1)
        {
            return -1;
        }
        mVolume = 1;
        for (int32_t i = 0; i < in[0].dims.nbDims; ++i)
        {
            mVolume *= in[0].dims.d[i];
        }
        return 0;
    }
    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc, void const* const* inputs,
        void* const* outputs, void* workspace, cudaStream_t /*stream*/) noexcept override
    {
        return run(inputDesc, outputDesc, inputs, outputs, workspace);
    }
    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override { return &mFields; }

    int32_t enqueueCalls() const noexcept { return mEnqueueCalls; }

protected:
    //! output[0] = 2 * input[0] over the volume onShapeChange() saw.
    int32_t run(PluginTensorDesc const* /*inputDesc*/, PluginTensorDesc const* /*outputDesc*/,
        void const* const* inputs, void* const* outputs, void* /*workspace*/) noexcept
    {
        ++mEnqueueCalls;
        auto const* in = static_cast<float const*>(inputs[0]);
        auto* out = static_cast<float*>(outputs[0]);
        for (int64_t i = 0; i < mVolume; ++i)
        {
            out[i] = 2.F * in[i];
        }
        return 0;
    }

private:
    int64_t mVolume{0};
    int32_t mEnqueueCalls{0};
    nvinfer1::PluginFieldCollection mFields{};
};

//! The doubler with kiln's host capability, reported by HostBase (kiln::IPluginV3OneHost, or a subclass that
//! reports another version): five bases, as a plugin for both TensorRT and kiln's host backend is written.
template <typename HostBase>
class HostDoubler final : public DoublerBase, public HostBase
{
public:
    IPluginCapability* getCapabilityInterface(PluginCapabilityType type) noexcept override
    {
        if (type == kiln::kPLUGIN_CAPABILITY_HOST)
        {
            return static_cast<HostBase*>(this);
        }
        return tensorRTCapability(type);
    }
    IPluginV3* clone() noexcept override { return new HostDoubler(*this); }
    IPluginV3* attachToContext(nvinfer1::IPluginResourceContext* /*context*/) noexcept override { return clone(); }

    int32_t enqueueHost(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace) noexcept override
    {
        ++mHostCalls;
        return run(inputDesc, outputDesc, inputs, outputs, workspace);
    }

    int32_t hostCalls() const noexcept { return mHostCalls; }

private:
    int32_t mHostCalls{0};
};

//! A host capability from a future major version of the interface.
class HostMajorTwo : public kiln::IPluginV3OneHost
{
public:
    nvinfer1::InterfaceInfo getInterfaceInfo() const noexcept override { return {"KILN_PLUGIN_V3ONE_HOST", 2, 0}; }
};

//! How a plugin without the host capability answers a capability type it does not know.
enum class UnknownAnswer
{
    kNULL, //!< nullptr, as the TensorRT samples do.
    kCORE, //!< Its core capability: the switch's default, or the last return after ifs for kBUILD and kRUNTIME.
};

//! The doubler as written for TensorRT alone.
class CudaOnlyDoubler final : public DoublerBase
{
public:
    explicit CudaOnlyDoubler(UnknownAnswer answer)
        : mAnswer(answer)
    {
    }
    IPluginCapability* getCapabilityInterface(PluginCapabilityType type) noexcept override
    {
        IPluginCapability* const known = tensorRTCapability(type);
        if (known == nullptr)
        {
            ++mUnknownCalls; // where a plugin written for TensorRT asserts
        }
        if (known == nullptr && mAnswer == UnknownAnswer::kCORE)
        {
            return static_cast<IPluginV3OneCore*>(this);
        }
        return known;
    }
    IPluginV3* clone() noexcept override { return new CudaOnlyDoubler(*this); }
    IPluginV3* attachToContext(nvinfer1::IPluginResourceContext* /*context*/) noexcept override { return clone(); }

    int32_t unknownCalls() const noexcept { return mUnknownCalls; }

private:
    UnknownAnswer mAnswer;
    int32_t mUnknownCalls{0};
};

//! The host capability as an object of its own, which the plugin hands out for kPLUGIN_CAPABILITY_HOST: kiln cannot
//! find it as a base class, so the plugin must be declared with kilnRegisterPluginV3Host().
class SeparateHostDoubler final : public DoublerBase
{
public:
    class Host final : public kiln::IPluginV3OneHost
    {
    public:
        int32_t enqueueHost(
            PluginTensorDesc const*, PluginTensorDesc const*, void const* const*, void* const*, void*) noexcept override
        {
            return 0;
        }
    };

    IPluginCapability* getCapabilityInterface(PluginCapabilityType type) noexcept override
    {
        if (type == kiln::kPLUGIN_CAPABILITY_HOST)
        {
            ++mHostAsked;
            return &mHost;
        }
        return tensorRTCapability(type);
    }
    IPluginV3* clone() noexcept override { return new SeparateHostDoubler; }
    IPluginV3* attachToContext(nvinfer1::IPluginResourceContext* /*context*/) noexcept override { return clone(); }

    kiln::IPluginV3OneHost* host() noexcept { return &mHost; }
    int32_t hostAsked() const noexcept { return mHostAsked; }

private:
    Host mHost;
    int32_t mHostAsked{0};
};

//! A plugin with no capability at all, so nothing names it.
class NoCapabilities final : public IPluginV3
{
public:
    IPluginCapability* getCapabilityInterface(PluginCapabilityType /*type*/) noexcept override { return nullptr; }
    IPluginV3* clone() noexcept override { return new NoCapabilities(*this); }
};

PluginTensorDesc floatDesc(Dims const& dims)
{
    PluginTensorDesc desc{};
    desc.dims = dims;
    desc.type = DataType::kFLOAT;
    desc.format = nvinfer1::TensorFormat::kLINEAR;
    desc.scale = 1.F;
    return desc;
}

std::string const kRefusal = std::string("plugin \"Doubler\" version \"2\" namespace \"test.ns\" cannot run on kiln's ")
    + "host backend: it offers no kiln::IPluginV3OneHost (include/kiln/plugin_host.h); ";
std::string const kAdvice = " (build the engine for the CUDA backend, or add the host capability to the plugin)";

} // namespace

TEST(HostCapability, FoundAndRunsThroughTheFoundPointer)
{
    HostDoubler<kiln::IPluginV3OneHost> original;
    // As the host backend will: on the clone attached to the context, after onShapeChange.
    std::unique_ptr<IPluginV3> attached{original.attachToContext(nullptr)};
    ASSERT_NE(attached, nullptr);
    kiln::IPluginV3OneHost* const host = kiln::findHostCapability(*attached);
    ASSERT_NE(host, nullptr);
    auto& concrete = static_cast<HostDoubler<kiln::IPluginV3OneHost>&>(*attached);
    EXPECT_EQ(host, static_cast<kiln::IPluginV3OneHost*>(&concrete)); // the adjusted sub-object, not the plugin
    EXPECT_NE(static_cast<void*>(host), static_cast<void*>(attached.get()));

    Dims const dims{2, {2, 3}};
    PluginTensorDesc const in = floatDesc(dims);
    PluginTensorDesc const out = floatDesc(dims);
    auto* const runtime
        = static_cast<nvinfer1::IPluginV3OneRuntime*>(attached->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
    ASSERT_EQ(runtime->onShapeChange(&in, 1, &out, 1), 0);
    std::vector<float> const input{1.F, -2.F, 0.5F, 3.F, 0.F, 100.F};
    std::vector<float> output(input.size(), -1.F);
    void const* const inputs[] = {input.data()};
    void* const outputs[] = {output.data()};
    EXPECT_EQ(host->enqueueHost(&in, &out, inputs, outputs, nullptr), 0);
    EXPECT_EQ(output, (std::vector<float>{2.F, -4.F, 1.F, 6.F, 0.F, 200.F}));
    EXPECT_EQ(concrete.hostCalls(), 1);
    EXPECT_EQ(concrete.enqueueCalls(), 1);

    kiln::Expected<kiln::IPluginV3OneHost*> const required = kiln::requireHostCapability(*attached);
    ASSERT_TRUE(required.ok());
    EXPECT_EQ(required.value(), host);
}

TEST(HostCapability, ATensorRTOnlyPluginIsNotFoundAndNeverAskedOutsideTheContract)
{
    for (UnknownAnswer const answer : {UnknownAnswer::kNULL, UnknownAnswer::kCORE})
    {
        CudaOnlyDoubler plugin(answer);
        EXPECT_EQ(kiln::findHostCapability(plugin), nullptr);
        std::string const expected = kRefusal
            + "its class does not derive from kiln::IPluginV3OneHost, and it was not declared with "
              "kilnRegisterPluginV3Host()"
            + kAdvice;
        EXPECT_EQ(kiln::hostCapabilityProblem(plugin), expected);
        kiln::Expected<kiln::IPluginV3OneHost*> const required = kiln::requireHostCapability(plugin);
        ASSERT_FALSE(required.ok());
        EXPECT_EQ(required.error().code, nvinfer1::ErrorCode::kUNSUPPORTED_STATE);
        EXPECT_EQ(required.error().message, expected);
        // A plugin written for TensorRT alone never sees a capability type TensorRT would not send.
        EXPECT_EQ(plugin.unknownCalls(), 0);
        EXPECT_EQ(plugin.enqueueCalls(), 0);
    }
}

TEST(HostCapability, AnotherMajorVersionIsNotFound)
{
    HostDoubler<HostMajorTwo> plugin;
    EXPECT_EQ(kiln::findHostCapability(plugin), nullptr);
    EXPECT_EQ(kiln::hostCapabilityProblem(plugin),
        kRefusal
            + "its host capability reports \"KILN_PLUGIN_V3ONE_HOST\" version 2.0, where kiln needs "
              "\"KILN_PLUGIN_V3ONE_HOST\" version 1"
            + kAdvice);
    EXPECT_EQ(plugin.hostCalls(), 0);
}

TEST(HostCapability, AHostObjectOfItsOwnIsAskedForOnlyOnceDeclared)
{
    SeparateHostDoubler plugin;
    EXPECT_EQ(kiln::findHostCapability(plugin), nullptr);
    EXPECT_EQ(plugin.hostAsked(), 0);

    ASSERT_TRUE(kilnRegisterPluginV3Host(kName, kVersion, kNamespace));
    EXPECT_FALSE(kilnRegisterPluginV3Host(kName, kVersion, kNamespace)); // declared already
    EXPECT_EQ(kiln::findHostCapability(plugin), plugin.host());
    EXPECT_EQ(plugin.hostAsked(), 1);

    ASSERT_TRUE(kilnDeregisterPluginV3Host(kName, kVersion, kNamespace));
    EXPECT_FALSE(kilnDeregisterPluginV3Host(kName, kVersion, kNamespace));
    EXPECT_FALSE(kilnRegisterPluginV3Host(nullptr, kVersion, kNamespace));
    EXPECT_EQ(kiln::findHostCapability(plugin), nullptr);
    EXPECT_EQ(plugin.hostAsked(), 1);
}

TEST(HostCapability, PluginWithoutCoreIsNamedAsNull)
{
    NoCapabilities plugin;
    EXPECT_EQ(kiln::findHostCapability(plugin), nullptr);
    EXPECT_EQ(kiln::hostCapabilityProblem(plugin).rfind("plugin (null) version (null) namespace (null) cannot run "
                                                        "on kiln's host backend: ",
                  0),
        0U);
}
