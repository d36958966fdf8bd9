// SPDX-License-Identifier: Apache-2.0
// ICudaEngine: the queries about I/O tensors and profiles, the inspector, serialization and deserialization through
// IRuntime from memory (stream readers: stream_reader_test.cpp), and the engines createEngine and the runtime refuse.
#include "models.h"
#if KILN_WITH_CUDA
#include "backends/cuda/cuda_backend.h"
#endif

#include "plan/engine_codec.h"

#include <algorithm>

namespace kiln::test
{
namespace
{

//! Whether CUDA plans run here (then a CUDA plan loads, and the refusals below do not apply).
bool gpuUsable()
{
#if KILN_WITH_CUDA
    return cuda::cudaBackendAvailable();
#else
    return false;
#endif
}

using nvinfer1::IExecutionContext;
using nvinfer1::LayerInformationFormat;
using nvinfer1::OptProfileSelector;
using nvinfer1::TensorIOMode;

using EngineQueries = RuntimeTest;

TEST_F(EngineQueries, IoTensors)
{
    auto engine = makeEngine(reluAddModel());
    ASSERT_NE(engine, nullptr);
    ASSERT_EQ(engine->getNbIOTensors(), 2);
    EXPECT_STREQ(engine->getIOTensorName(0), "x");
    EXPECT_STREQ(engine->getIOTensorName(1), "y");
    EXPECT_EQ(engine->getIOTensorName(2), nullptr);
    expectError({"ICudaEngine::getIOTensorName", "index 2 is outside [0, 2)"});
    EXPECT_EQ(engine->getTensorIOMode("x"), TensorIOMode::kINPUT);
    EXPECT_EQ(engine->getTensorIOMode("y"), TensorIOMode::kOUTPUT);
    EXPECT_EQ(engine->getTensorIOMode("h"), TensorIOMode::kNONE);
    expectNoError();
    EXPECT_EQ(toString(engine->getTensorShape("x")), toString(dims({-1, 3})));
    EXPECT_EQ(toString(engine->getTensorShape("y")), toString(dims({-1, 3})));
    EXPECT_EQ(engine->getTensorShape("h").nbDims, -1);
    expectError({"ICudaEngine::getTensorShape", "no input or output tensor is named 'h'"});
    EXPECT_EQ(engine->getTensorDataType("y"), DataType::kFLOAT);
    EXPECT_EQ(engine->getTensorLocation("x"), nvinfer1::TensorLocation::kHOST); // a host engine
    EXPECT_FALSE(engine->isShapeInferenceIO("x"));
    EXPECT_EQ(engine->getTensorFormat("x"), nvinfer1::TensorFormat::kLINEAR);
    EXPECT_EQ(engine->getTensorFormat("x", 0), nvinfer1::TensorFormat::kLINEAR);
    EXPECT_STREQ(engine->getTensorFormatDesc("y"), "Row major linear FP32 format (kLINEAR)");
    EXPECT_STREQ(engine->getTensorFormatDesc("y", 0), "Row major linear FP32 format (kLINEAR)");
    EXPECT_EQ(engine->getTensorBytesPerComponent("x"), 4);
    EXPECT_EQ(engine->getTensorBytesPerComponent("x", 0), 4);
    EXPECT_EQ(engine->getTensorComponentsPerElement("x"), 1);
    EXPECT_EQ(engine->getTensorComponentsPerElement("x", 0), 1);
    EXPECT_EQ(engine->getTensorVectorizedDim("x"), -1);
    EXPECT_EQ(engine->getTensorVectorizedDim("x", 0), -1);
    EXPECT_EQ(engine->getAliasedInputTensor("y"), nullptr);
    expectNoError();
    EXPECT_EQ(engine->getTensorBytesPerComponent("x", 3), -1);
    expectError({"ICudaEngine::getTensorBytesPerComponent", "optimization profile 3 does not exist"});
    EXPECT_EQ(engine->getTensorDataType(nullptr), DataType::kFLOAT);
    expectError({"ICudaEngine::getTensorDataType", "the tensor name is null"});
}

// A host engine takes every I/O tensor in host memory, shape tensors and the others alike (a CUDA engine's answers:
// tests/engine/cuda_engine_test.cpp).
TEST_F(EngineQueries, TensorLocationIsHostOnAHostEngine)
{
    auto engine = makeEngine(shapeInputModel());
    ASSERT_NE(engine, nullptr);
    EXPECT_EQ(engine->getTensorLocation("n"), nvinfer1::TensorLocation::kHOST);
    EXPECT_EQ(engine->getTensorLocation("y"), nvinfer1::TensorLocation::kHOST);
    expectNoError();
    EXPECT_EQ(engine->getTensorLocation("h"), nvinfer1::TensorLocation::kDEVICE);
    expectError({"ICudaEngine::getTensorLocation", "no input or output tensor is named 'h'"});
}

TEST_F(EngineQueries, ProfilesAndMemory)
{
    auto engine = makeEngine(reluAddModel());
    EXPECT_EQ(engine->getNbOptimizationProfiles(), 1);
    EXPECT_EQ(toString(engine->getProfileShape("x", 0, OptProfileSelector::kMIN)), toString(dims({1, 3})));
    EXPECT_EQ(toString(engine->getProfileShape("x", 0, OptProfileSelector::kOPT)), toString(dims({4, 3})));
    EXPECT_EQ(toString(engine->getProfileShape("x", 0, OptProfileSelector::kMAX)), toString(dims({8, 3})));
    expectNoError();
    EXPECT_EQ(engine->getProfileShape("y", 0, OptProfileSelector::kMIN).nbDims, -1);
    expectError({"ICudaEngine::getProfileShape", "tensor 'y' is an output"});
    EXPECT_EQ(engine->getProfileShape("x", 1, OptProfileSelector::kMIN).nbDims, -1);
    expectError({"ICudaEngine::getProfileShape", "optimization profile 1 does not exist"});
    EXPECT_EQ(engine->getProfileTensorValuesV2("x", 0, OptProfileSelector::kMIN), nullptr);
    expectError({"ICudaEngine::getProfileTensorValuesV2", "input 'x' is not a shape tensor"});

    EXPECT_EQ(engine->getDeviceMemorySize(), 256U);
    EXPECT_EQ(engine->getDeviceMemorySizeV2(), 256);
    EXPECT_EQ(engine->getDeviceMemorySizeForProfile(0), 256U);
    EXPECT_EQ(engine->getDeviceMemorySizeForProfileV2(0), 256);
    expectNoError();
    EXPECT_EQ(engine->getDeviceMemorySizeForProfileV2(2), 0);
    expectError({"ICudaEngine::getDeviceMemorySizeForProfileV2", "optimization profile 2 does not exist"});

    auto shapes = makeEngine(shapeInputModel());
    int64_t const* min = shapes->getProfileTensorValuesV2("n", 0, OptProfileSelector::kMIN);
    int64_t const* opt = shapes->getProfileTensorValuesV2("n", 0, OptProfileSelector::kOPT);
    int64_t const* max = shapes->getProfileTensorValuesV2("n", 0, OptProfileSelector::kMAX);
    ASSERT_TRUE(min != nullptr && opt != nullptr && max != nullptr);
    EXPECT_EQ(min[0], 1);
    EXPECT_EQ(opt[0], 4);
    EXPECT_EQ(max[0], 10);
    int32_t const* max32 = shapes->getProfileTensorValues("n", 0, OptProfileSelector::kMAX);
    ASSERT_NE(max32, nullptr);
    EXPECT_EQ(max32[0], 10);
    EXPECT_EQ(toString(shapes->getProfileShape("n", 0, OptProfileSelector::kMAX)), toString(dims({1})));
    expectNoError();
}

TEST_F(EngineQueries, EverythingElse)
{
    auto engine = makeEngine(addConstantModel());
    EXPECT_EQ(engine->getNbLayers(), 3);
    EXPECT_STREQ(engine->getName(), "add_constant");
    EXPECT_EQ(engine->getEngineCapability(), nvinfer1::EngineCapability::kSTANDARD);
    EXPECT_FALSE(engine->hasImplicitBatchDimension());
    EXPECT_FALSE(engine->isRefittable());
    EXPECT_EQ(engine->getNbAuxStreams(), 0);
    EXPECT_EQ(engine->getTacticSources(), 0U);
    EXPECT_EQ(engine->getProfilingVerbosity(), nvinfer1::ProfilingVerbosity::kLAYER_NAMES_ONLY);
    EXPECT_EQ(engine->getHardwareCompatibilityLevel(), nvinfer1::HardwareCompatibilityLevel::kNONE);
    EXPECT_FALSE(engine->isDebugTensor("y"));
    EXPECT_EQ(engine->getEngineStat(nvinfer1::EngineStat::kTOTAL_WEIGHTS_SIZE), 12);
    EXPECT_EQ(engine->getEngineStat(nvinfer1::EngineStat::kSTRIPPED_WEIGHTS_SIZE), -1);
    EXPECT_EQ(engine->getStreamableWeightsSize(), 0);
    EXPECT_EQ(engine->getMinimumWeightStreamingBudget(), 0);
    EXPECT_EQ(engine->getWeightStreamingBudget(), -1);
    EXPECT_EQ(engine->getWeightStreamingBudgetV2(), 0);
    EXPECT_EQ(engine->getWeightStreamingAutomaticBudget(), 0);
    EXPECT_EQ(engine->getWeightStreamingScratchMemorySize(), 0);
    EXPECT_TRUE(engine->setWeightStreamingBudgetV2(1024));
    EXPECT_EQ(engine->getWeightStreamingBudgetV2(), 1024);
    EXPECT_TRUE(engine->setWeightStreamingBudget(0));
    EXPECT_EQ(engine->getWeightStreamingBudget(), 0);
    expectNoError();
    EXPECT_FALSE(engine->setWeightStreamingBudgetV2(-5));
    expectError({"ICudaEngine::setWeightStreamingBudgetV2", "-5"});

    TestErrorRecorder recorder;
    engine->setErrorRecorder(&recorder);
    EXPECT_EQ(engine->getErrorRecorder(), &recorder);
    EXPECT_EQ(engine->getTensorShape("zz").nbDims, -1);
    EXPECT_EQ(recorder.getNbErrors(), 1);
    engine->setErrorRecorder(nullptr);
    EXPECT_EQ(recorder.refCount(), 0);
    mLogger.clear();
}

TEST_F(EngineQueries, InspectorDescribesLayers)
{
    auto engine = makeEngine(reluAddModel());
    std::unique_ptr<nvinfer1::IEngineInspector> inspector{engine->createEngineInspector()};
    ASSERT_NE(inspector, nullptr);
    std::string const oneLine = inspector->getEngineInformation(LayerInformationFormat::kONELINE);
    EXPECT_NE(oneLine.find("Name: relu, LayerType: Activation"), std::string::npos) << oneLine;
    EXPECT_NE(oneLine.find("Name: add, LayerType: ElementWise"), std::string::npos) << oneLine;
    EXPECT_NE(oneLine.find("{ Name: x, Location: Host, Dimensions: [-1,3], Format/Datatype: Row major linear FP32"),
        std::string::npos)
        << oneLine;
    EXPECT_EQ(std::count(oneLine.begin(), oneLine.end(), '\n'), 2);

    std::string const json = inspector->getEngineInformation(LayerInformationFormat::kJSON);
    EXPECT_NE(json.find("{\"Layers\": [{\"Name\": \"relu\", \"LayerType\": \"Activation\""), std::string::npos) << json;
    EXPECT_NE(
        json.find("\"Outputs\": [{\"Name\": \"h\", \"Location\": \"Host\", \"Dimensions\": [-1,3]"), std::string::npos)
        << json;
    EXPECT_NE(json.find("\"Bindings\": [\"x\", \"y\"]}"), std::string::npos) << json;

    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_TRUE(context->setInputShape("x", dims({2, 3})));
    EXPECT_TRUE(inspector->setExecutionContext(context.get()));
    EXPECT_EQ(inspector->getExecutionContext(), context.get());
    std::string const layer = inspector->getLayerInformation(1, LayerInformationFormat::kJSON);
    EXPECT_NE(layer.find("\"Name\": \"add\""), std::string::npos) << layer;
    EXPECT_NE(layer.find("\"Name\": \"y\", \"Location\": \"Host\", \"Dimensions\": [2,3]"), std::string::npos) << layer;
    expectNoError();

    EXPECT_EQ(inspector->getLayerInformation(2, LayerInformationFormat::kONELINE), nullptr);
    expectError({"IEngineInspector::getLayerInformation", "layer index 2 is outside [0, 2)"});
    EXPECT_EQ(inspector->getEngineInformation(static_cast<LayerInformationFormat>(5)), nullptr);
    expectError({"IEngineInspector::getEngineInformation", "5 is no LayerInformationFormat"});
    auto other = makeEngine(reluAddModel());
    std::unique_ptr<IExecutionContext> foreign{other->createExecutionContext()};
    EXPECT_FALSE(inspector->setExecutionContext(foreign.get()));
    expectError({"IEngineInspector::setExecutionContext", "another engine"});
    EXPECT_TRUE(inspector->setExecutionContext(nullptr));
}

TEST_F(EngineQueries, CreateEngineRefusesWhatItCannotRun)
{
    EngineModel inconsistent = reluAddModel();
    inconsistent.nbInputs = 5;
    EXPECT_EQ(createEngine(std::move(inconsistent), mLogger), nullptr);
    expectError({"createEngine: network \"relu_add\": the engine model is not consistent"});

    if (!gpuUsable())
    {
        EngineModel cuda = reluAddModel();
        cuda.backend = PlanBackend::kCUDA;
        EXPECT_EQ(createEngine(std::move(cuda), mLogger), nullptr);
        expectError({"createEngine", "built for kiln's CUDA backend", "KILN_BACKEND=host"});
    }

    // A layer whose output's extent is a size tensor the layer itself makes.
    EngineModel selfSized = dataDependentModel();
    int32_t const y = selfSized.findTensor("y");
    selfSized.symbols.front().kind = SymbolKind::kSIZE_TENSOR;
    selfSized.symbols.front().tensor = y;
    EXPECT_EQ(createEngine(std::move(selfSized), mLogger), nullptr);
    expectError(
        {"createEngine", "layer 'fill' (Fill) makes 'y' of shape c.v0", "depends on values the layer computes itself"});
}

using Serialization = RuntimeTest;

TEST_F(Serialization, RoundTripThroughTheRuntime)
{
    auto engine = makeEngine(addConstantModel());
    ASSERT_NE(engine, nullptr);
    std::unique_ptr<nvinfer1::IHostMemory> plan{engine->serialize()};
    ASSERT_NE(plan, nullptr) << mLogger.all();
    EXPECT_EQ(plan->type(), DataType::kUINT8);
    std::vector<uint8_t> const bytes(
        static_cast<uint8_t const*>(plan->data()), static_cast<uint8_t const*>(plan->data()) + plan->size());

    std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(mLogger)};
    ASSERT_NE(runtime, nullptr);
    std::vector<float> const expected{15, 27, 39};
    std::unique_ptr<nvinfer1::ICudaEngine> loaded{runtime->deserializeCudaEngine(bytes.data(), bytes.size())};
    ASSERT_NE(loaded, nullptr) << mLogger.all();
    EXPECT_STREQ(loaded->getName(), "add_constant");
    EXPECT_EQ(loaded->getNbLayers(), 3);
    EXPECT_EQ(runAddConstant(*loaded), expected);
    expectNoError();

