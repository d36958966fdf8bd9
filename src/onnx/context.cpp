// SPDX-License-Identifier: Apache-2.0
#include "onnx/context.h"

#include "core/data_type.h"
#include "core/float_convert.h"

#include <algorithm>
#include <cstring>

namespace kiln::onnx_import
{

int64_t volume(Dims const& shape) noexcept
{
    int64_t count = 1;
    for (int32_t i = 0; i < shape.nbDims; ++i)
    {
        count *= shape.d[i];
    }
    return count;
}

double ShapedWeights::number(int64_t i) const
{
    switch (type)
    {
    case DataType::kFLOAT: return as<float>()[i];
    case DataType::kHALF: return halfToFloat(as<uint16_t>()[i]);
    case DataType::kBF16: return bf16ToFloat(as<uint16_t>()[i]);
    case DataType::kINT8: return as<int8_t>()[i];
    case DataType::kUINT8: return as<uint8_t>()[i];
    case DataType::kBOOL: return as<uint8_t>()[i] != 0 ? 1.0 : 0.0;
    case DataType::kINT32: return as<int32_t>()[i];
    case DataType::kINT64: return static_cast<double>(as<int64_t>()[i]);
    case DataType::kFP8: return fp8e4m3ToFloat(as<uint8_t>()[i]);
    case DataType::kINT4: return int4FromNibble(nibble(as<uint8_t>()[i / 2], static_cast<int32_t>(i % 2)));
    default: fail(ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "weights of type ", dataTypeName(type), " cannot be read");
    }
    unreachableAfterFail();
}

int64_t ShapedWeights::integer(int64_t i) const
{
    switch (type)
    {
    case DataType::kINT32: return as<int32_t>()[i];
    case DataType::kINT64: return as<int64_t>()[i];
    default: return static_cast<int64_t>(number(i));
    }
}

std::string Node::name() const
{
    if (!proto.name().empty())
    {
        return proto.name();
    }
    return "node_of_" + (proto.output_size() > 0 ? proto.output(0) : std::string{});
}

Value const& Node::input(size_t i) const
{
    require(has(i), ErrorCode::kINVALID_NODE, opType(), " needs input ", i, ", but the node has ", inputs.size(),
        i < inputs.size() ? " inputs and that one is omitted" : " inputs");
    return inputs[i];
}

ImportContext::ImportContext(nvinfer1::INetworkDefinition& network, ILogger& logger, uint32_t flags)
    : mNetwork(network)
    , mLogger(logger)
    , mFlags(flags)
{
}

ImportContext::~ImportContext() = default;

void ImportContext::log(Severity severity, std::string const& message) const
{
    mLogger.log(severity, ("[kiln onnx] " + message).c_str());
}

int64_t ImportContext::opset(std::string const& domain) const
{
    auto found = mOpsets.find(domain);
    if (found == mOpsets.end() && domain.empty())
    {
        found = mOpsets.find("ai.onnx");
    }
    return found == mOpsets.end() ? 0 : found->second;
}

void ImportContext::define(std::string const& name, Value value)
{
    if (name.empty())
    {
        return;
    }
    Scope& scope = mScopes.back();
    // A tensor takes the first ONNX name given to it; later names (Identity and other pass-throughs) are aliases.
    if (value.isTensor() && mNamedTensors.insert(&value.tensor()).second)
    {
        value.tensor().setName((scope.prefix + name).c_str());
    }
    scope.values[name] = std::move(value);
}

Value const* ImportContext::find(std::string const& name) const
{
    for (auto scope = mScopes.rbegin(); scope != mScopes.rend(); ++scope)
    {
        auto found = scope->values.find(name);
        if (found != scope->values.end())
        {
            return &found->second;
        }
        if (!scope->seesOuter)
        {
            break;
        }
    }
    return nullptr;
}

void ImportContext::pushScope(bool seesOuter, std::string prefix)
{
    mScopes.push_back(Scope{{}, seesOuter, mScopes.back().prefix + prefix});
}

void ImportContext::popScope()
{
    if (mScopes.size() > 1)
    {
        mScopes.pop_back();
    }
}

ShapedWeights ImportContext::allocate(DataType type, Dims const& shape, std::string name)
{
    ShapedWeights weights;
    weights.type = type;
    weights.shape = shape;
    weights.count = volume(shape);
    weights.name = std::move(name);
    int64_t bytes = storageBytes(type, weights.count);
    require(bytes < (int64_t{1} << 48), ErrorCode::kMEM_ALLOC_FAILED, "weights of ", weights.count,
        " elements are too large");
    // At least one byte, so that empty weights still have an address.
    mBuffers.push_back(std::make_unique<std::byte[]>(static_cast<size_t>(std::max<int64_t>(bytes, 1))));
    weights.data = mBuffers.back().get();
    return weights;
}

ShapedWeights ImportContext::weightsFrom(DataType type, Dims const& shape, std::vector<double> const& values)
{
    ShapedWeights weights = allocate(type, shape);
    require(weights.count == static_cast<int64_t>(values.size()), ErrorCode::kINTERNAL_ERROR, "weights of ",
        weights.count, " elements made from ", values.size(), " values");
    void* out = const_cast<void*>(weights.data);
    for (size_t i = 0; i < values.size(); ++i)
    {
        double v = values[i];
        switch (type)
        {
        case DataType::kFLOAT: static_cast<float*>(out)[i] = static_cast<float>(v); break;
        case DataType::kHALF: static_cast<uint16_t*>(out)[i] = floatToHalf(static_cast<float>(v)); break;
        case DataType::kBF16: static_cast<uint16_t*>(out)[i] = floatToBf16(static_cast<float>(v)); break;
        case DataType::kINT8: static_cast<int8_t*>(out)[i] = saturatingInteger<int8_t>(v); break;
        case DataType::kUINT8: static_cast<uint8_t*>(out)[i] = saturatingInteger<uint8_t>(v); break;
        case DataType::kBOOL: static_cast<uint8_t*>(out)[i] = v != 0.0 ? 1 : 0; break;
        case DataType::kINT32: static_cast<int32_t*>(out)[i] = saturatingInteger<int32_t>(v); break;
        case DataType::kINT64: static_cast<int64_t*>(out)[i] = saturatingInteger<int64_t>(v); break;
        default: fail(ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "cannot make weights of type ", dataTypeName(type));
        }
    }
    return weights;
}

ShapedWeights ImportContext::int64Weights(std::vector<int64_t> const& values, bool scalar)
{
    Dims shape = scalar ? Dims{0, {}} : Dims{1, {static_cast<int64_t>(values.size())}};
    ShapedWeights weights = allocate(DataType::kINT64, shape);
    if (!values.empty())
    {
        std::memcpy(const_cast<void*>(weights.data), values.data(), values.size() * sizeof(int64_t));
    }
    return weights;
}

nvinfer1::ITensor& ImportContext::tensor(Value const& value)
{
    require(!value.isNull(), ErrorCode::kINVALID_NODE, "an omitted optional input was used as a tensor");
    if (value.isTensor())
    {
        return value.tensor();
    }
    ShapedWeights const& weights = value.weights();
    if (!weights.name.empty())
    {
        // Reused only for the same bytes seen the same way (an importer may reshape named weights).
        auto found = mConstants.find(weights.name);
        if (found != mConstants.end() && found->second.data == weights.data && found->second.type == weights.type
            && found->second.shape.nbDims == weights.shape.nbDims
            && std::equal(weights.shape.d, weights.shape.d + weights.shape.nbDims, found->second.shape.d))
        {
            return *found->second.tensor;
        }
    }
    nvinfer1::IConstantLayer& layer = added(mNetwork.addConstant(weights.shape, weights.api()));
    nvinfer1::ITensor& tensor = *layer.getOutput(0);
    if (!weights.name.empty())
    {
        nameWeights(weights);
        if (mNamedTensors.insert(&tensor).second)
        {
            tensor.setName(weights.name.c_str());
        }
        mConstants[weights.name] = Constant{&tensor, weights.data, weights.type, weights.shape};
    }
    return tensor;
}

void ImportContext::nameWeights(ShapedWeights const& weights)
{
    if (weights.name.empty() || weights.data == nullptr || weights.count == 0)
    {
        return;
    }
    auto const [named, added] = mWeightsNames.emplace(weights.name, weights.data);
    if (added || named->second == weights.data)
    {
        mNetwork.setWeightsName(weights.api(), weights.name.c_str());
    }
}

void ImportContext::nameLayer(nvinfer1::ILayer* layer)
{
    if (layer == nullptr)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE, "the network refused a layer for this node; its error is in the log");
    }
    std::string base = mCurrentNode != nullptr ? mCurrentNode->name() : std::string("onnx_import");
    int& count = mLayerNames[base];
    std::string name = count == 0 ? base : base + "_" + std::to_string(count);
    ++count;
    layer->setName(name.c_str());
}

void ImportContext::usePluginLibrary(std::string const& path)
{
    if (path.empty() || std::find(mPluginLibraries.begin(), mPluginLibraries.end(), path) != mPluginLibraries.end())
    {
        return;
    }
    mPluginLibraries.push_back(path);
    mPluginLibraryPaths.push_back(mPluginLibraries.back().c_str());
}

} // namespace kiln::onnx_import
