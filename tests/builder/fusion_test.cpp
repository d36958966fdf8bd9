// SPDX-License-Identifier: Apache-2.0
// The CUDA build's fusions (builder/fusion.h) on hand-made engine models: what is absorbed, what is left alone because
// something else reads the tensor between, and how layers are renumbered.
#include "builder/fusion.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
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
    // b has the product's shape: it is added as the residual (cuBLASLt's C), the bias slot left empty.
    EXPECT_EQ(mm.inputs, (std::vector<int32_t>{0, 0, kNoTensor, 1}));
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

TEST(Fusion, FoldsAScalarFactorABiasAndAResidualIntoAMatrixMultiply)
{
    // x, r -> matmul(x, x) -> t1; t1 * c (one-element constant) -> t2; t2 + b (a [1, 4] constant) -> t3;
    // r + t3 -> t4; relu(t4) -> y.
    static float const kFactor = 0.125F;
    EngineModel model;
    model.backend = PlanBackend::kCUDA;
    model.exprs = {ExprRecord{DimExpr::Kind::kCONSTANT, 4}, ExprRecord{DimExpr::Kind::kCONSTANT, 4},
        ExprRecord{DimExpr::Kind::kCONSTANT, 1}};
    model.tensors = {tensor("x", -1, true), tensor("r", -1, true), tensor("t1", 0), tensor("c", 1), tensor("t2", 2),
        tensor("b", 3), tensor("t3", 4), tensor("t4", 5), tensor("y", 6, false, true)};
    model.tensors[3].shape = {2, 2};
    model.tensors[5].shape = {2, 1};
    model.layers.push_back(layer("mm", MatrixMultiplyParams{}, {0, 0}, {2}));
    model.layers.push_back(
        layer("c", ConstantParams{Dims{2, {1, 1}}, Weights{DataType::kFLOAT, &kFactor, 1}}, {}, {3}));
    model.layers.push_back(layer("scale", ElementWiseParams{nvinfer1::ElementWiseOperation::kPROD}, {3, 2}, {4}));
    model.layers.push_back(layer("b", ConstantParams{}, {}, {5}));
    model.layers.push_back(layer("bias", ElementWiseParams{nvinfer1::ElementWiseOperation::kSUM}, {4, 5}, {6}));
    model.layers.push_back(layer("residual", ElementWiseParams{nvinfer1::ElementWiseOperation::kSUM}, {1, 6}, {7}));
    model.layers.push_back(layer("relu", ActivationParams{nvinfer1::ActivationType::kRELU}, {7}, {8}));
    EXPECT_EQ(fuseEpilogues(model), 4);
    EXPECT_EQ(removeUnreadLayers(model), 1) << "the factor's constant is read by nothing any more";
    ASSERT_EQ(model.layers.size(), 2U);
    EXPECT_EQ(model.layers[0].name, "b") << "the bias constant moves before the matrix multiply";
    LayerRecord const& mm = model.layers[1];
    EXPECT_EQ(mm.name, "mm");
    EXPECT_EQ(mm.scale, kFactor);
    EXPECT_EQ(mm.inputs, (std::vector<int32_t>{0, 0, 5, 1}));
    ASSERT_TRUE(mm.epilogue.has_value());
    EXPECT_EQ(mm.outputs, (std::vector<int32_t>{8}));
    EXPECT_EQ(model.tensors[3].producer, -1);
    EXPECT_EQ(model.tensors[5].producer, 0);
    EXPECT_EQ(model.tensors[8].producer, 1);

    // A factor of more than one element is not a scale.
    static float const kTwo[2] = {2.F, 3.F};
    EngineModel vector;
    vector.backend = PlanBackend::kCUDA;
    vector.exprs = model.exprs;
    vector.tensors = {tensor("x", -1, true), tensor("t1", 0), tensor("v", 1), tensor("y", 2, false, true)};
    vector.tensors[2].shape = {2, 1};
    vector.layers.push_back(layer("mm", MatrixMultiplyParams{}, {0, 0}, {1}));
    vector.layers.push_back(layer("v", ConstantParams{Dims{2, {1, 4}}, Weights{DataType::kFLOAT, kTwo, 2}}, {}, {2}));
    vector.layers.push_back(layer("times", ElementWiseParams{nvinfer1::ElementWiseOperation::kPROD}, {1, 2}, {3}));
    EXPECT_EQ(fuseEpilogues(vector), 0);
    EXPECT_EQ(vector.layers[0].scale, 1.F);
}

