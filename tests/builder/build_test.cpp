// SPDX-License-Identifier: Apache-2.0
// The build step: networks and configs made through the public API become EngineModels (builder/build.h). The tests
// read the model back: layer order and dead-layer removal, shapes evaluated from the exported expressions, symbol
// sources, profile records, activation memory, weights, quantization scales, progress reports, and each refusal with
// its message.
#include "builder/build.h"
#include "core/logging.h"
#include "plan/engine_codec.h"

#include "support/api_test.h"
#include "support/recording_plugins.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kiln
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::ITensor;
using nvinfer1::OptProfileSelector;

std::vector<int64_t> vec(Dims const& dims)
{
    return std::vector<int64_t>(dims.d, dims.d + std::max(dims.nbDims, 0));
}

//! Symbol values: the extents of named inputs and the values of named shape tensors.
struct Binding
{
    std::map<std::string, Dims> shapes;
    std::map<std::string, std::vector<int64_t>> values;
};

//! Evaluates expression index of model; every operand must come before the node that uses it.
int64_t evaluate(EngineModel const& model, uint32_t index, std::vector<int64_t> const& symbols)
{
    ExprRecord const& e = model.exprs.at(index);
    switch (e.kind)
    {
    case DimExpr::Kind::kCONSTANT: return e.value;
    case DimExpr::Kind::kSYMBOL: return symbols.at(e.symbol);
    case DimExpr::Kind::kOPERATION: break;
    }
    EXPECT_LT(e.lhs, index);
    EXPECT_LT(e.rhs, index);
    int64_t const a = evaluate(model, e.lhs, symbols);
    int64_t const b = evaluate(model, e.rhs, symbols);
    auto const floorDiv = [](int64_t x, int64_t y) { return x / y - ((x % y != 0) && ((x < 0) != (y < 0)) ? 1 : 0); };
    switch (e.op)
    {
    case DimensionOperation::kSUM: return a + b;
    case DimensionOperation::kPROD: return a * b;
    case DimensionOperation::kMAX: return std::max(a, b);
    case DimensionOperation::kMIN: return std::min(a, b);
    case DimensionOperation::kSUB: return a - b;
    case DimensionOperation::kEQUAL: return a == b ? 1 : 0;
    case DimensionOperation::kLESS: return a < b ? 1 : 0;
    case DimensionOperation::kFLOOR_DIV: return floorDiv(a, b);
    case DimensionOperation::kCEIL_DIV: return -floorDiv(-a, b);
    }
    return -1;
}

//! The value of every symbol of model under binding (-1 for a symbol it does not give).
std::vector<int64_t> bind(EngineModel const& model, Binding const& binding)
{
    std::vector<int64_t> values;
    for (SymbolRecord const& symbol : model.symbols)
    {
        std::string const& tensor = model.tensors.at(static_cast<std::size_t>(symbol.tensor)).name;
        int64_t value = -1;
        if (symbol.kind == SymbolKind::kINPUT_EXTENT && binding.shapes.count(tensor) != 0)
        {
            value = binding.shapes.at(tensor).d[symbol.index];
        }
        if (symbol.kind == SymbolKind::kSHAPE_VALUE && binding.values.count(tensor) != 0)
        {
            value = binding.values.at(tensor).at(static_cast<std::size_t>(symbol.index));
        }
        values.push_back(value);
    }
    return values;
}

//! The shape of tensor named name under binding.
std::vector<int64_t> shapeOf(EngineModel const& model, std::string const& name, Binding const& binding)
{
    int32_t const index = model.findTensor(name);
    EXPECT_NE(index, kNoTensor) << name;
    if (index == kNoTensor)
    {
        return {};
    }
    std::vector<int64_t> const symbols = bind(model, binding);
    std::vector<int64_t> shape;
    for (uint32_t e : model.tensors[static_cast<std::size_t>(index)].shape)
    {
        shape.push_back(evaluate(model, e, symbols));
    }
    return shape;
}

std::vector<std::string> layerNames(EngineModel const& model)
{
    std::vector<std::string> names;
    for (LayerRecord const& layer : model.layers)
    {
        names.push_back(layer.name);
    }
    return names;
}

std::vector<std::string> tensorNames(EngineModel const& model)
{
    std::vector<std::string> names;
    for (TensorRecord const& tensor : model.tensors)
    {
        names.push_back(tensor.name);
    }
    return names;
}

//! Records the progress monitor's calls; cancels after step cancelAt.
class RecordingMonitor final : public nvinfer1::IProgressMonitor
{
public:
    void phaseStart(char const* phaseName, char const* parentPhase, int32_t nbSteps) noexcept override
    {
        calls.push_back(std::string("start ") + phaseName + " parent " + (parentPhase != nullptr ? parentPhase : "none")
            + " steps " + std::to_string(nbSteps));
    }
    bool stepComplete(char const* phaseName, int32_t step) noexcept override
    {
        calls.push_back(std::string("step ") + phaseName + " " + std::to_string(step));
        return step != cancelAt;
    }
    void phaseFinish(char const* phaseName) noexcept override { calls.push_back(std::string("finish ") + phaseName); }

    std::vector<std::string> calls;
    int32_t cancelAt{-1};
};

//! A builder, a weakly typed network and a config, made through the public API; the build step reads them.
class Build : public ::testing::Test
{
protected:
    void SetUp() override
    {
        mBuilder.reset(nvinfer1::createInferBuilder(mLogger));
        ASSERT_NE(mBuilder, nullptr);
        mDefinition.reset(mBuilder->createNetworkV2(0));
        ASSERT_NE(mDefinition, nullptr);
        mConfig.reset(mBuilder->createBuilderConfig());
        ASSERT_NE(mConfig, nullptr);
    }
    void TearDown() override
    {
        mConfig.reset();
        mDefinition.reset();
        mBuilder.reset();
        setLogger(nullptr);
    }

