// SPDX-License-Identifier: Apache-2.0
// kiln_onnx_parse_bench: how long parsing an ONNX model and building its plan take, and how much host memory they
// need, through kiln's public API (nvonnxparser::IParser::parseFromFile, IBuilder::buildSerializedNetwork) on the host
// backend. Made for models with big external weights (bench/onnx/onnx_big_model.py): the parser maps the weights
// file, so the question is how many copies of the weights the way into the plan makes.
//
//     kiln_onnx_parse_bench MODEL.onnx [--plan FILE] [--interval-ms N]
//
//     {"bench":"onnx_parse","parse_s":0.01,"build_s":2.1,"plan_bytes":1342...,"copies":1,...}
//
// Memory comes from /proc/self/status: a thread samples RssAnon (heap and anonymous mappings: copies of the
// weights) and RssFile (file pages mapped: the weights file the parser maps) every --interval-ms (1) and keeps each
// phase's largest value; VmHWM is the kernel's own peak of the whole resident set. "copies" is the anonymous memory
// above the baseline (before parsing) at its peak, in units of the weights' size, rounded: the plan itself is one,
// every other copy alive at the same time adds one. Building runs nothing: the host backend times no kernels (only
// plugins are timed, and the model has none), so build_s is the builder's bookkeeping plus the copy into the plan.
// The plan stays alive until the end, so the build's peak includes it.
#include "NvInfer.h"
#include "NvOnnxParser.h"
#include "json_line.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace
{

using Clock = std::chrono::steady_clock;

//! Prints kiln's warnings and errors to stderr.
class Logger final : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        if (severity <= Severity::kWARNING)
        {
            std::fprintf(stderr, "kiln_onnx_parse_bench: kiln: %s\n", msg);
        }
    }
};

//! The process's resident memory by kind, in bytes (/proc/self/status).
struct Resident
{
    int64_t anon{};  //!< RssAnon: heap and anonymous mappings.
    int64_t file{};  //!< RssFile: pages of mapped files.
    int64_t total{}; //!< VmRSS.
    int64_t hwm{};   //!< VmHWM: the peak of VmRSS so far.
};

Resident readResident()
{
    Resident r;
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
    {
        auto const field = [&](std::string_view key, int64_t& into) {
            if (line.compare(0, key.size(), key) == 0)
            {
                into = std::strtoll(line.c_str() + key.size(), nullptr, 10) * 1024; // the kernel writes "N kB"
            }
        };
        field("RssAnon:", r.anon);
        field("RssFile:", r.file);
        field("VmRSS:", r.total);
        field("VmHWM:", r.hwm);
    }
    return r;
}

//! Samples readResident() on a thread and keeps the largest values since the last take().
class Sampler
{
public:
    explicit Sampler(std::chrono::milliseconds interval)
        : mInterval(interval)
        , mThread([this] { loop(); })
    {
    }
    ~Sampler()
    {
        mStop = true;
        mThread.join();
    }
    Sampler(Sampler const&) = delete;
    Sampler& operator=(Sampler const&) = delete;

    //! The largest values since the last call (a sample taken now included); starts the next phase.
    Resident take()
    {
        sample();
        std::lock_guard<std::mutex> const lock(mMutex);
        Resident const peak = mPeak;
        mPeak = Resident{};
        return peak;
    }

private:
    void loop()
    {
        while (!mStop)
        {
            sample();
            std::this_thread::sleep_for(mInterval);
        }
    }

    void sample()
    {
        Resident const now = readResident();
        std::lock_guard<std::mutex> const lock(mMutex);
        mPeak.anon = std::max(mPeak.anon, now.anon);
        mPeak.file = std::max(mPeak.file, now.file);
        mPeak.total = std::max(mPeak.total, now.total);
        mPeak.hwm = std::max(mPeak.hwm, now.hwm);
    }

    std::chrono::milliseconds mInterval;
    std::mutex mMutex;
    Resident mPeak;
    std::atomic<bool> mStop{false};
    std::thread mThread;
};

//! The bytes of the weights the network's constant and convolution layers hold (what the plan must carry).
int64_t networkWeightBytes(nvinfer1::INetworkDefinition const& network)
{
    auto const bytes = [](nvinfer1::Weights const& w) -> int64_t {
        int64_t bits = 32;
        switch (w.type)
        {
        case nvinfer1::DataType::kHALF:
        case nvinfer1::DataType::kBF16: bits = 16; break;
        case nvinfer1::DataType::kINT8:
        case nvinfer1::DataType::kUINT8:
        case nvinfer1::DataType::kBOOL:
        case nvinfer1::DataType::kFP8:
        case nvinfer1::DataType::kE8M0: bits = 8; break;
        case nvinfer1::DataType::kINT64: bits = 64; break;
        case nvinfer1::DataType::kINT4:
        case nvinfer1::DataType::kFP4: bits = 4; break;
        default: break;
        }
        return (w.count * bits + 7) / 8;
    };
    int64_t total = 0;
    for (int32_t i = 0; i < network.getNbLayers(); ++i)
    {
        nvinfer1::ILayer* layer = network.getLayer(i);
        if (layer->getType() == nvinfer1::LayerType::kCONSTANT)
        {
            total += bytes(static_cast<nvinfer1::IConstantLayer*>(layer)->getWeights());
        }
        else if (layer->getType() == nvinfer1::LayerType::kCONVOLUTION)
        {
            auto* conv = static_cast<nvinfer1::IConvolutionLayer*>(layer);
            total += bytes(conv->getKernelWeights()) + bytes(conv->getBiasWeights());
        }
    }
    return total;
}

