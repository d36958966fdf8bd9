// SPDX-License-Identifier: Apache-2.0
// The build protocol of a V3 plugin layer (build_passes.h), call by call as TensorRT's contract gives it:
//
// 1. clone() the network's plugin: the build works on a copy of its own, deleted when the layer is built; find the
//    clone's kCORE, kBUILD and kRUNTIME capabilities (kiln's host capability only when the host backend runs it).
// 2. Negotiate types and formats. The types tried are the network's first (inputs: the tensors' types; outputs:
//    getOutputDataTypes()); in a weakly typed network built with kFP16 (or kBF16 alone), and without loops or
//    if-conditionals, then each choice of kHALF (kBF16) for the kFLOAT data inputs (every subset of them up to four,
//    past that all of them), the outputs' types from getOutputDataTypes() for those inputs (a non-zero status drops
//    the choice). For each, supportsFormatCombination(pos, ...) is asked position by position, depth first, with every
//    position below pos already accepted, never about a later one; each complete combination found is kept, up to
//    getFormatCombinationLimit() over all types. The build then inserts a cast and a reformat before each input and
//    after each output whose type or format differs from its tensor's (build.cpp, insertReformats); the network's
//    tensors keep their types, and the precision pass leaves a plugin's I/O and those reformats in theirs. With
//    aliased I/O (IPluginV3OneBuildV2 and kALIASED_PLUGIN_IO_10_03), getAliasedInput() is asked once per output and
//    only the combinations that give an aliased output its input's type and format stay.
// 3. For each profile and each combination of types and formats: configurePlugin() with the descriptors (wildcards
//    where an extent is dynamic) and the profile's kMIN/kOPT/kMAX shapes; getNbTactics() and getValidTactics() (no
//    tactics: the default tactic 0); getWorkspaceSize(). When that leaves one combination and one tactic, there is
//    nothing to choose and nothing runs (as TensorRT). Otherwise the plugin is timed as it will run: the clone is
//    attached to a build-time resource context first (attachToContext(), whose clone does the timing, with the
//    builder's GPU allocator and error recorder), and per profile and combination that clone hears configurePlugin();
//    each tactic is then timed: setTactic(), onShapeChange() at the kOPT shapes, then enqueue (enqueueHost on the host
//    backend) on zeroed buffers (an aliased output in its input's) with a workspace of getWorkspaceSize() bytes,
//    avgTimingIterations times. A plugin with a getTimingCacheID() is timed through the timing cache: its key is the
//    plugin's identity, the I/O types, formats and profile shapes, and the ID; a key already there is not timed again,
//    so identical instances are timed once and a rebuild with a saved cache times nothing it holds.
// 4. Keep the combination and tactic fastest over all profiles; configurePlugin() with it again, take the largest
//    getWorkspaceSize(), the aliased inputs (checked: each a data input at most one output aliases), and the fields of
//    getFieldsToSerialize(): the engine's record of the layer.
//
// Every failure of the plugin (a non-zero status, null capabilities, a combination nobody accepts, invalid tactics)
// ends the build with a message that names the layer and the plugin.
#include "builder/build_passes.h"

