// SPDX-License-Identifier: Apache-2.0
#include "scatter_elements.h"

#include "elements.h"
#include "field_arrays.h"

#include <array>
#include <cstring>

namespace kiln::plugins
{

namespace
{

using nvinfer1::DataType;
using nvinfer1::PluginField;
using nvinfer1::PluginFieldType;

constexpr std::array<std::pair<char const*, ScatterReduction>, 6> kReductions{
    {{"none", ScatterReduction::kNONE}, {"add", ScatterReduction::kADD}, {"mul", ScatterReduction::kMUL},
        {"min", ScatterReduction::kMIN}, {"max", ScatterReduction::kMAX}, {"mean", ScatterReduction::kMEAN}}};

bool isScatterType(DataType type)
{
    return type == DataType::kFLOAT || type == DataType::kHALF || type == DataType::kINT32 || type == DataType::kINT64;
}

} // namespace

bool readScatterFields(nvinfer1::PluginFieldCollection const* fc, ScatterReduction& reduction, int32_t& axis)
{
    FieldReader const fields(kScatterElementsName, fc);
    std::string name;
    bool const present = hasField(fc, "reduction");
    if (!fields.readInt("axis", axis) || !readString(kScatterElementsName, fc, "reduction", name))
    {
        return false;
    }
    if (!present)
    {
        logError(kScatterElementsName, "field reduction is required (none, add, mul, min, max or mean)");
        return false;
    }
    for (auto const& [known, value] : kReductions)
    {
        if (name == known)
        {
            reduction = value;
            if (reduction == ScatterReduction::kMEAN)
            {
                logWarning(kScatterElementsName,
                    "reduction 'mean' is computed as 'add' (the sum of the updates, not their mean), as TensorRT's "
                    "kernel computes it");
            }
            return true;
        }
    }
    logError(kScatterElementsName, "reduction is '" + name + "'; it must be none, add, mul, min, max or mean");
    return false;
}

char const* scatterReductionName(ScatterReduction reduction)
{
    for (auto const& [name, value] : kReductions)
    {
        if (value == reduction)
        {
            return name;
        }
    }
    return nullptr;
}

std::string scatterBuildProblem(nvinfer1::DimsExprs const* inputs, int32_t nbInputs, int32_t axis)
{
    if (nbInputs != 3)
    {
        return "takes data, indices and updates (3 inputs) and has one output; it got " + std::to_string(nbInputs)
            + " inputs";
    }
    int32_t const rank = inputs[0].nbDims;
    if (rank < 1 || rank > kScatterMaxRank || inputs[1].nbDims != rank || inputs[2].nbDims != rank)
    {
        return "data, indices and updates have ranks " + std::to_string(rank) + ", " + std::to_string(inputs[1].nbDims)
            + " and " + std::to_string(inputs[2].nbDims) + "; they must have one rank, 1 to 8";
    }
    if (axis < -rank || axis >= rank)
    {
        return "axis is " + std::to_string(axis) + "; for data of rank " + std::to_string(rank) + " it must be in ["
            + std::to_string(-rank) + ", " + std::to_string(rank - 1) + "]";
    }
    for (int32_t d = 0; d < rank; ++d)
    {
        if (inputs[1].d[d]->isConstant() && inputs[2].d[d]->isConstant()
            && inputs[1].d[d]->getConstantValue() != inputs[2].d[d]->getConstantValue())
        {
            return "indices and updates differ in extent " + std::to_string(d) + " ("
                + std::to_string(inputs[1].d[d]->getConstantValue()) + " and "
                + std::to_string(inputs[2].d[d]->getConstantValue()) + "); they must have one shape";
        }
    }
    return {};
}

bool scatterSupports(int32_t pos, nvinfer1::PluginTensorDesc const* inOut)
{
    nvinfer1::PluginTensorDesc const& desc = inOut[pos];
    if (desc.format != nvinfer1::TensorFormat::kLINEAR)
    {
        return false;
    }
    if (pos == 1)
    {
        return desc.type == DataType::kINT64;
    }
    return pos == 0 ? isScatterType(desc.type) : desc.type == inOut[0].type;
}

bool scatterRunAgrees(
    int32_t axis, nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc)
{
    nvinfer1::Dims const& data = inputDesc[0].dims;
    nvinfer1::Dims const& indices = inputDesc[1].dims;
    nvinfer1::Dims const& updates = inputDesc[2].dims;
    nvinfer1::Dims const& y = outputDesc[0].dims;
    int32_t const rank = data.nbDims;
    bool agree = rank >= 1 && rank <= kScatterMaxRank && indices.nbDims == rank && updates.nbDims == rank
        && y.nbDims == rank && axis >= -rank && axis < rank;
    int32_t const positive = axis < 0 ? axis + rank : axis;
    for (int32_t d = 0; agree && d < rank; ++d)
    {
        agree = data.d[d] >= 0 && y.d[d] == data.d[d] && updates.d[d] >= 0 && indices.d[d] == updates.d[d]
            && (d == positive || updates.d[d] <= data.d[d]);
    }
    if (!agree)
    {
        logError(kScatterElementsName,
            "the tensors of this run do not fit together (data, indices and updates of one rank with axis "
                + std::to_string(axis)
                + " inside it, indices and updates of one shape no larger than data off the axis, Y of data's "
                  "shape); nothing was computed");
    }
    return agree;
}

ScatterParams scatterRunParams(ScatterReduction reduction, int32_t axis, nvinfer1::PluginTensorDesc const* inputDesc)
{
    ScatterParams params;
    params.reduction = reduction;
    params.rank = inputDesc[0].dims.nbDims;
    params.axis = axis < 0 ? axis + params.rank : axis;
    for (int32_t d = 0; d < params.rank; ++d)
    {
        params.dataDims[d] = inputDesc[0].dims.d[d];
        params.updatesDims[d] = inputDesc[2].dims.d[d];
    }
    return params;
}

int32_t scatterEnqueue(ScatterReduction reduction, int32_t axis, nvinfer1::PluginTensorDesc const* inputDesc,
    nvinfer1::PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs, cudaStream_t stream)
{
    if (!scatterRunAgrees(axis, inputDesc, outputDesc))
    {
        return -1;
    }
#ifdef KILN_PLUGINS_CUDA
    cudaError_t const status = launchScatterElements(scatterRunParams(reduction, axis, inputDesc), inputDesc[0].type,
        inputs[0], static_cast<int64_t const*>(inputs[1]), inputs[2], outputs[0], stream);
    if (status != cudaSuccess)
    {
        logError(kScatterElementsName, std::string("the CUDA kernel failed to launch: ") + cudaGetErrorString(status));
        return -1;
    }
    return 0;
#else
    static_cast<void>(reduction), static_cast<void>(inputs), static_cast<void>(outputs), static_cast<void>(stream);
    logError(kScatterElementsName, "this build of the standard plugin library has no CUDA kernels");
    return -1;
#endif
}

int32_t scatterEnqueueHost(ScatterReduction reduction, int32_t axis, nvinfer1::PluginTensorDesc const* inputDesc,
    nvinfer1::PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs)
{
    if (!scatterRunAgrees(axis, inputDesc, outputDesc))
    {
        return -1;
    }
    runScatterElementsHost(scatterRunParams(reduction, axis, inputDesc), inputDesc[0].type, inputs[0],
        static_cast<int64_t const*>(inputs[1]), inputs[2], outputs[0]);
    return 0;
}

namespace
{

class ScatterElementsPlugin final : public StandardPlugin
{
public:
    ScatterElementsPlugin(std::string pluginNamespace, ScatterReduction reduction, int32_t axis)
        : StandardPlugin(std::move(pluginNamespace))
        , mReduction(reduction)
        , mAxis(axis)
    {
    }

