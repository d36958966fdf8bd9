// SPDX-License-Identifier: Apache-2.0
// The plan payload: a model with one layer of every kind (parameters off their defaults), weights, expressions,
// symbols, assertions and profiles survives encoding and decoding field by field; what the format cannot hold is
// refused when writing; and every way a plan can lie is refused when reading, with a message that names the record:
// a damaged envelope, a payload the FlatBuffers verifier refuses, a hostile writer's well-formed payload with bad
// indices, enums or sizes (one case per check of modelProblem), random and mutated payloads (run under ASan in CI).
#include "plan/engine_codec.h"

#include "core/data_type.h"
#include "plan/engine_codec_internal.h"
#include "plan/engine_generated.h"
#include "plan/model_check.h"
#include "plan/params_fields.h"
#include "plan/plugin_libraries.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <iomanip>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>

namespace kiln
{
namespace
{

using ::testing::HasSubstr;
using ::testing::StartsWith;
using Kind = DimExpr::Kind;
using nvinfer1::DimensionOperation;

// ---- The sample model ---------------------------------------------------------------------------------------------

// Expressions of the sample.
constexpr uint32_t kOne = 0, kThree = 1, kBatch = 2, kEight = 3, kBatchPlusOne = 4, kTwo = 5, kShapeValue = 6,
                   kFour = 7, kMaxOfValue = 8;
// Tensors: the two network inputs, then the output of layer l at 2 + l.
constexpr int32_t kX = 0, kShapeInput = 1;
constexpr int32_t outputOf(int32_t layer)
{
    return 2 + layer;
}

std::vector<uint8_t> iotaBytes(std::size_t size, uint8_t first)
{
    std::vector<uint8_t> bytes(size);
    std::iota(bytes.begin(), bytes.end(), first);
    return bytes;
}

//! A tensor record with the fields tests set most (the others keep their defaults).
TensorRecord tensorRecord(std::string name, DataType type = DataType::kFLOAT, std::vector<uint32_t> shape = {})
{
    TensorRecord record;
    record.name = std::move(name);
    record.type = type;
    record.shape = std::move(shape);
    return record;
}

nvinfer1::Permutation permutationOf(std::initializer_list<int32_t> order)
{
    nvinfer1::Permutation permutation{};
    std::copy(order.begin(), order.end(), permutation.order);
    return permutation;
}

//! The parameters of each kind the plan holds, every field away from its default where it has one.
std::vector<std::pair<std::string, LayerParams>> sampleParams(EngineModel const& model)
{
    ConvolutionParams convolution;
    convolution.nbOutputMaps = 2; // 2 maps x window [1, 2]: the kernel blob's 4 values
    convolution.kernelSize = Dims{2, {1, 2}};
    convolution.stride = Dims{2, {2, 1}};
    convolution.prePadding = Dims{2, {1, 0}};
    convolution.postPadding = Dims{2, {0, 1}};
    convolution.dilation = Dims{2, {1, 2}};
    convolution.paddingMode = nvinfer1::PaddingMode::kSAME_UPPER;
    convolution.nbGroups = 2;
    convolution.kernel = model.weightsOf(0);
    convolution.bias = model.weightsOf(1);

    PoolingParams pooling;
    pooling.type = nvinfer1::PoolingType::kAVERAGE;
    pooling.windowSize = Dims{2, {2, 3}};
    pooling.stride = Dims{2, {1, 2}};
    pooling.prePadding = Dims{2, {1, 1}};
    pooling.postPadding = Dims{2, {0, 1}};
    pooling.paddingMode = nvinfer1::PaddingMode::kEXPLICIT_ROUND_UP;
    pooling.blendFactor = 0.3F;
    pooling.averageCountExcludesPadding = false;

    ShuffleParams shuffle;
    shuffle.firstTranspose = permutationOf({1, 0, 2, 3, 4, 5, 6, 7});
    shuffle.reshape = Dims{3, {0, -1, 9}};
    shuffle.secondTranspose = permutationOf({2, 1, 0, 3, 4, 5, 6, 7});
    shuffle.zeroIsPlaceholder = false;

    MatrixMultiplyParams matrixMultiply;
    matrixMultiply.ops[0] = nvinfer1::MatrixOperation::kTRANSPOSE;
    matrixMultiply.ops[1] = nvinfer1::MatrixOperation::kVECTOR;

    // Two of the six floats of blob 3, from byte 8: weights need not start a blob.
    WeightsBlob const& blob3 = model.weights[3];
    ConstantParams constant{Dims{2, {1, 2}}, Weights{DataType::kFLOAT, blob3.bytes.data() + 8, 2}};

    SliceParams slice;
    slice.start = Dims{2, {0, 1}};
    slice.size = Dims{2, {1, 1}};
    slice.stride = Dims{2, {1, 2}};
    slice.mode = nvinfer1::SampleMode::kWRAP;
    slice.axes = Dims{2, {1, 3}};

    FillParams fill;
    fill.dims = Dims{3, {2, 3, 4}};
    fill.op = nvinfer1::FillOperation::kRANDOM_NORMAL;
    fill.alpha = 0.5;
    fill.beta = 2.25;
    fill.alphaInt64 = -3;
    fill.betaInt64 = 7;
    fill.alphaBetaInt64 = true;
    fill.toType = DataType::kHALF;

    // Both the output dimensions and the scales: the format keeps each field (input 1 gives the shape here).
    ResizeParams resize;
    resize.outputDims = Dims{4, {1, 3, 16, 16}};
    resize.scales = {1.F, 1.F, 2.F, 0.625F};
    resize.mode = nvinfer1::InterpolationMode::kCUBIC;
    resize.transformation = nvinfer1::ResizeCoordinateTransformation::kHALF_PIXEL;
    resize.selector = nvinfer1::ResizeSelector::kUPPER;
    resize.rounding = nvinfer1::ResizeRoundMode::kCEIL;
    resize.cubicCoeff = -0.5F;
    resize.excludeOutside = true;

    DeconvolutionParams deconvolution;
    deconvolution.nbOutputMaps = 2;
    deconvolution.kernelSize = Dims{3, {1, 2, 1}};
    deconvolution.stride = Dims{3, {2, 1, 3}};
    deconvolution.prePadding = Dims{3, {0, 1, 0}};
    deconvolution.postPadding = Dims{3, {1, 0, 2}};
    deconvolution.dilation = Dims{3, {1, 2, 1}};
    deconvolution.paddingMode = nvinfer1::PaddingMode::kSAME_LOWER;
    deconvolution.nbGroups = 2;
    deconvolution.kernel = model.weightsOf(0);
    deconvolution.bias = model.weightsOf(1);

    std::vector<std::pair<std::string, LayerParams>> params;
    auto const add = [&params](std::string name, auto kind) {
        params.emplace_back(std::move(name), LayerParams{std::move(kind)});
    };
    add("conv", convolution);
    add("cast", CastParams{DataType::kINT8});
    add("activation", ActivationParams{nvinfer1::ActivationType::kLEAKY_RELU, 0.125F, 2.5F});
    add("pooling", pooling);
    add("softmax", SoftMaxParams{1U << 2U});
    add("concat", ConcatenationParams{1});
    add("elementwise", ElementWiseParams{nvinfer1::ElementWiseOperation::kDIV});
    add("unary", UnaryParams{nvinfer1::UnaryOperation::kSQRT});
    add("shuffle", shuffle);
    add("reduce", ReduceParams{nvinfer1::ReduceOperation::kMAX, 0b1010U, true});
    add("gather", GatherParams{nvinfer1::GatherMode::kELEMENT, 2, 1});
    add("matmul", matrixMultiply);
    add("constant", constant);
    add("identity", IdentityParams{});
    add("slice", slice);
    add("shape", ShapeParams{});
    add("select", SelectParams{});
    add("fill", fill);
    add("topk", TopKParams{nvinfer1::TopKOperation::kMIN, 3, 0b100U, DataType::kINT64});
    add("resize", resize);
    add("quantize", QuantizeParams{-3, Dims{4, {1, -1, 2, 4}}, DataType::kINT4});
    add("dequantize", DequantizeParams{2, Dims{-1, {}}, DataType::kBF16});
    add("scatter", ScatterParams{nvinfer1::ScatterMode::kND, -2});
    add("deconv", deconvolution);
    add("cumulative", CumulativeParams{nvinfer1::CumulativeOperation::kSUM, true, true, 2});
    add("gridsample", GridSampleParams{nvinfer1::InterpolationMode::kCUBIC, true, nvinfer1::SampleMode::kREFLECT});
    add("reversesequence", ReverseSequenceParams{0, 2});
    add("einsum", EinsumParams{"...ii->...i"});
    add("nonzero", NonZeroParams{DataType::kINT64});
    add("nms", NMSParams{nvinfer1::BoundingBoxFormat::kCENTER_SIZES, 123, DataType::kINT64});
    add("condition", ConditionParams{4});
    add("conditional input", IfConditionalInputParams{4});
    add("conditional output", IfConditionalOutputParams{4});
    add("recurrence", RecurrenceParams{2});
    add("iterator", IteratorParams{2, 1, true});
    add("loop output", LoopOutputParams{2, nvinfer1::LoopOutput::kREVERSE, 1});
    add("trip limit", TripLimitParams{2, nvinfer1::TripLimit::kWHILE}); // last: it has no output
    return params;
}

//! The inputs of each sample layer, by its position in sampleParams.
std::vector<int32_t> sampleInputs(std::size_t layer)
{
    auto const previous = outputOf(static_cast<int32_t>(layer) - 1);
    switch (layer)
    {
    case 0: return {kX};
    case 5: return {previous, outputOf(0)};                 // Concatenation
    case 6: return {previous, previous};                    // ElementWise
    case 8: return {previous, kShapeInput};                 // Shuffle: reshape given by a tensor
    case 10: return {previous, kShapeInput};                // Gather
    case 11: return {previous, previous};                   // MatrixMultiply
    case 12: return {};                                     // Constant
    case 14: return {previous, kNoTensor, kShapeInput};     // Slice: start absent, size given
    case 16: return {previous, outputOf(14), outputOf(14)}; // Select
    case 17: return {};                                     // Fill
    case 19: return {previous, kShapeInput};                // Resize: the output shape given by a tensor
    case 20: return {previous, outputOf(12)};               // Quantize: the scale, no zero point
    case 21: return {previous, outputOf(12), outputOf(12)}; // Dequantize: the scale and a zero point
    case 22: return {previous, kShapeInput, previous};      // Scatter: data, indices, updates
    case 24: return {previous, kShapeInput};                // Cumulative: the axis
    case 25: return {previous, previous};                   // GridSample: data, grid
    case 26: return {previous, previous};                   // ReverseSequence: data, lengths
    case 29: return {previous, outputOf(24), kShapeInput, kNoTensor, outputOf(12)}; // NMS: no IoU threshold
    case 32: return {previous, outputOf(29), outputOf(30)}; // Conditional output: true, false, the condition
    case 33: return {previous, outputOf(34)};               // Recurrence: initial, next (the back edge)
    case 35: return {previous, kShapeInput};                // Loop output: value, length
    case 36: return {outputOf(30)};                         // Trip limit: a condition
    default: return {previous};
    }
}

//! A consistent engine: two inputs (x, and a shape tensor), one layer of each kind the plan holds, two outputs.
EngineModel sampleModel()
{
    EngineModel model;
    model.name = "sample network";
    model.backend = PlanBackend::kCUDA;
    model.exprs = {
        ExprRecord{.kind = Kind::kCONSTANT, .value = 1},
        ExprRecord{.kind = Kind::kCONSTANT, .value = 3},
        ExprRecord{.kind = Kind::kSYMBOL, .symbol = 0},
        ExprRecord{.kind = Kind::kCONSTANT, .value = 8},
        ExprRecord{.kind = Kind::kOPERATION, .op = DimensionOperation::kSUM, .lhs = kBatch, .rhs = kOne},
        ExprRecord{.kind = Kind::kCONSTANT, .value = 2},
        ExprRecord{.kind = Kind::kSYMBOL, .symbol = 1},
        ExprRecord{.kind = Kind::kCONSTANT, .value = 4},
        ExprRecord{.kind = Kind::kOPERATION, .op = DimensionOperation::kMAX, .lhs = kShapeValue, .rhs = kFour},
    };
    model.symbols = {
        SymbolRecord{"x.d0", SymbolKind::kINPUT_EXTENT, kX, 0},
        SymbolRecord{"shape.v0", SymbolKind::kSHAPE_VALUE, kShapeInput, 0},
        SymbolRecord{"plugin.size", SymbolKind::kSIZE_TENSOR, kNoTensor, 0, kTwo, kMaxOfValue},
    };
    model.weights = {
        WeightsBlob{DataType::kFLOAT, 4, iotaBytes(16, 1)},
        WeightsBlob{DataType::kHALF, 2, iotaBytes(4, 50)},
        WeightsBlob{DataType::kINT4, 5, iotaBytes(3, 90)}, // Packed: 5 elements in 3 bytes.
        WeightsBlob{DataType::kFLOAT, 6, iotaBytes(24, 120)},
    };

    TensorRecord x = tensorRecord("x", DataType::kFLOAT, {kBatch, kThree, kEight, kEight});
    x.isInput = true;
    TensorRecord shape = tensorRecord("shape", DataType::kINT32, {kTwo});
    shape.values = std::vector<uint32_t>{kShapeValue, kFour};
    shape.isInput = true;
    shape.isShapeTensor = true;
    model.tensors = {x, shape};

    auto params = sampleParams(model);
    for (std::size_t l = 0; l < params.size(); ++l)
    {
        auto const index = static_cast<int32_t>(l);
        TensorRecord output
            = tensorRecord("t" + std::to_string(l), DataType::kFLOAT, {kBatchPlusOne, kThree, kEight, kEight});
        output.producer = index;
        if (l == 1) // The cast: a quantized, vectorized tensor.
        {
            output.type = DataType::kINT8;
            output.format = nvinfer1::TensorFormat::kCHW4;
            output.scale = 0.25F;
        }
        output.isDebug = l == 2 || l == 3; // Debug tensors (format 4.3) round-trip.
        if (l == 15)                       // The shape layer: values tracked by shape inference.
        {
            output.type = DataType::kINT64;
            output.shape = {kFour};
            output.values = std::vector<uint32_t>{kBatch, kThree, kEight, kMaxOfValue};
        }
        bool const tripLimit = layerTypeOf(params[l].second) == LayerType::kTRIP_LIMIT;
        if (l + 3 >= params.size() && !tripLimit)
        {
            output.isOutput = true;
        }
        if (!tripLimit)
        {
            model.tensors.push_back(std::move(output));
        }
        LayerRecord layer;
        layer.name = params[l].first;
        layer.type = layerTypeOf(params[l].second);
        layer.inputs = sampleInputs(l);
        layer.outputs = tripLimit ? std::vector<int32_t>{} : std::vector<int32_t>{outputOf(index)};
        layer.params = std::move(params[l].second);
        layer.metadata = l == 0 ? "onnx::Conv_0" : "";
        if (l == 0)
        {
            // What a CUDA build records of a convolution: the tactic it timed fastest, a fused activation.
            layer.tactic = 3;
            layer.tacticName = "cudnn forward algo 1 math 2 fused";
            layer.epilogue = ActivationParams{nvinfer1::ActivationType::kCLIP, -1.5F, 6.0F};
        }
        if (l == 6)
        {
            // A fused point-wise program: exp(previous / previous) * 0.5-clipped.
            layer.pointwise = {
                PointwiseStep{PointwiseStep::Kind::kELEMENTWISE,
                    static_cast<int32_t>(nvinfer1::ElementWiseOperation::kDIV), 0.F, 0.F, 0, 1},
                PointwiseStep{
                    PointwiseStep::Kind::kUNARY, static_cast<int32_t>(nvinfer1::UnaryOperation::kEXP), 0.F, 0.F, -1, 0},
                PointwiseStep{PointwiseStep::Kind::kACTIVATION, static_cast<int32_t>(nvinfer1::ActivationType::kCLIP),
                    0.F, 0.5F, -2, 0},
            };
        }
        if (l == 11)
        {
            layer.scale = 0.125F; // A matrix multiply's folded factor.
        }
        model.layers.push_back(std::move(layer));
    }
    auto const nbTensors = static_cast<int32_t>(model.tensors.size());
    model.ioTensors = {kX, kShapeInput, nbTensors - 1, nbTensors - 2};
    model.nbInputs = 2;
    // The second outputs of the top-k (its indices), the non-zero (its hidden count) and the NMS (its row count):
    // internal tensors after the others.
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        LayerType const type = model.layers[l].type;
        if (type == LayerType::kTOPK || type == LayerType::kNON_ZERO || type == LayerType::kNMS)
        {
            TensorRecord second = type == LayerType::kTOPK
                ? tensorRecord(
                    "t" + std::to_string(l) + ".indices", DataType::kINT64, {kBatchPlusOne, kThree, kEight, kEight})
                : tensorRecord("t" + std::to_string(l) + ".count", DataType::kINT32, {});
            second.producer = static_cast<int32_t>(l);
            model.layers[l].outputs.push_back(static_cast<int32_t>(model.tensors.size()));
            model.tensors.push_back(std::move(second));
        }
    }
    model.assertions = {
        AssertionRecord{kBatchPlusOne, "x.d0 + 1 must be positive", 0},
        AssertionRecord{kMaxOfValue, "a shape-wide condition", -1},
    };

