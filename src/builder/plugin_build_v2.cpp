// SPDX-License-Identifier: Apache-2.0
// The build protocol of a V2 plugin layer (build_passes.h), call by call as the V2 contract gives it. The level is the
// top byte of getTensorRTVersion() (network/layers/plugin_v2.cpp): 0 IPluginV2, 1 IPluginV2Ext, 2 IPluginV2IOExt,
// 3 IPluginV2DynamicExt. Levels 0 to 2 see every tensor without its leading batch dimension (the batch is what their
// enqueue() receives as batchSize); level 3 sees whole shapes.
//
// 1. clone() the network's plugin: the build works on a copy of its own, destroy()ed when the layer is built.
// 2. Negotiate formats; the types are the network's (inputs: the tensors' types; outputs: the layer's output types).
//    Levels 0 and 1 give every input and output one format: supportsFormat(type, format) is asked for each format the
//    backend offers and each distinct type of the I/O (level 0 also has one type for all). Levels 2 and 3:
//    supportsFormatCombination(pos, ...) is asked position by position, depth first, with every position below pos
//    already accepted, never about a later one, up to kFORMAT_COMBINATION_LIMIT combinations.
// 3. With one combination there is nothing to choose, and nothing runs (as TensorRT). Otherwise the clone is attached
//    as an execution context's would be (IPluginV2Ext and up: attachToContext() with the build's cuDNN and cuBLAS
//    handles where the tactic sources allow them, and its GPU allocator; detachFromContext() when timing is over) and,
//    on the host backend, its host runner (kiln::IPluginV2HostRunner, include/kiln/plugin_host.h) is looked up. For
//    each combination: configure with the level's call: configureWithFormat (level 0), IPluginV2Ext's
//    configurePlugin with Dims, types and broadcast flags (level 1), IPluginV2IOExt's configurePlugin with
//    PluginTensorDesc (level 2), each with maxBatchSize = the largest batch over the profiles, then
//    getWorkspaceSize(maxBatchSize), initialize(), one timed run per profile at its kOPT shapes, terminate(). Level 3
//    per profile: configurePlugin(DynamicPluginTensorDesc with the profile's kMIN/kOPT/kMAX),
//    getWorkspaceSize(at the largest shapes), initialize(), one timed run at kOPT, terminate(). A run goes through the
//    host runner on the host backend (with whole shapes at every level), else through the plugin's enqueue(). A
//    combination costs its timed runs plus the reformat layers its non-linear formats need.
// 4. Keep the fastest combination: configure with it again, take the largest getWorkspaceSize(), then
//    getSerializationSize() and serialize(): the engine's record of the layer (deserializePlugin() restores it).
//
// Every failure of the plugin (a null clone, a combination nobody accepts, initialize() or a run failing, a
// serialization of more than 1 GiB or one that writes past its size) ends the build with a message that names the
// layer and the plugin; the clone is terminate()d if it was initialized, and destroy()ed.
#include "builder/build_passes.h"
#include "builder/plugin_io.h"

#include "backends/host/reformat.h"
#include "core/data_type.h"
#include "core/logging.h"
#include "plan/model_support.h"
#include "plugin/plugin_v3.h"
#include "plugin/v2_handles.h"
#include "plugin/v2_host.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <memory>

namespace kiln
{
namespace
{

using nvinfer1::DynamicPluginTensorDesc;
using nvinfer1::PluginTensorDesc;
using nvinfer1::TensorFormat;

constexpr std::size_t kMaxSerialization = std::size_t{1} << 30U;
constexpr std::size_t kMaxWorkspace = std::size_t{1} << 40U;
constexpr char const* kLevelClasses[] = {"IPluginV2", "IPluginV2Ext", "IPluginV2IOExt", "IPluginV2DynamicExt"};

//! dims without its leading (batch) dimension.
Dims withoutBatch(Dims const& dims) noexcept
{
    Dims result{std::max(dims.nbDims - 1, 0), {}};
    std::copy_n(dims.d + 1, result.nbDims, result.d);
    return result;
}

class V2Build
{
public:
    V2Build(Layer const& layer, PluginV2Params const& params, PluginBuildInputs const& in)
        : mLayer(layer)
        , mParams(params)
        , mIn(in)
        , mWho(describeLayer(layer) + ": " + describeIdentity(params.identity))
    {
    }
    ~V2Build() { detach(); } // A build that failed while timing leaves the clone attached.
    V2Build(V2Build const&) = delete;
    V2Build& operator=(V2Build const&) = delete;

