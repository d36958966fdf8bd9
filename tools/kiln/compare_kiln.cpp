// SPDX-License-Identifier: Apache-2.0
// `kiln compare`'s cuda and host runners: see compare_runners.h.
#include "compare_runners.h"

#include "engine_build.h"
#include "gpu.h"
#include "inference.h"
#include "logger.h"
#include "tensors.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>

namespace kiln_tool
{
namespace
{

//! KILN_BACKEND set to backend while it lives (kiln reads it per build), then put back as it was.
class BackendScope
{
public:
    explicit BackendScope(std::string const& backend)
    {
        if (char const* previous = std::getenv("KILN_BACKEND"))
        {
            mPrevious = previous;
        }
        setenv("KILN_BACKEND", backend.c_str(), 1);
    }
    ~BackendScope()
    {
        if (mPrevious)
        {
            setenv("KILN_BACKEND", mPrevious->c_str(), 1);
        }
        else
        {
            unsetenv("KILN_BACKEND");
        }
    }
    BackendScope(BackendScope const&) = delete;
    BackendScope& operator=(BackendScope const&) = delete;

private:
    std::optional<std::string> mPrevious;
};

//! The options of one untimed inference: no warm-up, one query, its transfers included.
Options oneQuery(Options options)
{
    options.iterations = 1;
    options.durationSeconds = 0.0;
    options.warmUpMs = 0.0;
    options.useCudaGraph = false;
    options.noDataTransfers = false;
    return options;
}

} // namespace

std::string kilnBackendUnusable(std::string const& backend)
{
    return backend == "cuda" ? gpu::unusableReason() : std::string();
}

KilnRun runKiln(std::string const& backend, Options const& options, uint32_t seed, std::ostream& log)
{
    KilnRun run;
    run.detail = "kiln's host backend";
    if (backend == "cuda")
    {
        run.detail = "kiln's CUDA backend on device " + std::to_string(options.device) + ": "
            + gpu::selectDevice(options.device);
    }
    BackendScope const scope(backend);
    std::vector<char> const plan = buildPlan(options, log);
    LoadedEngine const loaded = deserializePlan(plan);
    std::unique_ptr<nvinfer1::IExecutionContext> const context{loaded.engine->createExecutionContext()};
    if (context == nullptr)
    {
        throw Failure("createExecutionContext failed (kiln's error above says why)");
    }
    ShapeMap const shapes = inferenceShapes(*loaded.engine, options);
    IoBindings const io(*loaded.engine, *context, shapes, options.loadInputs, seed);
    runInference(*context, io, oneQuery(options), log);

    uint32_t nextSeed = seed; // IoBindings' rule: random inputs take seed, seed + 1, ... in the engine's order
    for (IoTensor const& tensor : io.tensors())
    {
        if (!tensor.input)
        {
            run.outputs.push_back(valuesOf(tensor));
            continue;
        }
        auto const file = std::find_if(options.loadInputs.begin(), options.loadInputs.end(),
            [&](NamedFile const& given) { return given.name == tensor.name; });
        run.inputs.push_back(inputOf(tensor,
            file != options.loadInputs.end() ? "from " + file->path
                                             : "random (seed " + std::to_string(nextSeed++) + ")"));
    }
    return run;
}

} // namespace kiln_tool