//! Layer norm's tail and its variance input, from point-wise layers over [4, 4] tensors (expressions 0 and 1; 2 is
//! the constant 1): c = x - m; s = c * c (read by a reduce); n = c / sqrt(v + eps); y = n * g + beta (the output).
EngineModel layerNormTail()
{
    EngineModel model;
    model.backend = PlanBackend::kCUDA;
    model.exprs = {ExprRecord{DimExpr::Kind::kCONSTANT, 4}, ExprRecord{DimExpr::Kind::kCONSTANT, 4},
        ExprRecord{DimExpr::Kind::kCONSTANT, 1}};
    using Op = nvinfer1::ElementWiseOperation;
    model.tensors = {tensor("x", -1, true), tensor("m", -1, true), tensor("v", -1, true), tensor("eps", -1, true),
        tensor("g", -1, true), tensor("beta", -1, true), tensor("c", 0), tensor("s", 1), tensor("sum", 2, false, true),
        tensor("e", 3), tensor("d", 4), tensor("n", 5), tensor("y", 6), tensor("out", 7, false, true)};
    for (int32_t broadcast : {1, 2}) // m and v: [4, 1]
    {
        model.tensors[static_cast<std::size_t>(broadcast)].shape = {0, 2};
    }
    model.tensors[3].shape = {2, 2}; // eps: [1, 1]
    model.tensors[8].shape = {0, 2};
    model.layers.push_back(layer("c", ElementWiseParams{Op::kSUB}, {0, 1}, {6}));
    model.layers.push_back(layer("s", ElementWiseParams{Op::kPROD}, {6, 6}, {7}));
    model.layers.push_back(layer("sum", ReduceParams{}, {7}, {8}));
    model.layers.push_back(layer("e", ElementWiseParams{Op::kSUM}, {2, 3}, {9}));
    model.layers.push_back(layer("d", UnaryParams{nvinfer1::UnaryOperation::kSQRT}, {9}, {10}));
    model.layers.push_back(layer("n", ElementWiseParams{Op::kDIV}, {6, 10}, {11}));
    model.layers.push_back(layer("y", ElementWiseParams{Op::kPROD}, {11, 4}, {12}));
    model.layers.push_back(layer("out", ElementWiseParams{Op::kSUM}, {12, 5}, {13}));
    model.assertions = {AssertionRecord{0, "d", 4}, AssertionRecord{0, "sum", 2}};
    return model;
}

TEST(Fusion, RemovesTheLayersWhoseResultsNothingReads)
{
    // x -> Shape -> Gather(index) -> Concat: the shape arithmetic of a reshape that a fusion absorbed, read by
    // nothing; a plugin and a layer with an assertion, also unread, stay; relu(x) is the output.
    EngineModel model;
    model.backend = PlanBackend::kCUDA;
    model.exprs = {ExprRecord{DimExpr::Kind::kCONSTANT, 4}, ExprRecord{DimExpr::Kind::kCONSTANT, 4}};
    model.tensors = {tensor("x", -1, true), tensor("s", 0), tensor("index", 1), tensor("g", 2), tensor("cat", 3),
        tensor("p", 4), tensor("y", 5, false, true), tensor("checked", 6)};
    model.layers.push_back(layer("shape", ShapeParams{}, {0}, {1}));
    model.layers.push_back(layer("index", ConstantParams{}, {}, {2}));
    model.layers.push_back(layer("gather", GatherParams{}, {1, 2}, {3}));
    model.layers.push_back(layer("concat", ConcatenationParams{}, {3, 3}, {4}));
    LayerRecord plugin = layer("plugin", IdentityParams{}, {0}, {5});
    plugin.type = LayerType::kPLUGIN_V3;
    model.layers.push_back(std::move(plugin));
    model.layers.push_back(layer("relu", ActivationParams{nvinfer1::ActivationType::kRELU}, {0}, {6}));
    model.layers.push_back(layer("checked", IdentityParams{}, {0}, {7}));
    model.assertions = {AssertionRecord{0, "checked", 6}};
    EXPECT_EQ(removeUnreadLayers(model), 4);
    std::vector<std::string> names;
    for (LayerRecord const& kept : model.layers)
    {
        names.push_back(kept.name);
    }
    EXPECT_EQ(names, (std::vector<std::string>{"plugin", "relu", "checked"}));
    EXPECT_EQ(model.assertions[0].layer, 2) << "the assertion follows its layer's new position";
    EXPECT_EQ(model.tensors[6].producer, 1);
    EXPECT_EQ(model.tensors[3].producer, -1) << "the tensors of removed layers are left unmade";
}

