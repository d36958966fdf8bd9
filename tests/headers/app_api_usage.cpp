// Compile-matrix translation unit: an application written the way TensorRT's samples are, against NvInfer.h only.
// It builds a small strongly typed network with every layer kiln declares, builds a plan with a memory-pool limit,
// an optimization profile and a timing cache, deserializes it and runs it with an output allocator. Nothing here
// is run (the matrix compiles with -fsyntax-only and no implementation exists yet): the file proves that such an
// application compiles unchanged, warning-free, as C++14/17/20, with and without RTTI, against the CUDA stand-in
// and the real CUDA headers. It uses no deprecated API, so deprecation warnings would fail it too.

#include "NvInfer.h"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

namespace
{

using namespace nvinfer1;

//! Prints warnings and errors, as the samples' logger does.
class AppLogger : public ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        if (severity <= Severity::kWARNING)
        {
            std::fprintf(stderr, "[kiln] %s\n", msg);
        }
    }
};

//! Gives data-dependent outputs memory from an arena the application owns (device memory in a real program).
class ArenaOutputAllocator : public IOutputAllocator
{
public:
    ArenaOutputAllocator(void* arena, uint64_t arenaBytes) noexcept
        : mArena(arena)
        , mArenaBytes(arenaBytes)
    {
    }

    void* reallocateOutputAsync(char const* /*tensorName*/, void* currentMemory, uint64_t size, uint64_t /*alignment*/,
        cudaStream_t /*stream*/) override
    {
        if (currentMemory != nullptr && size <= mArenaBytes)
        {
            return currentMemory;
        }
        return size <= mArenaBytes ? mArena : nullptr;
    }

    void notifyShape(char const* /*tensorName*/, Dims const& dims) noexcept override { mLastShape = dims; }

    Dims lastShape() const noexcept { return mLastShape; }

private:
    void* mArena;
    uint64_t mArenaBytes;
    Dims mLastShape{-1, {}};
};

uint32_t bit(int32_t axis) noexcept
{
    return 1U << static_cast<uint32_t>(axis);
}

//! The weights of the network; they must outlive the build.
struct AppWeights
{
    std::vector<float> kernel = std::vector<float>(8 * 3 * 3 * 3, 0.01F);
    std::vector<float> bias = std::vector<float>(8, 0.0F);
    std::vector<float> projection = std::vector<float>(8 * 4, 0.5F);
    std::vector<int32_t> gatherIndices{0, 3};
    std::vector<float> threshold{0.25F};
};

