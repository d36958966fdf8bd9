// SPDX-License-Identifier: Apache-2.0
// Symbolic shape inference: networks are made through the public API (createInferBuilder -> createNetworkV2), then
// the internal driver infers every tensor's symbolic shape. Each kind's formula is checked at several input shapes by
// evaluating the symbolic result and comparing with an independently computed shape; each refusal with its message;
// profiles concretize the shapes (min/opt/max/upper) and refuse what makes an extent negative.
#include "core/logging.h"
#include "network/shape_inference.h"

#include "support/api_test.h"

#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kiln
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::ITensor;
using nvinfer1::PaddingMode;

std::vector<int64_t> vec(Dims const& dims)
{
    return std::vector<int64_t>(dims.d, dims.d + std::max(dims.nbDims, 0));
}

//! Makes a network through the public API and infers its shapes with the internal driver.
class ShapeInference : public ::testing::Test
{
protected:
    void SetUp() override
    {
        mBuilder.reset(nvinfer1::createInferBuilder(mLogger));
        ASSERT_NE(mBuilder, nullptr);
        mDefinition.reset(mBuilder->createNetworkV2(0));
        ASSERT_NE(mDefinition, nullptr);
    }
    void TearDown() override
    {
        mDefinition.reset();
        mBuilder.reset();
        setLogger(nullptr);
    }

    nvinfer1::INetworkDefinition& net() { return *mDefinition; }
    ITensor* input(char const* name, Dims dims, DataType type = DataType::kFLOAT)
    {
        return net().addInput(name, type, dims);
    }
    ITensor* constant(Dims dims, std::vector<int32_t> const& values)
    {
        mStorage.push_back(std::make_unique<std::vector<int32_t>>(values));
        auto const& kept = *mStorage.back();
        return net()
            .addConstant(dims, Weights{DataType::kINT32, kept.data(), static_cast<int64_t>(kept.size())})
            ->getOutput(0);
    }

    //! The shapes; fails the test on an error.
    NetworkShapes infer()
    {
        auto result = inferShapes(Network::of(net()), mExprs);
        EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
        return result.ok() ? std::move(result.value()) : NetworkShapes{};
    }
    //! The error message of inference, or "" when it succeeds.
    std::string inferError()
    {
        auto result = inferShapes(Network::of(net()), mExprs);
        return result.ok() ? std::string{} : result.error().message;
    }
    //! The concrete shape of tensor for these input shapes (and shape values).
    std::vector<int64_t> at(NetworkShapes const& shapes, ITensor* tensor, std::map<std::string, Dims> inputs,
        std::map<std::string, std::vector<int64_t>> values = {})
    {
        auto result = evaluate(shapes, mExprs, InputValues{std::move(inputs), std::move(values), {}});
        EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
        if (!result.ok())
        {
            return {-99};
        }
        auto const found = result.value().find(static_cast<Tensor const*>(tensor));
        return found == result.value().end() ? std::vector<int64_t>{-98} : vec(found->second);
    }
    std::string atError(NetworkShapes const& shapes, std::map<std::string, Dims> inputs)
    {
        auto result = evaluate(shapes, mExprs, InputValues{std::move(inputs), {}, {}});
        return result.ok() ? std::string{} : result.error().message;
    }
    std::string str(NetworkShapes const& shapes, ITensor* tensor)
    {
        std::string text;
        for (DimExpr const* e : shapes.shape(*static_cast<Tensor*>(tensor)))
        {
            text += (text.empty() ? "" : ", ") + mExprs.toString(*e);
        }
        return "[" + text + "]";
    }

    test::TestLogger mLogger;
    std::unique_ptr<nvinfer1::IBuilder> mBuilder;
    std::unique_ptr<nvinfer1::INetworkDefinition> mDefinition;
    ExprContext mExprs;
    std::vector<std::unique_ptr<std::vector<int32_t>>> mStorage;
};

// ---- element-wise broadcasting ----

TEST_F(ShapeInference, ElementWiseBroadcastsSymbolicExtents)
{
    ITensor* a = input("a", Dims{3, {-1, 1, 4}});
    ITensor* b = input("b", Dims{3, {1, -1, 4}});
    ITensor* sum = net().addElementWise(*a, *b, nvinfer1::ElementWiseOperation::kSUM)->getOutput(0);
    NetworkShapes const shapes = infer();
    EXPECT_EQ(str(shapes, sum), "[a.d0, b.d1, 4]");
    for (int64_t n : {1, 3, 7})
    {
        for (int64_t m : {1, 5})
        {
            EXPECT_EQ(at(shapes, sum, {{"a", Dims{3, {n, 1, 4}}}, {"b", Dims{3, {1, m, 4}}}}),
                (std::vector<int64_t>{n, m, 4}));
        }
    }
}

TEST_F(ShapeInference, ElementWiseOfTwoSymbolsIsTheirMaxWithARuntimeCheck)
{
    ITensor* a = input("a", Dims{2, {-1, 2}});
    ITensor* b = input("b", Dims{2, {-1, 2}});
    auto* layer = net().addElementWise(*a, *b, nvinfer1::ElementWiseOperation::kPROD);
    layer->setName("mul");
    NetworkShapes const shapes = infer();
    EXPECT_EQ(str(shapes, layer->getOutput(0)), "[max(a.d0, b.d0), 2]");
    ASSERT_EQ(shapes.assertions.size(), 1U);
    EXPECT_EQ(at(shapes, layer->getOutput(0), {{"a", Dims{2, {1, 2}}}, {"b", Dims{2, {6, 2}}}}),
        (std::vector<int64_t>{6, 2}));
    EXPECT_EQ(at(shapes, layer->getOutput(0), {{"a", Dims{2, {6, 2}}}, {"b", Dims{2, {6, 2}}}}),
        (std::vector<int64_t>{6, 2}));
    EXPECT_EQ(atError(shapes, {{"a", Dims{2, {5, 2}}}, {"b", Dims{2, {3, 2}}}}),
        "the input shapes: layer 'mul' (IElementWiseLayer): dimension 0 is a.d0 in input 0 and b.d0 in input 1; "
        "they must be equal or one of them 1");
}

TEST_F(ShapeInference, ElementWiseRefusesConstantMismatch)
{
    ITensor* a = input("a", Dims{3, {2, 3, 5}});
    ITensor* b = input("b", Dims{3, {2, 3, 3}});
    net().addElementWise(*a, *b, nvinfer1::ElementWiseOperation::kSUM)->setName("add");
    EXPECT_EQ(inferError(),
        "layer 'add' (IElementWiseLayer): dimension 2 is 5 in input 0 and 3 in input 1; they "
        "must be equal or one of them 1");
}

TEST_F(ShapeInference, ElementWiseConstantAgainstSymbolChecksAtTheProfile)
{
    ITensor* a = input("a", Dims{1, {-1}});
    ITensor* b = input("b", Dims{1, {4}});
    auto* layer = net().addElementWise(*a, *b, nvinfer1::ElementWiseOperation::kSUM);
    layer->setName("add");
    NetworkShapes const shapes = infer();
    EXPECT_EQ(str(shapes, layer->getOutput(0)), "[4]");
    ProfileData profile;
    profile.inputs["a"].dims = {Dims{1, {1}}, Dims{1, {4}}, Dims{1, {4}}};
    EXPECT_TRUE(concretize(shapes, mExprs, profile, "profile 0").ok());
    profile.inputs["a"].dims = {Dims{1, {1}}, Dims{1, {4}}, Dims{1, {8}}};
    auto const refused = concretize(shapes, mExprs, profile, "profile 0");
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().message,
        "profile 0, at kMAX: layer 'add' (IElementWiseLayer): dimension 0 is a.d0 in "
        "input 0 and 4 in input 1; they must be equal or one of them 1");
}

// ---- convolution and pooling ----

//! The output extent by TensorRT's PaddingMode formulas, computed in floating point.
int64_t expectedWindowExtent(int64_t i, int64_t f, int64_t s, int64_t b, int64_t a, int64_t d, PaddingMode mode)
{
    if (mode == PaddingMode::kSAME_UPPER || mode == PaddingMode::kSAME_LOWER)
    {
        return static_cast<int64_t>(std::ceil(static_cast<double>(i) / static_cast<double>(s)));
    }
    double const m = static_cast<double>(i + b + a);
    double const dk = static_cast<double>(1 + d * (f - 1));
    double const q = (m - dk) / static_cast<double>(s);
    return static_cast<int64_t>(mode == PaddingMode::kEXPLICIT_ROUND_UP ? std::ceil(q) : std::floor(q)) + 1;
}

TEST_F(ShapeInference, ConvolutionEveryPaddingModeWithStrideAndDilation)
{
    ITensor* x = input("x", Dims{4, {-1, 3, -1, -1}});
    std::vector<float> const kernel(8 * 3 * 3 * 2, 0.F);
    std::vector<ITensor*> outputs;
    for (int32_t m = 0; m < 4; ++m)
    {
        auto* conv = net().addConvolutionNd(*x, 8, Dims{2, {3, 2}},
            Weights{DataType::kFLOAT, kernel.data(), static_cast<int64_t>(kernel.size())}, Weights{});
        conv->setStrideNd(Dims{2, {2, 3}});
        conv->setDilationNd(Dims{2, {2, 1}});
        conv->setPrePadding(Dims{2, {1, 0}});
        conv->setPostPadding(Dims{2, {2, 1}});
        conv->setPaddingMode(static_cast<PaddingMode>(m));
        outputs.push_back(conv->getOutput(0));
    }
    NetworkShapes const shapes = infer();
    for (int64_t h : {5, 6, 7, 16})
    {
        for (int64_t w : {2, 3, 10})
        {
            for (int32_t m = 0; m < 4; ++m)
            {
                auto const mode = static_cast<PaddingMode>(m);
                std::vector<int64_t> const expected{
                    2, 8, expectedWindowExtent(h, 3, 2, 1, 2, 2, mode), expectedWindowExtent(w, 2, 3, 0, 1, 1, mode)};
                EXPECT_EQ(at(shapes, outputs[static_cast<std::size_t>(m)], {{"x", Dims{4, {2, 3, h, w}}}}), expected)
                    << "mode " << m << " h " << h << " w " << w;
            }
        }
    }
}

TEST_F(ShapeInference, ConvolutionRefusesTheWrongRankAndAnInputSmallerThanTheKernel)
{
    ITensor* x = input("x", Dims{4, {1, 2, -1, 4}});
    std::vector<float> const kernel(4 * 2 * 3 * 3, 0.F);
    auto* conv = net().addConvolutionNd(*x, 4, Dims{2, {3, 3}},
        Weights{DataType::kFLOAT, kernel.data(), static_cast<int64_t>(kernel.size())}, Weights{});
    conv->setName("conv1");
    NetworkShapes const shapes = infer();
    EXPECT_EQ(at(shapes, conv->getOutput(0), {{"x", Dims{4, {1, 2, 3, 4}}}}), (std::vector<int64_t>{1, 4, 1, 2}));
    EXPECT_EQ(atError(shapes, {{"x", Dims{4, {1, 2, 2, 4}}}}),
        "the input shapes: layer 'conv1' (IConvolutionLayer): dimension 2: the padded input extent x.d2 (input x.d2 "
        "+ padding 0 + 0) is smaller than the dilated window extent 3");

    ITensor* y = input("y", Dims{3, {2, 3, 3}});
    net()
        .addConvolutionNd(*x, 4, Dims{2, {3, 3}},
            Weights{DataType::kFLOAT, kernel.data(), static_cast<int64_t>(kernel.size())}, Weights{})
        ->setInput(0, *y);
    net().getLayer(net().getNbLayers() - 1)->setName("conv2");
    EXPECT_EQ(inferError(),
        "layer 'conv2' (IConvolutionLayer): input 0 has 3 dimensions; a 2-D convolution needs 4 (N, C, H, W)");
}

