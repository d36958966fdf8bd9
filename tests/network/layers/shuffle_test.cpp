// SPDX-License-Identifier: Apache-2.0
// IShuffleLayer: identity transposes and no reshape by default, zeroIsPlaceholder, reshape from a tensor, shapes,
// refusals.
#include "support/api_test.h"

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::Permutation;

using ShuffleTest = ApiTest;

Permutation permutation(std::initializer_list<int32_t> order)
{
    Permutation result{};
    int32_t i = 0;
    for (int32_t axis : order)
    {
        result.order[i++] = axis;
    }
    for (; i < nvinfer1::Dims::MAX_DIMS; ++i)
    {
        result.order[i] = i;
    }
    return result;
}

TEST_F(ShuffleTest, Defaults)
{
    nvinfer1::IShuffleLayer* shuffle = mNetwork->addShuffle(*input("x", dims({2, 3, 4})));
    ASSERT_NE(shuffle, nullptr);
    EXPECT_STREQ(shuffle->getName(), "(Unnamed Layer* 0) [Shuffle]");
    for (int32_t i = 0; i < nvinfer1::Dims::MAX_DIMS; ++i)
    {
        EXPECT_EQ(shuffle->getFirstTranspose().order[i], i);
        EXPECT_EQ(shuffle->getSecondTranspose().order[i], i);
    }
    EXPECT_EQ(shuffle->getReshapeDimensions().nbDims, -1);
    EXPECT_TRUE(shuffle->getZeroIsPlaceholder());
    EXPECT_DIMS(shuffle->getOutput(0)->getDimensions(), {2, 3, 4});
    expectNoError();
}

TEST_F(ShuffleTest, TransposeReshapeTranspose)
{
    nvinfer1::IShuffleLayer* shuffle = mNetwork->addShuffle(*input("x", dims({2, 3, 4})));
    shuffle->setFirstTranspose(permutation({2, 0, 1}));
    EXPECT_EQ(shuffle->getFirstTranspose().order[0], 2);
    EXPECT_DIMS(shuffle->getOutput(0)->getDimensions(), {4, 2, 3});
    shuffle->setReshapeDimensions(dims({0, -1}));
    EXPECT_DIMS(shuffle->getReshapeDimensions(), {0, -1});
    EXPECT_DIMS(shuffle->getOutput(0)->getDimensions(), {4, 6});
    shuffle->setSecondTranspose(permutation({1, 0}));
    EXPECT_DIMS(shuffle->getOutput(0)->getDimensions(), {6, 4});
    shuffle->setZeroIsPlaceholder(false);
    EXPECT_FALSE(shuffle->getZeroIsPlaceholder());
    shuffle->setReshapeDimensions(dims({0, 24}));
    EXPECT_DIMS(shuffle->getOutput(0)->getDimensions(), {24, 0});
    expectNoError();
}

TEST_F(ShuffleTest, ReshapeFromATensor)
{
    nvinfer1::IShuffleLayer* shuffle = mNetwork->addShuffle(*input("x", dims({2, 3, 4})));
    nvinfer1::ITensor* shape = input("shape", dims({2}), DataType::kINT64);
    shuffle->setInput(1, *shape);
    EXPECT_EQ(shuffle->getNbInputs(), 2);
    EXPECT_EQ(shuffle->getReshapeDimensions().nbDims, -1);
    EXPECT_DIMS(shuffle->getOutput(0)->getDimensions(), {-1, -1});
    shuffle->setReshapeDimensions(dims({24}));
    EXPECT_EQ(shuffle->getNbInputs(), 1); // a static reshape replaces the tensor
    EXPECT_DIMS(shuffle->getOutput(0)->getDimensions(), {24});
    shuffle->setInput(2, *shape);
    expectError({"IShuffleLayer::setInput", "input index 2 is out of range", "inputs 0 to 1"});
}

TEST_F(ShuffleTest, Refusals)
{
    nvinfer1::IShuffleLayer* shuffle = mNetwork->addShuffle(*input("x", dims({2, 3})));
    shuffle->setFirstTranspose(permutation({0, 0}));
    expectError({"IShuffleLayer::setFirstTranspose", "are not a permutation of 0 to 1"});
    shuffle->setReshapeDimensions(dims({-1, -1}));
    expectError({"IShuffleLayer::setReshapeDimensions", "more than one -1"});
    shuffle->setReshapeDimensions(dims({-2, 3}));
    expectError({"IShuffleLayer::setReshapeDimensions", "extent 0 is -2"});
    shuffle->setReshapeDimensions(nvinfer1::Dims{9, {}});
    expectError({"IShuffleLayer::setReshapeDimensions", "has 9 dimensions"});
    shuffle->setReshapeDimensions(dims({6}));
    shuffle->setSecondTranspose(permutation({1, 0}));
    expectError({"IShuffleLayer::setSecondTranspose", "the reshaped rank is 1"});
    EXPECT_EQ(shuffle->getFirstTranspose().order[1], 1);
}

} // namespace
} // namespace kiln::test