    for (int64_t const scale : {256, 512})
    {
        ProfileRecord profile;
        profile.inputs = {
            ProfileRecord::Input{
                kX, Dims{4, {1, 3, 8, 8}}, Dims{4, {2, 3, 8, 8}}, Dims{4, {scale / 64, 3, 8, 8}}, {}, {}, {}},
            ProfileRecord::Input{kShapeInput, Dims{1, {2}}, Dims{1, {2}}, Dims{1, {2}}, {1, 1}, {2, 2}, {3, 4}},
        };
        profile.offsets.assign(model.tensors.size(), -1);
        for (int32_t t = outputOf(0); t < nbTensors - 2; ++t)
        {
            // Sixteen slots, shared by every sixteenth tensor: the block stays 16 * scale bytes as kinds are added.
            profile.offsets[static_cast<std::size_t>(t)] = (t - outputOf(0)) % 16 * scale;
        }
        profile.activationBytes = 16 * scale;
        model.profiles.push_back(std::move(profile));
    }
    model.deviceMemorySize = 16 * 512;
    model.profilingVerbosity = nvinfer1::ProfilingVerbosity::kDETAILED; // round-trips (format 4.2)
    // A plugin library the plan carries (format 4.4), with a creator of each kind.
    PluginLibraryRecord library;
    library.name = "libsample_plugins.so";
    library.bytes = iotaBytes(64, 9);
    library.checksum = pluginLibraryChecksum(library.bytes);
    library.creators = {PluginCreatorRecord{PluginIdentity{"SampleV3", "1", ""}, PluginCreatorRecord::Kind::kV3},
        PluginCreatorRecord{PluginIdentity{"SampleV2", "2", "sample_ns"}, PluginCreatorRecord::Kind::kV2}};
    model.pluginLibraries.push_back(std::move(library));
    return model;
}

// ---- Comparing models ---------------------------------------------------------------------------------------------

//! Every field of a layer's parameters as text (weights by their type, count and bytes), to compare and to show.
class ParamsText
{
public:
    explicit ParamsText(LayerParams const& params)
    {
        std::visit([this](auto const& p) { add(p); }, params);
    }
    std::string str() const { return mOut.str(); }

private:
    void field(char const* name, Dims const& dims)
    {
        mOut << name << "=" << dims.nbDims << "{";
        for (int32_t i = 0; i < dims.nbDims && i < Dims::MAX_DIMS; ++i)
        {
            mOut << dims.d[i] << ",";
        }
        mOut << "} ";
    }
    void field(char const* name, Weights const& weights)
    {
        mOut << name << "=" << static_cast<int32_t>(weights.type) << "x" << weights.count << "{";
        auto const* bytes = static_cast<uint8_t const*>(weights.values);
        for (int64_t i = 0; i < storageBytes(weights.type, weights.count); ++i)
        {
            mOut << static_cast<int32_t>(bytes[i]) << ",";
        }
        mOut << "} ";
    }
    void field(char const* name, std::vector<float> const& values)
    {
        mOut << name << "={";
        for (float const value : values)
        {
            mOut << std::setprecision(9) << value << ",";
        }
        mOut << "} ";
    }
    void field(char const* name, nvinfer1::Permutation const& permutation)
    {
        mOut << name << "={";
        for (int32_t entry : permutation.order)
        {
            mOut << entry << ",";
        }
        mOut << "} ";
    }
    template <typename T>
    void field(char const* name, T value)
    {
        if constexpr (std::is_enum_v<T>)
        {
            mOut << name << "=" << static_cast<int64_t>(value) << " ";
        }
        else
        {
            mOut << name << "=" << std::setprecision(17) << value << " ";
        }
    }

    //! The fields plan/params_fields.h lists (held there to every member); plugin layers by their kind alone.
    template <typename P>
    void add(P const& p)
    {
        forEachField(p, [this](char const* name, auto const& value) { field(name, value); });
    }
    void add(PluginV2Params const&) { mOut << "plugin V2"; }
    void add(PluginV3Params const&) { mOut << "plugin V3"; }

