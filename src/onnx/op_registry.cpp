// SPDX-License-Identifier: Apache-2.0
#include "onnx/op_registry.h"

#include "onnx/importers/importers.h"

namespace kiln::onnx_import
{

void OpRegistry::add(std::string const& opType, ImportFunction import, CheckFunction check)
{
    mOps[opType] = OpImporter{import, check, {}};
}

void OpRegistry::addUnsupported(std::string const& opType, std::string reason)
{
    if (mOps.count(opType) == 0)
    {
        mOps[opType] = OpImporter{nullptr, nullptr, std::move(reason)};
    }
}

OpImporter const* OpRegistry::find(std::string const& opType) const
{
    auto found = mOps.find(opType);
    return found == mOps.end() ? nullptr : &found->second;
}

bool OpRegistry::supports(std::string const& opType) const
{
    OpImporter const* op = find(opType);
    return op != nullptr && op->import != nullptr;
}

std::vector<std::string> OpRegistry::supportedOps() const
{
    std::vector<std::string> names;
    for (auto const& [name, op] : mOps)
    {
        if (op.import != nullptr)
        {
            names.push_back(name);
        }
    }
    return names;
}

OpRegistry const& builtinOps()
{
    static OpRegistry const registry = [] {
        OpRegistry ops;
        registerActivationOps(ops);
        registerAttentionOps(ops);
        registerCastOps(ops);
        registerConcatenationOps(ops);
        registerConstantOps(ops);
        registerControlFlowOps(ops);
        registerLoopOps(ops);
        registerRnnOps(ops);
        registerConvolutionOps(ops);
        registerCumulativeOps(ops);
        registerDeconvolutionOps(ops);
        registerDeformConvOps(ops);
        registerEinsumOps(ops);
        registerElementwiseOps(ops);
        registerGatherOps(ops);
        registerGridSampleOps(ops);
        registerIdentityOps(ops);
        registerMatrixMultiplyOps(ops);
        registerNmsOps(ops);
        registerNonZeroOps(ops);
        registerNormalizationOps(ops);
        registerPoolingOps(ops);
        registerQuantizeOps(ops);
        registerRandomOps(ops);
        registerReduceOps(ops);
        registerReshapeOps(ops);
        registerResizeOps(ops);
        registerReverseSequenceOps(ops);
        registerRoiAlignOps(ops);
        registerScatterOps(ops);
        registerSignalOps(ops);
        registerSliceOps(ops);
        registerSoftmaxOps(ops);
        registerTopKOps(ops);
        registerUnaryOps(ops);
        // Last: it only adds the names no family imports.
        registerUnsupportedOps(ops);
        return ops;
    }();
    return registry;
}

} // namespace kiln::onnx_import
