// SPDX-License-Identifier: Apache-2.0
// The build step's profiles and memory: which profiles to build, each profile's input ranges and activation memory
// plan, and the weights kept in the model (copied or borrowed).
#include "builder/build_passes.h"
#include "plan/loops.h"

#include "backends/host/reformat.h"

#include "builder/memory_plan.h"
#include "core/data_type.h"
#include "runtime/shape_values.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <limits>
#include <span>
#include <type_traits>
#include <variant>

namespace kiln
{
namespace
{

std::string dimsText(Dims const& dims)
{
    std::string text;
    message::append(text, dims);
    return text;
}

bool hasDynamicExtent(Dims const& dims)
{
    return std::any_of(dims.d, dims.d + std::max(dims.nbDims, 0), [](int64_t extent) { return extent < 0; });
}

//! Whether kMIN, kOPT and kMAX are all set.
template <typename T>
bool allSelectors(std::array<std::optional<T>, 3> const& selectors)
{
    return std::all_of(selectors.begin(), selectors.end(), [](auto const& entry) { return entry.has_value(); });
}

//! One profile's record: its input ranges, and the activation memory of the internal tensors it bounds. tensors are
//! the engine's tensors, as model.tensors records them.
Expected<ProfileRecord> planProfile(
    EngineModel const& model, KeptTensors const& kept, ConcreteShapes const& concrete, std::string const& where)
{
    std::vector<Tensor const*> const& tensors = kept.list;
    ProfileRecord record;
    for (int32_t i = 0; i < model.nbInputs; ++i)
    {
        auto const io = static_cast<std::size_t>(model.ioTensors[static_cast<std::size_t>(i)]);
        ConcreteShape const& shape = concrete.tensors.at(tensors[io]);
        ProfileRecord::Input input{static_cast<int32_t>(io), shape.min, shape.opt, shape.max, {}, {}, {}};
        if (model.tensors[io].isShapeTensor && shape.values)
        {
            input.minValues = (*shape.values)[0];
            input.optValues = (*shape.values)[1];
            input.maxValues = (*shape.values)[2];
        }
        record.inputs.push_back(std::move(input));
    }

    // Lifetimes: from the layer that makes a tensor to the last layer that reads it.
    std::vector<int32_t> lastStep(model.tensors.size());
    for (std::size_t t = 0; t < model.tensors.size(); ++t)
    {
        lastStep[t] = model.tensors[t].producer;
    }
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        for (int32_t input : model.layers[l].inputs)
        {
            if (input != kNoTensor)
            {
                auto& last = lastStep[static_cast<std::size_t>(input)];
                last = std::max(last, static_cast<int32_t>(l));
            }
        }
    }

    // A loop's block runs once per iteration: every tensor its layers read or write lives over the whole block (and
    // a tensor made in the block from its first layer on), so that no iteration overwrites what another still reads.
    std::vector<int32_t> firstStep(model.tensors.size());
    for (std::size_t t = 0; t < model.tensors.size(); ++t)
    {
        firstStep[t] = model.tensors[t].producer;
    }
    auto const loops = findLoops(model);
    if (!loops)
    {
        return Error{loops.error().code, where + ": " + loops.error().message};
    }
    for (LoopBlock const& block : loops.value().blocks)
    {
        int32_t const first = block.members.front();
        int32_t const last = block.members.back();
        for (int32_t l : block.members)
        {
            LayerRecord const& layer = model.layers[static_cast<std::size_t>(l)];
            for (auto const& list : {layer.inputs, layer.outputs})
            {
                for (int32_t t : list)
                {
                    if (t >= 0)
                    {
                        auto const tensor = static_cast<std::size_t>(t);
                        firstStep[tensor] = std::min(firstStep[tensor], std::max(first, 0));
                        lastStep[tensor] = std::max(lastStep[tensor], last);
                    }
                }
            }
        }
    }

    // A plugin output aliasing an input, and a reshape's view of its input (runtime/shape_values.h), live in the
    // input's memory: the input's buffer lives as long as both.
    std::vector<int32_t> const roots = memoryRoots(model);
    for (std::size_t t = 0; t < model.tensors.size(); ++t)
    {
        auto const root = static_cast<std::size_t>(roots[t]);
        lastStep[root] = std::max(lastStep[root], lastStep[t]);
    }

