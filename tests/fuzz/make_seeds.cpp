// SPDX-License-Identifier: Apache-2.0
// Writes the fuzz targets' seed corpora (the build runs it; tests/fuzz/CMakeLists.txt): kiln's own plans of a few
// networks (host backend; one carries a small plugin library), timing caches, and plugin-field inputs in
// fuzz_plugin_fields.cpp's encoding for every creator initLibNvInferPlugins registers.
//
//     kiln_fuzz_seeds OUT_DIR      # OUT_DIR/plan/*.plan and *.payload, OUT_DIR/timing_cache/*.cache,
//                                  # OUT_DIR/plugin_fields/*.fields
#include "NvInfer.h"
#include "NvInferPlugin.h"
#include "fuzz/plugin_fields.h"
#include "plan/container.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;

class ErrorLogger : public ILogger
{
public:
    void log(Severity severity, char const* message) noexcept override
    {
        if (severity <= Severity::kERROR)
        {
            std::fprintf(stderr, "kiln_fuzz_seeds: %s\n", message);
        }
    }
};

ErrorLogger gLogger;
std::vector<std::vector<float>> gWeights; //!< Kept until the builds are done.

Weights weights(int64_t count, float scale = 0.1F)
{
    gWeights.emplace_back(static_cast<std::size_t>(count));
    for (int64_t i = 0; i < count; ++i)
    {
        gWeights.back()[static_cast<std::size_t>(i)] = scale * static_cast<float>((i * 7) % 11 - 5);
    }
    return Weights{DataType::kFLOAT, gWeights.back().data(), count};
}

bool write(std::filesystem::path const& path, void const* data, std::size_t size)
{
    std::ofstream out(path, std::ios::binary);
    out.write(static_cast<char const*>(data), static_cast<std::streamsize>(size));
    return static_cast<bool>(out);
}

//! Builds the network that make fills in (returning false on a failure) and writes its plan; false on failure.
bool plan(
    std::filesystem::path const& path, std::function<bool(INetworkDefinition&, IBuilder&, IBuilderConfig&)> const& make)
{
    std::unique_ptr<IBuilder> builder{createInferBuilder(gLogger)};
    std::unique_ptr<INetworkDefinition> network{builder->createNetworkV2(0)};
    std::unique_ptr<IBuilderConfig> config{builder->createBuilderConfig()};
    if (!make(*network, *builder, *config))
    {
        std::fprintf(stderr, "kiln_fuzz_seeds: %s: the network could not be made\n", path.c_str());
        return false;
    }
    std::unique_ptr<IHostMemory> bytes{builder->buildSerializedNetwork(*network, *config)};
    if (!bytes || bytes->size() <= kiln::kPlanHeaderSize)
    {
        return false;
    }
    // The plan fuzz target's two forms: 0 and the whole plan; 1 and the payload, which it seals itself.
    auto const* plan = static_cast<uint8_t const*>(bytes->data());
    std::vector<uint8_t> whole{0};
    whole.insert(whole.end(), plan, plan + bytes->size());
    std::vector<uint8_t> payload{1};
    payload.insert(payload.end(), plan + kiln::kPlanHeaderSize, plan + bytes->size());
    std::filesystem::path payloadPath = path;
    payloadPath.replace_extension(".payload");
    return write(path, whole.data(), whole.size()) && write(payloadPath, payload.data(), payload.size());
}

bool convolutions(INetworkDefinition& n, IBuilder&, IBuilderConfig&)
{
    ITensor* x = n.addInput("x", DataType::kFLOAT, Dims4{1, 3, 16, 16});
    IConvolutionLayer* conv = n.addConvolutionNd(*x, 8, DimsHW{3, 3}, weights(8 * 3 * 9), weights(8));
    conv->setPaddingNd(DimsHW{1, 1});
    ITensor* relu = n.addActivation(*conv->getOutput(0), ActivationType::kRELU)->getOutput(0);
    IPoolingLayer* pool = n.addPoolingNd(*relu, PoolingType::kMAX, DimsHW{2, 2});
    pool->setStrideNd(DimsHW{2, 2});
    IShuffleLayer* flat = n.addShuffle(*pool->getOutput(0));
    flat->setReshapeDimensions(Dims2{1, 8 * 8 * 8});
    ITensor* w = n.addConstant(Dims2{8 * 8 * 8, 10}, weights(8 * 8 * 8 * 10))->getOutput(0);
    ITensor* logits
        = n.addMatrixMultiply(*flat->getOutput(0), MatrixOperation::kNONE, *w, MatrixOperation::kNONE)->getOutput(0);
    ITensor* y = n.addSoftMax(*logits)->getOutput(0);
    y->setName("y");
    n.markOutput(*y);
    return true;
}

