// SPDX-License-Identifier: Apache-2.0
#include "plugin/aot_kernel.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace kiln
{
namespace
{

using nvinfer1::DimensionOperation;
using nvinfer1::ErrorCode;

constexpr std::array<char const*, kAotLaunchValues> kLaunchNames{
    "grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "shared_mem"};

//! CUDA's limits on a launch: grid x up to 2^31 - 1, y and z up to 65535; a block up to 1024 x 1024 x 64 threads and
//! 1024 in all.
constexpr std::array<int64_t, 3> kMaxGrid{2147483647, 65535, 65535};
constexpr std::array<int64_t, 3> kMaxBlock{1024, 1024, 64};
constexpr int64_t kMaxThreads = 1024;

bool validOp(DimensionOperation op) noexcept
{
    auto const value = static_cast<int32_t>(op);
    return value >= 0 && value < nvinfer1::EnumMax<DimensionOperation>();
}

//! Whether the object behind plugin carries RTTI (as plugin/host_capability.cpp checks): the Itanium C++ ABI keeps a
//! pointer to its type information just before the vtable's function pointers, null under -fno-rtti.
bool hasTypeInformation(nvinfer1::IPluginV3 const& plugin) noexcept
{
    void const* const* vtable = nullptr;
    std::memcpy(static_cast<void*>(&vtable), static_cast<void const*>(&plugin), sizeof(vtable));
    return vtable != nullptr && vtable[-1] != nullptr;
}

} // namespace

IPluginV3AotBuild* findAotBuildCapability(nvinfer1::IPluginV3& plugin) noexcept
{
    try
    {
        if (!hasTypeInformation(plugin))
        {
            return nullptr;
        }
        auto* aot = dynamic_cast<IPluginV3AotBuild*>(&plugin);
        if (aot == nullptr)
        {
            return nullptr;
        }
        nvinfer1::InterfaceInfo const info = aot->getInterfaceInfo();
        return info.kind != nullptr && std::strcmp(info.kind, "KILN_PLUGIN_V3_AOT_BUILD") == 0 && info.major == 1
            ? aot
            : nullptr;
    }
    catch (...)
    {
        return nullptr;
    }
}

AotExprRecorder::AotExprRecorder(std::vector<Dims> const& declared)
    : mBuilder(mContext, "aot")
{
    for (std::size_t i = 0; i < declared.size(); ++i)
    {
        nvinfer1::DimsExprs exprs{};
        exprs.nbDims = std::clamp(declared[i].nbDims, 0, Dims::MAX_DIMS);
        for (int32_t a = 0; a < exprs.nbDims; ++a)
        {
            if (declared[i].d[a] >= 0)
            {
                exprs.d[a] = mContext.constant(declared[i].d[a]);
                continue;
            }
            DimExpr const* symbol
                = mContext.symbol("input" + std::to_string(i) + ".d" + std::to_string(a), SymbolKind::kINPUT_EXTENT);
            mExtents[symbol->symbol()] = {static_cast<int32_t>(i), a};
            exprs.d[a] = symbol;
        }
        mInputs.push_back(exprs);
    }
}

Expected<uint32_t> AotExprRecorder::node(nvinfer1::IDimensionExpr const* expr, std::string const& what)
{
    DimExpr const* root = mContext.find(expr);
    if (root == nullptr)
    {
        return Error{ErrorCode::kINVALID_ARGUMENT,
            what + " is not an expression of the IExprBuilder getAotKernel() received (nor an input extent)"};
    }
    // Operands first: the nodes keep creation order (DimExpr ids), so a depth-first walk that emits after both
    // operands gives operands earlier indices.
    std::vector<std::pair<DimExpr const*, bool>> stack{{root, false}};
    while (!stack.empty())
    {
        auto [current, expanded] = stack.back();
        stack.pop_back();
        if (mNodeOf.count(current->id()) != 0)
        {
            continue;
        }
        if (current->kind() == DimExpr::Kind::kOPERATION && !expanded)
        {
            stack.emplace_back(current, true);
            stack.emplace_back(current->rhs(), false);
            stack.emplace_back(current->lhs(), false);
            continue;
        }
        AotExprNode made;
        switch (current->kind())
        {
        case DimExpr::Kind::kCONSTANT:
            made.kind = AotExprNode::Kind::kCONSTANT;
            made.value = current->value();
            break;
        case DimExpr::Kind::kSYMBOL:
        {
            auto const extent = mExtents.find(current->symbol());
            if (extent == mExtents.end())
            {
                return Error{ErrorCode::kINVALID_ARGUMENT,
                    what + " depends on " + mContext.symbolInfo(current->symbol()).name
                        + ", which is not an extent of a data input (a size tensor?)"};
            }
            made.kind = AotExprNode::Kind::kEXTENT;
            made.input = extent->second.first;
            made.axis = extent->second.second;
            break;
        }
        case DimExpr::Kind::kOPERATION:
            made.kind = AotExprNode::Kind::kOPERATION;
            made.op = current->op();
            made.lhs = mNodeOf.at(current->lhs()->id());
            made.rhs = mNodeOf.at(current->rhs()->id());
            break;
        }
        mNodeOf[current->id()] = static_cast<uint32_t>(mRecord.nodes.size());
        mRecord.nodes.push_back(made);
    }
    return mNodeOf.at(root->id());
}

Expected<AotKernelRecord> AotExprRecorder::record(AotKernel const& kernel)
{
    if (!mBuilder.errors().empty())
    {
        return Error{ErrorCode::kINVALID_ARGUMENT, "the expression builder refused a call: " + mBuilder.errors()[0]};
    }
    if (kernel.name == nullptr || kernel.name[0] == '\0')
    {
        return Error{ErrorCode::kINVALID_ARGUMENT, "getAotKernel() gave no kernel name"};
    }
    if (kernel.ptx == nullptr || kernel.ptxSize <= 0)
    {
        return Error{ErrorCode::kINVALID_ARGUMENT, "getAotKernel() gave no PTX (the compiled kernel)"};
    }
    if (kernel.nbScalars < 0 || static_cast<std::size_t>(kernel.nbScalars) > kMaxAotScalars
        || (kernel.nbScalars > 0 && kernel.scalars == nullptr))
    {
        return Error{ErrorCode::kINVALID_ARGUMENT,
            "getAotKernel() gave " + std::to_string(kernel.nbScalars) + " scalar arguments; kiln takes 0 to "
                + std::to_string(kMaxAotScalars)};
    }
    mRecord.kernelName = kernel.name;
    mRecord.ptx.assign(kernel.ptx, static_cast<std::size_t>(kernel.ptxSize));
    while (!mRecord.ptx.empty() && mRecord.ptx.back() == '\0')
    {
        mRecord.ptx.pop_back();
    }
    for (std::size_t v = 0; v < kAotLaunchValues; ++v)
    {
        nvinfer1::IDimensionExpr const* expr = kernel.launch[v];
        if (expr == nullptr)
        {
            expr = mContext.constant(v == static_cast<std::size_t>(kAOT_SHARED_MEMORY) ? 0 : 1);
        }
        auto index = node(expr, std::string("the launch parameter ") + kLaunchNames[v]);
        if (!index)
        {
            return index.error();
        }
        mRecord.launch[v] = index.value();
    }
    for (int32_t s = 0; s < kernel.nbScalars; ++s)
    {
        auto index = node(kernel.scalars[s], "scalar argument " + std::to_string(s));
        if (!index)
        {
            return index.error();
        }
        mRecord.scalars.push_back(index.value());
    }
    return mRecord;
}

std::optional<std::string> aotKernelProblem(AotKernelRecord const& record, std::span<int32_t const> inputRanks)
{
    if (record.kernelName.empty() || record.kernelName.size() > 1023
        || record.kernelName.find('\0') != std::string::npos)
    {
        return "the AOT kernel's name must be 1 to 1023 bytes without NUL";
    }
    if (record.ptx.empty() || record.ptx.find('\0') != std::string::npos)
    {
        return "the AOT kernel '" + record.kernelName + "' has no PTX, or PTX with a NUL byte";
    }
    std::string const who = "the AOT kernel '" + record.kernelName + "': ";
    for (std::size_t i = 0; i < record.nodes.size(); ++i)
    {
        AotExprNode const& node = record.nodes[i];
        switch (node.kind)
        {
        case AotExprNode::Kind::kCONSTANT: break;
        case AotExprNode::Kind::kEXTENT:
            if (node.input < 0 || static_cast<std::size_t>(node.input) >= inputRanks.size() || node.axis < 0
                || node.axis >= inputRanks[static_cast<std::size_t>(node.input)])
            {
                return who + "expression " + std::to_string(i) + " is extent " + std::to_string(node.axis)
                    + " of data input " + std::to_string(node.input) + ", which the layer does not have";
            }
            break;
        case AotExprNode::Kind::kOPERATION:
            if (!validOp(node.op))
            {
                return who + "expression " + std::to_string(i) + " has the unknown operation "
                    + std::to_string(static_cast<int32_t>(node.op));
            }
            if (node.lhs >= i || node.rhs >= i)
            {
                return who + "expression " + std::to_string(i) + " uses expressions " + std::to_string(node.lhs)
                    + " and " + std::to_string(node.rhs) + "; operands must come first";
            }
            break;
        default:
            return who + "expression " + std::to_string(i) + " has the unknown kind "
                + std::to_string(static_cast<int32_t>(node.kind));
        }
    }
    for (std::size_t v = 0; v < kAotLaunchValues; ++v)
    {
        if (record.launch[v] >= record.nodes.size())
        {
            return who + kLaunchNames[v] + " refers to expression " + std::to_string(record.launch[v]) + " of "
                + std::to_string(record.nodes.size());
        }
    }
    if (record.scalars.size() > kMaxAotScalars)
    {
        return who + std::to_string(record.scalars.size()) + " scalar arguments; at most "
            + std::to_string(kMaxAotScalars);
    }
    for (std::size_t s = 0; s < record.scalars.size(); ++s)
    {
        if (record.scalars[s] >= record.nodes.size())
        {
            return who + "scalar argument " + std::to_string(s) + " refers to expression "
                + std::to_string(record.scalars[s]) + " of " + std::to_string(record.nodes.size());
        }
    }
    return std::nullopt;
}

Expected<AotLaunch> evaluateAotKernel(AotKernelRecord const& record, std::span<Dims const> inputs)
{
    std::string const who = "the AOT kernel '" + record.kernelName + "': ";
    std::vector<int64_t> values(record.nodes.size(), 0);
    for (std::size_t i = 0; i < record.nodes.size(); ++i)
    {
        AotExprNode const& node = record.nodes[i];
        switch (node.kind)
        {
        case AotExprNode::Kind::kCONSTANT: values[i] = node.value; break;
        case AotExprNode::Kind::kEXTENT:
            if (node.input < 0 || static_cast<std::size_t>(node.input) >= inputs.size() || node.axis < 0
                || node.axis >= inputs[static_cast<std::size_t>(node.input)].nbDims)
            {
                return Error{
                    ErrorCode::kINTERNAL_ERROR, who + "expression " + std::to_string(i) + " has no input extent"};
            }
            values[i] = inputs[static_cast<std::size_t>(node.input)].d[node.axis];
            break;
        case AotExprNode::Kind::kOPERATION:
        {
            auto const value = node.lhs < i && node.rhs < i
                ? applyOperation(node.op, values[node.lhs], values[node.rhs])
                : std::nullopt;
            if (!value)
            {
                return Error{ErrorCode::kFAILED_EXECUTION,
                    who + "expression " + std::to_string(i) + " divides by zero or overflows for these shapes"};
            }
            values[i] = *value;
            break;
        }
        }
    }
    auto const at = [&](std::size_t v) { return values.at(record.launch[v]); };
    AotLaunch launch;
    int64_t threads = 1;
    for (std::size_t a = 0; a < 3; ++a)
    {
        int64_t const grid = at(a);
        int64_t const block = at(3 + a);
        if (grid < 0 || grid > kMaxGrid[a])
        {
            return Error{ErrorCode::kFAILED_EXECUTION,
                who + kLaunchNames[a] + " is " + std::to_string(grid) + " for these shapes; CUDA takes 1 to "
                    + std::to_string(kMaxGrid[a]) + " (0: nothing to launch)"};
        }
        if (block < 1 || block > kMaxBlock[a])
        {
            return Error{ErrorCode::kFAILED_EXECUTION,
                who + kLaunchNames[3 + a] + " is " + std::to_string(block) + " for these shapes; CUDA takes 1 to "
                    + std::to_string(kMaxBlock[a])};
        }
        threads *= block;
        launch.grid[a] = static_cast<uint32_t>(grid);
        launch.block[a] = static_cast<uint32_t>(block);
    }
    if (threads > kMaxThreads)
    {
        return Error{ErrorCode::kFAILED_EXECUTION,
            who + "a block of " + std::to_string(threads) + " threads for these shapes; CUDA takes at most 1024"};
    }
    int64_t const shared = at(static_cast<std::size_t>(kAOT_SHARED_MEMORY));
    if (shared < 0 || shared > std::numeric_limits<int32_t>::max())
    {
        return Error{
            ErrorCode::kFAILED_EXECUTION, who + "shared_mem is " + std::to_string(shared) + " bytes for these shapes"};
    }
    launch.sharedMemory = static_cast<uint32_t>(shared);
    for (std::size_t s = 0; s < record.scalars.size(); ++s)
    {
        int64_t const value = values.at(record.scalars[s]);
        if (value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max())
        {
            return Error{ErrorCode::kFAILED_EXECUTION,
                who + "scalar argument " + std::to_string(s) + " is " + std::to_string(value)
                    + " for these shapes, outside int32"};
        }
        launch.scalars.push_back(static_cast<int32_t>(value));
    }
    return launch;
}

std::string describeAotKernel(AotKernelRecord const& record)
{
    return "AOT kernel '" + record.kernelName + "' (" + std::to_string(record.scalars.size()) + " scalar argument"
        + (record.scalars.size() == 1 ? "" : "s") + ", " + std::to_string(record.ptx.size()) + " bytes of PTX)";
}

} // namespace kiln
