// SPDX-License-Identifier: Apache-2.0
// kiln_bench: builds four blocks through kiln's public TensorRT-compatible API on the CUDA backend, runs them, and
// prints one JSON object per line on stdout (kiln's own messages go to stderr). bench/README.md describes the blocks
// and every field; bench/torch_blocks.py runs the same blocks in PyTorch with the same weights.
//
//     kiln_bench [--block NAME]... [--precision fp32|fp16]... [--iterations N] [--warmup N] [--dump DIR] [--no-graph]
//
//     {"block":"conv_stack","precision":"fp16","system":"kiln","mode":"enqueue","ms_median":0.41,...}
//
// Blocks: conv_stack, transformer_block, resnet_stem, identity_plugin_copy (all by default). Every timed run is a
// series of iterations, each between a pair of CUDA events recorded on one stream, after warm-up iterations;
// "mode":"enqueue" calls IExecutionContext::enqueueV3 each time, "mode":"graph" replays a CUDA graph that captured one
// enqueueV3. A block that fails prints a line with "error" and the others still run; the exit status is 1 when any line
// had one.
//
// Weights and inputs come from benchValue() (bench_support.h); torch_blocks.py implements the same generator, so both
// sides hold bit-identical fp32 values (and, rounded to nearest-even, bit-identical fp16 ones).
#include "bench_logger.h"
#include "bench_support.h"
#include "identity_copy_plugin.h"
#include "layer_profile.h"

#include "NvInfer.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using namespace kiln_bench;

using Logger = BenchLogger; //!< kiln's warnings and errors on stderr; the last error names the failing call.

// ---------------------------------------------------------------------------------------------------------------
// Options, precisions, common fields.
// ---------------------------------------------------------------------------------------------------------------

struct Options
{
    std::vector<std::string> blocks;
    std::vector<std::string> precisions;
    int32_t iterations{100};
    int32_t warmup{20};
    std::string dumpDir;
    bool graphs{true};
};

enum class Precision
{
    kFP32,
    kFP16,
};

char const* precisionName(Precision precision)
{
    return precision == Precision::kFP32 ? "fp32" : "fp16";
}

DataType dataType(Precision precision)
{
    return precision == Precision::kFP32 ? DataType::kFLOAT : DataType::kHALF;
}

int64_t elementSize(DataType type)
{
    switch (type)
    {
    case DataType::kFLOAT: return 4;
    case DataType::kHALF: return 2;
    default: throw BenchError("an I/O tensor has a type other than kFLOAT or kHALF");
    }
}

int64_t volume(Dims const& dims)
{
    int64_t count = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        count *= dims.d[i];
    }
    return count;
}

std::string shapeText(Dims const& dims)
{
    std::string text = "[";
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        text += (i == 0 ? "" : ",") + std::to_string(dims.d[i]);
    }
    return text + "]";
}

//! What every line starts with.
JsonLine lineFor(std::string const& block, std::string const& precision, std::string const& system,
    std::string const& mode, std::string const& device)
{
    JsonLine line;
    line.str("block", block).str("precision", precision).str("system", system);
    if (!mode.empty())
    {
        line.str("mode", mode);
    }
    line.str("device", device);
    return line;
}

void addTiming(JsonLine& line, Timing const& t, Options const& options)
{
    kiln_bench::addTiming(line, t, options.iterations, options.warmup);
}

// ---------------------------------------------------------------------------------------------------------------
// Network construction.
// ---------------------------------------------------------------------------------------------------------------

//! Adds layers to a network in one precision, checks each result, names each layer, and keeps the host weights
//! alive (and counted) until the build has copied them.
class Net
{
public:
    Net(INetworkDefinition& network, Logger& logger, Precision precision)
        : mNetwork(network)
        , mLogger(logger)
        , mPrecision(precision)
    {
    }

    INetworkDefinition& network() noexcept { return mNetwork; }
    DataType type() const noexcept { return dataType(mPrecision); }
    int64_t weightBytes() const noexcept { return mWeightBytes; }

    //! Generated weights of count values in the network's precision.
    Weights weights(TensorSpec const& spec, int64_t count) { return store(generate(spec, count)); }

    //! count copies of value in the network's precision.
    Weights filled(float value, int64_t count)
    {
        return store(std::vector<float>(static_cast<std::size_t>(count), value));
    }

    ITensor* input(char const* name, Dims const& dims)
    {
        return checked(mNetwork.addInput(name, type(), dims), std::string("the input ") + name);
    }

    ITensor* constant(std::string const& name, Dims const& dims, TensorSpec const& spec)
    {
        return output(mNetwork.addConstant(dims, weights(spec, volume(dims))), name);
    }

    ITensor* constantFilled(std::string const& name, Dims const& dims, float value)
    {
        return output(mNetwork.addConstant(dims, filled(value, volume(dims))), name);
    }

    ITensor* elementWise(std::string const& name, ITensor* a, ITensor* b, ElementWiseOperation op)
    {
        return output(mNetwork.addElementWise(*a, *b, op), name);
    }

    ITensor* unary(std::string const& name, ITensor* x, UnaryOperation op)
    {
        return output(mNetwork.addUnary(*x, op), name);
    }

    ITensor* activation(std::string const& name, ITensor* x, ActivationType type)
    {
        return output(mNetwork.addActivation(*x, type), name);
    }

    ITensor* reduce(std::string const& name, ITensor* x, ReduceOperation op, uint32_t axes)
    {
        return output(mNetwork.addReduce(*x, op, axes, true), name);
    }

    ITensor* matmul(std::string const& name, ITensor* a, MatrixOperation opA, ITensor* b, MatrixOperation opB)
    {
        return output(mNetwork.addMatrixMultiply(*a, opA, *b, opB), name);
    }

    ITensor* softmax(std::string const& name, ITensor* x, uint32_t axes)
    {
        ISoftMaxLayer* layer = mNetwork.addSoftMax(*x);
        if (layer != nullptr)
        {
            layer->setAxes(axes);
        }
        return output(layer, name);
    }

