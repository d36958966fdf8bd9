// SPDX-License-Identifier: Apache-2.0
// Where a CUDA engine runs each layer and keeps each tensor (placeLayers, runtime/executor.h), on hand-made engine
// models: shape arithmetic on the host, data on the device, and the mirrors between. Also which layers run under which
// branch of an if-conditional (findBranches, runtime/branches.h). Needs no GPU.
#include "runtime/branches.h"
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

TEST(Placement, ShapeValuesArePrecomputedOnEitherBackend)
{
    // Every layer of d's computation reads only x's extents and constants; tanh and the reshape read x's data.
    std::vector<uint8_t> const expected{1, 1, 1, 1, 1, 0, 0};
    EXPECT_EQ(placeLayers(reshapeByShape(PlanBackend::kCUDA)).precomputed, expected);
    EXPECT_EQ(placeLayers(reshapeByShape(PlanBackend::kHOST)).precomputed, expected);
}

TEST(Placement, AShapeValueReadOnBothSidesIsComputedOnTheHostAndCopiedToTheDevice)
{
    // g is also added to itself on the device: the gather runs on the host (its output is read as values, and
    // depends on x's extents alone), and g gets a device copy, written once per set of input shapes.
    EngineModel model = reshapeByShape(PlanBackend::kCUDA);
    model.tensors.push_back(tensor("gf", DataType::kINT64, 7, false, true));
    model.layers.push_back(layer(ElementWiseParams{nvinfer1::ElementWiseOperation::kSUM}, {3, 3}, {8}));
    model.layers[6].params = ShuffleParams{};
    Placement const placement = placeLayers(model);
    EXPECT_EQ(placement.layers[7], Side::kDEVICE);
    EXPECT_EQ(placement.layers[2], Side::kHOST);
    EXPECT_EQ(placement.precomputed[2], 1);
    EXPECT_EQ(placement.precomputed[7], 0) << "gf is read only as data on the device";
    EXPECT_EQ(placement.tensors[3], Side::kHOST);
    EXPECT_EQ(placement.mirrored[3], 1) << "the sum on the device reads g from its device copy";
}

TEST(Placement, AConstantReadAsValuesAndAsDataIsReadOnTheHostFromThePlan)
{
    // BERT's folded Range: a constant r read as a reshape's dimensions (values) and added to x on the device.
    //   0 constant -> r;  1 shuffle(x, r) -> y (output);  2 sum(x, r) -> z (output).
    EngineModel model;
    model.backend = PlanBackend::kCUDA;
    model.tensors = {tensor("x", DataType::kINT64, -1, true), tensor("r", DataType::kINT64, 0),
        tensor("y", DataType::kINT64, 1, false, true), tensor("z", DataType::kINT64, 2, false, true)};
    model.layers.push_back(layer(ConstantParams{}, {}, {1}));
    model.layers.push_back(layer(ShuffleParams{}, {0, 1}, {2}));
    model.layers.push_back(layer(ElementWiseParams{nvinfer1::ElementWiseOperation::kSUM}, {0, 1}, {3}));
    Placement const placement = placeLayers(model);
    EXPECT_EQ(placement.layers, (std::vector<Side>{Side::kHOST, Side::kDEVICE, Side::kDEVICE}));
    EXPECT_EQ(placement.precomputed, (std::vector<uint8_t>{1, 0, 0}));
    EXPECT_EQ(placement.tensors[1], Side::kHOST);
    EXPECT_EQ(placement.mirrored[1], 1) << "the sum reads r on the device (the engine's device weights)";
}