    Expected<PluginBuildResult> run();

private:
    //! terminate() when the scope ends after a successful initialize().
    class Initialized
    {
    public:
        explicit Initialized(nvinfer1::IPluginV2& plugin)
            : mPlugin(plugin)
        {
        }
        ~Initialized() { mPlugin.terminate(); }
        Initialized(Initialized const&) = delete;
        Initialized& operator=(Initialized const&) = delete;

    private:
        nvinfer1::IPluginV2& mPlugin;
    };

    Error fail(std::string const& what) const { return invalid(mWho + ": " + what); }
    char const* levelClass() const { return kLevelClasses[mParams.level]; }
    Expected<int32_t> maxBatchSize() const;
    Expected<std::vector<Combination>> negotiate();
    Expected<std::vector<Combination>> negotiateCommonFormat();
    bool supportsCombination(std::size_t pos, std::vector<PluginTensorDesc> const& inOut);
    std::vector<PluginTensorDesc> staticDescs(Combination const& combination) const;
    void configure(Combination const& combination, std::size_t profile);
    Expected<int64_t> workspaceSize(Combination const& combination, std::size_t profile);
    Expected<float> time(Combination const& combination, std::size_t profile, int64_t workspace);
    Expected<float> timeCombination(Combination const& combination);
    Expected<int64_t> configureChosen(Combination const& combination);
    Expected<std::vector<uint8_t>> serialized();
    Expected<bool> attach();
    void detach();
    std::string combinationText(Combination const& combination) const
    {
        return kiln::combinationText(mIo, combination);
    }
    std::size_t nbOutputs() const { return mIo.size() - mNbInputs; }