    //! Reshape to dims, then apply the permutation order (empty: none).
    ITensor* reshapeThenTranspose(std::string const& name, ITensor* x, Dims const& dims, std::vector<int32_t> order)
    {
        IShuffleLayer* layer = mNetwork.addShuffle(*x);
        if (layer != nullptr)
        {
            layer->setReshapeDimensions(dims);
            if (!order.empty())
            {
                layer->setSecondTranspose(permutation(order));
            }
        }
        return output(layer, name);
    }

    //! Apply the permutation order, then reshape to dims.
    ITensor* transposeThenReshape(std::string const& name, ITensor* x, std::vector<int32_t> order, Dims const& dims)
    {
        IShuffleLayer* layer = mNetwork.addShuffle(*x);
        if (layer != nullptr)
        {
            layer->setFirstTranspose(permutation(order));
            layer->setReshapeDimensions(dims);
        }
        return output(layer, name);
    }

    //! Marks x as the network output "output".
    void markOutput(ITensor* x)
    {
        x->setName("output");
        mNetwork.markOutput(*x);
    }

    //! layer's output 0 after naming the layer; throws with kiln's last error when adding the layer failed.
    ITensor* output(ILayer* layer, std::string const& name)
    {
        if (layer == nullptr)
        {
            throw BenchError(mLogger.takeLastError("adding the layer " + name + " failed"));
        }
        layer->setName(name.c_str());
        return checked(layer->getOutput(0), "the output of " + name);
    }

private:
    ITensor* checked(ITensor* tensor, std::string const& what)
    {
        if (tensor == nullptr)
        {
            throw BenchError(mLogger.takeLastError(what + " is missing"));
        }
        return tensor;
    }

    static Permutation permutation(std::vector<int32_t> const& order)
    {
        Permutation p{};
        for (std::size_t i = 0; i < order.size(); ++i)
        {
            p.order[i] = order[i];
        }
        return p;
    }

    Weights store(std::vector<float> values)
    {
        auto const count = static_cast<int64_t>(values.size());
        if (mPrecision == Precision::kFP32)
        {
            mFloat.push_back(std::move(values));
            mWeightBytes += count * 4;
            return Weights{DataType::kFLOAT, mFloat.back().data(), count};
        }
        std::vector<uint16_t> halves(values.size());
        std::transform(values.begin(), values.end(), halves.begin(), toHalf);
        mHalf.push_back(std::move(halves));
        mWeightBytes += count * 2;
        return Weights{DataType::kHALF, mHalf.back().data(), count};
    }

    INetworkDefinition& mNetwork;
    Logger& mLogger;
    Precision mPrecision;
    std::deque<std::vector<float>> mFloat; // std::deque: earlier vectors never move, so Weights stay valid.
    std::deque<std::vector<uint16_t>> mHalf;
    int64_t mWeightBytes{0};
};

//! Host bytes of a generated input in a precision.
std::vector<std::byte> inputBytes(TensorSpec const& spec, int64_t count, Precision precision)
{
    std::vector<float> const values = generate(spec, count);
    if (precision == Precision::kFP32)
    {
        std::vector<std::byte> bytes(values.size() * 4);
        std::memcpy(bytes.data(), values.data(), bytes.size());
        return bytes;
    }
    std::vector<std::byte> bytes(values.size() * 2);
    for (std::size_t i = 0; i < values.size(); ++i)
    {
        uint16_t const half = toHalf(values[i]);
        std::memcpy(bytes.data() + i * 2, &half, 2);
    }
    return bytes;
}

// ---------------------------------------------------------------------------------------------------------------
// Block a: conv_stack. input [8, 64, 56, 56] -> 4 x (convolution 3x3, 64 -> 64, padding 1, bias; ReLU).
// Seeds: input 1; convolution l (0..3) kernel 10 + l (scale 1/sqrt(64*9), KCRS layout), bias 20 + l (scale 0.1).
// ---------------------------------------------------------------------------------------------------------------

constexpr int64_t kConvBatch = 8;
constexpr int64_t kConvChannels = 64;
constexpr int64_t kConvSide = 56;
constexpr int32_t kConvLayers = 4;

Dims convInputDims()
{
    return Dims4{kConvBatch, kConvChannels, kConvSide, kConvSide};
}

void defineConvStack(Net& net)
{
    ITensor* x = net.input("input", convInputDims());
    int64_t const kernelCount = kConvChannels * kConvChannels * 3 * 3;
    double const kernelScale = 1.0 / std::sqrt(static_cast<double>(kConvChannels * 3 * 3));
    for (int32_t l = 0; l < kConvLayers; ++l)
    {
        std::string const name = "conv" + std::to_string(l);
        Weights const kernel = net.weights(TensorSpec{static_cast<uint32_t>(10 + l), kernelScale}, kernelCount);
        Weights const bias = net.weights(TensorSpec{static_cast<uint32_t>(20 + l), 0.1}, kConvChannels);
        IConvolutionLayer* conv = net.network().addConvolutionNd(*x, kConvChannels, DimsHW{3, 3}, kernel, bias);
        if (conv != nullptr)
        {
            conv->setPaddingNd(DimsHW{1, 1});
        }
        x = net.activation(name + ".relu", net.output(conv, name), ActivationType::kRELU);
    }
    net.markOutput(x);
}

double convGflop()
{
    double const perLayer = 2.0 * kConvBatch * kConvChannels * kConvSide * kConvSide * kConvChannels * 9;
    return perLayer * kConvLayers / 1e9;
}

// ---------------------------------------------------------------------------------------------------------------
// Block d: resnet_stem. input [256, 3, 224, 224] -> convolution 7x7, 3 -> 64, stride 2, padding 3, bias; ReLU -> max
// pooling 3x3, stride 2, padding 1 -> [256, 64, 56, 56]: ResNet-50's first layers at batch 256. In fp16 the build runs
// them channels-last (builder/layout.h: the input's reformat pads 3 channels to kHWC8's 8, the kernel is stored KRSC
// with 8 channels, the pooling reads vectors of 8 channels); KILN_CHANNELS_LAST=0 in the environment keeps NCHW, the
// "before" to compare with. Seeds: input 5; kernel 50 (scale 1/sqrt(3*49), KCRS layout), bias 51 (scale 0.1).
// ---------------------------------------------------------------------------------------------------------------

