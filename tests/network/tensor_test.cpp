// SPDX-License-Identifier: Apache-2.0
// ITensor through the public API: names, shapes, types in weakly and strongly typed networks, dynamic ranges,
// formats, locations, extent names, and the shape / execution roles.
#include "support/api_test.h"

#include <cmath>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::NetworkDefinitionCreationFlag;
using nvinfer1::TensorFormat;
using nvinfer1::TensorLocation;

using TensorTest = ApiTest;

TEST_F(TensorTest, Defaults)
{
    nvinfer1::ITensor* x = input("x", dims({2, 3}));
    EXPECT_EQ(x->getLocation(), TensorLocation::kDEVICE);
    EXPECT_EQ(x->getAllowedFormats(), (1U << nvinfer1::EnumMax<TensorFormat>()) - 1U);
    EXPECT_FALSE(x->dynamicRangeIsSet());
    EXPECT_TRUE(std::isnan(x->getDynamicRangeMin()));
    EXPECT_TRUE(std::isnan(x->getDynamicRangeMax()));
    EXPECT_FALSE(x->getBroadcastAcrossBatch());
    x->setBroadcastAcrossBatch(true);
    EXPECT_FALSE(x->getBroadcastAcrossBatch());
    EXPECT_EQ(x->getDimensionName(0), nullptr);
    expectNoError();
}

TEST_F(TensorTest, Rename)
{
    nvinfer1::ITensor* x = input("x", dims({2}));
    x->setName("renamed");
    EXPECT_STREQ(x->getName(), "renamed");
    input("other", dims({2}));
    x->setName("other");
    expectError({"ITensor::setName", "tensor \"renamed\"", "already called \"other\""});
    x->setName(nullptr);
    expectError({"ITensor::setName", "the name is null"});
    EXPECT_STREQ(x->getName(), "renamed");
}

TEST_F(TensorTest, SetDimensionsOfAnInput)
{
    nvinfer1::ITensor* x = input("x", dims({2}));
    x->setDimensions(dims({-1, 5}));
    EXPECT_DIMS(x->getDimensions(), {-1, 5});
    x->setDimensions(Dims{9, {}});
    expectError({"ITensor::setDimensions", "tensor \"x\"", "rank 9"});
    x->setDimensions(dims({1, -3}));
    expectError({"ITensor::setDimensions", "extent 1 of [1, -3] is -3"});
    EXPECT_DIMS(x->getDimensions(), {-1, 5});
    nvinfer1::ITensor* y = mNetwork->addIdentity(*x)->getOutput(0);
    y->setDimensions(dims({3}));
    expectError({"ITensor::setDimensions", "only network inputs have their dimensions set"});
}

TEST_F(TensorTest, TypesInAWeaklyTypedNetwork)
{
    nvinfer1::ITensor* x = input("x", dims({2}));
    x->setType(DataType::kHALF);
    EXPECT_EQ(x->getType(), DataType::kHALF);
    x->setType(static_cast<DataType>(-1));
    expectError({"ITensor::setType", "data type -1 is not a valid DataType"});
    nvinfer1::ILayer* identity = mNetwork->addIdentity(*x);
    nvinfer1::ITensor* y = identity->getOutput(0);
    EXPECT_EQ(y->getType(), DataType::kHALF);
    y->setType(DataType::kFLOAT);
    expectNoError();
    EXPECT_EQ(y->getType(), DataType::kFLOAT);
    EXPECT_TRUE(identity->outputTypeIsSet(0));
}

TEST_F(TensorTest, TypesInAStronglyTypedNetwork)
{
    recreate(flagBit(NetworkDefinitionCreationFlag::kSTRONGLY_TYPED));
    nvinfer1::ITensor* x = input("x", dims({2}));
    x->setType(DataType::kBF16);
    EXPECT_EQ(x->getType(), DataType::kBF16);
    nvinfer1::ITensor* y = mNetwork->addIdentity(*x)->getOutput(0);
    y->setType(DataType::kFLOAT);
    expectError({"ITensor::setType", "not allowed in a strongly typed network", "use a cast layer"});
    EXPECT_EQ(y->getType(), DataType::kBF16);
    EXPECT_FALSE(x->setDynamicRange(-1.F, 1.F));
    expectError({"ITensor::setDynamicRange", "not allowed in a strongly typed network"});
}

