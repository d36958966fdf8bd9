// SPDX-License-Identifier: Apache-2.0
// The tool's builder progress (TerminalProgress): a phase's line redrawn in place as steps complete, nested phases
// indented, the finished line kept; and kiln's builder reporting its build phase to it.
#include "progress.h"

#include "NvInfer.h"

#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>

namespace kiln_tool_test
{
namespace
{

using kiln_tool::TerminalProgress;

TEST(ToolProgress, APhaseRedrawsItsLineAsStepsCompleteAndKeepsItWhenDone)
{
    std::ostringstream out;
    TerminalProgress progress(out);
    progress.phaseStart("Building", nullptr, 4);
    EXPECT_EQ(out.str(), "\r[Building] [                              ] 0% (0/4)");
    EXPECT_TRUE(progress.stepComplete("Building", 0));
    EXPECT_TRUE(progress.stepComplete("Building", 1));
    progress.phaseStart("Timing", "Building", 2); // nested: indented
    EXPECT_TRUE(progress.stepComplete("Timing", 1));
    progress.phaseFinish("Timing");
    progress.phaseFinish("Building");
    std::string const text = out.str();
    EXPECT_NE(text.find("\r[Building] [=======                       ] 25% (1/4)"), std::string::npos) << text;
    EXPECT_NE(text.find("\r[Building] [===============               ] 50% (2/4)"), std::string::npos) << text;
    EXPECT_NE(text.find("\r  [Timing] [==============================] 100% (2/2)\n"), std::string::npos) << text;
    EXPECT_NE(text.find("\r[Building] [==============================] 100% (4/4)\n"), std::string::npos) << text;
}

TEST(ToolProgress, AStepThatDoesNotChangeThePercentageDrawsNothing)
{
    std::ostringstream out;
    TerminalProgress progress(out);
    progress.phaseStart("Building", nullptr, 1000);
    std::size_t const first = out.str().size();
    progress.stepComplete("Building", 0); // 0.1%: still 0%
    EXPECT_EQ(out.str().size(), first);
    progress.stepComplete("Building", 9); // 1%
    EXPECT_GT(out.str().size(), first);
}

//! A logger that keeps nothing.
class Quiet final : public nvinfer1::ILogger
{
    void log(Severity, char const*) noexcept override {}
};

TEST(ToolProgress, KilnsBuilderReportsItsBuildPhaseToIt)
{
    Quiet logger;
    std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger)};
    ASSERT_NE(builder, nullptr);
    std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
    nvinfer1::ITensor* x = network->addInput("x", nvinfer1::DataType::kFLOAT, nvinfer1::Dims{2, {2, 3}});
    nvinfer1::ITensor* y = network->addActivation(*x, nvinfer1::ActivationType::kRELU)->getOutput(0);
    network->markOutput(*network->addElementWise(*y, *x, nvinfer1::ElementWiseOperation::kSUM)->getOutput(0));
    std::unique_ptr<nvinfer1::IBuilderConfig> config{builder->createBuilderConfig()};
    std::ostringstream out;
    TerminalProgress progress(out);
    config->setProgressMonitor(&progress);
    std::unique_ptr<nvinfer1::IHostMemory> const plan{builder->buildSerializedNetwork(*network, *config)};
    ASSERT_NE(plan, nullptr);
    std::string const text = out.str();
    EXPECT_NE(text.find("] 100% ("), std::string::npos) << text;
    EXPECT_EQ(text.back(), '\n') << text;
}

} // namespace
} // namespace kiln_tool_test
