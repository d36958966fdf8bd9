// SPDX-License-Identifier: Apache-2.0
// The INetworkDefinition methods that add layers kiln does not offer yet. Each returns nullptr and reports that the
// layer is not supported yet, naming the method. A kind joins kiln by adding a row to KILN_LAYER_KINDS and moving its
// add method from here to src/network/layers/<stem>.cpp.
#include "network/network.h"

namespace kiln
{

std::nullptr_t NetworkApi::unsupported(char const* method) const noexcept
{
    mNetwork.reporter().error(nvinfer1::ErrorCode::kUNSUPPORTED_STATE, "INetworkDefinition::", method,
        ": this layer is not supported yet by kiln; the layers kiln offers are listed in src/network/layer_kinds.h");
    return nullptr;
}

nvinfer1::ILRNLayer* NetworkApi::addLRN(
    nvinfer1::ITensor& /*input*/, int64_t /*window*/, float /*alpha*/, float /*beta*/, float /*k*/) noexcept
{
    return unsupported("addLRN");
}

nvinfer1::IScaleLayer* NetworkApi::addScale(nvinfer1::ITensor& /*input*/, nvinfer1::ScaleMode /*mode*/,
    Weights /*shift*/, Weights /*scale*/, Weights /*power*/) noexcept
{
    return unsupported("addScale");
}

nvinfer1::IRaggedSoftMaxLayer* NetworkApi::addRaggedSoftMax(
    nvinfer1::ITensor& /*input*/, nvinfer1::ITensor& /*bounds*/) noexcept
{
    return unsupported("addRaggedSoftMax");
}

nvinfer1::IParametricReLULayer* NetworkApi::addParametricReLU(
    nvinfer1::ITensor& /*input*/, nvinfer1::ITensor& /*slope*/) noexcept
{
    return unsupported("addParametricReLU");
}

nvinfer1::IScaleLayer* NetworkApi::addScaleNd(nvinfer1::ITensor& /*input*/, nvinfer1::ScaleMode /*mode*/,
    Weights /*shift*/, Weights /*scale*/, Weights /*power*/, int32_t /*channelAxis*/) noexcept
{
    return unsupported("addScaleNd");
}

nvinfer1::IPaddingLayer* NetworkApi::addPaddingNd(
    nvinfer1::ITensor& /*input*/, Dims const& /*prePadding*/, Dims const& /*postPadding*/) noexcept
{
    return unsupported("addPaddingNd");
}

nvinfer1::IAssertionLayer* NetworkApi::addAssertion(nvinfer1::ITensor& /*condition*/, char const* /*message*/) noexcept
{
    return unsupported("addAssertion");
}

nvinfer1::IOneHotLayer* NetworkApi::addOneHot(nvinfer1::ITensor& /*indices*/, nvinfer1::ITensor& /*values*/,
    nvinfer1::ITensor& /*depth*/, int32_t /*axis*/) noexcept
{
    return unsupported("addOneHot");
}

nvinfer1::INormalizationLayer* NetworkApi::addNormalization(nvinfer1::ITensor& /*input*/, nvinfer1::ITensor& /*scale*/,
    nvinfer1::ITensor& /*bias*/, uint32_t /*axesMask*/) noexcept
{
    return unsupported("addNormalization");
}

nvinfer1::ISqueezeLayer* NetworkApi::addSqueeze(nvinfer1::ITensor& /*input*/, nvinfer1::ITensor& /*axes*/) noexcept
{
    return unsupported("addSqueeze");
}

nvinfer1::IUnsqueezeLayer* NetworkApi::addUnsqueeze(nvinfer1::ITensor& /*input*/, nvinfer1::ITensor& /*axes*/) noexcept
{
    return unsupported("addUnsqueeze");
}

nvinfer1::IDynamicQuantizeLayer* NetworkApi::addDynamicQuantize(nvinfer1::ITensor& /*input*/, int32_t /*axis*/,
    int32_t /*blockSize*/, DataType /*toType*/, DataType /*scaleType*/) noexcept
{
    return unsupported("addDynamicQuantize");
}

nvinfer1::IAttention* NetworkApi::addAttention(nvinfer1::ITensor& /*query*/, nvinfer1::ITensor& /*key*/,
    nvinfer1::ITensor& /*value*/, nvinfer1::AttentionNormalizationOp /*normOp*/, bool /*isCausal*/) noexcept
{
    return unsupported("addAttention");
}

nvinfer1::IRotaryEmbeddingLayer* NetworkApi::addRotaryEmbedding(nvinfer1::ITensor& /*input*/,
    nvinfer1::ITensor& /*cosCache*/, nvinfer1::ITensor& /*sinCache*/, bool /*interleaved*/,
    int32_t /*rotaryEmbeddingDim*/) noexcept
{
    return unsupported("addRotaryEmbedding");
}

nvinfer1::IDynamicQuantizeLayer* NetworkApi::addDynamicQuantizeV2(
    nvinfer1::ITensor& /*input*/, Dims const& /*blockShape*/, DataType /*toType*/, DataType /*scaleType*/) noexcept
{
    return unsupported("addDynamicQuantizeV2");
}

nvinfer1::IKVCacheUpdateLayer* NetworkApi::addKVCacheUpdate(nvinfer1::ITensor& /*cache*/, nvinfer1::ITensor& /*update*/,
    nvinfer1::ITensor& /*writeIndices*/, nvinfer1::KVCacheMode /*cacheMode*/) noexcept
{
    return unsupported("addKVCacheUpdate");
}

nvinfer1::INormalizationLayer* NetworkApi::addNormalizationV2(nvinfer1::ITensor& /*input*/,
    nvinfer1::ITensor& /*scale*/, nvinfer1::ITensor& /*bias*/, uint32_t /*axesMask*/) noexcept
{
    return unsupported("addNormalizationV2");
}

nvinfer1::IMoELayer* NetworkApi::addMoE(nvinfer1::ITensor& /*hiddenStates*/,
    nvinfer1::ITensor& /*selectedExpertsForTokens*/, nvinfer1::ITensor& /*scoresForSelectedExperts*/) noexcept
{
    return unsupported("addMoE");
}

nvinfer1::IDistCollectiveLayer* NetworkApi::addDistCollective(nvinfer1::ITensor& /*input*/,
    nvinfer1::CollectiveOperation /*distCollectiveOp*/, nvinfer1::ReduceOperation /*reduceOp*/, int64_t /*root*/,
    int64_t* /*groups*/, int64_t /*groupSize*/) noexcept
{
    return unsupported("addDistCollective");
}

} // namespace kiln