    std::vector<BufferRequest> requests;
    std::vector<std::size_t> owners;
    for (std::size_t t = 0; t < model.tensors.size(); ++t)
    {
        TensorRecord const& tensor = model.tensors[t];
        if (roots[t] != static_cast<int32_t>(t))
        {
            continue; // in its root's buffer
        }
        auto const shape = concrete.tensors.find(tensors[t]);
        if (tensor.isInput || tensor.isOutput || shape == concrete.tensors.end())
        {
            continue; // I/O lives in the caller's memory; a data-dependent shape is allocated at run time
        }
        if (tensor.producer < 0)
        {
            continue; // Left unmade by a fusion (builder/fusion.h)
        }
        Dims const upper = kept.shapeOf(static_cast<int32_t>(t), shape->second.upper);
        std::optional<int64_t> const count = staticVolume(upper);
        constexpr int64_t kLargest = std::numeric_limits<int64_t>::max() / 8;
        if (!count || *count > kLargest)
        {
            return invalid(where + ": tensor '" + tensor.name + "' of up to " + dimsText(upper)
                + " elements is too large to allocate");
        }
        int64_t bytes = storageBytes(tensor.type, *count);
        if (tensor.format != nvinfer1::TensorFormat::kLINEAR)
        {
            // A vectorized format pads its channels (the reformat layers around plugins make such tensors).
            auto const padded = host::formatBytes(tensor.format, tensor.type, upper);
            if (!padded)
            {
                return invalid(where + ": tensor '" + tensor.name + "': " + padded.error().message);
            }
            bytes = padded.value();
        }
        requests.push_back(BufferRequest{bytes, firstStep[t], lastStep[t]});
        owners.push_back(t);
    }
    auto plan = planMemory(requests);
    if (!plan)
    {
        return Error{plan.error().code, where + ": " + plan.error().message};
    }
    record.offsets.assign(model.tensors.size(), -1);
    for (std::size_t i = 0; i < owners.size(); ++i)
    {
        record.offsets[owners[i]] = plan.value().offsets[i];
    }
    record.activationBytes = plan.value().totalBytes;
    return record;
}

//! Where a profile's dimensions for input disagree with its rank or with an extent the network fixes, or nullopt.
std::optional<std::string> contradictedExtent(Tensor const& input, ProfileInput const& range)
{
    static constexpr std::array<char const*, 3> kSelectors{"kMIN", "kOPT", "kMAX"};
    Dims const declared = input.dims();
    for (std::size_t s = 0; s < kSelectors.size(); ++s)
    {
        Dims const& given = *range.dims[s];
        if (given.nbDims != declared.nbDims)
        {
            return std::string(kSelectors[s]) + " dimensions " + dimsText(given) + " of rank "
                + std::to_string(given.nbDims) + ", but the input has rank " + std::to_string(declared.nbDims);
        }
        for (int32_t d = 0; d < declared.nbDims; ++d)
        {
            if (declared.d[d] != -1 && given.d[d] != declared.d[d])
            {
                return std::string(kSelectors[s]) + " dimensions " + dimsText(given) + ", but its extent "
                    + std::to_string(d) + " is fixed at " + std::to_string(declared.d[d]) + " in " + dimsText(declared);
            }
        }
    }
    return std::nullopt;
}

} // namespace

