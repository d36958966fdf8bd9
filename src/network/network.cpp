// SPDX-License-Identifier: Apache-2.0
#include "network/network.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace kiln
{

using nvinfer1::ErrorCode;
using nvinfer1::ITensor;
using nvinfer1::NetworkDefinitionCreationFlag;

Network::Network(nvinfer1::IBuilder& builder, nvinfer1::NetworkDefinitionCreationFlags flags, std::string name,
    nvinfer1::IErrorRecorder* recorder)
    : mBuilder(builder)
    , mFlags(flags)
    , mName(std::move(name))
{
    mImpl = &mApi;
    mReporter.setRecorder(recorder);
}

Network::~Network() noexcept = default;

bool Network::isStronglyTyped() const noexcept
{
    return (mFlags & (1U << static_cast<uint32_t>(NetworkDefinitionCreationFlag::kSTRONGLY_TYPED))) != 0;
}

char const* Network::weightsName(void const* values) const noexcept
{
    auto const found = mWeightsNames.find(values);
    return found != mWeightsNames.end() ? found->second.c_str() : nullptr;
}

std::vector<std::pair<Layer*, int32_t>> Network::consumers(Tensor const& tensor) const
{
    std::vector<std::pair<Layer*, int32_t>> result;
    for (auto const& layer : mLayers)
    {
        for (std::size_t i = 0; i < layer->inputs().size(); ++i)
        {
            if (layer->inputs()[i] == &tensor)
            {
                result.emplace_back(layer.get(), static_cast<int32_t>(i));
            }
        }
    }
    return result;
}

void Network::forgetComputedShapes(Tensor const& changed) const noexcept
{
    changed.forgetComputed();
    if (!changed.everRead())
    {
        return; // no layer reads it (a layer just added): nothing downstream to forget
    }
    try
    {
        std::unordered_map<Tensor const*, std::vector<Layer const*>> readers;
        for (auto const& layer : mLayers)
        {
            for (Tensor const* input : layer->inputs())
            {
                if (input != nullptr)
                {
                    readers[input].push_back(layer.get());
                }
            }
        }
        std::vector<Tensor const*> pending{&changed};
        std::unordered_set<Tensor const*> seen{&changed};
        while (!pending.empty())
        {
            Tensor const* tensor = pending.back();
            pending.pop_back();
            auto const found = readers.find(tensor);
            if (found == readers.end())
            {
                continue;
            }
            for (Layer const* reader : found->second)
            {
                for (Tensor const* output : reader->outputs())
                {
                    if (seen.insert(output).second)
                    {
                        output->forgetComputed();
                        pending.push_back(output);
                    }
                }
            }
        }
    }
    catch (...)
    {
        forgetAllComputedShapes(); // out of memory for the walk: forget everything instead
    }
}

void Network::forgetAllComputedShapes() const noexcept
{
    for (auto const& tensor : mTensors)
    {
        tensor->forgetComputed();
    }
}

Tensor* Network::own(ITensor const* tensor, char const* where, char const* what) const noexcept
{
    if (tensor == nullptr)
    {
        return fail(where, "the ", what, " is null");
    }
    if (auto found = mTensorIndex.find(tensor); found != mTensorIndex.end())
    {
        return found->second;
    }
    if (mRemovedIndex.count(tensor) != 0)
    {
        return fail(where, "the ", what, " ", quotedText(tensor->getName()), " was removed from the network");
    }
    return fail(where, "the ", what, " ", quotedText(tensor->getName()),
        " is not a tensor of this network (it belongs to another network)");
}

std::optional<std::vector<Tensor*>> Network::ownAll(
    ITensor* const* tensors, int32_t count, char const* where, char const* what) const
{
    if (count < 0)
    {
        fail(where, "the number of ", what, " is ", count);
        return std::nullopt;
    }
    if (tensors == nullptr && count > 0)
    {
        fail(where, "the ", what, " array is null but its count is ", count);
        return std::nullopt;
    }
    std::vector<Tensor*> owned;
    for (int32_t i = 0; i < count; ++i)
    {
        std::string const entry = std::string(what) + "[" + std::to_string(i) + "]";
        Tensor* tensor = own(tensors[i], where, entry.c_str());
        if (tensor == nullptr)
        {
            return std::nullopt;
        }
        owned.push_back(tensor);
    }
    return owned;
}

bool Network::dependsOn(Tensor const& tensor, Layer const& layer) const noexcept
{
    // A layer none of whose outputs any layer reads (one just added) cannot be above tensor.
    if (std::none_of(
            layer.outputs().begin(), layer.outputs().end(), [](Tensor const* output) { return output->everRead(); }))
    {
        return false;
    }
    // Walk producers upwards; the graph is acyclic, and each layer is visited once.
    std::vector<Layer const*> pending;
    std::unordered_set<Layer const*> seen;
    try
    {
        if (tensor.producer() != nullptr)
        {
            pending.push_back(tensor.producer());
        }
        while (!pending.empty())
        {
            Layer const* current = pending.back();
            pending.pop_back();
            if (current == &layer)
            {
                return true;
            }
            if (!seen.insert(current).second)
            {
                continue;
            }
            for (std::size_t i = 0; i < current->inputs().size(); ++i)
            {
                Tensor const* input = current->inputs()[i];
                bool const backEdge = current->type() == LayerType::kRECURRENCE && i == 1;
                if (input != nullptr && input->producer() != nullptr && !backEdge)
                {
                    pending.push_back(input->producer());
                }
            }
        }
    }
    catch (...)
    {
        return true; // out of memory: refuse the edge rather than risk a cycle
    }
    return false;
}

bool Network::isIOName(std::string const& name, Tensor const* except) const noexcept
{
    auto const same = [&](Tensor const* t) { return t != except && t->name() == name; };
    return std::any_of(mInputs.begin(), mInputs.end(), same) || std::any_of(mOutputs.begin(), mOutputs.end(), same);
}

std::string Network::defaultLayerName(char const* tag) const
{
    std::string name = "(Unnamed Layer* ";
    name += std::to_string(mLayers.size());
    name += ") [";
    name += tag;
    name += ']';
    return name;
}

void Network::adopt(std::unique_ptr<Layer> layer, int32_t nbOutputs, int32_t nbHiddenOutputs)
{
    // Room first (geometric growth: reserve(size + 1) would reallocate at every layer), so nothing below throws
    // after the layer is half adopted.
    auto const roomFor = [](auto& list, std::size_t more) {
        if (list.size() + more > list.capacity())
        {
            list.reserve(std::max(list.size() + more, 2 * list.capacity()));
        }
    };
    roomFor(mLayers, 1);
    roomFor(mTensors, static_cast<std::size_t>(nbOutputs + nbHiddenOutputs));
    std::vector<std::unique_ptr<Tensor>> outputs;
    for (int32_t i = 0; i < nbOutputs + nbHiddenOutputs; ++i)
    {
        std::string name = layer->name() + (i < nbOutputs ? "_output" : "_hidden_output");
        if (nbOutputs > 1 || i >= nbOutputs)
        {
            name += '_';
            name += std::to_string(i);
        }
        outputs.push_back(std::make_unique<Tensor>(*this, std::move(name), *layer, i));
    }
    for (Tensor const* input : layer->inputs())
    {
        if (input != nullptr)
        {
            input->markRead();
        }
    }
    layer->mNbHiddenOutputs = nbHiddenOutputs;
    for (auto& output : outputs)
    {
        layer->mOutputs.push_back(output.get());
        mTensorIndex.emplace(output.get(), output.get());
        mTensors.push_back(std::move(output));
    }
    bool const boundary = isLoopOrConditionalBoundary(layer->type());
    mLayers.push_back(std::move(layer));
    if (boundary)
    {
        forgetAllComputedShapes(); // the loop's or conditional's outputs may change with it
    }
}

// --- NetworkApi: inputs, outputs, access, names, flags ----------------------------------------------------------

ITensor* NetworkApi::addInput(char const* name, DataType type, Dims const& dimensions) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addInput";
    return mNetwork.reporter().guard(kWhere, static_cast<ITensor*>(nullptr), [&]() -> ITensor* {
        if (name == nullptr || *name == '\0')
        {
            return mNetwork.fail(kWhere, "the input name is ", name == nullptr ? "null" : "empty");
        }
        if (!isValidEnum(type))
        {
            return mNetwork.fail(kWhere, "input ", quotedText(name), ": data type ", type, " is not a valid DataType");
        }
        if (dimensions.nbDims < 0 || dimensions.nbDims > Dims::MAX_DIMS)
        {
            return mNetwork.fail(kWhere, "input ", quotedText(name), ": the dimensions have rank ", dimensions.nbDims,
                "; a shape has 0 to ", Dims::MAX_DIMS, " dimensions");
        }
        for (int32_t i = 0; i < dimensions.nbDims; ++i)
        {
            if (dimensions.d[i] < -1)
            {
                return mNetwork.fail(kWhere, "input ", quotedText(name), ": extent ", i, " of ", dimensions, " is ",
                    dimensions.d[i], "; extents are -1 (set at run time) or at least 0");
            }
        }
        if (mNetwork.isIOName(name, nullptr))
        {
            return mNetwork.fail(kWhere, "a network input or output is already called ", quotedText(name),
                "; the names of inputs and outputs must be unique");
        }
        auto tensor = std::make_unique<Tensor>(mNetwork, name, type, dimensions);
        Tensor* raw = tensor.get();
        mNetwork.mInputs.reserve(mNetwork.mInputs.size() + 1);
        mNetwork.mTensors.reserve(mNetwork.mTensors.size() + 1);
        mNetwork.mTensorIndex.emplace(raw, raw);
        mNetwork.mTensors.push_back(std::move(tensor));
        mNetwork.mInputs.push_back(raw);
        return raw;
    });
}

