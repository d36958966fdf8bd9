// SPDX-License-Identifier: Apache-2.0
// A small convolutional network built through the TensorRT API, saved as a plan, loaded by a fresh runtime and run
// at three batch sizes, on the GPU or on the host (io_buffers.h); the result is checked against the same network
// computed with plain loops.
//
//     conv_network [plan-path]      (default: conv_network.plan in the working directory)
//
// input [N, 1, 8, 8] -> convolution 3x3, 4 maps, bias -> ReLU -> max pooling 2x2 -> flatten [N, 36]
//   -> matrix multiply by [36, 3] -> add bias [1, 3] -> softmax over the 3 classes -> "probabilities" [N, 3]
#include "io_buffers.h"

#include "NvInfer.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;

class Logger final : public ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        if (severity <= Severity::kWARNING)
        {
            std::cerr << "kiln: " << msg << "\n";
        }
    }
};

constexpr int64_t kSide = 8;
constexpr int64_t kMaps = 4;
constexpr int64_t kKernel = 3;
constexpr int64_t kConvSide = kSide - kKernel + 1; // 6
constexpr int64_t kPoolSide = kConvSide / 2;       // 3
constexpr int64_t kFeatures = kMaps * kPoolSide * kPoolSide;
constexpr int64_t kClasses = 3;
constexpr int32_t kMaxBatch = 4;

//! The network's parameters, drawn once.
struct Parameters
{
    std::vector<float> kernel = std::vector<float>(kMaps * kKernel * kKernel);
    std::vector<float> bias = std::vector<float>(kMaps);
    std::vector<float> weights = std::vector<float>(kFeatures * kClasses);
    std::vector<float> classBias = std::vector<float>(kClasses);

    explicit Parameters(std::mt19937& random)
    {
        std::uniform_real_distribution<float> uniform(-1.F, 1.F);
        for (auto* values : {&kernel, &bias, &weights, &classBias})
        {
            std::generate(values->begin(), values->end(), [&] { return uniform(random); });
        }
    }
};

//! The network computed with plain loops, in double.
std::vector<float> reference(Parameters const& p, std::vector<float> const& input, int64_t batch)
{
    std::vector<float> result;
    for (int64_t n = 0; n < batch; ++n)
    {
        float const* image = input.data() + n * kSide * kSide;
        std::vector<double> features;
        for (int64_t m = 0; m < kMaps; ++m)
        {
            double conv[kConvSide][kConvSide];
            for (int64_t y = 0; y < kConvSide; ++y)
            {
                for (int64_t x = 0; x < kConvSide; ++x)
                {
                    double sum = p.bias[m];
                    for (int64_t ky = 0; ky < kKernel; ++ky)
                    {
                        for (int64_t kx = 0; kx < kKernel; ++kx)
                        {
                            sum += double{image[(y + ky) * kSide + x + kx]}
                                * p.kernel[(m * kKernel + ky) * kKernel + kx];
                        }
                    }
                    conv[y][x] = std::max(sum, 0.0);
                }
            }
            for (int64_t y = 0; y < kPoolSide; ++y)
            {
                for (int64_t x = 0; x < kPoolSide; ++x)
                {
                    features.push_back(std::max({conv[2 * y][2 * x], conv[2 * y][2 * x + 1], conv[2 * y + 1][2 * x],
                        conv[2 * y + 1][2 * x + 1]}));
                }
            }
        }
        double logits[kClasses];
        double largest = -INFINITY;
        for (int64_t c = 0; c < kClasses; ++c)
        {
            logits[c] = p.classBias[c];
            for (int64_t f = 0; f < kFeatures; ++f)
            {
                logits[c] += features[f] * p.weights[f * kClasses + c];
            }
            largest = std::max(largest, logits[c]);
        }
        double total = 0;
        for (double& logit : logits)
        {
            logit = std::exp(logit - largest);
            total += logit;
        }
        for (double const logit : logits)
        {
            result.push_back(static_cast<float>(logit / total));
        }
    }
    return result;
}

