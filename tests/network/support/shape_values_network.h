// SPDX-License-Identifier: Apache-2.0
// A network shaped like BERT's position and mask subgraph (transformers' ONNX export, with its Range folded into a
// constant), for the tests of shape values computed on the host (runtime/shape_values.h), through the public API:
//
//     x: kFLOAT [1, S], S in [1, kShapeValuesMaxLength]
//     s = shape(x);  n = gather(s, [1])                      (S, read as a slice's size and as data)
//     range = constant [0 .. kShapeValuesMaxLength)          (read as data on both sides)
//     first = slice(range, [0], [1])                         (a slice start: range is read on the host)
//     pos = slice(range, start first, size n)                (the data path reads the constant)
//     dims = concat(constant [1], n);  p = reshape(cast(pos), dims)
//     y = (x + p) * reshape(cast(n), [1, 1])                 y[j] = (x[j] + j) * S
//
//     addShapeValuesNetwork(*network);   // marks y; add a profile for x with shapeValuesProfile
#pragma once

#include "NvInfer.h"

#include <array>
#include <cstdint>
#include <vector>

namespace kiln::test
{

inline constexpr int64_t kShapeValuesMaxLength = 16;

//! What the network computes for x of length S = x.size().
inline std::vector<float> shapeValuesReference(std::vector<float> const& x)
{
    std::vector<float> y;
    auto const length = static_cast<float>(x.size());
    for (std::size_t j = 0; j < x.size(); ++j)
    {
        y.push_back((x[j] + static_cast<float>(j)) * length);
    }
    return y;
}

//! Adds the network above to network, its layers named after the tensors ("shape", "n", "range", ...).
inline void addShapeValuesNetwork(nvinfer1::INetworkDefinition& network)
{
    using nvinfer1::DataType;
    using nvinfer1::Dims;
    static std::array<int64_t, kShapeValuesMaxLength> const kRange = [] {
        std::array<int64_t, kShapeValuesMaxLength> values{};
        for (std::size_t i = 0; i < values.size(); ++i)
        {
            values[i] = static_cast<int64_t>(i);
        }
        return values;
    }();
    static int32_t const kSecond[] = {1};
    static int64_t const kOne[] = {1};
    nvinfer1::ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{2, {1, -1}});
    auto* shape = network.addShape(*x);
    shape->setName("shape");
    auto* second = network.addConstant(Dims{1, {1}}, nvinfer1::Weights{DataType::kINT32, kSecond, 1});
    second->setName("second");
    auto* n = network.addGather(*shape->getOutput(0), *second->getOutput(0), 0);
    n->setName("n");
    auto* range = network.addConstant(
        Dims{1, {kShapeValuesMaxLength}}, nvinfer1::Weights{DataType::kINT64, kRange.data(), kShapeValuesMaxLength});
    range->setName("range");
    auto* first = network.addSlice(*range->getOutput(0), Dims{1, {0}}, Dims{1, {1}}, Dims{1, {1}});
    first->setName("first");
    auto* pos = network.addSlice(*range->getOutput(0), Dims{1, {0}}, Dims{1, {1}}, Dims{1, {1}});
    pos->setInput(1, *first->getOutput(0));
    pos->setInput(2, *n->getOutput(0));
    pos->setName("pos");
    auto* posFloat = network.addCast(*pos->getOutput(0), DataType::kFLOAT);
    posFloat->setName("pos_float");
    auto* one = network.addConstant(Dims{1, {1}}, nvinfer1::Weights{DataType::kINT64, kOne, 1});
    one->setName("one");
    nvinfer1::ITensor* parts[] = {one->getOutput(0), n->getOutput(0)};
    auto* dims = network.addConcatenation(parts, 2);
    dims->setName("dims");
    auto* p = network.addShuffle(*posFloat->getOutput(0));
    p->setInput(1, *dims->getOutput(0));
    p->setName("p");
    auto* sum = network.addElementWise(*x, *p->getOutput(0), nvinfer1::ElementWiseOperation::kSUM);
    sum->setName("sum");
    auto* nFloat = network.addCast(*n->getOutput(0), DataType::kFLOAT);
    nFloat->setName("n_float");
    auto* scale = network.addShuffle(*nFloat->getOutput(0));
    scale->setReshapeDimensions(Dims{2, {1, 1}});
    scale->setName("scale");
    auto* y = network.addElementWise(*sum->getOutput(0), *scale->getOutput(0), nvinfer1::ElementWiseOperation::kPROD);
    y->setName("y");
    y->getOutput(0)->setName("y");
    network.markOutput(*y->getOutput(0));
}

//! The profile of x: S in [1, kShapeValuesMaxLength], optimum opt.
inline void shapeValuesProfile(nvinfer1::IOptimizationProfile& profile, int64_t opt = 8)
{
    using nvinfer1::Dims;
    profile.setDimensions("x", nvinfer1::OptProfileSelector::kMIN, Dims{2, {1, 1}});
    profile.setDimensions("x", nvinfer1::OptProfileSelector::kOPT, Dims{2, {1, opt}});
    profile.setDimensions("x", nvinfer1::OptProfileSelector::kMAX, Dims{2, {1, kShapeValuesMaxLength}});
}

} // namespace kiln::test