void NetworkApi::markOutput(ITensor& tensor) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::markOutput";
    Tensor* const own = mNetwork.own(&tensor, kWhere, "tensor");
    if (own == nullptr)
    {
        return;
    }
    if (own->isInput())
    {
        mNetwork.fail(kWhere, "tensor ", quotedText(own->name()),
            " is a network input; an input cannot also be an output (add an identity layer and mark its output)");
        return;
    }
    if (own->isOutput())
    {
        if (own->isShapeOutput())
        {
            mNetwork.fail(kWhere, "tensor ", quotedText(own->name()),
                " is already a shape output (markOutputForShapes); unmark it first");
        }
        else
        {
            mNetwork.reporter().warning(kWhere, ": tensor ", quotedText(own->name()), " is already an output");
        }
        return;
    }
    mNetwork.reporter().guard(kWhere, 0, [&] {
        if (mNetwork.isIOName(own->name(), own))
        {
            mNetwork.fail(kWhere, "another network input or output is already called ", quotedText(own->name()),
                "; the names of inputs and outputs must be unique");
            return 0;
        }
        mNetwork.mOutputs.push_back(own);
        own->setOutputRole(true, false);
        return 0;
    });
}

void NetworkApi::unmarkOutput(ITensor& tensor) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::unmarkOutput";
    Tensor* const own = mNetwork.own(&tensor, kWhere, "tensor");
    if (own == nullptr)
    {
        return;
    }
    if (!own->isOutput() || own->isShapeOutput())
    {
        mNetwork.fail(kWhere, "tensor ", quotedText(own->name()), " is not ",
            own->isShapeOutput() ? "an output marked with markOutput (it is a shape output)" : "a network output");
        return;
    }
    std::erase(mNetwork.mOutputs, own);
    own->setOutputRole(false, false);
}

