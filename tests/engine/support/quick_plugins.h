// SPDX-License-Identifier: Apache-2.0
// Quick plugins written in C++ on TensorRT's Quick interfaces (include/kiln/plugin_quick.h), for the Quick plugin
// tests:
// - QuickAddPlugin (JIT): y = x + k over FP32 (k a field), with two custom tactics; it runs on kiln's host backend
//   through kiln::IPluginV3QuickHost and keeps a log of what the engine asked (ranks, strides, tactics, requests).
// - QuickAddCreator: its IPluginCreatorV3Quick, which records the phase and request of each createPlugin().
// - QuickAotPlugin (AOT): the same computation as a kernel add_k(x, n, y) with symbolic launch parameters; it has no
//   runtime capability and counts how often it is asked for one.
// What each gives can be changed per test (QuickBehaviour) to reach each refusal.
#pragma once

#include "NvInfer.h"
#include "kiln/plugin_quick.h"

#include <array>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kiln::test
{

inline constexpr char const* kQuickName = "QuickAdd";
inline constexpr char const* kQuickNamespace = "kiln_test_quick";

//! What the engine did with a QuickAddPlugin and its clones, shared by all of them.
struct QuickLog
{
    std::vector<int32_t> ranksSeen;        //!< inputRanks[0] of each getOutputDataTypes().
    std::vector<int32_t> tacticsSet;       //!< Every setTactic().
    int32_t hostRuns{0};                   //!< enqueueHost() calls.
    std::vector<int64_t> lastInputStrides; //!< The strides of input 0 at the latest enqueueHost().
    std::vector<nvinfer1::TensorRTPhase> phases;
    std::vector<nvinfer1::QuickPluginCreationRequest> requests;
    std::vector<std::string> createdNames; //!< The name and namespace createPlugin() received, "ns::name".
    int32_t runtimeAsks{0};                //!< getCapabilityInterface(kRUNTIME) on an AOT plugin.
};

//! What a QuickAddPlugin (or the creator) does wrong, per test.
struct QuickBehaviour
{
    int32_t combinationsStatus{0}; //!< getSupportedFormatCombinations()'s status.
    int32_t nbCombinations{1};     //!< getNbSupportedFormatCombinations()'s result.
    int32_t enqueueStatus{0};
    bool runtimeIsOneKind{false}; //!< kRUNTIME returns the Quick core instead (a wrong kind).
    bool createNull{false};       //!< The creator returns null.
    bool int16Argument{false};    //!< The AOT plugin gives an INT16 extra argument.
};

class QuickAddPlugin : public nvinfer1::IPluginV3,
                       public nvinfer1::IPluginV3QuickCore,
                       public nvinfer1::IPluginV3QuickBuild,
                       public nvinfer1::IPluginV3QuickRuntime,
                       public kiln::IPluginV3QuickHost
{
public:
    QuickAddPlugin(float k, std::shared_ptr<QuickLog> log, QuickBehaviour behaviour = {})
        : mK(k)
        , mLog(std::move(log))
        , mBehaviour(behaviour)
    {
        mField = nvinfer1::PluginField{"k", &mK, nvinfer1::PluginFieldType::kFLOAT32, 1};
        mFields = nvinfer1::PluginFieldCollection{1, &mField};
    }

    nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept override
    {
        switch (type)
        {
        case nvinfer1::PluginCapabilityType::kCORE: return static_cast<nvinfer1::IPluginV3QuickCore*>(this);
        case nvinfer1::PluginCapabilityType::kBUILD: return static_cast<nvinfer1::IPluginV3QuickBuild*>(this);
        case nvinfer1::PluginCapabilityType::kRUNTIME:
            return mBehaviour.runtimeIsOneKind
                ? static_cast<nvinfer1::IPluginCapability*>(static_cast<nvinfer1::IPluginV3QuickCore*>(this))
                : static_cast<nvinfer1::IPluginV3QuickRuntime*>(this);
        }
        return nullptr;
    }
    nvinfer1::IPluginV3* clone() noexcept override
    {
        auto* copy = new QuickAddPlugin(mK, mLog, mBehaviour);
        copy->mKeptExtent = mKeptExtent; // as tensorrt.plugin's clone() copies what get_output_shapes() kept
        return copy;
    }

    char const* getPluginName() const noexcept override { return kQuickName; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    char const* getPluginNamespace() const noexcept override { return kQuickNamespace; }

    int32_t getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t /*nbOutputs*/,
        nvinfer1::DataType const* inputTypes, int32_t const* inputRanks, int32_t /*nbInputs*/) const noexcept override
    {
        mLog->ranksSeen.push_back(inputRanks[0]);
        outputTypes[0] = inputTypes[0];
        return 0;
    }
    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t /*nbInputs*/,
        nvinfer1::DimsExprs const* /*shapeInputs*/, int32_t /*nbShapeInputs*/, nvinfer1::DimsExprs* outputs,
        int32_t /*nbOutputs*/, nvinfer1::IExprBuilder& /*exprBuilder*/) noexcept override
    {
        outputs[0] = inputs[0];
        mKeptExtent = inputs[0].d[1];
        return 0;
    }
    int32_t configurePlugin(nvinfer1::DynamicPluginTensorDesc const* /*in*/, int32_t /*nbInputs*/,
        nvinfer1::DynamicPluginTensorDesc const* /*out*/, int32_t /*nbOutputs*/) noexcept override
    {
        return 0;
    }
    int32_t getNbSupportedFormatCombinations(nvinfer1::DynamicPluginTensorDesc const* /*inOut*/, int32_t /*nbInputs*/,
        int32_t /*nbOutputs*/) noexcept override
    {
        // getOutputShapes() came first, on this object or the one it was cloned from, and its expression is alive
        // (tensorrt.plugin reads what it kept from getOutputShapes() here; ASan checks the memory).
        if (mKeptExtent == nullptr || !mKeptExtent->isConstant() || mKeptExtent->getConstantValue() != 4)
        {
            return -3;
        }
        return mBehaviour.nbCombinations;
    }
    int32_t getSupportedFormatCombinations(nvinfer1::DynamicPluginTensorDesc const* /*inOut*/, int32_t nbInputs,
        int32_t nbOutputs, nvinfer1::PluginTensorDesc* combinations, int32_t nbCombinations) noexcept override
    {
        // Only FP32 linear: every listed group is the same (a second one would be a duplicate, harmless).
        for (int32_t i = 0; i < (nbInputs + nbOutputs) * nbCombinations; ++i)
        {
            combinations[i].type = nvinfer1::DataType::kFLOAT;
            combinations[i].format = nvinfer1::TensorFormat::kLINEAR;
        }
        return mBehaviour.combinationsStatus;
    }
    int32_t getNbOutputs() const noexcept override { return 1; }
    int32_t getNbTactics() noexcept override { return 2; }
    int32_t getValidTactics(int32_t* tactics, int32_t /*nbTactics*/) noexcept override
    {
        tactics[0] = 1;
        tactics[1] = 2;
        return 0;
    }

    int32_t setTactic(int32_t tactic) noexcept override
    {
        mLog->tacticsSet.push_back(tactic);
        mTactic = tactic;
        return 0;
    }
    int32_t enqueue(nvinfer1::PluginTensorDesc const* /*inputDesc*/, nvinfer1::PluginTensorDesc const* /*outputDesc*/,
        void const* const* /*inputs*/, void* const* /*outputs*/, nvinfer1::Dims const* /*inputStrides*/,
        nvinfer1::Dims const* /*outputStrides*/, int32_t /*nbInputs*/, int32_t /*nbOutputs*/,
        cudaStream_t /*stream*/) noexcept override
    {
        return -1; // A GPU plugin would launch a kernel here; the host tests run enqueueHost().
    }
    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override { return &mFields; }

    int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* /*outputDesc*/,
        void const* const* inputs, void* const* outputs, nvinfer1::Dims const* inputStrides,
        nvinfer1::Dims const* /*outputStrides*/, int32_t nbInputs, int32_t nbOutputs) noexcept override
    {
        ++mLog->hostRuns;
        if (nbInputs != 1 || nbOutputs != 1 || mTactic < 1)
        {
            return -2;
        }
        mLog->lastInputStrides.assign(inputStrides[0].d, inputStrides[0].d + inputStrides[0].nbDims);
        int64_t n = 1;
        for (int32_t axis = 0; axis < inputDesc[0].dims.nbDims; ++axis)
        {
            n *= inputDesc[0].dims.d[axis];
        }
        auto const* x = static_cast<float const*>(inputs[0]);
        auto* y = static_cast<float*>(outputs[0]);
        for (int64_t i = 0; i < n; ++i)
        {
            y[i] = x[i] + mK;
        }
        return mBehaviour.enqueueStatus;
    }