    std::unique_ptr<nvinfer1::ISerializationConfig> config{engine->createSerializationConfig()};
    ASSERT_NE(config, nullptr);
    EXPECT_TRUE(config->setFlag(nvinfer1::SerializationFlag::kEXCLUDE_LEAN_RUNTIME));
    EXPECT_TRUE(config->getFlag(nvinfer1::SerializationFlag::kEXCLUDE_LEAN_RUNTIME));
    EXPECT_EQ(config->getFlags(), 2U);
    EXPECT_TRUE(config->clearFlag(nvinfer1::SerializationFlag::kEXCLUDE_LEAN_RUNTIME));
    EXPECT_TRUE(config->setFlag(nvinfer1::SerializationFlag::kINCLUDE_REFIT)); // Accepted, and said to change nothing.
    auto const warned = mLogger.messages(nvinfer1::ILogger::Severity::kWARNING);
    ASSERT_FALSE(warned.empty());
    EXPECT_NE(warned.back().find("kINCLUDE_REFIT is ignored"), std::string::npos) << warned.back();
    EXPECT_TRUE(config->clearFlag(nvinfer1::SerializationFlag::kINCLUDE_REFIT));
    EXPECT_FALSE(config->setFlags(8U));
    expectError({"ISerializationConfig::setFlags", "flags 8"});
    std::unique_ptr<nvinfer1::IHostMemory> again{engine->serializeWithConfig(*config)};
    ASSERT_NE(again, nullptr);
    EXPECT_EQ(again->size(), plan->size());
}

TEST_F(Serialization, DataDependentAndShapeInputModelsRoundTrip)
{
    for (auto make : {&dataDependentModel, &shapeInputModel, &reluAddModel})
    {
        auto engine = makeEngine(make());
        ASSERT_NE(engine, nullptr);
        std::unique_ptr<nvinfer1::IHostMemory> plan{engine->serialize()};
        ASSERT_NE(plan, nullptr) << mLogger.all();
        std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(mLogger)};
        std::unique_ptr<nvinfer1::ICudaEngine> loaded{runtime->deserializeCudaEngine(plan->data(), plan->size())};
        ASSERT_NE(loaded, nullptr) << mLogger.all();
        EXPECT_EQ(loaded->getNbIOTensors(), engine->getNbIOTensors());
        for (int32_t i = 0; i < engine->getNbIOTensors(); ++i)
        {
            char const* name = engine->getIOTensorName(i);
            EXPECT_STREQ(loaded->getIOTensorName(i), name);
            EXPECT_EQ(toString(loaded->getTensorShape(name)), toString(engine->getTensorShape(name)));
            EXPECT_EQ(loaded->isShapeInferenceIO(name), engine->isShapeInferenceIO(name));
        }
    }
    expectNoError();
}

