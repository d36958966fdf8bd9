/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * kiln/plugin_aot.h -- ahead-of-time (AOT) kernels: a V3 plugin that the builder replaces, in the engine, by a
 * compiled kernel (PTX) and symbolic launch parameters, so that the engine launches the kernel itself and a plan
 * loads and runs without the plugin's creator. It is kiln's counterpart of TensorRT's IPluginV3QuickAOTBuild
 * ("PLUGIN_V3QUICKAOT_BUILD"), which Python's tensorrt.plugin.aot_impl plugins implement; kiln's Python package uses
 * it, and a C++ plugin may too.
 *
 * The plugin's class derives publicly from kiln::IPluginV3AotBuild besides IPluginV3 and its core and build
 * capabilities, and is built with RTTI: kiln finds the base from the object's own type information, as it finds
 * kiln::IPluginV3OneHost (kiln/plugin_host.h). The builder then negotiates formats and tactics as for any V3 plugin
 * (nothing is timed: an AOT kernel runs on no backend at build time, so the first combination and tactic are kept),
 * and calls getAotKernel() once, with the chosen types, formats and tactic and the data inputs' symbolic extents:
 *
 *     int32_t getAotKernel(nvinfer1::DimsExprs const* inputs, nvinfer1::DynamicPluginTensorDesc const* inOut,
 *         int32_t nbInputs, int32_t nbOutputs, int32_t tactic, nvinfer1::IExprBuilder& exprBuilder,
 *         kiln::AotKernel& kernel) noexcept override
 *     {
 *         nvinfer1::IDimensionExpr const* n = exprBuilder.operation(nvinfer1::DimensionOperation::kPROD,
 *             *inputs[0].d[0], *inputs[0].d[1]);
 *         mScalars[0] = n;
 *         kernel.name = "scale_kernel";
 *         kernel.ptx = kPtx;                       // text that lives as long as the plugin
 *         kernel.ptxSize = std::strlen(kPtx);
 *         kernel.launch[kiln::kAOT_GRID_X] = exprBuilder.operation(nvinfer1::DimensionOperation::kCEIL_DIV, *n,
 *             *exprBuilder.constant(256));
 *         kernel.launch[kiln::kAOT_BLOCK_X] = exprBuilder.constant(256);
 *         kernel.scalars = mScalars;               // kernel(x, n, y): inputs, scalars, outputs
 *         kernel.nbScalars = 1;
 *         return 0;
 *     }
 *
 * The engine evaluates the expressions for the shapes of each run and launches the kernel with the arguments: each
 * data input's address, then each scalar as an int32, then each output's address. Only the CUDA backend runs such
 * kernels; on kiln's host backend running the engine fails, naming the plugin.
 *
 * Like TensorRT's own interfaces, a released class never changes: new methods go into a subclass in a new
 * versioned namespace that reports a higher major version. The header needs C++14 and no RTTI.
 */

#ifndef KILN_PLUGIN_AOT_H
#define KILN_PLUGIN_AOT_H

#include "NvInferRuntime.h"

#include <cstdint>

namespace kiln
{

//! Indices into AotKernel::launch.
constexpr int32_t kAOT_GRID_X = 0;
constexpr int32_t kAOT_GRID_Y = 1;
constexpr int32_t kAOT_GRID_Z = 2;
constexpr int32_t kAOT_BLOCK_X = 3;
constexpr int32_t kAOT_BLOCK_Y = 4;
constexpr int32_t kAOT_BLOCK_Z = 5;
constexpr int32_t kAOT_SHARED_MEMORY = 6; //!< Dynamic shared memory, in bytes.
constexpr int32_t kAOT_LAUNCH_VALUES = 7;

//! What getAotKernel() fills. The strings and arrays it points to belong to the plugin and stay valid until the next
//! call on the capability or the plugin's deletion.
struct AotKernel
{
    char const* name{nullptr}; //!< The kernel's entry symbol in the PTX (a NUL-terminated string).
    char const* ptx{nullptr};  //!< The PTX text, ptxSize bytes (a trailing NUL is allowed, not required).
    int64_t ptxSize{0};
    //! Grid x/y/z, block x/y/z and shared memory bytes, from the exprBuilder of the call; a null entry is 1 (0 for the
    //! shared memory).
    nvinfer1::IDimensionExpr const* launch[kAOT_LAUNCH_VALUES]{};
    //! The int32 scalar arguments, passed after the input pointers.
    nvinfer1::IDimensionExpr const* const* scalars{nullptr};
    int32_t nbScalars{0};
};

namespace v_1_0
{

//! The AOT build capability of a V3 plugin. kiln recognises it by its interface info {"KILN_PLUGIN_V3_AOT_BUILD", 1,
//! 0}, and finds it only through RTTI (a public base of the plugin's class).
class IPluginV3AotBuild : public nvinfer1::IPluginCapability
{
public:
    //! Reports {"KILN_PLUGIN_V3_AOT_BUILD", 1, 0}.
    nvinfer1::InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return nvinfer1::InterfaceInfo{"KILN_PLUGIN_V3_AOT_BUILD", 1, 0};
    }

    //! Fills kernel for the chosen formats and tactic, after configurePlugin() with them: inputs are the data inputs'
    //! symbolic extents, inOut the descriptors (nbInputs inputs, then nbOutputs outputs), and every expression must
    //! come from exprBuilder (over the extents of inputs and constants). Returns 0 on success; anything else fails the
    //! build, naming the plugin.
    virtual int32_t getAotKernel(nvinfer1::DimsExprs const* inputs, nvinfer1::DynamicPluginTensorDesc const* inOut,
        int32_t nbInputs, int32_t nbOutputs, int32_t tactic, nvinfer1::IExprBuilder& exprBuilder,
        AotKernel& kernel) noexcept = 0;

protected:
    IPluginV3AotBuild() = default;
    IPluginV3AotBuild(IPluginV3AotBuild const&) = default;
    IPluginV3AotBuild(IPluginV3AotBuild&&) = default;
    IPluginV3AotBuild& operator=(IPluginV3AotBuild const&) & = default;
    IPluginV3AotBuild& operator=(IPluginV3AotBuild&&) & = default;
};

} // namespace v_1_0

using IPluginV3AotBuild = v_1_0::IPluginV3AotBuild; //!< The AOT build capability of V3 plugins.

} // namespace kiln

#endif // KILN_PLUGIN_AOT_H
