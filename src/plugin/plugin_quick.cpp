// SPDX-License-Identifier: Apache-2.0
#include "plugin/plugin_quick.h"

#include "core/logging.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <utility>

namespace kiln
{

using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::DimsExprs;
using nvinfer1::DynamicPluginTensorDesc;
using nvinfer1::IPluginV3;
using nvinfer1::PluginTensorDesc;

bool isQuickKind(nvinfer1::InterfaceInfo const& info, char const* kind) noexcept
{
    return info.kind != nullptr && std::strcmp(info.kind, kind) == 0 && info.major == 1;
}

Dims linearStrides(Dims const& dims) noexcept
{
    Dims strides{};
    strides.nbDims = std::clamp(dims.nbDims, 0, Dims::MAX_DIMS);
    int64_t stride = 1;
    for (int32_t axis = strides.nbDims - 1; axis >= 0; --axis)
    {
        strides.d[axis] = stride;
        stride *= std::max<int64_t>(dims.d[axis], 1);
    }
    return strides;
}

namespace
{

std::vector<Dims> stridesOf(PluginTensorDesc const* descs, int32_t count)
{
    std::vector<Dims> strides;
    for (int32_t i = 0; i < count; ++i)
    {
        strides.push_back(linearStrides(descs[i].dims));
    }
    return strides;
}

} // namespace

// ---- Core -----------------------------------------------------------------------------------------------------------

class QuickCoreAdapter final : public nvinfer1::IPluginV3OneCore
{
public:
    explicit QuickCoreAdapter(nvinfer1::IPluginV3QuickCore& quick)
        : mQuick(quick)
    {
    }
    nvinfer1::AsciiChar const* getPluginName() const noexcept override { return mQuick.getPluginName(); }
    nvinfer1::AsciiChar const* getPluginVersion() const noexcept override { return mQuick.getPluginVersion(); }
    nvinfer1::AsciiChar const* getPluginNamespace() const noexcept override { return mQuick.getPluginNamespace(); }

private:
    nvinfer1::IPluginV3QuickCore& mQuick;
};

// ---- Build ----------------------------------------------------------------------------------------------------------

class QuickBuildAdapter final : public nvinfer1::IPluginV3OneBuildV2
{
public:
    QuickBuildAdapter(nvinfer1::IPluginV3QuickBuild& quick, std::string const& who)
        : mQuick(quick)
        , mWho(who)
    {
    }

    void setInputRanks(std::vector<int32_t> ranks) { mRanks = std::move(ranks); }

    int32_t configurePlugin(DynamicPluginTensorDesc const* in, int32_t nbInputs, DynamicPluginTensorDesc const* out,
        int32_t nbOutputs) noexcept override
    {
        return mQuick.configurePlugin(in, nbInputs, out, nbOutputs);
    }

    int32_t getOutputDataTypes(
        DataType* outputTypes, int32_t nbOutputs, DataType const* inputTypes, int32_t nbInputs) const noexcept override
    {
        std::vector<int32_t> ranks(static_cast<std::size_t>(std::max(nbInputs, 0)), -1);
        std::copy_n(mRanks.begin(), std::min(mRanks.size(), ranks.size()), ranks.begin());
        return mQuick.getOutputDataTypes(outputTypes, nbOutputs, inputTypes, ranks.data(), nbInputs);
    }