TEST_F(ShapeInference, ConvolutionRefusesKernelWeightsOfTheWrongCount)
{
    ITensor* x = input("x", Dims{4, {1, 2, 8, 8}});
    std::vector<float> const kernel(5, 0.F);
    net()
        .addConvolutionNd(*x, 4, Dims{2, {3, 3}}, Weights{DataType::kFLOAT, kernel.data(), 5}, Weights{})
        ->setName("c");
    EXPECT_EQ(inferError(),
        "layer 'c' (IConvolutionLayer): the kernel weights have 5 values; 4 output maps x 2 "
        "channels per group x kernel [3, 3] need 72");
}

//! A deconvolution's output extent, written out from TensorRT's formulas: (I - 1) * S + DK - B - A for the explicit
//! modes, min(I * S, (I - 1) * S + DK) for the SAME modes.
int64_t expectedDeconvolutionExtent(int64_t i, int64_t f, int64_t s, int64_t b, int64_t a, int64_t d, PaddingMode mode)
{
    int64_t const full = (i - 1) * s + 1 + d * (f - 1);
    if (mode == PaddingMode::kSAME_UPPER || mode == PaddingMode::kSAME_LOWER)
    {
        return std::min(i * s, full);
    }
    return full - b - a;
}

TEST_F(ShapeInference, DeconvolutionEveryPaddingModeWithStrideAndDilation)
{
    ITensor* x = input("x", Dims{4, {-1, 4, -1, -1}});
    std::vector<float> const kernel(4 * 3 * 3 * 2, 0.F);
    std::vector<ITensor*> outputs;
    for (int32_t m = 0; m < 4; ++m)
    {
        auto* deconv = net().addDeconvolutionNd(*x, 6, Dims{2, {3, 2}},
            Weights{DataType::kFLOAT, kernel.data(), static_cast<int64_t>(kernel.size())}, Weights{});
        deconv->setNbGroups(2);
        deconv->setStrideNd(Dims{2, {2, 3}});
        deconv->setDilationNd(Dims{2, {2, 1}});
        deconv->setPrePadding(Dims{2, {1, 0}});
        deconv->setPostPadding(Dims{2, {2, 1}});
        deconv->setPaddingMode(static_cast<PaddingMode>(m));
        outputs.push_back(deconv->getOutput(0));
    }
    NetworkShapes const shapes = infer();
    // H: DK 5 - S 2 - 1 - 2 = 0 beyond h * 2; W: DK 2 - S 3 - 0 - 1 = -2 beyond w * 3.
    EXPECT_EQ(str(shapes, outputs[0]), "[x.d0, 6, (x.d2 * 2), ((x.d3 * 3) - 2)]");
    for (int64_t h : {1, 2, 7})
    {
        for (int64_t w : {1, 3, 10})
        {
            for (int32_t m = 0; m < 4; ++m)
            {
                auto const mode = static_cast<PaddingMode>(m);
                std::vector<int64_t> const expected{2, 6, expectedDeconvolutionExtent(h, 3, 2, 1, 2, 2, mode),
                    expectedDeconvolutionExtent(w, 2, 3, 0, 1, 1, mode)};
                EXPECT_EQ(at(shapes, outputs[static_cast<std::size_t>(m)], {{"x", Dims{4, {2, 4, h, w}}}}), expected)
                    << "mode " << m << " h " << h << " w " << w;
            }
        }
    }
}

TEST_F(ShapeInference, DeconvolutionRefusals)
{
    ITensor* x = input("x", Dims{4, {1, -1, 4, -1}});
    std::vector<float> const kernel(64, 0.F);
    auto* deconv = net().addDeconvolutionNd(*x, 4, Dims{2, {3, 3}}, Weights{DataType::kFLOAT, nullptr, 0}, Weights{});
    deconv->setName("d");
    deconv->setNbGroups(2);
    deconv->setPrePadding(Dims{2, {0, 2}});
    deconv->setPostPadding(Dims{2, {0, 3}});
    ITensor* k = input("k", Dims{4, {-1, 2, 3, 3}});
    deconv->setInput(1, *k);
    NetworkShapes const shapes = infer();
    // W: (w - 1) + 3 - 5 = w - 3 must be positive; the channels must split into 2 groups; the kernel's extent 0
    // must be the input's channels.
    EXPECT_EQ(at(shapes, deconv->getOutput(0), {{"x", Dims{4, {1, 2, 4, 4}}}, {"k", Dims{4, {2, 2, 3, 3}}}}),
        (std::vector<int64_t>{1, 4, 6, 1}));
    std::string const trimmed = atError(shapes, {{"x", Dims{4, {1, 2, 4, 3}}}, {"k", Dims{4, {2, 2, 3, 3}}}});
    EXPECT_NE(trimmed.find("layer 'd' (IDeconvolutionLayer): dimension 3: the output extent"), std::string::npos)
        << trimmed;
    EXPECT_NE(trimmed.find("(input x.d3, stride 1, kernel 3, dilation 1, padding 2 + 3) is not positive: the padding "
                           "trims the whole axis"),
        std::string::npos)
        << trimmed;
    EXPECT_NE(atError(shapes, {{"x", Dims{4, {1, 3, 4, 4}}}, {"k", Dims{4, {3, 2, 3, 3}}}})
                  .find("the input channels x.d1 must be a multiple of the number of groups 2"),
        std::string::npos);
    EXPECT_NE(atError(shapes, {{"x", Dims{4, {1, 2, 4, 4}}}, {"k", Dims{4, {4, 2, 3, 3}}}})
                  .find("extent 0 of the kernel input is k.d0; it must be the input channels x.d1"),
        std::string::npos);

    // Constant channels: the weights' count is checked at build time.
    ITensor* y = input("y", Dims{4, {1, 4, 5, 5}});
    auto* wrong = net().addDeconvolutionNd(*y, 4, Dims{2, {3, 3}}, Weights{DataType::kFLOAT, kernel.data(), 64},
        Weights{DataType::kFLOAT, kernel.data(), 3});
    wrong->setName("w");
    wrong->setNbGroups(2);
    EXPECT_EQ(inferError(),
        "layer 'w' (IDeconvolutionLayer): the kernel weights have 64 values; 4 input channels x 2 output maps per "
        "group x kernel [3, 3] need 72");
    wrong->setKernelWeights(Weights{DataType::kFLOAT, kernel.data(), 0});
    EXPECT_EQ(inferError(),
        "layer 'w' (IDeconvolutionLayer): the bias weights have 3 values; one per output map (4) is needed");
    wrong->setBiasWeights(Weights{});
    wrong->setPaddingNd(Dims{2, {4, 0}});
    EXPECT_NE(inferError().find("layer 'w' (IDeconvolutionLayer): dimension 2: the output extent -1 (input 5, stride "
                                "1, kernel 3, dilation 1, padding 4 + 4) is not positive"),
        std::string::npos)
        << inferError();
}

TEST_F(ShapeInference, PoolingEveryPaddingMode)
{
    ITensor* x = input("x", Dims{4, {1, 2, -1, -1}});
    std::vector<ITensor*> outputs;
    for (int32_t m = 0; m < 4; ++m)
    {
        auto* pool = net().addPoolingNd(*x, nvinfer1::PoolingType::kMAX, Dims{2, {3, 2}});
        pool->setStrideNd(Dims{2, {2, 2}});
        pool->setPrePadding(Dims{2, {1, 1}});
        pool->setPostPadding(Dims{2, {1, 0}});
        pool->setPaddingMode(static_cast<PaddingMode>(m));
        outputs.push_back(pool->getOutput(0));
    }
    NetworkShapes const shapes = infer();
    for (int64_t h : {3, 4, 9})
    {
        for (int64_t w : {2, 5, 8})
        {
            for (int32_t m = 0; m < 4; ++m)
            {
                auto const mode = static_cast<PaddingMode>(m);
                std::vector<int64_t> const expected{
                    1, 2, expectedWindowExtent(h, 3, 2, 1, 1, 1, mode), expectedWindowExtent(w, 2, 2, 1, 0, 1, mode)};
                EXPECT_EQ(at(shapes, outputs[static_cast<std::size_t>(m)], {{"x", Dims{4, {1, 2, h, w}}}}), expected)
                    << "mode " << m;
            }
        }
    }
}

// ---- concatenation, shuffle, slice ----

TEST_F(ShapeInference, ConcatenationSumsTheAxisAndChecksTheRest)
{
    ITensor* a = input("a", Dims{3, {2, -1, 4}});
    ITensor* b = input("b", Dims{3, {2, 3, 4}});
    ITensor* inputs[] = {a, b, a};
    auto* concat = net().addConcatenation(inputs, 3);
    concat->setAxis(1);
    NetworkShapes const shapes = infer();
    EXPECT_EQ(str(shapes, concat->getOutput(0)), "[2, ((a.d1 * 2) + 3), 4]");
    EXPECT_EQ(at(shapes, concat->getOutput(0), {{"a", Dims{3, {2, 5, 4}}}}), (std::vector<int64_t>{2, 13, 4}));

    ITensor* c = input("c", Dims{3, {2, 3, 5}});
    ITensor* bad[] = {b, c};
    auto* wrong = net().addConcatenation(bad, 2);
    wrong->setAxis(1);
    wrong->setName("cat");
    EXPECT_EQ(inferError(),
        "layer 'cat' (IConcatenationLayer): dimension 2 is 4 in input 0 and 5 in input 1; "
        "concatenated inputs must agree on every dimension but the axis 1");
}

TEST_F(ShapeInference, ShuffleTransposesReshapesWithPlaceholdersAndInfersMinusOne)
{
    ITensor* x = input("x", Dims{4, {-1, 3, -1, 2}});
    auto* shuffle = net().addShuffle(*x);
    shuffle->setFirstTranspose(nvinfer1::Permutation{{1, 0, 2, 3}}); // [3, N, H, 2]
    shuffle->setReshapeDimensions(Dims{3, {0, -1, 2}});              // [3, N*H, 2]
    shuffle->setSecondTranspose(nvinfer1::Permutation{{2, 0, 1}});   // [2, 3, N*H]
    NetworkShapes const shapes = infer();
    for (int64_t n : {1, 2, 5})
    {
        for (int64_t h : {1, 7})
        {
            EXPECT_EQ(
                at(shapes, shuffle->getOutput(0), {{"x", Dims{4, {n, 3, h, 2}}}}), (std::vector<int64_t>{2, 3, n * h}));
        }
    }
}

TEST_F(ShapeInference, ShuffleWithZeroAsAnExtent)
{
    ITensor* x = input("x", Dims{2, {2, 0}}); // as a placeholder the 0 would copy 2 and give 8 elements, not 0
    auto* shuffle = net().addShuffle(*x);
    shuffle->setZeroIsPlaceholder(false);
    shuffle->setReshapeDimensions(Dims{3, {0, 2, 2}});
    NetworkShapes const shapes = infer();
    EXPECT_EQ(str(shapes, shuffle->getOutput(0)), "[0, 2, 2]");
}

TEST_F(ShapeInference, ShuffleRefusesCountsThatDiffer)
{
    ITensor* x = input("x", Dims{2, {2, 3}});
    auto* shuffle = net().addShuffle(*x);
    shuffle->setReshapeDimensions(Dims{2, {4, -1}});
    shuffle->setName("r");
    EXPECT_EQ(inferError(),
        "layer 'r' (IShuffleLayer): the input [2, 3] has 6 elements; reshape dimensions [4, -1] "
        "cannot infer the -1: 6 is not a multiple of 4");
    shuffle->setReshapeDimensions(Dims{2, {4, 2}});
    EXPECT_EQ(inferError(),
        "layer 'r' (IShuffleLayer): the input [2, 3] has 6 elements; reshape dimensions [4, 2] "
        "have 8; the counts must be equal");
    shuffle->setReshapeDimensions(Dims{3, {0, 0, 0}});
    EXPECT_EQ(inferError(),
        "layer 'r' (IShuffleLayer): reshape dimension 2 is 0, which copies the input's extent, "
        "but the input has only 2 dimensions");
}