//! Builds the network and returns the plan, or an empty vector.
std::vector<char> buildPlan(Logger& logger, Parameters const& p)
{
    std::unique_ptr<IBuilder> builder{createInferBuilder(logger)};
    std::unique_ptr<INetworkDefinition> network{builder->createNetworkV2(0)};
    ITensor* input = network->addInput("image", DataType::kFLOAT, Dims4{-1, 1, kSide, kSide});

    auto* conv = network->addConvolutionNd(*input, kMaps, DimsHW{kKernel, kKernel},
        Weights{DataType::kFLOAT, p.kernel.data(), kMaps * kKernel * kKernel},
        Weights{DataType::kFLOAT, p.bias.data(), kMaps});
    conv->setName("conv");
    auto* relu = network->addActivation(*conv->getOutput(0), ActivationType::kRELU);
    auto* pool = network->addPoolingNd(*relu->getOutput(0), PoolingType::kMAX, DimsHW{2, 2});
    pool->setStrideNd(DimsHW{2, 2});
    auto* flatten = network->addShuffle(*pool->getOutput(0));
    flatten->setReshapeDimensions(Dims2{0, -1});
    auto* weights = network->addConstant(
        Dims2{kFeatures, kClasses}, Weights{DataType::kFLOAT, p.weights.data(), kFeatures * kClasses});
    auto* product = network->addMatrixMultiply(
        *flatten->getOutput(0), MatrixOperation::kNONE, *weights->getOutput(0), MatrixOperation::kNONE);
    auto* classBias = network->addConstant(Dims2{1, kClasses}, Weights{DataType::kFLOAT, p.classBias.data(), kClasses});
    auto* logits
        = network->addElementWise(*product->getOutput(0), *classBias->getOutput(0), ElementWiseOperation::kSUM);
    auto* softmax = network->addSoftMax(*logits->getOutput(0));
    softmax->setAxes(1U << 1);
    softmax->getOutput(0)->setName("probabilities");
    network->markOutput(*softmax->getOutput(0));

    std::unique_ptr<IBuilderConfig> config{builder->createBuilderConfig()};
    IOptimizationProfile* profile = builder->createOptimizationProfile();
    profile->setDimensions("image", OptProfileSelector::kMIN, Dims4{1, 1, kSide, kSide});
    profile->setDimensions("image", OptProfileSelector::kOPT, Dims4{2, 1, kSide, kSide});
    profile->setDimensions("image", OptProfileSelector::kMAX, Dims4{kMaxBatch, 1, kSide, kSide});
    config->addOptimizationProfile(profile);

    std::unique_ptr<IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
    if (plan == nullptr)
    {
        return {};
    }
    auto const* bytes = static_cast<char const*>(plan->data());
    return std::vector<char>(bytes, bytes + plan->size());
}

//! Runs the engine at one batch size and compares with the reference; returns whether it matched.
bool runAndCheck(ICudaEngine& engine, Parameters const& p, int64_t batch, std::mt19937& random)
{
    std::unique_ptr<IExecutionContext> context{engine.createExecutionContext()};
    std::vector<float> input(batch * kSide * kSide);
    std::uniform_real_distribution<float> uniform(0.F, 1.F);
    std::generate(input.begin(), input.end(), [&] { return uniform(random); });
    std::vector<float> output(batch * kClasses, NAN);

    // Host memory for a host engine; device memory, copied from and to these vectors, for a CUDA engine.
    example::IoBuffers io("conv_network", engine, *context);
    bool ok = context->setInputShape("image", Dims4{batch, 1, kSide, kSide}) && io.input("image", input)
        && io.output("probabilities", output) && io.enqueue();
    if (!ok)
    {
        std::cerr << "conv_network: running at batch " << batch << " failed\n";
        return false;
    }
    Dims const shape = context->getTensorShape("probabilities");
    if (shape.nbDims != 2 || shape.d[0] != batch || shape.d[1] != kClasses)
    {
        std::cerr << "conv_network: unexpected output shape\n";
        return false;
    }
    std::vector<float> const expected = reference(p, input, batch);
    double worst = 0;
    for (std::size_t i = 0; i < expected.size(); ++i)
    {
        worst = std::max(worst, std::abs(double{output[i]} - expected[i]));
    }
    std::printf("batch %lld: probabilities of image 0: %.5f %.5f %.5f; largest difference from the reference %.2e\n",
        static_cast<long long>(batch), output[0], output[1], output[2], worst);
    return worst < 1e-5;
}

} // namespace

int main(int argc, char** argv)
{
    std::string const path = argc > 1 ? argv[1] : "conv_network.plan";
    Logger logger;
    std::mt19937 random(2026);
    Parameters const parameters(random);

    std::vector<char> const plan = buildPlan(logger, parameters);
    if (plan.empty())
    {
        std::cerr << "conv_network: the build failed\n";
        return 1;
    }
    std::ofstream(path, std::ios::binary).write(plan.data(), static_cast<std::streamsize>(plan.size()));
    std::printf("built the network and saved a %zu-byte plan to %s\n", plan.size(), path.c_str());

    // A fresh runtime loads the plan from the file, as a deployment would.
    std::ifstream file(path, std::ios::binary);
    std::vector<char> const loaded{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
    std::unique_ptr<IRuntime> runtime{createInferRuntime(logger)};
    std::unique_ptr<ICudaEngine> engine{runtime->deserializeCudaEngine(loaded.data(), loaded.size())};
    if (engine == nullptr)
    {
        std::cerr << "conv_network: the plan did not load\n";
        return 1;
    }
    bool ok = true;
    for (int64_t const batch : {int64_t{1}, int64_t{3}, int64_t{kMaxBatch}})
    {
        ok = runAndCheck(*engine, parameters, batch, random) && ok;
    }
    std::printf(ok ? "OK\n" : "FAILED\n");
    return ok ? 0 : 1;
}