//! A strongly typed network: image [N, 3, 16, 16] and a shape input fillShape [2] in, two outputs out.
bool defineNetwork(INetworkDefinition& network, AppWeights const& w)
{
    ITensor* image = network.addInput("image", DataType::kFLOAT, Dims4{-1, 3, 16, 16});
    ITensor* fillShape = network.addInput("fillShape", DataType::kINT64, Dims{1, {2}});
    if (image == nullptr || fillShape == nullptr)
    {
        return false;
    }

    Weights const kernel{DataType::kFLOAT, w.kernel.data(), static_cast<int64_t>(w.kernel.size())};
    Weights const bias{DataType::kFLOAT, w.bias.data(), static_cast<int64_t>(w.bias.size())};
    IConvolutionLayer* conv = network.addConvolutionNd(*image, 8, DimsHW{3, 3}, kernel, bias);
    conv->setStrideNd(DimsHW{1, 1});
    conv->setPaddingMode(PaddingMode::kSAME_UPPER);
    conv->setName("conv");

    IActivationLayer* relu = network.addActivation(*conv->getOutput(0), ActivationType::kLEAKY_RELU);
    relu->setAlpha(0.1F);

    IPoolingLayer* pool = network.addPoolingNd(*relu->getOutput(0), PoolingType::kMAX, DimsHW{2, 2});
    pool->setStrideNd(DimsHW{2, 2});

    IElementWiseLayer* doubled
        = network.addElementWise(*pool->getOutput(0), *pool->getOutput(0), ElementWiseOperation::kSUM);

    // [N, 8, 8, 8] -> [N, 8, 1, 1] -> [N, 8]
    IReduceLayer* mean = network.addReduce(*doubled->getOutput(0), ReduceOperation::kAVG, bit(2) | bit(3), true);
    IShuffleLayer* flatten = network.addShuffle(*mean->getOutput(0));
    flatten->setReshapeDimensions(Dims{2, {0, 8}});
    Permutation identityOrder{};
    for (int32_t i = 0; i < Dims::MAX_DIMS; ++i)
    {
        identityOrder.order[i] = i;
    }
    flatten->setFirstTranspose(identityOrder);

    // [N, 8] x [8, 4] -> [N, 4], softmax over axis 1.
    IConstantLayer* projection = network.addConstant(
        Dims{2, {8, 4}}, Weights{DataType::kFLOAT, w.projection.data(), static_cast<int64_t>(w.projection.size())});
    IMatrixMultiplyLayer* logits = network.addMatrixMultiply(
        *flatten->getOutput(0), MatrixOperation::kNONE, *projection->getOutput(0), MatrixOperation::kNONE);
    ISoftMaxLayer* probabilities = network.addSoftMax(*logits->getOutput(0));
    probabilities->setAxes(bit(1));

    // Take columns 0-1, concatenate twice along axis 1, gather columns 0 and 3 -> [N, 2].
    ISliceLayer* firstTwo = network.addSlice(*probabilities->getOutput(0), Dims{1, {0}}, Dims{1, {2}}, Dims{1, {1}});
    firstTwo->setAxes(Dims{1, {1}});
    ITensor* halves[] = {firstTwo->getOutput(0), firstTwo->getOutput(0)};
    IConcatenationLayer* joined = network.addConcatenation(halves, 2);
    joined->setAxis(1);
    IConstantLayer* indices = network.addConstant(
        Dims{1, {2}}, Weights{DataType::kINT32, w.gatherIndices.data(), static_cast<int64_t>(w.gatherIndices.size())});
    IGatherLayer* picked = network.addGather(*joined->getOutput(0), *indices->getOutput(0), 1);
    picked->setMode(GatherMode::kDEFAULT);

    // Where a probability exceeds the threshold keep it, else take a ramp whose shape comes from fillShape.
    IConstantLayer* threshold = network.addConstant(Dims{2, {1, 1}}, Weights{DataType::kFLOAT, w.threshold.data(), 1});
    IElementWiseLayer* above
        = network.addElementWise(*picked->getOutput(0), *threshold->getOutput(0), ElementWiseOperation::kGREATER);
    IFillLayer* ramp = network.addFill(Dims{2, {1, 2}}, FillOperation::kLINSPACE, DataType::kFLOAT);
    ramp->setInput(0, *fillShape);
    ramp->setAlpha(0.0);
    ramp->setBeta(0.5);
    ISelectLayer* chosen = network.addSelect(*above->getOutput(0), *picked->getOutput(0), *ramp->getOutput(0));

    // Where the threshold was passed (a data-dependent shape, not used further), and NMS's methods.
    INonZeroLayer* where = network.addNonZero(*above->getOutput(0), DataType::kINT64);
    if (!where->setIndicesType(DataType::kINT32) || where->getIndicesType() != DataType::kINT32)
    {
        return false;
    }
    INMSLayer* nms = network.addNMS(*picked->getOutput(0), *picked->getOutput(0), *fillShape, DataType::kINT64);
    nms->setBoundingBoxFormat(BoundingBoxFormat::kCENTER_SIZES);
    nms->setTopKBoxLimit(100);
    nms->setInput(4, *threshold->getOutput(0));
    if (nms->getBoundingBoxFormat() != BoundingBoxFormat::kCENTER_SIZES || nms->getTopKBoxLimit() != 100
        || !nms->setIndicesType(DataType::kINT32) || nms->getIndicesType() != DataType::kINT32)
    {
        return false;
    }

    // Through FP8 and back (explicit quantization, one scale for the tensor).
    IConstantLayer* fp8Scale = network.addConstant(Dims{0, {}}, Weights{DataType::kFLOAT, w.threshold.data(), 1});
    IQuantizeLayer* quantized = network.addQuantize(*chosen->getOutput(0), *fp8Scale->getOutput(0), DataType::kFP8);
    quantized->setAxis(0);
    IDequantizeLayer* dequantized
        = network.addDequantize(*quantized->getOutput(0), *fp8Scale->getOutput(0), DataType::kFLOAT);
    if (dequantized->getToType() != DataType::kFLOAT || dequantized->getBlockShape().nbDims != -1)
    {
        return false;
    }
    IUnaryLayer* magnitude = network.addUnary(*dequantized->getOutput(0), UnaryOperation::kABS);
    ICastLayer* toHalf = network.addCast(*magnitude->getOutput(0), DataType::kHALF);
    IIdentityLayer* result = network.addIdentity(*toHalf->getOutput(0));
    result->getOutput(0)->setName("scores");
    network.markOutput(*result->getOutput(0));

    // The shape of the scores as a shape output, computed by inferShapes().
    IShapeLayer* scoresShape = network.addShape(*result->getOutput(0));
    scoresShape->getOutput(0)->setName("scoresShape");
    if (!network.markOutputForShapes(*scoresShape->getOutput(0)))
    {
        return false;
    }

    for (int32_t i = 0; i < network.getNbLayers(); ++i)
    {
        ILayer* layer = network.getLayer(i);
        if (layer->getType() == LayerType::kCONSTANT && layer->getName() == nullptr)
        {
            layer->setName("constant");
        }
    }
    network.setName("app_api_usage");
    return network.getNbInputs() == 2 && network.getNbOutputs() == 2
        && network.getFlag(NetworkDefinitionCreationFlag::kSTRONGLY_TYPED);
}