TEST(Fusion, MergesLayersThatComputeWhatAnEarlierLayerComputes)
{
    // Three constants (two of one value), each added to x, each sum read by a ReLU whose result is an output: the
    // second constant and its sum duplicate the first's; the third is another value. Then the exceptions: a random
    // fill and its duplicate, two equal sums read by a plugin, and an equal sum that is itself an output.
    EngineModel model;
    model.backend = PlanBackend::kCUDA;
    model.exprs = {ExprRecord{DimExpr::Kind::kCONSTANT, 2}, ExprRecord{DimExpr::Kind::kCONSTANT, 2}};
    std::array<float, 4> const one{1.F, 2.F, 3.F, 4.F};
    std::array<float, 4> const same = one;
    std::array<float, 4> const other{1.F, 2.F, 3.F, 5.F};
    auto const constant = [](std::array<float, 4> const& values) {
        return ConstantParams{Dims{2, {2, 2}}, nvinfer1::Weights{DataType::kFLOAT, values.data(), 4}};
    };
    auto const sum = ElementWiseParams{nvinfer1::ElementWiseOperation::kSUM};
    auto const relu = ActivationParams{nvinfer1::ActivationType::kRELU};
    auto const add
        = [&](std::string const& name, LayerParams params, std::vector<int32_t> inputs, bool output = false) {
              auto const index = static_cast<int32_t>(model.tensors.size());
              model.tensors.push_back(tensor(name, static_cast<int32_t>(model.layers.size()), false, output));
              model.layers.push_back(layer(name, std::move(params), std::move(inputs), {index}));
              return index;
          };
    model.tensors.push_back(tensor("x", -1, true));
    int32_t const c1 = add("c1", constant(one), {});
    int32_t const c2 = add("c2", constant(same), {});
    int32_t const c3 = add("c3", constant(other), {});
    int32_t const s1 = add("s1", sum, {0, c1});
    int32_t const s2 = add("s2", sum, {0, c2});
    int32_t const s3 = add("s3", sum, {0, c3});
    add("r1", relu, {s1}, true);
    int32_t const r2 = add("r2", relu, {s2}, true);
    add("r3", relu, {s3}, true);
    FillParams random{Dims{2, {2, 2}}, nvinfer1::FillOperation::kRANDOM_UNIFORM};
    int32_t const f1 = add("f1", random, {});
    int32_t const f2 = add("f2", random, {});
    add("rf", sum, {f1, f2}, true);
    int32_t const p1 = add("p1", sum, {0, 0});
    int32_t const p2 = add("p2", sum, {0, 0});
    LayerRecord plugin = layer("plugin", IdentityParams{}, {p1, p2}, {});
    plugin.type = LayerType::kPLUGIN_V3;
    model.tensors.push_back(tensor("plugin out", static_cast<int32_t>(model.layers.size()), false, true));
    plugin.outputs = {static_cast<int32_t>(model.tensors.size() - 1)};
    model.layers.push_back(std::move(plugin));
    int32_t const pinned = add("pinned", sum, {0, c1}, true);

    EXPECT_EQ(mergeDuplicateLayers(model), 2) << "c2 into c1, then s2 into s1";
    EXPECT_EQ(model.layers[static_cast<std::size_t>(model.tensors[static_cast<std::size_t>(r2)].producer)].inputs,
        std::vector<int32_t>{s1});
    EXPECT_EQ(model.layers[static_cast<std::size_t>(model.tensors[static_cast<std::size_t>(pinned)].producer)].inputs,
        (std::vector<int32_t>{0, c1}));
    EXPECT_EQ(removeUnreadLayers(model), 2);
    std::vector<std::string> names;
    for (LayerRecord const& kept : model.layers)
    {
        names.push_back(kept.name);
    }
    EXPECT_EQ(names,
        (std::vector<std::string>{
            "c1", "c3", "s1", "s3", "r1", "r2", "r3", "f1", "f2", "rf", "p1", "p2", "plugin", "pinned"}));
}

