// SPDX-License-Identifier: Apache-2.0
// A V3 plugin with kiln's AOT build capability (include/kiln/plugin_aot.h), for the AOT kernel tests: y = x * scale + b
// over x [rows, cols] (FP32), computed by the kernel
//
//     scale_rows(float const* x, int n, int cols, float* y)      // inputs, the two scalars, outputs
//
// with n = rows * cols, grid_x = ceil(n / 128), block_x = 128 and cols * 4 bytes of shared memory. What it gives
// getAotKernel() can be changed per test (a failing status, no name, a foreign expression) to reach each refusal.
// No creator is ever registered: the plan must load and run without one.
#pragma once

#include "NvInfer.h"
#include "kiln/plugin_aot.h"

#include <cstring>
#include <string>
#include <utility>

namespace kiln::test
{

inline constexpr char const* kAotPluginName = "AotScale";
inline constexpr char const* kAotPluginNamespace = "kiln_test_aot";

//! What AotScalePlugin gives getAotKernel(), so that tests reach each refusal.
struct AotBehaviour
{
    int32_t status{0};
    bool noName{false};
    bool foreignExpression{false};
    std::string ptx{"// PTX stands here; the host backend never loads it\n"};
};

class AotScalePlugin final : public nvinfer1::IPluginV3,
                             public nvinfer1::IPluginV3OneCore,
                             public nvinfer1::IPluginV3OneBuild,
                             public nvinfer1::IPluginV3OneRuntime,
                             public kiln::IPluginV3AotBuild
{
public:
    explicit AotScalePlugin(AotBehaviour behaviour = {})
        : mBehaviour(std::move(behaviour))
    {
    }

    nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept override
    {
        switch (type)
        {
        case nvinfer1::PluginCapabilityType::kCORE: return static_cast<nvinfer1::IPluginV3OneCore*>(this);
        case nvinfer1::PluginCapabilityType::kBUILD: return static_cast<nvinfer1::IPluginV3OneBuild*>(this);
        case nvinfer1::PluginCapabilityType::kRUNTIME: return static_cast<nvinfer1::IPluginV3OneRuntime*>(this);
        }
        return nullptr;
    }
    nvinfer1::IPluginV3* clone() noexcept override { return new AotScalePlugin(mBehaviour); }

    char const* getPluginName() const noexcept override { return kAotPluginName; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    char const* getPluginNamespace() const noexcept override { return kAotPluginNamespace; }

    int32_t getNbOutputs() const noexcept override { return 1; }
    int32_t getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t /*nbOutputs*/,
        nvinfer1::DataType const* inputTypes, int32_t /*nbInputs*/) const noexcept override
    {
        outputTypes[0] = inputTypes[0];
        return 0;
    }
    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t /*nbInputs*/,
        nvinfer1::DimsExprs const* /*shapeInputs*/, int32_t /*nbShapeInputs*/, nvinfer1::DimsExprs* outputs,
        int32_t /*nbOutputs*/, nvinfer1::IExprBuilder& /*exprBuilder*/) noexcept override
    {
        outputs[0] = inputs[0];
        return 0;
    }
    bool supportsFormatCombination(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t /*nbInputs*/,
        int32_t /*nbOutputs*/) noexcept override
    {
        return inOut[pos].desc.type == nvinfer1::DataType::kFLOAT
            && inOut[pos].desc.format == nvinfer1::TensorFormat::kLINEAR;
    }
    int32_t configurePlugin(nvinfer1::DynamicPluginTensorDesc const* /*in*/, int32_t /*nbInputs*/,
        nvinfer1::DynamicPluginTensorDesc const* /*out*/, int32_t /*nbOutputs*/) noexcept override
    {
        return 0;
    }
    int32_t getNbTactics() noexcept override { return 2; }
    int32_t getValidTactics(int32_t* tactics, int32_t /*nbTactics*/) noexcept override
    {
        tactics[0] = 7;
        tactics[1] = 9;
        return 0;
    }

    int32_t getAotKernel(nvinfer1::DimsExprs const* inputs, nvinfer1::DynamicPluginTensorDesc const* /*inOut*/,
        int32_t /*nbInputs*/, int32_t /*nbOutputs*/, int32_t tactic, nvinfer1::IExprBuilder& exprBuilder,
        kiln::AotKernel& kernel) noexcept override
    {
        using Op = nvinfer1::DimensionOperation;
        lastTactic = tactic;
        nvinfer1::IDimensionExpr const* rows = inputs[0].d[0];
        nvinfer1::IDimensionExpr const* cols = inputs[0].d[1];
        nvinfer1::IDimensionExpr const* n = exprBuilder.operation(Op::kPROD, *rows, *cols);
        mScalars[0] = n;
        mScalars[1] = mBehaviour.foreignExpression ? &mForeign : cols;
        kernel.name = mBehaviour.noName ? nullptr : "scale_rows";
        kernel.ptx = mBehaviour.ptx.c_str();
        kernel.ptxSize = static_cast<int64_t>(mBehaviour.ptx.size());
        kernel.launch[kiln::kAOT_GRID_X] = exprBuilder.operation(Op::kCEIL_DIV, *n, *exprBuilder.constant(128));
        kernel.launch[kiln::kAOT_BLOCK_X] = exprBuilder.constant(128);
        kernel.launch[kiln::kAOT_SHARED_MEMORY] = exprBuilder.operation(Op::kPROD, *cols, *exprBuilder.constant(4));
        kernel.scalars = mScalars;
        kernel.nbScalars = 2;
        return mBehaviour.status;
    }

    int32_t onShapeChange(nvinfer1::PluginTensorDesc const* /*in*/, int32_t /*nbInputs*/,
        nvinfer1::PluginTensorDesc const* /*out*/, int32_t /*nbOutputs*/) noexcept override
    {
        return 0;
    }
    int32_t enqueue(nvinfer1::PluginTensorDesc const* /*inputDesc*/, nvinfer1::PluginTensorDesc const* /*outputDesc*/,
        void const* const* /*inputs*/, void* const* /*outputs*/, void* /*workspace*/,
        cudaStream_t /*stream*/) noexcept override
    {
        return -1; // The engine launches the AOT kernel; it never runs the plugin.
    }
    int32_t setTactic(int32_t /*tactic*/) noexcept override { return 0; }
    nvinfer1::IPluginV3* attachToContext(nvinfer1::IPluginResourceContext* /*context*/) noexcept override
    {
        return clone();
    }
    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override { return &mNoFields; }

    int32_t lastTactic{-1};

private:
    //! An IDimensionExpr no expression builder made.
    class ForeignExpr final : public nvinfer1::IDimensionExpr
    {
    };

    AotBehaviour mBehaviour;
    nvinfer1::IDimensionExpr const* mScalars[2]{};
    ForeignExpr mForeign;
    nvinfer1::PluginFieldCollection mNoFields{};
};

} // namespace kiln::test