Expected<std::vector<ProfileData>> profilesToBuild(Network const& network, BuildSettings const& settings)
{
    if (settings.profiles.empty())
    {
        std::string const needs
            = ", but the config has no optimization profile; add one with IBuilderConfig::addOptimizationProfile";
        ProfileData implicit;
        for (Tensor const* input : network.inputs())
        {
            if (hasDynamicExtent(input->dims()))
            {
                return invalid(describeIo(*input) + " has dynamic dimensions " + dimsText(input->dims()) + needs);
            }
            if (isShapeTensorInput(*input))
            {
                return invalid(describeIo(*input) + " is a shape tensor whose values a profile gives" + needs);
            }
            implicit.inputs[input->name()].dims = {input->dims(), input->dims(), input->dims()};
        }
        return std::vector<ProfileData>{implicit};
    }
    for (std::size_t p = 0; p < settings.profiles.size(); ++p)
    {
        for (Tensor const* input : network.inputs())
        {
            auto const found = settings.profiles[p].inputs.find(input->name());
            bool const listed = found != settings.profiles[p].inputs.end();
            if (hasDynamicExtent(input->dims()) && !(listed && allSelectors(found->second.dims)))
            {
                return invalid(profileName(p) + " gives no dimensions for " + describeIo(*input) + " "
                    + dimsText(input->dims())
                    + ", which has dynamic extents; set its kMIN, kOPT and kMAX with "
                      "IOptimizationProfile::setDimensions");
            }
            if (listed && allSelectors(found->second.dims))
            {
                if (auto problem = contradictedExtent(*input, found->second))
                {
                    return invalid(profileName(p) + " gives " + describeIo(*input) + " " + *problem);
                }
            }
            if (isShapeTensorInput(*input) && !(listed && allSelectors(found->second.values)))
            {
                return invalid(profileName(p) + " gives no shape values for " + describeIo(*input)
                    + ", a shape tensor; set its kMIN, kOPT and kMAX with IOptimizationProfile::setShapeValuesV2");
            }
        }
    }
    return settings.profiles;
}

Weights WeightsKeeper::keep(Weights const& weights)
{
    if (weights.count <= 0 || weights.values == nullptr)
    {
        return Weights{weights.type, nullptr, 0};
    }
    std::span const bytes(static_cast<uint8_t const*>(weights.values),
        static_cast<std::size_t>(storageBytes(weights.type, weights.count)));
    auto const start = reinterpret_cast<uintptr_t>(bytes.data());
    uintptr_t const end = start + bytes.size();
    bool borrow = mBorrow;
    if (borrow)
    {
        // The borrowed range that starts last before end is the only one that can overlap [start, end): the ranges
        // are disjoint.
        auto const after = mBorrowed.lower_bound(end);
        borrow = after == mBorrowed.begin() || std::prev(after)->second <= start;
    }
    if (borrow)
    {
        mBorrowed.emplace(start, end);
        mBlobs.push_back(WeightsBlob::borrow(weights.type, weights.count, bytes));
    }
    else
    {
        mBlobs.emplace_back(weights.type, weights.count, std::vector<uint8_t>(bytes.begin(), bytes.end()));
    }
    return Weights{weights.type, mBlobs.back().view().data(), weights.count};
}

LayerParams WeightsKeeper::params(LayerParams const& params)
{
    return std::visit(
        [&](auto const& kind) -> LayerParams {
            using P = std::decay_t<decltype(kind)>;
            if constexpr (std::is_copy_constructible_v<P>)
            {
                P copy = kind;
                if constexpr (std::is_same_v<P, ConvolutionParams> || std::is_same_v<P, DeconvolutionParams>)
                {
                    copy.kernel = keep(kind.kernel);
                    copy.bias = keep(kind.bias);
                }
                else if constexpr (std::is_same_v<P, ConstantParams>)
                {
                    copy.weights = keep(kind.weights);
                }
                return LayerParams{std::in_place_type<P>, std::move(copy)};
            }
            else
            {
                return LayerParams{std::in_place_type<P>}; // plugin layers: refused before (issue 4)
            }
        },
        params);
}

std::optional<Error> planProfiles(
    EngineModel& model, KeptTensors const& tensors, std::vector<ConcreteShapes> const& profiles)
{
    for (std::size_t p = 0; p < profiles.size(); ++p)
    {
        auto record = planProfile(model, tensors, profiles[p], profileName(p));
        if (!record)
        {
            return record.error();
        }
        model.deviceMemorySize = std::max(model.deviceMemorySize, record.value().activationBytes);
        model.profiles.push_back(std::move(record.value()));
    }
    return std::nullopt;
}

} // namespace kiln