TEST(Fusion, PacksTheProjectionsOfAnAttentionIntoOneProduct)
{
    // x [2, 4] times Wq, Wk, Wv [4, 2] (+ biases [1, 2]) read by a fused attention: one product by [4, 6] + [1, 6].
    EngineModel model;
    model.backend = PlanBackend::kCUDA;
    model.exprs = {ExprRecord{DimExpr::Kind::kCONSTANT, 2}, ExprRecord{DimExpr::Kind::kCONSTANT, 4},
        ExprRecord{DimExpr::Kind::kCONSTANT, 1}};
    std::array<std::array<float, 8>, 3> w{};
    std::array<std::array<float, 2>, 3> b{};
    for (std::size_t m = 0; m < 3; ++m)
    {
        for (std::size_t i = 0; i < 8; ++i)
        {
            w[m][i] = static_cast<float>(10 * m + i);
        }
        b[m] = {static_cast<float>(100 + 10 * m), static_cast<float>(101 + 10 * m)};
    }
    model.tensors.push_back(tensor("x", -1, true));
    model.tensors[0].shape = {0, 1};
    std::vector<int32_t> projected;
    for (std::size_t m = 0; m < 3; ++m)
    {
        auto const first = static_cast<int32_t>(model.tensors.size());
        auto const layer0 = static_cast<int32_t>(model.layers.size());
        std::string const name(1, "qkv"[m]);
        model.tensors.push_back(tensor("W" + name, layer0));
        model.tensors.back().shape = {1, 0};
        model.tensors.push_back(tensor("b" + name, layer0 + 1));
        model.tensors.back().shape = {2, 0};
        model.tensors.push_back(tensor(name, layer0 + 2));
        model.tensors.back().shape = {0, 0};
        model.layers.push_back(
            layer("W" + name, ConstantParams{Dims{2, {4, 2}}, Weights{DataType::kFLOAT, w[m].data(), 8}}, {}, {first}));
        model.layers.push_back(layer(
            "b" + name, ConstantParams{Dims{2, {1, 2}}, Weights{DataType::kFLOAT, b[m].data(), 2}}, {}, {first + 1}));
        model.layers.push_back(layer(name, MatrixMultiplyParams{}, {0, first, first + 1}, {first + 2}));
        projected.push_back(first + 2);
    }
    model.tensors.push_back(tensor("o", static_cast<int32_t>(model.layers.size()), false, true));
    LayerRecord attention = layer("attention", MatrixMultiplyParams{}, projected, {10});
    attention.fused = FusedKernel{FusedKernel::Kind::kATTENTION, 0.F, 1, 1.F, false, false};
    model.layers.push_back(std::move(attention));

    std::vector<WidenedTensor> widened;
    EXPECT_EQ(fuseQkvProducts(model, widened), 2) << "the key's and the value's products";
    EXPECT_EQ(removeUnreadLayers(model), 4) << "their weights and biases";
    ASSERT_EQ(model.layers.size(), 4U);
    LayerRecord const& product = model.layers[2];
    EXPECT_EQ(product.name, "q");
    LayerRecord const& fused = model.layers[3];
    ASSERT_TRUE(fused.fused.has_value());
    EXPECT_TRUE(fused.fused->packedQkv);
    EXPECT_EQ(fused.inputs, (std::vector<int32_t>{3}));
    EXPECT_EQ(model.exprs[model.tensors[3].shape[1]].value, 6) << "q's tensor holds q, k and v";

    auto const& packedWeights = std::get<ConstantParams>(model.layers[0].params);
    EXPECT_EQ(packedWeights.dims.d[1], 6);
    ASSERT_EQ(packedWeights.weights.count, 24);
    auto const* values = static_cast<float const*>(packedWeights.weights.values);
    for (int64_t r = 0; r < 4; ++r)
    {
        for (int64_t c = 0; c < 6; ++c)
        {
            EXPECT_EQ(values[r * 6 + c], w[static_cast<std::size_t>(c / 2)][static_cast<std::size_t>(r * 2 + c % 2)])
                << "row " << r << " column " << c;
        }
    }
    auto const& packedBias = std::get<ConstantParams>(model.layers[1].params);
    ASSERT_EQ(packedBias.weights.count, 6);
    auto const* bias = static_cast<float const*>(packedBias.weights.values);
    EXPECT_EQ(std::vector<float>(bias, bias + 6), (std::vector<float>{100, 101, 110, 111, 120, 121}));
    ASSERT_EQ(widened.size(), 3U) << "the weights, the bias and the product's output";
    EXPECT_EQ(widened[2].tensor, 3);
    EXPECT_EQ(widened[2].axis, 1);
    EXPECT_EQ(widened[2].factor, 3);
}

TEST(Fusion, LeavesProjectionsThatSomethingElseReads)
{
    EngineModel model;
    model.backend = PlanBackend::kCUDA;
    model.exprs = {ExprRecord{DimExpr::Kind::kCONSTANT, 2}};
    std::array<float, 4> w{1, 2, 3, 4};
    model.tensors = {tensor("x", -1, true)};
    for (int32_t m = 0; m < 3; ++m)
    {
        model.tensors.push_back(tensor("W", 2 * m));
        model.tensors.push_back(tensor("p", 2 * m + 1));
        model.layers.push_back(
            layer("W", ConstantParams{Dims{2, {2, 2}}, Weights{DataType::kFLOAT, w.data(), 4}}, {}, {1 + 2 * m}));
        model.layers.push_back(layer("p", MatrixMultiplyParams{}, {0, 1 + 2 * m}, {2 + 2 * m}));
    }
    model.tensors[6].isOutput = true; // v is also a network output
    model.tensors.push_back(tensor("o", 6, false, true));
    LayerRecord attention = layer("attention", MatrixMultiplyParams{}, {2, 4, 6}, {7});
    attention.fused = FusedKernel{FusedKernel::Kind::kATTENTION, 0.F, 1, 1.F, false, false};
    model.layers.push_back(std::move(attention));
    std::vector<WidenedTensor> widened;
    EXPECT_EQ(fuseQkvProducts(model, widened), 0);
    EXPECT_TRUE(widened.empty());
    EXPECT_FALSE(model.layers.back().fused->packedQkv);
}

