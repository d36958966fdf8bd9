// SPDX-License-Identifier: Apache-2.0
// IPoolingLayer: parameters, TensorRT's defaults, output shape, and refusals.
#include "support/api_test.h"

namespace kiln::test
{
namespace
{

using nvinfer1::PaddingMode;
using nvinfer1::PoolingType;

using PoolingTest = ApiTest;

TEST_F(PoolingTest, ParametersAndDefaults)
{
    nvinfer1::IPoolingLayer* pool
        = mNetwork->addPoolingNd(*input("x", dims({2, 3, 8, 9})), PoolingType::kMAX, dims({2, 2}));
    ASSERT_NE(pool, nullptr);
    EXPECT_STREQ(pool->getName(), "(Unnamed Layer* 0) [Pooling]");
    EXPECT_EQ(pool->getPoolingType(), PoolingType::kMAX);
    EXPECT_DIMS(pool->getWindowSizeNd(), {2, 2});
    EXPECT_DIMS(pool->getStrideNd(), {1, 1});
    EXPECT_DIMS(pool->getPaddingNd(), {0, 0});
    EXPECT_DIMS(pool->getPrePadding(), {0, 0});
    EXPECT_DIMS(pool->getPostPadding(), {0, 0});
    EXPECT_EQ(pool->getPaddingMode(), PaddingMode::kEXPLICIT_ROUND_DOWN);
    EXPECT_EQ(pool->getBlendFactor(), 0.F);
    EXPECT_TRUE(pool->getAverageCountExcludesPadding());
    EXPECT_DIMS(pool->getOutput(0)->getDimensions(), {2, 3, 7, 8});

    pool->setPoolingType(PoolingType::kMAX_AVERAGE_BLEND);
    pool->setBlendFactor(0.25F);
    pool->setAverageCountExcludesPadding(false);
    pool->setStrideNd(dims({2, 2}));
    pool->setPaddingNd(dims({1, 1}));
    pool->setWindowSizeNd(dims({3, 3}));
    pool->setPaddingMode(PaddingMode::kEXPLICIT_ROUND_UP);
    expectNoError();
    EXPECT_EQ(pool->getPoolingType(), PoolingType::kMAX_AVERAGE_BLEND);
    EXPECT_EQ(pool->getBlendFactor(), 0.25F);
    EXPECT_FALSE(pool->getAverageCountExcludesPadding());
    EXPECT_DIMS(pool->getStrideNd(), {2, 2});
    EXPECT_DIMS(pool->getPostPadding(), {1, 1});
    EXPECT_DIMS(pool->getWindowSizeNd(), {3, 3});
    EXPECT_EQ(pool->getPaddingMode(), PaddingMode::kEXPLICIT_ROUND_UP);
    pool->setPrePadding(dims({0, 0}));
    pool->setPostPadding(dims({1, 0}));
    EXPECT_DIMS(pool->getPaddingNd(), {0, 0});
    // H: (8 + 1 - 3) / 2 rounded up + 1 = 4; W: (9 - 3) / 2 rounded up + 1 = 4.
    EXPECT_DIMS(pool->getOutput(0)->getDimensions(), {2, 3, 4, 4});
}

TEST_F(PoolingTest, Refusals)
{
    nvinfer1::ITensor* x = input("x", dims({1, 1, 4, 4}));
    EXPECT_EQ(mNetwork->addPoolingNd(*x, static_cast<PoolingType>(3), dims({2, 2})), nullptr);
    expectError({"INetworkDefinition::addPoolingNd", "pooling type 3 is not a valid PoolingType"});
    EXPECT_EQ(mNetwork->addPoolingNd(*x, PoolingType::kAVERAGE, dims({2, 2, 2, 2})), nullptr);
    expectError({"INetworkDefinition::addPoolingNd", "has 4 dimensions; pooling is 2-D or 3-D"});
    EXPECT_EQ(mNetwork->addPoolingNd(*x, PoolingType::kAVERAGE, dims({2, -1})), nullptr);
    expectError({"extent 1 of the window size [2, -1] is -1"});
    EXPECT_EQ(mNetwork->addPoolingNd(*input("small", dims({4, 4})), PoolingType::kAVERAGE, dims({2, 2})), nullptr);
    expectError({"input \"small\" has shape [4, 4]", "2-D pooling needs"});

    nvinfer1::IPoolingLayer* pool = mNetwork->addPoolingNd(*x, PoolingType::kAVERAGE, dims({2, 2}));
    pool->setBlendFactor(1.5F);
    expectError({"IPoolingLayer::setBlendFactor", "the blend factor 1.5 is not in [0, 1]"});
    pool->setPoolingType(static_cast<PoolingType>(-1));
    expectError({"IPoolingLayer::setPoolingType", "pooling type -1"});
    pool->setWindowSizeNd(dims({0, 2}));
    expectError({"IPoolingLayer::setWindowSizeNd", "extent 0 is 0"});
    pool->setStrideNd(dims({2, 0}));
    expectError({"IPoolingLayer::setStrideNd"});
    pool->setPaddingNd(dims({-1, 0}));
    expectError({"IPoolingLayer::setPaddingNd"});
    pool->setPrePadding(dims({-1, 0}));
    expectError({"IPoolingLayer::setPrePadding"});
    pool->setPostPadding(dims({-1, 0}));
    expectError({"IPoolingLayer::setPostPadding"});
    pool->setPaddingMode(static_cast<PaddingMode>(4));
    expectError({"IPoolingLayer::setPaddingMode", "padding mode 4"});
    EXPECT_EQ(pool->getPoolingType(), PoolingType::kAVERAGE);
    EXPECT_DIMS(pool->getWindowSizeNd(), {2, 2});
}

} // namespace
} // namespace kiln::test