#include "builder/plugin_io.h"
#include "builder/timing_cache.h"
#include "core/data_type.h"
#include "core/logging.h"
#include "network/report.h"
#include "plan/model_support.h"
#include "plugin/aot_kernel.h"
#include "plugin/plugin_fields.h"
#include "plugin/plugin_quick.h"
#include "plugin/plugin_v3.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace kiln
{
namespace
{

using nvinfer1::DynamicPluginTensorDesc;
using nvinfer1::ErrorCode;
using nvinfer1::PluginTensorDesc;
using nvinfer1::TensorFormat;

//! One candidate of step 2: the types of the plugin's I/O (an index into V3Build::mTypings) and their formats.
struct Candidate
{
    std::size_t typing{};
    Combination formats;
    bool operator==(Candidate const&) const = default;
};

//! The type of each I/O position.
std::vector<DataType> typesOf(std::vector<PluginIo> const& io)
{
    std::vector<DataType> types;
    for (PluginIo const& entry : io)
    {
        types.push_back(entry.type);
    }
    return types;
}

//! What timing one combination and tactic at one profile found.
struct Timed
{
    float milliseconds{};
    bool fromCache{};
};

class V3Build
{
public:
    V3Build(Layer const& layer, PluginV3Params const& params, PluginBuildInputs const& in)
        : mLayer(layer)
        , mParams(params)
        , mIn(in)
        , mWho(describeLayer(layer) + ": " + describeIdentity(params.identity))
    {
    }

    Expected<PluginBuildResult> run();

private:
    Error fail(std::string const& what) const { return invalid(mWho + ": " + what); }
    void findTypings();
    Expected<std::vector<Candidate>> negotiate();
    std::optional<Error> keepAliasedAlike(std::vector<Candidate>& found, std::vector<int32_t>& aliased);
    Expected<bool> configure(Candidate const& candidate, std::size_t profile);
    Expected<std::vector<int32_t>> tactics();
    Expected<int64_t> workspaceSize(Candidate const& candidate, std::size_t profile);
    Expected<Timed> time(Candidate const& candidate, std::size_t profile, int32_t tactic, int64_t workspace);
    Expected<V3Capabilities> timingCapabilities();
    std::optional<Error> aotProblem() const;
    std::optional<Error> quickShapes();
    Expected<AotKernelRecord> aotKernel(Candidate const& chosen, int32_t tactic);
    std::string cacheKeyText(Candidate const& candidate, std::size_t profile, int32_t tactic) const;
    //! The plugin's I/O with the candidate's types.
    std::vector<PluginIo> const& io(Candidate const& candidate) const { return mTypings[candidate.typing]; }
    std::string combinationText(Candidate const& candidate) const
    {
        return kiln::combinationText(io(candidate), candidate.formats);
    }

    Layer const& mLayer;
    PluginV3Params const& mParams;
    PluginBuildInputs const& mIn;
    std::string mWho;
    //! The expressions the Quick clone heard getOutputShapes() with (quickShapes()): they live as long as the build.
    std::unique_ptr<AotExprRecorder> mQuickShapes;
    std::unique_ptr<nvinfer1::IPluginV3> mClone;
    V3Capabilities mCaps;
    //! What attachToContext() gave for timing, made when the first tactic is timed; its capabilities.
    std::unique_ptr<nvinfer1::IPluginV3> mTimed;
    V3Capabilities mTimedCaps;
    std::optional<std::pair<std::size_t, Candidate>> mTimedWith; //!< The profile and candidate it was configured for.
    std::vector<PluginIo> mIo;                                   //!< Data inputs, then outputs, in the network's types.
    //! The types the I/O may take: mIo first, then each choice of the reduced type for the kFLOAT data inputs.
    std::vector<std::vector<PluginIo>> mTypings;
    std::size_t mNbInputs{};
    std::optional<std::string> mCacheId;
    //! getAliasedInput() of each output, asked once (with kALIASED_PLUGIN_IO_10_03; empty otherwise).
    std::vector<int32_t> mAliased;
    //! The clone's AOT build capability (include/kiln/plugin_aot.h): the engine keeps a kernel instead of the plugin.
    IPluginV3AotBuild* mAot{};
};

// ---- 2. Types and formats ------------------------------------------------------------------------------------------

void V3Build::findTypings()
{
    mTypings = {mIo};
    std::vector<std::size_t> floats; // the kFLOAT data inputs
    for (std::size_t i = 0; i < mNbInputs; ++i)
    {
        if (mIo[i].type == DataType::kFLOAT)
        {
            floats.push_back(i);
        }
    }
    if (!mIn.reducedType || floats.empty())
    {
        return;
    }
    // Every subset of them in the reduced type (TensorRT's choice is per I/O); past four inputs, all of them only.
    constexpr std::size_t kMostMixed = 4;
    std::size_t const nbSubsets = floats.size() <= kMostMixed ? (std::size_t{1} << floats.size()) - 1 : 1;
    auto const nbOutputs = static_cast<int32_t>(mIo.size() - mNbInputs);
    for (std::size_t subset = 1; subset <= nbSubsets; ++subset)
    {
        std::vector<PluginIo> typed = mIo;
        std::vector<DataType> inputTypes;
        for (std::size_t k = 0; k < floats.size(); ++k)
        {
            if (floats.size() > kMostMixed || (subset >> k & 1U) != 0)
            {
                typed[floats[k]].type = *mIn.reducedType;
            }
        }
        for (std::size_t i = 0; i < mNbInputs; ++i)
        {
            inputTypes.push_back(typed[i].type);
        }
        std::vector<DataType> outputTypes(static_cast<std::size_t>(nbOutputs), DataType::kFLOAT);
        if (mCaps.build->getOutputDataTypes(
                outputTypes.data(), nbOutputs, inputTypes.data(), static_cast<int32_t>(mNbInputs))
                != 0
            || !std::all_of(outputTypes.begin(), outputTypes.end(), [](DataType type) { return isValidEnum(type); }))
        {
            std::string types;
            for (DataType type : inputTypes)
            {
                types += (types.empty() ? "" : ", ") + std::string(dataTypeName(type));
            }
            log(Severity::kVERBOSE,
                cat(mWho, ": getOutputDataTypes() failed for the input types (", types, "); they are not tried"));
            continue;
        }
        for (std::size_t o = 0; o < outputTypes.size(); ++o)
        {
            typed[mNbInputs + o].type = outputTypes[o];
        }
        mTypings.push_back(std::move(typed));
    }
}

Expected<std::vector<Candidate>> V3Build::negotiate()
{
    findTypings();
    std::vector<Candidate> candidates;
    std::size_t deepest = 0;
    int32_t const limit = std::max(mCaps.build->getFormatCombinationLimit(), 1);
    auto const nbOutputs = static_cast<int32_t>(mIo.size() - mNbInputs);
    for (std::size_t t = 0; t < mTypings.size() && static_cast<int32_t>(candidates.size()) < limit; ++t)
    {
        // Positions not yet decided hold the linear format; the plugin may read only positions up to the one asked.
        std::vector<DynamicPluginTensorDesc> inOut
            = dynamicDescs(mTypings[t], Combination(mIo.size(), TensorFormat::kLINEAR), 0);
        FormatSearch searched = searchCombinations(mTypings[t], mIn, limit - static_cast<int32_t>(candidates.size()),
            [&](std::size_t pos, Combination const& formats) {
                for (std::size_t i = 0; i < inOut.size(); ++i)
                {
                    inOut[i].desc.format = formats[i];
                }
                return mCaps.build->supportsFormatCombination(
                    static_cast<int32_t>(pos), inOut.data(), static_cast<int32_t>(mNbInputs), nbOutputs);
            });
        if (t == 0)
        {
            deepest = searched.deepest; // an error names where the network's types failed
        }
        for (Combination& formats : searched.found)
        {
            candidates.push_back(Candidate{t, std::move(formats)});
        }
    }
    if (candidates.empty())
    {
        return noCombination(mWho, mIo, mNbInputs, deepest, mIn, "getOutputDataTypes()", true);
    }
    return candidates;
}

//! An output that aliases an input shares its memory, so only the candidates that give both the same type and format
//! stay; aliased gets getAliasedInput() of each output, asked once.
std::optional<Error> V3Build::keepAliasedAlike(std::vector<Candidate>& found, std::vector<int32_t>& aliased)
{
    for (std::size_t o = 0; o < mIo.size() - mNbInputs; ++o)
    {
        int32_t const input = mCaps.build2->getAliasedInput(static_cast<int32_t>(o));
        aliased.push_back(input);
        if (input < 0 || static_cast<std::size_t>(input) >= mNbInputs)
        {
            continue; // none, or an invalid answer that step 4 reports
        }
        auto const i = static_cast<std::size_t>(input);
        std::erase_if(found, [&](Candidate const& candidate) {
            return candidate.formats[i] != candidate.formats[mNbInputs + o]
                || io(candidate)[i].type != io(candidate)[mNbInputs + o].type;
        });
        if (found.empty())
        {
            return fail(cat("output ", o, " aliases input ", input,
                " but supportsFormatCombination() accepted no combination that gives them the same type and format"));
        }
    }
    return std::nullopt;
}

// ---- 3. Configure, tactics, timing ----------------------------------------------------------------------------------

Expected<bool> V3Build::configure(Candidate const& candidate, std::size_t profile)
{
    auto const descs = dynamicDescs(io(candidate), candidate.formats, profile);
    auto const nbOutputs = static_cast<int32_t>(mIo.size() - mNbInputs);
    int32_t const status = mCaps.build->configurePlugin(
        descs.data(), static_cast<int32_t>(mNbInputs), descs.data() + mNbInputs, nbOutputs);
    if (status != 0)
    {
        return fail(cat("configurePlugin() returned status ", status, " for ", profileName(profile), " with formats ",
            combinationText(candidate)));
    }
    return true;
}

Expected<std::vector<int32_t>> V3Build::tactics()
{
    int32_t const count = mCaps.build->getNbTactics();
    if (count < 0)
    {
        return fail(cat("getNbTactics() returned ", count));
    }
    if (count == 0)
    {
        return std::vector<int32_t>{0};
    }
    std::vector<int32_t> list(static_cast<std::size_t>(count), 0);
    int32_t const status = mCaps.build->getValidTactics(list.data(), count);
    if (status != 0)
    {
        return fail(cat("getValidTactics() returned status ", status));
    }
    std::set<int32_t> seen;
    for (int32_t tactic : list)
    {
        if (tactic == 0 || !seen.insert(tactic).second)
        {
            return fail(cat("getValidTactics() gave the tactic ", tactic,
                tactic == 0 ? ", which is the default tactic" : " twice", "; custom tactics are unique and non-zero"));
        }
    }
    return list;
}

Expected<int64_t> V3Build::workspaceSize(Candidate const& candidate, std::size_t profile)
{
    auto const descs = dynamicDescs(io(candidate), candidate.formats, profile);
    std::size_t const bytes = mCaps.build->getWorkspaceSize(descs.data(), static_cast<int32_t>(mNbInputs),
        descs.data() + mNbInputs, static_cast<int32_t>(mIo.size() - mNbInputs));
    constexpr std::size_t kMaxWorkspace = std::size_t{1} << 40U;
    if (bytes > kMaxWorkspace)
    {
        return fail(cat("getWorkspaceSize() asked for ", bytes, " bytes; kiln gives a plugin at most 1 TiB"));
    }
    return static_cast<int64_t>(bytes);
}

std::string V3Build::cacheKeyText(Candidate const& candidate, std::size_t profile, int32_t tactic) const
{
    PluginIdentity const& id = mParams.identity;
    std::string text = cat("kiln plugin v3|", id.name, "|", id.version, "|", id.pluginNamespace, "|tactic ", tactic);
    std::vector<PluginIo> const& typed = io(candidate);
    for (std::size_t i = 0; i < typed.size(); ++i)
    {
        ConcreteShape const* shape = typed[i].shapes[profile];
        text += cat("|", static_cast<int32_t>(typed[i].type), ":", static_cast<int32_t>(candidate.formats[i]), ":",
            typed[i].declared);
        if (shape != nullptr)
        {
            text += cat(":", shape->min, ":", shape->opt, ":", shape->max);
        }
    }
    return text + "|id " + mCacheId.value_or("");
}

Expected<Timed> V3Build::time(Candidate const& candidate, std::size_t profile, int32_t tactic, int64_t workspace)
{
    std::vector<PluginIo> const& typed = io(candidate);
    Combination const& combination = candidate.formats;
    std::optional<nvinfer1::TimingCacheKey> key;
    if (mCacheId && mIn.cache != nullptr)
    {
        key = makeTimingCacheKey(cacheKeyText(candidate, profile, tactic));
        if (auto const hit = mIn.cache->lookup(*key))
        {
            auto const cost = kiln::reformatCost(mWho, typed, mNbInputs, combination, profile, mIn);
            if (!cost)
            {
                return cost.error();
            }
            return Timed{hit->timingMSec + cost.value(), true};
        }
        if (mIn.errorOnCacheMiss)
        {
            return fail(
                cat("the timing cache has no entry for tactic ", tactic, " with formats ", combinationText(candidate),
                    " at ", profileName(profile), ", and BuilderFlag::kERROR_ON_TIMING_CACHE_MISS is set"));
        }
    }
    auto caps = timingCapabilities();
    if (!caps)
    {
        return caps.error();
    }
    V3Capabilities const& timing = caps.value();
    // The attached clone is configured as the build's own was, for this profile and combination.
    auto const nbInputs = static_cast<int32_t>(mNbInputs);
    auto const nbOutputs = static_cast<int32_t>(mIo.size() - mNbInputs);
    if (!mTimedWith || mTimedWith->first != profile || mTimedWith->second != candidate)
    {
        auto const dynamic = dynamicDescs(typed, combination, profile);
        if (int32_t const status
            = timing.build->configurePlugin(dynamic.data(), nbInputs, dynamic.data() + nbInputs, nbOutputs);
            status != 0)
        {
            return fail(cat("configurePlugin() returned status ", status,
                " on the clone attachToContext() gave for "
                "timing, for ",
                profileName(profile), " with formats ", combinationText(candidate)));
        }
        mTimedWith.emplace(profile, candidate);
    }
    // Descriptors at kOPT; extents the plugin's own size tensors decide are wildcards.
    auto prepared = timingRun(mWho, typed, mNbInputs, combination, profile, workspace, mIn);
    if (!prepared)
    {
        return prepared.error();
    }
    TimingRun& run = prepared.value();
    // An aliased output is timed in its input's memory, as it runs in the engine (an in-place impl writes its input).
    for (std::size_t o = 0; o < mAliased.size() && o < run.outputs.size(); ++o)
    {
        if (mAliased[o] >= 0 && static_cast<std::size_t>(mAliased[o]) < run.inputs.size())
        {
            run.outputs[o] = const_cast<void*>(run.inputs[static_cast<std::size_t>(mAliased[o])]);
        }
    }
    std::vector<PluginTensorDesc> const& descs = run.descs;
    if (int32_t const status = timing.runtime->setTactic(tactic); status != 0)
    {
        return fail(cat("setTactic(", tactic, ") returned status ", status));
    }
    if (int32_t const status
        = timing.runtime->onShapeChange(descs.data(), nbInputs, descs.data() + nbInputs, nbOutputs);
        status != 0)
    {
        return fail(cat("onShapeChange() returned status ", status, " at the kOPT shapes of ", profileName(profile)));
    }
    int32_t status = 0;
    auto const timed = timeCalls(
        mIn, mIn.settings.avgTimingIterations,
        [&] {
            return mIn.enqueue(timing, descs.data(), descs.data() + nbInputs, run.inputs.data(), run.outputs.data(),
                run.workspacePointer());
        },
        status);
    if (status != 0)
    {
        return fail(cat(mIn.enqueueName, " returned status ", status, " while timing tactic ", tactic, " with formats ",
            combinationText(candidate), " at ", profileName(profile)));
    }
    if (!timed)
    {
        return fail(cat("timing tactic ", tactic, ": ", timed.error().message));
    }
    float reformatMilliseconds = 0.0F;
    float const milliseconds = timed.value();
    if (auto cost = kiln::reformatCost(mWho, typed, mNbInputs, combination, profile, mIn); !cost)
    {
        return cost.error();
    }
    else
    {
        reformatMilliseconds = cost.value();
    }
    if (key)
    {
        if (auto problem
            = mIn.cache->record(*key, nvinfer1::TimingCacheValue{static_cast<uint32_t>(tactic), milliseconds}))
        {
            return fail(
                "the timing cache refused the timing of tactic " + std::to_string(tactic) + ": " + problem->message);
        }
    }
    return Timed{milliseconds + reformatMilliseconds, false};
}

Expected<V3Capabilities> V3Build::timingCapabilities()
{
    if (mTimed != nullptr)
    {
        return mTimedCaps;
    }
    mTimed.reset(mCaps.runtime->attachToContext(mIn.resources));
    if (mTimed == nullptr)
    {
        return fail("attachToContext() returned null; the builder times the clone it returns, as an execution "
                    "context runs it");
    }
    auto caps = capabilitiesOf(*mTimed, {.build = true, .host = mIn.needHost}, describeLayer(mLayer),
        describeIdentity(mParams.identity) + "'s clone from attachToContext()");
    if (!caps)
    {
        mTimed.reset();
        return invalid(caps.error().message);
    }
    mTimedCaps = caps.value();
    return mTimedCaps;
}

// ---- Ahead-of-time kernels
// -------------------------------------------------------------------------------------------

std::optional<Error> V3Build::aotProblem() const
{
    if (mParams.nbShapeInputs != 0)
    {
        return fail("an ahead-of-time (AOT) kernel takes no shape inputs");
    }
    for (std::size_t o = mNbInputs; o < mIo.size(); ++o)
    {
        if (mIo[o].sizeDependent)
        {
            return fail(cat("output ", o - mNbInputs,
                " of an ahead-of-time (AOT) kernel has data-dependent extents, "
                "which kiln's AOT kernels do not support"));
        }
    }
    return std::nullopt;
}

Expected<AotKernelRecord> V3Build::aotKernel(Candidate const& chosen, int32_t tactic)
{
    std::vector<Dims> declared;
    std::vector<int32_t> ranks;
    for (std::size_t i = 0; i < mNbInputs; ++i)
    {
        declared.push_back(mIo[i].declared);
        ranks.push_back(mIo[i].declared.nbDims);
    }
    AotExprRecorder recorder(declared);
    auto const descs = dynamicDescs(io(chosen), chosen.formats, 0);
    AotKernel kernel;
    int32_t const status = mAot->getAotKernel(recorder.inputs().data(), descs.data(), static_cast<int32_t>(mNbInputs),
        static_cast<int32_t>(mIo.size() - mNbInputs), tactic, recorder.builder(), kernel);
    if (status != 0)
    {
        return fail(cat("getAotKernel() returned status ", status, " for tactic ", tactic, " with formats ",
            combinationText(chosen)));
    }
    auto record = recorder.record(kernel);
    if (!record)
    {
        return fail("getAotKernel(): " + record.error().message);
    }
    if (auto problem = aotKernelProblem(record.value(), ranks))
    {
        return fail("getAotKernel(): " + *problem);
    }
    return record;
}

// ---- Quick plugins --------------------------------------------------------------------------------------------------

//! A Quick plugin keeps what getOutputShapes() gave and reads it in later calls on the same object (tensorrt.plugin's
//! template plugins keep their input and output descriptors, with their expressions, for the format combinations,
//! autotune and aot_impl), so the build's clone hears getOutputShapes() itself, before the format combinations, as the
//! network's object did; its expressions live as long as this build.
std::optional<Error> V3Build::quickShapes()
{
    if (mParams.nbShapeInputs != 0)
    {
        return std::nullopt; // Quick plugins take none (tensorrt.plugin asserts so); the network's call said so
    }
    std::vector<Dims> declared;
    for (std::size_t i = 0; i < mNbInputs; ++i)
    {
        declared.push_back(mIo[i].declared);
    }
    mQuickShapes = std::make_unique<AotExprRecorder>(declared);
    std::vector<nvinfer1::DimsExprs> outputs(mIo.size() - mNbInputs);
    int32_t const status = mCaps.build->getOutputShapes(mQuickShapes->inputs().data(), static_cast<int32_t>(mNbInputs),
        nullptr, 0, outputs.data(), static_cast<int32_t>(outputs.size()), mQuickShapes->builder());
    if (status != 0)
    {
        return fail(cat("getOutputShapes() returned status ", status, " on the build's clone"));
    }
    return std::nullopt;
}

// ---- The protocol ---------------------------------------------------------------------------------------------------

Expected<PluginBuildResult> V3Build::run()
{
    // 1. The build's own clone and its capabilities.
    mClone.reset(mParams.plugin->clone());
    if (mClone == nullptr)
    {
        return fail("clone() returned null; the builder works on a clone of the network's plugin");
    }
    auto caps = capabilitiesOf(
        *mClone, {.build = true, .host = false}, describeLayer(mLayer), describeIdentity(mParams.identity));
    if (!caps)
    {
        return invalid(caps.error().message);
    }
    mCaps = caps.value();
    mNbInputs = static_cast<std::size_t>(mParams.nbInputs);
    mIo = describePluginIo(mLayer, mNbInputs, mIn);
    if (mCaps.quick != nullptr)
    {
        std::vector<int32_t> ranks;
        for (std::size_t i = 0; i < mNbInputs; ++i)
        {
            ranks.push_back(mIo[i].declared.nbDims);
        }
        mCaps.quick->setInputRanks(std::move(ranks));
        if (auto problem = quickShapes())
        {
            return *problem;
        }
    }
    // A Quick AOT plugin's capability comes with its build capability; kiln's own is a base of the plugin's class.
    mAot = mCaps.aot != nullptr ? mCaps.aot : findAotBuildCapability(*mClone);
    if (mAot != nullptr)
    {
        if (auto problem = aotProblem())
        {
            return *problem;
        }
    }

    // 2. Types and formats; an aliased output keeps its input's.
    auto combinations = negotiate();
    if (!combinations)
    {
        return combinations.error();
    }
    if (mCaps.build2 != nullptr && mIn.aliasedIo)
    {
        if (auto problem = keepAliasedAlike(combinations.value(), mAliased))
        {
            return *problem;
        }
    }
    std::vector<int32_t> const& aliased = mAliased;

    // 3. Per profile and combination: configure, tactics, workspace; then, when there is a choice, timing.
    // cost[(combination, tactic)] sums the profiles.
    struct Candidates
    {
        std::size_t profile{};
        std::size_t combination{};
        std::vector<int32_t> tactics;
        int64_t workspace{};
    };
    std::vector<Candidates> candidates;
    std::set<std::pair<std::size_t, int32_t>> choices;
    for (std::size_t p = 0; p < mIn.profiles.size(); ++p)
    {
        for (std::size_t c = 0; c < combinations.value().size(); ++c)
        {
            Candidate const& combination = combinations.value()[c];
            if (auto configured = configure(combination, p); !configured)
            {
                return configured.error();
            }
            if (char const* id = mCaps.build->getTimingCacheID(); id != nullptr && !mCacheId)
            {
                mCacheId = id;
            }
            auto list = tactics();
            if (!list)
            {
                return list.error();
            }
            auto workspace = workspaceSize(combination, p);
            if (!workspace)
            {
                return workspace.error();
            }
            for (int32_t tactic : list.value())
            {
                choices.emplace(c, tactic);
            }
            candidates.push_back(Candidates{p, c, std::move(list.value()), workspace.value()});
        }
    }
    std::map<std::pair<std::size_t, int32_t>, float> cost;
    std::map<std::pair<std::size_t, int32_t>, std::size_t> seenIn; // profiles that offered the pair
    // An AOT kernel runs on no backend at build time: nothing is timed, and the first candidate is kept.
    if (choices.size() > 1 && mAot == nullptr)
    {
        for (Candidates const& candidate : candidates)
        {
            for (int32_t tactic : candidate.tactics)
            {
                auto timed
                    = time(combinations.value()[candidate.combination], candidate.profile, tactic, candidate.workspace);
                if (!timed)
                {
                    return timed.error();
                }
                cost[{candidate.combination, tactic}] += timed.value().milliseconds;
                log(Severity::kVERBOSE,
                    cat(mWho, ": tactic ", tactic, " with formats ",
                        combinationText(combinations.value()[candidate.combination]), " at ",
                        profileName(candidate.profile), ": ", timed.value().milliseconds, " ms",
                        timed.value().fromCache ? " (from the timing cache)" : ""));
            }
        }
    }
    for (Candidates const& candidate : candidates)
    {
        for (int32_t tactic : candidate.tactics)
        {
            ++seenIn[{candidate.combination, tactic}];
            cost.try_emplace({candidate.combination, tactic}, 0.0F);
        }
    }
    mTimed.reset(); // The attached clone goes once timing is over, as an execution context's would.
    std::optional<std::pair<std::size_t, int32_t>> best;
    for (auto const& [choice, milliseconds] : cost)
    {
        if (seenIn[choice] == mIn.profiles.size() && (!best || milliseconds < cost[*best]))
        {
            best = choice;
        }
    }
    if (!best)
    {
        return fail("no tactic is valid for every optimization profile with the same formats");
    }

    // 4. The choice: configure with it, then what the engine keeps.
    Candidate const& chosen = combinations.value()[best->first];
    std::vector<PluginIo> const& typed = io(chosen);
    log(Severity::kVERBOSE,
        choices.size() > 1 ? cat(mWho, ": chose tactic ", best->second, " with formats ", combinationText(chosen),
            " of ", choices.size(), " candidates (", cost[*best], " ms over the profiles)")
                           : cat(mWho, ": formats ", combinationText(chosen), ", tactic ", best->second,
                               ": the only candidate, so the plugin was not run"));
    PluginV3Params params;
    params.identity = mParams.identity;
    params.nbInputs = mParams.nbInputs;
    params.nbShapeInputs = mParams.nbShapeInputs;
    params.outputTypes = mParams.outputTypes;
    if (chosen.typing != 0)
    {
        params.outputTypes.clear(); // getOutputDataTypes() for the reduced inputs
        for (std::size_t o = mNbInputs; o < typed.size(); ++o)
        {
            params.outputTypes.push_back(typed[o].type);
        }
    }
    params.plan.tactic = best->second;
    params.plan.language = mParams.plugin->getAPILanguage();
    for (std::size_t p = 0; p < mIn.profiles.size(); ++p)
    {
        if (auto configured = configure(chosen, p); !configured)
        {
            return configured.error();
        }
        auto workspace = workspaceSize(chosen, p);
        if (!workspace)
        {
            return workspace.error();
        }
        params.plan.workspaceBytes = std::max(params.plan.workspaceBytes, workspace.value());
    }
    if (mAot != nullptr)
    {
        auto aot = aotKernel(chosen, best->second);
        if (!aot)
        {
            return aot.error();
        }
        log(Severity::kVERBOSE, cat(mWho, ": the engine keeps its ", describeAotKernel(aot.value())));
        params.plan.aot = std::move(aot.value());
        params.plan.workspaceBytes = 0;
        return PluginBuildResult{LayerParams{std::move(params)}, typesOf(typed), chosen.formats};
    }
    std::size_t const nbOutputs = mIo.size() - mNbInputs;
    if (mCaps.build2 != nullptr && mIn.aliasedIo)
    {
        std::vector<bool> taken(mNbInputs, false);
        for (std::size_t o = 0; o < nbOutputs; ++o)
        {
            int32_t const input = aliased[o];
            if (input != -1
                && (input < 0 || static_cast<std::size_t>(input) >= mNbInputs
                    || taken[static_cast<std::size_t>(input)]))
            {
                return fail(cat("getAliasedInput(", o, ") returned ", input,
                    "; an output aliases -1 (none) or a data input no other output aliases"));
            }
            if (input != -1)
            {
                PluginIo const& in = typed[static_cast<std::size_t>(input)];
                PluginIo const& out = typed[mNbInputs + o];
                if (in.type != out.type
                    || chosen.formats[static_cast<std::size_t>(input)] != chosen.formats[mNbInputs + o])
                {
                    return fail(cat("output ", o, " aliases input ", input, " but their types or formats differ"));
                }
                taken[static_cast<std::size_t>(input)] = true;
            }
            params.plan.aliasedInputs.push_back(input);
        }
        if (std::all_of(params.plan.aliasedInputs.begin(), params.plan.aliasedInputs.end(),
                [](int32_t input) { return input == -1; }))
        {
            params.plan.aliasedInputs.clear();
        }
    }
    nvinfer1::PluginFieldCollection const* fields = mCaps.runtime->getFieldsToSerialize();
    if (fields == nullptr)
    {
        return fail("getFieldsToSerialize() returned null");
    }
    auto records = copyFields(*fields);
    if (!records)
    {
        return fail("getFieldsToSerialize(): " + records.error().message);
    }
    params.plan.fields = std::move(records.value());

    return PluginBuildResult{LayerParams{std::move(params)}, typesOf(typed), chosen.formats};
}

} // namespace

Expected<PluginBuildResult> buildPluginLayer(Layer const& layer, PluginBuildInputs const& in)
{
    if (auto const* v3 = std::get_if<PluginV3Params>(&layer.params()))
    {
        return V3Build(layer, *v3, in).run();
    }
    return buildPluginV2Layer(layer, std::get<PluginV2Params>(layer.params()), in);
}

} // namespace kiln
