// SPDX-License-Identifier: Apache-2.0
// Where a CUDA engine runs each layer and keeps each tensor (placeLayers, runtime/executor.h), on hand-made engine
// models: shape arithmetic on the host, data on the device, and the mirrors between. Needs no GPU.
#include "runtime/executor.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kiln
{
namespace
{

TensorRecord tensor(std::string name, DataType type, int32_t producer, bool input = false, bool output = false)
{
    TensorRecord record;
    record.name = std::move(name);
    record.type = type;
    record.producer = producer;
    record.isInput = input;
    record.isOutput = output;
    return record;
}

LayerRecord layer(LayerParams params, std::vector<int32_t> inputs, std::vector<int32_t> outputs)
{
    LayerRecord record;
    record.type = layerTypeOf(params);
    record.params = std::move(params);
    record.inputs = std::move(inputs);
    record.outputs = std::move(outputs);
    return record;
}

//! y = reshape(tanh(x), concat(shape(x)[0:1], c)) with c a constant:
//!   0 shape(x) -> s;  1 constant -> i;  2 gather(s, i) -> g;  3 constant -> c;  4 concat(g, c) -> d;
//!   5 tanh(x) -> t;   6 shuffle(t, d) -> y (output).
EngineModel reshapeByShape(PlanBackend backend)
{
    EngineModel model;
    model.backend = backend;
    model.tensors
        = {tensor("x", DataType::kFLOAT, -1, true), tensor("s", DataType::kINT64, 0), tensor("i", DataType::kINT32, 1),
            tensor("g", DataType::kINT64, 2), tensor("c", DataType::kINT64, 3), tensor("d", DataType::kINT64, 4),
            tensor("t", DataType::kFLOAT, 5), tensor("y", DataType::kFLOAT, 6, false, true)};
    model.layers.push_back(layer(ShapeParams{}, {0}, {1}));
    model.layers.push_back(layer(ConstantParams{}, {}, {2}));
    model.layers.push_back(layer(GatherParams{}, {1, 2}, {3}));
    model.layers.push_back(layer(ConstantParams{}, {}, {4}));
    model.layers.push_back(layer(ConcatenationParams{}, {3, 4}, {5}));
    model.layers.push_back(layer(ActivationParams{nvinfer1::ActivationType::kTANH}, {0}, {6}));
    model.layers.push_back(layer(ShuffleParams{}, {6, 5}, {7}));
    return model;
}

TEST(Placement, ShapeArithmeticRunsOnTheHostAndDataOnTheDevice)
{
    Placement const placement = placeLayers(reshapeByShape(PlanBackend::kCUDA));
    std::vector<Side> const expectedLayers{
        Side::kHOST, Side::kHOST, Side::kHOST, Side::kHOST, Side::kHOST, Side::kDEVICE, Side::kDEVICE};
    EXPECT_EQ(placement.layers, expectedLayers);
    std::vector<Side> const expectedTensors{
        Side::kDEVICE, Side::kHOST, Side::kHOST, Side::kHOST, Side::kHOST, Side::kHOST, Side::kDEVICE, Side::kDEVICE};
    EXPECT_EQ(placement.tensors, expectedTensors);
    // The Shape layer reads only x's extents, and the reshape reads d as values on the host: nothing is copied.
    EXPECT_EQ(placement.mirrored, std::vector<uint8_t>(8, 0));
}

TEST(Placement, AHostEngineHasEverythingOnTheHost)
{
    Placement const placement = placeLayers(reshapeByShape(PlanBackend::kHOST));
    EXPECT_EQ(placement.layers, std::vector<Side>(7, Side::kHOST));
    EXPECT_EQ(placement.tensors, std::vector<Side>(8, Side::kHOST));
    EXPECT_EQ(placement.mirrored, std::vector<uint8_t>(8, 0));
}

TEST(Placement, ATensorReadOnBothSidesIsMirrored)
{
    // g is also added to a device tensor: the gather stays on the host (its output is read as values too), and g
    // gets a device copy.
    EngineModel model = reshapeByShape(PlanBackend::kCUDA);
    model.tensors.push_back(tensor("gf", DataType::kINT64, 7, false, true));
    model.layers.push_back(layer(ElementWiseParams{nvinfer1::ElementWiseOperation::kSUM}, {3, 3}, {8}));
    model.layers[6].params = ShuffleParams{};
    Placement const placement = placeLayers(model);
    EXPECT_EQ(placement.layers[7], Side::kDEVICE);
    EXPECT_EQ(placement.layers[2], Side::kDEVICE) << "g is read as data on the device and as values on the host";
    EXPECT_EQ(placement.tensors[3], Side::kDEVICE);
    EXPECT_EQ(placement.mirrored[3], 1) << "the concat on the host reads g from its host copy";
}

TEST(Placement, ADataDependentValueIsCopiedToTheHost)
{
    // A reduce on the device whose value binds a symbol: the executor reads it on the host.
    EngineModel model;
    model.backend = PlanBackend::kCUDA;
    model.tensors = {tensor("x", DataType::kINT32, -1, true), tensor("n", DataType::kINT32, 0),
        tensor("y", DataType::kINT32, 1, false, true)};
    model.layers.push_back(layer(ReduceParams{nvinfer1::ReduceOperation::kSUM, 1U, false}, {0}, {1}));
    model.layers.push_back(layer(UnaryParams{nvinfer1::UnaryOperation::kABS}, {1}, {2}));
    model.symbols.push_back(SymbolRecord{"n.v0", SymbolKind::kSHAPE_VALUE, 1, 0});
    Placement const placement = placeLayers(model);
    EXPECT_EQ(placement.layers[0], Side::kDEVICE);
    EXPECT_EQ(placement.mirrored[1], 1);
    // A shape tensor network output lives in host memory: its producer's result is copied there.
    model.tensors[2].isShapeTensor = true;
    model.layers[1].inputs = {0};
    Placement const shaped = placeLayers(model);
    EXPECT_EQ(shaped.layers[1], Side::kHOST) << "only the host reads y";
    EXPECT_EQ(shaped.mirrored[0], 1) << "x, given in device memory, is copied for the host layer";
}

TEST(Placement, NonZeroAndNmsRunOnTheDeviceAndTheirCountsAreCopiedToTheHost)
{
    // 0 non-zero(x) -> i, count n (hidden);  1 constant -> m;  2 nms(b, s, m) -> rows, count k;  3 abs(i) -> y.
    EngineModel model;
    model.backend = PlanBackend::kCUDA;
    model.tensors
        = {tensor("x", DataType::kFLOAT, -1, true), tensor("i", DataType::kINT64, 0), tensor("n", DataType::kINT64, 0),
            tensor("b", DataType::kFLOAT, -1, true), tensor("s", DataType::kFLOAT, -1, true),
            tensor("m", DataType::kINT32, 1), tensor("rows", DataType::kINT32, 2, false, true),
            tensor("k", DataType::kINT32, 2), tensor("y", DataType::kINT64, 3, false, true)};
    model.layers.push_back(layer(NonZeroParams{DataType::kINT64}, {0}, {1, 2}));
    model.layers.push_back(layer(ConstantParams{}, {}, {5}));
    model.layers.push_back(layer(NMSParams{}, {3, 4, 5}, {6, 7}));
    model.layers.push_back(layer(UnaryParams{nvinfer1::UnaryOperation::kABS}, {1}, {8}));
    model.symbols.push_back(SymbolRecord{"nz.count", SymbolKind::kSIZE_TENSOR, 2, 0});
    model.symbols.push_back(SymbolRecord{"nms.count", SymbolKind::kSIZE_TENSOR, 7, 0});
    Placement const placement = placeLayers(model);
    EXPECT_EQ(placement.layers[0], Side::kDEVICE);
    EXPECT_EQ(placement.layers[2], Side::kDEVICE);
    EXPECT_EQ(placement.layers[1], Side::kHOST) << "MaxOutputBoxesPerClass is read as a value on the host";
    EXPECT_EQ(placement.mirrored[2], 1) << "the non-zero's count binds a symbol: the host reads it";
    EXPECT_EQ(placement.mirrored[7], 1) << "so does the NMS's";
    EXPECT_EQ(placement.mirrored[1], 0);
}

} // namespace
} // namespace kiln