    std::ostringstream mOut;
};

std::string paramsText(LayerParams const& params)
{
    return ParamsText(params).str();
}

void expectSameModel(EngineModel const& expected, EngineModel const& actual)
{
    EXPECT_EQ(actual.name, expected.name);
    EXPECT_EQ(actual.backend, expected.backend);
    EXPECT_EQ(actual.exprs, expected.exprs);
    EXPECT_EQ(actual.symbols, expected.symbols);
    EXPECT_EQ(actual.tensors, expected.tensors);
    ASSERT_EQ(actual.layers.size(), expected.layers.size());
    for (std::size_t l = 0; l < expected.layers.size(); ++l)
    {
        SCOPED_TRACE("layer " + std::to_string(l) + " " + expected.layers[l].name);
        LayerRecord const& a = actual.layers[l];
        LayerRecord const& e = expected.layers[l];
        EXPECT_EQ(a.name, e.name);
        EXPECT_EQ(a.type, e.type);
        EXPECT_EQ(a.inputs, e.inputs);
        EXPECT_EQ(a.outputs, e.outputs);
        EXPECT_EQ(a.params.index(), e.params.index());
        EXPECT_EQ(paramsText(a.params), paramsText(e.params));
        EXPECT_EQ(a.metadata, e.metadata);
        EXPECT_EQ(a.tactic, e.tactic);
        EXPECT_EQ(a.tacticName, e.tacticName);
        EXPECT_EQ(a.pointwise, e.pointwise);
        EXPECT_EQ(a.scale, e.scale);
        EXPECT_EQ(a.refit, e.refit);
        ASSERT_EQ(a.epilogue.has_value(), e.epilogue.has_value());
        if (e.epilogue)
        {
            EXPECT_EQ(a.epilogue->type, e.epilogue->type);
            EXPECT_EQ(a.epilogue->alpha, e.epilogue->alpha);
            EXPECT_EQ(a.epilogue->beta, e.epilogue->beta);
        }
    }
    EXPECT_EQ(actual.assertions, expected.assertions);
    EXPECT_EQ(actual.ioTensors, expected.ioTensors);
    EXPECT_EQ(actual.nbInputs, expected.nbInputs);
    EXPECT_EQ(actual.profiles, expected.profiles);
    EXPECT_EQ(actual.weights, expected.weights);
    EXPECT_EQ(actual.deviceMemorySize, expected.deviceMemorySize);
    EXPECT_EQ(actual.refit, expected.refit);
    EXPECT_EQ(actual.profilingVerbosity, expected.profilingVerbosity);
    EXPECT_EQ(actual.pluginLibraries, expected.pluginLibraries);
}

std::vector<uint8_t> encoded(EngineModel const& model)
{
    auto plan = encodeEngine(model);
    EXPECT_TRUE(plan.ok()) << plan.error().message;
    return plan.ok() ? plan.value() : std::vector<uint8_t>{};
}

std::string decodeMessage(std::vector<uint8_t> const& plan)
{
    auto model = decodeEngine(plan.data(), plan.size());
    return model.ok() ? std::string("(accepted)") : model.error().message;
}

//! The plan a hostile writer makes: the model encoded without its checks, in a valid envelope.
std::vector<uint8_t> hostilePlan(EngineModel const& model)
{
    auto payload = encodePayload(model);
    EXPECT_TRUE(payload.ok()) << payload.error().message;
    return writePlan(PlanInfo{model.backend}, payload.ok() ? payload.value() : std::vector<uint8_t>{});
}

// ---- Round trips --------------------------------------------------------------------------------------------------

TEST(PlanEngineCodec, SampleHasEveryKindThePlanHolds)
{
    EngineModel const model = sampleModel();
    ASSERT_EQ(modelProblem(model), std::nullopt) << *modelProblem(model);
    for (LayerKindInfo const& kind : kLayerKinds)
    {
        bool const plugin = kind.type == LayerType::kPLUGIN_V2 || kind.type == LayerType::kPLUGIN_V3;
        bool const present = std::any_of(model.layers.begin(), model.layers.end(),
            [&kind](LayerRecord const& layer) { return layer.type == kind.type; });
        EXPECT_EQ(present, !plugin) << kind.className;
    }
}

TEST(PlanEngineCodec, RoundTripsEveryField)
{
    EngineModel const model = sampleModel();
    auto const plan = encoded(model);
    auto const view = readPlan(plan.data(), plan.size());
    ASSERT_TRUE(view.ok()) << view.error().message;
    EXPECT_EQ(view.value().info.backend, PlanBackend::kCUDA);

    auto decoded = decodeEngine(plan.data(), plan.size());
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    expectSameModel(model, decoded.value());
}

TEST(PlanEngineCodec, DecodedWeightsPointIntoTheDecodedBlobs)
{
    EngineModel const model = sampleModel();
    auto const plan = encoded(model);
    auto decoded = decodeEngine(plan.data(), plan.size());
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    EngineModel const loaded = std::move(decoded.value()); // Moving keeps the pointers valid.
    auto const& convolution = std::get<ConvolutionParams>(loaded.layers[0].params);
    EXPECT_EQ(convolution.kernel.values, loaded.weights[0].bytes.data());
    EXPECT_EQ(convolution.bias.values, loaded.weights[1].bytes.data());
    auto const& constant = std::get<ConstantParams>(loaded.layers[12].params);
    EXPECT_EQ(constant.weights.values, loaded.weights[3].bytes.data() + 8);
    EXPECT_EQ(constant.weights.count, 2);
}

TEST(PlanEngineCodec, EmptyWeightsKeepTheirType)
{
    EngineModel model = sampleModel();
    std::get<ConvolutionParams>(model.layers[0].params).bias = Weights{DataType::kHALF, nullptr, 0};
    auto const plan = encoded(model);
    auto decoded = decodeEngine(plan.data(), plan.size());
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    Weights const bias = std::get<ConvolutionParams>(decoded.value().layers[0].params).bias;
    EXPECT_EQ(bias.type, DataType::kHALF);
    EXPECT_EQ(bias.count, 0);
    EXPECT_EQ(bias.values, nullptr);
}

TEST(PlanEngineCodec, EncodingIsDeterministicAndStable)
{
    EngineModel const model = sampleModel();
    auto const plan = encoded(model);
    EXPECT_EQ(encoded(sampleModel()), plan);
    auto decoded = decodeEngine(plan.data(), plan.size());
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    EXPECT_EQ(encoded(decoded.value()), plan) << "decode then encode gives the same bytes";
}

TEST(PlanEngineCodec, ThePlanIsTheEnvelopeAroundThePayloadWhereverTheBlobsAre)
{
    EngineModel const model = sampleModel();
    auto const plan = encoded(model);
    auto const payload = encodePayload(model);
    ASSERT_TRUE(payload.ok()) << payload.error().message;
    EXPECT_EQ(writePlan(PlanInfo{model.backend}, payload.value()), plan);

    // The same model with blobs that borrow their bytes (as a built model does): moving the vectors out keeps the
    // addresses the layers point at.
    EngineModel borrowing = sampleModel();
    std::vector<std::vector<uint8_t>> storage;
    storage.reserve(borrowing.weights.size());
    for (WeightsBlob& blob : borrowing.weights)
    {
        storage.push_back(std::move(blob.bytes));
        blob = WeightsBlob::borrow(blob.type, blob.count, storage.back());
    }
    EXPECT_EQ(borrowing.weights, model.weights);
    auto const borrowed = encodePlan(borrowing);
    ASSERT_TRUE(borrowed.ok()) << borrowed.error().message;
    EXPECT_TRUE(std::ranges::equal(borrowed.value().bytes, plan));
}

TEST(PlanEngineCodec, RoundTripsAMinimalHostEngine)
{
    EngineModel model;
    model.exprs = {ExprRecord{.kind = Kind::kCONSTANT, .value = 5}};
    model.tensors = {tensorRecord("in", DataType::kHALF, {0}), tensorRecord("out", DataType::kHALF, {0})};
    model.tensors[0].isInput = true;
    model.tensors[1].isOutput = true;
    model.tensors[1].producer = 0;
    LayerRecord identity;
    identity.name = "copy";
    identity.type = LayerType::kIDENTITY;
    identity.inputs = {0};
    identity.outputs = {1};
    identity.params = IdentityParams{};
    model.layers.push_back(std::move(identity));
    model.ioTensors = {0, 1};
    model.nbInputs = 1;
    model.profiles
        = {ProfileRecord{{ProfileRecord::Input{0, Dims{1, {5}}, Dims{1, {5}}, Dims{1, {5}}, {}, {}, {}}}, {-1, -1}, 0}};
    auto const plan = encoded(model);
    auto decoded = decodeEngine(plan.data(), plan.size());
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    EXPECT_EQ(decoded.value().backend, PlanBackend::kHOST);
    expectSameModel(model, decoded.value());
}

TEST(PlanEngineCodec, DecodesAPlanAtAnyAlignment)
{
    EngineModel const model = sampleModel();
    auto const plan = encoded(model);
    for (std::size_t shift = 1; shift < 8; ++shift)
    {
        std::vector<uint8_t> buffer(plan.size() + shift);
        std::memcpy(buffer.data() + shift, plan.data(), plan.size());
        auto decoded = decodeEngine(buffer.data() + shift, plan.size());
        ASSERT_TRUE(decoded.ok()) << "shift " << shift << ": " << decoded.error().message;
        expectSameModel(model, decoded.value());
    }
}

// ---- Writing what the format cannot hold ----------------------------------------------------------------------------

TEST(PlanEngineCodec, RoundTripsPluginLayers)
{
    for (bool const v3 : {false, true})
    {
        EngineModel model = sampleModel();
        LayerRecord& layer = model.layers[13];
        layer.type = v3 ? LayerType::kPLUGIN_V3 : LayerType::kPLUGIN_V2;
        PluginPlanRecord plan;
        if (v3)
        {
            plan.fields = {PluginFieldRecord{"scale", nvinfer1::PluginFieldType::kFLOAT32, 1, {0, 0, 128, 63}},
                PluginFieldRecord{"blob", nvinfer1::PluginFieldType::kUNKNOWN, 3, {1, 2, 3}},
                PluginFieldRecord{"none", nvinfer1::PluginFieldType::kINT32, 0, {}}};
            plan.tactic = 7;
            plan.aliasedInputs = {0};
            PluginV3Params params;
            params.identity = PluginIdentity{"Pad", "2", "ns"};
            params.nbInputs = 1;
            params.outputTypes = {DataType::kFLOAT};
            params.plan = plan;
            params.plan.workspaceBytes = 4096;
            layer.params = std::move(params);
        }
        else
        {
            PluginV2Params params;
            params.identity = PluginIdentity{"Bar", "1", ""};
            params.level = 3;
            params.outputTypes = {DataType::kFLOAT};
            params.plan.serialized = {9, 8, 7};
            layer.params = std::move(params);
        }
        ASSERT_EQ(modelProblem(model), std::nullopt);
        auto const bytes = encoded(model);
        auto decoded = decodeEngine(bytes.data(), bytes.size());
        ASSERT_TRUE(decoded.ok()) << decoded.error().message;
        LayerParams const& read = decoded.value().layers[13].params;
        if (v3)
        {
            auto const& p = std::get<PluginV3Params>(read);
            auto const& q = std::get<PluginV3Params>(model.layers[13].params);
            EXPECT_EQ(p.identity, q.identity);
            EXPECT_EQ(p.nbInputs, 1);
            EXPECT_EQ(p.nbShapeInputs, 0);
            EXPECT_EQ(p.outputTypes, q.outputTypes);
            EXPECT_EQ(p.plan, q.plan);
            EXPECT_EQ(p.plugin, nullptr);
        }
        else
        {
            auto const& p = std::get<PluginV2Params>(read);
            auto const& q = std::get<PluginV2Params>(model.layers[13].params);
            EXPECT_EQ(p.identity, q.identity);
            EXPECT_EQ(p.level, 3);
            EXPECT_EQ(p.plan, q.plan);
        }
    }
}

// An ahead-of-time kernel (format 4.6) keeps every field: name, PTX, its expression nodes, launch values and scalars.
TEST(PlanEngineCodec, RoundTripsAnAotKernel)
{
    EngineModel model = sampleModel();
    LayerRecord& layer = model.layers[13];
    layer.type = LayerType::kPLUGIN_V3;
    PluginV3Params params;
    params.identity = PluginIdentity{"scale", "1", "demo"};
    params.nbInputs = 1;
    params.outputTypes = {DataType::kFLOAT};
    params.plan.tactic = 3;
    AotKernelRecord aot;
    aot.kernelName = "scale_rows";
    aot.ptx = ".version 8.0\n.target sm_90\n";
    using NodeKind = AotExprNode::Kind;
    aot.nodes = {AotExprNode{NodeKind::kEXTENT, 0, 0, 0}, AotExprNode{NodeKind::kCONSTANT, 128},
        AotExprNode{NodeKind::kOPERATION, 0, 0, 0, nvinfer1::DimensionOperation::kCEIL_DIV, 0, 1},
        AotExprNode{NodeKind::kCONSTANT, 1}, AotExprNode{NodeKind::kCONSTANT, -5}};
    aot.launch = {2, 3, 3, 1, 3, 3, 4};
    aot.scalars = {0, 4, 2};
    params.plan.aot = aot;
    layer.params = std::move(params);
    ASSERT_EQ(modelProblem(model), std::nullopt);
    auto const bytes = encoded(model);
    auto decoded = decodeEngine(bytes.data(), bytes.size());
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    auto const& read = std::get<PluginV3Params>(decoded.value().layers[13].params);
    ASSERT_TRUE(read.plan.aot.has_value());
    EXPECT_EQ(*read.plan.aot, aot);
    EXPECT_EQ(read.plan.tactic, 3);
    // A V2 plugin layer never holds one.
    EngineModel v2 = sampleModel();
    v2.layers[13].type = LayerType::kPLUGIN_V2;
    PluginV2Params v2params;
    v2params.identity = PluginIdentity{"Bar", "1", ""};
    v2params.outputTypes = {DataType::kFLOAT};
    v2params.plan.aot = aot;
    v2.layers[13].params = std::move(v2params);
    ASSERT_TRUE(modelProblem(v2).has_value());
    EXPECT_NE(modelProblem(v2)->find("an AOT kernel"), std::string::npos) << *modelProblem(v2);
}

// An engine runs the variant the builder chose by its name, wherever the machine's libraries list it now; by the
// recorded index only for plans without a name; the default where neither is there.
TEST(PlanEngineCodec, ChosenTacticFollowsTheRecordedName)
{
    std::vector<std::string> const built = {"algo 4", "algo 7", "algo 2"};
    std::vector<std::string> const reordered = {"algo 2", "algo 4", "algo 9", "algo 7"};
    LayerRecord layer;
    layer.tactic = 1;
    layer.tacticName = built[1];
    EXPECT_EQ(chosenTactic(layer, built), 1);
    EXPECT_EQ(chosenTactic(layer, reordered), 3);
    EXPECT_EQ(chosenTactic(layer, std::vector<std::string>{"algo 2", "algo 4"}), 0) << "gone: the default";
    layer.tactic = 7; // A stale index with a name still found.
    EXPECT_EQ(chosenTactic(layer, reordered), 3);

    LayerRecord unnamed; // A plan written before names were recorded.
    unnamed.tactic = 2;
    EXPECT_EQ(chosenTactic(unnamed, reordered), 2);
    EXPECT_EQ(chosenTactic(unnamed, built), 2);
    EXPECT_EQ(chosenTactic(unnamed, std::vector<std::string>{"only"}), 0);
    unnamed.tactic = -3;
    EXPECT_EQ(chosenTactic(unnamed, reordered), 0);
    EXPECT_EQ(chosenTactic(LayerRecord{}, std::vector<std::string>(1)), 0);
}

// The timing cache's problem text of a layer (tacticProblemText): layers that differ only in their names and their
// weights' values give one text, so a build times them once; whatever a variant's time depends on changes it.
TEST(PlanEngineCodec, TacticProblemsDifferOnlyInWhatTheTimesDependOn)
{
    // Tensors t0..t5 of kHALF in kLINEAR, then the one change a case makes.
    auto const modelWith = [](std::function<void(EngineModel&)> const& change) {
        EngineModel model;
        for (int32_t t = 0; t < 6; ++t)
        {
            TensorRecord tensor;
            tensor.name = "t" + std::to_string(t);
            tensor.type = DataType::kHALF;
            model.tensors.push_back(tensor);
        }
        change(model);
        return model;
    };
    EngineModel const model = modelWith([](EngineModel&) {});
    std::vector<float> const weightsA(64 * 3 * 9, 0.5F);
    std::vector<float> const weightsB(64 * 3 * 9, -2.F);
    // A 3x3 convolution of 64 maps, then the one change a case makes.
    auto const convolution = [&](std::string name, int32_t input, int32_t output, std::vector<float> const& values,
                                 std::function<void(LayerRecord&, ConvolutionParams&)> const& change) {
        LayerRecord layer;
        layer.name = std::move(name);
        layer.type = LayerType::kCONVOLUTION;
        layer.inputs = {input};
        layer.outputs = {output};
        ConvolutionParams params;
        params.nbOutputMaps = 64;
        params.kernelSize = Dims{2, {3, 3}};
        params.stride = Dims{2, {1, 1}};
        params.prePadding = Dims{2, {1, 1}};
        params.postPadding = Dims{2, {1, 1}};
        params.dilation = Dims{2, {1, 1}};
        params.kernel = Weights{DataType::kFLOAT, values.data(), static_cast<int64_t>(values.size())};
        change(layer, params);
        layer.params = params;
        return layer;
    };
    auto const same = [](LayerRecord&, ConvolutionParams&) {};
    std::vector<std::string> const names = {"engine 0", "engine 3", "engine 7"};
    std::vector<Dims> const in{Dims{4, {8, 3, 56, 56}}};
    Dims const out{4, {8, 64, 56, 56}};
    LayerRecord const first = convolution("conv1", 0, 1, weightsA, same);
    std::string const text = tacticProblemText(first, model, in, out, names);
    EXPECT_EQ(tacticProblemText(convolution("conv7", 2, 3, weightsB, same), model, in, out, names), text);

    LayerRecord const strided = convolution("s", 0, 1, weightsA, [](LayerRecord&, ConvolutionParams& p) {
        p.stride = Dims{2, {2, 2}};
    });
    EXPECT_NE(tacticProblemText(strided, model, in, out, names), text) << "the stride alone";
    LayerRecord const grouped
        = convolution("g", 0, 1, weightsA, [](LayerRecord&, ConvolutionParams& p) { p.nbGroups = 3; });
    EXPECT_NE(tacticProblemText(grouped, model, in, out, names), text);
    LayerRecord const activated = convolution("a", 0, 1, weightsA, [](LayerRecord& layer, ConvolutionParams&) {
        layer.epilogue = ActivationParams{nvinfer1::ActivationType::kRELU, 0.F, 0.F};
    });
    EXPECT_NE(tacticProblemText(activated, model, in, out, names), text);
    EXPECT_NE(tacticProblemText(first, model, std::vector<Dims>{Dims{4, {16, 3, 56, 56}}}, out, names), text);
    EXPECT_NE(tacticProblemText(first, model, in, out, std::vector<std::string>{"engine 0", "engine 3"}), text);
    EXPECT_NE(
        tacticProblemText(first, model, in, out, std::vector<std::string>{"engine 0", "engine 7", "engine 3"}), text)
        << "the order of the variants: a recorded choice is found by its name, but the list is the library's answer";
    EngineModel const channelsLast
        = modelWith([](EngineModel& m) { m.tensors[0].format = nvinfer1::TensorFormat::kHWC8; });
    EXPECT_NE(tacticProblemText(first, channelsLast, in, out, names), text);
    EngineModel const single = modelWith([](EngineModel& m) { m.tensors[1].type = DataType::kFLOAT; });
    EXPECT_NE(tacticProblemText(first, single, in, out, names), text);

    // q [4096, 768] times k^T, a residual and no bias, then the one change a case makes.
    auto const product = [](std::function<void(LayerRecord&, MatrixMultiplyParams&)> const& change) {
        LayerRecord layer;
        layer.type = LayerType::kMATRIX_MULTIPLY;
        layer.inputs = {0, 1, kNoTensor, 2};
        layer.outputs = {3};
        MatrixMultiplyParams ops;
        ops.ops[1] = nvinfer1::MatrixOperation::kTRANSPOSE;
        change(layer, ops);
        layer.params = ops;
        return layer;
    };
    std::vector<Dims> const operands{Dims{2, {4096, 768}}, Dims{2, {2304, 768}}, Dims{-1, {}}, Dims{2, {4096, 2304}}};
    Dims const result{2, {4096, 2304}};
    std::string const productText
        = tacticProblemText(product([](LayerRecord&, MatrixMultiplyParams&) {}), model, operands, result, names);
    EXPECT_NE(productText, text);
    EXPECT_NE(tacticProblemText(
                  product([](LayerRecord&, MatrixMultiplyParams& p) { p.ops[1] = nvinfer1::MatrixOperation::kNONE; }),
                  model, operands, result, names),
        productText);
    EXPECT_NE(tacticProblemText(product([](LayerRecord& layer, MatrixMultiplyParams&) { layer.scale = 0.125F; }), model,
                  operands, result, names),
        productText);
    EXPECT_NE(tacticProblemText(product([](LayerRecord& layer, MatrixMultiplyParams&) {
        layer.inputs = {0, 1, kNoTensor, kNoTensor};
    }),
                  model, operands, result, names),
        productText)
        << "without the residual";
}

TEST(PlanEngineCodec, ChecksTacticsAndFusedActivations)
{
    EngineModel negative = sampleModel();
    negative.layers[0].tactic = -1;
    EXPECT_THAT(modelProblem(negative).value_or("(none)"), HasSubstr("has tactic -1; tactics are 0 or more"));

    EngineModel host = sampleModel();
    host.backend = PlanBackend::kHOST;
    EXPECT_THAT(modelProblem(host).value_or("(none)"),
        HasSubstr("has a fused activation; only a CUDA engine's convolutions and matrix multiplies have one"));

    EngineModel elsewhere = sampleModel();
    ASSERT_NE(elsewhere.layers[1].type, LayerType::kCONVOLUTION);
    elsewhere.layers[1].epilogue = ActivationParams{nvinfer1::ActivationType::kRELU};
    EXPECT_THAT(modelProblem(elsewhere).value_or("(none)"), HasSubstr("layer 1"));

    EngineModel unknown = sampleModel();
    unknown.layers[0].epilogue->type = static_cast<nvinfer1::ActivationType>(99);
    EXPECT_THAT(modelProblem(unknown).value_or("(none)"), HasSubstr("fused activation of type 99"));
}

TEST(PlanEngineCodec, ChecksFusedProgramsScalesAndResiduals)
{
    auto const problem = [](auto change) {
        EngineModel model = sampleModel();
        change(model);
        return modelProblem(model).value_or("(none)");
    };
    EXPECT_EQ(problem([](EngineModel&) {}), "(none)");
    EXPECT_THAT(problem([](EngineModel& m) {
        m.backend = PlanBackend::kHOST;
        m.layers[0].epilogue.reset();
    }),
        HasSubstr("has a fused point-wise program; only CUDA engines have them"));
    EXPECT_THAT(problem([](EngineModel& m) { m.layers[6].pointwise[1].a = -2; }),
        HasSubstr("step 1 reads operand -2, which is neither one of the 2 inputs nor an earlier step"));
    EXPECT_THAT(problem([](EngineModel& m) { m.layers[6].pointwise[0].b = 2; }), HasSubstr("step 0 reads operand 2"));
    EXPECT_THAT(problem([](EngineModel& m) {
        m.layers[6].pointwise[0].op = static_cast<int32_t>(nvinfer1::ElementWiseOperation::kEQUAL);
    }),
        HasSubstr("which a point-wise program does not compute"));
    EXPECT_THAT(
        problem([](EngineModel& m) { m.layers[6].pointwise[1].b = 1; }), HasSubstr("only element-wise steps take one"));
    EXPECT_THAT(
        problem([](EngineModel& m) { m.layers[6].pointwise.assign(kMaxPointwiseSteps + 1, m.layers[6].pointwise[0]); }),
        HasSubstr("programs have 1 to"));
    EXPECT_THAT(problem([](EngineModel& m) { m.layers[7].pointwise = m.layers[6].pointwise; }), HasSubstr("layer 7"));
    EXPECT_THAT(problem([](EngineModel& m) { m.layers[5].scale = 2.F; }),
        HasSubstr("only a CUDA engine's matrix multiplies have one"));
    // A fused matrix multiply: bias absent, residual present.
    EXPECT_EQ(problem([](EngineModel& m) {
        m.layers[11].inputs = {m.layers[11].inputs[0], m.layers[11].inputs[0], kNoTensor, m.layers[11].inputs[0]};
    }),
        "(none)");
    EXPECT_THAT(problem([](EngineModel& m) { m.layers[11].inputs.resize(5, m.layers[11].inputs[0]); }),
        HasSubstr("has 5 inputs; the kind takes"));
    // A convolution with a fused residual (input 3): of its output's type and format, in a CUDA engine only.
    EXPECT_EQ(problem([](EngineModel& m) { m.layers[0].inputs = {kX, kNoTensor, kNoTensor, kX}; }), "(none)");
    EXPECT_THAT(problem([](EngineModel& m) {
        m.layers[0].inputs = {kX, kNoTensor, kNoTensor, kShapeInput};
    }),
        HasSubstr("layer 0 (\"conv\") (IConvolutionLayer) has a fused residual (input 3) that is absent or differs "
                  "from its output in type or format"));
    EXPECT_THAT(problem([](EngineModel& m) {
        m.layers[0].inputs = {kX, kNoTensor, kNoTensor, kNoTensor};
    }),
        HasSubstr("has a fused residual (input 3) that is absent"));
    EXPECT_THAT(problem([](EngineModel& m) {
        m.backend = PlanBackend::kHOST;
        for (LayerRecord& layer : m.layers)
        {
            layer.epilogue.reset();
            layer.pointwise.clear();
        }
        m.layers[0].inputs = {kX, kNoTensor, kNoTensor, kX};
    }),
        HasSubstr("(IConvolutionLayer) has 4 inputs; the kind takes 1 to 3"));
}

TEST(PlanEngineCodec, ChecksPluginRecords)
{
    auto const problem = [](auto change) {
        EngineModel model = sampleModel();
        LayerRecord& layer = model.layers[13];
        layer.type = LayerType::kPLUGIN_V3;
        PluginV3Params params;
        params.identity = PluginIdentity{"Pad", "1", ""};
        params.nbInputs = 1;
        params.outputTypes = {DataType::kFLOAT};
        change(params);
        layer.params = std::move(params);
        return modelProblem(model).value_or("(none)");
    };
    std::string const at = "layer 13 (\"identity\") (IPluginV3Layer) ";
    EXPECT_EQ(problem([](PluginV3Params&) {}), "(none)");
    EXPECT_EQ(problem([](PluginV3Params& p) { p.identity.name.clear(); }), at + "has a plugin with an empty name");
    EXPECT_EQ(problem([](PluginV3Params& p) { p.identity.version = std::string(1024, 'v'); }),
        at + "has a plugin identity string of 1024 bytes or with a NUL inside; they are at most 1023 bytes");
    EXPECT_EQ(problem([](PluginV3Params& p) { p.nbShapeInputs = 1; }),
        at + "has 1 inputs but records 1 data and 1 shape inputs");
    EXPECT_EQ(problem([](PluginV3Params& p) { p.outputTypes.push_back(DataType::kHALF); }),
        at + "records 2 output types for 1 outputs");
    EXPECT_EQ(problem([](PluginV3Params& p) {
        p.plan.fields = {PluginFieldRecord{"f", nvinfer1::PluginFieldType{99}, 1, {0}}};
    }),
        at + "plugin field \"f\" has the unknown type 99");
    EXPECT_EQ(problem([](PluginV3Params& p) {
        p.plan.fields = {PluginFieldRecord{"f", nvinfer1::PluginFieldType::kINT32, 2, {0, 0, 0, 0}}};
    }),
        at + "plugin field \"f\" holds 4 bytes; 2 elements of kINT32 take 8");
    EXPECT_EQ(problem([](PluginV3Params& p) { p.plan.workspaceBytes = -1; }),
        at + "has the negative plugin workspace size -1");
    EXPECT_EQ(problem([](PluginV3Params& p) { p.plan.aliasedInputs = {1}; }),
        at + "has an output aliasing input 1; aliased inputs are distinct data inputs");
    EXPECT_EQ(problem([](PluginV3Params& p) {
        p.plan.aliasedInputs = {0, 0};
    }),
        at + "records 2 aliased inputs for 1 outputs");
    EXPECT_EQ(problem([](PluginV3Params& p) { p.plan.language = nvinfer1::APILanguage::kPYTHON; }), "(none)");
    EXPECT_EQ(problem([](PluginV3Params& p) { p.plan.language = nvinfer1::APILanguage{2}; }),
        at + "has the plugin API language 2 (0 C++ or 1 Python)");
}

TEST(PlanEngineCodec, ChecksThePluginOutputTypes)
{
    EngineModel model = sampleModel();
    LayerRecord& layer = model.layers[13];
    layer.type = LayerType::kPLUGIN_V3;
    PluginV3Params params;
    params.outputTypes = {DataType::kFLOAT, DataType{20}};
    layer.params = std::move(params);
    EXPECT_EQ(modelProblem(model).value_or("(none)"),
        "layer 13 (\"identity\") (IPluginV3Layer) outputTypes is 20, which is not a valid value");
    layer.outputs.clear();
    EXPECT_EQ(modelProblem(model).value_or("(none)"),
        "layer 13 (\"identity\") (IPluginV3Layer) has 0 outputs; the kind makes 1 or more");
}

TEST(PlanEngineCodec, RefusesWeightsOutsideTheBlobs)
{
    std::array<float, 4> stray{1, 2, 3, 4};
    EngineModel model = sampleModel();
    std::get<ConvolutionParams>(model.layers[0].params).kernel = Weights{DataType::kFLOAT, stray.data(), 4};
    auto const plan = encodeEngine(model);
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.error().message,
        "cannot write the plan: the engine is inconsistent: layer 0 (\"conv\") (IConvolutionLayer) kernel weights (4 "
        "elements of kFLOAT) are not inside one of the engine's 4 weights blobs");
    auto const payload = encodePayload(model);
    ASSERT_FALSE(payload.ok());
    EXPECT_EQ(payload.error().message,
        "cannot write the plan: layer 0 (\"conv\"): kernel weights (4 elements of kFLOAT) are not inside one of the "
        "engine's 4 weights blobs");
}