TEST_F(ShapeInference, ShuffleReshapeFromAComputedShapeTensor)
{
    // reshape x [N, C, H, W] to [N, C * H * W] with the shape computed from x's own shape.
    ITensor* x = input("x", Dims{4, {-1, 3, -1, -1}});
    ITensor* shape = net().addShape(*x)->getOutput(0);
    ITensor* first = net().addGather(*shape, *constant(Dims{1, {1}}, {0}), 0)->getOutput(0);
    ITensor* rest = net().addSlice(*shape, Dims{1, {1}}, Dims{1, {3}}, Dims{1, {1}})->getOutput(0);
    ITensor* product = net().addReduce(*rest, nvinfer1::ReduceOperation::kPROD, 1U, true)->getOutput(0); // [C * H * W]
    ITensor* parts[] = {first, product};
    ITensor* target = net().addConcatenation(parts, 2)->getOutput(0);
    auto* reshape = net().addShuffle(*x);
    reshape->setInput(1, *target);
    NetworkShapes const shapes = infer();
    EXPECT_EQ(str(shapes, reshape->getOutput(0)), "[x.d0, ((x.d2 * x.d3) * 3)]");
    EXPECT_EQ(at(shapes, reshape->getOutput(0), {{"x", Dims{4, {2, 3, 4, 5}}}}), (std::vector<int64_t>{2, 60}));
}

TEST_F(ShapeInference, ShapeTensorArithmeticPropagatesValues)
{
    ITensor* x = input("x", Dims{2, {-1, -1}});
    ITensor* shape = net().addShape(*x)->getOutput(0); // kINT64 [d0, d1]
    ITensor* two = net().addCast(*constant(Dims{1, {1}}, {2}), DataType::kINT64)->getOutput(0);
    using Op = nvinfer1::ElementWiseOperation;
    std::vector<std::pair<Op, std::function<int64_t(int64_t, int64_t)>>> const ops{
        {Op::kSUM, [](int64_t a, int64_t b) { return a + b; }},
        {Op::kSUB, [](int64_t a, int64_t b) { return a - b; }},
        {Op::kPROD, [](int64_t a, int64_t b) { return a * b; }},
        {Op::kDIV, [](int64_t a, int64_t b) { return a / b; }},
        {Op::kFLOOR_DIV, [](int64_t a, int64_t b) { return a / b; }},
        {Op::kMAX, [](int64_t a, int64_t b) { return std::max(a, b); }},
        {Op::kMIN, [](int64_t a, int64_t b) { return std::min(a, b); }},
    };
    std::vector<ITensor*> filled;
    for (auto const& [op, fn] : ops)
    {
        ITensor* values = net().addElementWise(*shape, *two, op)->getOutput(0);
        ITensor* identity = net().addIdentity(*values)->getOutput(0);
        filled.push_back(net().addFill(Dims{0, {}}, nvinfer1::FillOperation::kLINSPACE)->getOutput(0));
        net().getLayer(net().getNbLayers() - 1)->setInput(0, *identity);
    }
    NetworkShapes const shapes = infer();
    for (int64_t d0 : {2, 3, 9})
    {
        for (int64_t d1 : {4, 5})
        {
            for (std::size_t i = 0; i < ops.size(); ++i)
            {
                EXPECT_EQ(at(shapes, filled[i], {{"x", Dims{2, {d0, d1}}}}),
                    (std::vector<int64_t>{ops[i].second(d0, 2), ops[i].second(d1, 2)}))
                    << "op " << static_cast<int32_t>(ops[i].first);
            }
        }
    }
}

TEST_F(ShapeInference, SliceWithStaticAndDynamicOperandsInEveryMode)
{
    ITensor* x = input("x", Dims{2, {-1, 8}});
    std::vector<ITensor*> outputs;
    for (int32_t m = 0; m < nvinfer1::EnumMax<nvinfer1::SampleMode>(); ++m)
    {
        auto* slice = net().addSlice(*x, Dims{2, {0, 1}}, Dims{2, {2, 3}}, Dims{2, {1, 2}});
        slice->setMode(static_cast<nvinfer1::SampleMode>(m));
        outputs.push_back(slice->getOutput(0));
    }
    // Size from the shape tensor [d0 - 1, 4].
    ITensor* shape = net().addShape(*x)->getOutput(0);
    ITensor* size
        = net()
              .addElementWise(*shape, *net().addCast(*constant(Dims{1, {2}}, {1, 4}), DataType::kINT64)->getOutput(0),
                  nvinfer1::ElementWiseOperation::kSUB)
              ->getOutput(0); // [d0 - 1, 4]
    auto* dynamic = net().addSlice(*x, Dims{2, {1, 0}}, Dims{2, {0, 0}}, Dims{2, {1, 1}});
    dynamic->setInput(2, *size);
    NetworkShapes const shapes = infer();
    for (ITensor* output : outputs)
    {
        EXPECT_EQ(at(shapes, output, {{"x", Dims{2, {5, 8}}}}), (std::vector<int64_t>{2, 3}));
    }
    EXPECT_EQ(at(shapes, dynamic->getOutput(0), {{"x", Dims{2, {5, 8}}}}), (std::vector<int64_t>{4, 4}));
    EXPECT_EQ(at(shapes, dynamic->getOutput(0), {{"x", Dims{2, {9, 8}}}}), (std::vector<int64_t>{8, 4}));

    // A profile where d0 - 1 - 4 ... stays non-negative passes; one reaching 0 rows gives an empty slice.
    ProfileData profile;
    profile.inputs["x"].dims = {Dims{2, {1, 8}}, Dims{2, {4, 8}}, Dims{2, {16, 8}}};
    auto const concrete = concretize(shapes, mExprs, profile, "profile 0");
    ASSERT_TRUE(concrete.ok()) << concrete.error().message;
    ConcreteShape const& c = concrete.value().tensors.at(static_cast<Tensor*>(dynamic->getOutput(0)));
    EXPECT_EQ(vec(c.min), (std::vector<int64_t>{0, 4}));
    EXPECT_EQ(vec(c.opt), (std::vector<int64_t>{3, 4}));
    EXPECT_EQ(vec(c.max), (std::vector<int64_t>{15, 4}));
    EXPECT_EQ(vec(c.upper), (std::vector<int64_t>{15, 4}));
}

TEST_F(ShapeInference, SliceRefusesStrictOutOfBoundsAndOperandsOfTheWrongLength)
{
    ITensor* x = input("x", Dims{2, {4, 8}});
    auto* slice = net().addSlice(*x, Dims{2, {0, 6}}, Dims{2, {2, 2}}, Dims{2, {1, 2}});
    slice->setName("s");
    EXPECT_EQ(inferError(),
        "layer 's' (ISliceLayer): axis 1: start 6, size 2 and stride 2 read coordinates 6 to 8 of "
        "an extent of 8 (kSTRICT_BOUNDS needs them inside)");
    slice->setMode(nvinfer1::SampleMode::kWRAP);
    EXPECT_EQ(inferError(), "");
    slice->setStart(Dims{1, {0}});
    slice->setSize(Dims{1, {1}});
    slice->setStride(Dims{1, {1}});
    EXPECT_EQ(inferError(),
        "layer 's' (ISliceLayer): the start has 1 entries; it needs one per sliced axis (2, the input's rank)");
}

TEST_F(ShapeInference, ResizeFromScalesOutputDimensionsAndAShapeTensor)
{
    ITensor* x = input("x", Dims{3, {-1, 5, -1}});
    auto* scaled = net().addResize(*x);
    std::vector<float> const scales{1.F, 0.6F, 2.5F};
    scaled->setScales(scales.data(), 3);
    auto* fixed = net().addResize(*x);
    fixed->setOutputDimensions(Dims{3, {2, 7, 1}});
    auto* kept = net().addResize(*x); // Nothing set: the input's shape.
    // The output shape [d0, 5, 2 * d2] from the input's shape tensor.
    auto* given = net().addResize(*x);
    ITensor* shape = net().addShape(*x)->getOutput(0);
    ITensor* factors = net().addCast(*constant(Dims{1, {3}}, {1, 1, 2}), DataType::kINT64)->getOutput(0);
    given->setInput(1, *net().addElementWise(*shape, *factors, nvinfer1::ElementWiseOperation::kPROD)->getOutput(0));
    NetworkShapes const shapes = infer();
    for (int64_t const d2 : {1, 2, 3, 7, 1000})
    {
        std::map<std::string, Dims> const at2{{"x", Dims{3, {4, 5, d2}}}};
        // floor(5 * 0.6f) and floor(d2 * 2.5f), exactly.
        EXPECT_EQ(at(shapes, scaled->getOutput(0), at2), (std::vector<int64_t>{4, 3, d2 * 5 / 2})) << d2;
        EXPECT_EQ(at(shapes, fixed->getOutput(0), at2), (std::vector<int64_t>{2, 7, 1}));
        EXPECT_EQ(at(shapes, kept->getOutput(0), at2), (std::vector<int64_t>{4, 5, d2}));
        EXPECT_EQ(at(shapes, given->getOutput(0), at2), (std::vector<int64_t>{4, 5, 2 * d2}));
    }
    // A scale that is not a short binary fraction: floor(d * 0.1f) for run-time d, exactly as for constants.
    auto* tenth = net().addResize(*x);
    std::vector<float> const small{1.F, 1.F, 0.1F};
    tenth->setScales(small.data(), 3);
    NetworkShapes const again = infer();
    for (int64_t const d2 : {9, 10, 30, 31, 12345})
    {
        auto const expected = static_cast<int64_t>(std::floor(static_cast<double>(d2) * static_cast<double>(0.1F)));
        EXPECT_EQ(at(again, tenth->getOutput(0), {{"x", Dims{3, {1, 5, d2}}}}), (std::vector<int64_t>{1, 5, expected}))
            << d2;
    }
}

TEST_F(ShapeInference, ResizeRefusesOperandsOfTheWrongRankOrType)
{
    ITensor* x = input("x", Dims{2, {4, 8}});
    auto* resize = net().addResize(*x);
    resize->setName("r");
    resize->setInput(1, *input("shape", Dims{1, {3}}, DataType::kINT32));
    EXPECT_EQ(inferError(),
        "layer 'r' (IResizeLayer): input 1 (the output shape) has shape [3]; it must be a 1-D shape tensor of 2 values "
        "(the input's rank)");
    resize->setInput(1, *input("floats", Dims{1, {2}}, DataType::kFLOAT));
    EXPECT_EQ(inferError(),
        "layer 'r' (IResizeLayer): input 1 (the output shape) has type 0; it must be a kINT32 or kINT64 shape tensor");
    resize->setInput(1, *constant(Dims{1, {2}}, {4, -3}));
    EXPECT_EQ(inferError(),
        "layer 'r' (IResizeLayer): extent 1 of the output shape given by input 1 is -3; extents are at least 0");
    // Parameters set before the input changed rank.
    resize->setOutputDimensions(Dims{2, {2, 2}});
    resize->setInput(0, *input("y", Dims{3, {1, 4, 8}}));
    EXPECT_EQ(
        inferError(), "layer 'r' (IResizeLayer): the output dimensions [2, 2] have 2 extents; the input has rank 3");
    std::vector<float> const scales{2.F, 2.F, 2.F};
    resize->setScales(scales.data(), 3);
    resize->setInput(0, *x);
    EXPECT_EQ(
        inferError(), "layer 'r' (IResizeLayer): 3 scales for an input of rank 2; the layer needs one per input axis");
}