TEST(Fusion, FoldsPointwiseChainsIntoPrograms)
{
    using Kind = PointwiseStep::Kind;
    using Op = nvinfer1::ElementWiseOperation;
    EngineModel model = layerNormTail();
    // c is read by s and by n: inlined into both programs. e, d, n and y are inlined into out.
    EXPECT_EQ(fusePointwise(model), 5);
    ASSERT_EQ(model.layers.size(), 3U);
    LayerRecord const& s = model.layers[0];
    EXPECT_EQ(s.name, "s");
    EXPECT_EQ(s.inputs, (std::vector<int32_t>{0, 1}));
    ASSERT_EQ(s.pointwise.size(), 2U);
    EXPECT_EQ(s.pointwise[0], (PointwiseStep{Kind::kELEMENTWISE, static_cast<int32_t>(Op::kSUB), 0.F, 0.F, 0, 1}));
    EXPECT_EQ(s.pointwise[1], (PointwiseStep{Kind::kELEMENTWISE, static_cast<int32_t>(Op::kPROD), 0.F, 0.F, -1, -1}));
    EXPECT_EQ(model.layers[1].name, "sum");
    EXPECT_TRUE(model.layers[1].pointwise.empty());
    LayerRecord const& out = model.layers[2];
    EXPECT_EQ(out.name, "out");
    EXPECT_EQ(out.inputs, (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));
    ASSERT_EQ(out.pointwise.size(), 6U);
    EXPECT_EQ(out.pointwise[0].a, 0); // c = x - m
    EXPECT_EQ(out.pointwise[1].a, 2); // e = v + eps
    EXPECT_EQ(out.pointwise[2],
        (PointwiseStep{Kind::kUNARY, static_cast<int32_t>(nvinfer1::UnaryOperation::kSQRT), 0.F, 0.F, -2, 0}));
    EXPECT_EQ(out.pointwise[3].a, -1); // n = c / d
    EXPECT_EQ(out.pointwise[3].b, -3);
    EXPECT_EQ(out.pointwise[5].b, 5); // out = y + beta
    EXPECT_EQ(pointwiseProgramProblem(out.pointwise, out.inputs.size()), std::nullopt);
    EXPECT_EQ(model.tensors[6].producer, -1) << "c is never stored";
    EXPECT_EQ(model.tensors[7].producer, 0);
    EXPECT_EQ(model.tensors[13].producer, 2);
    EXPECT_EQ(model.assertions[0].layer, 2) << "d's assertion moves to the program that computes it";
    EXPECT_EQ(model.assertions[1].layer, 1);
}

TEST(Fusion, LeavesPointwiseLayersThatCannotJoinAProgram)
{
    EngineModel stored = layerNormTail();
    stored.tensors[11].isOutput = true; // n is a network output: stored, so its layer stays.
    EXPECT_EQ(fusePointwise(stored), 4);
    EXPECT_EQ(stored.layers.size(), 4U);

    EngineModel integers = layerNormTail();
    for (TensorRecord& t : integers.tensors)
    {
        t.type = DataType::kINT32;
    }
    EXPECT_EQ(fusePointwise(integers), 0);

    EngineModel mismatched = layerNormTail();
    mismatched.tensors[4].shape = {1, 0}; // g is [4, 4] from other expressions: not provably a broadcast of y.
    fusePointwise(mismatched);
    auto const y = std::find_if(
        mismatched.layers.begin(), mismatched.layers.end(), [](LayerRecord const& l) { return l.name == "y"; });
    EXPECT_NE(y, mismatched.layers.end()) << "a layer whose operands may not broadcast stays";

    EngineModel comparison = layerNormTail();
    comparison.layers[4].params = UnaryParams{nvinfer1::UnaryOperation::kNOT};
    fusePointwise(comparison);
    EXPECT_EQ(std::count_if(comparison.layers.begin(), comparison.layers.end(),
                  [](LayerRecord const& l) { return l.name == "d"; }),
        1);
}

