// SPDX-License-Identifier: Apache-2.0
#include "network/layer.h"

#include "network/network.h"
#include "network/shape_inference.h"

namespace kiln
{

using nvinfer1::ErrorCode;

Layer::Layer(Network& network, LayerType type, std::string name, std::vector<Tensor*> inputs, LayerParams params)
    : mNetwork(network)
    , mType(type)
    , mName(std::move(name))
    , mInputs(std::move(inputs))
    , mParams(std::move(params))
{
}

Reporter const& Layer::reporter() const noexcept
{
    return mNetwork.reporter();
}

Tensor* Layer::input(int32_t index) const noexcept
{
    return index >= 0 && index < static_cast<int32_t>(mInputs.size()) ? mInputs[static_cast<std::size_t>(index)]
                                                                      : nullptr;
}

void Layer::clearInput(int32_t index) noexcept
{
    if (index >= 0 && index < static_cast<int32_t>(mInputs.size()))
    {
        mInputs[static_cast<std::size_t>(index)] = nullptr;
    }
    while (!mInputs.empty() && mInputs.back() == nullptr)
    {
        mInputs.pop_back();
    }
    outputsChanged();
}

void Layer::appendHiddenInput(Tensor& tensor)
{
    mInputs.push_back(&tensor);
    tensor.markRead();
    ++mNbHiddenInputs;
    outputsChanged();
}

void Layer::outputsChanged() const noexcept
{
    for (Tensor const* output : mOutputs)
    {
        output->shapeChanged();
    }
}

std::optional<DataType> Layer::requestedOutputType(int32_t index) const noexcept
{
    return index >= 0 && index < static_cast<int32_t>(mOutputTypes.size())
        ? mOutputTypes[static_cast<std::size_t>(index)]
        : std::nullopt;
}

bool Layer::checkDims(char const* method, char const* what, Dims const& dims, int64_t minExtent, int32_t minRank,
    int32_t maxRank) const noexcept
{
    if (dims.nbDims < minRank || dims.nbDims > maxRank)
    {
        fail(method, what, " has ", dims.nbDims, " dimensions; expected ", minRank, " to ", maxRank);
        return false;
    }
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        if (dims.d[i] < minExtent)
        {
            fail(method, what, " ", dims, ": extent ", i, " is ", dims.d[i], "; the extents must be at least ",
                minExtent);
            return false;
        }
    }
    return true;
}

bool Layer::checkWeaklyTyped(char const* method) const noexcept
{
    if (!mNetwork.isStronglyTyped())
    {
        return true;
    }
    fail(method,
        "not allowed in a strongly typed network (kSTRONGLY_TYPED): types follow from the inputs; use a "
        "cast layer");
    return false;
}

bool Layer::checkOutputIndex(char const* method, int32_t index) const noexcept
{
    if (index >= 0 && index < apiOutputs())
    {
        return true;
    }
    fail(method, "output index ", index, " is out of range; the layer has ", apiOutputs(), " outputs");
    return false;
}

LayerType Layer::getType() const noexcept
{
    return mType;
}

void Layer::setName(char const* name) noexcept
{
    if (name == nullptr)
    {
        fail("setName", "the name is null");
        return;
    }
    reporter().guard("ILayer::setName", 0, [&] {
        mName = name;
        return 0;
    });
}

char const* Layer::getName() const noexcept
{
    return mName.c_str();
}

int32_t Layer::getNbInputs() const noexcept
{
    return apiInputs();
}

nvinfer1::ITensor* Layer::getInput(int32_t index) const noexcept
{
    if (index < 0 || index >= apiInputs())
    {
        fail("getInput", "input index ", index, " is out of range; the layer has ", apiInputs(), " inputs");
        return nullptr;
    }
    return mInputs[static_cast<std::size_t>(index)];
}

int32_t Layer::getNbOutputs() const noexcept
{
    return apiOutputs();
}

nvinfer1::ITensor* Layer::getOutput(int32_t index) const noexcept
{
    return checkOutputIndex("getOutput", index) ? mOutputs[static_cast<std::size_t>(index)] : nullptr;
}