constexpr int64_t kStemBatch = 256;
constexpr int64_t kStemMaps = 64;
constexpr int64_t kStemSide = 224;

Dims stemInputDims()
{
    return Dims4{kStemBatch, 3, kStemSide, kStemSide};
}

Dims stemOutputDims()
{
    return Dims4{kStemBatch, kStemMaps, kStemSide / 4, kStemSide / 4};
}

void defineResnetStem(Net& net)
{
    ITensor* x = net.input("input", stemInputDims());
    int64_t const kernelCount = kStemMaps * 3 * 7 * 7;
    Weights const kernel = net.weights(TensorSpec{50, 1.0 / std::sqrt(3.0 * 49.0)}, kernelCount);
    Weights const bias = net.weights(TensorSpec{51, 0.1}, kStemMaps);
    IConvolutionLayer* conv = net.network().addConvolutionNd(*x, kStemMaps, DimsHW{7, 7}, kernel, bias);
    if (conv != nullptr)
    {
        conv->setStrideNd(DimsHW{2, 2});
        conv->setPaddingNd(DimsHW{3, 3});
    }
    x = net.activation("conv1.relu", net.output(conv, "conv1"), ActivationType::kRELU);
    IPoolingLayer* pool = net.network().addPoolingNd(*x, PoolingType::kMAX, DimsHW{3, 3});
    if (pool != nullptr)
    {
        pool->setStrideNd(DimsHW{2, 2});
        pool->setPaddingNd(DimsHW{1, 1});
    }
    net.markOutput(net.output(pool, "maxpool"));
}

double stemGflop()
{
    double const outputs = static_cast<double>(kStemBatch * kStemMaps * (kStemSide / 2) * (kStemSide / 2));
    return 2.0 * outputs * 3 * 49 / 1e9; // The convolution's; the pooling's compares are left out.
}

// ---------------------------------------------------------------------------------------------------------------
// Block b: transformer_block (pre-norm). x [8, 128, 512], 8 heads of 64, MLP 2048, GELU (tanh), eps 1e-5.
//   h = x + (softmax((LN1(x) Wq)(LN1(x) Wk)^T / 8) (LN1(x) Wv)) Wo      (per head, heads merged before Wo)
//   y = h + GELU(LN2(h) W1 + b1) W2 + b2
// Seeds: x 2; ln1 gamma 30 (1 + 0.1 u), beta 31 (0.1); Wq 32, Wk 33, Wv 34, Wo 35 ([512, 512] as [in, out], scale
// 1/sqrt(512)); ln2 gamma 36, beta 37; W1 38 ([512, 2048], 1/sqrt(512)), b1 39 (0.1); W2 40 ([2048, 512],
// 1/sqrt(2048)), b2 41 (0.1).
// ---------------------------------------------------------------------------------------------------------------

constexpr int64_t kBatch = 8;
constexpr int64_t kSeq = 128;
constexpr int64_t kModel = 512;
constexpr int64_t kHeads = 8;
constexpr int64_t kHeadDim = kModel / kHeads;
constexpr int64_t kHidden = 2048;
constexpr float kLayerNormEps = 1e-5F;

Dims transformerInputDims()
{
    return Dims3{kBatch, kSeq, kModel};
}

//! LayerNorm over the last axis from primitive layers: (x - mean) / sqrt(var + eps) * gamma + beta.
ITensor* layerNorm(Net& net, std::string const& name, ITensor* x, uint32_t gammaSeed, uint32_t betaSeed)
{
    constexpr uint32_t kLastAxis = 1U << 2;
    ITensor* mean = net.reduce(name + ".mean", x, ReduceOperation::kAVG, kLastAxis);
    ITensor* centered = net.elementWise(name + ".centered", x, mean, ElementWiseOperation::kSUB);
    ITensor* squared = net.elementWise(name + ".squared", centered, centered, ElementWiseOperation::kPROD);
    ITensor* variance = net.reduce(name + ".variance", squared, ReduceOperation::kAVG, kLastAxis);
    ITensor* eps = net.constantFilled(name + ".eps", Dims3{1, 1, 1}, kLayerNormEps);
    ITensor* shifted = net.elementWise(name + ".variance_eps", variance, eps, ElementWiseOperation::kSUM);
    ITensor* deviation = net.unary(name + ".sqrt", shifted, UnaryOperation::kSQRT);
    ITensor* normalized = net.elementWise(name + ".normalized", centered, deviation, ElementWiseOperation::kDIV);
    ITensor* gamma = net.constant(name + ".gamma", Dims3{1, 1, kModel}, TensorSpec{gammaSeed, 0.1, 1.0});
    ITensor* beta = net.constant(name + ".beta", Dims3{1, 1, kModel}, TensorSpec{betaSeed, 0.1});
    ITensor* scaled = net.elementWise(name + ".scaled", normalized, gamma, ElementWiseOperation::kPROD);
    return net.elementWise(name + ".shifted", scaled, beta, ElementWiseOperation::kSUM);
}

//! x [B, S, in] times the constant [1, in, out] drawn from seed.
ITensor* linear(Net& net, std::string const& name, ITensor* x, int64_t in, int64_t out, uint32_t seed)
{
    double const scale = 1.0 / std::sqrt(static_cast<double>(in));
    ITensor* w = net.constant(name + ".weight", Dims3{1, in, out}, TensorSpec{seed, scale});
    return net.matmul(name, x, MatrixOperation::kNONE, w, MatrixOperation::kNONE);
}

//! [B, S, D] -> [B, H, S, Dh].
ITensor* splitHeads(Net& net, std::string const& name, ITensor* x)
{
    return net.reshapeThenTranspose(name, x, Dims4{kBatch, kSeq, kHeads, kHeadDim}, {0, 2, 1, 3});
}

