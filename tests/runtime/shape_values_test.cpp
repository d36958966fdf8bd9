// SPDX-License-Identifier: Apache-2.0
// Shape values (runtime/shape_values.h) on the host backend, on a network built through the public API like BERT's
// position and mask subgraph (support/shape_values_network.h): the layers that compute values from input shapes alone
// run when the input shapes are set, once, and every enqueue after that reuses what they computed; results match
// the reference for each length.
#include "support/api_test.h"
#include "support/shape_values_network.h"

#include "runtime/context.h"

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace kiln::test
{
namespace
{

using nvinfer1::Dims;

class ShapeValues : public ApiTest
{
protected:
    void SetUp() override
    {
        ApiTest::SetUp();
        addShapeValuesNetwork(*mNetwork);
        std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
        auto* profile = mBuilder->createOptimizationProfile();
        shapeValuesProfile(*profile);
        config->addOptimizationProfile(profile);
        std::unique_ptr<nvinfer1::IHostMemory> plan{mBuilder->buildSerializedNetwork(*mNetwork, *config)};
        ASSERT_NE(plan, nullptr) << mLogger.all();
        mRuntime.reset(nvinfer1::createInferRuntime(mLogger));
        mEngine.reset(mRuntime->deserializeCudaEngine(plan->data(), plan->size()));
        ASSERT_NE(mEngine, nullptr) << mLogger.all();
        mContext.reset(mEngine->createExecutionContext());
        ASSERT_NE(mContext, nullptr) << mLogger.all();
    }

    void TearDown() override
    {
        mContext.reset();
        mEngine.reset();
        mRuntime.reset();
        ApiTest::TearDown();
    }

    int64_t shapeValueRuns() const { return ExecutionContext::of(*mContext).shapeValueRuns(); }

    //! Runs with x of length S (values 0.25 * j - 1) and checks y.
    void runAndCheck(int64_t length)
    {
        std::vector<float> x;
        for (int64_t j = 0; j < length; ++j)
        {
            x.push_back(0.25F * static_cast<float>(j) - 1.F);
        }
        std::vector<float> y(x.size(), -7.F);
        ASSERT_TRUE(mContext->setTensorAddress("x", x.data()));
        ASSERT_TRUE(mContext->setTensorAddress("y", y.data()));
        ASSERT_TRUE(mContext->enqueueV3(nullptr)) << mLogger.all();
        EXPECT_EQ(y, shapeValuesReference(x)) << "S = " << length;
    }

    std::unique_ptr<nvinfer1::IRuntime> mRuntime;
    std::unique_ptr<nvinfer1::ICudaEngine> mEngine;
    std::unique_ptr<nvinfer1::IExecutionContext> mContext;
};

TEST_F(ShapeValues, TheShapeOnlyLayersArePrecomputedAndTheDataPathIsNot)
{
    EngineProgram const& program = ExecutionContext::of(*mContext).engine().program();
    std::set<std::string> precomputed;
    for (std::size_t l = 0; l < program.model().layers.size(); ++l)
    {
        if (program.precomputed(static_cast<int32_t>(l)))
        {
            precomputed.insert(program.model().layers[l].name);
        }
    }
    // The slice start, the reshape's dimensions and the slice size are read as values; what they read is too.
    for (char const* name : {"shape", "second", "n", "range", "first", "one", "dims"})
    {
        EXPECT_EQ(precomputed.count(name), 1U) << name;
    }
    // The rest reads x's data, or is read only as data (pos, its cast, n's cast).
    for (char const* name : {"pos", "pos_float", "p", "sum", "n_float", "scale", "y"})
    {
        EXPECT_EQ(precomputed.count(name), 0U) << name;
    }
}

TEST_F(ShapeValues, EvaluatedWhenInputShapesAreSetAndReusedAcrossEnqueues)
{
    EXPECT_EQ(shapeValueRuns(), 0);
    ASSERT_TRUE(mContext->setInputShape("x", Dims{2, {1, 5}}));
    EXPECT_EQ(shapeValueRuns(), 1) << "computed by setInputShape, before any enqueue";
    for (int32_t k = 0; k < 3; ++k)
    {
        runAndCheck(5);
    }
    EXPECT_EQ(shapeValueRuns(), 1) << "three enqueues reuse them";

    // The same shape again changes nothing; a new one computes them again.
    ASSERT_TRUE(mContext->setInputShape("x", Dims{2, {1, 5}}));
    EXPECT_EQ(shapeValueRuns(), 1);
    ASSERT_TRUE(mContext->setInputShape("x", Dims{2, {1, 12}}));
    EXPECT_EQ(shapeValueRuns(), 2);
    runAndCheck(12);
    runAndCheck(12);
    EXPECT_EQ(shapeValueRuns(), 2);
    ASSERT_TRUE(mContext->setInputShape("x", Dims{2, {1, 1}}));
    runAndCheck(1);
    ASSERT_TRUE(mContext->setInputShape("x", Dims{2, {1, kShapeValuesMaxLength}}));
    runAndCheck(kShapeValuesMaxLength);
    EXPECT_EQ(shapeValueRuns(), 4);
}

TEST_F(ShapeValues, ExecuteV2AndASecondContextComputeTheirOwn)
{
    ASSERT_TRUE(mContext->setInputShape("x", Dims{2, {1, 3}}));
    runAndCheck(3);
    std::unique_ptr<nvinfer1::IExecutionContext> other{mEngine->createExecutionContext()};
    ASSERT_NE(other, nullptr);
    ASSERT_TRUE(other->setInputShape("x", Dims{2, {1, 7}}));
    EXPECT_EQ(ExecutionContext::of(*other).shapeValueRuns(), 1);
    std::vector<float> x(7, 0.5F);
    std::vector<float> y(7, 0.F);
    void* bindings[] = {x.data(), y.data()};
    ASSERT_TRUE(other->executeV2(bindings)) << mLogger.all();
    EXPECT_EQ(y, shapeValuesReference(x));
    EXPECT_EQ(ExecutionContext::of(*other).shapeValueRuns(), 1);
    runAndCheck(3);
    EXPECT_EQ(shapeValueRuns(), 1);
}

} // namespace
} // namespace kiln::test
