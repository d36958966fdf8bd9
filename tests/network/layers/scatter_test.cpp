// SPDX-License-Identifier: Apache-2.0
// IScatterLayer: mode and axis as given, the output's type and shape (the data's), every refusal with its message, and
// the shape rule's refusals at build time.
#include "support/api_test.h"

#include <memory>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::ScatterMode;

using ScatterTest = ApiTest;

TEST_F(ScatterTest, ParametersAndOutput)
{
    nvinfer1::ITensor* data = input("data", dims({3, 4}), DataType::kHALF);
    nvinfer1::ITensor* indices = input("indices", dims({2, 4}), DataType::kINT64);
    nvinfer1::ITensor* updates = input("updates", dims({2, 4}), DataType::kHALF);
    nvinfer1::IScatterLayer* layer = mNetwork->addScatter(*data, *indices, *updates, ScatterMode::kELEMENT);
    ASSERT_NE(layer, nullptr);
    EXPECT_EQ(layer->getType(), nvinfer1::LayerType::kSCATTER);
    EXPECT_STREQ(layer->getName(), "(Unnamed Layer* 0) [Scatter]");
    EXPECT_EQ(layer->getMode(), ScatterMode::kELEMENT);
    EXPECT_EQ(layer->getAxis(), 0);
    EXPECT_EQ(layer->getNbInputs(), 3);
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kHALF);
    EXPECT_DIMS(layer->getOutput(0)->getDimensions(), {3, 4});
    layer->setAxis(-1);
    layer->setMode(ScatterMode::kND);
    EXPECT_EQ(layer->getAxis(), -1);
    EXPECT_EQ(layer->getMode(), ScatterMode::kND);
    expectNoError();
}

TEST_F(ScatterTest, Refusals)
{
    nvinfer1::ITensor* data = input("data", dims({3, 4}));
    nvinfer1::ITensor* indices = input("indices", dims({2, 4}), DataType::kINT32);
    nvinfer1::ITensor* updates = input("updates", dims({2, 4}));
    EXPECT_EQ(mNetwork->addScatter(*data, *indices, *updates, static_cast<ScatterMode>(2)), nullptr);
    expectError({"INetworkDefinition::addScatter", "mode 2 is not a valid ScatterMode"});
    EXPECT_EQ(mNetwork->addScatter(*data, *updates, *updates, ScatterMode::kELEMENT), nullptr);
    expectError({"INetworkDefinition::addScatter", "indices \"updates\" are kFLOAT; they must be kINT32 or kINT64"});
    nvinfer1::ITensor* halves = input("halves", dims({2, 4}), DataType::kHALF);
    EXPECT_EQ(mNetwork->addScatter(*data, *indices, *halves, ScatterMode::kELEMENT), nullptr);
    expectError({"updates \"halves\" are kHALF but the data \"data\" is kFLOAT; they must be one type"});
    nvinfer1::ITensor* scalar = input("scalar", dims({}));
    nvinfer1::ITensor* scalarIndex = input("scalarIndex", dims({}), DataType::kINT32);
    EXPECT_EQ(mNetwork->addScatter(*scalar, *scalarIndex, *scalar, ScatterMode::kELEMENT), nullptr);
    expectError({"the data \"scalar\" is 0-D; a scatter needs rank 1 or more"});
    EXPECT_EQ(mNetwork->getNbLayers(), 0);

    nvinfer1::IScatterLayer* layer = mNetwork->addScatter(*data, *indices, *updates, ScatterMode::kELEMENT);
    ASSERT_NE(layer, nullptr);
    layer->setAxis(2);
    expectError({"IScatterLayer::setAxis", "axis 2 is outside [-2, 2) for the data [3, 4]"});
    layer->setMode(static_cast<ScatterMode>(-1));
    expectError({"IScatterLayer::setMode", "mode -1 is not a valid value"});
    EXPECT_EQ(layer->getAxis(), 0);
    EXPECT_EQ(layer->getMode(), ScatterMode::kELEMENT);
}

TEST_F(ScatterTest, TheBuildRefusesShapesThatDoNotFit)
{
    nvinfer1::ITensor* data = input("data", dims({3, 4}));
    nvinfer1::ITensor* indices = input("indices", dims({2, 5}), DataType::kINT32);
    nvinfer1::ITensor* updates = input("updates", dims({2, 5}));
    nvinfer1::IScatterLayer* layer = mNetwork->addScatter(*data, *indices, *updates, ScatterMode::kELEMENT);
    ASSERT_NE(layer, nullptr);
    mNetwork->markOutput(*layer->getOutput(0));
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    std::unique_ptr<nvinfer1::IHostMemory> plan{mBuilder->buildSerializedNetwork(*mNetwork, *config)};
    EXPECT_EQ(plan, nullptr);
    expectError({"(IScatterLayer)", "the indices [2, 5] exceed the data [3, 4] along axis 1"});

    // kND: tuples of 3 entries do not fit data of rank 2.
    layer->setMode(ScatterMode::kND);
    layer->setInput(1, *input("tuples", dims({2, 3}), DataType::kINT64));
    plan.reset(mBuilder->buildSerializedNetwork(*mNetwork, *config));
    EXPECT_EQ(plan, nullptr);
    expectError({"(IScatterLayer)", "the index tuples have 3 entries; kND needs 1 to the data's rank 2"});

    // Tuples of 1: updates [2, 4] fit.
    layer->setInput(1, *input("rows", dims({2, 1}), DataType::kINT64));
    layer->setInput(2, *input("slices", dims({2, 4})));
    plan.reset(mBuilder->buildSerializedNetwork(*mNetwork, *config));
    EXPECT_NE(plan, nullptr) << mLogger.all();
}

} // namespace
} // namespace kiln::test
