// SPDX-License-Identifier: Apache-2.0
// Networks that the CUDA build fuses into one kernel (builder/fusion.h), made from primitive layers through the public
// API as applications write them:
//
//     ScalarWeights scalars;                                          // alive until the build
//     ITensor* y = primitiveLayerNorm(network, *x, 1e-5F, gamma, beta, scalars);    // gamma, beta: nullptr or [1.., N]
//     ITensor* o = primitiveAttention(network, *q, *k, *v, heads, 0.125F, scalars);  // q, k, v: [B, S, heads * D]
//     ITensor* e = exportedAttention(network, *q, *k, *v, heads, mask, true, scalars); // transformers' ONNX form
//     ITensor* r = residualBlocks(network, *x, [&](int64_t count) { return weightsOf(count); });  // x: [N, C, H, W]
//     ITensor* g = primitiveGelu(network, *x, GeluForm::kERF, scalars);                 // the exporters' GELU forms
#pragma once

#include "NvInfer.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <vector>

namespace kiln::test
{

//! Constants of a network's float types (one element, or arrays), kept alive for the build.
class ScalarWeights
{
public:
    //! value as weights of type (kFLOAT, kHALF or kBF16; rounded to nearest even).
    nvinfer1::Weights operator()(float value, nvinfer1::DataType type)
    {
        if (type == nvinfer1::DataType::kFLOAT)
        {
            mFloats.push_back(value);
            return nvinfer1::Weights{type, &mFloats.back(), 1};
        }
        mHalves.push_back(type == nvinfer1::DataType::kHALF ? halfBits(value) : bf16Bits(value));
        return nvinfer1::Weights{type, &mHalves.back(), 1};
    }

    //! values as weights of type (kFLOAT, kHALF or kBF16; rounded to nearest even).
    nvinfer1::Weights operator()(std::vector<float> const& values, nvinfer1::DataType type)
    {
        auto const count = static_cast<int64_t>(values.size());
        if (type == nvinfer1::DataType::kFLOAT)
        {
            mFloatArrays.push_back(values);
            return nvinfer1::Weights{type, mFloatArrays.back().data(), count};
        }
        std::vector<uint16_t>& bits = mHalfArrays.emplace_back();
        for (float const value : values)
        {
            bits.push_back(type == nvinfer1::DataType::kHALF ? halfBits(value) : bf16Bits(value));
        }
        return nvinfer1::Weights{type, bits.data(), count};
    }

private:
    static uint16_t bf16Bits(float value)
    {
        auto const bits = std::bit_cast<uint32_t>(value);
        return static_cast<uint16_t>((bits + 0x7FFFU + ((bits >> 16) & 1U)) >> 16);
    }
    //! Finite values in half's range (what these tests use), subnormals included.
    static uint16_t halfBits(float value)
    {
        auto const bits = std::bit_cast<uint32_t>(value);
        auto const sign = static_cast<uint16_t>((bits >> 16) & 0x8000U);
        int32_t const exponent = static_cast<int32_t>((bits >> 23) & 0xFFU) - 127 + 15;
        uint32_t const mantissa = (bits & 0x7FFFFFU) | 0x800000U;
        // Normal: exponent and the top 10 mantissa bits; subnormal: the mantissa in units of 2^-24.
        int32_t const shift = exponent > 0 ? 13 : 14 - exponent;
        if (shift > 24)
        {
            return sign;
        }
        uint32_t half = exponent > 0 ? (static_cast<uint32_t>(exponent) << 10) | ((mantissa & 0x7FFFFFU) >> 13)
                                     : mantissa >> shift;
        uint32_t const rest = mantissa & ((1U << shift) - 1U);
        uint32_t const halfway = 1U << (shift - 1);
        half += (rest > halfway || (rest == halfway && (half & 1U) != 0)) ? 1U : 0U; // A carry moves up the exponent.
        return static_cast<uint16_t>(sign | half);
    }

