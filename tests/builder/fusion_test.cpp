// SPDX-License-Identifier: Apache-2.0
// The CUDA build's fusions (builder/fusion.h) on hand-made engine models: what is absorbed, what is left alone because
// something else reads the tensor between, and how layers are renumbered.
#include "builder/fusion.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kiln
{
namespace
{

//! A tensor of rank 2 whose shape is expressions 0 and 1.
TensorRecord tensor(std::string name, int32_t producer, bool input = false, bool output = false)
{
    TensorRecord record;
    record.name = std::move(name);
    record.shape = {0, 1};
    record.producer = producer;
    record.isInput = input;
    record.isOutput = output;
    return record;
}

LayerRecord layer(std::string name, LayerParams params, std::vector<int32_t> inputs, std::vector<int32_t> outputs)
{
    LayerRecord record;
    record.name = std::move(name);
    record.type = layerTypeOf(params);
    record.params = std::move(params);
    record.inputs = std::move(inputs);
    record.outputs = std::move(outputs);
    return record;
}

//! x, b -> matmul(x, x) -> t1; t1 + b -> t2; relu(t2) -> y; y * y -> z (the output).
EngineModel matmulBiasRelu()
{
    EngineModel model;
    model.backend = PlanBackend::kCUDA;
    model.exprs = {ExprRecord{DimExpr::Kind::kCONSTANT, 4}, ExprRecord{DimExpr::Kind::kCONSTANT, 4}};
    model.tensors = {tensor("x", -1, true), tensor("b", -1, true), tensor("t1", 0), tensor("t2", 1), tensor("y", 2),
        tensor("z", 3, false, true)};
    model.layers.push_back(layer("mm", MatrixMultiplyParams{}, {0, 0}, {2}));
    model.layers.push_back(layer("bias", ElementWiseParams{nvinfer1::ElementWiseOperation::kSUM}, {2, 1}, {3}));
    model.layers.push_back(layer("relu", ActivationParams{nvinfer1::ActivationType::kRELU}, {3}, {4}));
    model.layers.push_back(layer("square", ElementWiseParams{nvinfer1::ElementWiseOperation::kPROD}, {4, 4}, {5}));
    model.assertions = {AssertionRecord{0, "bias broadcasts", 1}, AssertionRecord{0, "square", 3}};
    return model;
}

TEST(Fusion, AbsorbsABiasAndAnActivationIntoAMatrixMultiply)
{
    EngineModel model = matmulBiasRelu();
    EXPECT_EQ(fuseEpilogues(model), 2);
    ASSERT_EQ(model.layers.size(), 2U);
    LayerRecord const& mm = model.layers[0];
    EXPECT_EQ(mm.name, "mm");
    EXPECT_EQ(mm.inputs, (std::vector<int32_t>{0, 0, 1}));
    EXPECT_EQ(mm.outputs, (std::vector<int32_t>{4}));
    ASSERT_TRUE(mm.epilogue.has_value());
    EXPECT_EQ(mm.epilogue->type, nvinfer1::ActivationType::kRELU);
    EXPECT_EQ(model.layers[1].name, "square");
    // The tensors between are left unmade; the others are made by their layer's new index.
    EXPECT_EQ(model.tensors[2].producer, -1);
    EXPECT_EQ(model.tensors[3].producer, -1);
    EXPECT_EQ(model.tensors[4].producer, 0);
    EXPECT_EQ(model.tensors[5].producer, 1);
    EXPECT_EQ(model.assertions[0].layer, 0) << "an absorbed layer's assertion moves to the layer that absorbed it";
    EXPECT_EQ(model.assertions[1].layer, 1);
}

TEST(Fusion, MovesABiasConstantMadeAfterTheMatrixMultiplyBeforeIt)
{
    // x -> matmul -> t1; constant -> b; t1 + b -> y (the output): the constant comes first once fused.
    EngineModel model;
    model.backend = PlanBackend::kCUDA;
    model.tensors = {tensor("x", -1, true), tensor("t1", 0), tensor("b", 1), tensor("y", 2, false, true)};
    model.layers.push_back(layer("mm", MatrixMultiplyParams{}, {0, 0}, {1}));
    model.layers.push_back(layer("bias", ConstantParams{}, {}, {2}));
    model.layers.push_back(layer("add", ElementWiseParams{nvinfer1::ElementWiseOperation::kSUM}, {1, 2}, {3}));
    EXPECT_EQ(fuseEpilogues(model), 1);
    ASSERT_EQ(model.layers.size(), 2U);
    EXPECT_EQ(model.layers[0].name, "bias");
    EXPECT_EQ(model.layers[1].name, "mm");
    EXPECT_EQ(model.layers[1].inputs, (std::vector<int32_t>{0, 0, 2}));
    EXPECT_EQ(model.tensors[2].producer, 0);
    EXPECT_EQ(model.tensors[3].producer, 1);
}

TEST(Fusion, LeavesABiasMadeLaterFromOtherTensors)
{
    // x -> matmul -> t1; constant -> c; reshape(c) -> b; t1 + b -> y: b is made after the matrix multiply by a layer
    // with inputs, so the bias stays an element-wise sum.
    EngineModel model;
    model.backend = PlanBackend::kCUDA;
    model.tensors
        = {tensor("x", -1, true), tensor("t1", 0), tensor("c", 1), tensor("b", 2), tensor("y", 3, false, true)};
    model.layers.push_back(layer("mm", MatrixMultiplyParams{}, {0, 0}, {1}));
    model.layers.push_back(layer("c", ConstantParams{}, {}, {2}));
    model.layers.push_back(layer("reshape", ShuffleParams{}, {2}, {3}));
    model.layers.push_back(layer("add", ElementWiseParams{nvinfer1::ElementWiseOperation::kSUM}, {1, 3}, {4}));
    EXPECT_EQ(fuseEpilogues(model), 0);
    EXPECT_EQ(model.layers.size(), 4U);
    EXPECT_EQ(model.layers[0].inputs.size(), 2U);
}

TEST(Fusion, MovesAConstantSharedByTwoMatrixMultipliesOnce)
{
    // Two matrix multiplies, each followed by adding the same constant made after both.
    EngineModel model;
    model.backend = PlanBackend::kCUDA;
    model.tensors = {tensor("x", -1, true), tensor("t1", 0), tensor("t2", 1), tensor("b", 2),
        tensor("y1", 3, false, true), tensor("y2", 4, false, true)};
    model.layers.push_back(layer("mm1", MatrixMultiplyParams{}, {0, 0}, {1}));
    model.layers.push_back(layer("mm2", MatrixMultiplyParams{}, {0, 0}, {2}));
    model.layers.push_back(layer("bias", ConstantParams{}, {}, {3}));
    model.layers.push_back(layer("add1", ElementWiseParams{nvinfer1::ElementWiseOperation::kSUM}, {1, 3}, {4}));
    model.layers.push_back(layer("add2", ElementWiseParams{nvinfer1::ElementWiseOperation::kSUM}, {2, 3}, {5}));
    EXPECT_EQ(fuseEpilogues(model), 2);
    ASSERT_EQ(model.layers.size(), 3U);
    EXPECT_EQ(model.layers[0].name, "bias");
    EXPECT_EQ(model.layers[1].name, "mm1");
    EXPECT_EQ(model.layers[2].name, "mm2");
    EXPECT_EQ(model.tensors[3].producer, 0);
    EXPECT_EQ(model.tensors[4].producer, 1);
    EXPECT_EQ(model.tensors[5].producer, 2);
}

TEST(Fusion, LeavesATensorThatSomethingElseReads)
{
    EngineModel output = matmulBiasRelu();
    output.tensors[2].isOutput = true; // t1 is a network output: nothing is absorbed.
    EXPECT_EQ(fuseEpilogues(output), 0);
    EXPECT_EQ(output.layers.size(), 4U);

    EngineModel reread = matmulBiasRelu();
    reread.layers[3].inputs = {4, 3}; // t2 is read by the last layer too: only the bias is absorbed.
    EXPECT_EQ(fuseEpilogues(reread), 1);
    ASSERT_EQ(reread.layers.size(), 3U);
    EXPECT_FALSE(reread.layers[0].epilogue.has_value());
    EXPECT_EQ(reread.layers[0].outputs, (std::vector<int32_t>{3}));

    EngineModel symbol = matmulBiasRelu();
    symbol.symbols.push_back(SymbolRecord{"t1.v0", SymbolKind::kSHAPE_VALUE, 2, 0});
    EXPECT_EQ(fuseEpilogues(symbol), 0) << "a tensor whose values bind a symbol is read by the executor";

    EngineModel quantized = matmulBiasRelu();
    for (TensorRecord& t : quantized.tensors)
    {
        t.type = DataType::kINT8;
    }
    EXPECT_EQ(fuseEpilogues(quantized), 0) << "an epilogue would skip the intermediate quantization";

    EngineModel reshaped = matmulBiasRelu();
    reshaped.tensors[3].shape = {1, 0}; // the sum broadcasts the product to another shape
    EXPECT_EQ(fuseEpilogues(reshaped), 0);
}

TEST(Fusion, AbsorbsAnActivationIntoAConvolution)
{
    EngineModel model;
    model.backend = PlanBackend::kCUDA;
    model.tensors = {tensor("x", -1, true), tensor("c", 0), tensor("y", 1, false, true)};
    model.layers.push_back(layer("conv", ConvolutionParams{}, {0}, {1}));
    model.layers.push_back(layer("clip", ActivationParams{nvinfer1::ActivationType::kCLIP, 0.F, 6.F}, {1}, {2}));
    EXPECT_EQ(fuseEpilogues(model), 1);
    ASSERT_EQ(model.layers.size(), 1U);
    ASSERT_TRUE(model.layers[0].epilogue.has_value());
    EXPECT_EQ(model.layers[0].epilogue->beta, 6.F);
    EXPECT_EQ(model.layers[0].outputs, (std::vector<int32_t>{2}));
    EXPECT_EQ(model.tensors[2].producer, 0);
}

} // namespace
} // namespace kiln
