// SPDX-License-Identifier: Apache-2.0
// Networks that the CUDA build fuses into one kernel (builder/fusion.h), made from primitive layers through the public
// API as applications write them:
//
//     ScalarWeights scalars;                                          // alive until the build
//     ITensor* y = primitiveLayerNorm(network, *x, 1e-5F, gamma, beta, scalars);    // gamma, beta: nullptr or [1.., N]
//     ITensor* o = primitiveAttention(network, *q, *k, *v, heads, 0.125F, scalars);  // q, k, v: [B, S, heads * D]
#pragma once

#include "NvInfer.h"

#include <bit>
#include <cstdint>
#include <deque>

namespace kiln::test
{

//! One-element constants of a network's float types, kept alive for the build.
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

} // namespace kiln::test