//! The sample with the kernel and bias of its convolution and deconvolution (which share blobs 0 and 1) refittable
//! (plan/refit.h).
EngineModel refittableSample()
{
    EngineModel model = sampleModel();
    model.refit.mode = RefitRecord::Mode::kREFIT;
    model.refit.weights = {
        RefitWeightsRecord{"conv", nvinfer1::WeightsRole::kKERNEL, "conv.weight", DataType::kFLOAT, 4},
        RefitWeightsRecord{"conv", nvinfer1::WeightsRole::kBIAS, "", DataType::kHALF, 2},
        RefitWeightsRecord{"deconv", nvinfer1::WeightsRole::kKERNEL, "conv.weight", DataType::kFLOAT, 4},
        RefitWeightsRecord{"deconv", nvinfer1::WeightsRole::kBIAS, "", DataType::kHALF, 2},
    };
    model.layers[0].refit = {0, 1};
    auto const deconvolution = std::find_if(model.layers.begin(), model.layers.end(),
        [](LayerRecord const& layer) { return layer.type == LayerType::kDECONVOLUTION; });
    deconvolution->refit = {2, 3};
    return model;
}

TEST(PlanEngineCodec, RoundTripsRefitRecordsAndLeavesRefittableWeightsOutWhenAsked)
{
    EngineModel const model = refittableSample();
    ASSERT_EQ(modelProblem(model), std::nullopt) << *modelProblem(model);
    auto const full = encoded(model);
    auto decoded = decodeEngine(full.data(), full.size());
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    expectSameModel(model, decoded.value());

    auto const stripped = encodeEngine(model, PlanWeights::kNOT_REFITTABLE);
    ASSERT_TRUE(stripped.ok()) << stripped.error().message;
    EXPECT_NE(stripped.value(), full); // Blobs this small save less than their flags take; the engine tests weigh.
    auto loaded = decodeEngine(stripped.value().data(), stripped.value().size());
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    std::vector<WeightsBlob> const& blobs = loaded.value().weights;
    ASSERT_EQ(blobs.size(), 4U);
    EXPECT_TRUE(blobs[0].stripped && blobs[1].stripped);
    EXPECT_EQ(blobs[0].bytes, std::vector<uint8_t>(16, 0)); // Zeros of the blob's size until a refit.
    EXPECT_EQ(blobs[1].bytes, std::vector<uint8_t>(4, 0));
    EXPECT_EQ(blobs[3], model.weights[3]);
    EXPECT_EQ(loaded.value().refit, model.refit);

    // A model built with kSTRIP_PLAN leaves them out as built; kALL keeps them.
    // (Compared by what loads, not by size: the flag itself takes a few bytes of its own.)
    EngineModel strip = refittableSample();
    strip.refit.strip = true;
    auto const asBuilt = encoded(strip);
    auto reloaded = decodeEngine(asBuilt.data(), asBuilt.size());
    ASSERT_TRUE(reloaded.ok()) << reloaded.error().message;
    ASSERT_EQ(reloaded.value().weights.size(), 4U);
    EXPECT_TRUE(reloaded.value().weights[0].stripped && reloaded.value().weights[1].stripped);
    EXPECT_EQ(reloaded.value().weights[3], model.weights[3]);
    auto const kept = encodeEngine(strip, PlanWeights::kALL);
    ASSERT_TRUE(kept.ok()) << kept.error().message;
    auto all = decodeEngine(kept.value().data(), kept.value().size());
    ASSERT_TRUE(all.ok()) << all.error().message;
    ASSERT_EQ(all.value().weights.size(), 4U);
    EXPECT_FALSE(all.value().weights[0].stripped);
    EXPECT_EQ(all.value().weights[0], model.weights[0]);
}