//! bytes in MiB.
double mib(int64_t bytes)
{
    return static_cast<double>(bytes) / 1048576.0;
}

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

int usage()
{
    std::fprintf(stderr, "usage: kiln_onnx_parse_bench MODEL.onnx [--plan FILE] [--interval-ms N]\n");
    return 2;
}

} // namespace

int main(int argc, char** argv)
{
    std::string model;
    std::string planPath;
    int interval = 1;
    for (int i = 1; i < argc; ++i)
    {
        std::string_view const arg = argv[i];
        if (arg == "--plan" && i + 1 < argc)
        {
            planPath = argv[++i];
        }
        else if (arg == "--interval-ms" && i + 1 < argc)
        {
            interval = std::max(1, std::atoi(argv[++i]));
        }
        else if (model.empty() && !arg.starts_with("--"))
        {
            model = arg;
        }
        else
        {
            return usage();
        }
    }
    if (model.empty())
    {
        return usage();
    }
    // The host backend: the benchmark measures parsing and building, which need no GPU.
    setenv("KILN_BACKEND", "host", 1);

    Logger logger;
    Sampler sampler{std::chrono::milliseconds(interval)};
    std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger)};
    std::unique_ptr<nvinfer1::INetworkDefinition> network{builder ? builder->createNetworkV2(0) : nullptr};
    std::unique_ptr<nvinfer1::IBuilderConfig> config{builder ? builder->createBuilderConfig() : nullptr};
    std::unique_ptr<nvonnxparser::IParser> parser{network ? nvonnxparser::createParser(*network, logger) : nullptr};
    if (!parser || !config)
    {
        std::fprintf(stderr, "kiln_onnx_parse_bench: cannot create the builder, network, config or parser\n");
        return 1;
    }
    Resident const baseline = sampler.take();

    // 1. Parse: the weights stay in the mapped file (and the kept ModelProto).
    Clock::time_point start = Clock::now();
    bool const parsed = parser->parseFromFile(model.c_str(), static_cast<int>(nvinfer1::ILogger::Severity::kWARNING));
    double const parseSeconds = secondsSince(start);
    Resident const parsePeak = sampler.take();
    if (!parsed)
    {
        for (int32_t i = 0; i < parser->getNbErrors(); ++i)
        {
            std::fprintf(stderr, "kiln_onnx_parse_bench: %s\n", parser->getError(i)->desc());
        }
        return 1;
    }
    int64_t const weightBytes = networkWeightBytes(*network);

    // 2. Build: the plan, in one IHostMemory.
    start = Clock::now();
    std::unique_ptr<nvinfer1::IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
    double const buildSeconds = secondsSince(start);
    Resident const buildPeak = sampler.take();
    if (!plan)
    {
        std::fprintf(stderr, "kiln_onnx_parse_bench: buildSerializedNetwork failed\n");
        return 1;
    }

    // 3. Optionally, the plan to a file (not counted in the peaks above).
    double writeSeconds = 0;
    if (!planPath.empty())
    {
        start = Clock::now();
        std::ofstream out(planPath, std::ios::binary);
        out.write(static_cast<char const*>(plan->data()), static_cast<std::streamsize>(plan->size()));
        out.close();
        writeSeconds = secondsSince(start);
        if (!out)
        {
            std::fprintf(stderr, "kiln_onnx_parse_bench: cannot write %s\n", planPath.c_str());
            return 1;
        }
    }
    Resident const end = readResident();

    int64_t const peakAnon = std::max(parsePeak.anon, buildPeak.anon);
    double const copies
        = weightBytes > 0 ? static_cast<double>(peakAnon - baseline.anon) / static_cast<double>(weightBytes) : 0.0;
    JsonLine line;
    line.str("bench", "onnx_parse")
        .str("model", model)
        .integer("layers", network->getNbLayers())
        .integer("weights_bytes", weightBytes)
        .integer("plan_bytes", static_cast<int64_t>(plan->size()))
        .num("parse_s", parseSeconds)
        .num("build_s", buildSeconds);
    if (!planPath.empty())
    {
        line.num("write_s", writeSeconds);
    }
    line.num("baseline_anon_mib", mib(baseline.anon))
        .num("baseline_file_mib", mib(baseline.file))
        .num("parse_peak_anon_mib", mib(parsePeak.anon))
        .num("parse_peak_file_mib", mib(parsePeak.file))
        .num("build_peak_anon_mib", mib(buildPeak.anon))
        .num("build_peak_file_mib", mib(buildPeak.file))
        .num("peak_rss_mib", mib(std::max(parsePeak.total, buildPeak.total)))
        .num("vm_hwm_mib", mib(end.hwm))
        .num("copies_exact", copies)
        .integer("copies", std::lround(copies))
        .print();
    return 0;
}