    Layer const& mLayer;
    PluginV2Params const& mParams;
    PluginBuildInputs const& mIn;
    std::string mWho;
    std::unique_ptr<nvinfer1::IPluginV2, PluginV2Deleter> mClone;
    IPluginV2HostRunner* mRunner{};
    bool mAttached{};          //!< attachToContext() was called on the clone, and detachFromContext() not yet.
    std::vector<PluginIo> mIo; //!< Inputs, then outputs.
    std::size_t mNbInputs{};
    int32_t mMaxBatch{};
};

Expected<int32_t> V2Build::maxBatchSize() const
{
    // Output 0 carries input 0's batch extent (or 1 without inputs).
    PluginIo const& io = mIo[mNbInputs];
    int64_t largest = 0;
    for (std::size_t p = 0; p < io.shapes.size(); ++p)
    {
        if (io.shapes[p] == nullptr || io.shapes[p]->upper.nbDims < 1)
        {
            return fail(cat("the batch dimension of '", io.tensor->name(), "' is unknown at ", profileName(p)));
        }
        largest = std::max(largest, io.shapes[p]->upper.d[0]);
    }
    if (largest > std::numeric_limits<int32_t>::max())
    {
        return fail(cat(
            "the largest batch over the profiles is ", largest, ", beyond the int32_t maxBatchSize of ", levelClass()));
    }
    return static_cast<int32_t>(largest);
}

// ---- 2. Formats -----------------------------------------------------------------------------------------------------

std::vector<PluginTensorDesc> V2Build::staticDescs(Combination const& combination) const
{
    std::vector<PluginTensorDesc> descs;
    for (std::size_t i = 0; i < mIo.size(); ++i)
    {
        Dims const dims = mParams.level == 3 ? mIo[i].declared : withoutBatch(mIo[i].declared);
        descs.push_back(pluginDesc(dims, mIo[i].type, combination[i], mIo[i].scale));
    }
    return descs;
}

bool V2Build::supportsCombination(std::size_t pos, std::vector<PluginTensorDesc> const& inOut)
{
    auto const position = static_cast<int32_t>(pos);
    auto const nbInputs = static_cast<int32_t>(mNbInputs);
    auto const outputs = static_cast<int32_t>(nbOutputs());
    if (mParams.level == 3)
    {
        return static_cast<nvinfer1::IPluginV2DynamicExt&>(*mClone).supportsFormatCombination(
            position, inOut.data(), nbInputs, outputs);
    }
    return static_cast<nvinfer1::IPluginV2IOExt const&>(*mClone).supportsFormatCombination(
        position, inOut.data(), nbInputs, outputs);
}

Expected<std::vector<Combination>> V2Build::negotiateCommonFormat()
{
    // The distinct types of the I/O, in order of appearance.
    std::vector<DataType> types;
    for (PluginIo const& io : mIo)
    {
        if (std::find(types.begin(), types.end(), io.type) == types.end())
        {
            types.push_back(io.type);
        }
    }
    if (mParams.level == 0 && types.size() > 1)
    {
        return fail(cat("an IPluginV2 gives all its inputs and outputs one type (configureWithFormat), but they have "
                        "the types ",
            dataTypeName(types[0]), " and ", dataTypeName(types[1]),
            "; cast the inputs to one type, or implement IPluginV2IOExt or IPluginV2DynamicExt"));
    }
    // The formats the backend can give every input and output, in the first one's order.
    std::vector<TensorFormat> formats = mIn.formatsFor(mIo[0].type, mIo[0].declared);
    for (PluginIo const& io : mIo)
    {
        auto const offered = mIn.formatsFor(io.type, io.declared);
        std::erase_if(formats,
            [&](TensorFormat format) { return std::find(offered.begin(), offered.end(), format) == offered.end(); });
    }
    std::vector<Combination> found;
    std::string refused;
    for (TensorFormat format : formats)
    {
        bool accepted = true;
        for (DataType type : types)
        {
            if (!mClone->supportsFormat(type, format))
            {
                refused += cat(refused.empty() ? "" : ", ", dataTypeName(type), " ", host::formatName(format));
                accepted = false;
                break;
            }
        }
        if (accepted)
        {
            found.emplace_back(mIo.size(), format);
        }
    }
    if (found.empty())
    {
        return fail(cat("supportsFormat() accepted no format for the layer's types: it refused ",
            refused.empty() ? std::string("nothing (the backend offers no format every tensor can have)") : refused,
            ". ", levelClass(), " gives all its inputs and outputs one format"));
    }
    return found;
}

Expected<std::vector<Combination>> V2Build::negotiate()
{
    if (mParams.level < 2)
    {
        return negotiateCommonFormat();
    }
    // Positions not yet decided hold the linear format; the plugin may read only positions up to the one asked.
    std::vector<PluginTensorDesc> inOut = staticDescs(Combination(mIo.size(), TensorFormat::kLINEAR));
    FormatSearch searched = searchCombinations(mIo, mIn, nvinfer1::IPluginV2DynamicExt::kFORMAT_COMBINATION_LIMIT,
        [&](std::size_t pos, Combination const& formats) {
            for (std::size_t i = 0; i < inOut.size(); ++i)
            {
                inOut[i].format = formats[i];
            }
            return supportsCombination(pos, inOut);
        });
    if (searched.found.empty())
    {
        return noCombination(mWho, mIo, mNbInputs, searched.deepest, mIn, "getOutputDataType()", false);
    }
    return std::move(searched.found);
}

// ---- 3. Configure, workspace, timing --------------------------------------------------------------------------------

void V2Build::configure(Combination const& combination, std::size_t profile)
{
    auto const nbInputs = static_cast<int32_t>(mNbInputs);
    auto const outputs = static_cast<int32_t>(nbOutputs());
    switch (mParams.level)
    {
    case 0:
    case 1:
    {
        std::vector<Dims> dims;
        std::vector<DataType> types;
        for (PluginIo const& io : mIo)
        {
            dims.push_back(withoutBatch(io.declared));
            types.push_back(io.type);
        }
        if (mParams.level == 0)
        {
            mClone->configureWithFormat(
                dims.data(), nbInputs, dims.data() + mNbInputs, outputs, types[0], combination[0], mMaxBatch);
            return;
        }
        // Explicit batch: nothing is broadcast across the batch.
        std::unique_ptr<bool[]> const broadcast(new bool[mIo.size()]());
        static_cast<nvinfer1::IPluginV2Ext&>(*mClone).configurePlugin(dims.data(), nbInputs, dims.data() + mNbInputs,
            outputs, types.data(), types.data() + mNbInputs, broadcast.get(), broadcast.get() + mNbInputs,
            combination[0], mMaxBatch);
        return;
    }
    case 2:
    {
        auto const descs = staticDescs(combination);
        static_cast<nvinfer1::IPluginV2IOExt&>(*mClone).configurePlugin(
            descs.data(), nbInputs, descs.data() + mNbInputs, outputs);
        return;
    }
    default:
    {
        auto const descs = dynamicDescs(mIo, combination, profile);
        static_cast<nvinfer1::IPluginV2DynamicExt&>(*mClone).configurePlugin(
            descs.data(), nbInputs, descs.data() + mNbInputs, outputs);
        return;
    }
    }
}

Expected<int64_t> V2Build::workspaceSize(Combination const& combination, std::size_t profile)
{
    std::size_t bytes = 0;
    if (mParams.level < 3)
    {
        bytes = mClone->getWorkspaceSize(mMaxBatch);
    }
    else
    {
        // The largest shapes of the profile: enough for every smaller problem.
        std::vector<PluginTensorDesc> descs;
        for (std::size_t i = 0; i < mIo.size(); ++i)
        {
            ConcreteShape const* shape = mIo[i].shapes[profile];
            descs.push_back(pluginDesc(
                shape != nullptr ? shape->upper : mIo[i].declared, mIo[i].type, combination[i], mIo[i].scale));
        }
        bytes = static_cast<nvinfer1::IPluginV2DynamicExt const&>(*mClone).getWorkspaceSize(
            descs.data(), static_cast<int32_t>(mNbInputs), descs.data() + mNbInputs, static_cast<int32_t>(nbOutputs()));
    }
    if (bytes > kMaxWorkspace)
    {
        return fail(cat("getWorkspaceSize() asked for ", bytes, " bytes; kiln gives a plugin at most 1 TiB"));
    }
    return static_cast<int64_t>(bytes);
}

Expected<float> V2Build::time(Combination const& combination, std::size_t profile, int64_t workspace)
{
    // Whole shapes at kOPT on zeroed buffers.
    auto prepared = timingRun(mWho, mIo, mNbInputs, combination, profile, workspace, mIn);
    if (!prepared)
    {
        return prepared.error();
    }
    TimingRun& run = prepared.value();
    std::vector<PluginTensorDesc> const& descs = run.descs;
    PluginTensorDesc const* outputDescs = descs.data() + mNbInputs;
    void* const workspacePointer = run.workspacePointer();
    std::vector<void const*> const& inputs = run.inputs;
    std::vector<void*> const& outputs = run.outputs;

    int32_t status = 0;
    auto const timed = timeCalls(
        mIn, mIn.settings.avgTimingIterations,
        [&] {
            if (mRunner != nullptr)
            {
                return mRunner->enqueueHost(
                    *mClone, descs.data(), outputDescs, inputs.data(), outputs.data(), workspacePointer);
            }
            mIn.v2Handles->setStream(mIn.stream);
            if (mParams.level == 3)
            {
                return static_cast<nvinfer1::IPluginV2DynamicExt&>(*mClone).enqueue(
                    descs.data(), outputDescs, inputs.data(), outputs.data(), workspacePointer, mIn.stream);
            }
            return mClone->enqueue(
                static_cast<int32_t>(descs[0].dims.d[0]), inputs.data(), outputs.data(), workspacePointer, mIn.stream);
        },
        status);
    if (status != 0)
    {
        return fail(cat(mRunner != nullptr ? "the host runner's enqueueHost()" : "enqueue()", " returned status ",
            status, " while timing the formats ", combinationText(combination), " at ", profileName(profile)));
    }
    if (!timed)
    {
        return fail(cat("timing the formats ", combinationText(combination), ": ", timed.error().message));
    }
    float const milliseconds = timed.value();
    auto const reformats = kiln::reformatCost(mWho, mIo, mNbInputs, combination, profile, mIn);
    if (!reformats)
    {
        return reformats.error();
    }
    return milliseconds + reformats.value();
}

Expected<float> V2Build::timeCombination(Combination const& combination)
{
    // initialize() follows configure; terminate() ends each initialized stretch, however it ends.
    auto const initialize = [&](std::size_t profile) -> std::optional<Error> {
        if (int32_t const status = mClone->initialize(); status != 0)
        {
            return fail(cat("initialize() returned status ", status, " after configuring the formats ",
                combinationText(combination), mParams.level == 3 ? " at " + profileName(profile) : std::string()));
        }
        return std::nullopt;
    };
    float total = 0.0F;
    if (mParams.level < 3)
    {
        configure(combination, 0);
        auto const workspace = workspaceSize(combination, 0);
        if (!workspace)
        {
            return workspace.error();
        }
        if (auto problem = initialize(0))
        {
            return *problem;
        }
        Initialized const initialized(*mClone);
        for (std::size_t p = 0; p < mIn.profiles.size(); ++p)
        {
            auto const timed = time(combination, p, workspace.value());
            if (!timed)
            {
                return timed.error();
            }
            total += timed.value();
        }
        return total;
    }
    for (std::size_t p = 0; p < mIn.profiles.size(); ++p)
    {
        configure(combination, p);
        auto const workspace = workspaceSize(combination, p);
        if (!workspace)
        {
            return workspace.error();
        }
        if (auto problem = initialize(p))
        {
            return *problem;
        }
        Initialized const initialized(*mClone);
        auto const timed = time(combination, p, workspace.value());
        if (!timed)
        {
            return timed.error();
        }
        total += timed.value();
    }
    return total;
}

// ---- 4. The record --------------------------------------------------------------------------------------------------

Expected<int64_t> V2Build::configureChosen(Combination const& combination)
{
    int64_t largest = 0;
    std::size_t const rounds = mParams.level == 3 ? mIn.profiles.size() : 1;
    for (std::size_t p = 0; p < rounds; ++p)
    {
        configure(combination, p);
        auto const workspace = workspaceSize(combination, p);
        if (!workspace)
        {
            return workspace.error();
        }
        largest = std::max(largest, workspace.value());
    }
    return largest;
}

Expected<std::vector<uint8_t>> V2Build::serialized()
{
    std::size_t const size = mClone->getSerializationSize();
    if (size > kMaxSerialization)
    {
        return fail(cat("getSerializationSize() returned ", size, " bytes; kiln keeps at most 1 GiB per plugin"));
    }
    // A guard band after the bytes catches a serialize() that writes more than it said.
    constexpr std::size_t kGuard = 64;
    constexpr uint8_t kPattern = 0xA5;
    std::vector<uint8_t> bytes(size + kGuard, kPattern);
    mClone->serialize(bytes.data());
    if (std::any_of(bytes.begin() + static_cast<std::ptrdiff_t>(size), bytes.end(),
            [](uint8_t byte) { return byte != kPattern; }))
    {
        return fail(cat("serialize() wrote past the ", size, " bytes getSerializationSize() returned"));
    }
    bytes.resize(size);
    return bytes;
}

// ---- Attached for timing --------------------------------------------------------------------------------------------

Expected<bool> V2Build::attach()
{
    if (mIn.needHost)
    {
        auto runner = requireV2HostRunner(mParams.identity);
        if (!runner)
        {
            return Error{runner.error().code, describeLayer(mLayer) + ": " + runner.error().message};
        }
        mRunner = runner.value();
    }
    if (mParams.level >= 1)
    {
        auto handles = mIn.v2Handles->get();
        if (!handles)
        {
            return fail(handles.error().message);
        }
        static_cast<nvinfer1::IPluginV2Ext&>(*mClone).attachToContext(
            handles.value().cudnn, handles.value().cublas, mIn.resources->getGpuAllocator());
        mAttached = true;
    }
    return true;
}

void V2Build::detach()
{
    if (mAttached)
    {
        static_cast<nvinfer1::IPluginV2Ext&>(*mClone).detachFromContext();
        mAttached = false;
    }
}

// ---- The protocol ---------------------------------------------------------------------------------------------------

Expected<PluginBuildResult> V2Build::run()
{
    if (mParams.plugin == nullptr || mParams.level < 0 || mParams.level > 3)
    {
        return Error{nvinfer1::ErrorCode::kINTERNAL_ERROR, mWho + ": the network's V2 plugin layer is malformed"};
    }
    // 1. The build's own clone, and the host runner.
    mClone.reset(mParams.plugin->clone());
    if (mClone == nullptr)
    {
        return fail("clone() returned null; the builder works on a clone of the network's plugin");
    }
    mNbInputs = mLayer.inputs().size();
    mIo = describePluginIo(mLayer, mNbInputs, mIn);
    if (mParams.level < 3)
    {
        auto const batch = maxBatchSize();
        if (!batch)
        {
            return batch.error();
        }
        mMaxBatch = batch.value();
    }

    // 2. Formats.
    auto combinations = negotiate();
    if (!combinations)
    {
        return combinations.error();
    }

    // 3. With a choice to make: each combination configured, initialized, timed and terminated on the attached
    // clone; the fastest kept.
    std::optional<std::size_t> best;
    float bestMilliseconds = 0.0F;
    if (combinations.value().size() == 1)
    {
        best = 0;
        log(Severity::kVERBOSE,
            cat(mWho, ": formats ", combinationText(combinations.value()[0]),
                ": the only combination, so the plugin was not run"));
    }
    else
    {
        auto attached = attach();
        if (!attached)
        {
            return attached.error();
        }
        for (std::size_t c = 0; c < combinations.value().size(); ++c)
        {
            auto const timed = timeCombination(combinations.value()[c]);
            if (!timed)
            {
                return timed.error();
            }
            log(Severity::kVERBOSE,
                cat(mWho, ": formats ", combinationText(combinations.value()[c]), ": ", timed.value(),
                    " ms over the profiles"));
            if (!best || timed.value() < bestMilliseconds)
            {
                best = c;
                bestMilliseconds = timed.value();
            }
        }
        detach();
        log(Severity::kVERBOSE,
            cat(mWho, ": chose formats ", combinationText(combinations.value()[*best]), " of ",
                combinations.value().size(), " combinations"));
    }

    // 4. The choice: configure with it, then what the engine keeps.
    Combination const& chosen = combinations.value()[*best];
    PluginV2Params params;
    params.level = mParams.level;
    params.identity = mParams.identity;
    params.outputTypes = mParams.outputTypes;
    auto const workspace = configureChosen(chosen);
    if (!workspace)
    {
        return workspace.error();
    }
    params.plan.workspaceBytes = workspace.value();
    auto bytes = serialized();
    if (!bytes)
    {
        return bytes.error();
    }
    params.plan.serialized = std::move(bytes.value());

    PluginBuildResult result;
    result.params = LayerParams{std::move(params)};
    for (PluginIo const& io : mIo)
    {
        result.types.push_back(io.type); // a V2 plugin's types are the network's
    }
    result.formats = chosen;
    return result;
}

} // namespace

Expected<PluginBuildResult> buildPluginV2Layer(
    Layer const& layer, PluginV2Params const& params, PluginBuildInputs const& in)
{
    return V2Build(layer, params, in).run();
}

} // namespace kiln