//! Builds the plan: strongly typed network, 256 MiB workspace, one profile for batch 1..8, a timing cache.
std::unique_ptr<IHostMemory> buildPlan(ILogger& logger, AppWeights const& weights)
{
    std::unique_ptr<IBuilder> builder{createInferBuilder(logger)};
    if (!builder)
    {
        return nullptr;
    }
    uint32_t const flags = 1U << static_cast<uint32_t>(NetworkDefinitionCreationFlag::kSTRONGLY_TYPED);
    std::unique_ptr<INetworkDefinition> network{builder->createNetworkV2(flags)};
    std::unique_ptr<IBuilderConfig> config{builder->createBuilderConfig()};
    if (!network || !config || !defineNetwork(*network, weights))
    {
        return nullptr;
    }

    config->setMemoryPoolLimit(MemoryPoolType::kWORKSPACE, std::size_t{1} << 28U);
    config->setProfilingVerbosity(ProfilingVerbosity::kDETAILED);
    config->setBuilderOptimizationLevel(3);
    config->setPreviewFeature(PreviewFeature::kALIASED_PLUGIN_IO_10_03, true);
    config->setAvgTimingIterations(2);

    IOptimizationProfile* profile = builder->createOptimizationProfile();
    profile->setDimensions("image", OptProfileSelector::kMIN, Dims4{1, 3, 16, 16});
    profile->setDimensions("image", OptProfileSelector::kOPT, Dims4{4, 3, 16, 16});
    profile->setDimensions("image", OptProfileSelector::kMAX, Dims4{8, 3, 16, 16});
    int64_t const minShape[] = {1, 2};
    int64_t const optShape[] = {4, 2};
    int64_t const maxShape[] = {8, 2};
    bool const shapesSet = profile->setShapeValuesV2("fillShape", OptProfileSelector::kMIN, minShape, 2)
        && profile->setShapeValuesV2("fillShape", OptProfileSelector::kOPT, optShape, 2)
        && profile->setShapeValuesV2("fillShape", OptProfileSelector::kMAX, maxShape, 2);
    if (!shapesSet || !profile->isValid() || config->addOptimizationProfile(profile) < 0)
    {
        return nullptr;
    }

    std::unique_ptr<ITimingCache> cache{config->createTimingCache(nullptr, 0)};
    if (cache)
    {
        config->setTimingCache(*cache, false);
    }

    std::unique_ptr<IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
    if (cache)
    {
        IHostMemory* savedCache = cache->serialize();
        delete savedCache;
    }
    return plan;
}

