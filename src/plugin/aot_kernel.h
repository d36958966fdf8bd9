// SPDX-License-Identifier: Apache-2.0
// Ahead-of-time (AOT) kernels in engines (AotKernelRecord, network/params.h): what the builder records from a plugin's
// kiln::IPluginV3AotBuild capability (include/kiln/plugin_aot.h), what the plan reader checks, and what the runtime
// evaluates for each run's shapes before it launches the kernel.
//
//     AotExprRecorder recorder(inputDims);                 // the data inputs' extents: constants, or symbols
//     aot->getAotKernel(recorder.inputs().data(), ..., recorder.builder(), kernel);
//     auto record = recorder.record(kernel);               // the expressions as nodes over the input extents
//     auto launch = evaluateAotKernel(record.value(), runDims);   // grid, block, shared memory and scalars
#pragma once

#include "core/error.h"
#include "core/shape_expr.h"
#include "kiln/plugin_aot.h"
#include "network/params.h"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace kiln
{

//! plugin's AOT build capability: the kiln::IPluginV3AotBuild public base of its class, found through RTTI and
//! reporting {"KILN_PLUGIN_V3_AOT_BUILD", 1}; nullptr when it has none (or no RTTI).
IPluginV3AotBuild* findAotBuildCapability(nvinfer1::IPluginV3& plugin) noexcept;

//! The most int32 scalar arguments an AOT kernel may take (CUDA's kernel parameters are limited to 32 KiB anyway).
inline constexpr std::size_t kMaxAotScalars = 1024;

//! The expression builder and the symbolic input extents that getAotKernel() receives, and the conversion of what
//! it gives into an AotKernelRecord.
class AotExprRecorder
{
public:
    //! declared: per data input, its extents (constants, or -1 where the extent varies: a symbol of its own).
    explicit AotExprRecorder(std::vector<Dims> const& declared);

    std::vector<nvinfer1::DimsExprs> const& inputs() const noexcept { return mInputs; }
    nvinfer1::IExprBuilder& builder() noexcept { return mBuilder; }

    //! What kernel holds as a record; the error says which value is missing or not this builder's expression.
    Expected<AotKernelRecord> record(AotKernel const& kernel);

private:
    Expected<uint32_t> node(nvinfer1::IDimensionExpr const* expr, std::string const& what);

    ExprContext mContext;
    PluginExprBuilder mBuilder;
    std::vector<nvinfer1::DimsExprs> mInputs;
    std::map<SymbolId, std::pair<int32_t, int32_t>> mExtents; //!< Symbol to (input, axis).
    std::map<uint32_t, uint32_t> mNodeOf;                     //!< DimExpr id to record node.
    AotKernelRecord mRecord;
};

//! Why record cannot be run by a layer whose data inputs have ranks inputRanks (a plan check): an empty name or PTX,
//! a node of an unknown kind or operation, operands that are not earlier nodes, an extent of no input, indices out
//! of range, too many scalars. Nothing when it is sound.
std::optional<std::string> aotKernelProblem(AotKernelRecord const& record, std::span<int32_t const> inputRanks);

//! The values of one launch.
struct AotLaunch
{
    //! Whether there is anything to launch: a grid extent of 0 (empty tensors) is no launch at all.
    bool empty() const noexcept { return grid[0] == 0 || grid[1] == 0 || grid[2] == 0; }

    std::array<uint32_t, 3> grid{};
    std::array<uint32_t, 3> block{};
    uint32_t sharedMemory{};
    std::vector<int32_t> scalars;
};

//! record's launch for data inputs of the given dims: an error when an expression cannot be evaluated (a division by
//! zero, an overflow) or gives a launch CUDA refuses (a negative grid extent, a block extent below 1, either over
//! CUDA's limits, more than 1024 threads in a block, a scalar outside int32). A grid extent of 0 is an empty launch.
Expected<AotLaunch> evaluateAotKernel(AotKernelRecord const& record, std::span<Dims const> inputs);

//! "kernel 'add_k' (3 scalars)": how messages and the inspector name the kernel.
std::string describeAotKernel(AotKernelRecord const& record);

} // namespace kiln