void defineTransformerBlock(Net& net)
{
    ITensor* x = net.input("input", transformerInputDims());
    ITensor* ln1 = layerNorm(net, "ln1", x, 30, 31);
    ITensor* q = splitHeads(net, "q.heads", linear(net, "q", ln1, kModel, kModel, 32));
    ITensor* k = splitHeads(net, "k.heads", linear(net, "k", ln1, kModel, kModel, 33));
    ITensor* v = splitHeads(net, "v.heads", linear(net, "v", ln1, kModel, kModel, 34));
    ITensor* scores = net.matmul("scores", q, MatrixOperation::kNONE, k, MatrixOperation::kTRANSPOSE);
    float const scale = 1.0F / std::sqrt(static_cast<float>(kHeadDim)); // 0.125, exact in both precisions
    ITensor* scaleConst = net.constantFilled("scores.scale", Dims4{1, 1, 1, 1}, scale);
    ITensor* scaled = net.elementWise("scores.scaled", scores, scaleConst, ElementWiseOperation::kPROD);
    ITensor* probs = net.softmax("softmax", scaled, 1U << 3);
    ITensor* context = net.matmul("context", probs, MatrixOperation::kNONE, v, MatrixOperation::kNONE);
    ITensor* merged = net.transposeThenReshape("context.merge", context, {0, 2, 1, 3}, Dims3{kBatch, kSeq, kModel});
    ITensor* attention = linear(net, "o", merged, kModel, kModel, 35);
    ITensor* h = net.elementWise("residual1", x, attention, ElementWiseOperation::kSUM);

    ITensor* ln2 = layerNorm(net, "ln2", h, 36, 37);
    ITensor* up = linear(net, "mlp.up", ln2, kModel, kHidden, 38);
    ITensor* b1 = net.constant("mlp.up.bias", Dims3{1, 1, kHidden}, TensorSpec{39, 0.1});
    ITensor* upBiased = net.elementWise("mlp.up.biased", up, b1, ElementWiseOperation::kSUM);
    ITensor* gelu = net.activation("mlp.gelu", upBiased, ActivationType::kGELU_TANH);
    ITensor* down = linear(net, "mlp.down", gelu, kHidden, kModel, 40);
    ITensor* b2 = net.constant("mlp.down.bias", Dims3{1, 1, kModel}, TensorSpec{41, 0.1});
    ITensor* downBiased = net.elementWise("mlp.down.biased", down, b2, ElementWiseOperation::kSUM);
    net.markOutput(net.elementWise("residual2", h, downBiased, ElementWiseOperation::kSUM));
}

double transformerGflop()
{
    double const tokens = static_cast<double>(kBatch * kSeq);
    double const projections = 4.0 * 2.0 * tokens * kModel * kModel;
    double const attention = 2.0 * 2.0 * kBatch * kHeads * kSeq * kSeq * kHeadDim;
    double const mlp = 2.0 * 2.0 * tokens * kModel * kHidden;
    return (projections + attention + mlp) / 1e9;
}

// ---------------------------------------------------------------------------------------------------------------
// Blocks gelu and pointwise_broadcast (not run by default: --block NAME): memory-bound point-wise layers on
// [4096, 3072], BERT-base's MLP activation at batch 32. gelu: the exporters' erf form from primitive layers,
// (x * (erf(x / 1.4142135) + 1)) * 0.5, which the build makes one kGELU_ERF activation; pointwise_broadcast:
// relu(x * scale + bias) with scale and bias [1, 3072], one point-wise program of three inputs. Their lines carry
// gb_per_s: the input read and the output written per call.
// ---------------------------------------------------------------------------------------------------------------

Dims pointwiseDims()
{
    return Dims2{4096, 3072};
}

void defineGelu(Net& net)
{
    ITensor* x = net.input("input", pointwiseDims());
    Dims const ones{2, {1, 1}};
    ITensor* scaled = net.elementWise(
        "gelu.div", x, net.constantFilled("gelu.sqrt2", ones, 1.4142135F), ElementWiseOperation::kDIV);
    ITensor* erf = net.unary("gelu.erf", scaled, UnaryOperation::kERF);
    ITensor* onePlus
        = net.elementWise("gelu.add", erf, net.constantFilled("gelu.one", ones, 1.F), ElementWiseOperation::kSUM);
    ITensor* product = net.elementWise("gelu.mul", x, onePlus, ElementWiseOperation::kPROD);
    net.markOutput(net.elementWise(
        "gelu.half", product, net.constantFilled("gelu.half_value", ones, 0.5F), ElementWiseOperation::kPROD));
}

void definePointwiseBroadcast(Net& net)
{
    ITensor* x = net.input("input", pointwiseDims());
    Dims const row{2, {1, pointwiseDims().d[1]}};
    ITensor* scale = net.constant("scale", row, TensorSpec{50, 0.5, 1.0});
    ITensor* bias = net.constant("bias", row, TensorSpec{51, 0.1});
    ITensor* scaled = net.elementWise("scaled", x, scale, ElementWiseOperation::kPROD);
    ITensor* shifted = net.elementWise("shifted", scaled, bias, ElementWiseOperation::kSUM);
    net.markOutput(net.activation("relu", shifted, ActivationType::kRELU));
}

// ---------------------------------------------------------------------------------------------------------------
// Building and loading engines.
// ---------------------------------------------------------------------------------------------------------------

using Define = std::function<void(Net&)>;

struct Plan
{
    std::vector<char> bytes;
    int64_t weightBytes{};
    double buildSeconds{};
};

//! Builds a strongly typed network defined by define: its types follow the inputs and weights given.
Plan buildPlan(Logger& logger, Precision precision, Define const& define)
{
    std::unique_ptr<IBuilder> builder{createInferBuilder(logger)};
    if (builder == nullptr)
    {
        throw BenchError(logger.takeLastError("createInferBuilder failed"));
    }
    auto const flags = 1U << static_cast<uint32_t>(NetworkDefinitionCreationFlag::kSTRONGLY_TYPED);
    std::unique_ptr<INetworkDefinition> network{builder->createNetworkV2(flags)};
    std::unique_ptr<IBuilderConfig> config{builder->createBuilderConfig()};
    if (network == nullptr || config == nullptr)
    {
        throw BenchError(logger.takeLastError("creating the network or the builder config failed"));
    }
    Net net(*network, logger, precision);
    define(net);
    auto const start = std::chrono::steady_clock::now();
    std::unique_ptr<IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
    auto const stop = std::chrono::steady_clock::now();
    if (plan == nullptr || plan->size() == 0)
    {
        throw BenchError(logger.takeLastError("buildSerializedNetwork failed"));
    }
    auto const* data = static_cast<char const*>(plan->data());
    return Plan{std::vector<char>(data, data + plan->size()), net.weightBytes(),
        std::chrono::duration<double>(stop - start).count()};
}