    //! Replaces the network with a new, empty one.
    void recreate()
    {
        mDefinition.reset(mBuilder->createNetworkV2(0));
        ASSERT_NE(mDefinition, nullptr);
    }
    nvinfer1::INetworkDefinition& net() { return *mDefinition; }
    ITensor* input(char const* name, Dims dims, DataType type = DataType::kFLOAT)
    {
        return net().addInput(name, type, dims);
    }
    //! Names tensor's producer and the tensor itself name; returns the tensor.
    ITensor* named(nvinfer1::ILayer* layer, char const* name)
    {
        layer->setName(name);
        layer->getOutput(0)->setName(name);
        return layer->getOutput(0);
    }
    ITensor* relu(ITensor* in, char const* name)
    {
        return named(net().addActivation(*in, nvinfer1::ActivationType::kRELU), name);
    }
    ITensor* constant(Dims dims, std::vector<float> values, char const* name)
    {
        mStorage.push_back(std::make_unique<std::vector<float>>(std::move(values)));
        auto& kept = *mStorage.back();
        return named(
            net().addConstant(dims, Weights{DataType::kFLOAT, kept.data(), static_cast<int64_t>(kept.size())}), name);
    }
    //! Adds a profile with kMIN, kOPT and kMAX dims (and values) for each input named.
    void addProfile(std::map<std::string, std::array<Dims, 3>> const& dims,
        std::map<std::string, std::array<std::vector<int64_t>, 3>> const& values = {})
    {
        nvinfer1::IOptimizationProfile* profile = mBuilder->createOptimizationProfile();
        ASSERT_NE(profile, nullptr);
        for (auto const& [name, selectors] : dims)
        {
            for (int32_t k = 0; k < 3; ++k)
            {
                ASSERT_TRUE(profile->setDimensions(name.c_str(), static_cast<OptProfileSelector>(k), selectors[k]));
            }
        }
        for (auto const& [name, selectors] : values)
        {
            for (int32_t k = 0; k < 3; ++k)
            {
                auto const& v = selectors[static_cast<std::size_t>(k)];
                ASSERT_TRUE(profile->setShapeValuesV2(
                    name.c_str(), static_cast<OptProfileSelector>(k), v.data(), static_cast<int32_t>(v.size())));
            }
        }
        ASSERT_GE(mConfig->addOptimizationProfile(profile), 0) << mLogger.all();
    }

    Expected<EngineModel> build()
    {
        return buildEngineModel(Network::of(net()), BuilderConfig::of(*mConfig).settings());
    }
    //! The model; fails the test on an error.
    EngineModel built()
    {
        auto result = build();
        EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
        return result.ok() ? std::move(result.value()) : EngineModel{};
    }
    //! The error message of the build, or "" when it succeeds.
    std::string buildError()
    {
        auto result = build();
        return result.ok() ? std::string{} : result.error().message;
    }

    test::TestLogger mLogger;
    std::unique_ptr<nvinfer1::IBuilder> mBuilder;
    std::unique_ptr<nvinfer1::INetworkDefinition> mDefinition;
    std::unique_ptr<nvinfer1::IBuilderConfig> mConfig;
    std::vector<std::unique_ptr<std::vector<float>>> mStorage;
};

// ---- order, tensors, I/O ----