bool NetworkApi::markOutputForShapes(ITensor& tensor) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::markOutputForShapes";
    Tensor* const own = mNetwork.own(&tensor, kWhere, "tensor");
    if (own == nullptr)
    {
        return false;
    }
    if (own->isOutput())
    {
        mNetwork.fail(kWhere, "tensor ", quotedText(own->name()), " is already an output");
        return false;
    }
    if (own->isInput())
    {
        mNetwork.fail(kWhere, "tensor ", quotedText(own->name()),
            " is a network input; an input cannot also be an output (add an identity layer and mark its output)");
        return false;
    }
    return mNetwork.reporter().guard(kWhere, false, [&] {
        if (mNetwork.isIOName(own->name(), own))
        {
            mNetwork.fail(kWhere, "another network input or output is already called ", quotedText(own->name()),
                "; the names of inputs and outputs must be unique");
            return false;
        }
        mNetwork.mOutputs.push_back(own);
        own->setOutputRole(true, true);
        return true;
    });
}

bool NetworkApi::unmarkOutputForShapes(ITensor& tensor) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::unmarkOutputForShapes";
    Tensor* const own = mNetwork.own(&tensor, kWhere, "tensor");
    if (own == nullptr)
    {
        return false;
    }
    if (!own->isShapeOutput())
    {
        mNetwork.fail(kWhere, "tensor ", quotedText(own->name()), " is not a shape output");
        return false;
    }
    std::erase(mNetwork.mOutputs, own);
    own->setOutputRole(false, false);
    return true;
}

int32_t NetworkApi::getNbLayers() const noexcept
{
    return static_cast<int32_t>(mNetwork.mLayers.size());
}