//! A loaded engine with one execution context and a device buffer bound to each I/O tensor.
struct LoadedEngine
{
    std::unique_ptr<IRuntime> runtime;
    std::unique_ptr<ICudaEngine> engine;
    std::unique_ptr<IExecutionContext> context;
    std::map<std::string, DeviceBuffer> buffers;
    std::map<std::string, int64_t> sizes; //!< Bytes of each I/O tensor.
    int64_t ioBytes{};

    void enqueue(cudaStream_t stream, Logger& logger) const
    {
        if (!context->enqueueV3(stream))
        {
            throw BenchError(logger.takeLastError("enqueueV3 failed"));
        }
    }
};

LoadedEngine loadEngine(Logger& logger, Plan const& plan)
{
    LoadedEngine loaded;
    loaded.runtime.reset(createInferRuntime(logger));
    if (loaded.runtime == nullptr)
    {
        throw BenchError(logger.takeLastError("createInferRuntime failed"));
    }
    loaded.engine.reset(loaded.runtime->deserializeCudaEngine(plan.bytes.data(), plan.bytes.size()));
    if (loaded.engine == nullptr)
    {
        throw BenchError(logger.takeLastError("deserializeCudaEngine failed"));
    }
    loaded.context.reset(loaded.engine->createExecutionContext());
    if (loaded.context == nullptr)
    {
        throw BenchError(logger.takeLastError("createExecutionContext failed"));
    }
    for (int32_t i = 0; i < loaded.engine->getNbIOTensors(); ++i)
    {
        std::string const name = loaded.engine->getIOTensorName(i);
        Dims const dims = loaded.engine->getTensorShape(name.c_str());
        int64_t const bytes = volume(dims) * elementSize(loaded.engine->getTensorDataType(name.c_str()));
        if (bytes < 0)
        {
            throw BenchError("the I/O tensor " + name + " has a run-time shape " + shapeText(dims));
        }
        DeviceBuffer buffer = deviceAlloc(static_cast<std::size_t>(bytes));
        cudaCheck(cudaMemset(buffer.get(), 0, static_cast<std::size_t>(bytes)), "cudaMemset");
        if (!loaded.context->setTensorAddress(name.c_str(), buffer.get()))
        {
            throw BenchError(logger.takeLastError("setTensorAddress(" + name + ") failed"));
        }
        loaded.buffers.emplace(name, std::move(buffer));
        loaded.sizes.emplace(name, bytes);
        loaded.ioBytes += bytes;
    }
    return loaded;
}

//! The device buffer of an I/O tensor, checking its size when expectedBytes >= 0.
void* tensorBuffer(LoadedEngine const& loaded, std::string const& name, int64_t expectedBytes)
{
    auto const found = loaded.buffers.find(name);
    if (found == loaded.buffers.end())
    {
        throw BenchError("the engine has no I/O tensor " + name);
    }
    if (expectedBytes >= 0 && loaded.sizes.at(name) != expectedBytes)
    {
        throw BenchError("the I/O tensor " + name + " holds " + std::to_string(loaded.sizes.at(name))
            + " bytes; the bench expected " + std::to_string(expectedBytes));
    }
    return found->second.get();
}

//! The memory fields of a kiln line. peak_device_bytes is computed, not measured: the engine's activation block
//! (getDeviceMemorySizeV2), its weights as given to the network, and the I/O buffers the bench allocated, which is
//! what torch's max_memory_allocated() also covers. measured_device_delta_bytes is the fall of cudaMemGetInfo's free
//! bytes from before deserializing to after the context, the I/O buffers and the first runs: it also holds
//! library handles, workspaces and loaded kernels, in 2 MiB pages.
void addMemory(
    JsonLine& line, LoadedEngine const& loaded, Plan const& plan, std::size_t freeBefore, std::size_t freeAfter)
{
    int64_t const activations = loaded.engine->getDeviceMemorySizeV2();
    line.integer("peak_device_bytes", activations + plan.weightBytes + loaded.ioBytes)
        .str("memory_method", "engine_device_memory+weights+io")
        .integer("engine_device_memory_bytes", activations)
        .integer("weights_bytes", plan.weightBytes)
        .integer("io_bytes", loaded.ioBytes)
        .integer("measured_device_delta_bytes",
            static_cast<int64_t>(freeBefore) - static_cast<int64_t>(std::min(freeBefore, freeAfter)))
        .num("build_s", plan.buildSeconds)
        .integer("plan_bytes", static_cast<int64_t>(plan.bytes.size()));
}

//! How many "error" lines were printed; main's exit status is 1 when there was one.
int32_t gErrorLines = 0;

void printError(std::string const& block, std::string const& precision, std::string const& system,
    std::string const& mode, std::string const& device, std::string const& message)
{
    ++gErrorLines;
    JsonLine line = lineFor(block, precision, system, mode, device);
    line.str("error", message).print();
}

// ---------------------------------------------------------------------------------------------------------------
// Running the model blocks.
// ---------------------------------------------------------------------------------------------------------------

struct ModelBlock
{
    std::string name;
    Define define;
    Dims inputDims;
    TensorSpec input;
    double gflop;                     //!< 0: not a compute-bound block (no tflops field).
    int64_t elementsMoved{0};         //!< Elements read and written per call (gb_per_s); 0: none.
    std::optional<Dims> outputDims{}; //!< The output's shape when it is not the input's.
};