TEST_F(ShapeInference, ConcretizeRefusesAProfileThatMakesAnExtentNegative)
{
    ITensor* x = input("x", Dims{1, {-1}});
    ITensor* shape = net().addShape(*x)->getOutput(0);
    ITensor* size
        = net()
              .addElementWise(*shape, *net().addCast(*constant(Dims{1, {1}}, {3}), DataType::kINT64)->getOutput(0),
                  nvinfer1::ElementWiseOperation::kSUB)
              ->getOutput(0);
    auto* slice = net().addSlice(*x, Dims{1, {0}}, Dims{1, {0}}, Dims{1, {1}});
    slice->setInput(2, *size);
    slice->setName("tail");
    NetworkShapes const shapes = infer();
    ProfileData profile;
    profile.inputs["x"].dims = {Dims{1, {2}}, Dims{1, {4}}, Dims{1, {8}}};
    auto const refused = concretize(shapes, mExprs, profile, "profile 1");
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().message,
        "profile 1, at kMIN: extent 0 of tensor '" + std::string(slice->getOutput(0)->getName())
            + "' (output 0 of layer 'tail' (ISliceLayer)) = (x.d0 - 3) is -1; extents are at least 0");
    ProfileData none;
    auto const missing = concretize(shapes, mExprs, none, "profile 2");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().message, "profile 2, kMIN: gives no dimensions for input 'x', whose extent 0 is dynamic");
}

TEST_F(ShapeInference, EmptyTensorTrickPassesAShapeTensorThroughAZeroStrideSlice)
{
    // The seed's trick: shape tensor [P, Q] -> concat [0, P, Q] -> zero-stride slice of an empty constant [0, 1, 1].
    ITensor* pq = input("pq", Dims{1, {2}}, DataType::kINT32);
    ITensor* c011 = net().addConstant(Dims{3, {0, 1, 1}}, Weights{DataType::kFLOAT, nullptr, 0})->getOutput(0);
    ITensor* z = constant(Dims{1, {1}}, {0});
    ITensor* parts[] = {z, pq};
    auto* zpq = net().addConcatenation(parts, 2);
    zpq->setAxis(0);
    Dims const z3{3, {0, 0, 0}};
    auto* slice = net().addSlice(*c011, z3, z3, z3);
    slice->setInput(2, *zpq->getOutput(0));
    auto* id = net().addIdentity(*slice->getOutput(0));
    NetworkShapes const shapes = infer();
    EXPECT_EQ(str(shapes, id->getOutput(0)), "[0, pq.v0, pq.v1]");
    EXPECT_EQ(at(shapes, id->getOutput(0), {{"pq", Dims{1, {2}}}}, {{"pq", {7, 9}}}), (std::vector<int64_t>{0, 7, 9}));
    ProfileData profile;
    profile.inputs["pq"].dims = {Dims{1, {2}}, Dims{1, {2}}, Dims{1, {2}}};
    profile.inputs["pq"].values = {std::vector<int64_t>{1, 1}, std::vector<int64_t>{4, 5}, std::vector<int64_t>{8, 9}};
    auto const concrete = concretize(shapes, mExprs, profile, "profile 0");
    ASSERT_TRUE(concrete.ok()) << concrete.error().message;
    EXPECT_EQ(
        vec(concrete.value().tensors.at(static_cast<Tensor*>(id->getOutput(0))).max), (std::vector<int64_t>{0, 8, 9}));
}

// ---- matrix multiply, reduce, gather, select, fill, shape-preserving kinds ----

TEST_F(ShapeInference, MatrixMultiplyOperationsAndBatchBroadcast)
{
    using nvinfer1::MatrixOperation;
    ITensor* a = input("a", Dims{3, {-1, 4, 5}});
    ITensor* b = input("b", Dims{3, {1, 5, 6}});
    ITensor* bt = input("bt", Dims{2, {6, 5}});
    ITensor* v = input("v", Dims{1, {5}});
    ITensor* nn = net().addMatrixMultiply(*a, MatrixOperation::kNONE, *b, MatrixOperation::kNONE)->getOutput(0);
    ITensor* nt = net().addMatrixMultiply(*a, MatrixOperation::kNONE, *bt, MatrixOperation::kTRANSPOSE)->getOutput(0);
    ITensor* nv = net().addMatrixMultiply(*a, MatrixOperation::kNONE, *v, MatrixOperation::kVECTOR)->getOutput(0);
    ITensor* vn = net().addMatrixMultiply(*v, MatrixOperation::kVECTOR, *b, MatrixOperation::kNONE)->getOutput(0);
    NetworkShapes const shapes = infer();
    for (int64_t n : {1, 3})
    {
        std::map<std::string, Dims> const in{{"a", Dims{3, {n, 4, 5}}}};
        EXPECT_EQ(at(shapes, nn, in), (std::vector<int64_t>{n, 4, 6}));
        EXPECT_EQ(at(shapes, nt, in), (std::vector<int64_t>{n, 4, 6}));
        EXPECT_EQ(at(shapes, nv, in), (std::vector<int64_t>{n, 4}));
        EXPECT_EQ(at(shapes, vn, in), (std::vector<int64_t>{1, 6}));
    }
    auto* bad = net().addMatrixMultiply(*a, MatrixOperation::kTRANSPOSE, *b, MatrixOperation::kNONE);
    bad->setName("mm");
    EXPECT_EQ(inferError(),
        "layer 'mm' (IMatrixMultiplyLayer): the inner extents differ: 4 in input 0 and 5 in input "
        "1; they must be equal");
}

TEST_F(ShapeInference, ReduceAxesAndKeepDimensions)
{
    ITensor* x = input("x", Dims{4, {-1, 3, -1, 5}});
    ITensor* keep = net().addReduce(*x, nvinfer1::ReduceOperation::kSUM, 0b1010U, true)->getOutput(0);
    ITensor* drop = net().addReduce(*x, nvinfer1::ReduceOperation::kMAX, 0b0101U, false)->getOutput(0);
    NetworkShapes const shapes = infer();
    EXPECT_EQ(at(shapes, keep, {{"x", Dims{4, {2, 3, 7, 5}}}}), (std::vector<int64_t>{2, 1, 7, 1}));
    EXPECT_EQ(at(shapes, drop, {{"x", Dims{4, {2, 3, 7, 5}}}}), (std::vector<int64_t>{3, 5}));
}

TEST_F(ShapeInference, GatherInEveryMode)
{
    ITensor* data = input("data", Dims{3, {-1, 4, 5}});
    ITensor* indices = input("indices", Dims{2, {-1, 3}}, DataType::kINT32);
    ITensor* byDefault = net().addGather(*data, *indices, 1)->getOutput(0);
    ITensor* elementIndices = input("ei", Dims{3, {-1, 4, 2}}, DataType::kINT32);
    auto* element = net().addGatherV2(*data, *elementIndices, nvinfer1::GatherMode::kELEMENT);
    element->setGatherAxis(2);
    ITensor* ndIndices = input("ni", Dims{3, {-1, 6, 2}}, DataType::kINT32);
    auto* nd = net().addGatherV2(*data, *ndIndices, nvinfer1::GatherMode::kND);
    nd->setNbElementWiseDims(1);
    NetworkShapes const shapes = infer();
    std::map<std::string, Dims> const in{{"data", Dims{3, {2, 4, 5}}}, {"indices", Dims{2, {7, 3}}},
        {"ei", Dims{3, {2, 4, 2}}}, {"ni", Dims{3, {2, 6, 2}}}};
    EXPECT_EQ(at(shapes, byDefault, in), (std::vector<int64_t>{2, 7, 3, 5}));
    EXPECT_EQ(at(shapes, element->getOutput(0), in), (std::vector<int64_t>{2, 4, 2}));
    EXPECT_EQ(at(shapes, nd->getOutput(0), in), (std::vector<int64_t>{2, 6}));
}

TEST_F(ShapeInference, TopKReplacesTheAxisExtentWithK)
{
    ITensor* x = input("x", Dims{3, {-1, 5, -1}});
    auto* fixed = net().addTopK(*x, nvinfer1::TopKOperation::kMAX, 3, 0b010U);
    // k from a 0-D shape tensor computed from another input's shape: y's extent 0.
    ITensor* y = input("y", Dims{1, {-1}});
    ITensor* shape = net().addShape(*y)->getOutput(0);
    ITensor* first = net().addGather(*shape, *constant(Dims{0, {}}, {0}), 0)->getOutput(0);
    auto* computed = net().addTopK(*x, nvinfer1::TopKOperation::kMIN, 0, 0b100U, DataType::kINT64);
    computed->setInput(1, *first);
    // k from a 0-D network input read as a shape tensor.
    ITensor* k = input("k", Dims{0, {}}, DataType::kINT32);
    auto* given = net().addTopK(*x, nvinfer1::TopKOperation::kMAX, 0, 0b001U);
    given->setInput(1, *k);
    NetworkShapes const shapes = infer();
    EXPECT_EQ(str(shapes, fixed->getOutput(0)), "[x.d0, 3, x.d2]");
    EXPECT_EQ(str(shapes, fixed->getOutput(1)), "[x.d0, 3, x.d2]");
    EXPECT_EQ(str(shapes, computed->getOutput(1)), "[x.d0, 5, y.d0]");
    EXPECT_EQ(str(shapes, given->getOutput(0)), "[k.v0, 5, x.d2]");
    std::map<std::string, Dims> const in{{"x", Dims{3, {4, 5, 6}}}, {"y", Dims{1, {2}}}, {"k", Dims{0, {}}}};
    EXPECT_EQ(at(shapes, fixed->getOutput(1), in, {{"k", {1}}}), (std::vector<int64_t>{4, 3, 6}));
    EXPECT_EQ(at(shapes, computed->getOutput(0), in, {{"k", {1}}}), (std::vector<int64_t>{4, 5, 2}));
    EXPECT_EQ(at(shapes, given->getOutput(1), in, {{"k", {4}}}), (std::vector<int64_t>{4, 5, 6}));
    // k larger than an extent known only at run time, or negative, fails the layer's assertions.
    auto const failure = [&](std::map<std::string, Dims> inputs, int64_t value) {
        auto result = evaluate(shapes, mExprs, InputValues{std::move(inputs), {{"k", {value}}}, {}});
        return result.ok() ? std::string{} : result.error().message;
    };
    EXPECT_NE(failure({{"x", Dims{3, {4, 5, 1}}}, {"y", Dims{1, {2}}}, {"k", Dims{0, {}}}}, 1)
                  .find("k (input 1: y.d0) must be at most the axis' extent x.d2"),
        std::string::npos);
    EXPECT_NE(failure(in, 5).find("k (input 1: k.v0) must be at most the axis' extent x.d0"), std::string::npos);
    EXPECT_NE(failure(in, -1).find("k (input 1: k.v0) must be at least 0"), std::string::npos);
}

TEST_F(ShapeInference, TopKRefusals)
{
    ITensor* x = input("x", Dims{2, {2, 5}});
    auto* layer = net().addTopK(*x, nvinfer1::TopKOperation::kMAX, 1, 0b10U);
    layer->setInput(1, *constant(Dims{0, {}}, {6}));
    EXPECT_NE(inferError().find("layer '(Unnamed Layer* 0) [TopK]' (ITopKLayer): k (input 1: 6) must be at most the "
                                "axis' extent 5 (the input is [2, 5])"),
        std::string::npos)
        << inferError();
    layer->setInput(1, *constant(Dims{0, {}}, {-2}));
    EXPECT_NE(inferError().find("k (input 1: -2) must be at least 0"), std::string::npos) << inferError();
    layer->setInput(1, *constant(Dims{1, {1}}, {2}));
    EXPECT_NE(inferError().find("input 1 (k) is kINT32 of shape [1]; it must be a 0-D kINT32 or kINT64 shape tensor"),
        std::string::npos)
        << inferError();
    layer->setInput(1, *input("f", Dims{0, {}}));
    EXPECT_NE(inferError().find("input 1 (k) is kFLOAT of shape []"), std::string::npos) << inferError();
}