void Layer::setInput(int32_t index, nvinfer1::ITensor& tensor) noexcept
{
    int32_t const capacity = inputCapacity();
    if (index < 0 || index >= capacity)
    {
        if (capacity == 0)
        {
            fail("setInput", "input index ", index, " is out of range; this layer takes no inputs");
        }
        else
        {
            fail("setInput", "input index ", index, " is out of range; this layer takes inputs 0 to ", capacity - 1);
        }
        return;
    }
    Tensor* const own = mNetwork.own(&tensor, "ILayer::setInput", "tensor");
    if (own == nullptr)
    {
        return;
    }
    // A recurrence's next value (input 1) is read in the next iteration: it may be computed from the recurrence.
    bool const backEdge = mType == LayerType::kRECURRENCE && index == 1;
    if (!backEdge && mNetwork.dependsOn(*own, *this))
    {
        fail("setInput", "tensor ", quotedText(own->name()),
            " is computed from this layer's outputs; reading it would make a cycle");
        return;
    }
    reporter().guard("ILayer::setInput", 0, [&] {
        if (index >= static_cast<int32_t>(mInputs.size()))
        {
            mInputs.resize(static_cast<std::size_t>(index) + 1, nullptr);
        }
        mInputs[static_cast<std::size_t>(index)] = own;
        own->markRead();
        inputChanged(index);
        outputsChanged();
        return 0;
    });
}

void Layer::setPrecision(DataType dataType) noexcept
{
    if (checkWeaklyTyped("setPrecision") && checkEnum("setPrecision", "data type", dataType))
    {
        mPrecision = dataType;
    }
}

DataType Layer::getPrecision() const noexcept
{
    return mPrecision.value_or(DataType::kFLOAT);
}

bool Layer::precisionIsSet() const noexcept
{
    return mPrecision.has_value();
}

void Layer::resetPrecision() noexcept
{
    mPrecision.reset();
}

void Layer::setOutputType(int32_t index, DataType dataType) noexcept
{
    if (!checkWeaklyTyped("setOutputType") || !checkOutputIndex("setOutputType", index)
        || !checkEnum("setOutputType", "data type", dataType))
    {
        return;
    }
    reporter().guard("ILayer::setOutputType", 0, [&] {
        mOutputTypes.resize(mOutputs.size());
        mOutputTypes[static_cast<std::size_t>(index)] = dataType;
        outputsChanged();
        return 0;
    });
}

DataType Layer::getOutputType(int32_t index) const noexcept
{
    return checkOutputIndex("getOutputType", index) ? mOutputs[static_cast<std::size_t>(index)]->type()
                                                    : DataType::kFLOAT;
}

bool Layer::outputTypeIsSet(int32_t index) const noexcept
{
    return checkOutputIndex("outputTypeIsSet", index) && requestedOutputType(index).has_value();
}

void Layer::resetOutputType(int32_t index) noexcept
{
    if (checkOutputIndex("resetOutputType", index) && index < static_cast<int32_t>(mOutputTypes.size()))
    {
        mOutputTypes[static_cast<std::size_t>(index)].reset();
        outputsChanged();
    }
}

void Layer::setMetadata(char const* docString) noexcept
{
    if (docString == nullptr)
    {
        fail("setMetadata", "the metadata is null");
        return;
    }
    reporter().guard("ILayer::setMetadata", 0, [&] {
        mMetadata = docString;
        return 0;
    });
}

char const* Layer::getMetadata() const noexcept
{
    return mMetadata.c_str();
}

bool Layer::setNbRanks(int32_t nbRanks) noexcept
{
    if (nbRanks == 1)
    {
        return true;
    }
    fail("setNbRanks", "nbRanks is ", nbRanks, "; only multi-device layers take more than one rank, and kiln has none");
    return false;
}

int32_t Layer::getNbRanks() const noexcept
{
    return 1;
}

Dims KindBase::inputDims(int32_t index) const noexcept
{
    Tensor const* tensor = mLayer.input(index);
    return tensor != nullptr ? tensor->dims() : kUnsetDims;
}

Dims KindBase::inferredOutputDims(int32_t index) const noexcept
{
    try
    {
        ExprContext exprs;
        Expected<NetworkShapes> shapes = inferShapes(mLayer.network(), exprs);
        auto const& outputs = mLayer.outputs();
        if (!shapes || index < 0 || index >= static_cast<int32_t>(outputs.size()))
        {
            return kUnsetDims;
        }
        auto found = shapes.value().tensors.find(outputs[static_cast<std::size_t>(index)]);
        if (found == shapes.value().tensors.end() || !found->second.shape
            || found->second.shape->size() > static_cast<std::size_t>(Dims::MAX_DIMS))
        {
            return kUnsetDims;
        }
        SymbolicDims const& symbolic = *found->second.shape;
        Dims dims{static_cast<int32_t>(symbolic.size()), {}};
        for (std::size_t i = 0; i < symbolic.size(); ++i)
        {
            dims.d[i] = symbolic[i]->kind() == DimExpr::Kind::kCONSTANT ? symbolic[i]->value() : -1;
        }
        return dims;
    }
    catch (...)
    {
        return kUnsetDims;
    }
}

DataType KindBase::inputType(int32_t index) const noexcept
{
    Tensor const* tensor = mLayer.input(index);
    return tensor != nullptr ? tensor->type() : DataType::kFLOAT;
}

} // namespace kiln
