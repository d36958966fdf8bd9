// SPDX-License-Identifier: Apache-2.0
// The kiln tool's build phase, as trtexec builds: plugin libraries loaded, the ONNX model parsed into a network
// (strongly typed with --stronglyTyped), its I/O types and formats set (--inputIOFormats, --outputIOFormats), the
// builder configured from the options (precisions, refit, memory pools, optimization level, timing cache), one
// optimization profile made from --minShapes/--optShapes/--maxShapes or
// --shapes, and the network built into a plan. Every failure is a Failure naming the step and the file, node or input.
//
//     loadPlugins(options);
//     std::vector<char> const plan = buildPlan(options, out);   // "[I] Engine built in 0.2 sec." and so on to out
#pragma once

#include "options.h"

#include "NvInfer.h"
#include "NvOnnxParser.h"

#include <memory>
#include <ostream>
#include <vector>

namespace kiln_tool
{

//! Loads options.staticPlugins and options.dynamicPlugins (once per process each) and kiln's standard plugins; for a
//! build (--onnx), also the --setPluginsToSerialize libraries neither of those flags names, as --dynamicPlugins does.
void loadPlugins(Options const& options);

//! A built plan and the network it was built from, with what owns the network's weights (members are destroyed in
//! reverse order: the parser, then the network, then the builder).
struct BuiltPlan
{
    std::vector<char> plan;
    std::unique_ptr<nvinfer1::IBuilder> builder;
    std::unique_ptr<nvinfer1::INetworkDefinition> network;
    std::unique_ptr<nvonnxparser::IParser> parser;
};

//! Parses options.onnx (--inputIOFormats and --outputIOFormats applied to its network) and builds its plan
//! (refittable with --refit), saving it to options.saveEngine when given; the network is kept for a refit.
BuiltPlan buildNetworkAndPlan(Options const& options, std::ostream& out);

//! buildNetworkAndPlan's plan alone.
std::vector<char> buildPlan(Options const& options, std::ostream& out);

//! The plan in path (--loadEngine).
std::vector<char> readPlan(std::string const& path);

//! A deserialized engine and the runtime it came from, which outlives it (members are destroyed in reverse order).
struct LoadedEngine
{
    std::unique_ptr<nvinfer1::IRuntime> runtime;
    std::unique_ptr<nvinfer1::ICudaEngine> engine;
};

//! plan deserialized, its plugin libraries allowed to load when allowEngineHostCode (--allowEngineHostCode); a Failure
//! when kiln refuses it (kiln's logged error says why).
LoadedEngine deserializePlan(std::vector<char> const& plan, bool allowEngineHostCode = false);

} // namespace kiln_tool