    int32_t getOutputShapes(DimsExprs const* inputs, int32_t nbInputs, DimsExprs const* shapeInputs,
        int32_t nbShapeInputs, DimsExprs* outputs, int32_t nbOutputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override
    {
        return mQuick.getOutputShapes(inputs, nbInputs, shapeInputs, nbShapeInputs, outputs, nbOutputs, exprBuilder);
    }

    bool supportsFormatCombination(
        int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept override
    {
        int32_t const nbIo = nbInputs + nbOutputs;
        if (pos < 0 || pos >= nbIo)
        {
            return false;
        }
        std::vector<DataType> types;
        for (int32_t i = 0; i < nbIo; ++i)
        {
            types.push_back(inOut[i].desc.type);
        }
        if (pos == 0 || !mListed || mListedTypes != types)
        {
            mListed = listCombinations(inOut, nbInputs, nbOutputs);
            mListedTypes = std::move(types);
        }
        auto const width = static_cast<std::size_t>(nbIo);
        for (std::size_t start = 0; start + width <= mListed->size(); start += width)
        {
            bool matches = true;
            for (int32_t i = 0; i <= pos && matches; ++i)
            {
                PluginTensorDesc const& listed = (*mListed)[start + static_cast<std::size_t>(i)];
                matches = listed.type == inOut[i].desc.type && listed.format == inOut[i].desc.format;
            }
            if (matches)
            {
                return true;
            }
        }
        return false;
    }

    int32_t getNbOutputs() const noexcept override { return mQuick.getNbOutputs(); }

    size_t getWorkspaceSize(DynamicPluginTensorDesc const* /*inputs*/, int32_t /*nbInputs*/,
        DynamicPluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const noexcept override
    {
        return 0;
    }

    int32_t getValidTactics(int32_t* tactics, int32_t nbTactics) noexcept override
    {
        return mQuick.getValidTactics(tactics, nbTactics);
    }
    int32_t getNbTactics() noexcept override { return mQuick.getNbTactics(); }
    char const* getTimingCacheID() noexcept override { return mQuick.getTimingCacheID(); }
    char const* getMetadataString() noexcept override { return mQuick.getMetadataString(); }
    int32_t getAliasedInput(int32_t outputIndex) noexcept override { return mQuick.getAliasedInput(outputIndex); }

private:
    //! The combinations the plugin lists for inOut (flat, nbInputs + nbOutputs descriptors each); an empty list,
    //! logged, when the plugin fails.
    std::vector<PluginTensorDesc> listCombinations(
        DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs)
    {
        int32_t const count = mQuick.getNbSupportedFormatCombinations(inOut, nbInputs, nbOutputs);
        if (count <= 0)
        {
            log(Severity::kERROR,
                mWho + ": getNbSupportedFormatCombinations() returned " + std::to_string(count)
                    + "; a Quick plugin lists at least one type and format combination");
            return {};
        }
        constexpr int32_t kMostCombinations = 1 << 16;
        if (count > kMostCombinations)
        {
            log(Severity::kERROR,
                mWho + ": getNbSupportedFormatCombinations() returned " + std::to_string(count)
                    + "; kiln takes at most " + std::to_string(kMostCombinations));
            return {};
        }
        std::vector<PluginTensorDesc> list(
            static_cast<std::size_t>(count) * static_cast<std::size_t>(nbInputs + nbOutputs));
        int32_t const status = mQuick.getSupportedFormatCombinations(inOut, nbInputs, nbOutputs, list.data(), count);
        if (status != 0)
        {
            log(Severity::kERROR,
                mWho + ": getSupportedFormatCombinations() returned status " + std::to_string(status));
            return {};
        }
        return list;
    }

    nvinfer1::IPluginV3QuickBuild& mQuick;
    std::string const& mWho;
    std::vector<int32_t> mRanks;
    std::optional<std::vector<PluginTensorDesc>> mListed;
    std::vector<DataType> mListedTypes; //!< The I/O types mListed was asked for.
};

// ---- Runtime --------------------------------------------------------------------------------------------------------

class QuickRuntimeAdapter final : public nvinfer1::IPluginV3OneRuntime
{
public:
    QuickRuntimeAdapter(IPluginV3& plugin, nvinfer1::IPluginV3QuickRuntime& quick, std::string const& who)
        : mPlugin(plugin)
        , mQuick(quick)
        , mWho(who)
    {
    }

    int32_t setTactic(int32_t tactic) noexcept override
    {
        mTactic = tactic;
        return mQuick.setTactic(tactic);
    }

    int32_t onShapeChange(PluginTensorDesc const* /*in*/, int32_t nbInputs, PluginTensorDesc const* /*out*/,
        int32_t nbOutputs) noexcept override
    {
        mCounts.emplace(nbInputs, nbOutputs);
        return 0;
    }

    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc, void const* const* inputs,
        void* const* outputs, void* /*workspace*/, cudaStream_t stream) noexcept override
    {
        auto const counts = this->counts("enqueue()");
        if (!counts)
        {
            return -1;
        }
        auto const [nbInputs, nbOutputs] = *counts;
        std::vector<Dims> const inStrides = stridesOf(inputDesc, nbInputs);
        std::vector<Dims> const outStrides = stridesOf(outputDesc, nbOutputs);
        return mQuick.enqueue(
            inputDesc, outputDesc, inputs, outputs, inStrides.data(), outStrides.data(), nbInputs, nbOutputs, stream);
    }

    //! The plugin's clone, with the tactic set on this one set again (a Quick plugin has no attachToContext(); the
    //! clone runs in the context, after the engine's setTactic()).
    IPluginV3* attachToContext(nvinfer1::IPluginResourceContext* /*context*/) noexcept override
    {
        std::unique_ptr<IPluginV3> clone{mPlugin.clone()};
        if (clone == nullptr || !mTactic)
        {
            return clone.release();
        }
        nvinfer1::IPluginCapability* runtime = clone->getCapabilityInterface(nvinfer1::PluginCapabilityType::kRUNTIME);
        if (runtime == nullptr || !isQuickKind(runtime->getInterfaceInfo(), kQuickRuntimeKind))
        {
            log(Severity::kERROR,
                mWho + ": its clone() has no Quick runtime capability (getCapabilityInterface(kRUNTIME))");
            return nullptr;
        }
        if (int32_t const status = static_cast<nvinfer1::IPluginV3QuickRuntime*>(runtime)->setTactic(*mTactic);
            status != 0)
        {
            log(Severity::kERROR,
                mWho + ": setTactic(" + std::to_string(*mTactic) + ") on its clone returned status "
                    + std::to_string(status));
            return nullptr;
        }
        return clone.release();
    }

    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {
        return mQuick.getFieldsToSerialize();
    }

    //! The counts of the latest onShapeChange(); nothing, logged naming caller, before the first.
    std::optional<std::pair<int32_t, int32_t>> counts(char const* caller) const
    {
        if (!mCounts)
        {
            log(Severity::kERROR, mWho + ": " + caller + " came before the shapes were set (onShapeChange)");
        }
        return mCounts;
    }

private:
    IPluginV3& mPlugin;
    nvinfer1::IPluginV3QuickRuntime& mQuick;
    std::string const& mWho;
    std::optional<std::pair<int32_t, int32_t>> mCounts;
    std::optional<int32_t> mTactic; //!< The latest setTactic().
};

// ---- Host -----------------------------------------------------------------------------------------------------------

class QuickHostAdapter final : public IPluginV3OneHost
{
public:
    QuickHostAdapter(QuickRuntimeAdapter const& runtime, IPluginV3QuickHost& quick)
        : mRuntime(runtime)
        , mQuick(quick)
    {
    }

    int32_t enqueueHost(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* /*workspace*/) noexcept override
    {
        auto const counts = mRuntime.counts("enqueueHost()");
        if (!counts)
        {
            return -1;
        }
        auto const [nbInputs, nbOutputs] = *counts;
        std::vector<Dims> const inStrides = stridesOf(inputDesc, nbInputs);
        std::vector<Dims> const outStrides = stridesOf(outputDesc, nbOutputs);
        return mQuick.enqueueHost(
            inputDesc, outputDesc, inputs, outputs, inStrides.data(), outStrides.data(), nbInputs, nbOutputs);
    }

private:
    QuickRuntimeAdapter const& mRuntime;
    IPluginV3QuickHost& mQuick;
};

// ---- AOT ------------------------------------------------------------------------------------------------------------

namespace
{

//! The launch parameters the engine hands getLaunchParams().
class LaunchParams final : public nvinfer1::IKernelLaunchParams, public nvinfer1::IKernelLaunchParamsImpl
{
public:
    LaunchParams() noexcept { mImpl = this; }
    ~LaunchParams() noexcept override = default;
    LaunchParams(LaunchParams const&) = delete;
    LaunchParams& operator=(LaunchParams const&) = delete;

    nvinfer1::ISymExpr* getGridX() noexcept override { return values[kAOT_GRID_X]; }
    bool setGridX(nvinfer1::ISymExpr* value) noexcept override { return set(kAOT_GRID_X, value); }
    nvinfer1::ISymExpr* getGridY() noexcept override { return values[kAOT_GRID_Y]; }
    bool setGridY(nvinfer1::ISymExpr* value) noexcept override { return set(kAOT_GRID_Y, value); }
    nvinfer1::ISymExpr* getGridZ() noexcept override { return values[kAOT_GRID_Z]; }
    bool setGridZ(nvinfer1::ISymExpr* value) noexcept override { return set(kAOT_GRID_Z, value); }
    nvinfer1::ISymExpr* getBlockX() noexcept override { return values[kAOT_BLOCK_X]; }
    bool setBlockX(nvinfer1::ISymExpr* value) noexcept override { return set(kAOT_BLOCK_X, value); }
    nvinfer1::ISymExpr* getBlockY() noexcept override { return values[kAOT_BLOCK_Y]; }
    bool setBlockY(nvinfer1::ISymExpr* value) noexcept override { return set(kAOT_BLOCK_Y, value); }
    nvinfer1::ISymExpr* getBlockZ() noexcept override { return values[kAOT_BLOCK_Z]; }
    bool setBlockZ(nvinfer1::ISymExpr* value) noexcept override { return set(kAOT_BLOCK_Z, value); }
    nvinfer1::ISymExpr* getSharedMem() noexcept override { return values[kAOT_SHARED_MEMORY]; }
    bool setSharedMem(nvinfer1::ISymExpr* value) noexcept override { return set(kAOT_SHARED_MEMORY, value); }

    std::array<nvinfer1::ISymExpr*, kAOT_LAUNCH_VALUES> values{};

private:
    bool set(int32_t index, nvinfer1::ISymExpr* value) noexcept
    {
        values[static_cast<std::size_t>(index)] = value;
        return true;
    }
};

//! The extra arguments the engine hands getLaunchParams().
class SymExprs final : public nvinfer1::ISymExprs, public nvinfer1::ISymExprsImpl
{
public:
    SymExprs() noexcept { mImpl = this; }
    ~SymExprs() noexcept override = default;
    SymExprs(SymExprs const&) = delete;
    SymExprs& operator=(SymExprs const&) = delete;

    nvinfer1::ISymExpr* getSymExpr(int32_t index) const noexcept override
    {
        return index >= 0 && static_cast<std::size_t>(index) < values.size() ? values[static_cast<std::size_t>(index)]
                                                                             : nullptr;
    }
    bool setSymExpr(int32_t index, nvinfer1::ISymExpr* symExpr) noexcept override
    {
        if (index < 0 || static_cast<std::size_t>(index) >= values.size())
        {
            return false;
        }
        values[static_cast<std::size_t>(index)] = symExpr;
        return true;
    }
    int32_t getNbSymExprs() const noexcept override { return static_cast<int32_t>(values.size()); }
    bool setNbSymExprs(int32_t count) noexcept override
    {
        if (count < 0 || static_cast<std::size_t>(count) > kMaxArguments)
        {
            return false;
        }
        values.resize(static_cast<std::size_t>(count), nullptr);
        return true;
    }

    static constexpr std::size_t kMaxArguments = 1024;
    std::vector<nvinfer1::ISymExpr*> values;
};

constexpr std::array<char const*, kAOT_LAUNCH_VALUES> kLaunchNames{
    "grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "shared_mem"};

char const* argDataTypeName(nvinfer1::PluginArgDataType type) noexcept
{
    switch (type)
    {
    case nvinfer1::PluginArgDataType::kINT8: return "kINT8";
    case nvinfer1::PluginArgDataType::kINT16: return "kINT16";
    case nvinfer1::PluginArgDataType::kINT32: return "kINT32";
    }
    return "an unknown PluginArgDataType";
}

} // namespace

class QuickAotAdapter final : public IPluginV3AotBuild
{
public:
    QuickAotAdapter(nvinfer1::IPluginV3QuickAOTBuild& quick, std::string const& who)
        : mQuick(quick)
        , mWho(who)
    {
    }

    int32_t getAotKernel(DimsExprs const* inputs, DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs, int32_t tactic, nvinfer1::IExprBuilder& exprBuilder, AotKernel& kernel) noexcept override
    {
        try
        {
            if (std::optional<std::string> problem
                = fill(inputs, inOut, nbInputs, nbOutputs, tactic, exprBuilder, kernel))
            {
                log(Severity::kERROR, mWho + ": " + *problem);
                return -1;
            }
            return 0;
        }
        catch (std::exception const& e)
        {
            log(Severity::kERROR, mWho + ": " + e.what());
            return -1;
        }
    }

private:
    std::optional<std::string> fill(DimsExprs const* inputs, DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs, int32_t tactic, nvinfer1::IExprBuilder& exprBuilder, AotKernel& kernel)
    {
        if (int32_t const status = mQuick.setTactic(tactic); status != 0)
        {
            return "setTactic(" + std::to_string(tactic) + ") returned status " + std::to_string(status);
        }
        // The shapes again, from this builder: what a plugin keeps from getOutputShapes() (tensorrt.plugin keeps the
        // input descriptors and their expressions) then belongs to the builder getLaunchParams() receives.
        std::vector<DimsExprs> outputs(static_cast<std::size_t>(std::max(nbOutputs, 0)));
        if (int32_t const status
            = mQuick.getOutputShapes(inputs, nbInputs, nullptr, 0, outputs.data(), nbOutputs, exprBuilder);
            status != 0)
        {
            return "getOutputShapes() returned status " + std::to_string(status) + " before getLaunchParams()";
        }
        LaunchParams launch;
        SymExprs extra;
        if (int32_t const status
            = mQuick.getLaunchParams(inputs, inOut, nbInputs, nbOutputs, &launch, &extra, exprBuilder);
            status != 0)
        {
            return "getLaunchParams() returned status " + std::to_string(status);
        }
        for (int32_t v = 0; v < kAOT_LAUNCH_VALUES; ++v)
        {
            nvinfer1::ISymExpr* value = launch.values[static_cast<std::size_t>(v)];
            auto expr = value == nullptr
                ? Expected<nvinfer1::IDimensionExpr const*>{nullptr}
                : exprOf(*value, std::string("launch parameter ") + kLaunchNames[static_cast<std::size_t>(v)], false);
            if (!expr)
            {
                return expr.error().message;
            }
            kernel.launch[v] = expr.value();
        }
        mScalars.clear();
        for (std::size_t a = 0; a < extra.values.size(); ++a)
        {
            std::string const what = "extra argument " + std::to_string(a);
            if (extra.values[a] == nullptr)
            {
                return "getLaunchParams() left " + what + " unset (of " + std::to_string(extra.values.size()) + ")";
            }
            auto expr = exprOf(*extra.values[a], what, true);
            if (!expr)
            {
                return expr.error().message;
            }
            mScalars.push_back(expr.value());
        }
        std::vector<PluginTensorDesc> descs;
        for (int32_t i = 0; i < nbInputs + nbOutputs; ++i)
        {
            descs.push_back(inOut[i].desc);
        }
        char const* name = nullptr;
        char* compiled = nullptr;
        int32_t size = 0;
        if (int32_t const status
            = mQuick.getKernel(descs.data(), nbInputs, descs.data() + nbInputs, nbOutputs, &name, &compiled, &size);
            status != 0)
        {
            return "getKernel() returned status " + std::to_string(status);
        }
        if (name == nullptr || compiled == nullptr || size <= 0)
        {
            return std::string("getKernel() gave ") + (name == nullptr ? "no kernel name" : "no compiled kernel")
                + "; an AOT plugin gives the kernel's name and its PTX";
        }
        kernel.name = name;
        kernel.ptx = compiled;
        kernel.ptxSize = size;
        kernel.scalars = mScalars.data();
        kernel.nbScalars = static_cast<int32_t>(mScalars.size());
        return std::nullopt;
    }

    //! value's expression, checked to be an integer (an int32 for an extra argument).
    static Expected<nvinfer1::IDimensionExpr const*> exprOf(
        nvinfer1::ISymExpr& value, std::string const& what, bool argument)
    {
        if (value.getType() != nvinfer1::PluginArgType::kINT)
        {
            return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
                what + " has PluginArgType " + std::to_string(static_cast<int32_t>(value.getType()))
                    + "; kiln knows kINT only"};
        }
        if (argument && value.getDataType() != nvinfer1::PluginArgDataType::kINT32)
        {
            return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
                what + " is " + argDataTypeName(value.getDataType())
                    + "; kiln's AOT kernels take int32 scalar arguments (SymInt32)"};
        }
        auto const* expr = static_cast<nvinfer1::IDimensionExpr const*>(value.getExpr());
        if (expr == nullptr)
        {
            return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, what + " has no expression (getExpr() gave null)"};
        }
        return expr;
    }