TEST(PlanEngineCodec, RefusesInconsistentRefitRecords)
{
    EngineModel model = refittableSample();
    model.layers[0].refit = {0, 5};
    EXPECT_THAT(decodeMessage(hostilePlan(model)), HasSubstr("weights slot 1 refers to refittable weights 5"));

    model = refittableSample();
    model.refit.weights[1].count = 3;
    EXPECT_THAT(decodeMessage(hostilePlan(model)), HasSubstr("holds 2 elements, but refittable weights 1 have 3"));

    model = refittableSample();
    model.refit.weights[0].role = nvinfer1::WeightsRole::kANY;
    EXPECT_THAT(decodeMessage(hostilePlan(model)), HasSubstr("a role other than kANY"));

    model = refittableSample();
    model.refit.mode = RefitRecord::Mode::kNONE;
    EXPECT_THAT(decodeMessage(hostilePlan(model)), HasSubstr("not refittable lists refittable weights"));

    // A blob left out that weights which cannot be refitted read.
    model = refittableSample();
    model.weights[3].stripped = true;
    EXPECT_THAT(decodeMessage(hostilePlan(model)), HasSubstr("weights blob 3 was left out of the plan"));
}

TEST(PlanEngineCodec, DeconvolutionAndCumulativeRoundTripAsMembers26And27)
{
    EngineModel model = sampleModel();
    auto const plan = encoded(model);
    auto const decoded = decodeEngine(plan.data(), plan.size());
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    LayerRecord const& layer = decoded.value().layers[23];
    EXPECT_EQ(layer.type, LayerType::kDECONVOLUTION);
    auto const& deconvolution = std::get<DeconvolutionParams>(layer.params);
    EXPECT_EQ(deconvolution.nbGroups, 2);
    EXPECT_EQ(deconvolution.paddingMode, nvinfer1::PaddingMode::kSAME_LOWER);
    EXPECT_EQ(deconvolution.kernel.count, 4);
    EXPECT_EQ(deconvolution.bias.type, DataType::kHALF);
    EXPECT_EQ(paramsText(layer.params), paramsText(model.layers[23].params));
    EXPECT_EQ(static_cast<int>(planMember(LayerType::kDECONVOLUTION)), 26);
    EXPECT_EQ(static_cast<int>(planMember(LayerType::kCUMULATIVE)), 27);
    auto const& cumulative = std::get<CumulativeParams>(decoded.value().layers[24].params);
    EXPECT_TRUE(cumulative.exclusive && cumulative.reverse);
    EXPECT_EQ(cumulative.axis, 2);

    std::array<float, 4> stray{1, 2, 3, 4};
    std::get<DeconvolutionParams>(model.layers[23].params).bias = Weights{DataType::kFLOAT, stray.data(), 4};
    EXPECT_EQ(modelProblem(model).value_or("(none)"),
        "layer 23 (\"deconv\") (IDeconvolutionLayer) bias weights (4 elements of kFLOAT) are not inside one of the "
        "engine's 4 weights blobs");
}

TEST(PlanEngineCodec, GridSampleReverseSequenceAndEinsumRoundTripAsMembers28To30)
{
    EngineModel const model = sampleModel();
    auto const plan = encoded(model);
    auto const decoded = decodeEngine(plan.data(), plan.size());
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    EXPECT_EQ(static_cast<int>(planMember(LayerType::kGRID_SAMPLE)), 28);
    EXPECT_EQ(static_cast<int>(planMember(LayerType::kREVERSE_SEQUENCE)), 29);
    EXPECT_EQ(static_cast<int>(planMember(LayerType::kEINSUM)), 30);
    ASSERT_EQ(decoded.value().layers[25].type, LayerType::kGRID_SAMPLE);
    auto const& grid = std::get<GridSampleParams>(decoded.value().layers[25].params);
    EXPECT_EQ(grid.mode, nvinfer1::InterpolationMode::kCUBIC);
    EXPECT_TRUE(grid.alignCorners);
    EXPECT_EQ(grid.sampleMode, nvinfer1::SampleMode::kREFLECT);
    auto const& reverse = std::get<ReverseSequenceParams>(decoded.value().layers[26].params);
    EXPECT_EQ(reverse.batchAxis, 0);
    EXPECT_EQ(reverse.sequenceAxis, 2);
    auto const& einsum = std::get<EinsumParams>(decoded.value().layers[27].params);
    EXPECT_EQ(einsum.equation, "...ii->...i");
    for (std::size_t l = 25; l < 28; ++l)
    {
        EXPECT_EQ(paramsText(decoded.value().layers[l].params), paramsText(model.layers[l].params)) << l;
    }

    // The defaults written by an older writer (fields left out) read as the layer's defaults.
    EngineModel defaults = sampleModel();
    std::get<GridSampleParams>(defaults.layers[25].params) = GridSampleParams{};
    std::get<ReverseSequenceParams>(defaults.layers[26].params) = ReverseSequenceParams{};
    auto const defaultPlan = encoded(defaults);
    auto const again = decodeEngine(defaultPlan.data(), defaultPlan.size());
    ASSERT_TRUE(again.ok()) << again.error().message;
    auto const& defaultGrid = std::get<GridSampleParams>(again.value().layers[25].params);
    EXPECT_EQ(defaultGrid.mode, nvinfer1::InterpolationMode::kLINEAR);
    EXPECT_EQ(defaultGrid.sampleMode, nvinfer1::SampleMode::kFILL);
    EXPECT_EQ(std::get<ReverseSequenceParams>(again.value().layers[26].params).batchAxis, 1);

    // The model checks hold the enumerations to their ranges.
    EngineModel bad = sampleModel();
    std::get<GridSampleParams>(bad.layers[25].params).sampleMode = static_cast<nvinfer1::SampleMode>(9);
    EXPECT_THAT(modelProblem(bad).value_or("(none)"), HasSubstr("layer 25 (\"gridsample\") (IGridSampleLayer)"));
}

TEST(PlanEngineCodec, NonZeroAndNmsRoundTripAsMembers31And32)
{
    EngineModel model = sampleModel();
    auto const plan = encoded(model);
    auto const decoded = decodeEngine(plan.data(), plan.size());
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    EXPECT_EQ(static_cast<int>(planMember(LayerType::kNON_ZERO)), 31);
    EXPECT_EQ(static_cast<int>(planMember(LayerType::kNMS)), 32);
    LayerRecord const& nonZero = decoded.value().layers[28];
    EXPECT_EQ(nonZero.type, LayerType::kNON_ZERO);
    EXPECT_EQ(nonZero.outputs.size(), 2U);
    EXPECT_EQ(std::get<NonZeroParams>(nonZero.params).indicesType, DataType::kINT64);
    LayerRecord const& nms = decoded.value().layers[29];
    EXPECT_EQ(nms.type, LayerType::kNMS);
    EXPECT_EQ(nms.inputs, (std::vector<int32_t>{outputOf(28), outputOf(24), kShapeInput, kNoTensor, outputOf(12)}));
    auto const& params = std::get<NMSParams>(nms.params);
    EXPECT_EQ(params.format, nvinfer1::BoundingBoxFormat::kCENTER_SIZES);
    EXPECT_EQ(params.topKBoxLimit, 123);
    EXPECT_EQ(params.indicesType, DataType::kINT64);

    // A non-zero layer without its count, or a bounding box format outside the enum, is refused.
    EngineModel noCount = sampleModel();
    noCount.layers[28].outputs.pop_back();
    EXPECT_THAT(modelProblem(noCount).value_or("(none)"),
        HasSubstr("layer 28 (\"nonzero\") (INonZeroLayer) has 1 outputs; the kind makes 2"));
    EngineModel badFormat = sampleModel();
    std::get<NMSParams>(badFormat.layers[29].params).format = static_cast<nvinfer1::BoundingBoxFormat>(2);
    EXPECT_THAT(modelProblem(badFormat).value_or("(none)"),
        HasSubstr("layer 29 (\"nms\") (INMSLayer) format is 2, which is not a valid value"));
    EXPECT_FALSE(encodeEngine(badFormat).ok());
}

TEST(PlanEngineCodec, IfConditionalLayersRoundTripAsMembers33To35)
{
    EngineModel model = sampleModel();
    auto const plan = encoded(model);
    auto const decoded = decodeEngine(plan.data(), plan.size());
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    EXPECT_EQ(static_cast<int>(planMember(LayerType::kCONDITION)), 33);
    EXPECT_EQ(static_cast<int>(planMember(LayerType::kCONDITIONAL_INPUT)), 34);
    EXPECT_EQ(static_cast<int>(planMember(LayerType::kCONDITIONAL_OUTPUT)), 35);
    LayerRecord const& condition = decoded.value().layers[30];
    EXPECT_EQ(condition.type, LayerType::kCONDITION);
    EXPECT_EQ(std::get<ConditionParams>(condition.params).conditional, 4);
    EXPECT_EQ(std::get<IfConditionalInputParams>(decoded.value().layers[31].params).conditional, 4);
    LayerRecord const& output = decoded.value().layers[32];
    EXPECT_EQ(output.type, LayerType::kCONDITIONAL_OUTPUT);
    EXPECT_EQ(output.inputs, (std::vector<int32_t>{outputOf(31), outputOf(29), outputOf(30)}));
    EXPECT_EQ(std::get<IfConditionalOutputParams>(output.params).conditional, 4);

    // An output layer without the condition is refused.
    EngineModel noCondition = sampleModel();
    noCondition.layers[32].inputs.pop_back();
    EXPECT_THAT(modelProblem(noCondition).value_or("(none)"),
        HasSubstr("layer 32 (\"conditional output\") (IIfConditionalOutputLayer) has 2 inputs"));
}

TEST(PlanEngineCodec, LoopLayersRoundTripAsMembers36To39)
{
    EngineModel model = sampleModel();
    auto const plan = encoded(model);
    auto const decoded = decodeEngine(plan.data(), plan.size());
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    EXPECT_EQ(static_cast<int>(planMember(LayerType::kTRIP_LIMIT)), 36);
    EXPECT_EQ(static_cast<int>(planMember(LayerType::kRECURRENCE)), 37);
    EXPECT_EQ(static_cast<int>(planMember(LayerType::kITERATOR)), 38);
    EXPECT_EQ(static_cast<int>(planMember(LayerType::kLOOP_OUTPUT)), 39);
    LayerRecord const& recurrence = decoded.value().layers[33];
    EXPECT_EQ(recurrence.inputs, (std::vector<int32_t>{outputOf(32), outputOf(34)})); // the back edge stays
    EXPECT_EQ(std::get<RecurrenceParams>(recurrence.params).loop, 2);
    auto const& iterator = std::get<IteratorParams>(decoded.value().layers[34].params);
    EXPECT_EQ(iterator.axis, 1);
    EXPECT_TRUE(iterator.reverse);
    auto const& output = std::get<LoopOutputParams>(decoded.value().layers[35].params);
    EXPECT_EQ(output.kind, nvinfer1::LoopOutput::kREVERSE);
    EXPECT_EQ(output.axis, 1);
    LayerRecord const& limit = decoded.value().layers[36];
    EXPECT_TRUE(limit.outputs.empty());
    EXPECT_EQ(std::get<TripLimitParams>(limit.params).kind, nvinfer1::TripLimit::kWHILE);

    // A trip limit kind outside the enum is refused.
    EngineModel badKind = sampleModel();
    std::get<TripLimitParams>(badKind.layers[36].params).kind = static_cast<nvinfer1::TripLimit>(7);
    EXPECT_THAT(modelProblem(badKind).value_or("(none)"), HasSubstr("kind is 7, which is not a valid value"));
}

TEST(PlanEngineCodec, RefusesWeightsThatRunPastTheirBlob)
{
    EngineModel model = sampleModel();
    // From byte 8 of blob 3 (24 bytes), 5 floats would need 20.
    std::get<ConstantParams>(model.layers[12].params).weights.count = 5;
    EXPECT_THAT(modelProblem(model).value_or(""),
        HasSubstr("layer 12 (\"constant\") (IConstantLayer) weights (5 elements of kFLOAT) are not inside"));
    EXPECT_FALSE(encodeEngine(model).ok());
    EXPECT_FALSE(encodePayload(model).ok());
}

TEST(PlanEngineCodec, QuantizeDequantizeAndScatterKeepTheirParameters)
{
    auto const plan = encoded(sampleModel());
    auto const decoded = decodeEngine(plan.data(), plan.size());
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    auto const find = [](EngineModel const& m, LayerType type) -> LayerParams const& {
        auto const found = std::find_if(
            m.layers.begin(), m.layers.end(), [type](LayerRecord const& layer) { return layer.type == type; });
        return found->params;
    };
    auto const& quantize = std::get<QuantizeParams>(find(decoded.value(), LayerType::kQUANTIZE));
    EXPECT_EQ(quantize.axis, -3);
    ASSERT_EQ(quantize.blockShape.nbDims, 4);
    EXPECT_EQ(
        std::vector<int64_t>(quantize.blockShape.d, quantize.blockShape.d + 4), (std::vector<int64_t>{1, -1, 2, 4}));
    EXPECT_EQ(quantize.toType, DataType::kINT4);
    auto const& dequantize = std::get<DequantizeParams>(find(decoded.value(), LayerType::kDEQUANTIZE));
    EXPECT_EQ(dequantize.axis, 2);
    EXPECT_EQ(dequantize.blockShape.nbDims, -1);
    EXPECT_EQ(dequantize.toType, DataType::kBF16);
    auto const& scatter = std::get<ScatterParams>(find(decoded.value(), LayerType::kSCATTER));
    EXPECT_EQ(scatter.mode, nvinfer1::ScatterMode::kND);
    EXPECT_EQ(scatter.axis, -2);

    // An output type outside the enum, or a block shape of an impossible rank, is refused on both sides.
    EngineModel badType = sampleModel();
    std::get<QuantizeParams>(badType.layers[20].params).toType = static_cast<DataType>(40);
    EXPECT_THAT(modelProblem(badType).value_or("(none)"), HasSubstr("layer 20 (\"quantize\") (IQuantizeLayer) toType"));
    EXPECT_FALSE(encodeEngine(badType).ok());
    EngineModel badShape = sampleModel();
    std::get<DequantizeParams>(badShape.layers[21].params).blockShape.nbDims = 9;
    EXPECT_THAT(modelProblem(badShape).value_or("(none)"),
        HasSubstr("layer 21 (\"dequantize\") (IDequantizeLayer) blockShape"));
    EXPECT_FALSE(encodeEngine(badShape).ok());
}