//! Runs the plan once on stream with batch size batch; the buffers are the application's device memory.
bool runPlan(ILogger& logger, IHostMemory const& plan, int32_t batch, void* image, void* scores, void* outputArena,
    cudaStream_t stream)
{
    std::unique_ptr<IRuntime> runtime{createInferRuntime(logger)};
    if (!runtime)
    {
        return false;
    }
    std::unique_ptr<ICudaEngine> engine{runtime->deserializeCudaEngine(plan.data(), plan.size())};
    if (!engine)
    {
        return false;
    }
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    if (!context || !context->setOptimizationProfileAsync(0, stream))
    {
        return false;
    }

    int64_t fillShape[] = {batch, 2};
    int64_t scoresShape[] = {0, 0};
    ArenaOutputAllocator allocator{outputArena, uint64_t{1} << 20U};
    for (int32_t i = 0; i < engine->getNbIOTensors(); ++i)
    {
        char const* name = engine->getIOTensorName(i);
        bool const hostTensor = engine->getTensorLocation(name) == TensorLocation::kHOST;
        if (engine->getTensorIOMode(name) == TensorIOMode::kINPUT)
        {
            if (engine->isShapeInferenceIO(name))
            {
                context->setInputShape(name, Dims{1, {2}});
                context->setTensorAddress(name, fillShape);
            }
            else
            {
                context->setInputShape(name, Dims4{batch, 3, 16, 16});
                context->setTensorAddress(name, image);
            }
        }
        else if (engine->getTensorIOMode(name) == TensorIOMode::kOUTPUT)
        {
            if (hostTensor)
            {
                context->setTensorAddress(name, scoresShape);
            }
            else
            {
                context->setTensorAddress(name, scores);
                context->setOutputAllocator(name, &allocator);
            }
        }
    }
    if (!context->allInputDimensionsSpecified() || context->inferShapes(0, nullptr) != 0)
    {
        return false;
    }
    Dims const expected = context->getTensorShape("scores");
    bool const ran = context->enqueueV3(stream);
    // The engine, the context and the runtime go in the reverse order of their creation.
    context.reset();
    engine.reset();
    return ran && expected.nbDims == 2;
}

//! Refits engine's convolution "conv" with new kernel weights the way TensorRT's samples do: a refitter from
//! createInferRefitter, the missing weights listed, new weights by layer and role and by name (the name an ONNX
//! initializer would give), then the refit.
bool refitEngine(ICudaEngine& engine, ILogger& logger, Weights kernel, void* deviceKernel, cudaStream_t stream)
{
    if (!engine.isRefittable())
    {
        return false;
    }
    std::unique_ptr<IRefitter> refitter{createInferRefitter(engine, logger)};
    if (!refitter)
    {
        return false;
    }
    int32_t const nbMissing = refitter->getMissing(0, nullptr, nullptr);
    std::vector<char const*> layerNames(static_cast<std::size_t>(nbMissing));
    std::vector<WeightsRole> roles(static_cast<std::size_t>(nbMissing));
    refitter->getMissing(nbMissing, layerNames.data(), roles.data());
    int32_t const nbWeights = refitter->getAllWeights(0, nullptr);
    std::vector<char const*> weightsNames(static_cast<std::size_t>(nbWeights));
    refitter->getAllWeights(nbWeights, weightsNames.data());
    if (!refitter->setWeights("conv", WeightsRole::kKERNEL, kernel))
    {
        return false;
    }
    Weights const prototype = refitter->getWeightsPrototype("conv.weight");
    Weights const onDevice{prototype.type, deviceKernel, prototype.count};
    if (!refitter->setNamedWeights("conv.weight", onDevice, TensorLocation::kDEVICE)
        || refitter->getWeightsLocation("conv.weight") != TensorLocation::kDEVICE)
    {
        return false;
    }
    refitter->setWeightsValidation(true);
    refitter->setMaxThreads(2);
    return refitter->getMissingWeights(0, nullptr) == 0 && refitter->refitCudaEngineAsync(stream)
        && getBuilderPluginRegistry(EngineCapability::kSTANDARD) != nullptr;
}

} // namespace

int main()
{
    AppLogger logger;
    AppWeights const weights;
    std::unique_ptr<IHostMemory> plan = buildPlan(logger, weights);
    if (!plan)
    {
        return 1;
    }
    std::printf("plan of %zu bytes (type %d)\n", plan->size(), static_cast<int>(plan->type()));
    // A real application allocates these with cudaMalloc and creates the stream with cudaStreamCreate.
    void* image = nullptr;
    void* scores = nullptr;
    void* arena = nullptr;
    cudaStream_t stream = nullptr;
    if (!runPlan(logger, *plan, 4, image, scores, arena, stream))
    {
        return 1;
    }
    std::unique_ptr<IRuntime> runtime{createInferRuntime(logger)};
    std::unique_ptr<ICudaEngine> engine{runtime->deserializeCudaEngine(plan->data(), plan->size())};
    Weights const kernel{DataType::kFLOAT, weights.kernel.data(), static_cast<int64_t>(weights.kernel.size())};
    return engine && refitEngine(*engine, logger, kernel, nullptr, stream) ? 0 : 1;
}