TEST(Fusion, FoldsSumsOfTensorsWhoseBatchesAreDifferentSymbols)
{
    // BERT's embeddings: word + token (each batch extent its own input's symbol, the sum's max(a, b), asserted equal
    // or 1 when the inputs are set) + position ([1, n]). Inlined into one program; each input is mapped by the
    // extents it has at run time.
    //   0 sum(w, t) -> wt [max(a, b), 4];  1 sum(wt, p) -> e [max(a, b), 4] (output).
    using Op = nvinfer1::ElementWiseOperation;
    EngineModel model;
    model.backend = PlanBackend::kCUDA;
    model.exprs = {ExprRecord{DimExpr::Kind::kSYMBOL, 0, 0}, ExprRecord{DimExpr::Kind::kSYMBOL, 0, 1},
        ExprRecord{DimExpr::Kind::kOPERATION, 0, 0, DimensionOperation::kMAX, 0, 1},
        ExprRecord{DimExpr::Kind::kCONSTANT, 4}, ExprRecord{DimExpr::Kind::kCONSTANT, 1}};
    model.tensors = {tensor("w", -1, true), tensor("t", -1, true), tensor("p", -1, true), tensor("wt", 0),
        tensor("e", 1, false, true)};
    model.tensors[0].shape = {0, 3};
    model.tensors[1].shape = {1, 3};
    model.tensors[2].shape = {4, 3};
    model.tensors[3].shape = {2, 3};
    model.tensors[4].shape = {2, 3};
    model.layers.push_back(layer("wt", ElementWiseParams{Op::kSUM}, {0, 1}, {3}));
    model.layers.push_back(layer("e", ElementWiseParams{Op::kSUM}, {3, 2}, {4}));
    EXPECT_EQ(fusePointwise(model), 1);
    ASSERT_EQ(model.layers.size(), 1U);
    EXPECT_EQ(model.layers[0].name, "e");
    EXPECT_EQ(model.layers[0].inputs, (std::vector<int32_t>{0, 1, 2}));
    EXPECT_EQ(model.layers[0].pointwise.size(), 2U);

    // Two different constant extents other than 1 cannot be a broadcast: such a layer stays.
    model = EngineModel{};
    model.backend = PlanBackend::kCUDA;
    model.exprs = {ExprRecord{DimExpr::Kind::kCONSTANT, 3}, ExprRecord{DimExpr::Kind::kCONSTANT, 4}};
    model.tensors = {tensor("a", -1, true), tensor("b", -1, true), tensor("ab", 0), tensor("r", 1, false, true)};
    model.tensors[0].shape = {0, 1};
    model.tensors[1].shape = {1, 1};
    model.tensors[2].shape = {1, 1};
    model.tensors[3].shape = {1, 1};
    model.layers.push_back(layer("ab", ElementWiseParams{Op::kSUM}, {0, 1}, {2}));
    model.layers.push_back(layer("r", ActivationParams{nvinfer1::ActivationType::kRELU}, {2}, {3}));
    EXPECT_EQ(fusePointwise(model), 0);
}

TEST(Fusion, SplitsProgramsOverTheLimits)
{
    // A chain of 80 unary layers: programs of at most kMaxPointwiseSteps steps.
    constexpr int32_t kChain = 80;
    EngineModel model;
    model.backend = PlanBackend::kCUDA;
    model.exprs = {ExprRecord{DimExpr::Kind::kCONSTANT, 4}, ExprRecord{DimExpr::Kind::kCONSTANT, 4}};
    model.tensors.push_back(tensor("x", -1, true));
    for (int32_t i = 0; i < kChain; ++i)
    {
        model.tensors.push_back(tensor("t" + std::to_string(i), i, false, i == kChain - 1));
        model.layers.push_back(
            layer("u" + std::to_string(i), UnaryParams{nvinfer1::UnaryOperation::kABS}, {i}, {i + 1}));
    }
    int32_t const removed = fusePointwise(model);
    EXPECT_GT(removed, 0);
    int32_t steps = 0;
    for (LayerRecord const& l : model.layers)
    {
        EXPECT_LE(l.pointwise.size(), kMaxPointwiseSteps);
        steps += std::max<int32_t>(1, static_cast<int32_t>(l.pointwise.size()));
    }
    EXPECT_EQ(steps, kChain) << "every layer is computed exactly once";
    EXPECT_EQ(model.layers.back().outputs, (std::vector<int32_t>{kChain}));
}

// ---- Residual into convolution (fuseConvolutionResiduals) ------------------------------------------------------