    nvinfer1::IPluginV3* clone() noexcept override
    {
        try
        {
            return new ScatterElementsPlugin(*this);
        }
        catch (...)
        {
            return nullptr;
        }
    }

    char const* getPluginName() const noexcept override { return kScatterElementsName; }
    char const* getPluginVersion() const noexcept override { return kScatterElementsVersion; }

    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::DimsExprs const* /*shapeInputs*/, int32_t /*nbShapeInputs*/, nvinfer1::DimsExprs* outputs,
        int32_t nbOutputs, nvinfer1::IExprBuilder& /*exprBuilder*/) noexcept override
    {
        std::string const problem = scatterBuildProblem(inputs, nbInputs, mAxis);
        if (!problem.empty() || nbOutputs != 1)
        {
            logError(kScatterElementsName, problem.empty() ? std::string("has one output") : problem);
            return -1;
        }
        outputs[0] = inputs[0];
        return 0;
    }

    bool supportsFormatCombination(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs) noexcept override
    {
        nvinfer1::PluginTensorDesc descs[4]{};
        for (int32_t i = 0; i <= pos && i < nbInputs + nbOutputs && i < 4; ++i)
        {
            descs[i] = inOut[i].desc;
        }
        return pos < 4 && scatterSupports(pos, descs);
    }

