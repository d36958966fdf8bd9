// SPDX-License-Identifier: Apache-2.0
// `kiln check-plugin`'s V3 probe for sample inputs and its rules on formats and output shapes:
// supportsFormatCombination within pos and consistent, getOutputDataTypes and getOutputShapes.
#include "check_v3.h"

#include "specs.h"

#include <algorithm>

namespace kiln_tool::check_v3
{
namespace
{

// ---- sample inputs, formats and shapes ----------------------------------------------------------------------------

//! supportsFormatCombination asked with the whole of inOut readable (a read past its end is a "no").
bool supportsGuarded(
    IPluginV3OneBuild& build, int32_t pos, std::vector<PluginTensorDesc> const& inOut, int32_t nbInputs)
{
    std::vector<DynamicPluginTensorDesc> const dynamic = dynamicOf(inOut);
    GuardedBuffer buffer(dynamic.size() * sizeof(DynamicPluginTensorDesc), alignof(DynamicPluginTensorDesc));
    auto* descs = static_cast<DynamicPluginTensorDesc*>(buffer.data());
    std::copy(dynamic.begin(), dynamic.end(), descs);
    bool answer = false;
    announce("supportsFormatCombination");
    std::optional<Fault> const fault = callGuarded({&buffer}, [&] {
        answer = build.supportsFormatCombination(pos, descs, nbInputs, static_cast<int32_t>(inOut.size()) - nbInputs);
    });
    return !fault && answer;
}

bool outputTypes(IPluginV3OneBuild& build, std::vector<DataType> const& inputs, std::vector<DataType>& outputs)
{
    int32_t const nbOutputs = build.getNbOutputs();
    auto const sentinel = static_cast<DataType>(-1);
    outputs.assign(static_cast<std::size_t>(std::max(nbOutputs, 0)), sentinel);
    GuardedBuffer in(std::max<std::size_t>(inputs.size(), 1) * sizeof(DataType), alignof(DataType));
    std::copy(inputs.begin(), inputs.end(), static_cast<DataType*>(in.data()));
    int32_t status = -1;
    announce("getOutputDataTypes");
    std::optional<Fault> const fault = callGuarded({&in}, [&] {
        status = build.getOutputDataTypes(
            outputs.data(), nbOutputs, static_cast<DataType const*>(in.data()), static_cast<int32_t>(inputs.size()));
    });
    return !fault && status == 0 && std::find(outputs.begin(), outputs.end(), sentinel) == outputs.end();
}

ShapeAnswer outputShapes(IPluginV3OneBuild& build, std::vector<Dims> const& inputs)
{
    ConstantExprBuilder builder;
    std::vector<DimsExprs> const in = constantShapes(inputs, builder);
    int32_t const nbOutputs = build.getNbOutputs();
    GuardedBuffer inBuffer(std::max<std::size_t>(in.size(), 1) * sizeof(DimsExprs), alignof(DimsExprs));
    GuardedBuffer outBuffer(std::max(nbOutputs, 1) * sizeof(DimsExprs), alignof(DimsExprs));
    std::copy(in.begin(), in.end(), static_cast<DimsExprs*>(inBuffer.data()));
    std::vector<DimsExprs> out = blankShapes(nbOutputs);
    std::copy(out.begin(), out.end(), static_cast<DimsExprs*>(outBuffer.data()));
    int32_t status = -1;
    announce("getOutputShapes");
    std::optional<Fault> const fault = callGuarded({&inBuffer, &outBuffer}, [&] {
        status = build.getOutputShapes(static_cast<DimsExprs const*>(inBuffer.data()), static_cast<int32_t>(in.size()),
            nullptr, 0, static_cast<DimsExprs*>(outBuffer.data()), nbOutputs, builder);
    });
    ShapeAnswer answer;
    if (fault && fault->buffer == &outBuffer)
    {
        answer.problem = std::string("it ") + fault->access + " outputs["
            + std::to_string(fault->offset / sizeof(DimsExprs)) + "], past the " + std::to_string(nbOutputs)
            + " outputs getNbOutputs declares";
        return answer;
    }
    if (fault)
    {
        answer.refused = true;
        answer.refusalText = "it read inputs[" + std::to_string(fault->offset / sizeof(DimsExprs)) + "] of "
            + std::to_string(in.size());
        return answer;
    }
    if (status != 0)
    {
        answer.refused = true;
        answer.refusalText = "it returned " + std::to_string(status);
        return answer;
    }
    std::copy_n(static_cast<DimsExprs const*>(outBuffer.data()), out.size(), out.begin());
    return readShapes(out, builder);
}

//! The sample (the step needs one: check_plugin.cpp skips it otherwise).
SampleIO const& sampleOf(CreatorCase const& c)
{
    return *c.sample;
}

} // namespace

ProbeResult probe(CreatorCase const& c)
{
    V3Ptr plugin = create(c, TensorRTPhase::kBUILD, c.fields.collection());
    if (plugin == nullptr)
    {
        return {std::nullopt, "createPlugin(kBUILD) returned null (see create)"};
    }
    Capabilities const caps = capabilitiesOf(*plugin);
    if (caps.build == nullptr)
    {
        return {std::nullopt, "no usable build capability: " + caps.problem + " (see capabilities)"};
    }
    IPluginV3OneBuild& build = *caps.build;
    PluginQueries queries;
    announce("getNbOutputs");
    queries.nbOutputs = build.getNbOutputs();
    queries.supports = [&](int32_t pos, std::vector<PluginTensorDesc> const& inOut, int32_t nbInputs) {
        return supportsGuarded(build, pos, inOut, nbInputs);
    };
    queries.outputTypes
        = [&](std::vector<DataType> const& in, std::vector<DataType>& out) { return outputTypes(build, in, out); };
    queries.outputShapes = [&](std::vector<Dims> const& in) { return outputShapes(build, in); };
    return findSample(queries, c.options);
}

std::vector<Finding> checkFormatWithinPos(CreatorCase const& c)
{
    V3Ptr plugin = sampleCreate(c);
    Capabilities const caps = usableCapabilities(*plugin);
    SampleIO const& sample = sampleOf(c);
    auto const nbInputs = static_cast<int32_t>(sample.inputs.size());
    auto const nbOutputs = static_cast<int32_t>(sample.outputs.size());
    std::vector<DynamicPluginTensorDesc> const inOut = dynamicOf(sample.descriptors());
    std::optional<std::string> const read
        = readPastPos<DynamicPluginTensorDesc>(inOut, [&](int32_t pos, DynamicPluginTensorDesc const* descs) {
              announce("supportsFormatCombination");
              return caps.build->supportsFormatCombination(pos, descs, nbInputs, nbOutputs);
          });
    if (read)
    {
        return {broken("format-within-pos", *read)};
    }
    return {passed("format-within-pos",
        "asked at positions 0 to " + std::to_string(inOut.size() - 1)
            + " with only inOut[0..pos] readable: nothing past pos was read")};
}

std::vector<Finding> checkFormatConsistent(CreatorCase const& c)
{
    V3Ptr plugin = sampleCreate(c);
    Capabilities const caps = usableCapabilities(*plugin);
    announce("clone");
    IPluginV3* cloned = plugin->clone();
    V3Ptr const copy(cloned != plugin.get() ? cloned : nullptr);
    Capabilities const copyCaps = copy != nullptr ? capabilitiesOf(*copy) : Capabilities{};
    IPluginV3OneBuild* other = copyCaps.build != nullptr ? copyCaps.build : caps.build;
    SampleIO const& sample = sampleOf(c);
    auto const nbInputs = static_cast<int32_t>(sample.inputs.size());
    auto const nbOutputs = static_cast<int32_t>(sample.outputs.size());
    auto const ask = [&](IPluginV3OneBuild* build) {
        return [build, nbInputs, nbOutputs](int32_t pos, DynamicPluginTensorDesc const* descs) {
            announce("supportsFormatCombination");
            return build->supportsFormatCombination(pos, descs, nbInputs, nbOutputs);
        };
    };
    std::optional<std::string> const differs = inconsistentAnswer<DynamicPluginTensorDesc>(
        dynamicOf(sample.descriptors()), nbInputs, ask(caps.build), ask(other));
    if (differs)
    {
        return {broken("format-consistent", *differs)};
    }
    return {passed("format-consistent",
        std::to_string(nbInputs + nbOutputs) + " positions x " + std::to_string(candidateTypes().size())
            + " types answered alike twice" + (copyCaps.build != nullptr ? " and by a clone" : ""))};
}

std::vector<Finding> checkOutputShapes(CreatorCase const& c)
{
    SampleIO const& sample = sampleOf(c);
    std::string const at = "at " + sample.text();
    if (!sample.shapesProblem.empty())
    {
        return {broken("output-shapes", "getOutputShapes " + at + ": " + sample.shapesProblem)};
    }
    V3Ptr plugin = sampleCreate(c);
    Capabilities const caps = usableCapabilities(*plugin);
    std::vector<DataType> inputTypes;
    std::vector<Dims> inputDims;
    for (TensorSample const& input : sample.inputs)
    {
        inputTypes.push_back(input.type);
        inputDims.push_back(input.dims);
    }
    std::vector<DataType> types;
    if (!outputTypes(*caps.build, inputTypes, types))
    {
        return {broken("output-shapes",
            "getOutputDataTypes failed or left an output's type unwritten " + at
                + ", where it succeeded while the sample was found")};
    }
    ShapeAnswer const first = outputShapes(*caps.build, inputDims);
    ShapeAnswer const second = outputShapes(*caps.build, inputDims);
    if (!first.problem.empty() || !second.problem.empty())
    {
        return {broken("output-shapes", "getOutputShapes " + at + ": " + first.problem + second.problem)};
    }
    if (first.refused)
    {
        return {skipped("output-shapes",
            "getOutputShapes refused every sample tried (" + first.refusalText
                + "): give the inputs it takes with --inputs and --shapes")};
    }
    for (std::size_t o = 0; o < first.dims.size(); ++o)
    {
        if (first.dims[o].nbDims != second.dims[o].nbDims
            || !std::equal(first.dims[o].d, first.dims[o].d + first.dims[o].nbDims, second.dims[o].d))
        {
            return {broken("output-shapes",
                "getOutputShapes answered differently when asked twice " + at + ": output " + std::to_string(o)
                    + " was " + dimsText(first.dims[o]) + ", then " + dimsText(second.dims[o]))};
        }
    }
    return {passed("output-shapes",
        "getOutputDataTypes and getOutputShapes " + at + (first.dataDependent ? " (data-dependent extents)" : ""))};
}

} // namespace kiln_tool::check_v3