private:
    float mK;
    std::shared_ptr<QuickLog> mLog;
    QuickBehaviour mBehaviour;
    int32_t mTactic{0};
    nvinfer1::IDimensionExpr const* mKeptExtent{}; //!< inputs[0].d[1] of the latest getOutputShapes().
    nvinfer1::PluginField mField{};
    nvinfer1::PluginFieldCollection mFields{};
};

//! A symbolic int32 (or int16) scalar over one expression.
class QuickSym final : public nvinfer1::ISymExpr
{
public:
    QuickSym() = default;
    QuickSym(nvinfer1::IDimensionExpr const* expr, nvinfer1::PluginArgDataType type)
        : mExpr(expr)
        , mType(type)
    {
    }
    nvinfer1::PluginArgType getType() const noexcept override { return nvinfer1::PluginArgType::kINT; }
    nvinfer1::PluginArgDataType getDataType() const noexcept override { return mType; }
    void* getExpr() noexcept override { return const_cast<nvinfer1::IDimensionExpr*>(mExpr); }

private:
    nvinfer1::IDimensionExpr const* mExpr{};
    nvinfer1::PluginArgDataType mType{nvinfer1::PluginArgDataType::kINT32};
};

//! add_k(x, n, y) as an AOT Quick plugin: grid ceil(n / 256), block 256, one extra argument n = volume(x).
class QuickAotPlugin final : public nvinfer1::IPluginV3,
                             public nvinfer1::IPluginV3QuickCore,
                             public nvinfer1::IPluginV3QuickAOTBuild
{
public:
    QuickAotPlugin(std::string ptx, std::shared_ptr<QuickLog> log, QuickBehaviour behaviour = {})
        : mPtx(std::move(ptx))
        , mLog(std::move(log))
        , mBehaviour(behaviour)
    {
    }

    nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept override
    {
        switch (type)
        {
        case nvinfer1::PluginCapabilityType::kCORE: return static_cast<nvinfer1::IPluginV3QuickCore*>(this);
        case nvinfer1::PluginCapabilityType::kBUILD: return static_cast<nvinfer1::IPluginV3QuickAOTBuild*>(this);
        case nvinfer1::PluginCapabilityType::kRUNTIME: ++mLog->runtimeAsks; return nullptr;
        }
        return nullptr;
    }
    nvinfer1::IPluginV3* clone() noexcept override { return new QuickAotPlugin(mPtx, mLog, mBehaviour); }

    char const* getPluginName() const noexcept override { return "QuickAddAot"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    char const* getPluginNamespace() const noexcept override { return kQuickNamespace; }

    int32_t getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t /*nbOutputs*/,
        nvinfer1::DataType const* inputTypes, int32_t const* /*inputRanks*/,
        int32_t /*nbInputs*/) const noexcept override
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
    int32_t configurePlugin(nvinfer1::DynamicPluginTensorDesc const* /*in*/, int32_t /*nbInputs*/,
        nvinfer1::DynamicPluginTensorDesc const* /*out*/, int32_t /*nbOutputs*/) noexcept override
    {
        return 0;
    }
    int32_t getNbSupportedFormatCombinations(nvinfer1::DynamicPluginTensorDesc const* /*inOut*/, int32_t /*nbInputs*/,
        int32_t /*nbOutputs*/) noexcept override
    {
        return 1;
    }
    int32_t getSupportedFormatCombinations(nvinfer1::DynamicPluginTensorDesc const* /*inOut*/, int32_t nbInputs,
        int32_t nbOutputs, nvinfer1::PluginTensorDesc* combinations, int32_t /*nbCombinations*/) noexcept override
    {
        for (int32_t i = 0; i < nbInputs + nbOutputs; ++i)
        {
            combinations[i].type = nvinfer1::DataType::kFLOAT;
            combinations[i].format = nvinfer1::TensorFormat::kLINEAR;
        }
        return 0;
    }
    int32_t getNbOutputs() const noexcept override { return 1; }

    int32_t getLaunchParams(nvinfer1::DimsExprs const* inputs, nvinfer1::DynamicPluginTensorDesc const* /*inOut*/,
        int32_t /*nbInputs*/, int32_t /*nbOutputs*/, nvinfer1::IKernelLaunchParams* launchParams,
        nvinfer1::ISymExprs* extraArgs, nvinfer1::IExprBuilder& exprBuilder) noexcept override
    {
        using Op = nvinfer1::DimensionOperation;
        nvinfer1::IDimensionExpr const* n = inputs[0].d[0];
        for (int32_t axis = 1; axis < inputs[0].nbDims; ++axis)
        {
            n = exprBuilder.operation(Op::kPROD, *n, *inputs[0].d[axis]);
        }
        mSyms[0] = QuickSym(
            exprBuilder.operation(Op::kCEIL_DIV, *n, *exprBuilder.constant(256)), nvinfer1::PluginArgDataType::kINT32);
        mSyms[1] = QuickSym(exprBuilder.constant(256), nvinfer1::PluginArgDataType::kINT32);
        mSyms[2] = QuickSym(
            n, mBehaviour.int16Argument ? nvinfer1::PluginArgDataType::kINT16 : nvinfer1::PluginArgDataType::kINT32);
        launchParams->setGridX(&mSyms[0]);
        launchParams->setBlockX(&mSyms[1]);
        extraArgs->setNbSymExprs(1);
        extraArgs->setSymExpr(0, &mSyms[2]);
        return 0;
    }
    int32_t getKernel(nvinfer1::PluginTensorDesc const* /*in*/, int32_t /*nbInputs*/,
        nvinfer1::PluginTensorDesc const* /*out*/, int32_t /*nbOutputs*/, char const** kernelName,
        char** compiledKernel, int32_t* compiledKernelSize) noexcept override
    {
        *kernelName = "add_k";
        *compiledKernel = mPtx.data();
        *compiledKernelSize = static_cast<int32_t>(mPtx.size());
        return 0;
    }
    int32_t setTactic(int32_t tactic) noexcept override
    {
        mLog->tacticsSet.push_back(tactic);
        return 0;
    }

private:
    std::string mPtx;
    std::shared_ptr<QuickLog> mLog;
    QuickBehaviour mBehaviour;
    std::array<QuickSym, 3> mSyms{};
};