bool dynamicShapes(INetworkDefinition& n, IBuilder& b, IBuilderConfig& c)
{
    ITensor* x = n.addInput("x", DataType::kFLOAT, Dims2{-1, 8});
    ITensor* bias = n.addConstant(Dims2{1, 8}, weights(8))->getOutput(0);
    ITensor* sum = n.addElementWise(*x, *bias, ElementWiseOperation::kSUM)->getOutput(0);
    ITensor* e = n.addUnary(*sum, UnaryOperation::kEXP)->getOutput(0);
    ITensor* r = n.addReduce(*e, ReduceOperation::kSUM, 2U, true)->getOutput(0);
    ITensor* parts[] = {e, r};
    IConcatenationLayer* concat = n.addConcatenation(parts, 2);
    concat->setAxis(1);
    ITensor* both = concat->getOutput(0);
    ITopKLayer* top = n.addTopK(*both, TopKOperation::kMAX, 2, 2U);
    ITensor* values = top->getOutput(0);
    values->setName("top");
    n.markOutput(*values);
    ITensor* indices = n.addGather(*both, *top->getOutput(1), 1)->getOutput(0);
    indices->setName("gathered");
    n.markOutput(*indices);
    IOptimizationProfile* profile = b.createOptimizationProfile();
    profile->setDimensions("x", OptProfileSelector::kMIN, Dims2{1, 8});
    profile->setDimensions("x", OptProfileSelector::kOPT, Dims2{4, 8});
    profile->setDimensions("x", OptProfileSelector::kMAX, Dims2{16, 8});
    return c.addOptimizationProfile(profile) >= 0;
}

bool standardPlugin(INetworkDefinition& n, IBuilder&, IBuilderConfig&)
{
    auto* creator = static_cast<IPluginCreatorV3One*>(getPluginRegistry()->getCreator("ROIAlign_TRT", "2", ""));
    if (creator == nullptr)
    {
        return false;
    }
    int32_t const integers[] = {1, 1, 4, 4, 2};
    float const scale = 0.5F;
    PluginField const fields[] = {{"coordinate_transformation_mode", &integers[0], PluginFieldType::kINT32, 1},
        {"mode", &integers[1], PluginFieldType::kINT32, 1}, {"output_height", &integers[2], PluginFieldType::kINT32, 1},
        {"output_width", &integers[3], PluginFieldType::kINT32, 1},
        {"sampling_ratio", &integers[4], PluginFieldType::kINT32, 1},
        {"spatial_scale", &scale, PluginFieldType::kFLOAT32, 1}};
    PluginFieldCollection const collection{6, fields};
    std::unique_ptr<IPluginV3> plugin{creator->createPlugin("roi", &collection, TensorRTPhase::kBUILD)};
    if (!plugin)
    {
        return false;
    }
    ITensor* inputs[] = {n.addInput("features", DataType::kFLOAT, Dims4{1, 4, 8, 8}),
        n.addInput("rois", DataType::kFLOAT, Dims2{2, 4}), n.addInput("batch", DataType::kINT32, Dims{1, {2}})};
    IPluginV3Layer* layer = n.addPluginV3(inputs, 3, nullptr, 0, *plugin);
    if (layer == nullptr)
    {
        return false;
    }
    layer->getOutput(0)->setName("pooled");
    n.markOutput(*layer->getOutput(0));
    return true;
}

bool loopAndConditional(INetworkDefinition& n, IBuilder&, IBuilderConfig&)
{
    ITensor* x = n.addInput("x", DataType::kFLOAT, Dims2{3, 4});
    ITensor* flag = n.addInput("flag", DataType::kBOOL, Dims{0, {}});
    ILoop* loop = n.addLoop();
    static int32_t const count = 3;
    ITensor* trips = n.addConstant(Dims{0, {}}, Weights{DataType::kINT32, &count, 1})->getOutput(0);
    loop->addTripLimit(*trips, TripLimit::kCOUNT);
    ITensor* zero = n.addConstant(Dims{1, {4}}, weights(4, 0.F))->getOutput(0);
    IRecurrenceLayer* total = loop->addRecurrence(*zero);
    ITensor* row = loop->addIterator(*x)->getOutput(0);
    ITensor* next = n.addElementWise(*total->getOutput(0), *row, ElementWiseOperation::kSUM)->getOutput(0);
    total->setInput(1, *next);
    ITensor* summed = loop->addLoopOutput(*total->getOutput(0), LoopOutput::kLAST_VALUE)->getOutput(0);
    IIfConditional* choice = n.addIfConditional();
    choice->setCondition(*flag);
    ITensor* inside = choice->addInput(*summed)->getOutput(0);
    ITensor* whenTrue = n.addUnary(*inside, UnaryOperation::kEXP)->getOutput(0);
    ITensor* whenFalse = n.addUnary(*inside, UnaryOperation::kABS)->getOutput(0);
    ITensor* y = choice->addOutput(*whenTrue, *whenFalse)->getOutput(0);
    y->setName("y");
    n.markOutput(*y);
    return true;
}