TEST(PlanEngineCodec, RefusesResizeScalesThatAreNotPositiveOrTooMany)
{
    auto const resizeOf = [](EngineModel& model) -> ResizeParams& {
        auto const found = std::find_if(model.layers.begin(), model.layers.end(),
            [](LayerRecord const& layer) { return layer.type == LayerType::kRESIZE; });
        return std::get<ResizeParams>(found->params);
    };
    for (float const bad : {0.F, -2.F, std::numeric_limits<float>::infinity(), std::nanf("")})
    {
        EngineModel model = sampleModel();
        resizeOf(model).scales[2] = bad;
        std::string const problem = modelProblem(model).value_or("(none)");
        EXPECT_THAT(problem, StartsWith("layer 19 (\"resize\") (IResizeLayer) scales[2] is "));
        EXPECT_THAT(problem, HasSubstr("; scales are positive and finite"));
        EXPECT_FALSE(encodeEngine(model).ok());
        EXPECT_THAT(decodeMessage(hostilePlan(model)), HasSubstr("scales are positive and finite"));
    }
    EngineModel model = sampleModel();
    resizeOf(model).scales.assign(9, 1.F);
    EXPECT_EQ(
        modelProblem(model).value_or("(none)"), "layer 19 (\"resize\") (IResizeLayer) scales has 9 entries; at most 8");
    EXPECT_THAT(decodeMessage(hostilePlan(model)), HasSubstr("scales has 9 entries; a resize has at most 8"));
}

TEST(PlanEngineCodec, RefusesParametersTheFormatCannotHold)
{
    struct Case
    {
        char const* name;
        std::function<void(ConvolutionParams&)> change;
        char const* problem;      //!< modelProblem's.
        char const* payloadError; //!< encodePayload's, when it cannot write it either.
    };
    std::vector<Case> const cases{
        {"rank 9", [](ConvolutionParams& p) { p.stride.nbDims = 9; }, "stride has rank 9; ranks are -1 (not set) to 8",
            "layer 0 (\"conv\"): stride has rank 9; ranks are -1 (not set) to 8"},
        {"rank -2", [](ConvolutionParams& p) { p.dilation.nbDims = -2; },
            "dilation has rank -2; ranks are -1 (not set) to 8", "dilation has rank -2"},
        {"negative count", [](ConvolutionParams& p) { p.bias.count = -1; }, "bias weights: their count is negative",
            "bias weights (-1 elements of kHALF) are not inside one of the engine's 4 weights blobs"},
        {"bad weights type", [](ConvolutionParams& p) { p.kernel.type = DataType{40}; },
            "kernel weights: their type is not a valid DataType", nullptr},
        {"bad padding mode", [](ConvolutionParams& p) { p.paddingMode = nvinfer1::PaddingMode{9}; },
            "paddingMode is 9, which is not a valid value", nullptr},
    };
    for (Case const& c : cases)
    {
        SCOPED_TRACE(c.name);
        EngineModel model = sampleModel();
        c.change(std::get<ConvolutionParams>(model.layers[0].params));
        EXPECT_EQ(
            modelProblem(model).value_or("(none)"), std::string("layer 0 (\"conv\") (IConvolutionLayer) ") + c.problem);
        auto const plan = encodeEngine(model);
        ASSERT_FALSE(plan.ok());
        EXPECT_THAT(plan.error().message, HasSubstr(c.problem));
        auto const payload = encodePayload(model);
        if (c.payloadError != nullptr)
        {
            ASSERT_FALSE(payload.ok());
            EXPECT_THAT(payload.error().message, HasSubstr(c.payloadError));
        }
        else
        {
            // Written as it is; the reader refuses it.
            ASSERT_TRUE(payload.ok()) << payload.error().message;
            EXPECT_THAT(decodeMessage(writePlan(PlanInfo{model.backend}, payload.value())), HasSubstr(c.problem));
        }
    }
}

TEST(PlanEngineCodec, RefusesToWriteAnUnknownBackend)
{
    EngineModel model = sampleModel();
    model.backend = PlanBackend{7};
    EXPECT_EQ(modelProblem(model).value_or("(none)"), "the engine names an unknown backend (7)");
    EXPECT_FALSE(encodeEngine(model).ok());
}

TEST(PlanEngineCodec, RefusesToWriteAnInconsistentModel)
{
    EngineModel model = sampleModel();
    model.layers[3].inputs[0] = 57;
    auto const plan = encodeEngine(model);
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.error().code, nvinfer1::ErrorCode::kINVALID_ARGUMENT);
    EXPECT_EQ(plan.error().message,
        "cannot write the plan: the engine is inconsistent: layer 3 (\"pooling\") input 0 refers to tensor 57, but "
        "the engine has 41 tensors");
}

// ---- Damaged plans -------------------------------------------------------------------------------------------------

TEST(PlanEngineCodec, RefusesDamagedEnvelopes)
{
    auto const plan = encoded(sampleModel());
    std::vector<uint8_t> truncated(plan.begin(), plan.end() - 1);
    EXPECT_THAT(decodeMessage(truncated), HasSubstr("the plan is truncated"));

    std::vector<uint8_t> flipped = plan;
    flipped[kPlanHeaderSize + flipped.size() / 3] ^= 0x10U;
    EXPECT_THAT(decodeMessage(flipped), HasSubstr("the plan payload is corrupted"));

    EXPECT_THAT(decodeMessage({'T', 'R', 'T'}), HasSubstr("not a kiln plan"));
    auto const nullData = decodeEngine(nullptr, 100);
    ASSERT_FALSE(nullData.ok());
    EXPECT_EQ(nullData.error().code, nvinfer1::ErrorCode::kINVALID_ARGUMENT);
}

TEST(PlanEngineCodec, RefusesPayloadsThatAreNotEngines)
{
    EXPECT_EQ(decodeMessage(writePlan(PlanInfo{}, {})),
        "cannot load the plan: plan payload: it is not a kiln engine (0 bytes, without the identifier \"KLNE\" at "
        "bytes 4-7)");
    std::vector<uint8_t> const other{12, 0, 0, 0, 'A', 'B', 'C', 'D', 0, 0, 0, 0};
    EXPECT_THAT(decodeMessage(writePlan(PlanInfo{}, other)), HasSubstr("it is not a kiln engine (12 bytes, "));

    // The identifier, then nonsense: the verifier refuses it.
    std::vector<uint8_t> const garbage{200, 0, 0, 0, 'K', 'L', 'N', 'E', 1, 2, 3, 4};
    EXPECT_EQ(decodeMessage(writePlan(PlanInfo{}, garbage)),
        "cannot load the plan: plan payload: the FlatBuffers verifier refused it (an offset or a size points outside "
        "the payload, a required field is missing, or it nests too deep)");
}

TEST(PlanEngineCodec, RefusesEveryTruncatedPayload)
{
    auto const payload = encodePayload(sampleModel());
    ASSERT_TRUE(payload.ok());
    std::vector<uint8_t> const& bytes = payload.value();
    for (std::size_t length = 0; length < bytes.size(); length += 7)
    {
        auto const plan = writePlan(PlanInfo{}, std::span(bytes.data(), length));
        EXPECT_THAT(decodeMessage(plan), StartsWith("cannot load the plan: plan payload: ")) << length;
    }
}

// ---- A hostile writer: well-formed payloads of inconsistent models --------------------------------------------------

struct HostileCase
{
    char const* name;
    std::function<void(EngineModel&)> change;
    std::string problem;
};

//! A tensor no layer makes, appended to the sample (with its profile offsets).
int32_t addTensor(EngineModel& model, TensorRecord tensor)
{
    model.tensors.push_back(std::move(tensor));
    for (ProfileRecord& profile : model.profiles)
    {
        profile.offsets.push_back(-1);
    }
    return static_cast<int32_t>(model.tensors.size()) - 1;
}

//! A checksum as the messages show it.
std::string crcText(uint64_t value)
{
    std::ostringstream text;
    text << "0x" << std::hex << std::setw(16) << std::setfill('0') << value;
    return text.str();
}

//! bytes with the bits of mask flipped at index.
std::vector<uint8_t> flipped(std::vector<uint8_t> bytes, std::size_t index, uint8_t mask)
{
    bytes[index] ^= mask;
    return bytes;
}