TEST(ShapeRules, TopKRefusesWhatTheLayerMethodsCannotCatch)
{
    ExprContext exprs;
    SymbolicTensor const data{SymbolicDims{exprs.constant(2), exprs.constant(5)}, std::nullopt, DataType::kFLOAT};
    auto const run = [&](TopKParams const& params, std::vector<SymbolicTensor> inputs) {
        ShapeRuleContext context(exprs, "t", LayerType::kTOPK, std::move(inputs), 2);
        auto const result = inferOutputShapes(params, context);
        return result.ok() ? std::string{} : result.error().message;
    };
    TopKParams const good{nvinfer1::TopKOperation::kMAX, 2, 0b10U, DataType::kINT32};
    EXPECT_EQ(run(good, {data}), "");
    EXPECT_EQ(run(good, {}), "layer 't' (ITopKLayer): input 0 is missing");
    EXPECT_EQ(run(TopKParams{good.op, 2, 0b11U, DataType::kINT32}, {data}),
        "layer 't' (ITopKLayer): the axes mask 3 must have exactly one bit set (the axis) (the input has rank 2)");
    EXPECT_EQ(run(TopKParams{good.op, 2, 0b100U, DataType::kINT32}, {data}),
        "layer 't' (ITopKLayer): the axes mask 4 names an axis at or beyond the input's rank (the input has rank 2)");
    EXPECT_EQ(run(TopKParams{good.op, 2, 0b10U, DataType::kHALF}, {data}),
        "layer 't' (ITopKLayer): the indices type kHALF is not kINT32 or kINT64");
    EXPECT_EQ(run(TopKParams{good.op, -1, 0b10U, DataType::kINT32}, {data}),
        "layer 't' (ITopKLayer): k (-1) must be at least 0");
    EXPECT_EQ(run(TopKParams{good.op, 6, 0b10U, DataType::kINT32}, {data}),
        "layer 't' (ITopKLayer): k (6) must be at most the axis' extent 5 (the input is [2, 5])");
    SymbolicTensor const unknown{SymbolicDims{}, std::nullopt, DataType::kINT32};
    EXPECT_EQ(run(good, {data, unknown}), "layer 't' (ITopKLayer): the value of input 1 (k) is not known symbolically");
    // Both outputs: the values and the indices, of one shape.
    ShapeRuleContext context(exprs, "t", LayerType::kTOPK, {data}, 2);
    auto const outputs = inferOutputShapes(good, context);
    ASSERT_TRUE(outputs.ok());
    ASSERT_EQ(outputs.value().size(), 2U);
    EXPECT_EQ(context.str(*outputs.value()[0].shape), context.str(*outputs.value()[1].shape));
    EXPECT_EQ(outputs.value()[1].type, DataType::kINT32);
}

TEST(ShapeRules, QuantizeScalesMapOntoSymbolicShapes)
{
    // Extents known only at run time give assertions, constant ones errors now; the output keeps the input's shape.
    ExprContext exprs;
    DimExpr const* n = exprs.symbol("x.d0", SymbolKind::kINPUT_EXTENT);
    SymbolicTensor const data{SymbolicDims{n, exprs.constant(6)}, std::nullopt, DataType::kHALF};
    auto const scale = [&](std::vector<int64_t> const& extents) {
        SymbolicDims dims;
        for (int64_t e : extents)
        {
            dims.push_back(exprs.constant(e));
        }
        return SymbolicTensor{dims, std::nullopt, DataType::kFLOAT};
    };
    auto const run = [&](QuantizeParams const& params, std::vector<SymbolicTensor> inputs, std::size_t* assertions) {
        ShapeRuleContext context(exprs, "q", LayerType::kQUANTIZE, std::move(inputs), 1);
        auto const result = inferOutputShapes(params, context);
        if (assertions != nullptr)
        {
            *assertions = context.assertions().size();
        }
        if (result.ok())
        {
            EXPECT_EQ(context.str(*result.value()[0].shape), "[x.d0, 6]");
            EXPECT_EQ(result.value()[0].type, params.toType);
        }
        return result.ok() ? std::string{} : result.error().message;
    };
    std::size_t assertions = 0;
    EXPECT_EQ(run(QuantizeParams{1, Dims{-1, {}}, DataType::kFP8}, {data, scale({6})}, &assertions), "");
    EXPECT_EQ(assertions, 0U);
    EXPECT_EQ(run(QuantizeParams{-2, Dims{-1, {}}, DataType::kINT8}, {data, scale({4})}, &assertions), "");
    EXPECT_EQ(assertions, 1U); // x.d0 == 4, checked at the profile's points and at run time
    EXPECT_EQ(run(QuantizeParams{1, Dims{-1, {}}, DataType::kINT8}, {data, scale({4})}, nullptr),
        "layer 'q' (IQuantizeLayer): the 1-D scale has 4 elements but the input [x.d0, 6] has 6 along axis 1; they "
        "must be equal");
    EXPECT_EQ(run(QuantizeParams{2, Dims{-1, {}}, DataType::kINT8}, {data, scale({6})}, nullptr),
        "layer 'q' (IQuantizeLayer): axis 2 is outside [-2, 2) for the input [x.d0, 6]");
    // Blocks: [1, 3] divides [x.d0, 6] when x.d0 does not matter (scale extent 1); [2, 4] does not divide 6.
    EXPECT_EQ(run(QuantizeParams{}, {data, scale({1, 3})}, &assertions), "");
    EXPECT_EQ(run(QuantizeParams{}, {data, scale({2, 4})}, nullptr),
        "layer 'q' (IQuantizeLayer): axis 1 of the input [x.d0, 6] and of the scale [2, 4]: the scale's extent must "
        "divide the input's (or set a block shape)");
    EXPECT_EQ(run(QuantizeParams{-1, Dims{2, {-1, 4}}, DataType::kINT4}, {data, scale({1, 2})}, nullptr), "");
    EXPECT_EQ(run(QuantizeParams{-1, Dims{1, {4}}, DataType::kINT4}, {data, scale({1, 2})}, nullptr),
        "layer 'q' (IQuantizeLayer): the block shape has rank 1 but the input has rank 2");
    EXPECT_EQ(run(QuantizeParams{}, {data, scale({1, 2, 3})}, nullptr),
        "layer 'q' (IQuantizeLayer): the scale [1, 2, 3] has rank 3; a scale is 0-D (per tensor), 1-D (per axis) or "
        "of the input's rank 2 (per block)");
    EXPECT_EQ(run(QuantizeParams{-1, Dims{-1, {}}, DataType::kHALF}, {data, scale({})}, nullptr),
        "layer 'q' (IQuantizeLayer): the output type kHALF is not a quantized type (kINT8, kFP8 or kINT4)");
    SymbolicTensor const ints{SymbolicDims{}, std::nullopt, DataType::kINT32};
    EXPECT_EQ(run(QuantizeParams{}, {data, ints}, nullptr),
        "layer 'q' (IQuantizeLayer): the scale (input 1) is kINT32; it must be kFLOAT, kHALF or kBF16");
    EXPECT_EQ(run(QuantizeParams{}, {data}, nullptr),
        "layer 'q' (IQuantizeLayer): the data (input 0) and the scale (input 1) are required");
    // A dequantize reads codes.
    ShapeRuleContext context(exprs, "d", LayerType::kDEQUANTIZE, {data, scale({})}, 1);
    EXPECT_EQ(inferOutputShapes(DequantizeParams{}, context).error().message,
        "layer 'd' (IDequantizeLayer): input 0 is kHALF; it must be kINT8, kFP8 or kINT4");
}

TEST(ShapeRules, ScatterChecksIndicesAndUpdatesAgainstTheData)
{
    ExprContext exprs;
    DimExpr const* n = exprs.symbol("x.d0", SymbolKind::kINPUT_EXTENT);
    auto const tensor = [&](std::vector<DimExpr const*> dims, DataType type) {
        return SymbolicTensor{SymbolicDims(dims.begin(), dims.end()), std::nullopt, type};
    };
    auto const c = [&](int64_t v) { return exprs.constant(v); };
    SymbolicTensor const data = tensor({n, c(4)}, DataType::kFLOAT);
    auto const run = [&](ScatterParams const& params, SymbolicTensor const& indices, SymbolicTensor const& updates,
                         std::size_t* assertions) {
        ShapeRuleContext context(exprs, "s", LayerType::kSCATTER, {data, indices, updates}, 1);
        auto const result = inferOutputShapes(params, context);
        if (assertions != nullptr)
        {
            *assertions = context.assertions().size();
        }
        if (result.ok())
        {
            EXPECT_EQ(context.str(*result.value()[0].shape), "[x.d0, 4]");
        }
        return result.ok() ? std::string{} : result.error().message;
    };
    std::size_t assertions = 0;
    ScatterParams const element{nvinfer1::ScatterMode::kELEMENT, 0};
    // Along axis 0 the indices may be longer than the data; along axis 1 at most x.d0 (checked at run time).
    EXPECT_EQ(
        run(element, tensor({c(7), c(4)}, DataType::kINT32), tensor({c(7), c(4)}, DataType::kFLOAT), &assertions), "");
    EXPECT_EQ(run(ScatterParams{nvinfer1::ScatterMode::kELEMENT, -1}, tensor({c(7), c(4)}, DataType::kINT32),
                  tensor({c(7), c(4)}, DataType::kFLOAT), &assertions),
        "");
    EXPECT_EQ(assertions, 1U);
    EXPECT_EQ(run(element, tensor({c(2), c(5)}, DataType::kINT32), tensor({c(2), c(5)}, DataType::kFLOAT), nullptr),
        "layer 's' (IScatterLayer): the indices [2, 5] exceed the data [x.d0, 4] along axis 1 (only the scatter axis "
        "may be longer)");
    EXPECT_EQ(run(element, tensor({c(2), c(4)}, DataType::kINT32), tensor({c(2), c(3)}, DataType::kFLOAT), nullptr),
        "layer 's' (IScatterLayer): the updates [2, 3] must have the indices' shape [2, 4]");
    EXPECT_EQ(run(element, tensor({c(2)}, DataType::kINT32), tensor({c(2)}, DataType::kFLOAT), nullptr),
        "layer 's' (IScatterLayer): kELEMENT needs indices and updates of the data's rank 2; they are [2] and [2]");
    EXPECT_EQ(run(element, tensor({c(2), c(4)}, DataType::kHALF), tensor({c(2), c(4)}, DataType::kFLOAT), nullptr),
        "layer 's' (IScatterLayer): the indices are kHALF; they must be kINT32 or kINT64");
    EXPECT_EQ(run(element, tensor({c(2), c(4)}, DataType::kINT64), tensor({c(2), c(4)}, DataType::kHALF), nullptr),
        "layer 's' (IScatterLayer): the updates are kHALF but the data is kFLOAT; they must be one type");
    ScatterParams const nd{nvinfer1::ScatterMode::kND, 0};
    EXPECT_EQ(run(nd, tensor({c(3), c(1)}, DataType::kINT64), tensor({c(3), c(4)}, DataType::kFLOAT), nullptr), "");
    EXPECT_EQ(run(nd, tensor({c(3), c(2)}, DataType::kINT64), tensor({c(3)}, DataType::kFLOAT), nullptr), "");
    EXPECT_EQ(run(nd, tensor({c(3), n}, DataType::kINT64), tensor({c(3)}, DataType::kFLOAT), nullptr),
        "layer 's' (IScatterLayer): kND needs indices of rank 1 or more whose last extent (the tuple length) is a "
        "build-time constant; they are [3, x.d0]");
    EXPECT_EQ(run(nd, tensor({c(3), c(1)}, DataType::kINT64), tensor({c(3), c(5)}, DataType::kFLOAT), nullptr),
        "layer 's' (IScatterLayer): the updates [3, 5] must be indices.shape[:-1] + data.shape[k:] (indices [3, 1], "
        "data [x.d0, 4])");
    EXPECT_EQ(run(nd, tensor({c(3), c(1)}, DataType::kINT64), tensor({c(3)}, DataType::kFLOAT), nullptr),
        "layer 's' (IScatterLayer): the updates [3] have rank 1; kND needs indices.shape[:-1] + data.shape[k:], rank 2");
}

