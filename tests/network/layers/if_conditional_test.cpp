// SPDX-License-Identifier: Apache-2.0
// IIfConditional and its boundary layers: the condition, input and output layers with their inputs, outputs and
// conditional, the condition's copy hidden from the API, names, and every refusal with its message.
#include "support/api_test.h"

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::LayerType;

class IfConditionalTest : public ApiTest
{
};

TEST_F(IfConditionalTest, BoundaryLayers)
{
    nvinfer1::ITensor* flag = input("flag", dims({}), DataType::kBOOL);
    nvinfer1::ITensor* x = input("x", dims({2, 3}));
    nvinfer1::IIfConditional* conditional = mNetwork->addIfConditional();
    ASSERT_NE(conditional, nullptr);
    EXPECT_STREQ(conditional->getName(), "(Unnamed IfConditional 0)");
    conditional->setName("choice");
    EXPECT_STREQ(conditional->getName(), "choice");

    nvinfer1::IConditionLayer* condition = conditional->setCondition(*flag);
    ASSERT_NE(condition, nullptr);
    EXPECT_EQ(condition->getType(), LayerType::kCONDITION);
    EXPECT_EQ(condition->getConditional(), conditional);
    ASSERT_EQ(condition->getNbInputs(), 1);
    EXPECT_EQ(condition->getInput(0), flag);
    EXPECT_EQ(condition->getNbOutputs(), 0); // the copy the output layers read is hidden

    nvinfer1::IIfConditionalInputLayer* in = conditional->addInput(*x);
    ASSERT_NE(in, nullptr);
    EXPECT_EQ(in->getType(), LayerType::kCONDITIONAL_INPUT);
    EXPECT_EQ(in->getConditional(), conditional);
    ASSERT_EQ(in->getNbOutputs(), 1);
    EXPECT_DIMS(in->getOutput(0)->getDimensions(), {2, 3});
    EXPECT_EQ(in->getOutput(0)->getType(), DataType::kFLOAT);

    nvinfer1::ITensor* t = mNetwork->addUnary(*in->getOutput(0), nvinfer1::UnaryOperation::kEXP)->getOutput(0);
    nvinfer1::ITensor* f = mNetwork->addUnary(*in->getOutput(0), nvinfer1::UnaryOperation::kABS)->getOutput(0);
    nvinfer1::IIfConditionalOutputLayer* out = conditional->addOutput(*t, *f);
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(out->getType(), LayerType::kCONDITIONAL_OUTPUT);
    EXPECT_EQ(out->getConditional(), conditional);
    ASSERT_EQ(out->getNbInputs(), 2); // the condition is a hidden third input
    EXPECT_EQ(out->getInput(0), t);
    EXPECT_EQ(out->getInput(1), f);
    EXPECT_EQ(out->getInput(2), nullptr);
    expectError({"IIfConditionalOutputLayer::getInput", "input index 2 is out of range; the layer has 2 inputs"});
    ASSERT_EQ(out->getNbOutputs(), 1);
    EXPECT_DIMS(out->getOutput(0)->getDimensions(), {2, 3});
    EXPECT_STREQ(out->getName(), "(Unnamed Layer* 4) [ConditionalOutput]");
    expectNoError();
}

TEST_F(IfConditionalTest, OutputsBeforeTheConditionAndBranchesOfOtherExtents)
{
    nvinfer1::ITensor* a = input("a", dims({2, 3}), DataType::kINT32);
    nvinfer1::ITensor* b = input("b", dims({2, 5}), DataType::kINT32);
    nvinfer1::IIfConditional* conditional = mNetwork->addIfConditional();
    nvinfer1::IIfConditionalOutputLayer* out = conditional->addOutput(*a, *b);
    ASSERT_NE(out, nullptr);
    EXPECT_DIMS(out->getOutput(0)->getDimensions(), {2, -1}); // the extent follows the branch taken
    nvinfer1::ITensor* flag = input("flag", dims({}), DataType::kBOOL);
    ASSERT_NE(conditional->setCondition(*flag), nullptr);
    EXPECT_EQ(out->getNbInputs(), 2);
    expectNoError();
}

TEST_F(IfConditionalTest, Refusals)
{
    nvinfer1::ITensor* x = input("x", dims({2}));
    nvinfer1::ITensor* y = input("y", dims({2, 1}));
    nvinfer1::ITensor* n = input("n", dims({2}), DataType::kINT32);
    nvinfer1::ITensor* flags = input("flags", dims({2}), DataType::kBOOL);
    nvinfer1::ITensor* flag = input("flag", dims({}), DataType::kBOOL);
    nvinfer1::IIfConditional* conditional = mNetwork->addIfConditional();
    conditional->setName("c");

    EXPECT_EQ(conditional->setCondition(*x), nullptr);
    expectError({"IIfConditional::setCondition", "conditional \"c\": the condition \"x\" is kFLOAT [2]",
        "it must be a 0-D kBOOL tensor"});
    EXPECT_EQ(conditional->setCondition(*flags), nullptr);
    expectError({"IIfConditional::setCondition", "it must be a 0-D kBOOL tensor"});
    ASSERT_NE(conditional->setCondition(*flag), nullptr);
    EXPECT_EQ(conditional->setCondition(*flag), nullptr);
    expectError({"IIfConditional::setCondition", "conditional \"c\" already has a condition"});

    EXPECT_EQ(conditional->addOutput(*x, *n), nullptr);
    expectError({"IIfConditional::addOutput",
        "the true branch's output \"x\" is kFLOAT but the false branch's \"n\" is "
        "kINT32; they must have one type"});
    EXPECT_EQ(conditional->addOutput(*x, *y), nullptr);
    expectError({"IIfConditional::addOutput", "has rank 1 but the false branch's \"y\" has rank 2"});

    conditional->setName(nullptr);
    expectError({"IIfConditional::setName", "the name is null"});
    EXPECT_STREQ(conditional->getName(), "c");
}

TEST_F(IfConditionalTest, AConditionComputedFromTheOutputIsACycle)
{
    nvinfer1::ITensor* flag = input("flag", dims({}), DataType::kBOOL);
    nvinfer1::IIfConditional* conditional = mNetwork->addIfConditional();
    nvinfer1::IIfConditionalOutputLayer* out = conditional->addOutput(*flag, *flag);
    ASSERT_NE(out, nullptr);
    nvinfer1::ITensor* derived = mNetwork->addUnary(*out->getOutput(0), nvinfer1::UnaryOperation::kNOT)->getOutput(0);
    EXPECT_EQ(conditional->setCondition(*derived), nullptr);
    expectError(
        {"IIfConditional::setCondition", "is computed from the conditional's output layer", "that would make a cycle"});
}

} // namespace
} // namespace kiln::test