nvinfer1::ILayer* NetworkApi::getLayer(int32_t index) const noexcept
{
    if (index < 0 || index >= getNbLayers())
    {
        return mNetwork.fail("INetworkDefinition::getLayer", "layer index ", index,
            " is out of range; the network has ", getNbLayers(), " layers");
    }
    return &mNetwork.mLayers[static_cast<std::size_t>(index)]->api();
}

int32_t NetworkApi::getNbInputs() const noexcept
{
    return static_cast<int32_t>(mNetwork.mInputs.size());
}

ITensor* NetworkApi::getInput(int32_t index) const noexcept
{
    if (index < 0 || index >= getNbInputs())
    {
        return mNetwork.fail("INetworkDefinition::getInput", "input index ", index,
            " is out of range; the network has ", getNbInputs(), " inputs");
    }
    return mNetwork.mInputs[static_cast<std::size_t>(index)];
}

int32_t NetworkApi::getNbOutputs() const noexcept
{
    return static_cast<int32_t>(mNetwork.mOutputs.size());
}

ITensor* NetworkApi::getOutput(int32_t index) const noexcept
{
    if (index < 0 || index >= getNbOutputs())
    {
        return mNetwork.fail("INetworkDefinition::getOutput", "output index ", index,
            " is out of range; the network has ", getNbOutputs(), " outputs");
    }
    return mNetwork.mOutputs[static_cast<std::size_t>(index)];
}

void NetworkApi::removeTensor(ITensor& tensor) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::removeTensor";
    Tensor* const own = mNetwork.own(&tensor, kWhere, "tensor");
    if (own == nullptr)
    {
        return;
    }
    if (own->producer() != nullptr)
    {
        mNetwork.fail(kWhere, "tensor ", quotedText(own->name()), " is output ", own->producerOutput(), " of layer ",
            quotedText(own->producer()->name()), "; only tensors no layer makes or reads can be removed");
        return;
    }
    mNetwork.reporter().guard(kWhere, 0, [&] {
        auto const readers = mNetwork.consumers(*own);
        if (!readers.empty())
        {
            mNetwork.fail(kWhere, "tensor ", quotedText(own->name()), " is input ", readers.front().second,
                " of layer ", quotedText(readers.front().first->name()),
                "; only tensors no layer makes or reads can be removed");
            return 0;
        }
        mNetwork.mRemovedTensors.reserve(mNetwork.mRemovedTensors.size() + 1);
        mNetwork.mRemovedIndex.insert(own);
        std::erase(mNetwork.mInputs, own);
        std::erase(mNetwork.mOutputs, own);
        mNetwork.mTensorIndex.erase(own);
        auto const found = std::find_if(mNetwork.mTensors.begin(), mNetwork.mTensors.end(),
            [&](std::unique_ptr<Tensor> const& t) { return t.get() == own; });
        own->setRemoved();
        mNetwork.mRemovedTensors.push_back(std::move(*found));
        mNetwork.mTensors.erase(found);
        return 0;
    });
}

void NetworkApi::setName(char const* name) noexcept
{
    if (name == nullptr)
    {
        mNetwork.fail("INetworkDefinition::setName", "the name is null");
        return;
    }
    mNetwork.reporter().guard("INetworkDefinition::setName", 0, [&] {
        mNetwork.mName = name;
        return 0;
    });
}

char const* NetworkApi::getName() const noexcept
{
    return mNetwork.mName.c_str();
}

bool NetworkApi::hasImplicitBatchDimension() const noexcept
{
    return false;
}