TEST_F(ShapeInference, CumulativeKeepsTheShapeAndNeedsTheAxisAtBuildTime)
{
    ITensor* x = input("x", Dims{3, {-1, 4, -1}}, DataType::kINT64);
    auto* layer
        = net().addCumulative(*x, *constant(Dims{0, {}}, {-1}), nvinfer1::CumulativeOperation::kSUM, false, true);
    layer->setName("c");
    NetworkShapes const shapes = infer();
    EXPECT_EQ(str(shapes, layer->getOutput(0)), "[x.d0, 4, x.d2]");

    layer->setInput(1, *constant(Dims{0, {}}, {3}));
    EXPECT_EQ(
        inferError(), "layer 'c' (ICumulativeLayer): the axis is 3; for an input of rank 3 it must be in [-3, 2]");
    layer->setInput(1, *constant(Dims{0, {}}, {-4}));
    EXPECT_EQ(
        inferError(), "layer 'c' (ICumulativeLayer): the axis is -4; for an input of rank 3 it must be in [-3, 2]");
    layer->setInput(1, *input("a", Dims{0, {}}, DataType::kINT32));
    EXPECT_EQ(
        inferError(), "layer 'c' (ICumulativeLayer): the value of input 1 (the axis) must be known at build time");
    layer->setInput(1, *constant(Dims{1, {1}}, {0}));
    EXPECT_EQ(inferError(),
        "layer 'c' (ICumulativeLayer): input 1 (the axis) is kINT32 of shape [1]; it must be a 0-D kINT32 or kINT64 "
        "tensor");
}

TEST_F(ShapeInference, GridSampleTakesTheGridsPositions)
{
    ITensor* x = input("x", Dims{4, {-1, 3, -1, -1}});
    ITensor* g = input("g", Dims{4, {-1, 5, -1, 2}});
    auto* layer = net().addGridSample(*x, *g);
    layer->setName("gs");
    NetworkShapes const shapes = infer();
    EXPECT_EQ(str(shapes, layer->getOutput(0)), "[x.d0, 3, 5, g.d2]");
    EXPECT_EQ(at(shapes, layer->getOutput(0), {{"x", Dims{4, {2, 3, 7, 7}}}, {"g", Dims{4, {2, 5, 4, 2}}}}),
        (std::vector<int64_t>{2, 3, 5, 4}));
    std::string const batch = atError(shapes, {{"x", Dims{4, {2, 3, 7, 7}}}, {"g", Dims{4, {3, 5, 4, 2}}}});
    EXPECT_NE(batch.find("must have the batch extent of the input"), std::string::npos) << batch;

    layer->setInput(1, *input("three", Dims{4, {1, 5, 4, 3}}));
    EXPECT_NE(inferError().find("layer 'gs' (IGridSampleLayer): the grid [1, 5, 4, 3] must end in an extent of 2"),
        std::string::npos)
        << inferError();
    layer->setInput(1, *input("half", Dims{4, {1, 5, 4, 2}}, DataType::kHALF));
    EXPECT_EQ(inferError(),
        "layer 'gs' (IGridSampleLayer): the input is kFLOAT and the grid kHALF; a grid sample takes "
        "two tensors of one type, kFLOAT, kHALF or kBF16");
}

TEST_F(ShapeInference, ReverseSequenceKeepsTheShapeAndMatchesTheLengths)
{
    ITensor* x = input("x", Dims{3, {-1, 4, -1}}, DataType::kHALF);
    ITensor* n = input("n", Dims{1, {-1}}, DataType::kINT32);
    auto* layer = net().addReverseSequence(*x, *n);
    layer->setName("r");
    NetworkShapes const shapes = infer();
    EXPECT_EQ(str(shapes, layer->getOutput(0)), "[x.d0, 4, x.d2]");
    // Batch axis 1: the lengths need 4 entries.
    EXPECT_EQ(at(shapes, layer->getOutput(0), {{"x", Dims{3, {2, 4, 5}}}, {"n", Dims{1, {4}}}}),
        (std::vector<int64_t>{2, 4, 5}));
    std::string const lengths = atError(shapes, {{"x", Dims{3, {2, 4, 5}}}, {"n", Dims{1, {3}}}});
    EXPECT_NE(lengths.find("must have one entry per index of the batch axis 1"), std::string::npos) << lengths;

    layer->setBatchAxis(0);
    EXPECT_EQ(inferError(),
        "layer 'r' (IReverseSequenceLayer): the batch axis and the sequence axis are both 0; they must differ");
    layer->setSequenceAxis(2);
    EXPECT_EQ(inferError(), "");
    layer->setInput(1, *input("f", Dims{1, {2}}));
    EXPECT_EQ(inferError(),
        "layer 'r' (IReverseSequenceLayer): the sequence lengths are kFLOAT of shape [2]; they "
        "must be a 1-D kINT32 or kINT64 tensor");
}

TEST_F(ShapeInference, EinsumBroadcastsTheExtentsOfEachLabel)
{
    ITensor* a = input("a", Dims{2, {-1, -1}});
    ITensor* b = input("b", Dims{2, {-1, 4}});
    ITensor* operands[] = {a, b};
    auto* layer = net().addEinsum(operands, 2, "ij,jk->ki");
    layer->setName("e");
    NetworkShapes const shapes = infer();
    EXPECT_EQ(str(shapes, layer->getOutput(0)), "[4, a.d0]");
    EXPECT_EQ(at(shapes, layer->getOutput(0), {{"a", Dims{2, {2, 3}}}, {"b", Dims{2, {3, 4}}}}),
        (std::vector<int64_t>{4, 2}));
    // An extent of 1 broadcasts; two other extents must be equal.
    EXPECT_EQ(at(shapes, layer->getOutput(0), {{"a", Dims{2, {2, 1}}}, {"b", Dims{2, {3, 4}}}}),
        (std::vector<int64_t>{4, 2}));
    std::string const mismatch = atError(shapes, {{"a", Dims{2, {2, 3}}}, {"b", Dims{2, {5, 4}}}});
    EXPECT_NE(mismatch.find("the extent of one label is a.d1 in input 0 axis 1 and b.d0 in input 1 axis 0; they must "
                            "be equal or one of them 1"),
        std::string::npos)
        << mismatch;

    ITensor* c = input("c", Dims{2, {2, 3}});
    ITensor* d = input("d", Dims{2, {5, 4}});
    ITensor* fixed[] = {c, d};
    net().addEinsum(fixed, 2, "ij,jk")->setName("f");
    EXPECT_EQ(inferError(),
        "layer 'f' (IEinsumLayer): the extent of one label is 3 in input 0 axis 1 and 5 in input 1 "
        "axis 0; they must be equal or one of them 1");
}

TEST_F(ShapeInference, NonZeroCountIsASizeTensorBoundedByTheVolume)
{
    ITensor* x = input("x", Dims{2, {-1, 4}});
    auto* layer = net().addNonZero(*x, DataType::kINT64);
    ASSERT_NE(layer, nullptr);
    layer->setName("nz");
    // A second non-zero of the first one's output (made 1-D): bounded by the first count's upper bound.
    auto* flat = net().addShuffle(*layer->getOutput(0));
    flat->setReshapeDimensions(Dims{1, {-1}});
    auto* again = net().addNonZero(*flat->getOutput(0), DataType::kINT32);
    again->setName("nz2");
    NetworkShapes const shapes = infer();
    EXPECT_EQ(str(shapes, layer->getOutput(0)), "[2, nz.count]");
    EXPECT_EQ(str(shapes, again->getOutput(0)), "[1, nz2.count]");
    auto const& hidden = Network::of(net()).layers().front()->outputs();
    ASSERT_EQ(hidden.size(), 2U);
    EXPECT_EQ(str(shapes, hidden[1]), "[]");
    ASSERT_TRUE(shapes.tensors.at(hidden[1]).values.has_value());
    EXPECT_EQ(mExprs.toString(*shapes.tensors.at(hidden[1]).values->front()), "nz.count");
    EXPECT_EQ(hidden[1]->type(), DataType::kINT64);

    ProfileData profile;
    profile.inputs["x"].dims = {Dims{2, {1, 4}}, Dims{2, {2, 4}}, Dims{2, {3, 4}}};
    auto const concrete = concretize(shapes, mExprs, profile, "profile 0");
    ASSERT_TRUE(concrete.ok()) << concrete.error().message;
    ConcreteShape const& out = concrete.value().tensors.at(static_cast<Tensor*>(layer->getOutput(0)));
    EXPECT_EQ(vec(out.min), (std::vector<int64_t>{2, 0}));
    EXPECT_EQ(vec(out.opt), (std::vector<int64_t>{2, 8}));
    EXPECT_EQ(vec(out.max), (std::vector<int64_t>{2, 12}));
    EXPECT_EQ(vec(out.upper), (std::vector<int64_t>{2, 12}));
    // The second count is bounded by twice the first's upper bound (the flattened [2, n] has 2n elements).
    ConcreteShape const& second = concrete.value().tensors.at(static_cast<Tensor*>(again->getOutput(0)));
    EXPECT_EQ(vec(second.max), (std::vector<int64_t>{1, 24}));

    // At run time, once the layer has run and n is known.
    SymbolId const n = shapes.shape(*static_cast<Tensor*>(layer->getOutput(0)))[1]->symbol();
    auto const run = evaluate(shapes, mExprs, InputValues{{{"x", Dims{2, {3, 4}}}}, {}, {{n, 5}}});
    ASSERT_TRUE(run.ok()) << run.error().message;
    EXPECT_EQ(vec(run.value().at(static_cast<Tensor*>(layer->getOutput(0)))), (std::vector<int64_t>{2, 5}));
    EXPECT_EQ(run.value().count(static_cast<Tensor*>(again->getOutput(0))), 0U); // waits for its own count
}

TEST_F(ShapeInference, NmsRowsAreASizeTensorBoundedByTheLimit)
{
    ITensor* boxes = input("boxes", Dims{3, {-1, 10, 4}});
    ITensor* scores = input("scores", Dims{3, {-1, 10, 3}});
    auto* layer = net().addNMS(*boxes, *scores, *constant(Dims{0, {}}, {4}), DataType::kINT32);
    ASSERT_NE(layer, nullptr);
    layer->setName("nms");
    NetworkShapes const shapes = infer();
    EXPECT_EQ(str(shapes, layer->getOutput(0)), "[nms.count, 3]");
    EXPECT_EQ(str(shapes, layer->getOutput(1)), "[]");
    ProfileData profile;
    profile.inputs["boxes"].dims = {Dims{3, {1, 10, 4}}, Dims{3, {1, 10, 4}}, Dims{3, {2, 10, 4}}};
    profile.inputs["scores"].dims = {Dims{3, {1, 10, 3}}, Dims{3, {1, 10, 3}}, Dims{3, {2, 10, 3}}};
    auto const concrete = concretize(shapes, mExprs, profile, "profile 0");
    ASSERT_TRUE(concrete.ok()) << concrete.error().message;
    // B * C * min(N, 4) at kMAX.
    EXPECT_EQ(
        vec(concrete.value().tensors.at(static_cast<Tensor*>(layer->getOutput(0))).max), (std::vector<int64_t>{24, 3}));
}

TEST_F(ShapeInference, NmsRowsWithALimitKnownAtRunTimeAreBoundedByTheBoxes)
{
    ITensor* boxes = input("boxes", Dims{3, {-1, 10, 4}});
    ITensor* scores = input("scores", Dims{3, {-1, 10, 3}});
    auto* layer = net().addNMS(*boxes, *scores, *input("limit", Dims{0, {}}, DataType::kINT32), DataType::kINT32);
    ASSERT_NE(layer, nullptr);
    NetworkShapes const shapes = infer();
    ProfileData profile;
    profile.inputs["boxes"].dims = {Dims{3, {1, 10, 4}}, Dims{3, {1, 10, 4}}, Dims{3, {2, 10, 4}}};
    profile.inputs["scores"].dims = {Dims{3, {1, 10, 3}}, Dims{3, {1, 10, 3}}, Dims{3, {2, 10, 3}}};
    profile.inputs["limit"].dims = {Dims{0, {}}, Dims{0, {}}, Dims{0, {}}};
    profile.inputs["limit"].values = {std::vector<int64_t>{1}, std::vector<int64_t>{1}, std::vector<int64_t>{1}};
    auto const concrete = concretize(shapes, mExprs, profile, "profile 0");
    ASSERT_TRUE(concrete.ok()) << concrete.error().message;
    // B * C * N at kMAX.
    EXPECT_EQ(
        vec(concrete.value().tensors.at(static_cast<Tensor*>(layer->getOutput(0))).max), (std::vector<int64_t>{60, 3}));
}