bool shapeArithmetic(INetworkDefinition& n, IBuilder& b, IBuilderConfig& c)
{
    ITensor* x = n.addInput("x", DataType::kFLOAT, Dims2{-1, 4});
    ITensor* target = n.addInput("target", DataType::kINT32, Dims{1, {2}});
    ITensor* shape = n.addShape(*x)->getOutput(0);
    IFillLayer* ramp = n.addFill(Dims{}, FillOperation::kLINSPACE, DataType::kFLOAT);
    ramp->setInput(0, *shape);
    static float const start = 0.F;
    ramp->setInput(1, *n.addConstant(Dims{0, {}}, Weights{DataType::kFLOAT, &start, 1})->getOutput(0));
    ITensor* steps = n.addConstant(Dims{1, {2}}, weights(2, 1.F))->getOutput(0);
    ramp->setInput(2, *steps);
    ITensor* sum = n.addElementWise(*x, *ramp->getOutput(0), ElementWiseOperation::kSUM)->getOutput(0);
    IShuffleLayer* reshaped = n.addShuffle(*sum);
    reshaped->setInput(1, *target);
    reshaped->getOutput(0)->setName("y");
    n.markOutput(*reshaped->getOutput(0));
    IOptimizationProfile* profile = b.createOptimizationProfile();
    profile->setDimensions("x", OptProfileSelector::kMIN, Dims2{2, 4});
    profile->setDimensions("x", OptProfileSelector::kOPT, Dims2{4, 4});
    profile->setDimensions("x", OptProfileSelector::kMAX, Dims2{8, 4});
    int32_t const low[] = {4, 2};
    int32_t const opt[] = {4, 4};
    int32_t const high[] = {8, 4};
    profile->setShapeValues("target", OptProfileSelector::kMIN, low, 2);
    profile->setShapeValues("target", OptProfileSelector::kOPT, opt, 2);
    profile->setShapeValues("target", OptProfileSelector::kMAX, high, 2);
    return c.addOptimizationProfile(profile) >= 0;
}

//! The dynamic-shapes network in a plan that carries a plugin library (format 4.4): the fuzz target never allows host
//! code, so the library's bytes are only ever read and checked, never loaded.
bool carriedLibrary(INetworkDefinition& n, IBuilder& b, IBuilderConfig& c)
{
    char const* const libraries[] = {KILN_FUZZ_SEED_LIBRARY};
    c.setPluginsToSerialize(libraries, 1);
    return dynamicShapes(n, b, c);
}

//! An empty cache of the host backend (make_cache_seeds.cpp writes caches with entries).
bool timingCaches(std::filesystem::path const& dir)
{
    std::unique_ptr<IBuilder> builder{createInferBuilder(gLogger)};
    std::unique_ptr<IBuilderConfig> config{builder->createBuilderConfig()};
    std::unique_ptr<ITimingCache> cache{config->createTimingCache(nullptr, 0)};
    if (!cache)
    {
        return false;
    }
    std::unique_ptr<IHostMemory> empty{cache->serialize()};
    return empty && write(dir / "empty.cache", empty->data(), empty->size());
}

//! Each registered creator's fields in the plugin-fields target's encoding: its field names with zeroed values.
bool pluginFields(std::filesystem::path const& dir)
{
    int32_t count = 0;
    IPluginCreatorInterface* const* creators = getPluginRegistry()->getAllCreators(&count);
    bool ok = count > 0;
    for (int32_t i = 0; i < count && creators != nullptr; ++i)
    {
        std::vector<uint8_t> const bytes = kiln::fuzz::encodeDefaultFields(static_cast<uint8_t>(i), *creators[i]);
        ok = write(dir / ("creator_" + std::to_string(i) + ".fields"), bytes.data(), bytes.size()) && ok;
    }
    return ok;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 2)
    {
        std::fprintf(stderr, "usage: kiln_fuzz_seeds OUT_DIR\n");
        return 1;
    }
    setenv("KILN_BACKEND", "host", 1);
    initLibNvInferPlugins(&gLogger, "");
    std::filesystem::path const out = argv[1];
    for (char const* sub : {"plan", "timing_cache", "plugin_fields"})
    {
        std::filesystem::create_directories(out / sub);
    }
    bool ok = plan(out / "plan" / "convolutions.plan", convolutions);
    ok = plan(out / "plan" / "dynamic_shapes.plan", dynamicShapes) && ok;
    ok = plan(out / "plan" / "standard_plugin.plan", standardPlugin) && ok;
    ok = plan(out / "plan" / "loop_and_conditional.plan", loopAndConditional) && ok;
    ok = plan(out / "plan" / "shape_arithmetic.plan", shapeArithmetic) && ok;
    ok = plan(out / "plan" / "carried_library.plan", carriedLibrary) && ok;
    ok = timingCaches(out / "timing_cache") && ok;
    ok = pluginFields(out / "plugin_fields") && ok;
    return ok ? 0 : 1;
}