TEST(Placement, AShapeLayerWhoseResultOnlyTheDeviceReadsIsPrecomputed)
{
    // BERT's position ids: x's shape added on the device to x (as data). The Shape layer runs on the host whatever
    // reads it; it is computed once per set of input shapes and its device copy written once, not on every enqueue
    // (which would keep enqueueV3 from being replayed: runtime/executor.h, "Replay").
    //   0 shape(x) -> s;  1 sum(x, s) -> z (output).
    EngineModel model;
    model.backend = PlanBackend::kCUDA;
    model.tensors = {tensor("x", DataType::kINT64, -1, true), tensor("s", DataType::kINT64, 0),
        tensor("z", DataType::kINT64, 1, false, true)};
    model.layers.push_back(layer(ShapeParams{}, {0}, {1}));
    model.layers.push_back(layer(ElementWiseParams{nvinfer1::ElementWiseOperation::kSUM}, {0, 1}, {2}));
    Placement const placement = placeLayers(model);
    EXPECT_EQ(placement.layers, (std::vector<Side>{Side::kHOST, Side::kDEVICE}));
    EXPECT_EQ(placement.precomputed, (std::vector<uint8_t>{1, 0}));
    EXPECT_EQ(placement.mirrored[1], 1) << "the sum reads s from its device copy";
}

TEST(Placement, SmallShapeValuesThatOnlyTheDeviceReadsArePrecomputed)
{
    // BERT's position ids and slice bounds: arithmetic on x's extents that only device layers read. When its size at
    // the profiles' kMAX inputs is known and small, it is computed on the host once per set of input shapes and copied
    // once, instead of a kernel on every enqueue; when large or unknown, it stays a device layer.
    //   0 shape(x) -> s;  1 constant -> c;  2 sum(s, c) -> u;  3 sum(x, u) -> z (output).
    EngineModel model;
    model.backend = PlanBackend::kCUDA;
    model.tensors
        = {tensor("x", DataType::kINT64, -1, true), tensor("s", DataType::kINT64, 0), tensor("c", DataType::kINT64, 1),
            tensor("u", DataType::kINT64, 2), tensor("z", DataType::kINT64, 3, false, true)};
    model.layers.push_back(layer(ShapeParams{}, {0}, {1}));
    model.layers.push_back(layer(ConstantParams{}, {}, {2}));
    model.layers.push_back(layer(ElementWiseParams{nvinfer1::ElementWiseOperation::kSUM}, {1, 2}, {3}));
    model.layers.push_back(layer(ElementWiseParams{nvinfer1::ElementWiseOperation::kSUM}, {0, 3}, {4}));

    std::vector<int64_t> bytes{-1, 8, 8, 8, -1};
    Placement const small = placeLayers(model, bytes);
    EXPECT_EQ(small.precomputed, (std::vector<uint8_t>{1, 1, 1, 0}));
    EXPECT_EQ(small.layers, (std::vector<Side>{Side::kHOST, Side::kHOST, Side::kHOST, Side::kDEVICE}));
    EXPECT_EQ(small.tensors[3], Side::kHOST);
    EXPECT_EQ(small.mirrored[3], 1) << "the sum on the device reads u from its device copy";
    EXPECT_EQ(small.mirrored[1], 0) << "s is read on the host only";

    bytes[3] = kPrecomputedBytes + 1;
    Placement const large = placeLayers(model, bytes);
    EXPECT_EQ(large.precomputed, (std::vector<uint8_t>{1, 0, 0, 0}));
    EXPECT_EQ(large.layers[2], Side::kDEVICE);
    EXPECT_EQ(large.mirrored[1], 1) << "the sum on the device reads s from its device copy";
    EXPECT_EQ(placeLayers(model).precomputed, large.precomputed) << "sizes not known: as large";

    // A host engine computes everything on the host anyway; only values the host reads are precomputed there.
    model.backend = PlanBackend::kHOST;
    bytes[3] = 8;
    EXPECT_EQ(placeLayers(model, bytes).precomputed, (std::vector<uint8_t>{0, 0, 0, 0}));
}