TEST_F(ShapeInference, NmsRefusals)
{
    ITensor* boxes = input("boxes", Dims{3, {-1, 10, 4}});
    ITensor* scores = input("scores", Dims{3, {-1, 8, 3}});
    auto* layer = net().addNMS(*boxes, *scores, *constant(Dims{0, {}}, {4}), DataType::kINT32);
    ASSERT_NE(layer, nullptr);
    layer->setName("nms");
    EXPECT_EQ(inferError(),
        "layer 'nms' (INMSLayer): the boxes and scores must have one number of boxes (boxes [boxes.d0, 10, 4], scores "
        "[scores.d0, 8, 3])");
    layer->setInput(1, *input("s2", Dims{3, {-1, 10, 3}}));
    layer->setInput(3, *constant(Dims{0, {}}, {1}));
    EXPECT_EQ(inferError(),
        "layer 'nms' (INMSLayer): input 3 (the IoU threshold) is kINT32 of shape []; it must be a 0-D kFLOAT tensor");
}

TEST_F(ShapeInference, SelectBroadcastsThreeWays)
{
    ITensor* c = input("c", Dims{3, {-1, 1, 1}}, DataType::kBOOL);
    ITensor* t = input("t", Dims{3, {1, 4, 1}});
    ITensor* e = input("e", Dims{3, {1, 1, 5}});
    ITensor* out = net().addSelect(*c, *t, *e)->getOutput(0);
    NetworkShapes const shapes = infer();
    EXPECT_EQ(at(shapes, out, {{"c", Dims{3, {3, 1, 1}}}}), (std::vector<int64_t>{3, 4, 5}));
}

TEST_F(ShapeInference, ShapePreservingKindsAndShapeAndConstant)
{
    ITensor* x = input("x", Dims{3, {-1, 2, -1}});
    ITensor* a = net().addActivation(*x, nvinfer1::ActivationType::kRELU)->getOutput(0);
    ITensor* u = net().addUnary(*a, nvinfer1::UnaryOperation::kEXP)->getOutput(0);
    ITensor* s = net().addSoftMax(*u)->getOutput(0);
    ITensor* c = net().addCast(*s, DataType::kHALF)->getOutput(0);
    ITensor* i = net().addIdentity(*c)->getOutput(0);
    ITensor* shape = net().addShape(*i)->getOutput(0);
    ITensor* k = constant(Dims{2, {2, 3}}, {1, 2, 3, 4, 5, 6});
    NetworkShapes const shapes = infer();
    for (ITensor* tensor : {a, u, s, c, i})
    {
        EXPECT_EQ(str(shapes, tensor), "[x.d0, 2, x.d2]");
    }
    EXPECT_EQ(str(shapes, shape), "[3]");
    SymbolicTensor const& values = shapes.tensors.at(static_cast<Tensor*>(shape));
    ASSERT_TRUE(values.values.has_value());
    EXPECT_EQ(mExprs.toString(*(*values.values)[2]), "x.d2");
    EXPECT_EQ(str(shapes, k), "[2, 3]");
}

// ---- plugins ----

//! A NonZero-like V3 plugin "NonZeroLike" version "1" namespace "test": data input X [R, C] and a shape input with one
//! value P; output 0 is [2, K] and output 1 the size tensor K, with optimum R * C / 2 and upper bound min(R * C, P).
class NonZeroLikePlugin final : public nvinfer1::IPluginV3,
                                public nvinfer1::IPluginV3OneCore,
                                public nvinfer1::IPluginV3OneBuild
{
public:
    enum class Misbehave
    {
        kNONE,
        kSTATUS,
        kFOREIGN
    };
    explicit NonZeroLikePlugin(Misbehave misbehave = Misbehave::kNONE)
        : mMisbehave(misbehave)
    {
    }
    nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept override
    {
        switch (type)
        {
        case nvinfer1::PluginCapabilityType::kCORE: return static_cast<nvinfer1::IPluginV3OneCore*>(this);
        case nvinfer1::PluginCapabilityType::kBUILD: return static_cast<nvinfer1::IPluginV3OneBuild*>(this);
        case nvinfer1::PluginCapabilityType::kRUNTIME: return nullptr;
        }
        return nullptr;
    }
    nvinfer1::IPluginV3* clone() noexcept override { return new NonZeroLikePlugin(mMisbehave); }
    char const* getPluginName() const noexcept override { return "NonZeroLike"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    char const* getPluginNamespace() const noexcept override { return "test"; }
    int32_t configurePlugin(nvinfer1::DynamicPluginTensorDesc const*, int32_t, nvinfer1::DynamicPluginTensorDesc const*,
        int32_t) noexcept override
    {
        return 0;
    }
    int32_t getOutputDataTypes(DataType* outputTypes, int32_t, DataType const*, int32_t) const noexcept override
    {
        outputTypes[0] = DataType::kINT32;
        outputTypes[1] = DataType::kINT64;
        return 0;
    }
    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t, nvinfer1::DimsExprs const* shapeInputs, int32_t,
        nvinfer1::DimsExprs* outputs, int32_t, nvinfer1::IExprBuilder& builder) noexcept override
    {
        if (mMisbehave == Misbehave::kSTATUS)
        {
            return 3;
        }
        auto const* volume = builder.operation(nvinfer1::DimensionOperation::kPROD, *inputs[0].d[0], *inputs[0].d[1]);
        auto const* opt = builder.operation(nvinfer1::DimensionOperation::kFLOOR_DIV, *volume, *builder.constant(2));
        auto const* upper = builder.operation(nvinfer1::DimensionOperation::kMIN, *volume, *shapeInputs[0].d[0]);
        if (mMisbehave == Misbehave::kFOREIGN)
        {
            upper = &mForeign;
        }
        auto const* k = builder.declareSizeTensor(1, *opt, *upper);
        outputs[0].nbDims = 2;
        outputs[0].d[0] = builder.constant(2);
        outputs[0].d[1] = k;
        outputs[1].nbDims = 0;
        return 0;
    }
    bool supportsFormatCombination(
        int32_t, nvinfer1::DynamicPluginTensorDesc const*, int32_t, int32_t) noexcept override
    {
        return true;
    }
    int32_t getNbOutputs() const noexcept override { return 2; }

private:
    //! An expression no builder made.
    class Foreign final : public nvinfer1::IDimensionExpr
    {
    };
    Misbehave mMisbehave;
    Foreign mForeign;
};

TEST_F(ShapeInference, PluginV3WithAShapeInputAndASizeTensor)
{
    ITensor* x = input("x", Dims{2, {-1, -1}});
    ITensor* limit = input("limit", Dims{1, {1}}, DataType::kINT32);
    NonZeroLikePlugin plugin;
    auto* layer = net().addPluginV3(&x, 1, &limit, 1, plugin);
    ASSERT_NE(layer, nullptr);
    layer->setName("nz");
    // Downstream of the size tensor: a fill of shape [K] from output 1's value.
    auto* toVector = net().addShuffle(*layer->getOutput(1));
    toVector->setReshapeDimensions(Dims{1, {1}});
    ITensor* k = toVector->getOutput(0);
    auto* fill = net().addFill(Dims{0, {}}, nvinfer1::FillOperation::kLINSPACE);
    fill->setInput(0, *k);
    NetworkShapes const shapes = infer();
    EXPECT_EQ(str(shapes, layer->getOutput(0)), "[2, nz.output1.size]");
    EXPECT_EQ(str(shapes, layer->getOutput(1)), "[]");
    EXPECT_EQ(str(shapes, fill->getOutput(0)), "[nz.output1.size]");

    ProfileData profile;
    profile.inputs["x"].dims = {Dims{2, {1, 1}}, Dims{2, {4, 6}}, Dims{2, {8, 8}}};
    profile.inputs["limit"].dims = {Dims{1, {1}}, Dims{1, {1}}, Dims{1, {1}}};
    profile.inputs["limit"].values = {std::vector<int64_t>{1}, std::vector<int64_t>{10}, std::vector<int64_t>{50}};
    auto const concrete = concretize(shapes, mExprs, profile, "profile 0");
    ASSERT_TRUE(concrete.ok()) << concrete.error().message;
    ConcreteShape const& out = concrete.value().tensors.at(static_cast<Tensor*>(layer->getOutput(0)));
    EXPECT_EQ(vec(out.min), (std::vector<int64_t>{2, 0}));
    EXPECT_EQ(vec(out.opt), (std::vector<int64_t>{2, 12})); // 4 * 6 / 2
    EXPECT_EQ(vec(out.max), (std::vector<int64_t>{2, 50})); // min(8 * 8, 50)
    EXPECT_EQ(vec(out.upper), (std::vector<int64_t>{2, 50}));
    EXPECT_EQ(
        vec(concrete.value().tensors.at(static_cast<Tensor*>(fill->getOutput(0))).max), (std::vector<int64_t>{50}));

    // At run time, once the plugin has run and K is known.
    SymbolId const kSymbol = shapes.shape(*static_cast<Tensor*>(fill->getOutput(0)))[0]->symbol();
    auto const run = evaluate(shapes, mExprs,
        InputValues{{{"x", Dims{2, {3, 3}}}, {"limit", Dims{1, {1}}}}, {{"limit", {5}}}, {{kSymbol, 4}}});
    ASSERT_TRUE(run.ok()) << run.error().message;
    EXPECT_EQ(vec(run.value().at(static_cast<Tensor*>(fill->getOutput(0)))), (std::vector<int64_t>{4}));
}

TEST_F(ShapeInference, PluginV3ErrorsNameThePluginAndTheLayer)
{
    ITensor* x = input("x", Dims{2, {-1, -1}});
    ITensor* limit = input("limit", Dims{1, {1}}, DataType::kINT32);
    NonZeroLikePlugin failing(NonZeroLikePlugin::Misbehave::kSTATUS);
    auto* layer = net().addPluginV3(&x, 1, &limit, 1, failing);
    layer->setName("nz");
    EXPECT_EQ(inferError(),
        "layer 'nz' (IPluginV3Layer): plugin \"NonZeroLike\" version \"1\" namespace \"test\": "
        "getOutputShapes() returned status 3");
    mDefinition.reset(mBuilder->createNetworkV2(0));
    x = input("x", Dims{2, {-1, -1}});
    limit = input("limit", Dims{1, {1}}, DataType::kINT32);
    NonZeroLikePlugin foreign(NonZeroLikePlugin::Misbehave::kFOREIGN);
    net().addPluginV3(&x, 1, &limit, 1, foreign)->setName("nz2");
    EXPECT_EQ(inferError(),
        "layer 'nz2' (IPluginV3Layer): plugin \"NonZeroLike\" version \"1\" namespace \"test\": getOutputShapes(): "
        "IExprBuilder::declareSizeTensor: the upper expression was not made by this builder (only expressions from "
        "IExprBuilder or from the inputs' DimsExprs may be passed back)");
}