std::vector<HostileCase> hostileCases()
{
    using P = ProfileRecord;
    return {
        // Weights blobs.
        {"blob type", [](EngineModel& m) { m.weights[2].type = DataType{99}; },
            "weights blob 2 has data type 99, which is not a DataType"},
        {"blob count", [](EngineModel& m) { m.weights[2].count = -1; }, "weights blob 2 has a negative count (-1)"},
        {"blob size", [](EngineModel& m) { m.weights[2].count = 7; },
            "weights blob 2 holds 3 bytes, but 7 elements of kINT4 take 4"},
        {"blob count overflow", [](EngineModel& m) { m.weights[2].count = std::numeric_limits<int64_t>::max() / 4; },
            "weights blob 2 holds 3 bytes, but 2305843009213693951 elements of kINT4 take more than 2^63"},
        // Expressions.
        {"expr kind", [](EngineModel& m) { m.exprs[0].kind = Kind{7}; },
            "expression 0 has kind 7; kinds are 0 (constant), 1 (symbol), 2 (operation)"},
        {"expr symbol", [](EngineModel& m) { m.exprs[kBatch].symbol = 9; },
            "expression 2 refers to symbol 9, but the engine has 3 symbols"},
        {"expr op", [](EngineModel& m) { m.exprs[kBatchPlusOne].op = DimensionOperation{99}; },
            "expression 4 has operation 99, which is not a DimensionOperation"},
        {"expr operand", [](EngineModel& m) { m.exprs[kBatchPlusOne].lhs = kBatchPlusOne; },
            "expression 4 has operands 4 and 0; operands are earlier expressions"},
        {"expr later operand", [](EngineModel& m) { m.exprs[kBatchPlusOne].rhs = 1000; },
            "expression 4 has operands 2 and 1000; operands are earlier expressions"},
        // Tensors.
        {"tensor type", [](EngineModel& m) { m.tensors[3].type = DataType{42}; },
            "tensor 3 (\"t1\") has data type 42, which is not a DataType"},
        {"tensor format", [](EngineModel& m) { m.tensors[3].format = nvinfer1::TensorFormat{77}; },
            "tensor 3 (\"t1\") has format 77, which is not a TensorFormat"},
        {"tensor rank", [](EngineModel& m) { m.tensors[3].shape.resize(9, kOne); },
            "tensor 3 (\"t1\") has rank 9; the largest rank is 8"},
        {"tensor extent", [](EngineModel& m) { m.tensors[3].shape[1] = 99; },
            "tensor 3 (\"t1\") extent 1 refers to expression 99, but the engine has 9 expressions"},
        {"tensor negative extent",
            [](EngineModel& m) {
                m.exprs.push_back(ExprRecord{.kind = Kind::kCONSTANT, .value = -5});
                m.tensors[3].shape[0] = 9;
            },
            "tensor 3 (\"t1\") extent 0 is the constant -5"},
        {"tensor value", [](EngineModel& m) { (*m.tensors[17].values)[0] = 99; },
            "tensor 17 (\"t15\") value 0 refers to expression 99, but the engine has 9 expressions"},
        {"tensor value count", [](EngineModel& m) { m.tensors[17].values->pop_back(); },
            "tensor 17 (\"t15\") has 3 value expressions but 4 elements"},
        {"tensor scale", [](EngineModel& m) { m.tensors[3].scale = -2.F; },
            "tensor 3 (\"t1\") has scale -2; scales are positive and finite"},
        {"tensor scale nan", [](EngineModel& m) { m.tensors[3].scale = std::numeric_limits<float>::quiet_NaN(); },
            "tensor 3 (\"t1\") has scale nan; scales are positive and finite"},
        {"tensor producer", [](EngineModel& m) { m.tensors[3].producer = 40; },
            "tensor 3 (\"t1\") names layer 40 as its producer, but the engine has 37 layers"},
        {"internal shape tensor", [](EngineModel& m) { m.tensors[3].isShapeTensor = true; },
            "tensor 3 (\"t1\") is marked a shape tensor but is not a network input or output"},
        {"shape tensor rank",
            [](EngineModel& m) {
                m.tensors[kShapeInput].shape = {kTwo, kOne};
            },
            "tensor 1 (\"shape\") is a shape tensor of rank 2; shape tensors have rank 0 or 1"},
        // Symbols.
        {"symbol tensor", [](EngineModel& m) { m.symbols[0].tensor = 57; },
            "symbol 0 (\"x.d0\") refers to tensor 57, but the engine has 41 tensors"},
        {"symbol bound", [](EngineModel& m) { m.symbols[2].upperBound = 99; },
            "symbol 2 (\"plugin.size\") has bound expression 99, but the engine has 9 expressions"},
        {"input extent without tensor", [](EngineModel& m) { m.symbols[0].tensor = kNoTensor; },
            "symbol 0 (\"x.d0\") is an input extent, but names no tensor"},
        {"input extent of an internal tensor", [](EngineModel& m) { m.symbols[0].tensor = 3; },
            "symbol 0 (\"x.d0\") is an input extent, but tensor 3 (\"t1\") is not a network input"},
        {"input extent index", [](EngineModel& m) { m.symbols[0].index = 4; },
            "symbol 0 (\"x.d0\") is extent 4 of tensor 0 (\"x\"), which has rank 4"},
        {"shape value type", [](EngineModel& m) { m.symbols[1].tensor = kX; },
            "symbol 1 (\"shape.v0\") is a value of tensor 0 (\"x\") of type kFLOAT; shape values are kINT32 or kINT64"},
        {"shape value index", [](EngineModel& m) { m.symbols[1].index = 2; },
            "symbol 1 (\"shape.v0\") is value 2 of tensor 1 (\"shape\"), which has 2 values"},
        {"symbol kind", [](EngineModel& m) { m.symbols[2].kind = SymbolKind{5}; },
            "symbol 2 (\"plugin.size\") has kind 5; kinds are 0 (input extent), 1 (shape value), 2 (size tensor)"},
        // Layers.
        {"layer type", [](EngineModel& m) { m.layers[1].type = LayerType{99}; },
            "layer 1 (\"cast\") has type 99, which is not a layer kind kiln offers"},
        {"layer type and params", [](EngineModel& m) { m.layers[1].type = LayerType::kACTIVATION; },
            "layer 1 (\"cast\") is an IActivationLayer but holds the parameters of an ICastLayer"},
        {"layer inputs", [](EngineModel& m) { m.layers[1].inputs.push_back(kX); },
            "layer 1 (\"cast\") (ICastLayer) has 2 inputs; the kind takes 1"},
        {"convolution inputs",
            [](EngineModel& m) {
                m.layers[0].inputs = {kX, kX, kX, kX, kX};
            },
            "layer 0 (\"conv\") (IConvolutionLayer) has 5 inputs; the kind takes 1 to 4"},
        {"concatenation inputs", [](EngineModel& m) { m.layers[5].inputs.clear(); },
            "layer 5 (\"concat\") (IConcatenationLayer) has 0 inputs; the kind takes 1 or more"},
        {"layer outputs", [](EngineModel& m) { m.layers[1].outputs.push_back(outputOf(17)); },
            "layer 1 (\"cast\") (ICastLayer) has 2 outputs; the kind makes 1"},
        {"output index", [](EngineModel& m) { m.layers[1].outputs[0] = 57; },
            "layer 1 (\"cast\") output 0 refers to tensor 57, but the engine has 41 tensors"},
        {"output is an input", [](EngineModel& m) { m.layers[1].outputs[0] = kX; },
            "layer 1 (\"cast\") output 0 is tensor 0 (\"x\"), a network input"},
        {"made twice", [](EngineModel& m) { m.layers[2].outputs[0] = outputOf(1); },
            "tensor 3 (\"t1\") is made by both layer 1 (\"cast\") and layer 2 (\"activation\")"},
        {"input index", [](EngineModel& m) { m.layers[3].inputs[0] = 57; },
            "layer 3 (\"pooling\") input 0 refers to tensor 57, but the engine has 41 tensors"},
        {"negative input index", [](EngineModel& m) { m.layers[3].inputs[0] = -7; },
            "layer 3 (\"pooling\") input 0 refers to tensor -7, but the engine has 41 tensors"},
        {"required input absent", [](EngineModel& m) { m.layers[3].inputs[0] = kNoTensor; },
            "layer 3 (\"pooling\") input 0 is absent, but the IPoolingLayer needs it"},
        {"input made later", [](EngineModel& m) { m.layers[3].inputs[0] = outputOf(8); },
            "layer 3 (\"pooling\") input 0 is tensor 10 (\"t8\"), made by layer 8 (\"shuffle\"), which does not run "
            "before it"},
        {"input made by itself", [](EngineModel& m) { m.layers[3].inputs[0] = outputOf(3); },
            "layer 3 (\"pooling\") input 0 is tensor 5 (\"t3\"), made by layer 3 (\"pooling\"), which does not run "
            "before it"},
        {"input made by nobody", [](EngineModel& m) { m.layers[3].inputs[0] = addTensor(m, tensorRecord("orphan")); },
            "layer 3 (\"pooling\") input 0 is tensor 41 (\"orphan\"), which is neither a network input nor made by a "
            "layer"},
        {"parameter enum",
            [](EngineModel& m) { std::get<ActivationParams>(m.layers[2].params).type = nvinfer1::ActivationType{99}; },
            "layer 2 (\"activation\") (IActivationLayer) type is 99, which is not a valid value"},
        {"cast type", [](EngineModel& m) { std::get<CastParams>(m.layers[1].params).toType = DataType{12}; },
            "layer 1 (\"cast\") (ICastLayer) toType is 12, which is not a valid value"},
        {"matrix operation",
            [](EngineModel& m) {
                std::get<MatrixMultiplyParams>(m.layers[11].params).ops[1] = nvinfer1::MatrixOperation{3};
            },
            "layer 11 (\"matmul\") (IMatrixMultiplyLayer) ops[1] is 3, which is not a valid value"},
        {"fill operation",
            [](EngineModel& m) { std::get<FillParams>(m.layers[17].params).op = nvinfer1::FillOperation{-1}; },
            "layer 17 (\"fill\") (IFillLayer) op is -1, which is not a valid value"},
        {"producer of a made tensor", [](EngineModel& m) { m.tensors[3].producer = 2; },
            "tensor 3 (\"t1\") records producer 2, but it is made by layer 1 (\"cast\")"},
        {"producer of an input", [](EngineModel& m) { m.tensors[kX].producer = 0; },
            "tensor 0 (\"x\") records producer 0, but no layer makes it"},
        {"debug tensor without a name", [](EngineModel& m) { m.tensors[4].name.clear(); },
            "tensor 4 (\"\") is a debug tensor without a name; debug tensors are found by name"},
        {"debug tensors named alike", [](EngineModel& m) { m.tensors[5].name = "t2"; },
            "tensor 5 (\"t2\") is a debug tensor named like tensor 4 (\"t2\"); debug tensors' names are distinct"},
        // Assertions.
        {"assertion condition", [](EngineModel& m) { m.assertions[0].condition = 99; },
            "assertion 0 (\"x.d0 + 1 must be positive\") tests expression 99, but the engine has 9 expressions"},
        {"assertion layer", [](EngineModel& m) { m.assertions[1].layer = 37; },
            "assertion 1 (\"a shape-wide condition\") names layer 37, but the engine has 37 layers"},
        // I/O tensors.
        {"input count", [](EngineModel& m) { m.nbInputs = 5; }, "the engine has 5 inputs among 4 I/O tensors"},
        {"negative input count", [](EngineModel& m) { m.nbInputs = -1; },
            "the engine has -1 inputs among 4 I/O tensors"},
        {"I/O index", [](EngineModel& m) { m.ioTensors[2] = 57; },
            "I/O tensor 2 refers to tensor 57, but the engine has 41 tensors"},
        {"I/O twice", [](EngineModel& m) { m.ioTensors[3] = m.ioTensors[2]; },
            "tensor 37 (\"t35\") appears twice among the I/O tensors"},
        {"I/O not marked", [](EngineModel& m) { m.ioTensors[2] = outputOf(3); },
            "I/O tensor 2 is tensor 5 (\"t3\"), which is not marked a network output"},
        {"input not marked", [](EngineModel& m) { std::swap(m.ioTensors[1], m.ioTensors[2]); },
            "I/O tensor 1 is tensor 37 (\"t35\"), which is not marked a network input"},
        {"I/O without name", [](EngineModel& m) { m.tensors[37].name.clear(); },
            "I/O tensor 2 (tensor 37) has no name"},
        {"I/O names", [](EngineModel& m) { m.tensors[37].name = "x"; }, "I/O tensors 0 and 2 are both named \"x\""},
        {"output made by nobody",
            [](EngineModel& m) {
                TensorRecord lost = tensorRecord("lost");
                lost.isOutput = true;
                m.ioTensors.push_back(addTensor(m, lost));
            },
            "network output tensor 41 (\"lost\") is made by no layer"},
        {"marked but not listed", [](EngineModel& m) { m.tensors[outputOf(3)].isOutput = true; },
            "tensor 5 (\"t3\") is marked a network output but is not among the I/O tensors"},
        // Profiles.
        {"no profile", [](EngineModel& m) { m.profiles.clear(); }, "the engine has no optimization profile"},
        {"device memory", [](EngineModel& m) { m.deviceMemorySize = -1; },
            "the engine's device memory size is negative (-1)"},
        {"profile inputs", [](EngineModel& m) { m.profiles[0].inputs.pop_back(); },
            "profile 0 has 1 inputs, but the engine has 2 network inputs"},
        {"profile tensor", [](EngineModel& m) { m.profiles[1].inputs[1].tensor = kX; },
            "profile 1 input 1 is for tensor 0, but network input 1 is tensor 1 (\"shape\")"},
        {"profile rank", [](EngineModel& m) { m.profiles[0].inputs[0].opt.nbDims = 3; },
            "profile 0 input 0 (\"x\"): kOPT has rank 3, but the tensor has rank 4"},
        {"profile order", [](EngineModel& m) { m.profiles[0].inputs[0].min.d[0] = 3; },
            "profile 0 input 0 (\"x\"): extent 0 has kMIN 3, kOPT 2, kMAX 4; they must satisfy 0 <= kMIN <= kOPT <= "
            "kMAX"},
        {"profile negative extent", [](EngineModel& m) { m.profiles[0].inputs[0].min.d[2] = -1; },
            "profile 0 input 0 (\"x\"): extent 2 has kMIN -1, kOPT 8, kMAX 8; they must satisfy 0 <= kMIN <= kOPT <= "
            "kMAX"},
        {"profile value counts", [](EngineModel& m) { m.profiles[0].inputs[1].maxValues.pop_back(); },
            "profile 0 input 1 (\"shape\"): 2 kMIN values, 2 kOPT values and 1 kMAX values"},
        {"values of a data input",
            [](EngineModel& m) {
                P::Input& input = m.profiles[0].inputs[0];
                input.minValues = input.optValues = input.maxValues = {1};
            },
            "profile 0 input 0 (\"x\"): shape values are given, but the tensor is not a shape tensor"},
        {"value count",
            [](EngineModel& m) {
                P::Input& input = m.profiles[0].inputs[1];
                input.minValues.pop_back();
                input.optValues.pop_back();
                input.maxValues.pop_back();
            },
            "profile 0 input 1 (\"shape\"): 1 shape values for a shape tensor of shape [2]"},
        {"fixed extent",
            [](EngineModel& m) {
                P::Input& input = m.profiles[0].inputs[1];
                input.min = input.opt = input.max = Dims{1, {3}};
            },
            "profile 0 input 1 (\"shape\"): extent 0 is fixed at 2, but the profile gives kMIN 3, kOPT 3, kMAX 3"},
        {"value order", [](EngineModel& m) { m.profiles[0].inputs[1].minValues[0] = 9; },
            "profile 0 input 1 (\"shape\"): value 0 has kMIN 9, kOPT 2, kMAX 3; they must satisfy kMIN <= kOPT <= "
            "kMAX"},
        {"activation bytes", [](EngineModel& m) { m.profiles[1].activationBytes = 9000; },
            "profile 1 needs 9000 bytes of activation memory, but the engine's device memory size is 8192"},
        {"negative activation bytes", [](EngineModel& m) { m.profiles[1].activationBytes = -1; },
            "profile 1 needs -1 bytes of activation memory, but the engine's device memory size is 8192"},
        {"offset count", [](EngineModel& m) { m.profiles[0].offsets.pop_back(); },
            "profile 0 has 40 offsets, but the engine has 41 tensors"},
        {"I/O offset", [](EngineModel& m) { m.profiles[0].offsets[kX] = 0; },
            "profile 0 places I/O tensor 0 (\"x\") in the activation block (offset 0); I/O tensors live in the "
            "application's memory"},
        {"offset", [](EngineModel& m) { m.profiles[0].offsets[outputOf(3)] = 5000; },
            "profile 0 places tensor 5 (\"t3\") at offset 5000, outside its activation block of 4096 bytes"},
        {"negative offset", [](EngineModel& m) { m.profiles[1].offsets[outputOf(3)] = -8; },
            "profile 1 places tensor 5 (\"t3\") at offset -8, outside its activation block of 8192 bytes"},
        // Engine settings.
        {"profiling verbosity", [](EngineModel& m) { m.profilingVerbosity = nvinfer1::ProfilingVerbosity{7}; },
            "the profiling verbosity is 7, which is not a valid value"},
        // Plugin libraries (format 4.4).
        {"library name empty", [](EngineModel& m) { m.pluginLibraries[0].name.clear(); },
            "plugin library 0 (\"\") has a name of 0 bytes, empty, too long or with a '/' or NUL inside; a library's "
            "name is its file name, at most 255 bytes"},
        {"library name a path", [](EngineModel& m) { m.pluginLibraries[0].name = "../libx.so"; },
            "plugin library 0 (\"../libx.so\") has a name of 10 bytes, empty, too long or with a '/' or NUL inside; "
            "a library's name is its file name, at most 255 bytes"},
        {"library name too long", [](EngineModel& m) { m.pluginLibraries[0].name = std::string(256, 'l'); },
            "plugin library 0 (\"" + std::string(256, 'l')
                + "\") has a name of 256 bytes, empty, too long or with a '/' or NUL inside; a library's name is its "
                  "file name, at most 255 bytes"},
        {"library name twice",
            [](EngineModel& m) {
                PluginLibraryRecord second = m.pluginLibraries[0];
                second.creators.clear();
                m.pluginLibraries.push_back(std::move(second));
            },
            "plugin library 1 (\"libsample_plugins.so\") has the name of an earlier library; the libraries a plan "
            "carries have distinct names"},
        {"library without bytes",
            [](EngineModel& m) {
                m.pluginLibraries[0].bytes.clear();
                m.pluginLibraries[0].checksum = 0;
            },
            "plugin library 0 (\"libsample_plugins.so\") holds no bytes"},
        {"library checksum", [](EngineModel& m) { m.pluginLibraries[0].checksum = 0x1234; },
            "plugin library 0 (\"libsample_plugins.so\") is corrupted: its 64 bytes have the CRC-64 "
                + crcText(pluginLibraryChecksum(iotaBytes(64, 9))) + ", but the plan recorded 0x0000000000001234"},
        {"library bytes changed", [](EngineModel& m) { m.pluginLibraries[0].bytes[40] ^= 0x10; },
            "plugin library 0 (\"libsample_plugins.so\") is corrupted: its 64 bytes have the CRC-64 "
                + crcText(pluginLibraryChecksum(flipped(iotaBytes(64, 9), 40, 0x10))) + ", but the plan recorded "
                + crcText(pluginLibraryChecksum(iotaBytes(64, 9)))},
        {"creator without name", [](EngineModel& m) { m.pluginLibraries[0].creators[1].identity.name.clear(); },
            "plugin library 0 (\"libsample_plugins.so\") has a creator with an empty name"},
        {"creator without version", [](EngineModel& m) { m.pluginLibraries[0].creators[0].identity.version.clear(); },
            "plugin library 0 (\"libsample_plugins.so\") has a creator with an empty version"},
        {"creator namespace too long",
            [](EngineModel& m) { m.pluginLibraries[0].creators[0].identity.pluginNamespace = std::string(1024, 'n'); },
            "plugin library 0 (\"libsample_plugins.so\") has a creator identity string of 1024 bytes or with a NUL "
            "inside; they are at most 1023 bytes"},
        {"creator kind", [](EngineModel& m) { m.pluginLibraries[0].creators[0].kind = PluginCreatorRecord::Kind{7}; },
            "plugin library 0 (\"libsample_plugins.so\") says the creator of plugin \"SampleV3\" version \"1\" "
            "namespace \"\" is of kind 7; kinds are 0 (IPluginCreator) and 1 (IPluginCreatorV3One)"},
        {"creator twice",
            [](EngineModel& m) {
                PluginLibraryRecord second = m.pluginLibraries[0];
                second.name = "libother.so";
                second.creators.erase(second.creators.begin());
                m.pluginLibraries.push_back(std::move(second));
            },
            "plugin library 1 (\"libother.so\") provides a creator of plugin \"SampleV2\" version \"2\" namespace "
            "\"sample_ns\", which an earlier creator of the plan provides too"},
    };
}