TEST(Placement, ValuesComputedFromDataAreNotPrecomputed)
{
    // The reshape's dimensions come from x's data (a reduce): they are computed on every run, from x copied to the
    // host.
    //   0 reduce(x) -> d;  1 shuffle(x, d) -> y (output).  And a non-output constant read only on the device is not.
    EngineModel model;
    model.backend = PlanBackend::kCUDA;
    model.tensors = {tensor("x", DataType::kINT64, -1, true), tensor("d", DataType::kINT64, 0),
        tensor("y", DataType::kINT64, 1, false, true), tensor("w", DataType::kINT64, 2),
        tensor("z", DataType::kINT64, 3, false, true)};
    model.layers.push_back(layer(ReduceParams{nvinfer1::ReduceOperation::kSUM, 1U, true}, {0}, {1}));
    model.layers.push_back(layer(ShuffleParams{}, {0, 1}, {2}));
    model.layers.push_back(layer(ConstantParams{}, {}, {3}));
    model.layers.push_back(layer(ElementWiseParams{nvinfer1::ElementWiseOperation::kSUM}, {0, 3}, {4}));
    Placement const placement = placeLayers(model, std::vector<int64_t>(5, 8));
    EXPECT_EQ(placement.precomputed, (std::vector<uint8_t>{0, 0, 0, 0}));
    EXPECT_EQ(placement.layers[0], Side::kHOST) << "only the host reads d";
    EXPECT_EQ(placement.mirrored[0], 1) << "x is copied to the host (with a synchronisation) on every run";
    EXPECT_EQ(placement.layers[2], Side::kDEVICE) << "the constant stays the engine's device weights";
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

//! flag ? exp(x) : (a constant k, made before the condition, added to x), then y = out + x:
//!   0 constant -> k;  1 condition(flag) -> c;  2 exp(x) -> e;  3 sum(x, k) -> f;  4 output(e, f, c) -> o;
//!   5 sum(o, x) -> y (output).
EngineModel conditional(PlanBackend backend)
{
    EngineModel model;
    model.backend = backend;
    model.tensors = {tensor("x", DataType::kFLOAT, -1, true), tensor("flag", DataType::kBOOL, -1, true),
        tensor("c", DataType::kBOOL, 1), tensor("k", DataType::kFLOAT, 0), tensor("e", DataType::kFLOAT, 2),
        tensor("f", DataType::kFLOAT, 3), tensor("o", DataType::kFLOAT, 4),
        tensor("y", DataType::kFLOAT, 5, false, true)};
    model.layers.push_back(layer(ConstantParams{}, {}, {3}));
    model.layers.push_back(layer(ConditionParams{}, {1}, {2}));
    model.layers.push_back(layer(UnaryParams{nvinfer1::UnaryOperation::kEXP}, {0}, {4}));
    model.layers.push_back(layer(ElementWiseParams{nvinfer1::ElementWiseOperation::kSUM}, {0, 3}, {5}));
    model.layers.push_back(layer(IfConditionalOutputParams{}, {4, 5, 2}, {6}));
    model.layers.push_back(layer(ElementWiseParams{nvinfer1::ElementWiseOperation::kSUM}, {6, 0}, {7}));
    return model;
}

TEST(Placement, AConditionIsCopiedToTheHostWhereTheConditionLayerRuns)
{
    Placement const placement = placeLayers(conditional(PlanBackend::kCUDA));
    std::vector<Side> const expectedLayers{
        Side::kDEVICE, Side::kHOST, Side::kDEVICE, Side::kDEVICE, Side::kDEVICE, Side::kDEVICE};
    EXPECT_EQ(placement.layers, expectedLayers);
    // The application's flag is device memory, read by the condition layer on the host: mirrored.
    EXPECT_EQ(placement.mirrored[1], 1U);
    EXPECT_EQ(placement.tensors[2], Side::kHOST);
    EXPECT_EQ(placement.mirrored[2], 0U);
}

TEST(Branches, EachBranchsLayersRunUnderItsConditionAndTheRestAlways)
{
    EngineModel const model = conditional(PlanBackend::kHOST);
    Branches const branches = findBranches(model);
    ASSERT_EQ(branches.nodes.size(), 2U);
    ASSERT_EQ(branches.layers.size(), 6U);
    EXPECT_EQ(branches.layers[1], -1); // the condition
    EXPECT_EQ(branches.layers[4], -1); // the output layer
    EXPECT_EQ(branches.layers[5], -1);
    int32_t const onTrue = branches.layers[2];
    int32_t const onFalse = branches.layers[3];
    ASSERT_GE(onTrue, 0);
    ASSERT_GE(onFalse, 0);
    EXPECT_EQ(branches.nodes[static_cast<std::size_t>(onTrue)], (BranchNode{2, true, -1}));
    EXPECT_EQ(branches.nodes[static_cast<std::size_t>(onFalse)], (BranchNode{2, false, -1}));
    // The constant runs before the condition is known: it runs whatever the condition (harmless, only work).
    EXPECT_EQ(branches.layers[0], -1);
}

TEST(Branches, ALayerReadByBothBranchesRunsInTheEnclosingBranch)
{
    // outer ? (inner ? exp(t) : -t) : |x|, with t = tanh(x) read by both inner branches:
    //   0 condition(outerFlag) -> co;  1 condition(innerFlag) -> ci;  2 tanh(x) -> t;  3 exp(t) -> e;  4 neg(t) -> n;
    //   5 output(e, n, ci) -> i;  6 abs(x) -> a;  7 output(i, a, co) -> y (output).
    EngineModel model;
    model.tensors = {tensor("x", DataType::kFLOAT, -1, true), tensor("outer", DataType::kBOOL, -1, true),
        tensor("inner", DataType::kBOOL, -1, true), tensor("co", DataType::kBOOL, 0), tensor("ci", DataType::kBOOL, 1),
        tensor("t", DataType::kFLOAT, 2), tensor("e", DataType::kFLOAT, 3), tensor("n", DataType::kFLOAT, 4),
        tensor("i", DataType::kFLOAT, 5), tensor("a", DataType::kFLOAT, 6),
        tensor("y", DataType::kFLOAT, 7, false, true)};
    model.layers.push_back(layer(ConditionParams{0}, {1}, {3}));
    model.layers.push_back(layer(ConditionParams{1}, {2}, {4}));
    model.layers.push_back(layer(ActivationParams{nvinfer1::ActivationType::kTANH}, {0}, {5}));
    model.layers.push_back(layer(UnaryParams{nvinfer1::UnaryOperation::kEXP}, {5}, {6}));
    model.layers.push_back(layer(UnaryParams{nvinfer1::UnaryOperation::kNEG}, {5}, {7}));
    model.layers.push_back(layer(IfConditionalOutputParams{1}, {6, 7, 4}, {8}));
    model.layers.push_back(layer(UnaryParams{nvinfer1::UnaryOperation::kABS}, {0}, {9}));
    model.layers.push_back(layer(IfConditionalOutputParams{0}, {8, 9, 3}, {10}));
    Branches const branches = findBranches(model);
    auto const node = [&](std::size_t l) {
        int32_t const n = branches.layers[l];
        return n < 0 ? BranchNode{} : branches.nodes[static_cast<std::size_t>(n)];
    };
    int32_t const outerTrue = branches.layers[5];
    ASSERT_GE(outerTrue, 0);
    EXPECT_EQ(node(5), (BranchNode{3, true, -1})); // the inner output layer: in the outer true branch
    EXPECT_EQ(node(1), (BranchNode{3, true, -1})); // so is the inner condition
    EXPECT_EQ(node(2), (BranchNode{3, true, -1})); // tanh, read by both inner branches
    EXPECT_EQ(node(3), (BranchNode{4, true, outerTrue}));
    EXPECT_EQ(node(4), (BranchNode{4, false, outerTrue}));
    EXPECT_EQ(node(6), (BranchNode{3, false, -1}));
    EXPECT_EQ(branches.layers[0], -1);
    EXPECT_EQ(branches.layers[7], -1);
}

TEST(Branches, AnEngineWithoutConditionalsHasNone)
{
    Branches const branches = findBranches(reshapeByShape(PlanBackend::kHOST));
    EXPECT_TRUE(branches.nodes.empty());
    EXPECT_EQ(branches.layers, std::vector<int32_t>(7, -1));
}

} // namespace
} // namespace kiln
