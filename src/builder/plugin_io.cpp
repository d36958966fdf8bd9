// SPDX-License-Identifier: Apache-2.0
#include "builder/plugin_io.h"

#include "backends/host/reformat.h"
#include "core/data_type.h"
#include "plan/model_support.h"
#include "plugin/plugin_v3.h"

#include <algorithm>

namespace kiln
{

using nvinfer1::TensorFormat;

std::vector<PluginIo> describePluginIo(Layer const& layer, std::size_t nbDataInputs, PluginBuildInputs const& in)
{
    std::vector<PluginIo> io;
    auto const add = [&](Tensor const& tensor, bool isOutput) {
        PluginIo entry;
        entry.tensor = &tensor;
        entry.type = tensor.type();
        entry.scale = in.scaleOf(tensor);
        SymbolicDims const& symbolic = in.shapes.shape(tensor);
        entry.declared.nbDims = static_cast<int32_t>(symbolic.size());
        for (std::size_t j = 0; j < symbolic.size(); ++j)
        {
            DimExpr const& extent = *symbolic[j];
            entry.declared.d[j] = extent.kind() == DimExpr::Kind::kCONSTANT ? extent.value() : -1;
            entry.sizeDependent = entry.sizeDependent || (isOutput && extent.dependsOnSizeTensor());
        }
        for (ConcreteShapes const& profile : in.profiles)
        {
            auto const found = profile.tensors.find(&tensor);
            entry.shapes.push_back(found == profile.tensors.end() ? nullptr : &found->second);
        }
        io.push_back(std::move(entry));
    };
    for (std::size_t i = 0; i < nbDataInputs; ++i)
    {
        add(*layer.inputs()[i], false);
    }
    for (Tensor const* output : layer.outputs())
    {
        add(*output, true);
    }
    return io;
}

namespace
{

void search(std::vector<PluginIo> const& io, PluginBuildInputs const& in, int32_t limit,
    std::function<bool(std::size_t, Combination const&)> const& accepts, std::size_t pos, Combination& formats,
    FormatSearch& result)
{
    if (pos == io.size())
    {
        result.found.push_back(formats);
        return;
    }
    result.deepest = std::max(result.deepest, pos);
    for (TensorFormat format : in.formatsFor(io[pos].type, io[pos].declared))
    {
        if (static_cast<int32_t>(result.found.size()) >= limit)
        {
            break;
        }
        formats[pos] = format;
        if (accepts(pos, formats))
        {
            search(io, in, limit, accepts, pos + 1, formats, result);
        }
    }
    formats[pos] = TensorFormat::kLINEAR;
}

} // namespace

FormatSearch searchCombinations(std::vector<PluginIo> const& io, PluginBuildInputs const& in, int32_t limit,
    std::function<bool(std::size_t, Combination const&)> const& accepts)
{
    FormatSearch result;
    Combination formats(io.size(), TensorFormat::kLINEAR);
    search(io, in, std::max(limit, 1), accepts, 0, formats, result);
    return result;
}

Error noCombination(std::string const& who, std::vector<PluginIo> const& io, std::size_t nbInputs, std::size_t deepest,
    PluginBuildInputs const& in, char const* typesFrom)
{
    PluginIo const& at = io[deepest];
    bool const isInput = deepest < nbInputs;
    std::string tried;
    for (TensorFormat format : in.formatsFor(at.type, at.declared))
    {
        tried += (tried.empty() ? "" : ", ") + std::string(host::formatName(format));
    }
    return invalid(cat(who,
        ": supportsFormatCombination() accepted no combination: it refused every format for position ", deepest, " (",
        isInput ? "input " : "output ", isInput ? deepest : deepest - nbInputs, " '", at.tensor->name(), "', ",
        dataTypeName(at.type), " ", at.declared, ") after accepting the positions before it; formats tried: ", tried,
        ". The network fixes the types: the input tensors' types and the output types of ", typesFrom));
}

std::vector<nvinfer1::DynamicPluginTensorDesc> dynamicDescs(
    std::vector<PluginIo> const& io, Combination const& combination, std::size_t profile)
{
    std::vector<nvinfer1::DynamicPluginTensorDesc> descs;
    for (std::size_t i = 0; i < io.size(); ++i)
    {
        nvinfer1::DynamicPluginTensorDesc desc{};
        desc.desc = pluginDesc(io[i].declared, io[i].type, combination[i], io[i].scale);
        ConcreteShape const* shape = profile < io[i].shapes.size() ? io[i].shapes[profile] : nullptr;
        desc.min = shape != nullptr ? shape->min : io[i].declared;
        desc.opt = shape != nullptr ? shape->opt : io[i].declared;
        desc.max = shape != nullptr ? shape->max : io[i].declared;
        descs.push_back(desc);
    }
    return descs;
}

std::string combinationText(std::vector<PluginIo> const& io, Combination const& combination)
{
    std::string text = "(";
    for (std::size_t i = 0; i < combination.size(); ++i)
    {
        text += (i == 0 ? "" : ", ") + std::string(dataTypeName(io[i].type)) + " " + host::formatName(combination[i]);
    }
    return text + ")";
}

Expected<float> reformatCost(std::string const& who, std::vector<PluginIo> const& io, std::size_t nbInputs,
    Combination const& combination, std::size_t profile, PluginBuildInputs const& in)
{
    float total = 0.0F;
    for (std::size_t i = 0; i < io.size() && in.reformatCost; ++i)
    {
        if (combination[i] == TensorFormat::kLINEAR || io[i].shapes[profile] == nullptr)
        {
            continue;
        }
        bool const isInput = i < nbInputs;
        auto const cost = in.reformatCost(io[i].type, io[i].shapes[profile]->opt,
            isInput ? TensorFormat::kLINEAR : combination[i], isInput ? combination[i] : TensorFormat::kLINEAR);
        if (!cost)
        {
            return invalid(cat(who, ": cannot reformat '", io[i].tensor->name(), "' to ",
                host::formatName(combination[i]), ": ", cost.error().message));
        }
        total += cost.value();
    }
    return total;
}

Expected<TimingRun> timingRun(std::string const& who, std::vector<PluginIo> const& io, std::size_t nbInputs,
    Combination const& combination, std::size_t profile, int64_t workspaceBytes, PluginBuildInputs const& in)
{
    TimingRun run;
    for (std::size_t i = 0; i < io.size(); ++i)
    {
        PluginIo const& entry = io[i];
        ConcreteShape const* shape = entry.shapes[profile];
        if (shape == nullptr)
        {
            return invalid(cat(who, ": tensor '", entry.tensor->name(), "' has a shape known only at run time at ",
                profileName(profile), "; kiln cannot time the plugin without it"));
        }
        Dims dims = shape->opt;
        if (entry.sizeDependent)
        {
            for (int32_t j = 0; j < dims.nbDims; ++j)
            {
                dims.d[j] = entry.declared.d[j] >= 0 ? dims.d[j] : -1;
            }
        }
        run.descs.push_back(pluginDesc(dims, entry.type, combination[i], entry.scale));
        auto const bytes = in.bytesFor(entry.type, entry.sizeDependent ? shape->max : shape->opt, combination[i]);
        if (!bytes)
        {
            return invalid(cat(who, ": tensor '", entry.tensor->name(), "': ", bytes.error().message));
        }
        run.storage.emplace_back(static_cast<std::size_t>(std::max<int64_t>(bytes.value(), 1)));
        if (i < nbInputs)
        {
            run.inputs.push_back(run.storage.back().data());
        }
        else
        {
            run.outputs.push_back(run.storage.back().data());
        }
    }
    run.workspace.resize(static_cast<std::size_t>(workspaceBytes));
    return run;
}

} // namespace kiln
