// SPDX-License-Identifier: Apache-2.0
// IShapeLayer: a 1-D kINT64 output as long as the input's rank.
#include "support/api_test.h"

namespace kiln::test
{
namespace
{

using ShapeTest = ApiTest;

TEST_F(ShapeTest, OutputIsOneDimensionalInt64)
{
    nvinfer1::IShapeLayer* layer = mNetwork->addShape(*input("x", dims({-1, 3, 5})));
    ASSERT_NE(layer, nullptr);
    EXPECT_EQ(layer->getType(), nvinfer1::LayerType::kSHAPE);
    EXPECT_STREQ(layer->getName(), "(Unnamed Layer* 0) [Shape]");
    EXPECT_EQ(layer->getOutput(0)->getType(), nvinfer1::DataType::kINT64);
    EXPECT_DIMS(layer->getOutput(0)->getDimensions(), {3});
    // The rank of a tensor reshaped by a tensor of unknown length is unknown, and so is its shape's length.
    nvinfer1::IShuffleLayer* reshape = mNetwork->addShuffle(*input("y", dims({6})));
    reshape->setInput(1, *input("s", dims({-1}), nvinfer1::DataType::kINT64));
    nvinfer1::IShapeLayer* unknown = mNetwork->addShape(*reshape->getOutput(0));
    EXPECT_EQ(reshape->getOutput(0)->getDimensions().nbDims, -1);
    EXPECT_DIMS(unknown->getOutput(0)->getDimensions(), {-1});
    expectNoError();
}

} // namespace
} // namespace kiln::test