TEST_F(TensorTest, DynamicRange)
{
    nvinfer1::ITensor* x = input("x", dims({2}));
    EXPECT_TRUE(x->setDynamicRange(-2.F, 3.F));
    EXPECT_TRUE(x->dynamicRangeIsSet());
    EXPECT_EQ(x->getDynamicRangeMin(), -2.F);
    EXPECT_EQ(x->getDynamicRangeMax(), 3.F);
    EXPECT_FALSE(x->setDynamicRange(1.F, -1.F));
    expectError({"ITensor::setDynamicRange", "the range [1, -1] is empty"});
    EXPECT_FALSE(x->setDynamicRange(NAN, 1.F));
    expectError({"ITensor::setDynamicRange", "not a number"});
    x->resetDynamicRange();
    EXPECT_FALSE(x->dynamicRangeIsSet());
}

TEST_F(TensorTest, FormatsAndLocation)
{
    nvinfer1::ITensor* x = input("x", dims({2}));
    uint32_t const hwc = 1U << static_cast<uint32_t>(TensorFormat::kHWC);
    x->setAllowedFormats(hwc);
    EXPECT_EQ(x->getAllowedFormats(), hwc);
    x->setAllowedFormats(0);
    expectError({"ITensor::setAllowedFormats", "format mask 0"});
    x->setAllowedFormats(1U << 20U);
    expectError({"ITensor::setAllowedFormats", "format mask 1048576"});
    EXPECT_EQ(x->getAllowedFormats(), hwc);
    x->setLocation(TensorLocation::kHOST);
    EXPECT_EQ(x->getLocation(), TensorLocation::kHOST);
    x->setLocation(static_cast<TensorLocation>(5));
    expectError({"ITensor::setLocation", "location 5 is not a valid TensorLocation"});
}

TEST_F(TensorTest, DimensionNames)
{
    nvinfer1::ITensor* x = input("x", dims({-1, 3}));
    x->setDimensionName(0, "batch");
    EXPECT_STREQ(x->getDimensionName(0), "batch");
    EXPECT_EQ(x->getDimensionName(1), nullptr);
    x->setDimensionName(0, nullptr);
    EXPECT_EQ(x->getDimensionName(0), nullptr);
    expectNoError();
    x->setDimensionName(2, "n");
    expectError({"ITensor::setDimensionName", "extent index 2 is out of range for dimensions [-1, 3]"});
    EXPECT_EQ(x->getDimensionName(-1), nullptr);
    expectError({"ITensor::getDimensionName", "extent index -1"});
    nvinfer1::ITensor* y = mNetwork->addIdentity(*x)->getOutput(0);
    y->setDimensionName(0, "batch");
    expectError({"ITensor::setDimensionName", "only the extents of network inputs can be named"});
}

TEST_F(TensorTest, ShapeAndExecutionRoles)
{
    nvinfer1::ITensor* data = input("data", dims({2, 6}));
    nvinfer1::ITensor* shape = input("shape", dims({2}), DataType::kINT64);
    nvinfer1::ITensor* unused = input("unused", dims({1}));
    auto* shuffle = mNetwork->addShuffle(*data);
    shuffle->setInput(1, *shape);
    mNetwork->markOutput(*shuffle->getOutput(0));
    expectNoError();
    EXPECT_TRUE(shape->isShapeTensor());
    EXPECT_FALSE(shape->isExecutionTensor());
    EXPECT_TRUE(data->isExecutionTensor());
    EXPECT_FALSE(data->isShapeTensor());
    EXPECT_FALSE(unused->isShapeTensor());
    EXPECT_FALSE(unused->isExecutionTensor());

    // Values computed from a shape layer and used as a reshape are shape tensors all the way up.
    nvinfer1::ITensor* dataShape = mNetwork->addShape(*data)->getOutput(0);
    nvinfer1::ITensor* doubled
        = mNetwork->addElementWise(*dataShape, *dataShape, nvinfer1::ElementWiseOperation::kSUM)->getOutput(0);
    auto* second = mNetwork->addShuffle(*data);
    second->setInput(1, *doubled);
    EXPECT_TRUE(doubled->isShapeTensor());
    EXPECT_TRUE(dataShape->isShapeTensor());
    EXPECT_FALSE(dataShape->isExecutionTensor());
}

} // namespace
} // namespace kiln::test