//! Copies the output back once: its mean |value| and whether every value is finite, and the dump file when asked.
void checkOutput(
    JsonLine& line, LoadedEngine const& loaded, ModelBlock const& block, Precision precision, Options const& options)
{
    int64_t const bytes = loaded.sizes.at("output");
    std::vector<std::byte> host(static_cast<std::size_t>(bytes));
    cudaCheck(cudaMemcpy(host.data(), tensorBuffer(loaded, "output", -1), host.size(), cudaMemcpyDeviceToHost),
        "cudaMemcpy of the output");
    int64_t const count = bytes / (precision == Precision::kFP32 ? 4 : 2);
    double total = 0.0;
    bool finite = true;
    for (int64_t i = 0; i < count; ++i)
    {
        float value = 0.0F;
        if (precision == Precision::kFP32)
        {
            std::memcpy(&value, host.data() + i * 4, 4);
        }
        else
        {
            uint16_t half = 0;
            std::memcpy(&half, host.data() + i * 2, 2);
            value = fromHalf(half);
        }
        finite = finite && std::isfinite(value);
        total += std::fabs(static_cast<double>(value));
    }
    line.num("output_abs_mean", count > 0 ? total / static_cast<double>(count) : 0.0).boolean("output_finite", finite);
    if (!options.dumpDir.empty())
    {
        std::string const path = options.dumpDir + "/" + block.name + "." + precisionName(precision) + ".bin";
        std::ofstream file(path, std::ios::binary);
        file.write(reinterpret_cast<char const*>(host.data()), static_cast<std::streamsize>(host.size()));
        if (!file)
        {
            std::cerr << "kiln_bench: could not write " << path << "\n";
        }
    }
}

//! Prints the mean GPU time of each layer over a few runs to stderr (kiln_bench.log): where the time goes.
void printLayerProfile(LoadedEngine const& loaded, std::string const& title, cudaStream_t stream, Logger& logger)
{
    constexpr int32_t kRuns = 10;
    LayerProfile profile;
    loaded.context->setProfiler(&profile);
    for (int32_t run = 0; run < kRuns; ++run)
    {
        loaded.enqueue(stream, logger); // Each run reports its layers' times (enqueueEmitsProfile).
    }
    loaded.context->setProfiler(nullptr);
    std::cerr << "kiln_bench: layers of " << title << " (mean GPU ms of " << kRuns << " runs):\n";
    profile.print(std::cerr, kRuns);
}

//! The rates of a timed block: gflop and tflops for a compute-bound one, bytes and gb_per_s for a memory-bound one.
void addRates(JsonLine& line, ModelBlock const& block, Precision precision, Timing const& timing)
{
    if (block.gflop > 0.0)
    {
        line.num("gflop", block.gflop).num("tflops", block.gflop / timing.median);
    }
    if (block.elementsMoved > 0)
    {
        int64_t const bytes = block.elementsMoved * elementSize(dataType(precision));
        line.integer("bytes", bytes).num("gb_per_s", static_cast<double>(bytes) / 1e9 / (timing.median / 1e3));
    }
}