    int32_t onShapeChange(nvinfer1::PluginTensorDesc const* in, int32_t nbInputs, nvinfer1::PluginTensorDesc const* out,
        int32_t nbOutputs) noexcept override
    {
        return nbInputs == 3 && nbOutputs == 1 && scatterRunAgrees(mAxis, in, out) ? 0 : -1;
    }

    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* /*workspace*/, cudaStream_t stream) noexcept override
    {
        return scatterEnqueue(mReduction, mAxis, inputDesc, outputDesc, inputs, outputs, stream);
    }

    int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* /*workspace*/) noexcept override
    {
        return scatterEnqueueHost(mReduction, mAxis, inputDesc, outputDesc, inputs, outputs);
    }

    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {
        char const* name = scatterReductionName(mReduction);
        mFields = {PluginField{"reduction", name, PluginFieldType::kCHAR, static_cast<int32_t>(std::strlen(name))},
            PluginField{"axis", &mAxis, PluginFieldType::kINT32, 1}};
        mCollection = {static_cast<int32_t>(mFields.size()), mFields.data()};
        return &mCollection;
    }

private:
    ScatterElementsPlugin(ScatterElementsPlugin const& other)
        : StandardPlugin(other)
        , mReduction(other.mReduction)
        , mAxis(other.mAxis)
    {
    }

    ScatterReduction mReduction;
    int32_t mAxis;
    std::vector<PluginField> mFields;
    nvinfer1::PluginFieldCollection mCollection{};
};

template <typename T>
void scatterHost(ScatterParams const& p, void const* data, int64_t const* indices, void const* updates, void* y)
{
    auto* out = static_cast<T*>(y);
    std::memcpy(out, data, static_cast<size_t>(p.dataCount()) * sizeof(T));
    auto const* in = static_cast<T const*>(updates);
    int64_t const count = p.updatesCount();
    for (int64_t e = 0; e < count; ++e)
    {
        int64_t const target = scatterTarget(p, e, indices[e]);
        if (target < 0)
        {
            continue;
        }
        if constexpr (std::is_same_v<T, uint16_t>)
        {
            out[target] = floatToHalf(scatterCombine(p.reduction, halfToFloat(out[target]), halfToFloat(in[e])));
        }
        else
        {
            out[target] = scatterCombine(p.reduction, out[target], in[e]);
        }
    }
}

} // namespace

void runScatterElementsHost(
    ScatterParams const& params, DataType type, void const* data, int64_t const* indices, void const* updates, void* y)
{
    switch (type)
    {
    case DataType::kHALF: scatterHost<uint16_t>(params, data, indices, updates, y); break;
    case DataType::kINT32: scatterHost<int32_t>(params, data, indices, updates, y); break;
    case DataType::kINT64: scatterHost<int64_t>(params, data, indices, updates, y); break;
    default: scatterHost<float>(params, data, indices, updates, y); break;
    }
}

ScatterElementsCreator::ScatterElementsCreator()
    : StandardCreator({PluginField{"reduction", nullptr, PluginFieldType::kCHAR, 1},
        PluginField{"axis", nullptr, PluginFieldType::kINT32, 1}})
{
}

nvinfer1::IPluginV3* ScatterElementsCreator::createPlugin(
    char const* /*name*/, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase /*phase*/) noexcept
{
    try
    {
        ScatterReduction reduction{};
        int32_t axis = 0;
        if (!readScatterFields(fc, reduction, axis))
        {
            return nullptr;
        }
        return new ScatterElementsPlugin(mNamespace, reduction, axis);
    }
    catch (...)
    {
        return nullptr;
    }
}

} // namespace kiln::plugins