    nvinfer1::IPluginV3QuickAOTBuild& mQuick;
    std::string const& mWho;
    std::vector<nvinfer1::IDimensionExpr const*> mScalars;
};

// ---- The adapters of one plugin ------------------------------------------------------------------------------------

QuickAdapters::QuickAdapters(IPluginV3& plugin, std::string who)
    : mPlugin(plugin)
    , mWho(std::move(who))
{
}

QuickAdapters::~QuickAdapters() = default;

nvinfer1::IPluginV3OneCore* QuickAdapters::core(nvinfer1::IPluginV3QuickCore& quick)
{
    if (mCore == nullptr)
    {
        mCore = std::make_unique<QuickCoreAdapter>(quick);
    }
    return mCore.get();
}

nvinfer1::IPluginV3OneBuildV2* QuickAdapters::build(nvinfer1::IPluginV3QuickBuild& quick)
{
    if (mBuild == nullptr)
    {
        mBuild = std::make_unique<QuickBuildAdapter>(quick, mWho);
    }
    return mBuild.get();
}

IPluginV3AotBuild* QuickAdapters::aot(nvinfer1::IPluginV3QuickAOTBuild& quick)
{
    if (mAot == nullptr)
    {
        mAot = std::make_unique<QuickAotAdapter>(quick, mWho);
    }
    return mAot.get();
}

nvinfer1::IPluginV3OneRuntime* QuickAdapters::runtime(nvinfer1::IPluginV3QuickRuntime& quick)
{
    if (mRuntime == nullptr)
    {
        mRuntime = std::make_unique<QuickRuntimeAdapter>(mPlugin, quick, mWho);
    }
    return mRuntime.get();
}

namespace
{

//! Whether the object behind plugin carries RTTI (as host_capability.cpp checks it: the Itanium ABI's type
//! information pointer just before the vtable's functions, null with -fno-rtti).
bool hasTypeInformation(IPluginV3 const& plugin) noexcept
{
    void const* const* vtable = nullptr;
    std::memcpy(static_cast<void*>(&vtable), static_cast<void const*>(&plugin), sizeof(vtable));
    return vtable != nullptr && vtable[-1] != nullptr;
}

} // namespace

Expected<IPluginV3OneHost*> QuickAdapters::host()
{
    if (mHost != nullptr)
    {
        return static_cast<IPluginV3OneHost*>(mHost.get());
    }
    IPluginV3QuickHost* quick = hasTypeInformation(mPlugin) ? dynamic_cast<IPluginV3QuickHost*>(&mPlugin) : nullptr;
    std::string why;
    if (quick == nullptr)
    {
        why = mPlugin.getAPILanguage() == nvinfer1::APILanguage::kPYTHON
            ? "; it is a Python Quick plugin whose class defines no enqueue_host(input_desc, output_desc, inputs, "
              "outputs, in_strides, out_strides) method, which kiln's host backend calls in place of enqueue() "
              "(docs/python.md)"
            : "; its class does not derive from kiln::IPluginV3QuickHost (include/kiln/plugin_quick.h)";
    }
    else if (!isQuickKind(quick->getInterfaceInfo(), "KILN_PLUGIN_V3QUICK_HOST"))
    {
        nvinfer1::InterfaceInfo const info = quick->getInterfaceInfo();
        why = std::string("; its host capability reports \"") + (info.kind != nullptr ? info.kind : "(null)")
            + "\" version " + std::to_string(info.major) + ", where kiln needs \"KILN_PLUGIN_V3QUICK_HOST\" version 1";
        quick = nullptr;
    }
    else if (mRuntime == nullptr)
    {
        why = "; it has no Quick runtime capability";
        quick = nullptr;
    }
    if (quick == nullptr)
    {
        return Error{nvinfer1::ErrorCode::kUNSUPPORTED_STATE,
            mWho + " cannot run on kiln's host backend: it is a Quick plugin without kiln::IPluginV3QuickHost" + why
                + " (build the engine for the CUDA backend, or add the host capability to the plugin)"};
    }
    mHost = std::make_unique<QuickHostAdapter>(*mRuntime, *quick);
    return static_cast<IPluginV3OneHost*>(mHost.get());
}

void QuickAdapters::setInputRanks(std::vector<int32_t> ranks)
{
    if (mBuild != nullptr)
    {
        mBuild->setInputRanks(std::move(ranks));
    }
}

} // namespace kiln