TEST_F(Serialization, TheRuntimeRefusesBadPlans)
{
    std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(mLogger)};
    std::string const text = "definitely not a plan";
    EXPECT_EQ(runtime->deserializeCudaEngine(text.data(), text.size()), nullptr);
    expectError({"IRuntime::deserializeCudaEngine", "not a kiln plan"});
    EXPECT_EQ(runtime->deserializeCudaEngine(nullptr, 10), nullptr);
    expectError({"IRuntime::deserializeCudaEngine", "a null pointer"});
    EXPECT_EQ(runtime->deserializeCudaEngine(text.data(), 0), nullptr);
    expectError({"IRuntime::deserializeCudaEngine", "empty (0 bytes)"});

    auto engine = makeEngine(reluAddModel());
    std::unique_ptr<nvinfer1::IHostMemory> plan{engine->serialize()};
    EXPECT_EQ(runtime->deserializeCudaEngine(plan->data(), plan->size() - 3), nullptr);
    expectError({"IRuntime::deserializeCudaEngine", "truncated"});

    if (!gpuUsable())
    {
        EngineModel cuda = reluAddModel();
        cuda.backend = PlanBackend::kCUDA;
        auto cudaPlan = encodeEngine(cuda);
        ASSERT_TRUE(cudaPlan.ok()) << cudaPlan.error().message;
        EXPECT_EQ(runtime->deserializeCudaEngine(cudaPlan.value().data(), cudaPlan.value().size()), nullptr);
        expectError({"IRuntime::deserializeCudaEngine", "built for kiln's CUDA backend", "KILN_BACKEND=host"});
    }

    TestErrorRecorder recorder;
    runtime->setErrorRecorder(&recorder);
    EXPECT_EQ(runtime->deserializeCudaEngine(text.data(), text.size()), nullptr);
    EXPECT_EQ(recorder.getNbErrors(), 1);
    std::unique_ptr<nvinfer1::ICudaEngine> inherits{runtime->deserializeCudaEngine(plan->data(), plan->size())};
    ASSERT_NE(inherits, nullptr);
    EXPECT_EQ(inherits->getErrorRecorder(), &recorder);
    inherits.reset();
    runtime->setErrorRecorder(nullptr);
    EXPECT_EQ(recorder.refCount(), 0);
    mLogger.clear();
}

} // namespace
} // namespace kiln::test