//! A V2DynamicExt plugin "Padder" version "1": output 0 is input 0 with its last extent plus input 1's first.
class PadderPlugin final : public nvinfer1::IPluginV2DynamicExt
{
public:
    int32_t getNbOutputs() const noexcept override { return 1; }
    nvinfer1::DimsExprs getOutputDimensions(
        int32_t, nvinfer1::DimsExprs const* inputs, int32_t, nvinfer1::IExprBuilder& builder) noexcept override
    {
        nvinfer1::DimsExprs out = inputs[0];
        out.d[out.nbDims - 1]
            = builder.operation(nvinfer1::DimensionOperation::kSUM, *inputs[0].d[out.nbDims - 1], *inputs[1].d[0]);
        return out;
    }
    DataType getOutputDataType(int32_t, DataType const* types, int32_t) const noexcept override { return types[0]; }
    bool supportsFormatCombination(int32_t, nvinfer1::PluginTensorDesc const*, int32_t, int32_t) noexcept override
    {
        return true;
    }
    void configurePlugin(nvinfer1::DynamicPluginTensorDesc const*, int32_t, nvinfer1::DynamicPluginTensorDesc const*,
        int32_t) noexcept override
    {
    }
    size_t getWorkspaceSize(
        nvinfer1::PluginTensorDesc const*, int32_t, nvinfer1::PluginTensorDesc const*, int32_t) const noexcept override
    {
        return 0;
    }
    int32_t enqueue(nvinfer1::PluginTensorDesc const*, nvinfer1::PluginTensorDesc const*, void const* const*,
        void* const*, void*, cudaStream_t) noexcept override
    {
        return 0;
    }
    nvinfer1::IPluginV2DynamicExt* clone() const noexcept override { return new PadderPlugin(); }
    char const* getPluginType() const noexcept override { return "Padder"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    int32_t initialize() noexcept override { return 0; }
    void terminate() noexcept override {}
    size_t getSerializationSize() const noexcept override { return 0; }
    void serialize(void*) const noexcept override {}
    void destroy() noexcept override { delete this; }
    void setPluginNamespace(char const*) noexcept override {}
    char const* getPluginNamespace() const noexcept override { return ""; }
};

TEST_F(ShapeInference, PluginV2DynamicExtGivesSymbolicOutputs)
{
    ITensor* x = input("x", Dims{2, {-1, -1}});
    ITensor* y = input("y", Dims{1, {-1}});
    ITensor* inputs[] = {x, y};
    PadderPlugin plugin;
    auto* layer = net().addPluginV2(inputs, 2, plugin);
    ASSERT_NE(layer, nullptr);
    NetworkShapes const shapes = infer();
    EXPECT_EQ(str(shapes, layer->getOutput(0)), "[x.d0, (x.d1 + y.d0)]");
    EXPECT_EQ(
        at(shapes, layer->getOutput(0), {{"x", Dims{2, {3, 4}}}, {"y", Dims{1, {5}}}}), (std::vector<int64_t>{3, 9}));
}

TEST_F(ShapeInference, IfConditionalOutputsFollowTheBranchTaken)
{
    ITensor* flag = input("flag", Dims{0, {}}, DataType::kBOOL);
    ITensor* a = input("a", Dims{2, {-1, 3}});
    ITensor* b = input("b", Dims{2, {-1, 5}});
    nvinfer1::IIfConditional* conditional = net().addIfConditional();
    ASSERT_NE(conditional->setCondition(*flag), nullptr);
    ITensor* in = conditional->addInput(*a)->getOutput(0);
    auto* same = conditional->addOutput(*in, *a);
    auto* differ = conditional->addOutput(*a, *b);
    ASSERT_NE(same, nullptr);
    ASSERT_NE(differ, nullptr);
    NetworkShapes const shapes = infer();
    EXPECT_EQ(str(shapes, in), "[a.d0, 3]");
    EXPECT_EQ(str(shapes, same->getOutput(0)), "[a.d0, 3]");
    // Extent 0 differs: b.d0 + c * (a.d0 - b.d0) with c the condition's value, known once the condition layer ran.
    std::string const differs = str(shapes, differ->getOutput(0));
    EXPECT_NE(differs.find(".v0"), std::string::npos) << differs;
    EXPECT_NE(differs.find("a.d0"), std::string::npos) << differs;
    EXPECT_NE(differs.find("b.d0"), std::string::npos) << differs;
}

TEST_F(ShapeInference, IfConditionalWithAConstantConditionPicksTheBranchsShape)
{
    // 2 < 3 on shape values: a condition whose value is known at build time.
    ITensor* flag = net()
                        .addElementWise(*constant(Dims{0, {}}, {2}), *constant(Dims{0, {}}, {3}),
                            nvinfer1::ElementWiseOperation::kLESS)
                        ->getOutput(0);
    ITensor* a = input("a", Dims{1, {3}});
    ITensor* b = input("b", Dims{1, {5}});
    nvinfer1::IIfConditional* conditional = net().addIfConditional();
    ASSERT_NE(conditional->setCondition(*flag), nullptr);
    auto* out = conditional->addOutput(*a, *b);
    NetworkShapes const shapes = infer();
    EXPECT_EQ(str(shapes, out->getOutput(0)), "[3]");
}

TEST_F(ShapeInference, IfConditionalWithoutAConditionIsRefused)
{
    ITensor* a = input("a", Dims{1, {3}});
    nvinfer1::IIfConditional* conditional = net().addIfConditional();
    auto* out = conditional->addOutput(*a, *a);
    out->setName("out");
    EXPECT_NE(inferError().find("layer 'out' (IIfConditionalOutputLayer): its if-conditional has no condition; call "
                                "IIfConditional::setCondition"),
        std::string::npos)
        << inferError();
}

TEST(ShapeRules, ResizeRefusesScalesTheApiDoesNotSet)
{
    // What a plan could hold but the API refuses: scales that are not positive, a product beyond 64 bits, a scale
    // of a run-time extent that no shape expression holds exactly.
    ExprContext exprs;
    SymbolicTensor const fixed{SymbolicDims{exprs.constant(int64_t{1} << 40)}, std::nullopt, DataType::kFLOAT};
    SymbolicTensor const symbolic{
        SymbolicDims{exprs.symbol("x.d0", SymbolKind::kINPUT_EXTENT)}, std::nullopt, DataType::kFLOAT};
    auto const error = [&](SymbolicTensor const& in, float scale) {
        ResizeParams params;
        params.scales = {scale};
        ShapeRuleContext context(exprs, "r", LayerType::kRESIZE, {in}, 1);
        auto const result = inferOutputShapes(params, context);
        return result.ok() ? std::string("(accepted)") : result.error().message;
    };
    EXPECT_EQ(error(fixed, -2.F), "layer 'r' (IResizeLayer): scale 0 is -2; scales must be positive and finite");
    EXPECT_EQ(error(fixed, 1e30F),
        "layer 'r' (IResizeLayer): axis 0: extent 1099511627776 times scale 1e+30 does not fit in 64 bits");
    EXPECT_EQ(error(symbolic, 1e-20F),
        "layer 'r' (IResizeLayer): axis 0: scale 1e-20 of the run-time extent x.d0 is too small or too large for a "
        "shape expression (2^-40 to 2^48)");
    EXPECT_EQ(error(symbolic, 0.1F), "(accepted)");
    // An output shape whose values shape inference does not know.
    SymbolicTensor const unknown{SymbolicDims{exprs.constant(1)}, std::nullopt, DataType::kINT64};
    ShapeRuleContext unknownContext(exprs, "r", LayerType::kRESIZE, {symbolic, unknown}, 1);
    EXPECT_EQ(inferOutputShapes(ResizeParams{}, unknownContext).error().message,
        "layer 'r' (IResizeLayer): the values of input 1 (the output shape) are not known symbolically");
    ResizeParams missing;
    ShapeRuleContext context(exprs, "r", LayerType::kRESIZE, {}, 1);
    EXPECT_EQ(inferOutputShapes(missing, context).error().message, "layer 'r' (IResizeLayer): input 0 is missing");
}

TEST(ShapeRules, EveryKindHasARule)
{
    // Each layer kind's rule is reachable through the parameter variant: a rule missing from a kind's file is a
    // link error, and each answers (here with an error for missing inputs, or a shape) without crashing.
    ExprContext exprs;
    for (std::size_t i = 0; i < kLayerKinds.size(); ++i)
    {
        LayerType const type = kLayerKinds[i].type;
        if (type == LayerType::kPLUGIN_V2 || type == LayerType::kPLUGIN_V3)
        {
            continue; // need a plugin object; tested above
        }
        LayerParams params = [&]() -> LayerParams {
            switch (type)
            {
            case LayerType::kCONVOLUTION: return ConvolutionParams{};
            case LayerType::kDECONVOLUTION: return DeconvolutionParams{};
            case LayerType::kCUMULATIVE: return CumulativeParams{};
            case LayerType::kCAST: return CastParams{};
            case LayerType::kACTIVATION: return ActivationParams{};
            case LayerType::kPOOLING: return PoolingParams{};
            case LayerType::kSOFTMAX: return SoftMaxParams{1U};
            case LayerType::kCONCATENATION: return ConcatenationParams{};
            case LayerType::kELEMENTWISE: return ElementWiseParams{};
            case LayerType::kUNARY: return UnaryParams{};
            case LayerType::kSHUFFLE: return ShuffleParams{};
            case LayerType::kREDUCE: return ReduceParams{};
            case LayerType::kTOPK: return TopKParams{nvinfer1::TopKOperation::kMAX, 1, 1U, DataType::kINT32};
            case LayerType::kGATHER: return GatherParams{};
            case LayerType::kMATRIX_MULTIPLY: return MatrixMultiplyParams{};
            case LayerType::kCONSTANT: return ConstantParams{Dims{1, {2}}, Weights{DataType::kFLOAT, nullptr, 0}};
            case LayerType::kIDENTITY: return IdentityParams{};
            case LayerType::kSLICE: return SliceParams{Dims{1, {0}}, Dims{1, {1}}, Dims{1, {1}}};
            case LayerType::kSHAPE: return ShapeParams{};
            case LayerType::kRESIZE: return ResizeParams{};
            case LayerType::kSELECT: return SelectParams{};
            case LayerType::kFILL: return FillParams{Dims{1, {3}}};
            case LayerType::kQUANTIZE: return QuantizeParams{};
            case LayerType::kDEQUANTIZE: return DequantizeParams{};
            case LayerType::kSCATTER: return ScatterParams{};
            case LayerType::kEINSUM: return EinsumParams{"i,i"};
            case LayerType::kGRID_SAMPLE: return GridSampleParams{};
            case LayerType::kREVERSE_SEQUENCE: return ReverseSequenceParams{};
            case LayerType::kNON_ZERO: return NonZeroParams{};
            case LayerType::kNMS: return NMSParams{};
            case LayerType::kCONDITION: return ConditionParams{};
            case LayerType::kCONDITIONAL_INPUT: return IfConditionalInputParams{};
            case LayerType::kCONDITIONAL_OUTPUT: return IfConditionalOutputParams{};
            case LayerType::kTRIP_LIMIT: return TripLimitParams{};
            case LayerType::kRECURRENCE: return RecurrenceParams{};
            case LayerType::kITERATOR: return IteratorParams{};
            case LayerType::kLOOP_OUTPUT: return LoopOutputParams{};
            default: return IdentityParams{};
            }
        }();
        ASSERT_EQ(layerTypeOf(params), type) << kLayerKinds[i].className;
        SymbolicTensor const in{SymbolicDims{exprs.constant(2)}, std::nullopt, DataType::kFLOAT};
        ShapeRuleContext context(exprs, "k", type, {in, in, in}, 1);
        auto const result = std::visit([&](auto const& p) { return inferOutputShapes(p, context); }, params);
        if (result.ok())
        {
            // A trip limit has no outputs.
            EXPECT_EQ(result.value().size(), type == LayerType::kTRIP_LIMIT ? 0U : 1U) << kLayerKinds[i].className;
        }
        else
        {
            EXPECT_NE(result.error().message.find("layer 'k' (" + std::string(kLayerKinds[i].className) + "): "),
                std::string::npos)
                << result.error().message;
        }
    }
}

} // namespace
} // namespace kiln
