// SPDX-License-Identifier: Apache-2.0
// ILoop and its boundary layers: trip limits, recurrences (their next value set with setInput(1)), iterators and
// outputs with their kinds, axes, shapes and loop, names, and every refusal with its message.
#include "support/api_test.h"

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::LayerType;

class LoopTest : public ApiTest
{
};

TEST_F(LoopTest, BoundaryLayers)
{
    nvinfer1::ITensor* count = input("n", dims({}), DataType::kINT32);
    nvinfer1::ITensor* x = input("x", dims({5, 2, 3}));
    nvinfer1::ITensor* h0 = input("h0", dims({2, 3}));
    nvinfer1::ILoop* loop = mNetwork->addLoop();
    ASSERT_NE(loop, nullptr);
    EXPECT_STREQ(loop->getName(), "(Unnamed Loop 0)");
    loop->setName("scan");
    EXPECT_STREQ(loop->getName(), "scan");

    nvinfer1::ITripLimitLayer* limit = loop->addTripLimit(*count, nvinfer1::TripLimit::kCOUNT);
    ASSERT_NE(limit, nullptr);
    EXPECT_EQ(limit->getType(), LayerType::kTRIP_LIMIT);
    EXPECT_EQ(limit->getLoop(), loop);
    EXPECT_EQ(limit->getTripLimit(), nvinfer1::TripLimit::kCOUNT);
    EXPECT_EQ(limit->getNbOutputs(), 0);
    EXPECT_TRUE(count->isShapeTensor()); // a count is read for its value

    nvinfer1::IIteratorLayer* iterator = loop->addIterator(*x, 0, true);
    ASSERT_NE(iterator, nullptr);
    EXPECT_EQ(iterator->getLoop(), loop);
    EXPECT_EQ(iterator->getAxis(), 0);
    EXPECT_TRUE(iterator->getReverse());
    EXPECT_DIMS(iterator->getOutput(0)->getDimensions(), {2, 3});
    iterator->setAxis(2);
    EXPECT_DIMS(iterator->getOutput(0)->getDimensions(), {5, 2});
    iterator->setAxis(0);

    nvinfer1::IRecurrenceLayer* h = loop->addRecurrence(*h0);
    ASSERT_NE(h, nullptr);
    EXPECT_EQ(h->getType(), LayerType::kRECURRENCE);
    EXPECT_EQ(h->getNbInputs(), 1);
    nvinfer1::ITensor* next
        = mNetwork->addElementWise(*h->getOutput(0), *iterator->getOutput(0), nvinfer1::ElementWiseOperation::kSUM)
              ->getOutput(0);
    h->setInput(1, *next); // the back edge: computed from the recurrence's own output
    ASSERT_EQ(h->getNbInputs(), 2);
    EXPECT_EQ(h->getInput(1), next);

    nvinfer1::ILoopOutputLayer* last = loop->addLoopOutput(*h->getOutput(0), nvinfer1::LoopOutput::kLAST_VALUE);
    ASSERT_NE(last, nullptr);
    EXPECT_EQ(last->getLoopOutput(), nvinfer1::LoopOutput::kLAST_VALUE);
    EXPECT_DIMS(last->getOutput(0)->getDimensions(), {2, 3});
    nvinfer1::ILoopOutputLayer* all = loop->addLoopOutput(*next, nvinfer1::LoopOutput::kCONCATENATE, 1);
    ASSERT_NE(all, nullptr);
    EXPECT_EQ(all->getAxis(), 1);
    all->setInput(1, *count);
    EXPECT_DIMS(all->getOutput(0)->getDimensions(), {2, -1, 3});
    EXPECT_EQ(all->getLoop(), loop);
    expectNoError();
}

TEST_F(LoopTest, Refusals)
{
    nvinfer1::ITensor* count = input("n", dims({}), DataType::kINT32);
    nvinfer1::ITensor* flag = input("flag", dims({}), DataType::kBOOL);
    nvinfer1::ITensor* x = input("x", dims({4}));
    nvinfer1::ILoop* loop = mNetwork->addLoop();
    loop->setName("l");
    ASSERT_NE(loop->addTripLimit(*count, nvinfer1::TripLimit::kCOUNT), nullptr);
    EXPECT_EQ(loop->addTripLimit(*count, nvinfer1::TripLimit::kCOUNT), nullptr);
    expectError({"ILoop::addTripLimit", "loop \"l\" already has a kCOUNT trip limit"});
    EXPECT_EQ(loop->addTripLimit(*x, nvinfer1::TripLimit::kWHILE), nullptr);
    expectError({"ILoop::addTripLimit", "the kWHILE limit \"x\" is kFLOAT [4]; it must be a 0-D kBOOL tensor"});
    EXPECT_EQ(loop->addTripLimit(*flag, static_cast<nvinfer1::TripLimit>(5)), nullptr);
    expectError({"ILoop::addTripLimit", "is not a TripLimit"});
    EXPECT_EQ(loop->addIterator(*count), nullptr);
    expectError({"ILoop::addIterator", "axis 0 is out of range"});
    EXPECT_EQ(loop->addLoopOutput(*x, nvinfer1::LoopOutput::kCONCATENATE, 2), nullptr);
    expectError({"ILoop::addLoopOutput", "axis 2 is out of range", "the new axis is in [0, rank]"});
    EXPECT_EQ(loop->addLoopOutput(*x, static_cast<nvinfer1::LoopOutput>(9)), nullptr);
    expectError({"ILoop::addLoopOutput", "is not a LoopOutput"});
    nvinfer1::ILoop* other = mNetwork->addLoop();
    nvinfer1::IRecurrenceLayer* foreign = other->addRecurrence(*x);
    EXPECT_EQ(loop->addLoopOutput(*foreign->getOutput(0), nvinfer1::LoopOutput::kLAST_VALUE), nullptr);
    expectError({"ILoop::addLoopOutput", "a kLAST_VALUE output reads the output of a recurrence of the loop"});
    loop->setName(nullptr);
    expectError({"ILoop::setName", "the name is null"});
}

} // namespace
} // namespace kiln::test