//! Builds, loads and times one block in one precision; prints its enqueue line and its graph line.
void runModelBlock(
    ModelBlock const& block, Precision precision, Options const& options, Logger& logger, std::string const& device)
{
    std::string const precisionText = precisionName(precision);
    Plan const plan = buildPlan(logger, precision, block.define);
    std::size_t const freeBefore = freeDeviceBytes();
    LoadedEngine const loaded = loadEngine(logger, plan);
    int64_t const count = volume(block.inputDims);
    std::vector<std::byte> const input = inputBytes(block.input, count, precision);
    cudaCheck(cudaMemcpy(tensorBuffer(loaded, "input", static_cast<int64_t>(input.size())), input.data(), input.size(),
                  cudaMemcpyHostToDevice),
        "cudaMemcpy of the input");
    tensorBuffer(
        loaded, "output", volume(block.outputDims.value_or(block.inputDims)) * (precision == Precision::kFP32 ? 4 : 2));

    Stream const stream;
    Launch const enqueue = [&](cudaStream_t s) { loaded.enqueue(s, logger); };
    enqueue(stream.get()); // The first run: anything kiln sets up lazily happens outside the timings.
    cudaCheck(cudaStreamSynchronize(stream.get()), "cudaStreamSynchronize after the first run");
    std::size_t freeAfter = freeDeviceBytes();

    Timing const timing = timeLaunches(enqueue, stream.get(), options.warmup, options.iterations);
    freeAfter = std::min(freeAfter, freeDeviceBytes());
    JsonLine line = lineFor(block.name, precisionText, "kiln", "enqueue", device);
    line.str("shape", shapeText(block.inputDims));
    addTiming(line, timing, options);
    addRates(line, block, precision, timing);
    addMemory(line, loaded, plan, freeBefore, freeAfter);
    checkOutput(line, loaded, block, precision, options);
    line.print();

    printLayerProfile(loaded, block.name + " " + precisionText, stream.get(), logger);

    if (!options.graphs)
    {
        return;
    }
    try
    {
        Graph const graph(enqueue, stream.get());
        Timing const graphTiming
            = timeLaunches([&](cudaStream_t s) { graph.replay(s); }, stream.get(), options.warmup, options.iterations);
        JsonLine graphLine = lineFor(block.name, precisionText, "kiln", "graph", device);
        graphLine.str("shape", shapeText(block.inputDims));
        addTiming(graphLine, graphTiming, options);
        addRates(graphLine, block, precision, graphTiming);
        addMemory(graphLine, loaded, plan, freeBefore, std::min(freeAfter, freeDeviceBytes()));
        graphLine.print();
    }
    catch (std::exception const& e)
    {
        printError(block.name, precisionText, "kiln", "graph", device, e.what());
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Block c: identity_plugin_copy. input [N] fp32 -> IdentityCopy plugin (cudaMemcpyAsync on the given stream) ->
// output, against a plain cudaMemcpyAsync of the same bytes. GB/s counts bytes read plus bytes written (2 x size),
// as CUDA's bandwidthTest does for device-to-device copies.
// ---------------------------------------------------------------------------------------------------------------

//! input [count] kFLOAT -> IdentityCopy -> output.
void defineIdentityCopy(Net& net, int64_t count)
{
    ITensor* x = net.input("input", Dims{1, {count}});
    IPluginCreatorInterface* found = getPluginRegistry()->getCreator(kPluginName, kPluginVersion, kPluginNamespace);
    if (found == nullptr || std::strcmp(found->getInterfaceInfo().kind, "PLUGIN CREATOR_V3ONE") != 0)
    {
        throw BenchError("the IdentityCopy creator is not registered as a V3 creator");
    }
    auto* creator = static_cast<IPluginCreatorV3One*>(found);
    PluginFieldCollection const noFields{0, nullptr};
    std::unique_ptr<IPluginV3> plugin{creator->createPlugin("identity_copy", &noFields, TensorRTPhase::kBUILD)};
    if (plugin == nullptr)
    {
        throw BenchError("IdentityCopyCreator::createPlugin failed");
    }
    ITensor* inputs[] = {x};
    // The network keeps its own clone of the plugin, so this one may go when the function returns.
    net.markOutput(net.output(net.network().addPluginV3(inputs, 1, nullptr, 0, *plugin), "identity_copy"));
}

double gigabytesPerSecond(int64_t bytes, double ms)
{
    return 2.0 * static_cast<double>(bytes) / 1e9 / (ms / 1e3);
}

//! True when the first and last 4 KiB of the output hold the input's fill byte.
bool copiedCorrectly(void const* output, int64_t bytes, unsigned char fill)
{
    std::size_t const sample = std::min<std::size_t>(4096, static_cast<std::size_t>(bytes));
    std::vector<unsigned char> head(sample);
    std::vector<unsigned char> tail(sample);
    auto const* base = static_cast<unsigned char const*>(output);
    cudaCheck(cudaMemcpy(head.data(), base, sample, cudaMemcpyDeviceToHost), "cudaMemcpy of the output");
    cudaCheck(cudaMemcpy(tail.data(), base + bytes - static_cast<int64_t>(sample), sample, cudaMemcpyDeviceToHost),
        "cudaMemcpy of the output");
    auto const isFill = [fill](unsigned char b) { return b == fill; };
    return std::all_of(head.begin(), head.end(), isFill) && std::all_of(tail.begin(), tail.end(), isFill);
}

//! One copy size: the cudaMemcpyAsync lines, then kiln's.
void runIdentityCopy(int64_t mebibytes, Options const& options, Logger& logger, std::string const& device)
{
    std::string const block = "identity_plugin_copy";
    int64_t const bytes = mebibytes << 20;
    int64_t const count = bytes / 4;
    std::string const shape = shapeText(Dims{1, {count}});
    constexpr unsigned char kFill = 0x3c;
    Stream const stream;
    std::vector<std::string> const modes
        = options.graphs ? std::vector<std::string>{"enqueue", "graph"} : std::vector<std::string>{"enqueue"};

    std::map<std::string, double> memcpyRate;
    try
    {
        DeviceBuffer const source = deviceAlloc(static_cast<std::size_t>(bytes));
        DeviceBuffer const target = deviceAlloc(static_cast<std::size_t>(bytes));
        cudaCheck(cudaMemset(source.get(), kFill, static_cast<std::size_t>(bytes)), "cudaMemset");
        Launch const copy = [&](cudaStream_t s) {
            cudaCheck(cudaMemcpyAsync(
                          target.get(), source.get(), static_cast<std::size_t>(bytes), cudaMemcpyDeviceToDevice, s),
                "cudaMemcpyAsync");
        };
        for (std::string const& mode : modes)
        {
            std::unique_ptr<Graph> graph;
            Launch launch = copy;
            if (mode == "graph")
            {
                graph = std::make_unique<Graph>(copy, stream.get());
                launch = [&graph](cudaStream_t s) { graph->replay(s); };
            }
            Timing const timing = timeLaunches(launch, stream.get(), options.warmup, options.iterations);
            memcpyRate[mode] = gigabytesPerSecond(bytes, timing.median);
            JsonLine line = lineFor(block, "fp32", "cudaMemcpyAsync", mode, device);
            line.str("shape", shape).integer("bytes", bytes);
            addTiming(line, timing, options);
            line.num("gb_per_s", memcpyRate[mode]).boolean("output_ok", copiedCorrectly(target.get(), bytes, kFill));
            line.print();
        }
    }
    catch (std::exception const& e)
    {
        printError(block, "fp32", "cudaMemcpyAsync", "", device, std::to_string(mebibytes) + " MiB: " + e.what());
    }

    try
    {
        Plan const plan = buildPlan(logger, Precision::kFP32, [count](Net& net) { defineIdentityCopy(net, count); });
        std::size_t const freeBefore = freeDeviceBytes();
        LoadedEngine const loaded = loadEngine(logger, plan);
        void* input = tensorBuffer(loaded, "input", bytes);
        void* output = tensorBuffer(loaded, "output", bytes);
        cudaCheck(cudaMemset(input, kFill, static_cast<std::size_t>(bytes)), "cudaMemset");
        Launch const enqueue = [&](cudaStream_t s) { loaded.enqueue(s, logger); };
        enqueue(stream.get());
        cudaCheck(cudaStreamSynchronize(stream.get()), "cudaStreamSynchronize after the first run");
        std::size_t const freeAfter = freeDeviceBytes();
        for (std::string const& mode : modes)
        {
            try
            {
                cudaCheck(cudaMemset(output, 0, static_cast<std::size_t>(bytes)), "cudaMemset");
                std::unique_ptr<Graph> graph;
                Launch launch = enqueue;
                if (mode == "graph")
                {
                    graph = std::make_unique<Graph>(enqueue, stream.get());
                    launch = [&graph](cudaStream_t s) { graph->replay(s); };
                }
                Timing const timing = timeLaunches(launch, stream.get(), options.warmup, options.iterations);
                double const rate = gigabytesPerSecond(bytes, timing.median);
                JsonLine line = lineFor(block, "fp32", "kiln", mode, device);
                line.str("shape", shape).integer("bytes", bytes);
                addTiming(line, timing, options);
                line.num("gb_per_s", rate);
                auto const reference = memcpyRate.find(mode);
                line.num("gb_per_s_ratio_vs_memcpy", reference != memcpyRate.end() ? rate / reference->second : NAN);
                line.boolean("output_ok", copiedCorrectly(output, bytes, kFill));
                addMemory(line, loaded, plan, freeBefore, freeAfter);
                line.print();
            }
            catch (std::exception const& e)
            {
                printError(block, "fp32", "kiln", mode, device, std::to_string(mebibytes) + " MiB: " + e.what());
            }
        }
    }
    catch (std::exception const& e)
    {
        printError(block, "fp32", "kiln", "", device, std::to_string(mebibytes) + " MiB: " + e.what());
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Command line.
// ---------------------------------------------------------------------------------------------------------------

constexpr char const* kUsage
    = "usage: kiln_bench [--block conv_stack|transformer_block|resnet_stem|identity_plugin_copy|gelu|\n"
      "                           pointwise_broadcast]...\n"
      "                  [--precision fp32|fp16]...\n"
      "                  [--iterations N] [--warmup N] [--dump DIR] [--no-graph]\n";

//! The blocks run when no --block is given.
std::vector<std::string> const kDefaultBlocks
    = {"conv_stack", "transformer_block", "resnet_stem", "identity_plugin_copy"};
std::vector<std::string> const kBlocks
    = {"conv_stack", "transformer_block", "resnet_stem", "identity_plugin_copy", "gelu", "pointwise_broadcast"};

bool parseCount(char const* text, int32_t minimum, int32_t& value)
{
    char* end = nullptr;
    long const parsed = std::strtol(text, &end, 10);
    if (end == text || *end != '\0' || parsed < minimum || parsed > 1000000)
    {
        return false;
    }
    value = static_cast<int32_t>(parsed);
    return true;
}

//! The options, or nullptr after printing why they are wrong.
std::unique_ptr<Options> parseOptions(int argc, char** argv)
{
    auto options = std::make_unique<Options>();
    for (int i = 1; i < argc; ++i)
    {
        std::string const arg = argv[i];
        bool const hasValue = i + 1 < argc;
        if (arg == "--help" || arg == "-h")
        {
            std::cout << kUsage;
            std::exit(0);
        }
        if (arg == "--no-graph")
        {
            options->graphs = false;
            continue;
        }
        if (!hasValue)
        {
            std::cerr << "kiln_bench: " << arg << " needs a value (or is unknown)\n" << kUsage;
            return nullptr;
        }
        std::string const value = argv[++i];
        if (arg == "--block" && std::find(kBlocks.begin(), kBlocks.end(), value) != kBlocks.end())
        {
            options->blocks.push_back(value);
        }
        else if (arg == "--precision" && (value == "fp32" || value == "fp16"))
        {
            options->precisions.push_back(value);
        }
        else if (arg == "--iterations" && parseCount(value.c_str(), 1, options->iterations))
        {
        }
        else if (arg == "--warmup" && parseCount(value.c_str(), 0, options->warmup))
        {
        }
        else if (arg == "--dump")
        {
            options->dumpDir = value;
        }
        else
        {
            std::cerr << "kiln_bench: bad option " << arg << " " << value << "\n" << kUsage;
            return nullptr;
        }
    }
    if (options->blocks.empty())
    {
        options->blocks = kDefaultBlocks;
    }
    if (options->precisions.empty())
    {
        options->precisions = {"fp32", "fp16"};
    }
    return options;
}

} // namespace

int main(int argc, char** argv)
{
    std::unique_ptr<Options> const options = parseOptions(argc, argv);
    if (options == nullptr)
    {
        return 2;
    }
    // The bench binds device buffers, so it needs the CUDA backend whatever the environment says.
    setenv("KILN_BACKEND", "cuda", 1);

    std::string device = "unknown";
    cudaDeviceProp properties{};
    if (cudaError_t const status = cudaGetDeviceProperties(&properties, 0); status != cudaSuccess)
    {
        for (std::string const& block : options->blocks)
        {
            printError(block, "", "kiln", "", device, std::string("no usable GPU: ") + cudaGetErrorString(status));
        }
        return 1;
    }
    device = properties.name;

    Logger logger("kiln_bench");
    static IdentityCopyCreator creator;
    if (!getPluginRegistry()->registerCreator(creator, kPluginNamespace))
    {
        std::cerr << "kiln_bench: registering the IdentityCopy creator failed\n";
    }

    std::vector<ModelBlock> const models = {
        ModelBlock{"conv_stack", defineConvStack, convInputDims(), TensorSpec{1, 1.0}, convGflop()},
        ModelBlock{"transformer_block", defineTransformerBlock, transformerInputDims(), TensorSpec{2, 1.0},
            transformerGflop()},
        ModelBlock{
            "resnet_stem", defineResnetStem, stemInputDims(), TensorSpec{5, 1.0}, stemGflop(), 0, stemOutputDims()},
        ModelBlock{"gelu", defineGelu, pointwiseDims(), TensorSpec{3, 2.0}, 0.0, 2 * volume(pointwiseDims())},
        ModelBlock{"pointwise_broadcast", definePointwiseBroadcast, pointwiseDims(), TensorSpec{4, 1.0}, 0.0,
            2 * volume(pointwiseDims())},
    };
    auto const selected
        = [&](std::string const& name) { return std::count(options->blocks.begin(), options->blocks.end(), name) > 0; };
    for (ModelBlock const& block : models)
    {
        if (!selected(block.name))
        {
            continue;
        }
        for (std::string const& precisionText : options->precisions)
        {
            Precision const precision = precisionText == "fp32" ? Precision::kFP32 : Precision::kFP16;
            try
            {
                runModelBlock(block, precision, *options, logger, device);
            }
            catch (std::exception const& e)
            {
                printError(block.name, precisionText, "kiln", "", device, e.what());
            }
        }
    }
    if (selected("identity_plugin_copy"))
    {
        for (int64_t const mebibytes : {int64_t{64}, int64_t{256}})
        {
            runIdentityCopy(mebibytes, *options, logger, device);
        }
    }
    static_cast<void>(getPluginRegistry()->deregisterCreator(creator));
    return gErrorLines > 0 ? 1 : 0;
}