bool NetworkApi::setWeightsName(Weights weights, char const* name) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::setWeightsName";
    if (weights.values == nullptr)
    {
        mNetwork.fail(kWhere, "the weights have no values to name");
        return false;
    }
    return mNetwork.reporter().guard(kWhere, false, [&] {
        // From the last layer back: weights are named right after their layer is added.
        bool const used = std::any_of(mNetwork.mLayers.rbegin(), mNetwork.mLayers.rend(), [&](auto const& layer) {
            if (auto const* conv = std::get_if<ConvolutionParams>(&layer->params()))
            {
                return conv->kernel.values == weights.values || conv->bias.values == weights.values;
            }
            if (auto const* deconv = std::get_if<DeconvolutionParams>(&layer->params()))
            {
                return deconv->kernel.values == weights.values || deconv->bias.values == weights.values;
            }
            auto const* constant = std::get_if<ConstantParams>(&layer->params());
            return constant != nullptr && constant->weights.values == weights.values;
        });
        if (!used)
        {
            mNetwork.fail(kWhere, "no layer of the network uses these weights; name them after adding their layer");
            return false;
        }
        auto const previous = mNetwork.mWeightsNames.find(weights.values);
        if (name == nullptr)
        {
            if (previous != mNetwork.mWeightsNames.end())
            {
                mNetwork.mWeightsByName.erase(previous->second);
                mNetwork.mWeightsNames.erase(previous);
            }
            return true;
        }
        if (auto const other = mNetwork.mWeightsByName.find(name);
            other != mNetwork.mWeightsByName.end() && other->second != weights.values)
        {
            mNetwork.fail(kWhere, "other weights are already called ", quotedText(name));
            return false;
        }
        if (previous != mNetwork.mWeightsNames.end())
        {
            mNetwork.mWeightsByName.erase(previous->second);
        }
        mNetwork.mWeightsNames[weights.values] = name;
        mNetwork.mWeightsByName[name] = weights.values;
        return true;
    });
}

void NetworkApi::setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept
{
    mNetwork.mReporter.setRecorder(recorder);
}

nvinfer1::IErrorRecorder* NetworkApi::getErrorRecorder() const noexcept
{
    return mNetwork.mReporter.recorder();
}

nvinfer1::IBuilder& NetworkApi::getBuilder() const noexcept
{
    return mNetwork.mBuilder;
}

nvinfer1::NetworkDefinitionCreationFlags NetworkApi::getFlags() const noexcept
{
    return mNetwork.mFlags;
}

bool NetworkApi::getFlag(NetworkDefinitionCreationFlag networkDefinitionCreationFlag) const noexcept
{
    if (!isValidEnum(networkDefinitionCreationFlag))
    {
        mNetwork.fail("INetworkDefinition::getFlag", "flag ", networkDefinitionCreationFlag,
            " is not a valid NetworkDefinitionCreationFlag");
        return false;
    }
    return (mNetwork.mFlags & (1U << static_cast<uint32_t>(networkDefinitionCreationFlag))) != 0;
}

bool NetworkApi::markDebug(ITensor& tensor) noexcept
{
    Tensor* const own = mNetwork.own(&tensor, "INetworkDefinition::markDebug", "tensor");
    if (own != nullptr)
    {
        own->setDebug(true);
    }
    return own != nullptr;
}

bool NetworkApi::unmarkDebug(ITensor& tensor) noexcept
{
    Tensor* const own = mNetwork.own(&tensor, "INetworkDefinition::unmarkDebug", "tensor");
    if (own != nullptr)
    {
        own->setDebug(false);
    }
    return own != nullptr;
}

bool NetworkApi::isDebugTensor(ITensor const& tensor) const noexcept
{
    Tensor const* const own = mNetwork.own(&tensor, "INetworkDefinition::isDebugTensor", "tensor");
    return own != nullptr && own->isDebug();
}

bool NetworkApi::markWeightsRefittable(char const* name) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::markWeightsRefittable";
    return mNetwork.reporter().guard(kWhere, false, [&] {
        bool const known = name != nullptr && mNetwork.mWeightsByName.count(name) != 0;
        if (!known)
        {
            mNetwork.fail(kWhere, "no weights are called ", quotedText(name), " (name them with setWeightsName)");
            return false;
        }
        mNetwork.mRefittable.insert(name);
        return true;
    });
}

bool NetworkApi::unmarkWeightsRefittable(char const* name) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::unmarkWeightsRefittable";
    return mNetwork.reporter().guard(kWhere, false, [&] {
        if (name == nullptr || mNetwork.mRefittable.erase(name) == 0)
        {
            mNetwork.fail(kWhere, "weights ", quotedText(name), " are not marked refittable");
            return false;
        }
        return true;
    });
}

bool NetworkApi::areWeightsMarkedRefittable(char const* name) const noexcept
{
    return mNetwork.reporter().guard("INetworkDefinition::areWeightsMarkedRefittable", false,
        [&] { return name != nullptr && mNetwork.isWeightsRefittable(name); });
}

bool NetworkApi::markUnfusedTensorsAsDebugTensors() noexcept
{
    mNetwork.mUnfusedDebug = true;
    return true;
}

bool NetworkApi::unmarkUnfusedTensorsAsDebugTensors() noexcept
{
    mNetwork.mUnfusedDebug = false;
    return true;
}

} // namespace kiln
