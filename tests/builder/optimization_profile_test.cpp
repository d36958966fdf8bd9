// SPDX-License-Identifier: Apache-2.0
// IOptimizationProfile through the public API: shapes and shape values for kMIN, kOPT and kMAX, consistency checks
// as they are set (named by input and extent), validity, and the builder config's refusal of invalid profiles.
#include "support/api_test.h"

namespace kiln::test
{
namespace
{

using nvinfer1::Dims;
using nvinfer1::OptProfileSelector;

class ProfileTest : public ApiTest
{
protected:
    void SetUp() override
    {
        ApiTest::SetUp();
        mProfile = mBuilder->createOptimizationProfile();
        ASSERT_NE(mProfile, nullptr);
    }

    nvinfer1::IOptimizationProfile* mProfile{};
};

TEST_F(ProfileTest, DimensionsForEachSelector)
{
    EXPECT_EQ(mProfile->getDimensions("x", OptProfileSelector::kMIN).nbDims, -1);
    EXPECT_TRUE(mProfile->isValid()); // an empty profile has nothing inconsistent
    EXPECT_TRUE(mProfile->setDimensions("x", OptProfileSelector::kMIN, dims({1, 3, 8})));
    EXPECT_FALSE(mProfile->isValid()); // kOPT and kMAX missing
    EXPECT_TRUE(mProfile->setDimensions("x", OptProfileSelector::kOPT, dims({4, 3, 16})));
    EXPECT_TRUE(mProfile->setDimensions("x", OptProfileSelector::kMAX, dims({8, 3, 32})));
    EXPECT_TRUE(mProfile->isValid());
    EXPECT_DIMS(mProfile->getDimensions("x", OptProfileSelector::kMIN), {1, 3, 8});
    EXPECT_DIMS(mProfile->getDimensions("x", OptProfileSelector::kOPT), {4, 3, 16});
    EXPECT_DIMS(mProfile->getDimensions("x", OptProfileSelector::kMAX), {8, 3, 32});
    EXPECT_EQ(mProfile->getDimensions("y", OptProfileSelector::kMAX).nbDims, -1);
    EXPECT_EQ(mProfile->getExtraMemoryTarget(), 1.F);
    EXPECT_TRUE(mProfile->setExtraMemoryTarget(0.5F));
    EXPECT_EQ(mProfile->getExtraMemoryTarget(), 0.5F);
    expectNoError();
}

TEST_F(ProfileTest, InconsistentDimensionsAreRefused)
{
    ASSERT_TRUE(mProfile->setDimensions("x", OptProfileSelector::kOPT, dims({4, 16})));
    EXPECT_FALSE(mProfile->setDimensions("x", OptProfileSelector::kMIN, dims({4, 32})));
    expectError({"IOptimizationProfile::setDimensions", "input \"x\"", "kMIN extent 1 is 32 but kOPT extent 1 is 16",
        "kMIN <= kOPT <= kMAX"});
    EXPECT_FALSE(mProfile->setDimensions("x", OptProfileSelector::kMAX, dims({4, 8})));
    expectError({"input \"x\"", "kOPT extent 1 is 16 but kMAX extent 1 is 8"});
    EXPECT_FALSE(mProfile->setDimensions("x", OptProfileSelector::kMAX, dims({4, 16, 1})));
    expectError({"input \"x\"", "kMAX has 3 extent but kOPT has 2"});
    EXPECT_FALSE(mProfile->setDimensions("x", OptProfileSelector::kMIN, dims({-1, 16})));
    expectError({"input \"x\"", "kMIN extent 0 is -1", "profile extents are known sizes"});
    EXPECT_FALSE(mProfile->setDimensions("x", OptProfileSelector::kMIN, Dims{9, {}}));
    expectError({"kMIN dimensions have rank 9"});
    EXPECT_FALSE(mProfile->setDimensions(nullptr, OptProfileSelector::kMIN, dims({1})));
    expectError({"IOptimizationProfile::setDimensions", "the input name is null"});
    EXPECT_FALSE(mProfile->setDimensions("x", static_cast<OptProfileSelector>(3), dims({1})));
    expectError({"selector 3 is not a valid OptProfileSelector"});
    EXPECT_EQ(mProfile->getDimensions("x", static_cast<OptProfileSelector>(-1)).nbDims, -1);
    expectError({"IOptimizationProfile::getDimensions", "selector -1"});
    EXPECT_EQ(mProfile->getDimensions("x", OptProfileSelector::kMIN).nbDims, -1); // nothing was stored
    EXPECT_FALSE(mProfile->setExtraMemoryTarget(1.5F));
    expectError({"IOptimizationProfile::setExtraMemoryTarget", "target 1.5 is not in [0, 1]"});
}

TEST_F(ProfileTest, ShapeValues)
{
    EXPECT_EQ(mProfile->getNbShapeValues("s"), -1);
    int64_t const min[] = {1, 2};
    int64_t const opt[] = {2, 4};
    int64_t const max[] = {4, 1LL << 40};
    EXPECT_TRUE(mProfile->setShapeValuesV2("s", OptProfileSelector::kMIN, min, 2));
    EXPECT_TRUE(mProfile->setShapeValuesV2("s", OptProfileSelector::kOPT, opt, 2));
    EXPECT_TRUE(mProfile->setShapeValuesV2("s", OptProfileSelector::kMAX, max, 2));
    EXPECT_TRUE(mProfile->isValid());
    EXPECT_EQ(mProfile->getNbShapeValues("s"), 2);
    EXPECT_EQ(mProfile->getShapeValuesV2("s", OptProfileSelector::kMAX)[1], 1LL << 40);
    EXPECT_EQ(mProfile->getShapeValues("s", OptProfileSelector::kOPT)[1], 4);
    EXPECT_EQ(mProfile->getShapeValues("s", OptProfileSelector::kMAX), nullptr); // does not fit in int32_t
    int32_t const narrow[] = {3};
    EXPECT_TRUE(mProfile->setShapeValues("t", OptProfileSelector::kMIN, narrow, 1));
    EXPECT_EQ(mProfile->getShapeValuesV2("t", OptProfileSelector::kMIN)[0], 3);
    EXPECT_EQ(mProfile->getShapeValues("t", OptProfileSelector::kMIN)[0], 3);
    EXPECT_EQ(mProfile->getShapeValues("t", OptProfileSelector::kMAX), nullptr);
    expectNoError();
}

TEST_F(ProfileTest, InconsistentShapeValuesAreRefused)
{
    int64_t const opt[] = {2, 4};
    int64_t const big[] = {3, 4};
    int64_t const three[] = {1, 2, 3};
    ASSERT_TRUE(mProfile->setShapeValuesV2("s", OptProfileSelector::kOPT, opt, 2));
    EXPECT_FALSE(mProfile->setShapeValuesV2("s", OptProfileSelector::kMIN, big, 2));
    expectError({"IOptimizationProfile::setShapeValuesV2", "input \"s\"", "kMIN value 0 is 3 but kOPT value 0 is 2"});
    EXPECT_FALSE(mProfile->setShapeValuesV2("s", OptProfileSelector::kMAX, three, 3));
    expectError({"kMAX has 3 value but kOPT has 2"});
    EXPECT_FALSE(mProfile->setShapeValuesV2("s", OptProfileSelector::kMAX, nullptr, 2));
    expectError({"the values are null but nbValues is 2"});
    EXPECT_FALSE(mProfile->setShapeValuesV2("s", OptProfileSelector::kMAX, opt, -1));
    expectError({"nbValues is -1"});
    int32_t const narrow[] = {1};
    EXPECT_FALSE(mProfile->setShapeValues("", OptProfileSelector::kMAX, narrow, 1));
    expectError({"IOptimizationProfile::setShapeValues", "the input name is empty"});
    EXPECT_FALSE(mProfile->setShapeValues("s", static_cast<OptProfileSelector>(4), narrow, 1));
    expectError({"IOptimizationProfile::setShapeValues", "selector 4"});
    EXPECT_FALSE(mProfile->isValid());
}

TEST_F(ProfileTest, TheConfigAddsOnlyValidProfiles)
{
    nvinfer1::IBuilderConfig* config = mBuilder->createBuilderConfig();
    EXPECT_EQ(config->getNbOptimizationProfiles(), 0);
    EXPECT_EQ(config->addOptimizationProfile(nullptr), -1);
    expectError({"IBuilderConfig::addOptimizationProfile", "the profile is null"});
    mProfile->setDimensions("x", OptProfileSelector::kMIN, dims({1, 4}));
    mProfile->setDimensions("x", OptProfileSelector::kOPT, dims({2, 4}));
    EXPECT_EQ(config->addOptimizationProfile(mProfile), -1);
    expectError({"IBuilderConfig::addOptimizationProfile", "the profile is not valid",
        "input \"x\": its dimensions are set for only 2 of kMIN, kOPT and kMAX"});
    mProfile->setDimensions("x", OptProfileSelector::kMAX, dims({8, 4}));
    EXPECT_EQ(config->addOptimizationProfile(mProfile), 0);
    nvinfer1::IOptimizationProfile* second = mBuilder->createOptimizationProfile();
    EXPECT_EQ(config->addOptimizationProfile(second), 1);
    EXPECT_EQ(config->getNbOptimizationProfiles(), 2);
    expectNoError();
    delete config;
}

} // namespace
} // namespace kiln::test
