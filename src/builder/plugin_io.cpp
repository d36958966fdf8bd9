// SPDX-License-Identifier: Apache-2.0
#include "builder/plugin_io.h"

#include "backends/host/reformat.h"
#include "core/data_type.h"
#include "plan/model_support.h"
#include "plugin/plugin_v3.h"

#include <algorithm>
#include <chrono>
#include <cstring>

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
    PluginBuildInputs const& in, char const* typesFrom, bool reducible)
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
        ". The network fixes the types: the input tensors' types and the output types of ", typesFrom,
        !reducible           ? ""
            : in.reducedType ? cat("; kFLOAT inputs were offered as ", dataTypeName(*in.reducedType), " too")
                             : std::string("; kFP16 or kBF16 let a plugin take a reduced type for its kFLOAT inputs "
                                           "in a weakly typed network")));
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

namespace
{

//! block reserved for bytes and zeroed (on in.stream for device memory).
Expected<bool> zero(MemoryBlock& block, int64_t bytes, PluginBuildInputs const& in)
{
    try
    {
        block.reserve(std::max<int64_t>(bytes, 1));
    }
    catch (std::bad_alloc const&)
    {
        return Error{nvinfer1::ErrorCode::kFAILED_ALLOCATION,
            "cannot allocate " + std::to_string(bytes) + " bytes to time the plugin with"};
    }
#if KILN_WITH_CUDA
    if (in.device != nullptr)
    {
        if (cudaError_t const status = cudaMemsetAsync(block.data(), 0, static_cast<std::size_t>(bytes), in.stream);
            status != cudaSuccess)
        {
            static_cast<void>(cudaGetLastError());
            return Error{
                nvinfer1::ErrorCode::kFAILED_EXECUTION, std::string("cudaMemsetAsync: ") + cudaGetErrorString(status)};
        }
        return true;
    }
#else
    static_cast<void>(in);
#endif
    std::memset(block.data(), 0, static_cast<std::size_t>(bytes));
    return true;
}

} // namespace

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
        run.storage.emplace_back(in.device);
        auto const zeroed = zero(run.storage.back(), bytes.value(), in);
        if (!zeroed)
        {
            return invalid(cat(who, ": tensor '", entry.tensor->name(), "': ", zeroed.error().message));
        }
        if (i < nbInputs)
        {
            run.inputs.push_back(run.storage.back().data());
        }
        else
        {
            run.outputs.push_back(run.storage.back().data());
        }
    }
    run.workspace = MemoryBlock(in.device);
    run.workspaceBytes = workspaceBytes;
    if (workspaceBytes > 0)
    {
        auto const zeroed = zero(run.workspace, workspaceBytes, in);
        if (!zeroed)
        {
            return invalid(cat(who, ": the workspace: ", zeroed.error().message));
        }
    }
#if KILN_WITH_CUDA
    if (in.device != nullptr)
    {
        if (cudaError_t const status = cudaStreamSynchronize(in.stream); status != cudaSuccess)
        {
            return invalid(cat(who, ": zeroing the timing buffers failed: ", cudaGetErrorString(status)));
        }
    }
#endif
    return run;
}

Expected<float> timeCalls([[maybe_unused]] PluginBuildInputs const& in, int32_t iterations,
    std::function<int32_t()> const& once, int32_t& status)
{
    status = 0;
    iterations = std::max(1, iterations);
#if KILN_WITH_CUDA
    if (in.device != nullptr)
    {
        cudaEvent_t events[2]{};
        if (cudaEventCreate(&events[0]) != cudaSuccess || cudaEventCreate(&events[1]) != cudaSuccess)
        {
            static_cast<void>(cudaGetLastError());
            return Error{nvinfer1::ErrorCode::kFAILED_EXECUTION, "cannot create CUDA events to time the plugin"};
        }
        float milliseconds = 0.0F;
        cudaError_t failed = cudaEventRecord(events[0], in.stream);
        for (int32_t k = 0; k < iterations && status == 0 && failed == cudaSuccess; ++k)
        {
            status = once();
        }
        if (failed == cudaSuccess)
        {
            failed = cudaEventRecord(events[1], in.stream);
        }
        if (failed == cudaSuccess)
        {
            failed = cudaEventSynchronize(events[1]);
        }
        if (failed == cudaSuccess)
        {
            failed = cudaEventElapsedTime(&milliseconds, events[0], events[1]);
        }
        static_cast<void>(cudaEventDestroy(events[0]));
        static_cast<void>(cudaEventDestroy(events[1]));
        if (failed != cudaSuccess)
        {
            static_cast<void>(cudaGetLastError());
            return Error{nvinfer1::ErrorCode::kFAILED_EXECUTION,
                std::string("the plugin's work on the build stream failed: ") + cudaGetErrorString(failed)};
        }
        return milliseconds / static_cast<float>(iterations);
    }
#endif
    auto const start = std::chrono::steady_clock::now();
    for (int32_t k = 0; k < iterations && status == 0; ++k)
    {
        status = once();
    }
    return std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - start).count()
        / static_cast<float>(iterations);
}

} // namespace kiln
