// SPDX-License-Identifier: Apache-2.0
// The CUDA build's convolution layouts (builder/layout.h) on hand-made engine models: which chains run channels-last,
// which tensors become kHWC8, where reformat layers go and what they are named, the kernel weights stored KRSC (their
// channels padded for a stem of 3 channels), poolings as links of a chain, and what is left linear (FP32, output
// channel counts that are not multiples of 8 or not constant, a lone convolution, poolings without a convolution,
// a tensor that another kind of layer or the application reads, grouped convolutions, kernel tensors, host engines
// unless asked). The rewritten models pass the plan's checks and survive an encode-decode round trip.
#include "builder/layout.h"

#include "core/float_convert.h"
#include "plan/engine_codec.h"
#include "plan/model_check.h"
#include "plan/refit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace kiln
{
namespace
{

using nvinfer1::TensorFormat;

//! Builds engine models of convolutions: constant extents, float KCRS kernel weights with distinct values.
class ModelMaker
{
public:
    explicit ModelMaker(PlanBackend backend = PlanBackend::kCUDA) { mModel.backend = backend; }

    //! The expression of a constant extent (one per value).
    uint32_t constant(int64_t value)
    {
        auto const [at, added] = mConstants.try_emplace(value, static_cast<uint32_t>(mModel.exprs.size()));
        if (added)
        {
            mModel.exprs.push_back(ExprRecord{DimExpr::Kind::kCONSTANT, value});
        }
        return at->second;
    }

    //! A network input [batch, channels, 6, 6] (or [.., 4, 4, 4] for 3-D).
    int32_t input(std::string name, DataType type, int64_t channels, int32_t nbSpatial = 2)
    {
        int32_t const t = tensor(std::move(name), type, channels, nbSpatial, -1);
        mModel.tensors[static_cast<std::size_t>(t)].isInput = true;
        mModel.ioTensors.insert(mModel.ioTensors.begin() + mModel.nbInputs, t);
        ++mModel.nbInputs;
        return t;
    }

    //! Marks tensor a network output.
    void output(int32_t tensor)
    {
        mModel.tensors[static_cast<std::size_t>(tensor)].isOutput = true;
        mModel.ioTensors.push_back(tensor);
    }

    //! A 3x3 (3x3x3) convolution of in to maps output maps, with a bias, optionally a fused ReLU and a fused residual
    //! (input 3); returns its output.
    int32_t convolution(
        std::string name, int32_t in, int64_t maps, bool relu = false, int64_t groups = 1, int32_t residual = kNoTensor)
    {
        TensorRecord const& input = mModel.tensors[static_cast<std::size_t>(in)];
        auto const nbSpatial = static_cast<int32_t>(input.shape.size()) - 2;
        int64_t const channels = mModel.exprs[input.shape[1]].value;
        int64_t const taps = nbSpatial == 2 ? 9 : 27;
        ConvolutionParams params;
        params.nbOutputMaps = maps;
        params.nbGroups = groups;
        params.kernelSize = nbSpatial == 2 ? Dims{2, {3, 3}} : Dims{3, {3, 3, 3}};
        params.prePadding = nbSpatial == 2 ? Dims{2, {1, 1}} : Dims{3, {1, 1, 1}};
        params.postPadding = params.prePadding;
        std::vector<float> kernel(static_cast<std::size_t>(maps * (channels / groups) * taps));
        for (std::size_t i = 0; i < kernel.size(); ++i)
        {
            kernel[i] = static_cast<float>(i % 251) / 64.F - 1.F;
        }
        params.kernel = blob(kernel);
        params.bias = blob(std::vector<float>(static_cast<std::size_t>(maps), 0.5F));
        int32_t const out = tensor(name + ".out", input.type, maps, nbSpatial, next());
        LayerRecord layer = record(std::move(name), params, {in}, {out});
        if (residual != kNoTensor)
        {
            layer.inputs = {in, kNoTensor, kNoTensor, residual};
        }
        if (relu)
        {
            layer.epilogue = ActivationParams{nvinfer1::ActivationType::kRELU, 0.F, 0.F};
        }
        mModel.layers.push_back(std::move(layer));
        return out;
    }

    //! Another kind of layer reading in (a max pooling); returns its output.
    int32_t pooling(std::string name, int32_t in)
    {
        TensorRecord const& input = mModel.tensors[static_cast<std::size_t>(in)];
        int64_t const channels = mModel.exprs[input.shape[1]].value;
        PoolingParams params;
        params.type = nvinfer1::PoolingType::kMAX;
        params.windowSize = Dims{2, {1, 1}};
        int32_t const out = tensor(name + ".out", input.type, channels, 2, next());
        mModel.layers.push_back(record(std::move(name), params, {in}, {out}));
        return out;
    }

    //! Another kind of layer reading in (a ReLU, which no chain takes); returns its output.
    int32_t activation(std::string name, int32_t in)
    {
        TensorRecord const& input = mModel.tensors[static_cast<std::size_t>(in)];
        int64_t const channels = mModel.exprs[input.shape[1]].value;
        int32_t const out = tensor(name + ".out", input.type, channels, 2, next());
        mModel.layers.push_back(
            record(std::move(name), ActivationParams{nvinfer1::ActivationType::kRELU, 0.F, 0.F}, {in}, {out}));
        return out;
    }

    //! The model, with one profile (the extents are constants) whose offsets cover every tensor.
    EngineModel& finished()
    {
        ProfileRecord profile;
        for (int32_t i = 0; i < mModel.nbInputs; ++i)
        {
            int32_t const t = mModel.ioTensors[static_cast<std::size_t>(i)];
            Dims dims{static_cast<int32_t>(mModel.tensors[static_cast<std::size_t>(t)].shape.size()), {}};
            for (int32_t d = 0; d < dims.nbDims; ++d)
            {
                dims.d[d] = mModel.exprs[mModel.tensors[static_cast<std::size_t>(t)].shape[static_cast<std::size_t>(d)]]
                                .value;
            }
            profile.inputs.push_back(ProfileRecord::Input{t, dims, dims, dims, {}, {}, {}});
        }
        profile.offsets.assign(mModel.tensors.size(), -1);
        mModel.profiles = {profile};
        return mModel;
    }

    EngineModel& model() { return mModel; }

private:
    int32_t next() const { return static_cast<int32_t>(mModel.layers.size()); }

    int32_t tensor(std::string name, DataType type, int64_t channels, int32_t nbSpatial, int32_t producer)
    {
        TensorRecord record;
        record.name = std::move(name);
        record.type = type;
        record.shape = {constant(2), constant(channels)};
        for (int32_t i = 0; i < nbSpatial; ++i)
        {
            record.shape.push_back(constant(nbSpatial == 2 ? 6 : 4));
        }
        record.producer = producer;
        mModel.tensors.push_back(std::move(record));
        return static_cast<int32_t>(mModel.tensors.size() - 1);
    }

    static LayerRecord record(
        std::string name, LayerParams params, std::vector<int32_t> inputs, std::vector<int32_t> outputs)
    {
        LayerRecord layer;
        layer.name = std::move(name);
        layer.type = layerTypeOf(params);
        layer.params = std::move(params);
        layer.inputs = std::move(inputs);
        layer.outputs = std::move(outputs);
        return layer;
    }

    Weights blob(std::vector<float> const& values)
    {
        WeightsBlob blob{DataType::kFLOAT, static_cast<int64_t>(values.size()), {}};
        blob.bytes.resize(values.size() * sizeof(float));
        std::memcpy(blob.bytes.data(), values.data(), blob.bytes.size());
        mModel.weights.push_back(std::move(blob));
        return Weights{DataType::kFLOAT, mModel.weights.back().bytes.data(), static_cast<int64_t>(values.size())};
    }

    EngineModel mModel;
    std::map<int64_t, uint32_t> mConstants;
};

std::vector<std::string> layerNames(EngineModel const& model)
{
    std::vector<std::string> names;
    for (LayerRecord const& layer : model.layers)
    {
        names.push_back(layer.name);
    }
    return names;
}

std::vector<TensorFormat> formats(EngineModel const& model)
{
    std::vector<TensorFormat> list;
    for (TensorRecord const& tensor : model.tensors)
    {
        list.push_back(tensor.format);
    }
    return list;
}

//! Every layer's outputs name it as their producer, and the model passes the plan's checks and round-trips.
void expectValidPlan(EngineModel& model)
{
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        for (int32_t output : model.layers[l].outputs)
        {
            EXPECT_EQ(model.tensors[static_cast<std::size_t>(output)].producer, static_cast<int32_t>(l))
                << model.layers[l].name;
        }
    }
    auto const problem = modelProblem(model);
    EXPECT_FALSE(problem.has_value()) << *problem;
    auto const plan = encodeEngine(model);
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    auto const decoded = decodeEngine(plan.value().data(), plan.value().size());
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    EXPECT_EQ(formats(decoded.value()), formats(model));
    EXPECT_EQ(layerNames(decoded.value()), layerNames(model));
}

ConvolutionParams const& convolutionOf(EngineModel const& model, std::string const& name)
{
    for (LayerRecord const& layer : model.layers)
    {
        if (layer.name == name)
        {
            return std::get<ConvolutionParams>(layer.params);
        }
    }
    ADD_FAILURE() << "no layer " << name;
    static ConvolutionParams const none;
    return none;
}

LayerRecord const& layerNamed(EngineModel const& model, std::string const& name)
{
    for (LayerRecord const& layer : model.layers)
    {
        if (layer.name == name)
        {
            return layer;
        }
    }
    ADD_FAILURE() << "no layer " << name;
    static LayerRecord const none;
    return none;
}

//! x -> c1 -> c2 (ReLU) -> c3 -> y, channels 16 -> 32 -> 32 -> 16.
ModelMaker threeConvolutions(DataType type, int32_t nbSpatial = 2)
{
    ModelMaker maker;
    int32_t const x = maker.input("x", type, 16, nbSpatial);
    int32_t const t1 = maker.convolution("c1", x, 32);
    int32_t const t2 = maker.convolution("c2", t1, 32, true);
    maker.output(maker.convolution("c3", t2, 16));
    return maker;
}

TEST(ConvolutionLayouts, AChainOfThreeHalfConvolutionsRunsChannelsLast)
{
    ModelMaker maker = threeConvolutions(DataType::kHALF);
    EngineModel& model = maker.model();
    model.assertions = {AssertionRecord{0, "c2's", 1}, AssertionRecord{0, "c3's", 2}};
    std::vector<float> const c1Kernel(static_cast<float const*>(convolutionOf(model, "c1").kernel.values),
        static_cast<float const*>(convolutionOf(model, "c1").kernel.values) + 32 * 16 * 9);
    std::size_t const nbBlobs = model.weights.size();
    std::vector<int32_t> twins;

    EXPECT_EQ(chooseConvolutionLayouts(model, &twins), 3);

    EXPECT_EQ(layerNames(model),
        (std::vector<std::string>{"c1 input 0 to kHWC8", "c1", "c2", "c3", "c3 output 0 from kHWC8"}));
    // Tensors: x, c1.out, c2.out, c3.out (y), then the twins of x and y.
    ASSERT_EQ(model.tensors.size(), 6U);
    EXPECT_EQ(twins, (std::vector<int32_t>{0, 3}));
    EXPECT_EQ(formats(model),
        (std::vector<TensorFormat>{TensorFormat::kLINEAR, TensorFormat::kHWC8, TensorFormat::kHWC8,
            TensorFormat::kLINEAR, TensorFormat::kHWC8, TensorFormat::kHWC8}));
    EXPECT_EQ(model.tensors[4].name, "x (kHWC8)");
    EXPECT_EQ(model.tensors[5].name, "c3.out (kHWC8)");
    EXPECT_FALSE(model.tensors[4].isInput);
    EXPECT_FALSE(model.tensors[5].isOutput);
    EXPECT_EQ(model.tensors[4].shape, model.tensors[0].shape);
    EXPECT_EQ(model.layers[0].type, LayerType::kIDENTITY);
    EXPECT_EQ(model.layers[0].inputs, (std::vector<int32_t>{0}));
    EXPECT_EQ(model.layers[0].outputs, (std::vector<int32_t>{4}));
    EXPECT_EQ(model.layers[1].inputs, (std::vector<int32_t>{4}));
    EXPECT_EQ(model.layers[3].outputs, (std::vector<int32_t>{5}));
    EXPECT_EQ(model.layers[4].inputs, (std::vector<int32_t>{5}));
    EXPECT_EQ(model.layers[4].outputs, (std::vector<int32_t>{3}));
    EXPECT_TRUE(model.layers[2].epilogue.has_value()) << "the fused activation stays";
    EXPECT_EQ(model.assertions[0].layer, 2);
    EXPECT_EQ(model.assertions[1].layer, 3);

    // The kernels: KRSC in half, each in its own blob, rewritten in place.
    EXPECT_EQ(model.weights.size(), nbBlobs);
    ConvolutionParams const& c1 = convolutionOf(model, "c1");
    ASSERT_EQ(c1.kernel.type, DataType::kHALF);
    ASSERT_EQ(c1.kernel.count, 32 * 16 * 9);
    auto const* krsc = static_cast<uint16_t const*>(c1.kernel.values);
    for (int64_t k = 0; k < 32; k += 5)
    {
        for (int64_t c = 0; c < 16; c += 3)
        {
            for (int64_t s = 0; s < 9; ++s)
            {
                EXPECT_EQ(
                    krsc[(k * 9 + s) * 16 + c], floatToHalf(c1Kernel[static_cast<std::size_t>((k * 16 + c) * 9 + s)]))
                    << k << " " << c << " " << s;
            }
        }
    }
    EXPECT_EQ(c1.bias.type, DataType::kFLOAT) << "the bias is left as it is";
    expectValidPlan(maker.finished());
}

TEST(ConvolutionLayouts, ABf16ChainOf3dConvolutionsRunsInKdhwc8)
{
    ModelMaker maker = threeConvolutions(DataType::kBF16, 3);
    EngineModel& model = maker.model();
    EXPECT_EQ(chooseConvolutionLayouts(model), 3);
    EXPECT_EQ(layerNames(model),
        (std::vector<std::string>{"c1 input 0 to kDHWC8", "c1", "c2", "c3", "c3 output 0 from kDHWC8"}));
    EXPECT_EQ(model.tensors[1].format, TensorFormat::kDHWC8);
    EXPECT_EQ(model.tensors[4].name, "x (kDHWC8)");
    ConvolutionParams const& c2 = convolutionOf(model, "c2");
    EXPECT_EQ(c2.kernel.type, DataType::kBF16);
    auto const* krsc = static_cast<uint16_t const*>(c2.kernel.values);
    // Element (k 1, c 2, tap 26) of the KCRS float kernel the maker wrote.
    float const value = static_cast<float>(((1 * 32 + 2) * 27 + 26) % 251) / 64.F - 1.F;
    EXPECT_EQ(krsc[(1 * 27 + 26) * 32 + 2], floatToBf16(value));
    expectValidPlan(maker.finished());
}

TEST(ConvolutionLayouts, LeavesFloatConvolutionsLinear)
{
    ModelMaker maker = threeConvolutions(DataType::kFLOAT);
    EXPECT_EQ(chooseConvolutionLayouts(maker.model()), 0);
    EXPECT_EQ(maker.model().layers.size(), 3U);
    for (TensorRecord const& tensor : maker.model().tensors)
    {
        EXPECT_EQ(tensor.format, TensorFormat::kLINEAR) << tensor.name;
    }
    EXPECT_EQ(convolutionOf(maker.model(), "c1").kernel.type, DataType::kFLOAT);
}

TEST(ConvolutionLayouts, LeavesChannelCountsThatAreNotConstantMultiplesOf8Linear)
{
    ModelMaker twelve;
    int32_t const x = twelve.input("x", DataType::kHALF, 12);
    int32_t const t = twelve.convolution("c1", x, 12);
    twelve.output(twelve.convolution("c2", t, 12));
    EXPECT_EQ(chooseConvolutionLayouts(twelve.model()), 0);
    EXPECT_EQ(twelve.model().layers.size(), 2U);

    // c1 16 -> 12 is not eligible (12 output maps); c2 12 -> 16 is (its input padded to 16 channels) and starts the
    // chain c2, c3, c4.
    ModelMaker partly;
    int32_t const y = partly.input("x", DataType::kHALF, 16);
    int32_t const a = partly.convolution("c1", y, 12);
    int32_t const b = partly.convolution("c2", a, 16);
    int32_t const c = partly.convolution("c3", b, 16);
    partly.output(partly.convolution("c4", c, 16));
    EXPECT_EQ(chooseConvolutionLayouts(partly.model()), 3);
    EXPECT_EQ(layerNames(partly.model()),
        (std::vector<std::string>{"c1", "c2 input 0 to kHWC8", "c2", "c3", "c4", "c4 output 0 from kHWC8"}));
    EXPECT_EQ(convolutionOf(partly.model(), "c2").kernel.count, 16 * 9 * 16) << "12 channels padded to 16";
    EXPECT_EQ(partly.model().tensors[static_cast<std::size_t>(a)].format, TensorFormat::kLINEAR);
    EXPECT_EQ(partly.model().tensors[static_cast<std::size_t>(c)].format, TensorFormat::kHWC8);
    expectValidPlan(partly.finished());

    // A channel extent that is an expression of a symbol, not a constant.
    ModelMaker symbolic = threeConvolutions(DataType::kHALF);
    EngineModel& model = symbolic.model();
    model.symbols.push_back(SymbolRecord{"x.d1", SymbolKind::kINPUT_EXTENT, 0, 1});
    model.exprs.push_back(ExprRecord{DimExpr::Kind::kSYMBOL, 0, 0});
    model.tensors[1].shape[1] = static_cast<uint32_t>(model.exprs.size() - 1);
    model.tensors[2].shape[1] = static_cast<uint32_t>(model.exprs.size() - 1);
    EXPECT_EQ(chooseConvolutionLayouts(model), 0);
}

TEST(ConvolutionLayouts, LeavesALoneConvolutionLinear)
{
    ModelMaker maker;
    int32_t const x = maker.input("x", DataType::kHALF, 16);
    maker.output(maker.convolution("c1", x, 32, true));
    EXPECT_EQ(chooseConvolutionLayouts(maker.model()), 0);
    EXPECT_EQ(layerNames(maker.model()), (std::vector<std::string>{"c1"}));
    EXPECT_EQ(convolutionOf(maker.model(), "c1").kernel.type, DataType::kFLOAT) << "its kernel is not touched";
}

TEST(ConvolutionLayouts, LeavesATensorAnotherLayerReadsLinear)
{
    // x -> c1 -> t1 -> {c2, relu}: t1 is not interior, so c1 and c2 are lone convolutions.
    ModelMaker lone;
    int32_t const x = lone.input("x", DataType::kHALF, 16);
    int32_t const t1 = lone.convolution("c1", x, 16);
    lone.output(lone.convolution("c2", t1, 16));
    lone.output(lone.activation("relu", t1));
    EXPECT_EQ(chooseConvolutionLayouts(lone.model()), 0);
    EXPECT_EQ(lone.model().tensors[static_cast<std::size_t>(t1)].format, TensorFormat::kLINEAR);

    // x -> c1 -> c2 -> t2 -> {relu, c3}; c3 -> c4 -> y: two chains. c2 writes t2's twin, reformatted for the ReLU;
    // c3 reads the twin with no second reformat.
    ModelMaker chains;
    int32_t const in = chains.input("x", DataType::kHALF, 16);
    int32_t const a = chains.convolution("c1", in, 16);
    int32_t const t2 = chains.convolution("c2", a, 16);
    chains.output(chains.activation("relu", t2));
    int32_t const c = chains.convolution("c3", t2, 16);
    chains.output(chains.convolution("c4", c, 16));
    EngineModel& model = chains.model();
    std::vector<int32_t> twins;
    EXPECT_EQ(chooseConvolutionLayouts(model, &twins), 4);
    EXPECT_EQ(layerNames(model),
        (std::vector<std::string>{"c1 input 0 to kHWC8", "c1", "c2", "c2 output 0 from kHWC8", "relu", "c3", "c4",
            "c4 output 0 from kHWC8"}));
    ASSERT_EQ(twins.size(), 3U);
    EXPECT_EQ(twins[1], t2);
    auto const t2Twin = static_cast<int32_t>(model.tensors.size() - 2);
    EXPECT_EQ(model.tensors[static_cast<std::size_t>(t2)].format, TensorFormat::kLINEAR);
    EXPECT_EQ(model.tensors[static_cast<std::size_t>(t2Twin)].format, TensorFormat::kHWC8);
    EXPECT_EQ(layerNamed(model, "c2").outputs, (std::vector<int32_t>{t2Twin}));
    EXPECT_EQ(layerNamed(model, "relu").inputs, (std::vector<int32_t>{t2}));
    EXPECT_EQ(layerNamed(model, "c3").inputs, (std::vector<int32_t>{t2Twin}));
    expectValidPlan(chains.finished());
}

TEST(ConvolutionLayouts, LeavesNetworkOutputsLinearAndSharesAnInputsTwin)
{
    // x -> c1 -> t1 (a network output) -> c2 -> y: t1 is not interior.
    ModelMaker output;
    int32_t const x = output.input("x", DataType::kHALF, 16);
    int32_t const t1 = output.convolution("c1", x, 16);
    output.output(t1);
    output.output(output.convolution("c2", t1, 16));
    EXPECT_EQ(chooseConvolutionLayouts(output.model()), 0);

    // Two chains read x: one reformat makes x's twin for both.
    ModelMaker shared;
    int32_t const in = shared.input("x", DataType::kHALF, 16);
    int32_t const a = shared.convolution("a1", in, 16);
    shared.output(shared.convolution("a2", a, 16));
    int32_t const b = shared.convolution("b1", in, 16);
    shared.output(shared.convolution("b2", b, 16));
    EngineModel& model = shared.model();
    EXPECT_EQ(chooseConvolutionLayouts(model), 4);
    EXPECT_EQ(layerNames(model),
        (std::vector<std::string>{
            "a1 input 0 to kHWC8", "a1", "a2", "a2 output 0 from kHWC8", "b1", "b2", "b2 output 0 from kHWC8"}));
    EXPECT_EQ(layerNamed(model, "a1").inputs, layerNamed(model, "b1").inputs);
    expectValidPlan(shared.finished());
}

TEST(ConvolutionLayouts, LeavesGroupsKernelTensorsAndHostEnginesAlone)
{
    ModelMaker grouped;
    int32_t const x = grouped.input("x", DataType::kHALF, 16);
    int32_t const t = grouped.convolution("c1", x, 16, false, 2);
    grouped.output(grouped.convolution("c2", t, 16, false, 2));
    EXPECT_EQ(chooseConvolutionLayouts(grouped.model()), 0);

    ModelMaker tensorKernel = threeConvolutions(DataType::kHALF);
    // c2 takes its kernel from a tensor (here x, the shape does not matter to the pass): it is not eligible, so c1
    // and c3 are lone.
    tensorKernel.model().layers[1].inputs.push_back(0);
    EXPECT_EQ(chooseConvolutionLayouts(tensorKernel.model()), 0);

    ModelMaker host = threeConvolutions(DataType::kHALF);
    host.model().backend = PlanBackend::kHOST;
    EXPECT_EQ(chooseConvolutionLayouts(host.model()), 0);
}

TEST(ConvolutionLayouts, ASharedKernelBlobIsCopiedNotRewritten)
{
    ModelMaker maker = threeConvolutions(DataType::kHALF);
    EngineModel& model = maker.model();
    // c3 (32 -> 16) gets a kernel that shares c1's blob (16 * 32 * 9 values, as many as c1's).
    auto& c3 = std::get<ConvolutionParams>(model.layers[2].params);
    c3.kernel = std::get<ConvolutionParams>(model.layers[0].params).kernel;
    std::vector<uint8_t> const before = model.weights[0].bytes;
    std::size_t const nbBlobs = model.weights.size();
    EXPECT_EQ(chooseConvolutionLayouts(model), 3);
    // c1's transposition finds the blob shared and makes a new one; c3 then owns the original alone.
    EXPECT_EQ(model.weights.size(), nbBlobs + 1);
    EXPECT_NE(convolutionOf(model, "c1").kernel.values, convolutionOf(model, "c3").kernel.values);
    EXPECT_EQ(convolutionOf(model, "c3").kernel.type, DataType::kHALF);
    EXPECT_NE(model.weights[0].bytes, before);
    expectValidPlan(maker.finished());
}

//! A ResNet-like chain (each block's shortcut fused into a convolution, builder/fusion.h): x -> pool p; block 1
//! (identity shortcut) b1c1, b1c2, b1c3 + p -> o1; block 2 (downsampling shortcut: the sum fused into the later
//! convolution, ds) b2c1, b2c2, b2c3 -> t3, ds(o1) + t3 -> o2; pool q -> y. Channels 16, then 32 in block 2.
ModelMaker residualBlocks()
{
    ModelMaker maker;
    int32_t const x = maker.input("x", DataType::kHALF, 16);
    int32_t const p = maker.pooling("p", x);
    int32_t const b1 = maker.convolution("b1c1", p, 16, true);
    int32_t const b2 = maker.convolution("b1c2", b1, 16, true);
    int32_t const o1 = maker.convolution("b1c3", b2, 16, true, 1, p);
    int32_t const b3 = maker.convolution("b2c1", o1, 32, true);
    int32_t const b4 = maker.convolution("b2c2", b3, 32, true);
    int32_t const t3 = maker.convolution("b2c3", b4, 32);
    int32_t const o2 = maker.convolution("ds", o1, 32, true, 1, t3);
    maker.output(maker.pooling("q", o2));
    return maker;
}

TEST(ConvolutionLayouts, ResidualBlocksRunChannelsLastEndToEnd)
{
    ModelMaker maker = residualBlocks();
    EngineModel& model = maker.model();
    EXPECT_EQ(chooseConvolutionLayouts(model), 7);
    // The poolings join the chain: reformats only at the network's input and output.
    EXPECT_EQ(layerNames(model),
        (std::vector<std::string>{"p input 0 to kHWC8", "p", "b1c1", "b1c2", "b1c3", "b2c1", "b2c2", "b2c3", "ds", "q",
            "q output 0 from kHWC8"}));
    LayerRecord const& b1c3 = layerNamed(model, "b1c3");
    int32_t const p = layerNamed(model, "p").outputs[0];
    EXPECT_EQ(model.tensors[static_cast<std::size_t>(p)].format, TensorFormat::kHWC8);
    EXPECT_EQ(layerNamed(model, "b1c1").inputs[0], p);
    EXPECT_EQ(b1c3.inputs[kConvolutionResidualInput], p) << "the residual reads the pooling's kHWC8 result";
    EXPECT_EQ(model.tensors[static_cast<std::size_t>(layerNamed(model, "q").inputs[0])].format, TensorFormat::kHWC8);
    for (char const* name : {"b1c1", "b1c2", "b1c3", "b2c1", "b2c2", "b2c3", "ds"})
    {
        LayerRecord const& conv = layerNamed(model, name);
        for (int32_t const t : {conv.inputs[0], conv.outputs[0]})
        {
            EXPECT_EQ(model.tensors[static_cast<std::size_t>(t)].format, TensorFormat::kHWC8) << name;
        }
        if (conv.inputs.size() > kConvolutionResidualInput)
        {
            EXPECT_EQ(model.tensors[static_cast<std::size_t>(conv.inputs[kConvolutionResidualInput])].format,
                TensorFormat::kHWC8)
                << name;
        }
    }
    // o1 (block 1's output, read by b2c1 and ds) and t3 (ds's residual) are interior: kHWC8 themselves, no twin.
    EXPECT_EQ(layerNamed(model, "ds").inputs,
        (std::vector<int32_t>{
            layerNamed(model, "b1c3").outputs[0], kNoTensor, kNoTensor, layerNamed(model, "b2c3").outputs[0]}));
    expectValidPlan(maker.finished());
}

//! The number of reformat layers (identities) in model.
int32_t reformats(EngineModel const& model)
{
    return static_cast<int32_t>(std::count_if(model.layers.begin(), model.layers.end(),
        [](LayerRecord const& layer) { return layer.type == LayerType::kIDENTITY; }));
}

TEST(ConvolutionLayouts, AStemOfThreeChannelsAndItsPoolingJoinTheChain)
{
    // A ResNet's edge: x (3 channels) -> stem 3 -> 16 (ReLU) -> max pooling -> c1 -> c2 -> y. Channels-last from the
    // reformat of x to the one back into y: x's twin pads 3 channels to 8, and so does the stem's kernel.
    ModelMaker maker;
    int32_t const x = maker.input("x", DataType::kHALF, 3);
    int32_t const stem = maker.convolution("stem", x, 16, true);
    int32_t const pool = maker.pooling("pool", stem);
    int32_t const t1 = maker.convolution("c1", pool, 16, true);
    maker.output(maker.convolution("c2", t1, 16));
    EngineModel& model = maker.model();
    std::vector<float> const kernel(static_cast<float const*>(convolutionOf(model, "stem").kernel.values),
        static_cast<float const*>(convolutionOf(model, "stem").kernel.values) + 16 * 3 * 9);
    std::vector<int32_t> twins;

    EXPECT_EQ(chooseConvolutionLayouts(model, &twins), 3);

    EXPECT_EQ(layerNames(model),
        (std::vector<std::string>{"stem input 0 to kHWC8", "stem", "pool", "c1", "c2", "c2 output 0 from kHWC8"}));
    EXPECT_EQ(reformats(model), 2) << "one at each edge";
    EXPECT_EQ(twins, (std::vector<int32_t>{x, 4}));
    for (int32_t const t : {stem, pool, t1})
    {
        EXPECT_EQ(model.tensors[static_cast<std::size_t>(t)].format, TensorFormat::kHWC8)
            << model.tensors[static_cast<std::size_t>(t)].name;
    }
    EXPECT_EQ(model.tensors[static_cast<std::size_t>(x)].format, TensorFormat::kLINEAR);
    EXPECT_EQ(model.tensors[static_cast<std::size_t>(layerNamed(model, "stem").inputs[0])].name, "x (kHWC8)");
    EXPECT_EQ(layerNamed(model, "pool").inputs, (std::vector<int32_t>{stem}));
    EXPECT_EQ(layerNamed(model, "pool").outputs, (std::vector<int32_t>{pool}));

    // The stem's kernel: KRSC in half with 8 channels, the 5 beyond the input's zero.
    ConvolutionParams const& params = convolutionOf(model, "stem");
    ASSERT_EQ(params.kernel.type, DataType::kHALF);
    ASSERT_EQ(params.kernel.count, 16 * 9 * 8);
    auto const* krsc = static_cast<uint16_t const*>(params.kernel.values);
    for (int64_t k = 0; k < 16; ++k)
    {
        for (int64_t s = 0; s < 9; ++s)
        {
            for (int64_t c = 0; c < 8; ++c)
            {
                uint16_t const expected
                    = c < 3 ? floatToHalf(kernel[static_cast<std::size_t>((k * 3 + c) * 9 + s)]) : uint16_t{0};
                ASSERT_EQ(krsc[(k * 9 + s) * 8 + c], expected) << k << " " << s << " " << c;
            }
        }
    }
    EXPECT_EQ(convolutionOf(model, "c1").kernel.count, 16 * 9 * 16) << "16 channels are not padded";

    // Refitted, the stem's kernel of 3 channels is stored as the pass stores it: KRSC, padded to 8 (plan/refit.h).
    LayerRecord& stemLayer = model.layers[1];
    ASSERT_EQ(stemLayer.name, "stem");
    model.refit.mode = RefitRecord::Mode::kREFIT;
    model.refit.weights
        = {RefitWeightsRecord{"stem", nvinfer1::WeightsRole::kKERNEL, "", DataType::kFLOAT, 16 * 3 * 9}};
    stemLayer.refit[0] = 0;
    EXPECT_FALSE(refitProblem(model).has_value()) << *refitProblem(model);
    std::vector<float> fresh(16 * 3 * 9);
    for (std::size_t i = 0; i < fresh.size(); ++i)
    {
        fresh[i] = static_cast<float>(i % 17) / 16.F;
    }
    Weights const source{DataType::kFLOAT, fresh.data(), static_cast<int64_t>(fresh.size())};
    Expected<std::vector<uint8_t>> const stored = storedWeights(model, stemLayer, 0, source);
    ASSERT_TRUE(stored.ok()) << stored.error().message;
    EXPECT_EQ(stored.value(), kernelChannelsLast(params, source, DataType::kHALF, 8));
    ASSERT_EQ(stored.value().size(), std::size_t{16 * 9 * 8 * 2});
    uint16_t half = 0;
    std::memcpy(&half, stored.value().data() + ((1 * 9 + 4) * 8 + 2) * 2, 2);
    EXPECT_EQ(half, floatToHalf(fresh[(1 * 3 + 2) * 9 + 4])) << "k 1, tap 4, channel 2";
    expectValidPlan(maker.finished());
}

TEST(ConvolutionLayouts, AConvolutionAndItsPoolingFormAChainButPoolingsAloneDoNot)
{
    // x -> stem (3 channels) -> pool -> y: a convolution and a pooling, channels-last between two reformats.
    ModelMaker stem;
    int32_t const x = stem.input("x", DataType::kHALF, 3);
    int32_t const t = stem.convolution("stem", x, 16, true);
    stem.output(stem.pooling("pool", t));
    EXPECT_EQ(chooseConvolutionLayouts(stem.model()), 1);
    EXPECT_EQ(layerNames(stem.model()),
        (std::vector<std::string>{"stem input 0 to kHWC8", "stem", "pool", "pool output 0 from kHWC8"}));
    EXPECT_EQ(stem.model().tensors[static_cast<std::size_t>(t)].format, TensorFormat::kHWC8);
    expectValidPlan(stem.finished());

    // x -> pool -> pool2 -> y: no convolution, nothing runs channels-last.
    ModelMaker poolings;
    int32_t const in = poolings.input("x", DataType::kHALF, 16);
    poolings.output(poolings.pooling("pool2", poolings.pooling("pool", in)));
    EXPECT_EQ(chooseConvolutionLayouts(poolings.model()), 0);
    EXPECT_EQ(reformats(poolings.model()), 0);
}

TEST(ConvolutionLayouts, APoolingReadByAnotherKindOfLayerEndsTheChain)
{
    // c1 -> c2 -> pool -> {relu, c3 -> c4}: the pooling's result leaves the chain through a reformat, and c3 reads the
    // twin it was written to.
    ModelMaker split;
    int32_t const in = split.input("x", DataType::kHALF, 16);
    int32_t const a = split.convolution("c1", in, 16);
    int32_t const p = split.pooling("pool", split.convolution("c2", a, 16));
    split.output(split.activation("relu", p));
    split.output(split.convolution("c4", split.convolution("c3", p, 16), 16));
    EngineModel& model = split.model();
    EXPECT_EQ(chooseConvolutionLayouts(model), 4);
    EXPECT_EQ(layerNames(model),
        (std::vector<std::string>{"c1 input 0 to kHWC8", "c1", "c2", "pool", "pool output 0 from kHWC8", "relu", "c3",
            "c4", "c4 output 0 from kHWC8"}));
    EXPECT_EQ(model.tensors[static_cast<std::size_t>(p)].format, TensorFormat::kLINEAR);
    expectValidPlan(split.finished());
}

TEST(ConvolutionLayouts, AHostEngineChoosesTheLayoutsWhenAsked)
{
    ModelMaker host = threeConvolutions(DataType::kHALF);
    host.model().backend = PlanBackend::kHOST;
    EXPECT_EQ(chooseConvolutionLayouts(host.model(), nullptr, LayoutScope::kANY_BACKEND), 3);
    EXPECT_EQ(reformats(host.model()), 2);
}

TEST(ConvolutionLayouts, AResidualFromOutsideTheChainGetsATwin)
{
    // x -> c1 -> c2 (+ r, a network input) -> y: r is reformatted before c2, which reads its twin.
    ModelMaker maker;
    int32_t const x = maker.input("x", DataType::kHALF, 16);
    int32_t const r = maker.input("r", DataType::kHALF, 32);
    int32_t const t1 = maker.convolution("c1", x, 32);
    maker.output(maker.convolution("c2", t1, 32, true, 1, r));
    EngineModel& model = maker.model();
    EXPECT_EQ(chooseConvolutionLayouts(model), 2);
    EXPECT_EQ(layerNames(model),
        (std::vector<std::string>{"c1 input 0 to kHWC8", "c1", "c2 input 3 to kHWC8", "c2", "c2 output 0 from kHWC8"}));
    LayerRecord const& c2 = layerNamed(model, "c2");
    EXPECT_EQ(model.tensors[static_cast<std::size_t>(c2.inputs[kConvolutionResidualInput])].name, "r (kHWC8)");
    EXPECT_EQ(model.tensors[static_cast<std::size_t>(r)].format, TensorFormat::kLINEAR);
    expectValidPlan(maker.finished());
}

TEST(ConvolutionLayouts, AResidualReadByAnotherKindOfLayerStaysLinear)
{
    // x -> c1 -> t1; c2(t1) + t1 -> y, t1 also read by a ReLU: t1 is not interior, so no interior tensor links c1 and
    // c2 and both stay linear.
    ModelMaker maker;
    int32_t const x = maker.input("x", DataType::kHALF, 16);
    int32_t const t1 = maker.convolution("c1", x, 16);
    int32_t const t2 = maker.convolution("c2", t1, 16, true, 1, t1);
    maker.output(t2);
    maker.output(maker.activation("relu", t1));
    EngineModel& model = maker.model();
    EXPECT_EQ(chooseConvolutionLayouts(model), 0) << "no interior tensor links c1 and c2";
}

} // namespace
} // namespace kiln
