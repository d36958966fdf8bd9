// SPDX-License-Identifier: Apache-2.0
// IGatherLayer: kDEFAULT, kELEMENT and kND with their shapes, parameters and refusals.
#include "support/api_test.h"

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::GatherMode;

using GatherTest = ApiTest;

TEST_F(GatherTest, DefaultGather)
{
    nvinfer1::ITensor* data = input("data", dims({4, 5, 6}));
    nvinfer1::ITensor* indices = input("indices", dims({2, 3}), DataType::kINT64);
    nvinfer1::IGatherLayer* gather = mNetwork->addGather(*data, *indices, 1);
    ASSERT_NE(gather, nullptr);
    EXPECT_STREQ(gather->getName(), "(Unnamed Layer* 0) [Gather]");
    EXPECT_EQ(gather->getMode(), GatherMode::kDEFAULT);
    EXPECT_EQ(gather->getGatherAxis(), 1);
    EXPECT_EQ(gather->getNbElementWiseDims(), 0);
    EXPECT_EQ(gather->getOutput(0)->getType(), DataType::kFLOAT);
    EXPECT_DIMS(gather->getOutput(0)->getDimensions(), {4, 2, 3, 6});
    gather->setNbElementWiseDims(1);
    gather->setGatherAxis(2);
    EXPECT_EQ(gather->getNbElementWiseDims(), 1);
    EXPECT_EQ(gather->getGatherAxis(), 2);
    EXPECT_DIMS(gather->getOutput(0)->getDimensions(), {4, 5, 3});
    expectNoError();
}

TEST_F(GatherTest, ElementAndNdModes)
{
    nvinfer1::ITensor* data = input("data", dims({4, 5, 6}));
    nvinfer1::IGatherLayer* element
        = mNetwork->addGatherV2(*data, *input("i", dims({4, 2, 6}), DataType::kINT32), GatherMode::kELEMENT);
    EXPECT_EQ(element->getMode(), GatherMode::kELEMENT);
    EXPECT_EQ(element->getGatherAxis(), 0);
    EXPECT_DIMS(element->getOutput(0)->getDimensions(), {4, 2, 6});
    nvinfer1::IGatherLayer* nd
        = mNetwork->addGatherV2(*data, *input("j", dims({3, 2}), DataType::kINT32), GatherMode::kND);
    EXPECT_DIMS(nd->getOutput(0)->getDimensions(), {3, 6});
    nd->setMode(GatherMode::kDEFAULT);
    EXPECT_EQ(nd->getMode(), GatherMode::kDEFAULT);
    expectNoError();
}

TEST_F(GatherTest, Refusals)
{
    nvinfer1::ITensor* data = input("data", dims({4, 5}));
    nvinfer1::ITensor* indices = input("indices", dims({2}), DataType::kINT32);
    EXPECT_EQ(mNetwork->addGather(*data, *indices, 2), nullptr);
    expectError({"INetworkDefinition::addGather", "axis 2 is out of range for data \"data\" of shape [4, 5]"});
    EXPECT_EQ(mNetwork->addGather(*data, *input("f", dims({2})), 0), nullptr);
    expectError({"INetworkDefinition::addGather", "indices \"f\" have type 0; indices are kINT32 or kINT64"});
    EXPECT_EQ(mNetwork->addGatherV2(*data, *indices, static_cast<GatherMode>(3)), nullptr);
    expectError({"INetworkDefinition::addGatherV2", "gather mode 3 is not a valid GatherMode"});
    nvinfer1::IGatherLayer* gather = mNetwork->addGather(*data, *indices, 0);
    gather->setGatherAxis(5);
    expectError({"IGatherLayer::setGatherAxis", "axis 5 is out of range for data of rank 2"});
    gather->setNbElementWiseDims(2);
    expectError({"IGatherLayer::setNbElementWiseDims", "nbElementWiseDims is 2"});
    gather->setMode(GatherMode::kELEMENT);
    gather->setNbElementWiseDims(1);
    expectError({"IGatherLayer::setNbElementWiseDims", "0 in kELEMENT mode"});
    gather->setMode(static_cast<GatherMode>(-1));
    expectError({"IGatherLayer::setMode", "gather mode -1"});
}

} // namespace
} // namespace kiln::test
