// SPDX-License-Identifier: Apache-2.0
// The plan fuzz target: any bytes go to IRuntime::deserializeCudaEngine. The first byte picks how: 0 (and every
// multiple of 4) passes the rest as the plan file; any other value wraps the rest, as a payload, in a valid envelope
// (plan/container.h: header and CRC-64), so that mutations reach the FlatBuffers verifier and the model checks behind
// the checksum. A plan it refuses gives nullptr and an error
// in the log (TensorRT's contract; the target aborts otherwise). A plan it accepts gets a context and, where its
// profile's smallest shapes make tensors of at most kMaxBytes, one enqueueV3 over zeroed host buffers on the host
// backend, which must return (true or false) without crashing.
//
// Seeds: the plans the build writes to fuzz_seeds/plan, each whole and as a payload (make_seeds.cpp: convolutions,
// dynamic shapes, a standard plugin, a loop and a conditional, shape arithmetic, a plan carrying a plugin library;
// host code is never allowed here, so a plan's library is checked but never loaded). With clang and -DKILN_FUZZ=ON it
// builds against libFuzzer (docs/reliability.md has the campaign's command and figures); otherwise its main is the
// driver of driver.h:
//     KILN_BACKEND=host kiln_plan_fuzz [--iterations N] [--seed S] [--replay] build/tests/fuzz/fuzz_seeds/plan
#include "NvInfer.h"
#include "NvInferPlugin.h"
#include "fuzz/driver.h"
#include "plan/container.h"

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace
{

constexpr int64_t kMaxBytes = int64_t{64} << 20; //!< Per run, over all I/O tensors.

long gLoaded = 0; //!< Plans deserialized.
long gRan = 0;    //!< Of those, runs that enqueueV3 accepted.

//! The bytes of count elements of type, or -1 past kMaxBytes (and for negative counts).
int64_t boundedBytes(nvinfer1::DataType type, nvinfer1::Dims const& dims)
{
    if (dims.nbDims < 0 || dims.nbDims > nvinfer1::Dims::MAX_DIMS)
    {
        return -1;
    }
    int64_t count = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        if (dims.d[i] < 0 || (dims.d[i] > 0 && count > kMaxBytes / dims.d[i]))
        {
            return -1;
        }
        count *= dims.d[i];
    }
    int64_t const element = type == nvinfer1::DataType::kINT64 ? 8 : 4;
    return count <= kMaxBytes / element ? count * element : -1; // At least each type's size (kINT64: 8, others 4).
}

//! One run of context's engine at its first profile's smallest shapes, when the tensors are small enough.
void runOnce(nvinfer1::ICudaEngine const& engine, nvinfer1::IExecutionContext& context)
{
    int32_t const count = engine.getNbIOTensors();
    std::vector<std::vector<uint8_t>> buffers;
    int64_t total = 0;
    for (int32_t i = 0; i < count; ++i)
    {
        char const* name = engine.getIOTensorName(i);
        if (name == nullptr || engine.getTensorIOMode(name) != nvinfer1::TensorIOMode::kINPUT)
        {
            continue;
        }
        if (engine.isShapeInferenceIO(name))
        {
            // Shape tensor inputs: their values from the profile's smallest, in host memory.
            nvinfer1::Dims const dims = engine.getTensorShape(name);
            int64_t const bytes = boundedBytes(nvinfer1::DataType::kINT64, dims);
            if (bytes < 0)
            {
                return;
            }
            buffers.emplace_back(static_cast<std::size_t>(bytes > 0 ? bytes : 8), 0);
            bool const wide = engine.getTensorDataType(name) == nvinfer1::DataType::kINT64;
            int64_t const* minimum = engine.getProfileTensorValuesV2(name, 0, nvinfer1::OptProfileSelector::kMIN);
            for (int64_t v = 0; v < bytes / 8 && minimum != nullptr; ++v)
            {
                if (wide)
                {
                    reinterpret_cast<int64_t*>(buffers.back().data())[v] = minimum[v];
                }
                else
                {
                    reinterpret_cast<int32_t*>(buffers.back().data())[v] = static_cast<int32_t>(minimum[v]);
                }
            }
            if (!context.setInputTensorAddress(name, buffers.back().data()))
            {
                return;
            }
            continue;
        }
        nvinfer1::Dims const shape = engine.getProfileShape(name, 0, nvinfer1::OptProfileSelector::kMIN);
        if (shape.nbDims < 0 || !context.setInputShape(name, shape))
        {
            return;
        }
    }
    for (int32_t i = 0; i < count; ++i)
    {
        char const* name = engine.getIOTensorName(i);
        if (name == nullptr || engine.isShapeInferenceIO(name))
        {
            continue;
        }
        int64_t const bytes = boundedBytes(engine.getTensorDataType(name), context.getTensorShape(name));
        if (bytes < 0 || total > kMaxBytes - bytes)
        {
            return; // Data-dependent (-1) extents, or too large for one run.
        }
        total += bytes;
        buffers.emplace_back(static_cast<std::size_t>(bytes > 0 ? bytes : 1), 0);
        if (!context.setTensorAddress(name, buffers.back().data()))
        {
            return;
        }
    }
    gRan += context.enqueueV3(nullptr) ? 1 : 0;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(uint8_t const* data, size_t size)
{
    static kiln::fuzz::CountingLogger logger;
    static bool const plugins = initLibNvInferPlugins(&logger, "");
    static std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(logger)};
    (void)plugins;
    if (size == 0)
    {
        return 0;
    }
    std::vector<uint8_t> sealed;
    std::span<uint8_t const> plan{data + 1, size - 1};
    if (data[0] % 4 != 0)
    {
        sealed = kiln::writePlan(kiln::PlanInfo{kiln::PlanBackend::kHOST}, plan);
        plan = sealed;
    }
    long const errorsBefore = logger.errors;
    std::unique_ptr<nvinfer1::ICudaEngine> engine{runtime->deserializeCudaEngine(plan.data(), plan.size())};
    if (!engine)
    {
        if (logger.errors == errorsBefore)
        {
            std::fprintf(stderr, "deserializeCudaEngine returned nullptr and logged no error\n");
            std::abort();
        }
        return 0;
    }
    ++gLoaded;
    bool const small = engine->getDeviceMemorySizeV2() <= kMaxBytes;
    std::unique_ptr<nvinfer1::IExecutionContext> context{
        engine->createExecutionContext(small ? nvinfer1::ExecutionContextAllocationStrategy::kSTATIC
                                             : nvinfer1::ExecutionContextAllocationStrategy::kUSER_MANAGED)};
    if (context && small)
    {
        runOnce(*engine, *context);
    }
    return 0;
}

#ifndef KILN_LIBFUZZER
int main(int argc, char** argv)
{
    int const status = kiln::fuzz::runFuzzDriver(argc, argv, "kiln_plan_fuzz", {});
    std::printf("kiln_plan_fuzz: %ld plans loaded, %ld of them ran\n", gLoaded, gRan);
    return status;
}
#endif