    std::deque<float> mFloats;
    std::deque<uint16_t> mHalves;
    std::deque<std::vector<float>> mFloatArrays;
    std::deque<std::vector<uint16_t>> mHalfArrays;
};

//! (x - mean) / sqrt(var + epsilon) [* gamma [+ beta]] over x's last axis from reduce, element-wise and unary layers.
//! epsilon becomes a constant of x's type, kept by scalars.
inline nvinfer1::ITensor* primitiveLayerNorm(nvinfer1::INetworkDefinition& network, nvinfer1::ITensor& x, float epsilon,
    nvinfer1::ITensor* gamma, nvinfer1::ITensor* beta, ScalarWeights& scalars)
{
    using nvinfer1::ElementWiseOperation;
    int32_t const rank = x.getDimensions().nbDims;
    uint32_t const lastAxis = 1U << (rank - 1);
    auto* mean = network.addReduce(x, nvinfer1::ReduceOperation::kAVG, lastAxis, true)->getOutput(0);
    auto* centered = network.addElementWise(x, *mean, ElementWiseOperation::kSUB)->getOutput(0);
    auto* squared = network.addElementWise(*centered, *centered, ElementWiseOperation::kPROD)->getOutput(0);
    auto* variance = network.addReduce(*squared, nvinfer1::ReduceOperation::kAVG, lastAxis, true)->getOutput(0);
    nvinfer1::Dims ones{rank, {}};
    for (int32_t d = 0; d < rank; ++d)
    {
        ones.d[d] = 1;
    }
    auto* eps = network.addConstant(ones, scalars(epsilon, x.getType()))->getOutput(0);
    auto* shifted = network.addElementWise(*variance, *eps, ElementWiseOperation::kSUM)->getOutput(0);
    auto* deviation = network.addUnary(*shifted, nvinfer1::UnaryOperation::kSQRT)->getOutput(0);
    nvinfer1::ITensor* y = network.addElementWise(*centered, *deviation, ElementWiseOperation::kDIV)->getOutput(0);
    if (gamma != nullptr)
    {
        y = network.addElementWise(*y, *gamma, ElementWiseOperation::kPROD)->getOutput(0);
        if (beta != nullptr)
        {
            y = network.addElementWise(*beta, *y, ElementWiseOperation::kSUM)->getOutput(0);
        }
    }
    return y;
}

//! The ways exporters write GELU with primitive layers (builder/fusion_gelu.cpp).
enum class GeluForm
{
    kERF,            //!< (x * (erf(x / 1.4142135) + 1)) * 0.5, PyTorch's export.
    kERF_HALF_FIRST, //!< (x * 0.5) * (1 + erf(x * 0.70710677)).
    kTANH_POW,       //!< (0.5 * x) * (1 + tanh(0.7978846 * (x + 0.044715 * Pow(x, 3)))).
    kTANH_PRODUCTS,  //!< (x * (tanh(((x * x) * x * 0.044715 + x) * 0.7978846) + 1)) * 0.5.
};

//! GELU of x written as form, its constants one-element tensors of x's type and rank kept by scalars; root2 stands
//! for sqrt(2) in kERF (a near miss when it is not close to it).
inline nvinfer1::ITensor* primitiveGelu(nvinfer1::INetworkDefinition& network, nvinfer1::ITensor& x, GeluForm form,
    ScalarWeights& scalars, float root2 = 1.4142135F)
{
    using Op = nvinfer1::ElementWiseOperation;
    nvinfer1::Dims ones{x.getDimensions().nbDims, {}};
    for (int32_t d = 0; d < ones.nbDims; ++d)
    {
        ones.d[d] = 1;
    }
    auto const constant
        = [&](float value) { return network.addConstant(ones, scalars(value, x.getType()))->getOutput(0); };
    auto const binary = [&](nvinfer1::ITensor& a, nvinfer1::ITensor& b, Op op) {
        return network.addElementWise(a, b, op)->getOutput(0);
    };
    switch (form)
    {
    case GeluForm::kERF:
    {
        auto* e = network.addUnary(*binary(x, *constant(root2), Op::kDIV), nvinfer1::UnaryOperation::kERF);
        auto* s = binary(*e->getOutput(0), *constant(1.F), Op::kSUM);
        return binary(*binary(x, *s, Op::kPROD), *constant(0.5F), Op::kPROD);
    }
    case GeluForm::kERF_HALF_FIRST:
    {
        auto* e = network.addUnary(*binary(x, *constant(0.70710677F), Op::kPROD), nvinfer1::UnaryOperation::kERF);
        auto* s = binary(*constant(1.F), *e->getOutput(0), Op::kSUM);
        return binary(*binary(x, *constant(0.5F), Op::kPROD), *s, Op::kPROD);
    }
    case GeluForm::kTANH_POW:
    case GeluForm::kTANH_PRODUCTS:
    {
        bool const pow = form == GeluForm::kTANH_POW;
        auto* cube = pow ? binary(x, *constant(3.F), Op::kPOW) : binary(*binary(x, x, Op::kPROD), x, Op::kPROD);
        auto* term
            = pow ? binary(*constant(0.044715F), *cube, Op::kPROD) : binary(*cube, *constant(0.044715F), Op::kPROD);
        auto* inner = pow ? binary(x, *term, Op::kSUM) : binary(*term, x, Op::kSUM);
        auto* u = binary(*inner, *constant(0.7978846F), Op::kPROD);
        auto* t = network.addActivation(*u, nvinfer1::ActivationType::kTANH)->getOutput(0);
        auto* s = binary(*t, *constant(1.F), Op::kSUM);
        return pow ? binary(*binary(*constant(0.5F), x, Op::kPROD), *s, Op::kPROD)
                   : binary(*binary(x, *s, Op::kPROD), *constant(0.5F), Op::kPROD);
    }
    }
    return nullptr;
}

//! Names the sum 1 + erf(...) of a kERF primitiveGelu in network "gelu_sum" and marks it a debug tensor (which keeps
//! the GELU fusion from absorbing it); false when network has no kSUM layer or the mark is refused.
inline bool markGeluSumAsDebug(nvinfer1::INetworkDefinition& network)
{
    bool marked = false;
    for (int32_t l = 0; l < network.getNbLayers(); ++l)
    {
        auto* sum = dynamic_cast<nvinfer1::IElementWiseLayer*>(network.getLayer(l));
        if (sum != nullptr && sum->getOperation() == nvinfer1::ElementWiseOperation::kSUM)
        {
            sum->getOutput(0)->setName("gelu_sum");
            marked = network.markDebug(*sum->getOutput(0));
        }
    }
    return marked;
}

//! Multi-head attention from shuffle, matrix multiply, element-wise and softmax layers: heads split ([B, S, H * D] ->
//! [B, S, H, D] -> [B, H, S, D]), softmax(scale * q k^T) v, heads merged back to [B, S, H * D]. scale becomes a
//! constant of q's type, kept by scalars.
inline nvinfer1::ITensor* primitiveAttention(nvinfer1::INetworkDefinition& network, nvinfer1::ITensor& q,
    nvinfer1::ITensor& k, nvinfer1::ITensor& v, int32_t heads, float scale, ScalarWeights& scalars)
{
    int64_t const width = q.getDimensions().d[2];
    // {0, 2, 1, 3}, the entries past rank 4 left 0 as applications often leave them (they are not read).
    nvinfer1::Permutation swap{};
    swap.order[1] = 2;
    swap.order[2] = 1;
    swap.order[3] = 3;
    auto const split = [&](nvinfer1::ITensor& t) {
        auto* shuffle = network.addShuffle(t);
        shuffle->setReshapeDimensions(nvinfer1::Dims{4, {0, 0, heads, width / heads}});
        shuffle->setSecondTranspose(swap);
        return shuffle->getOutput(0);
    };
    auto* scores = network
                       .addMatrixMultiply(*split(q), nvinfer1::MatrixOperation::kNONE, *split(k),
                           nvinfer1::MatrixOperation::kTRANSPOSE)
                       ->getOutput(0);
    auto* factor = network.addConstant(nvinfer1::Dims{4, {1, 1, 1, 1}}, scalars(scale, q.getType()))->getOutput(0);
    auto* scaled = network.addElementWise(*scores, *factor, nvinfer1::ElementWiseOperation::kPROD)->getOutput(0);
    auto* softmax = network.addSoftMax(*scaled);
    softmax->setAxes(1U << 3);
    auto* context = network
                        .addMatrixMultiply(*softmax->getOutput(0), nvinfer1::MatrixOperation::kNONE, *split(v),
                            nvinfer1::MatrixOperation::kNONE)
                        ->getOutput(0);
    auto* merge = network.addShuffle(*context);
    merge->setFirstTranspose(swap);
    merge->setReshapeDimensions(nvinfer1::Dims{3, {0, 0, width}});
    return merge->getOutput(0);
}

//! Multi-head attention as transformers' ONNX export writes it (BERT, the SDPA path; opset 17), layer by layer as the
//! ONNX parser imports it: each head split a reshape ([B, S, H, D]) then a transpose, k's to [B, H, D, S]; q and k
//! each multiplied by D^-1/4 (a constant of q's type); the scores q k; plus mask where it is not null (rank 4,
//! broadcast to [B, H, Sq, Skv], of q's type); the softmax over the keys; where guarded, the NaN guard
//! select(isnan(p), 0, p); the context; a transpose and a reshape back to [B, Sq, H * D].
inline nvinfer1::ITensor* exportedAttention(nvinfer1::INetworkDefinition& network, nvinfer1::ITensor& q,
    nvinfer1::ITensor& k, nvinfer1::ITensor& v, int32_t heads, nvinfer1::ITensor* mask, bool guarded,
    ScalarWeights& scalars)
{
    using nvinfer1::ElementWiseOperation;
    int64_t const width = q.getDimensions().d[2];
    int64_t const headSize = width / heads;
    auto const permutation = [](int32_t a, int32_t b, int32_t c) {
        nvinfer1::Permutation order{};
        order.order[1] = a;
        order.order[2] = b;
        order.order[3] = c;
        return order;
    };
    auto const ones = [&](float value) {
        return network.addConstant(nvinfer1::Dims{4, {1, 1, 1, 1}}, scalars(value, q.getType()))->getOutput(0);
    };
    auto const split = [&](nvinfer1::ITensor& t, nvinfer1::Permutation const& order) {
        auto* reshape = network.addShuffle(t);
        reshape->setReshapeDimensions(nvinfer1::Dims{4, {0, 0, heads, headSize}});
        auto* transpose = network.addShuffle(*reshape->getOutput(0));
        transpose->setFirstTranspose(order);
        return transpose->getOutput(0);
    };
    nvinfer1::ITensor* q4 = split(q, permutation(2, 1, 3));
    nvinfer1::ITensor* v4 = split(v, permutation(2, 1, 3));
    nvinfer1::ITensor* k4 = split(k, permutation(2, 3, 1));
    float const root = 1.F / std::sqrt(std::sqrt(static_cast<float>(headSize)));
    q4 = network.addElementWise(*q4, *ones(root), ElementWiseOperation::kPROD)->getOutput(0);
    k4 = network.addElementWise(*k4, *ones(root), ElementWiseOperation::kPROD)->getOutput(0);
    nvinfer1::ITensor* scores
        = network.addMatrixMultiply(*q4, nvinfer1::MatrixOperation::kNONE, *k4, nvinfer1::MatrixOperation::kNONE)
              ->getOutput(0);
    if (mask != nullptr)
    {
        scores = network.addElementWise(*scores, *mask, ElementWiseOperation::kSUM)->getOutput(0);
    }
    auto* softmax = network.addSoftMax(*scores);
    softmax->setAxes(1U << 3);
    nvinfer1::ITensor* p = softmax->getOutput(0);
    if (guarded)
    {
        auto* isNan = network.addUnary(*p, nvinfer1::UnaryOperation::kISNAN)->getOutput(0);
        p = network.addSelect(*isNan, *ones(0.F), *p)->getOutput(0);
    }
    auto* context
        = network.addMatrixMultiply(*p, nvinfer1::MatrixOperation::kNONE, *v4, nvinfer1::MatrixOperation::kNONE)
              ->getOutput(0);
    auto* transpose = network.addShuffle(*context);
    transpose->setFirstTranspose(permutation(2, 1, 3));
    auto* reshape = network.addShuffle(*transpose->getOutput(0));
    reshape->setReshapeDimensions(nvinfer1::Dims{3, {0, 0, width}});
    return reshape->getOutput(0);
}

//! ONNX's Expand of x to the extents target (a 1-D kINT64 tensor of x's rank) as the ONNX parser writes it when the
//! shape is known only at run time: a slice from 0 with strides select(extents == 1, 0, 1) and sizes
//! select(extents == 1, target, extents) over x's own extents.
inline nvinfer1::ITensor* onnxExpand(nvinfer1::INetworkDefinition& network, nvinfer1::ITensor& x,
    nvinfer1::ITensor& target, std::deque<std::vector<int64_t>>& storage)
{
    int32_t const rank = x.getDimensions().nbDims;
    auto const integers = [&](int64_t value, int64_t count) {
        storage.emplace_back(static_cast<std::size_t>(count), value);
        return network
            .addConstant(
                nvinfer1::Dims{1, {count}}, nvinfer1::Weights{nvinfer1::DataType::kINT64, storage.back().data(), count})
            ->getOutput(0);
    };
    nvinfer1::ITensor* extents = network.addShape(x)->getOutput(0);
    nvinfer1::ITensor* isOne
        = network.addElementWise(*extents, *integers(1, 1), nvinfer1::ElementWiseOperation::kEQUAL)->getOutput(0);
    nvinfer1::ITensor* size = network.addSelect(*isOne, target, *extents)->getOutput(0);
    nvinfer1::ITensor* stride = network.addSelect(*isOne, *integers(0, rank), *integers(1, rank))->getOutput(0);
    nvinfer1::Dims zeros{rank, {}};
    auto* slice = network.addSlice(x, zeros, zeros, zeros);
    slice->setInput(2, *size);
    slice->setInput(3, *stride);
    return slice->getOutput(0);
}

//! A padding mask as transformers' exports build BERT's (masking_utils, the SDPA path): keep = pad > -0.5 ([B, 1, 1,
//! S]), And-ed with a constant [1, 1, S, 1] true everywhere (the queries' part, computed from fixed extents) into
//! [B, 1, S, S], expanded (onnxExpand) to the shape it has, then select(keep, 0, -inf) in type. allTrue false puts
//! one false value in the constant (a mask that is not the same on every row).
inline nvinfer1::ITensor* exportedPaddingMask(nvinfer1::INetworkDefinition& network, nvinfer1::ITensor& pad,
    nvinfer1::DataType type, bool allTrue, ScalarWeights& scalars, std::deque<std::vector<int64_t>>& integers,
    std::deque<std::vector<uint8_t>>& bools)
{
    int64_t const keys = pad.getDimensions().d[3];
    auto const scalar = [&](float value, nvinfer1::DataType t) {
        return network.addConstant(nvinfer1::Dims{4, {1, 1, 1, 1}}, scalars(value, t))->getOutput(0);
    };
    nvinfer1::ITensor* keep
        = network.addElementWise(pad, *scalar(-0.5F, pad.getType()), nvinfer1::ElementWiseOperation::kGREATER)
              ->getOutput(0);
    bools.emplace_back(static_cast<std::size_t>(keys), uint8_t{1});
    if (!allTrue)
    {
        bools.back()[1] = 0;
    }
    nvinfer1::ITensor* queries = network
                                     .addConstant(nvinfer1::Dims{4, {1, 1, keys, 1}},
                                         nvinfer1::Weights{nvinfer1::DataType::kBOOL, bools.back().data(), keys})
                                     ->getOutput(0);
    nvinfer1::ITensor* both
        = network.addElementWise(*queries, *keep, nvinfer1::ElementWiseOperation::kAND)->getOutput(0);
    nvinfer1::ITensor* expanded = onnxExpand(network, *both, *network.addShape(*both)->getOutput(0), integers);
    float const infinity = std::numeric_limits<float>::infinity();
    return network.addSelect(*expanded, *scalar(0.F, type), *scalar(-infinity, type))->getOutput(0);
}

//! Two ResNet-like blocks after x ([N, C, H, W], C a multiple of 8), layers in the order torchvision's ONNX export
//! gives them: a 3x3 max pooling of stride 1 ("pool"); block 1 with an identity shortcut: 3x3 convolutions C -> C
//! "b1c1" (ReLU), "b1c2" (ReLU), "b1c3", the sum with the pooling's result, a ReLU; block 2 with a downsampling
//! shortcut: 3x3 convolutions C -> 2C of stride 2 "b2c1" (ReLU) and 2C -> 2C "b2c2", then the 1x1 convolution of
//! stride 2 of block 1's result "b2ds", the sum of the two, a ReLU; then a 3x3 max pooling of stride 1 again. Every
//! convolution has a bias. weights(count) gives each kernel's and bias's weights (of the network's type).
template <typename MakeWeights>
nvinfer1::ITensor* residualBlocks(nvinfer1::INetworkDefinition& network, nvinfer1::ITensor& x, MakeWeights&& weights)
{
    auto const pool = [&](nvinfer1::ITensor& in, char const* name) {
        auto* layer = network.addPoolingNd(in, nvinfer1::PoolingType::kMAX, nvinfer1::Dims{2, {3, 3}});
        layer->setPaddingNd(nvinfer1::Dims{2, {1, 1}});
        layer->setName(name);
        return layer->getOutput(0);
    };
    auto const conv
        = [&](nvinfer1::ITensor& in, int64_t maps, int64_t size, int64_t stride, bool relu, char const* name) {
              int64_t const channels = in.getDimensions().d[1];
              auto* layer = network.addConvolutionNd(
                  in, maps, nvinfer1::Dims{2, {size, size}}, weights(maps * channels * size * size), weights(maps));
              layer->setStrideNd(nvinfer1::Dims{2, {stride, stride}});
              layer->setPaddingNd(nvinfer1::Dims{2, {size / 2, size / 2}});
              layer->setName(name);
              nvinfer1::ITensor* out = layer->getOutput(0);
              return relu ? network.addActivation(*out, nvinfer1::ActivationType::kRELU)->getOutput(0) : out;
          };
    auto const add = [&](nvinfer1::ITensor& a, nvinfer1::ITensor& b) {
        auto* sum = network.addElementWise(a, b, nvinfer1::ElementWiseOperation::kSUM)->getOutput(0);
        return network.addActivation(*sum, nvinfer1::ActivationType::kRELU)->getOutput(0);
    };
    int64_t const channels = x.getDimensions().d[1];
    nvinfer1::ITensor* p = pool(x, "pool");
    nvinfer1::ITensor* h = conv(*p, channels, 3, 1, true, "b1c1");
    h = conv(*h, channels, 3, 1, true, "b1c2");
    h = conv(*h, channels, 3, 1, false, "b1c3");
    nvinfer1::ITensor* block1 = add(*h, *p);
    h = conv(*block1, 2 * channels, 3, 2, true, "b2c1");
    h = conv(*h, 2 * channels, 3, 1, false, "b2c2");
    nvinfer1::ITensor* shortcut = conv(*block1, 2 * channels, 1, 2, false, "b2ds");
    return pool(*add(*h, *shortcut), "pool2");
}

} // namespace kiln::test
