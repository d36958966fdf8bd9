// SPDX-License-Identifier: Apache-2.0
// dummy_plugin [plan-path]   (default: dummy_plugin.plan in the working directory)
//
// DummyPlugin's state is an INT32 scalar, a FLOAT32 vector and a struct serialized as kUNKNOWN bytes. The example
// first checks the round trip by hand (createPlugin(kBUILD) -> getFieldsToSerialize() -> createPlugin(kRUNTIME) gives
// the same fields) and that createPlugin() refuses incomplete fields; then it builds "X" [2, 4] -> DummyPlugin -> "Y",
// saves the plan, loads it in a fresh runtime (which restores the plugin from the plan's fields), runs it on the GPU
// or on the host (io_buffers.h) and checks that Y = b * (X * floatVector + intScalar) + a with the values given at
// build time.
#include "dummy_plugin.h"
#include "example_common.h"
#include "io_buffers.h"

#include "NvInfer.h"

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace nvinfer1;

namespace
{

constexpr char const* kExample = "dummy_plugin";

int32_t const kIntScalar = 7;
std::vector<float> const kFloatVector{0.5F, -1.0F, 2.0F, 0.25F};
DummyStruct const kDummyStruct{3, 0.25F};

//! The build fields; nbFields 2 leaves dummyStruct out.
PluginFieldCollection buildFields(std::vector<PluginField>& storage, int32_t nbFields = 3)
{
    storage = {PluginField("intScalar", &kIntScalar, PluginFieldType::kINT32, 1),
        PluginField(
            "floatVector", kFloatVector.data(), PluginFieldType::kFLOAT32, static_cast<int32_t>(kFloatVector.size())),
        PluginField(
            "dummyStruct", &kDummyStruct, PluginFieldType::kUNKNOWN, static_cast<int32_t>(sizeof(DummyStruct)))};
    return PluginFieldCollection{nbFields, storage.data()};
}

//! Whether two field collections hold the same names, types and bytes.
bool sameFields(PluginFieldCollection const& a, PluginFieldCollection const& b)
{
    if (a.nbFields != b.nbFields)
    {
        return false;
    }
    for (int32_t i = 0; i < a.nbFields; ++i)
    {
        PluginField const& x = a.fields[i];
        PluginField const& y = b.fields[i];
        std::size_t const bytes = x.type == PluginFieldType::kUNKNOWN ? static_cast<std::size_t>(x.length)
                                                                      : static_cast<std::size_t>(x.length) * 4;
        if (std::strcmp(x.name, y.name) != 0 || x.type != y.type || x.length != y.length
            || std::memcmp(x.data, y.data, bytes) != 0)
        {
            return false;
        }
    }
    return true;
}

//! The serialization round trip and the refusal of incomplete fields, without an engine.
bool checkFields()
{
    std::vector<PluginField> storage;
    PluginFieldCollection const fields = buildFields(storage);
    IPluginCreatorV3One& creator = dummyPluginCreator();
    std::unique_ptr<IPluginV3> built{creator.createPlugin("dummy", &fields, TensorRTPhase::kBUILD)};
    if (built == nullptr)
    {
        return example::report(kExample, "createPlugin(kBUILD)", false);
    }
    auto* builtRuntime
        = static_cast<IPluginV3OneRuntime*>(built->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
    PluginFieldCollection const* serialized = builtRuntime->getFieldsToSerialize();
    std::unique_ptr<IPluginV3> restored{creator.createPlugin("dummy", serialized, TensorRTPhase::kRUNTIME)};
    bool ok = restored != nullptr && sameFields(fields, *serialized);
    if (ok)
    {
        auto* restoredRuntime
            = static_cast<IPluginV3OneRuntime*>(restored->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
        ok = sameFields(*serialized, *restoredRuntime->getFieldsToSerialize());
    }
    ok = example::report(
        kExample, "fields round trip (intScalar 7, floatVector [0.5,-1,2,0.25], dummyStruct {a 3, b 0.25})", ok);

    std::vector<PluginField> partialStorage;
    PluginFieldCollection const partial = buildFields(partialStorage, 2);
    std::printf("%s: (an error about missing fields is expected next)\n", kExample);
    std::fflush(stdout);
    std::unique_ptr<IPluginV3> refused{creator.createPlugin("dummy", &partial, TensorRTPhase::kBUILD)};
    return example::report(kExample, "createPlugin without dummyStruct returns nullptr", refused == nullptr) && ok;
}

//! Builds the network and returns the serialized engine, or nullptr.
std::unique_ptr<IHostMemory> buildPlan(ILogger& logger)
{
    std::vector<PluginField> storage;
    PluginFieldCollection const fields = buildFields(storage);
    std::unique_ptr<IPluginV3> plugin{dummyPluginCreator().createPlugin("dummy", &fields, TensorRTPhase::kBUILD)};
    std::unique_ptr<IBuilder> builder{createInferBuilder(logger)};
    // No flags: TensorRT 10 networks always have an explicit batch dimension (kEXPLICIT_BATCH is ignored).
    std::unique_ptr<INetworkDefinition> network{builder->createNetworkV2(0)};
    ITensor* x = network->addInput("X", DataType::kFLOAT, Dims2{2, static_cast<int64_t>(kFloatVector.size())});
    IPluginV3Layer* dummy = plugin != nullptr ? network->addPluginV3(&x, 1, nullptr, 0, *plugin) : nullptr;
    if (dummy == nullptr)
    {
        return nullptr;
    }
    dummy->setName("dummy");
    dummy->getOutput(0)->setName("Y");
    network->markOutput(*dummy->getOutput(0));
    std::unique_ptr<IBuilderConfig> config{builder->createBuilderConfig()};
    return std::unique_ptr<IHostMemory>{builder->buildSerializedNetwork(*network, *config)};
}

} // namespace

int main(int argc, char** argv)
{
    std::string const path = argc > 1 ? argv[1] : "dummy_plugin.plan";
    example::Logger logger(kExample);
    if (!getPluginRegistry()->registerCreator(dummyPluginCreator(), "example"))
    {
        std::printf("%s: registering DummyPlugin failed\n", kExample);
        return 1;
    }
    bool ok = checkFields();
    {
        std::unique_ptr<IHostMemory> plan = buildPlan(logger);
        if (plan == nullptr || !example::writeFile(path, plan->data(), plan->size()))
        {
            std::printf("%s: building or saving the plan failed\n", kExample);
            return 1;
        }
        std::printf("%s: saved a %zu-byte plan to %s\n", kExample, plan->size(), path.c_str());
    }

    int32_t const creationsBefore = dummyRuntimeCreations();
    std::vector<char> const bytes = example::readFile(path);
    std::unique_ptr<IRuntime> runtime{createInferRuntime(logger)};
    std::unique_ptr<ICudaEngine> engine{runtime->deserializeCudaEngine(bytes.data(), bytes.size())};
    if (engine == nullptr)
    {
        std::printf("%s: the plan did not load\n", kExample);
        return 1;
    }
    int32_t const restored = dummyRuntimeCreations() - creationsBefore;
    ok = example::report(kExample,
             "loading the plan restored " + std::to_string(restored) + " plugin(s) with createPlugin(kRUNTIME)",
             restored >= 1)
        && ok;

    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    auto const width = static_cast<int64_t>(kFloatVector.size());
    std::vector<float> x(static_cast<std::size_t>(2 * width));
    std::mt19937 random(2026);
    std::uniform_real_distribution<float> uniform(-1.0F, 1.0F);
    for (float& value : x)
    {
        value = uniform(random);
    }
    std::vector<float> y(x.size(), NAN);
    example::IoBuffers io(kExample, *engine, *context);
    if (!io.input("X", x) || !io.output("Y", y) || !io.enqueue())
    {
        example::report(kExample, "running the engine", false);
        return 1;
    }
    double maxDiff = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        float const inner = x[i] * kFloatVector[i % kFloatVector.size()] + static_cast<float>(kIntScalar);
        float const expected = kDummyStruct.b * inner + static_cast<float>(kDummyStruct.a);
        maxDiff = std::max(maxDiff, example::difference(y[i], expected));
    }
    ok = example::report(
             kExample, "[2,4]: Y = b * (X * floatVector + intScalar) + a with the restored values", maxDiff, 0.0)
        && ok;
    return ok ? 0 : 1;
}