//! The creator of QuickAddPlugin: field k (FP32); it records each phase, request and name.
class QuickAddCreator final : public nvinfer1::IPluginCreatorV3Quick
{
public:
    explicit QuickAddCreator(std::shared_ptr<QuickLog> log, QuickBehaviour behaviour = {})
        : mLog(std::move(log))
        , mBehaviour(behaviour)
    {
        mFieldNames = nvinfer1::PluginFieldCollection{1, &mField};
    }

    nvinfer1::IPluginV3* createPlugin(char const* name, char const* nspace, nvinfer1::PluginFieldCollection const* fc,
        nvinfer1::TensorRTPhase phase, nvinfer1::QuickPluginCreationRequest request) noexcept override
    {
        mLog->phases.push_back(phase);
        mLog->requests.push_back(request);
        mLog->createdNames.push_back(std::string(nspace) + "::" + name);
        if (mBehaviour.createNull)
        {
            return nullptr;
        }
        float k = 0.F;
        for (int32_t i = 0; fc != nullptr && i < fc->nbFields; ++i)
        {
            if (std::strcmp(fc->fields[i].name, "k") == 0 && fc->fields[i].type == nvinfer1::PluginFieldType::kFLOAT32)
            {
                std::memcpy(&k, fc->fields[i].data, sizeof(float));
            }
        }
        return new QuickAddPlugin(k, mLog, mBehaviour);
    }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override { return &mFieldNames; }
    char const* getPluginName() const noexcept override { return kQuickName; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    char const* getPluginNamespace() const noexcept override { return kQuickNamespace; }

private:
    std::shared_ptr<QuickLog> mLog;
    QuickBehaviour mBehaviour;
    nvinfer1::PluginField mField{"k", nullptr, nvinfer1::PluginFieldType::kFLOAT32, 1};
    nvinfer1::PluginFieldCollection mFieldNames{};
};

} // namespace kiln::test