//! A 1x1 convolution's parameters (the fusion reads none of them).
ConvolutionParams pointConvolution()
{
    ConvolutionParams params;
    params.nbOutputMaps = 4;
    params.kernelSize = Dims{2, {1, 1}};
    return params;
}

//! x, r -> conv(x) -> c; c + r -> s; relu(s) -> y (the output); the sum's operands in the order given.
EngineModel convolutionResidualRelu(bool convolutionFirst = true)
{
    EngineModel model;
    model.backend = PlanBackend::kCUDA;
    model.exprs = {ExprRecord{DimExpr::Kind::kCONSTANT, 4}, ExprRecord{DimExpr::Kind::kCONSTANT, 4},
        ExprRecord{DimExpr::Kind::kCONSTANT, 1}};
    model.tensors
        = {tensor("x", -1, true), tensor("r", -1, true), tensor("c", 0), tensor("s", 1), tensor("y", 2, false, true)};
    model.layers.push_back(layer("conv", pointConvolution(), {0}, {2}));
    model.layers.push_back(layer("add", ElementWiseParams{nvinfer1::ElementWiseOperation::kSUM},
        convolutionFirst ? std::vector<int32_t>{2, 1} : std::vector<int32_t>{1, 2}, {3}));
    model.layers.push_back(layer("relu", ActivationParams{nvinfer1::ActivationType::kRELU}, {3}, {4}));
    model.assertions = {AssertionRecord{0, "add", 1}, AssertionRecord{0, "relu", 2}};
    return model;
}

TEST(ResidualFusion, FoldsTheSumAndTheActivationIntoTheConvolution)
{
    for (bool const convolutionFirst : {true, false})
    {
        EngineModel model = convolutionResidualRelu(convolutionFirst);
        EXPECT_EQ(fuseConvolutionResiduals(model), 2);
        ASSERT_EQ(model.layers.size(), 1U);
        LayerRecord const& conv = model.layers[0];
        EXPECT_EQ(conv.name, "conv");
        // The residual is input 3, after the absent kernel and bias tensors.
        EXPECT_EQ(conv.inputs, (std::vector<int32_t>{0, kNoTensor, kNoTensor, 1}));
        EXPECT_EQ(conv.inputs.size(), kConvolutionResidualInput + 1);
        EXPECT_EQ(conv.outputs, (std::vector<int32_t>{4}));
        ASSERT_TRUE(conv.epilogue.has_value());
        EXPECT_EQ(conv.epilogue->type, nvinfer1::ActivationType::kRELU);
        EXPECT_EQ(model.tensors[2].producer, -1);
        EXPECT_EQ(model.tensors[3].producer, -1);
        EXPECT_EQ(model.tensors[4].producer, 0);
        EXPECT_EQ(model.assertions[0].layer, 0);
        EXPECT_EQ(model.assertions[1].layer, 0);
    }
}

TEST(ResidualFusion, RunsAfterTheEpilogueFusionInTheBuildOrder)
{
    // fuseEpilogues leaves a convolution that a sum reads; the residual fusion then takes the sum and the ReLU.
    EngineModel model = convolutionResidualRelu();
    EXPECT_EQ(fuseEpilogues(model), 0);
    EXPECT_EQ(fuseConvolutionResiduals(model), 2);
    EXPECT_EQ(fusePointwise(model), 0);
    ASSERT_EQ(model.layers.size(), 1U);
    EXPECT_EQ(model.layers[0].inputs.size(), 4U);
}

TEST(ResidualFusion, FoldsASumWithoutAnActivation)
{
    // The sum's result is the network output and nothing follows it.
    EngineModel model = convolutionResidualRelu();
    model.layers.pop_back();
    model.tensors[3].isOutput = true;
    model.tensors.pop_back();
    EXPECT_EQ(fuseConvolutionResiduals(model), 1);
    ASSERT_EQ(model.layers.size(), 1U);
    EXPECT_EQ(model.layers[0].inputs, (std::vector<int32_t>{0, kNoTensor, kNoTensor, 1}));
    EXPECT_EQ(model.layers[0].outputs, (std::vector<int32_t>{3}));
    EXPECT_FALSE(model.layers[0].epilogue.has_value());
}

TEST(ResidualFusion, KeepsTheBiasTensorAndLeavesAnActivationReadElsewhere)
{
    // conv(x, kernel weights, bias tensor b) + r; the sum is read by the ReLU and by the application.
    EngineModel model = convolutionResidualRelu();
    model.tensors.push_back(tensor("b", -1, true));
    model.layers[0].inputs = {0, kNoTensor, 5};
    model.tensors[3].isOutput = true;
    EXPECT_EQ(fuseConvolutionResiduals(model), 1);
    ASSERT_EQ(model.layers.size(), 2U);
    EXPECT_EQ(model.layers[0].inputs, (std::vector<int32_t>{0, kNoTensor, 5, 1}));
    EXPECT_EQ(model.layers[0].outputs, (std::vector<int32_t>{3}));
    EXPECT_FALSE(model.layers[0].epilogue.has_value());
    EXPECT_EQ(model.layers[1].name, "relu");
}

