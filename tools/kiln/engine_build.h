// SPDX-License-Identifier: Apache-2.0
// The kiln tool's build phase, as trtexec builds: plugin libraries loaded, the ONNX model parsed into a network
// (strongly typed with --stronglyTyped), the builder configured from the options (precisions, memory pools,
// optimization level, timing cache), one optimization profile made from --minShapes/--optShapes/--maxShapes or
// --shapes, and the network built into a plan. Every failure is a Failure naming the step and the file, node or input.
//
//     loadPlugins(options);
//     std::vector<char> const plan = buildPlan(options, out);   // "[I] Engine built in 0.2 sec." and so on to out
#pragma once

#include "options.h"

#include "NvInfer.h"

#include <memory>
#include <ostream>
#include <vector>

namespace kiln_tool
{

//! Loads options.staticPlugins and options.dynamicPlugins (once per process each) and kiln's standard plugins.
void loadPlugins(Options const& options);

//! Parses options.onnx and builds its plan, saving it to options.saveEngine when given.
std::vector<char> buildPlan(Options const& options, std::ostream& out);

//! The plan in path (--loadEngine).
std::vector<char> readPlan(std::string const& path);

//! A deserialized engine and the runtime it came from, which outlives it (members are destroyed in reverse order).
struct LoadedEngine
{
    std::unique_ptr<nvinfer1::IRuntime> runtime;
    std::unique_ptr<nvinfer1::ICudaEngine> engine;
};

//! plan deserialized; a Failure when kiln refuses it (kiln's logged error says why).
LoadedEngine deserializePlan(std::vector<char> const& plan);

} // namespace kiln_tool