TEST_F(Build, StaticNetworkGivesOrderedLayersTensorsAndOneProfile)
{
    net().setName("static");
    ITensor* x = input("x", Dims{2, {2, 3}});
    ITensor* a = relu(x, "a");
    ITensor* b = named(net().addUnary(*a, nvinfer1::UnaryOperation::kEXP), "b");
    net().markOutput(*b);
    EngineModel const model = built();
    EXPECT_EQ(model.name, "static");
    EXPECT_EQ(model.backend, PlanBackend::kHOST);
    EXPECT_EQ(layerNames(model), (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(tensorNames(model), (std::vector<std::string>{"x", "a", "b"}));
    EXPECT_EQ(model.ioTensors, (std::vector<int32_t>{0, 2}));
    EXPECT_EQ(model.nbInputs, 1);
    EXPECT_TRUE(model.tensors[0].isInput);
    EXPECT_TRUE(model.tensors[2].isOutput);
    EXPECT_EQ(model.tensors[0].producer, -1);
    EXPECT_EQ(model.tensors[1].producer, 0);
    EXPECT_EQ(model.tensors[2].producer, 1);
    EXPECT_EQ(model.layers[0].type, LayerType::kACTIVATION);
    EXPECT_EQ(model.layers[1].inputs, (std::vector<int32_t>{1}));
    EXPECT_EQ(model.layers[1].outputs, (std::vector<int32_t>{2}));
    for (TensorRecord const& tensor : model.tensors)
    {
        EXPECT_EQ(tensor.format, nvinfer1::TensorFormat::kLINEAR);
        EXPECT_EQ(tensor.scale, 1.0F);
        EXPECT_EQ(shapeOf(model, tensor.name, {}), (std::vector<int64_t>{2, 3}));
    }
    EXPECT_TRUE(model.symbols.empty());
    // No profile and static inputs: one implicit profile of the declared dimensions.
    ASSERT_EQ(model.profiles.size(), 1U);
    ASSERT_EQ(model.profiles[0].inputs.size(), 1U);
    EXPECT_EQ(model.profiles[0].inputs[0].tensor, 0);
    for (Dims const& d :
        {model.profiles[0].inputs[0].min, model.profiles[0].inputs[0].opt, model.profiles[0].inputs[0].max})
    {
        EXPECT_EQ(vec(d), (std::vector<int64_t>{2, 3}));
    }
    EXPECT_EQ(model.profiles[0].offsets, (std::vector<int64_t>{-1, 0, -1}));
    EXPECT_EQ(model.profiles[0].activationBytes, 256); // 24 bytes, aligned
    EXPECT_EQ(model.deviceMemorySize, 256);
}

TEST_F(Build, LayersFollowTheirInputsWhateverTheOrderTheyWereAdded)
{
    ITensor* x = input("x", Dims{1, {4}});
    auto* late = net().addActivation(*x, nvinfer1::ActivationType::kRELU); // added first, reads "early" below
    late->setName("late");
    ITensor* early = named(net().addUnary(*x, nvinfer1::UnaryOperation::kABS), "early");
    late->setInput(0, *early);
    net().markOutput(*late->getOutput(0));
    EngineModel const model = built();
    EXPECT_EQ(layerNames(model), (std::vector<std::string>{"early", "late"}));
}

TEST_F(Build, DeadLayersAreDroppedAndUnusedInputsKept)
{
    ITensor* x = input("x", Dims{1, {4}});
    input("unused", Dims{1, {7}});
    ITensor* deadA = named(net().addUnary(*x, nvinfer1::UnaryOperation::kEXP), "deadA");
    named(net().addUnary(*deadA, nvinfer1::UnaryOperation::kABS), "deadB");
    ITensor* kept = relu(x, "kept");
    ITensor* second = named(net().addUnary(*x, nvinfer1::UnaryOperation::kNEG), "second");
    net().markOutput(*second);
    net().markOutput(*kept); // marked after "second": I/O order follows marking
    EngineModel const model = built();
    EXPECT_EQ(layerNames(model), (std::vector<std::string>{"kept", "second"}));
    EXPECT_EQ(tensorNames(model), (std::vector<std::string>{"x", "unused", "kept", "second"}));
    EXPECT_EQ(model.nbInputs, 2);
    EXPECT_EQ(model.ioTensors, (std::vector<int32_t>{0, 1, 3, 2}));
    ASSERT_EQ(model.profiles[0].inputs.size(), 2U);
    EXPECT_EQ(vec(model.profiles[0].inputs[1].max), (std::vector<int64_t>{7}));
}

// ---- symbolic shapes, symbols, profiles ----

TEST_F(Build, DynamicShapesEvaluateFromSymbolsBoundByInputExtents)
{
    ITensor* x = input("x", Dims{2, {-1, 3}});
    ITensor* y = input("y", Dims{2, {-1, 1}});
    ITensor* sum = named(net().addElementWise(*x, *y, nvinfer1::ElementWiseOperation::kSUM), "sum");
    net().markOutput(*sum);
    addProfile({{"x", {Dims{2, {1, 3}}, Dims{2, {4, 3}}, Dims{2, {8, 3}}}},
        {"y", {Dims{2, {1, 1}}, Dims{2, {4, 1}}, Dims{2, {8, 1}}}}});
    EngineModel const model = built();

    ASSERT_EQ(model.symbols.size(), 2U);
    EXPECT_EQ(model.symbols[0].name, "x.d0");
    EXPECT_EQ(model.symbols[0].kind, SymbolKind::kINPUT_EXTENT);
    EXPECT_EQ(model.symbols[0].tensor, 0);
    EXPECT_EQ(model.symbols[0].index, 0);
    EXPECT_EQ(model.symbols[1].name, "y.d0");
    EXPECT_EQ(model.symbols[1].tensor, 1);
    for (std::size_t i = 0; i < model.exprs.size(); ++i)
    {
        if (model.exprs[i].kind == DimExpr::Kind::kOPERATION)
        {
            EXPECT_LT(model.exprs[i].lhs, i);
            EXPECT_LT(model.exprs[i].rhs, i);
        }
    }
    Binding const at5{{{"x", Dims{2, {5, 3}}}, {"y", Dims{2, {5, 1}}}}, {}};
    EXPECT_EQ(shapeOf(model, "x", at5), (std::vector<int64_t>{5, 3}));
    EXPECT_EQ(shapeOf(model, "sum", at5), (std::vector<int64_t>{5, 3}));

    // The broadcast of x.d0 against y.d0 is checked at run time by the assertion the layer recorded.
    ASSERT_EQ(model.assertions.size(), 1U);
    EXPECT_EQ(model.assertions[0].layer, 0);
    EXPECT_FALSE(model.assertions[0].message.empty());
    EXPECT_NE(evaluate(model, model.assertions[0].condition, bind(model, at5)), 0);
    Binding const mismatched{{{"x", Dims{2, {5, 3}}}, {"y", Dims{2, {6, 1}}}}, {}};
    EXPECT_EQ(evaluate(model, model.assertions[0].condition, bind(model, mismatched)), 0);

    ASSERT_EQ(model.profiles.size(), 1U);
    ProfileRecord const& profile = model.profiles[0];
    ASSERT_EQ(profile.inputs.size(), 2U);
    EXPECT_EQ(profile.inputs[1].tensor, 1);
    EXPECT_EQ(vec(profile.inputs[0].min), (std::vector<int64_t>{1, 3}));
    EXPECT_EQ(vec(profile.inputs[0].opt), (std::vector<int64_t>{4, 3}));
    EXPECT_EQ(vec(profile.inputs[0].max), (std::vector<int64_t>{8, 3}));
    EXPECT_TRUE(profile.inputs[0].maxValues.empty());
    EXPECT_EQ(profile.offsets, (std::vector<int64_t>{-1, -1, -1}));
    EXPECT_EQ(profile.activationBytes, 0);
}

TEST_F(Build, ShapeTensorInputsGiveValueSymbolsAndProfileValues)
{
    ITensor* x = input("x", Dims{1, {-1}});
    ITensor* s = input("s", Dims{1, {2}}, DataType::kINT32);
    auto* shuffle = net().addShuffle(*x);
    shuffle->setInput(1, *s);
    ITensor* reshaped = named(shuffle, "reshaped");
    net().markOutput(*reshaped);
    addProfile({{"x", {Dims{1, {2}}, Dims{1, {6}}, Dims{1, {12}}}}, {"s", {Dims{1, {2}}, Dims{1, {2}}, Dims{1, {2}}}}},
        {{"s", {std::vector<int64_t>{1, 2}, std::vector<int64_t>{2, 3}, std::vector<int64_t>{3, 4}}}});
    EngineModel const model = built();

    int32_t const sIndex = model.findTensor("s");
    ASSERT_EQ(sIndex, 1);
    TensorRecord const& shape = model.tensors[1];
    EXPECT_TRUE(shape.isShapeTensor);
    EXPECT_FALSE(model.tensors[0].isShapeTensor);
    EXPECT_FALSE(model.tensors[2].isShapeTensor);
    ASSERT_TRUE(shape.values.has_value());
    ASSERT_EQ(shape.values->size(), 2U);
    for (uint32_t i = 0; i < 2; ++i)
    {
        ExprRecord const& value = model.exprs[(*shape.values)[i]];
        ASSERT_EQ(value.kind, DimExpr::Kind::kSYMBOL);
        SymbolRecord const& symbol = model.symbols[value.symbol];
        EXPECT_EQ(symbol.kind, SymbolKind::kSHAPE_VALUE);
        EXPECT_EQ(symbol.tensor, sIndex);
        EXPECT_EQ(symbol.index, static_cast<int32_t>(i));
        EXPECT_EQ(symbol.name, "s.v" + std::to_string(i));
    }
    Binding const binding{{{"x", Dims{1, {20}}}}, {{"s", {4, 5}}}};
    EXPECT_EQ(shapeOf(model, "reshaped", binding), (std::vector<int64_t>{4, 5}));

    ProfileRecord::Input const& in = model.profiles.at(0).inputs.at(1);
    EXPECT_EQ(in.tensor, sIndex);
    EXPECT_EQ(in.minValues, (std::vector<int64_t>{1, 2}));
    EXPECT_EQ(in.optValues, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(in.maxValues, (std::vector<int64_t>{3, 4}));
    EXPECT_EQ(vec(in.max), (std::vector<int64_t>{2}));
}

TEST_F(Build, ShapeOutputsAreShapeTensors)
{
    ITensor* x = input("x", Dims{2, {-1, 3}});
    ITensor* shape = named(net().addShape(*x), "shape");
    ASSERT_TRUE(net().markOutputForShapes(*shape));
    net().markOutput(*relu(x, "r"));
    addProfile({{"x", {Dims{2, {1, 3}}, Dims{2, {2, 3}}, Dims{2, {4, 3}}}}});
    EngineModel const model = built();
    TensorRecord const& record = model.tensors.at(static_cast<std::size_t>(model.findTensor("shape")));
    EXPECT_TRUE(record.isShapeTensor);
    EXPECT_TRUE(record.isOutput);
    ASSERT_TRUE(record.values.has_value());
    std::vector<int64_t> const symbols = bind(model, {{{"x", Dims{2, {7, 3}}}}, {}});
    std::vector<int64_t> values;
    for (uint32_t e : *record.values)
    {
        values.push_back(evaluate(model, e, symbols));
    }
    EXPECT_EQ(values, (std::vector<int64_t>{7, 3}));
    EXPECT_FALSE(model.tensors.at(static_cast<std::size_t>(model.findTensor("r"))).isShapeTensor);
}

TEST_F(Build, DataDependentShapesHaveTheirSourceTensorAndNoOffset)
{
    // A fill whose shape comes from values computed at run time (a cast of a float input).
    ITensor* f = input("f", Dims{1, {2}});
    ITensor* extents = named(net().addCast(*f, DataType::kINT32), "extents");
    auto* fill = net().addFill(Dims{0, {}}, nvinfer1::FillOperation::kRANDOM_UNIFORM);
    fill->setInput(0, *extents);
    ITensor* filled = named(fill, "filled");
    ITensor* out = relu(filled, "out");
    net().markOutput(*out);
    EngineModel const model = built();
    EXPECT_EQ(layerNames(model), (std::vector<std::string>{"extents", "filled", "out"}));
    int32_t const source = model.findTensor("extents");
    TensorRecord const& filledRecord = model.tensors.at(static_cast<std::size_t>(model.findTensor("filled")));
    ASSERT_EQ(filledRecord.shape.size(), 2U);
    for (uint32_t i = 0; i < 2; ++i)
    {
        ExprRecord const& extent = model.exprs[filledRecord.shape[i]];
        ASSERT_EQ(extent.kind, DimExpr::Kind::kSYMBOL);
        SymbolRecord const& symbol = model.symbols[extent.symbol];
        EXPECT_EQ(symbol.kind, SymbolKind::kSHAPE_VALUE);
        EXPECT_EQ(symbol.tensor, source);
        EXPECT_EQ(symbol.index, static_cast<int32_t>(i));
        EXPECT_EQ(symbol.name, "extents.v" + std::to_string(i));
    }
    EXPECT_EQ(shapeOf(model, "out", {{}, {{"extents", {3, 5}}}}), (std::vector<int64_t>{3, 5}));
    ProfileRecord const& profile = model.profiles.at(0);
    EXPECT_GE(profile.offsets[static_cast<std::size_t>(source)], 0); // [2] kINT32: bounded
    EXPECT_EQ(profile.offsets[static_cast<std::size_t>(model.findTensor("filled"))], -1);
    EXPECT_EQ(profile.activationBytes, 256);
}

// ---- memory ----

TEST_F(Build, ActivationMemorySharesBytesBetweenBuffersThatAreNotLiveTogether)
{
    // A chain x -> a -> b -> c -> d -> e with a side branch: b also feeds e, so b lives from step 1 to step 4.
    ITensor* x = input("x", Dims{2, {-1, 16}});
    ITensor* a = relu(x, "a");
    ITensor* b = named(net().addUnary(*a, nvinfer1::UnaryOperation::kABS), "b");
    ITensor* c = named(net().addUnary(*b, nvinfer1::UnaryOperation::kNEG), "c");
    ITensor* d = named(net().addUnary(*c, nvinfer1::UnaryOperation::kABS), "d");
    ITensor* e = named(net().addElementWise(*b, *d, nvinfer1::ElementWiseOperation::kSUM), "e");
    net().markOutput(*e);
    addProfile({{"x", {Dims{2, {1, 16}}, Dims{2, {2, 16}}, Dims{2, {4, 16}}}}});
    addProfile({{"x", {Dims{2, {1, 16}}, Dims{2, {8, 16}}, Dims{2, {32, 16}}}}});
    EngineModel const model = built();
    EXPECT_EQ(layerNames(model), (std::vector<std::string>{"a", "b", "c", "d", "e"}));
    ASSERT_EQ(model.profiles.size(), 2U);

    // Lifetimes from the model itself: producer to last reader.
    std::vector<std::pair<int32_t, int32_t>> life(model.tensors.size());
    for (std::size_t t = 0; t < model.tensors.size(); ++t)
    {
        life[t] = {model.tensors[t].producer, model.tensors[t].producer};
    }
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        for (int32_t in : model.layers[l].inputs)
        {
            life[static_cast<std::size_t>(in)].second = static_cast<int32_t>(l);
        }
    }
    std::array<int64_t, 2> const rows{4, 32};
    for (std::size_t p = 0; p < 2; ++p)
    {
        ProfileRecord const& profile = model.profiles[p];
        int64_t const bytes = rows[p] * 16 * 4;
        for (std::size_t i = 0; i < model.tensors.size(); ++i)
        {
            bool const internal = !model.tensors[i].isInput && !model.tensors[i].isOutput;
            EXPECT_EQ(profile.offsets[i] >= 0, internal) << model.tensors[i].name;
            if (!internal)
            {
                continue;
            }
            EXPECT_LE(profile.offsets[i] + bytes, profile.activationBytes);
            for (std::size_t j = i + 1; j < model.tensors.size(); ++j)
            {
                if (profile.offsets[j] < 0)
                {
                    continue;
                }
                bool const together = life[i].first <= life[j].second && life[j].first <= life[i].second;
                bool const disjoint = profile.offsets[i] + bytes <= profile.offsets[j]
                    || profile.offsets[j] + bytes <= profile.offsets[i];
                EXPECT_TRUE(!together || disjoint) << model.tensors[i].name << " and " << model.tensors[j].name;
            }
        }
        // a (steps 0-1) and c (steps 2-3) never live together: they share bytes, and 3 buffers of 4 fit in the block.
        EXPECT_EQ(profile.offsets[static_cast<std::size_t>(model.findTensor("a"))],
            profile.offsets[static_cast<std::size_t>(model.findTensor("c"))]);
        EXPECT_EQ(profile.activationBytes, 3 * ((bytes + 255) / 256 * 256));
    }
    EXPECT_LT(model.profiles[0].activationBytes, model.profiles[1].activationBytes);
    EXPECT_EQ(model.deviceMemorySize, model.profiles[1].activationBytes);
}

TEST_F(Build, RefusesAnActivationTooLargeToAllocate)
{
    ITensor* x = input("x", Dims{2, {-1, -1}});
    net().markOutput(*relu(relu(x, "a"), "b"));
    int64_t const huge = int64_t{1} << 40;
    addProfile({{"x", {Dims{2, {1, 1}}, Dims{2, {1, 1}}, Dims{2, {huge, huge}}}}});
    // Refused where the backend first meets the shape: its element count does not fit 64 bits.
    EXPECT_EQ(buildError(),
        "layer 'a' (IActivationLayer): the host backend cannot run it at optimization profile 0, kMAX (inputs kFLOAT "
        "[1099511627776, 1099511627776]): kRELU: input shape [1099511627776, 1099511627776] has more elements than a "
        "64-bit count holds");
}

// ---- weights, types ----

TEST_F(Build, WeightsAreCopiedIntoTheModel)
{
    ITensor* x = input("x", Dims{4, {1, 1, 3, 3}});
    std::vector<float> kernel(2 * 1 * 2 * 2, 0.5F);
    std::vector<float> bias{1.0F, 2.0F};
    auto* conv = net().addConvolutionNd(*x, 2, Dims{2, {2, 2}},
        Weights{DataType::kFLOAT, kernel.data(), static_cast<int64_t>(kernel.size())},
        Weights{DataType::kFLOAT, bias.data(), 2});
    ITensor* convolved = named(conv, "conv");
    ITensor* c = constant(Dims{4, {1, 2, 2, 2}}, std::vector<float>(8, 3.0F), "c");
    ITensor* sum = named(net().addElementWise(*convolved, *c, nvinfer1::ElementWiseOperation::kSUM), "sum");
    net().markOutput(*sum);
    ITensor* empty = named(net().addConstant(Dims{1, {0}}, Weights{DataType::kINT32, nullptr, 0}), "empty");
    net().markOutput(*empty);
    EngineModel const model = built();
    EXPECT_EQ(layerNames(model), (std::vector<std::string>{"conv", "c", "sum", "empty"}));
    ASSERT_EQ(model.weights.size(), 3U);

    // The user's arrays change after the build; the model keeps what they held.
    std::fill(kernel.begin(), kernel.end(), -1.0F);
    bias[0] = -1.0F;
    mStorage.back()->assign(8, -1.0F);

    auto const blobOwns = [&](Weights const& weights) {
        return std::any_of(model.weights.begin(), model.weights.end(), [&](WeightsBlob const& blob) {
            return blob.bytes.data() == weights.values && blob.count == weights.count;
        });
    };
    auto const& convParams = std::get<ConvolutionParams>(model.layers[0].params);
    ASSERT_TRUE(blobOwns(convParams.kernel));
    ASSERT_TRUE(blobOwns(convParams.bias));
    EXPECT_EQ(convParams.kernel.count, 8);
    EXPECT_EQ(static_cast<float const*>(convParams.kernel.values)[3], 0.5F);
    EXPECT_EQ(static_cast<float const*>(convParams.bias.values)[0], 1.0F);
    EXPECT_EQ(convParams.nbOutputMaps, 2);
    auto const& constParams = std::get<ConstantParams>(model.layers[1].params);
    ASSERT_TRUE(blobOwns(constParams.weights));
    EXPECT_EQ(static_cast<float const*>(constParams.weights.values)[7], 3.0F);
    EXPECT_EQ(model.weights[2].type, DataType::kFLOAT);
    EXPECT_EQ(model.weights[2].bytes.size(), 32U);

    auto const& emptyParams = std::get<ConstantParams>(model.layers[3].params);
    EXPECT_EQ(emptyParams.weights.values, nullptr);
    EXPECT_EQ(emptyParams.weights.count, 0);
    EXPECT_EQ(emptyParams.weights.type, DataType::kINT32);
    EXPECT_EQ(shapeOf(model, "empty", {}), (std::vector<int64_t>{0}));
    EXPECT_EQ(shapeOf(model, "sum", {}), (std::vector<int64_t>{1, 2, 2, 2}));
}

TEST_F(Build, ModelsForAPlanBorrowTheWeightsAndEncodeAsCopiesDo)
{
    // Two constants share bytes: "b" is values[2..5], inside "a" (values[0..7]). A model built for a plan borrows the
    // weights it meets first and copies those that overlap them, so that no two borrowed blobs overlap.
    ITensor* x = input("x", Dims{2, {2, 4}});
    std::vector<float> values{1, 2, 3, 4, 5, 6, 7, 8};
    ITensor* a = named(net().addConstant(Dims{2, {2, 4}}, Weights{DataType::kFLOAT, values.data(), 8}), "a");
    ITensor* b = named(net().addConstant(Dims{2, {1, 4}}, Weights{DataType::kFLOAT, values.data() + 2, 4}), "b");
    ITensor* sum = named(net().addElementWise(*x, *a, nvinfer1::ElementWiseOperation::kSUM), "sum");
    ITensor* out = named(net().addElementWise(*sum, *b, nvinfer1::ElementWiseOperation::kSUM), "out");
    net().markOutput(*out);
    auto const settings = BuilderConfig::of(*mConfig).settings();
    auto copied = buildEngineModel(Network::of(net()), settings, ModelWeights::kCOPY);
    auto borrowed = buildEngineModel(Network::of(net()), settings, ModelWeights::kBORROW);
    ASSERT_TRUE(copied.ok() && borrowed.ok());
    ASSERT_EQ(borrowed.value().weights.size(), 2U);

    auto const* first = reinterpret_cast<uint8_t const*>(values.data());
    auto const inValues = [&](void const* p) {
        return static_cast<uint8_t const*>(p) >= first && static_cast<uint8_t const*>(p) < first + sizeof(float) * 8;
    };
    int32_t nbBorrowed = 0;
    for (WeightsBlob const& blob : borrowed.value().weights)
    {
        // Borrowed: in the network's array, and nothing owned; copied: owned, outside it.
        EXPECT_EQ(!blob.borrowed.empty(), blob.bytes.empty());
        EXPECT_EQ(inValues(blob.view().data()), !blob.borrowed.empty());
        nbBorrowed += blob.borrowed.empty() ? 0 : 1;
    }
    EXPECT_EQ(nbBorrowed, 1);
    for (WeightsBlob const& blob : copied.value().weights)
    {
        EXPECT_TRUE(blob.borrowed.empty());
        EXPECT_FALSE(inValues(blob.view().data()));
    }

    // The same blobs, wherever their bytes are, and the same plan, byte for byte.
    EXPECT_EQ(borrowed.value().weights, copied.value().weights);
    auto const copiedPlan = encodeEngine(copied.value());
    auto const borrowedPlan = encodePlan(borrowed.value());
    ASSERT_TRUE(copiedPlan.ok() && borrowedPlan.ok());
    EXPECT_TRUE(std::ranges::equal(copiedPlan.value(), borrowedPlan.value().bytes));
}

TEST_F(Build, QuantizedTensorsTakeTheirScaleFromTheDynamicRange)
{
    ITensor* q = input("q", Dims{1, {4}}, DataType::kINT8);
    ASSERT_TRUE(q->setDynamicRange(-2.54F, 1.0F));
    ITensor* r = relu(q, "r");
    ASSERT_TRUE(r->setDynamicRange(0.0F, 12.7F));
    ITensor* f = named(net().addCast(*r, DataType::kFLOAT), "f");
    net().markOutput(*f);
    EngineModel const model = built();
    EXPECT_FLOAT_EQ(model.tensors[0].scale, 2.54F / 127.0F);
    EXPECT_FLOAT_EQ(model.tensors[1].scale, 0.1F);
    EXPECT_EQ(model.tensors[1].type, DataType::kINT8);
    EXPECT_EQ(model.tensors[2].scale, 1.0F);
    EXPECT_EQ(model.profiles[0].activationBytes, 256); // r: 4 bytes

    q->setType(DataType::kFP8);
    r->setDynamicRange(-44.8F, 4.0F);
    EngineModel const fp8 = built();
    EXPECT_FLOAT_EQ(fp8.tensors[1].scale, 0.1F);
}

TEST_F(Build, RefusesAnInt8TensorWithoutADynamicRange)
{
    ITensor* q = input("q", Dims{1, {4}}, DataType::kINT8);
    ITensor* r = relu(q, "r");
    net().markOutput(*named(net().addCast(*r, DataType::kFLOAT), "f"));
    EXPECT_EQ(buildError(), "tensor 'q' is kINT8 but has no dynamic range; set one with ITensor::setDynamicRange");
    q->setDynamicRange(-1.0F, 1.0F);
    EXPECT_EQ(buildError(), "tensor 'r' is kINT8 but has no dynamic range; set one with ITensor::setDynamicRange");
    r->setDynamicRange(0.0F, 0.0F);
    EXPECT_EQ(buildError(),
        "tensor 'r' is kINT8 with the dynamic range [0, 0]; a quantized tensor needs a finite range that is not "
        "[0, 0]");
}

// ---- progress ----

TEST_F(Build, ReportsOneStepPerLayerToTheProgressMonitor)
{
    ITensor* x = input("x", Dims{1, {4}});
    net().markOutput(*named(net().addUnary(*relu(x, "a"), nvinfer1::UnaryOperation::kABS), "b"));
    RecordingMonitor monitor;
    mConfig->setProgressMonitor(&monitor);
    built();
    EXPECT_EQ(monitor.calls,
        (std::vector<std::string>{"start Building engine parent none steps 2", "step Building engine 0",
            "step Building engine 1", "finish Building engine"}));

    monitor.calls.clear();
    monitor.cancelAt = 0;
    EXPECT_EQ(buildError(),
        "network '" + std::string(net().getName())
            + "': build cancelled by the progress monitor after layer 'a' (IActivationLayer) (step 1 of 2)");
    EXPECT_EQ(monitor.calls,
        (std::vector<std::string>{
            "start Building engine parent none steps 2", "step Building engine 0", "finish Building engine"}));
}

// ---- refusals ----

TEST_F(Build, RefusesANetworkWithoutOutputs)
{
    net().setName("empty");
    relu(input("x", Dims{1, {4}}), "a");
    EXPECT_EQ(buildError(), "network 'empty' has no outputs; mark one with INetworkDefinition::markOutput");
}

TEST_F(Build, RefusesDynamicOrShapeInputsWithoutAProfile)
{
    ITensor* x = input("x", Dims{2, {-1, 3}});
    net().markOutput(*relu(x, "a"));
    EXPECT_EQ(buildError(),
        "network input 'x' has dynamic dimensions [-1, 3], but the config has no optimization profile; add one with "
        "IBuilderConfig::addOptimizationProfile");

    recreate();
    ITensor* y = input("y", Dims{1, {6}});
    ITensor* s = input("s", Dims{1, {2}}, DataType::kINT32);
    auto* shuffle = net().addShuffle(*y);
    shuffle->setInput(1, *s);
    net().markOutput(*named(shuffle, "reshaped"));
    EXPECT_EQ(buildError(),
        "network input 's' is a shape tensor whose values a profile gives, but the config has no optimization "
        "profile; add one with IBuilderConfig::addOptimizationProfile");
}

TEST_F(Build, RefusesAProfileWithoutAnInputItNeeds)
{
    ITensor* x = input("x", Dims{2, {-1, 3}});
    ITensor* s = input("s", Dims{1, {2}}, DataType::kINT32);
    auto* shuffle = net().addShuffle(*x);
    shuffle->setInput(1, *s);
    net().markOutput(*named(shuffle, "reshaped"));
    addProfile({{"s", {Dims{1, {2}}, Dims{1, {2}}, Dims{1, {2}}}}},
        {{"s", {std::vector<int64_t>{1, 3}, std::vector<int64_t>{2, 3}, std::vector<int64_t>{4, 3}}}});
    EXPECT_EQ(buildError(),
        "optimization profile 0 gives no dimensions for network input 'x' [-1, 3], which has dynamic extents; set its "
        "kMIN, kOPT and kMAX with IOptimizationProfile::setDimensions");

    mConfig.reset(mBuilder->createBuilderConfig());
    addProfile({{"x", {Dims{2, {1, 3}}, Dims{2, {2, 3}}, Dims{2, {4, 3}}}}});
    EXPECT_EQ(buildError(),
        "optimization profile 0 gives no shape values for network input 's', a shape tensor; set its kMIN, kOPT and "
        "kMAX with IOptimizationProfile::setShapeValuesV2");

    // With both, the second profile is checked too.
    mConfig.reset(mBuilder->createBuilderConfig());
    addProfile({{"x", {Dims{2, {1, 3}}, Dims{2, {2, 3}}, Dims{2, {4, 3}}}}},
        {{"s", {std::vector<int64_t>{1, 3}, std::vector<int64_t>{2, 3}, std::vector<int64_t>{4, 3}}}});
    EXPECT_EQ(buildError(), "");
    addProfile({{"x", {Dims{2, {1, 3}}, Dims{2, {2, 3}}, Dims{2, {4, 3}}}}});
    EXPECT_EQ(buildError(),
        "optimization profile 1 gives no shape values for network input 's', a shape tensor; set its kMIN, kOPT and "
        "kMAX with IOptimizationProfile::setShapeValuesV2");
}

TEST_F(Build, RefusesPluginLayersItCannotBuild)
{
    // The network tests' recording V3 plugin gives no output shapes, and the V2 one no host runner;
    // tests/engine/plugin_test.cpp builds plugins that do.
    ITensor* x = input("x", Dims{1, {4}});
    auto family = std::make_shared<test::PluginFamily>();
    family->behaviour.nbOutputs = 1;
    test::RecordingV3Plugin plugin(family);
    auto* layer = net().addPluginV3(&x, 1, nullptr, 0, plugin);
    ASSERT_NE(layer, nullptr) << mLogger.all();
    layer->setName("custom");
    net().markOutput(*layer->getOutput(0));
    std::string const error = buildError();
    EXPECT_EQ(error.rfind("layer 'custom' (IPluginV3Layer): plugin \"Recording\"", 0), 0U) << error;
    EXPECT_NE(error.find("getOutputShapes"), std::string::npos) << error;

    // A V2 plugin without a host runner builds when there is nothing to choose (one format combination), as nothing
    // runs; with several combinations to time it is refused, naming the plugin.
    for (bool const choice : {false, true})
    {
        recreate();
        ITensor* y = input("y", choice ? Dims{4, {1, 3, 2, 2}} : Dims{1, {4}});
        test::RecordingV2DynamicPlugin legacy(family);
        auto* legacyLayer = net().addPluginV2(&y, 1, legacy);
        ASSERT_NE(legacyLayer, nullptr) << mLogger.all();
        legacyLayer->setName("legacy");
        net().markOutput(*legacyLayer->getOutput(0));
        std::string const legacyError = buildError();
        if (!choice)
        {
            EXPECT_EQ(legacyError, "");
            continue;
        }
        EXPECT_EQ(legacyError.rfind("layer 'legacy' (IPluginV2Layer): plugin \"RecordingV2", 0), 0U) << legacyError;
        EXPECT_NE(legacyError.find("no kiln::IPluginV2HostRunner is registered"), std::string::npos) << legacyError;
    }
}

TEST_F(Build, RefusesInputsAndOutputsThatMayNotBeLinear)
{
    ITensor* x = input("x", Dims{4, {1, 4, 2, 2}});
    ITensor* r = relu(x, "r");
    net().markOutput(*r);
    auto const chw4 = 1U << static_cast<uint32_t>(nvinfer1::TensorFormat::kCHW4);
    r->setAllowedFormats(chw4);
    EXPECT_EQ(buildError(),
        "network output 'r': its allowed formats (ITensor::setAllowedFormats) exclude kLINEAR, the only format kiln's "
        "host backend supports");
    x->setAllowedFormats(chw4);
    EXPECT_EQ(buildError(),
        "network input 'x': its allowed formats (ITensor::setAllowedFormats) exclude kLINEAR, the only format kiln's "
        "host backend supports");
    auto const linear = 1U << static_cast<uint32_t>(nvinfer1::TensorFormat::kLINEAR);
    x->setAllowedFormats(chw4 | linear);
    r->setAllowedFormats(linear);
    EXPECT_EQ(buildError(), "");
}

TEST_F(Build, PassesOnShapeErrors)
{
    ITensor* x = input("x", Dims{2, {4, 8}});
    auto* slice = net().addSlice(*x, Dims{2, {0, 6}}, Dims{2, {2, 2}}, Dims{2, {1, 2}});
    slice->setName("s");
    net().markOutput(*slice->getOutput(0));
    EXPECT_EQ(buildError(),
        "layer 's' (ISliceLayer): axis 1: start 6, size 2 and stride 2 read coordinates 6 to 8 of an extent of 8 "
        "(kSTRICT_BOUNDS needs them inside)");
}

TEST_F(Build, RefusesAProfileThatBreaksABroadcast)
{
    ITensor* x = input("x", Dims{1, {-1}});
    ITensor* y = input("y", Dims{1, {-1}});
    net().markOutput(*named(net().addElementWise(*x, *y, nvinfer1::ElementWiseOperation::kSUM), "sum"));
    addProfile({{"x", {Dims{1, {2}}, Dims{1, {4}}, Dims{1, {8}}}}, {"y", {Dims{1, {2}}, Dims{1, {5}}, Dims{1, {8}}}}});
    std::string const message = buildError();
    EXPECT_EQ(message.rfind("optimization profile 0, at kOPT: ", 0), 0U) << message;
}

TEST_F(Build, RefusesALayerTheHostBackendCannotRun)
{
    ITensor* x = input("x", Dims{2, {-1, 3}}, DataType::kINT32);
    auto* softmax = net().addSoftMax(*x);
    softmax->setName("sm");
    net().markOutput(*softmax->getOutput(0));
    addProfile({{"x", {Dims{2, {1, 3}}, Dims{2, {2, 3}}, Dims{2, {4, 3}}}}});
    std::string const message = buildError();
    EXPECT_EQ(message.rfind("layer 'sm' (ISoftMaxLayer): the host backend cannot run it at optimization profile 0, "
                            "kMIN (inputs kINT32 [1, 3]): ",
                  0),
        0U)
        << message;
}

TEST_F(Build, RefusesAnOutputTypeTheKernelDoesNotMake)
{
    ITensor* x = input("x", Dims{1, {4}});
    auto* layer = net().addActivation(*x, nvinfer1::ActivationType::kRELU);
    layer->setName("a");
    layer->getOutput(0)->setName("a");
    layer->setOutputType(0, DataType::kHALF);
    net().markOutput(*layer->getOutput(0));
    EXPECT_EQ(buildError(),
        "layer 'a' (IActivationLayer): output 0 'a' is kHALF, but the host backend's kernel makes kFLOAT from inputs "
        "kFLOAT [4] (kiln inserts no casts yet; add an ICastLayer)");

    // An identity layer is the cast.
    layer->resetOutputType(0);
    net().unmarkOutput(*layer->getOutput(0));
    auto* identity = net().addIdentity(*layer->getOutput(0));
    identity->setOutputType(0, DataType::kHALF);
    net().markOutput(*identity->getOutput(0));
    EngineModel const model = built();
    EXPECT_EQ(model.tensors.back().type, DataType::kHALF);
}

TEST(BuildBackend, KilnBackendChoosesTheBackendAndBadValuesAreNamed)
{
    ::setenv("KILN_BACKEND", "host", 1);
    auto const host = chosenBackend();
    ASSERT_TRUE(host.ok());
    EXPECT_EQ(host.value(), PlanBackend::kHOST);
    EXPECT_EQ(timingCacheIdentity(PlanBackend::kHOST).rfind("kiln host ", 0), 0U);

    ::setenv("KILN_BACKEND", "tpu", 1);
    auto const bogus = chosenBackend();
    ASSERT_FALSE(bogus.ok());
    EXPECT_NE(bogus.error().message.find("KILN_BACKEND is 'tpu'; it takes 'host' or 'cuda'"), std::string::npos)
        << bogus.error().message;

    ::setenv("KILN_BACKEND", "cuda", 1);
    auto const cuda = chosenBackend();
    if (!cuda.ok())
    {
        // No GPU here (or a kiln without its CUDA backend): the error says which.
        EXPECT_NE(cuda.error().message.find("KILN_BACKEND=cuda asks for the CUDA backend, but"), std::string::npos)
            << cuda.error().message;
    }
    else
    {
        EXPECT_EQ(cuda.value(), PlanBackend::kCUDA);
        EXPECT_EQ(timingCacheIdentity(PlanBackend::kCUDA).rfind("kiln cuda ", 0), 0U);
    }
    ::setenv("KILN_BACKEND", "host", 1); // as ctest sets it for this test
}

TEST_F(Build, AsksTheBackendItIsGiven)
{
    //! A CUDA backend that refuses every layer, or answers that it needs run-time values; it counts the questions.
    class StubBackend final : public Backend
    {
    public:
        explicit StubBackend(bool refuse)
            : mRefuse(refuse)
        {
        }
        PlanBackend kind() const noexcept override { return PlanBackend::kCUDA; }
        Expected<std::optional<host::TensorDesc>> checkLayer(
            LayerParams const& /*params*/, LayerQuery const& query) const noexcept override
        {
            ++asked;
            EXPECT_EQ(query.outputTypes, std::vector<DataType>{DataType::kFLOAT});
            if (mRefuse)
            {
                return Error{nvinfer1::ErrorCode::kUNSUPPORTED_STATE, "no kernel yet"};
            }
            return std::optional<host::TensorDesc>{};
        }
        host::Status runLayer(LayerRecord const& /*layer*/, EngineModel const& /*model*/,
            std::span<host::HostTensor const* const> /*inputs*/, std::span<host::HostTensor const> /*outputs*/,
            cudaStream_t /*stream*/) noexcept override
        {
            return host::Done{};
        }
        mutable int32_t asked{};

    private:
        bool mRefuse;
    };

    ITensor* x = input("x", Dims{1, {4}});
    auto* layer = net().addActivation(*x, nvinfer1::ActivationType::kRELU);
    layer->setName("a");
    net().markOutput(*layer->getOutput(0));
    BuildSettings const& settings = BuilderConfig::of(*mConfig).settings();

    StubBackend const refusing(true);
    auto const refused = buildEngineModel(Network::of(net()), settings, refusing);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().message,
        "layer 'a' (IActivationLayer): the CUDA backend cannot run it at optimization profile 0, kMIN (inputs kFLOAT "
        "[4]): no kernel yet");

    // An answer that waits for run-time values lets the build go on: one question per point of the profile.
    StubBackend const waiting(false);
    auto const model = buildEngineModel(Network::of(net()), settings, waiting);
    ASSERT_TRUE(model.ok()) << model.error().message;
    EXPECT_EQ(model.value().backend, PlanBackend::kCUDA);
    EXPECT_EQ(waiting.asked, 3);
}

} // namespace
} // namespace kiln