TEST(ResidualFusion, TheLaterOfTwoConvolutionsAddedTogetherAbsorbsTheSum)
{
    // A downsampling block: x -> conv a -> ta; x -> conv b -> tb; ta + tb -> s; relu(s) -> y. ta exists when b runs.
    EngineModel model;
    model.backend = PlanBackend::kCUDA;
    model.tensors
        = {tensor("x", -1, true), tensor("ta", 0), tensor("tb", 1), tensor("s", 2), tensor("y", 3, false, true)};
    model.layers.push_back(layer("a", pointConvolution(), {0}, {1}));
    model.layers.push_back(layer("b", pointConvolution(), {0}, {2}));
    model.layers.push_back(layer("add", ElementWiseParams{nvinfer1::ElementWiseOperation::kSUM}, {1, 2}, {3}));
    model.layers.push_back(layer("relu", ActivationParams{nvinfer1::ActivationType::kRELU}, {3}, {4}));
    EXPECT_EQ(fuseConvolutionResiduals(model), 2);
    ASSERT_EQ(model.layers.size(), 2U);
    EXPECT_EQ(model.layers[0].name, "a");
    EXPECT_EQ(model.layers[0].inputs, (std::vector<int32_t>{0}));
    EXPECT_EQ(model.layers[1].name, "b");
    EXPECT_EQ(model.layers[1].inputs, (std::vector<int32_t>{0, kNoTensor, kNoTensor, 1}));
    EXPECT_EQ(model.layers[1].outputs, (std::vector<int32_t>{4}));
    EXPECT_EQ(model.tensors[1].producer, 0);
    EXPECT_EQ(model.tensors[4].producer, 1);
}

TEST(ResidualFusion, LeavesWhatCannotBeAbsorbed)
{
    struct Case
    {
        char const* what;
        void (*change)(EngineModel&);
    };
    Case const cases[] = {
        {"the convolution's result has another reader",
            [](EngineModel& m) {
                m.tensors.push_back(tensor("other", 3));
                m.layers.push_back(layer("other", ActivationParams{nvinfer1::ActivationType::kTANH}, {2}, {5}));
            }},
        {"the convolution's result is a network output", [](EngineModel& m) { m.tensors[2].isOutput = true; }},
        {"a shape symbol reads the convolution's result",
            [](EngineModel& m) {
                SymbolRecord symbol;
                symbol.tensor = 2;
                m.symbols.push_back(symbol);
            }},
        {"the addend broadcasts",
            [](EngineModel& m) {
                m.tensors[1].shape = {0, 2};
            }},
        {"the addend has another type", [](EngineModel& m) { m.tensors[1].type = DataType::kHALF; }},
        {"a subtraction",
            [](EngineModel& m) { m.layers[1].params = ElementWiseParams{nvinfer1::ElementWiseOperation::kSUB}; }},
        {"a product",
            [](EngineModel& m) { m.layers[1].params = ElementWiseParams{nvinfer1::ElementWiseOperation::kPROD}; }},
        {"the convolution already has an activation",
            [](EngineModel& m) { m.layers[0].epilogue = ActivationParams{nvinfer1::ActivationType::kRELU}; }},
        {"an INT8 convolution",
            [](EngineModel& m) {
                for (TensorRecord& t : m.tensors)
                {
                    t.type = DataType::kINT8;
                }
            }},
        {"the addend is made after the convolution",
            [](EngineModel& m) {
                // r becomes the result of an activation of x that runs between the convolution and the sum.
                m.tensors[1].isInput = false;
                m.tensors[1].producer = 1;
                m.layers.insert(m.layers.begin() + 1,
                    layer("late", ActivationParams{nvinfer1::ActivationType::kSIGMOID}, {0}, {1}));
                m.tensors[3].producer = 2;
                m.tensors[4].producer = 3;
            }},
    };
    for (Case const& c : cases)
    {
        EngineModel model = convolutionResidualRelu();
        c.change(model);
        std::size_t const before = model.layers.size();
        EXPECT_EQ(fuseConvolutionResiduals(model), 0) << c.what;
        EXPECT_EQ(model.layers.size(), before) << c.what;
        EXPECT_EQ(model.layers[0].inputs, (std::vector<int32_t>{0})) << c.what;
    }
}

} // namespace
} // namespace kiln