TEST(PlanEngineCodec, RefusesEveryInconsistencyOfAHostileWriter)
{
    for (HostileCase const& c : hostileCases())
    {
        SCOPED_TRACE(c.name);
        EngineModel model = sampleModel();
        c.change(model);
        EXPECT_EQ(modelProblem(model).value_or("(none)"), c.problem);
        auto const plan = hostilePlan(model);
        auto const loaded = decodeEngine(plan.data(), plan.size());
        ASSERT_FALSE(loaded.ok());
        EXPECT_EQ(loaded.error().code, nvinfer1::ErrorCode::kINVALID_ARGUMENT);
        EXPECT_EQ(loaded.error().message, "cannot load the plan: plan payload: " + c.problem);
    }
}

// ---- A hostile writer: payloads the model cannot hold, made with the generated API ----------------------------------

using flatbuffers::FlatBufferBuilder;
template <typename T>
using Offset = flatbuffers::Offset<T>;

//! A payload with one 16-byte weights blob and one layer named "hostile", whose parameters make writes.
std::vector<uint8_t> oneLayerPayload(
    std::function<std::pair<fb::LayerParams, Offset<void>>(FlatBufferBuilder&)> const& make)
{
    FlatBufferBuilder builder;
    auto const [member, params] = make(builder);
    auto const name = builder.CreateString("hostile");
    auto const layer = fb::CreateLayer(builder, name, 0, builder.CreateVector(std::vector<int32_t>{}),
        builder.CreateVector(std::vector<int32_t>{}), member, params);
    auto const layers = builder.CreateVector(std::vector{layer});
    auto const blob = fb::CreateWeightsBlob(
        builder, static_cast<int32_t>(DataType::kFLOAT), 4, builder.CreateVector(iotaBytes(16, 0)));
    auto const blobs = builder.CreateVector(std::vector{blob});
    fb::EngineBuilder engine(builder);
    engine.add_layers(layers);
    engine.add_weights(blobs);
    fb::FinishEngineBuffer(builder, engine.Finish());
    return std::vector<uint8_t>(builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize());
}

Offset<fb::Dims> flatDims(FlatBufferBuilder& builder, int32_t rank, std::vector<int64_t> const& extents)
{
    return fb::CreateDims(builder, rank, builder.CreateVector(extents));
}

//! A shuffle whose reshape and first transpose the caller gives.
std::pair<fb::LayerParams, Offset<void>> shuffle(
    FlatBufferBuilder& builder, Offset<fb::Dims> reshape, std::size_t permutationSize = 8)
{
    std::vector<int32_t> const order(permutationSize, 0);
    auto const first = builder.CreateVector(order);
    auto const second = builder.CreateVector(std::vector<int32_t>(8, 0));
    return {fb::LayerParams::Shuffle, fb::CreateShuffleParams(builder, first, reshape, second).Union()};
}

//! A convolution whose kernel the caller gives.
std::pair<fb::LayerParams, Offset<void>> convolution(
    FlatBufferBuilder& builder, int64_t count, int32_t blob, int64_t offset)
{
    auto const kernelSize = flatDims(builder, 2, {1, 1});
    auto const stride = flatDims(builder, 0, {});
    auto const kernel = fb::CreateWeightsRef(builder, 0, count, blob, offset);
    auto const bias = fb::CreateWeightsRef(builder, 0, 0, -1, 0);
    return {fb::LayerParams::Convolution,
        fb::CreateConvolutionParams(builder, 1, kernelSize, stride, stride, stride, stride, 0, 1, kernel, bias)
            .Union()};
}

TEST(PlanEngineCodec, RefusesWhatTheModelCannotHold)
{
    struct Case
    {
        char const* name;
        std::function<std::pair<fb::LayerParams, Offset<void>>(FlatBufferBuilder&)> make;
        std::string message;
    };
    std::string const verifier = "the FlatBuffers verifier refused it";
    std::vector<Case> const cases{
        {"rank 9", [](FlatBufferBuilder& b) { return shuffle(b, flatDims(b, 9, std::vector<int64_t>(9, 1))); },
            "layer 0 (\"hostile\"): reshape has rank 9; ranks are -1 (not set) to 8"},
        {"rank -3", [](FlatBufferBuilder& b) { return shuffle(b, flatDims(b, -3, {})); },
            "layer 0 (\"hostile\"): reshape has rank -3; ranks are -1 (not set) to 8"},
        {"extents",
            [](FlatBufferBuilder& b) {
                return shuffle(b, flatDims(b, 2, {1, 2, 3}));
            },
            "layer 0 (\"hostile\"): reshape has rank 2 but 3 extents"},
        {"unset with extents", [](FlatBufferBuilder& b) { return shuffle(b, flatDims(b, -1, {4})); },
            "layer 0 (\"hostile\"): reshape has rank -1 but 1 extents"},
        {"permutation", [](FlatBufferBuilder& b) { return shuffle(b, flatDims(b, 1, {4}), 7); },
            "layer 0 (\"hostile\"): firstTranspose has 7 entries; a permutation has 8"},
        {"weights blob", [](FlatBufferBuilder& b) { return convolution(b, 2, 5, 0); },
            "layer 0 (\"hostile\"): kernel weights refer to weights blob 5, but the engine has 1 weights blobs"},
        {"weights past the blob", [](FlatBufferBuilder& b) { return convolution(b, 2, 0, 12); },
            "layer 0 (\"hostile\"): kernel weights (2 elements of kFLOAT) at byte offset 12 do not fit in weights "
            "blob 0 of 16 bytes"},
        {"weights before the blob", [](FlatBufferBuilder& b) { return convolution(b, 1, 0, -4); },
            "kernel weights (1 elements of kFLOAT) at byte offset -4 do not fit in weights blob 0 of 16 bytes"},
        {"huge weights count",
            [](FlatBufferBuilder& b) { return convolution(b, std::numeric_limits<int64_t>::max(), 0, 0); },
            "kernel weights (9223372036854775807 elements of kFLOAT) at byte offset 0 do not fit"},
        {"negative weights count", [](FlatBufferBuilder& b) { return convolution(b, -1, 0, 0); },
            "kernel weights (-1 elements of kFLOAT) at byte offset 0 do not fit"},
        {"weights without blob", [](FlatBufferBuilder& b) { return convolution(b, 3, -1, 0); },
            "layer 0 (\"hostile\"): kernel weights have 3 elements but no weights blob"},
        {"unknown kind",
            [](FlatBufferBuilder& b) {
                return std::pair{fb::LayerParams{42}, fb::CreateIdentityParams(b).Union()};
            },
            "layer 0 (\"hostile\") has parameters of an unknown kind (union member 42); the plan may come from a "
            "newer kiln"},
        {"no parameters",
            [](FlatBufferBuilder&) {
                return std::pair{fb::LayerParams::NONE, Offset<void>{}};
            },
            verifier},
        {"required field missing", [](FlatBufferBuilder& b) { return shuffle(b, Offset<fb::Dims>{}); }, verifier},
    };
    for (Case const& c : cases)
    {
        SCOPED_TRACE(c.name);
        auto const plan = writePlan(PlanInfo{}, oneLayerPayload(c.make));
        EXPECT_THAT(decodeMessage(plan), StartsWith("cannot load the plan: plan payload: "));
        EXPECT_THAT(decodeMessage(plan), HasSubstr(c.message));
    }
}

TEST(PlanEngineCodec, RefusesAProfileDimsTheModelCannotHold)
{
    FlatBufferBuilder builder;
    auto const good = flatDims(builder, 1, {2});
    auto const bad = flatDims(builder, 1, {});
    auto const input = fb::CreateProfileInput(builder, 0, good, bad, good);
    auto const profile = fb::CreateProfile(builder, builder.CreateVector(std::vector{input}));
    auto const profiles = builder.CreateVector(std::vector{profile});
    fb::EngineBuilder engine(builder);
    engine.add_profiles(profiles);
    fb::FinishEngineBuffer(builder, engine.Finish());
    std::vector<uint8_t> const payload(builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize());
    EXPECT_EQ(decodeMessage(writePlan(PlanInfo{}, payload)),
        "cannot load the plan: plan payload: profile 0 input 0: kOPT has rank 1 but 0 extents");
}

TEST(PlanEngineCodec, RefusesPluginLibrariesThatShareTheirBytes)
{
    // Two library tables over one vector of bytes: the reader would copy it twice; a thousand tables, a thousand
    // times. Bytes that add up to more than the payload are refused before anything is copied.
    FlatBufferBuilder builder;
    auto const bytes = builder.CreateVector(iotaBytes(4096, 1));
    std::vector<Offset<fb::PluginLibrary>> libraries;
    for (char const* name : {"liba.so", "libb.so"})
    {
        libraries.push_back(fb::CreatePluginLibrary(builder, builder.CreateString(name), bytes,
            pluginLibraryChecksum(iotaBytes(4096, 1)), builder.CreateVector(std::vector<Offset<fb::PluginCreator>>{})));
    }
    auto const list = builder.CreateVector(libraries);
    fb::EngineBuilder engine(builder);
    engine.add_plugin_libraries(list);
    fb::FinishEngineBuffer(builder, engine.Finish());
    std::vector<uint8_t> const payload(builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize());
    EXPECT_THAT(decodeMessage(writePlan(PlanInfo{}, payload)),
        HasSubstr("plan payload: the plugin libraries' bytes add up to 8192, more than the payload's "));
}

TEST(PlanEngineCodec, PlansWithoutPluginLibrariesDoNotHoldTheField)
{
    // A plan that carries no libraries stays what format 4.3 wrote: the field is absent, not an empty vector.
    EngineModel model = sampleModel();
    model.pluginLibraries.clear();
    auto const payload = encodePayload(model);
    ASSERT_TRUE(payload.ok());
    EXPECT_EQ(fb::GetEngine(payload.value().data())->plugin_libraries(), nullptr);
    auto const plan = encoded(model);
    auto decoded = decodeEngine(plan.data(), plan.size());
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    EXPECT_TRUE(decoded.value().pluginLibraries.empty());
}

TEST(PlanEngineCodec, RefusesAnEmptyEngine)
{
    FlatBufferBuilder builder;
    fb::EngineBuilder engine(builder);
    fb::FinishEngineBuffer(builder, engine.Finish());
    std::vector<uint8_t> const payload(builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize());
    EXPECT_EQ(decodeMessage(writePlan(PlanInfo{}, payload)),
        "cannot load the plan: plan payload: the engine has no optimization profile");
}

// ---- Random and mutated payloads -----------------------------------------------------------------------------------

TEST(PlanEngineCodec, RandomPayloadsAreRefusedWithoutACrash)
{
    std::mt19937 random(20260101);
    for (int i = 0; i < 3000; ++i)
    {
        std::vector<uint8_t> payload(random() % 600);
        for (uint8_t& byte : payload)
        {
            byte = static_cast<uint8_t>(random());
        }
        if (i % 2 == 0 && payload.size() >= 8)
        {
            // A plausible root offset and the identifier: the verifier has to look inside.
            payload[0] = static_cast<uint8_t>(8 + random() % 64);
            payload[1] = payload[2] = payload[3] = 0;
            std::memcpy(payload.data() + 4, "KLNE", 4);
        }
        auto const plan = writePlan(PlanInfo{}, payload);
        EXPECT_THAT(decodeMessage(plan), StartsWith("cannot load the plan: plan payload: ")) << i;
    }
}

TEST(PlanEngineCodec, MutatedPayloadsNeverCrash)
{
    auto const payload = encodePayload(sampleModel());
    ASSERT_TRUE(payload.ok());
    std::mt19937 random(7);
    int refused = 0;
    int const rounds = 4000;
    for (int i = 0; i < rounds; ++i)
    {
        std::vector<uint8_t> mutated = payload.value();
        int const changes = 1 + static_cast<int>(random() % 4);
        for (int c = 0; c < changes; ++c)
        {
            std::size_t const at = random() % mutated.size();
            // Small integers often make valid offsets and indices; other values test the checks of sizes.
            mutated[at] = random() % 2 == 0 ? static_cast<uint8_t>(random() % 32) : static_cast<uint8_t>(random());
        }
        auto const plan = writePlan(PlanInfo{}, mutated);
        auto loaded = decodeEngine(plan.data(), plan.size());
        if (!loaded.ok())
        {
            ++refused;
            EXPECT_THAT(loaded.error().message, StartsWith("cannot load the plan: plan payload: "));
        }
        else
        {
            EXPECT_EQ(modelProblem(loaded.value()), std::nullopt);
        }
    }
    EXPECT_GT(refused, rounds / 4);
}

} // namespace
} // namespace kiln
