// SPDX-License-Identifier: Apache-2.0
#include "ms_deform_attn.h"

#include "elements.h"

namespace kiln::plugins
{

namespace
{

using nvinfer1::DataType;
using nvinfer1::Dims;

//! Why the five inputs' extents do not fit together (extents below 0, not known yet, are not compared); empty if they
//! do. rank(i) and extent(i, d) read input i.
template <typename Rank, typename Extent>
std::string shapeProblem(int32_t nbInputs, Rank rank, Extent extent)
{
    if (nbInputs != 5)
    {
        return "takes value, spatial_shapes, level_start_index, sampling_locations and attention_weights (5 inputs); "
               "it got "
            + std::to_string(nbInputs);
    }
    if (rank(0) != 4 || rank(1) != 2 || rank(2) != 1 || rank(3) != 6 || rank(4) != 5)
    {
        return "the inputs must be value [N, S, M, D], spatial_shapes [L, 2], level_start_index [L], "
               "sampling_locations [N, Lq, M, L, P, 2] and attention_weights [N, Lq, M, L, P]; their ranks are "
            + std::to_string(rank(0)) + ", " + std::to_string(rank(1)) + ", " + std::to_string(rank(2)) + ", "
            + std::to_string(rank(3)) + " and " + std::to_string(rank(4));
    }
    auto same = [&](int32_t a, int32_t da, int32_t b, int32_t db) {
        int64_t const x = extent(a, da);
        int64_t const y = extent(b, db);
        return x < 0 || y < 0 || x == y;
    };
    bool const fit = same(1, 1, 1, 1) && (extent(1, 1) < 0 || extent(1, 1) == 2) && same(0, 0, 3, 0) && same(0, 0, 4, 0)
        && same(0, 2, 3, 2) && same(0, 2, 4, 2) && same(1, 0, 2, 0) && same(1, 0, 3, 3) && same(1, 0, 4, 3)
        && same(3, 1, 4, 1) && same(3, 4, 4, 4) && (extent(3, 5) < 0 || extent(3, 5) == 2);
    if (!fit)
    {
        return "the extents disagree: value [N, S, M, D], spatial_shapes [L, 2], level_start_index [L], "
               "sampling_locations [N, Lq, M, L, P, 2] and attention_weights [N, Lq, M, L, P] share N, M, L, Lq and P";
    }
    return {};
}

} // namespace

std::string msDeformAttnBuildProblem(nvinfer1::DimsExprs const* inputs, int32_t nbInputs)
{
    return shapeProblem(
        nbInputs, [&](int32_t i) { return inputs[i].nbDims; },
        [&](int32_t i, int32_t d) -> int64_t {
            return inputs[i].d[d]->isConstant() ? inputs[i].d[d]->getConstantValue() : -1;
        });
}

bool msDeformAttnRunAgrees(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc)
{
    std::string problem = shapeProblem(
        5, [&](int32_t i) { return inputDesc[i].dims.nbDims; },
        [&](int32_t i, int32_t d) -> int64_t { return inputDesc[i].dims.d[d]; });
    Dims const& y = outputDesc[0].dims;
    bool negative = false;
    for (int32_t i = 0; problem.empty() && i < 5; ++i)
    {
        for (int32_t d = 0; d < inputDesc[i].dims.nbDims; ++d)
        {
            negative = negative || inputDesc[i].dims.d[d] < 0;
        }
    }
    if (problem.empty()
        && (negative || y.nbDims != 4 || y.d[0] != inputDesc[0].dims.d[0] || y.d[1] != inputDesc[3].dims.d[1]
            || y.d[2] != inputDesc[0].dims.d[2] || y.d[3] != inputDesc[0].dims.d[3]))
    {
        problem = "Y must be [N, Lq, M, D]";
    }
    if (!problem.empty())
    {
        logError(kMsDeformAttnName,
            "the tensors of this run do not have the shapes the plugin takes (" + problem + "); nothing was computed");
    }
    return problem.empty();
}

MsDeformAttnParams msDeformAttnRunParams(nvinfer1::PluginTensorDesc const* inputDesc)
{
    MsDeformAttnParams params;
    params.batch = inputDesc[0].dims.d[0];
    params.spatialSize = inputDesc[0].dims.d[1];
    params.heads = inputDesc[0].dims.d[2];
    params.channels = inputDesc[0].dims.d[3];
    params.levels = inputDesc[1].dims.d[0];
    params.queries = inputDesc[3].dims.d[1];
    params.points = inputDesc[3].dims.d[4];
    return params;
}

bool msDeformAttnSupports(int32_t pos, nvinfer1::PluginTensorDesc const* inOut)
{
    nvinfer1::PluginTensorDesc const& desc = inOut[pos];
    if (desc.format != nvinfer1::TensorFormat::kLINEAR)
    {
        return false;
    }
    if (pos == 1 || pos == 2)
    {
        return desc.type == DataType::kINT32;
    }
    return pos == 0 ? isFloatOrHalf(desc.type) : desc.type == inOut[0].type;
}

int32_t msDeformAttnEnqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
    void const* const* inputs, void* const* outputs, cudaStream_t stream)
{
    if (!msDeformAttnRunAgrees(inputDesc, outputDesc))
    {
        return -1;
    }
#ifdef KILN_PLUGINS_CUDA
    cudaError_t const status = launchMsDeformAttn(msDeformAttnRunParams(inputDesc), inputDesc[0].type, inputs[0],
        static_cast<int32_t const*>(inputs[1]), static_cast<int32_t const*>(inputs[2]), inputs[3], inputs[4],
        outputs[0], stream);
    if (status != cudaSuccess)
    {
        logError(kMsDeformAttnName, std::string("the CUDA kernel failed to launch: ") + cudaGetErrorString(status));
        return -1;
    }
    return 0;
#else
    static_cast<void>(inputs), static_cast<void>(outputs), static_cast<void>(stream);
    logError(kMsDeformAttnName, "this build of the standard plugin library has no CUDA kernels");
    return -1;
#endif
}

int32_t msDeformAttnEnqueueHost(nvinfer1::PluginTensorDesc const* inputDesc,
    nvinfer1::PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs)
{
    if (!msDeformAttnRunAgrees(inputDesc, outputDesc))
    {
        return -1;
    }
    runMsDeformAttnHost(msDeformAttnRunParams(inputDesc), inputDesc[0].type, inputs[0],
        static_cast<int32_t const*>(inputs[1]), static_cast<int32_t const*>(inputs[2]), inputs[3], inputs[4],
        outputs[0]);
    return 0;
}

namespace
{

class MsDeformAttnPlugin final : public StandardPlugin
{
public:
    explicit MsDeformAttnPlugin(std::string pluginNamespace)
        : StandardPlugin(std::move(pluginNamespace))
    {
    }

    nvinfer1::IPluginV3* clone() noexcept override
    {
        try
        {
            return new MsDeformAttnPlugin(*this);
        }
        catch (...)
        {
            return nullptr;
        }
    }

    char const* getPluginName() const noexcept override { return kMsDeformAttnName; }
    char const* getPluginVersion() const noexcept override { return kMsDeformAttnVersion; }

    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::DimsExprs const* /*shapeInputs*/, int32_t /*nbShapeInputs*/, nvinfer1::DimsExprs* outputs,
        int32_t nbOutputs, nvinfer1::IExprBuilder& /*exprBuilder*/) noexcept override
    {
        std::string const problem = msDeformAttnBuildProblem(inputs, nbInputs);
        if (!problem.empty() || nbOutputs != 1)
        {
            logError(kMsDeformAttnName, problem.empty() ? std::string("has one output") : problem);
            return -1;
        }
        outputs[0].nbDims = 4;
        outputs[0].d[0] = inputs[0].d[0];
        outputs[0].d[1] = inputs[3].d[1];
        outputs[0].d[2] = inputs[0].d[2];
        outputs[0].d[3] = inputs[0].d[3];
        return 0;
    }

    bool supportsFormatCombination(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs) noexcept override
    {
        nvinfer1::PluginTensorDesc descs[6]{};
        for (int32_t i = 0; i <= pos && i < nbInputs + nbOutputs && i < 6; ++i)
        {
            descs[i] = inOut[i].desc;
        }
        return pos < 6 && msDeformAttnSupports(pos, descs);
    }

    int32_t onShapeChange(nvinfer1::PluginTensorDesc const* in, int32_t nbInputs, nvinfer1::PluginTensorDesc const* out,
        int32_t nbOutputs) noexcept override
    {
        return nbInputs == 5 && nbOutputs == 1 && msDeformAttnRunAgrees(in, out) ? 0 : -1;
    }

    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* /*workspace*/, cudaStream_t stream) noexcept override
    {
        return msDeformAttnEnqueue(inputDesc, outputDesc, inputs, outputs, stream);
    }

    int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* /*workspace*/) noexcept override
    {
        return msDeformAttnEnqueueHost(inputDesc, outputDesc, inputs, outputs);
    }

    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override { return &mNoFields; }

private:
    MsDeformAttnPlugin(MsDeformAttnPlugin const& other) = default;

    nvinfer1::PluginFieldCollection mNoFields{0, nullptr};
};

template <typename T>
void msDeformAttnHost(MsDeformAttnParams const& p, void const* value, int32_t const* shapes, int32_t const* starts,
    void const* locations, void const* weights, void* y)
{
    auto* out = static_cast<T*>(y);
    int64_t const count = p.outputCount();
    for (int64_t i = 0; i < count; ++i)
    {
        float const v = msDeformAttnValue(p, static_cast<T const*>(value), shapes, starts,
            static_cast<T const*>(locations), static_cast<T const*>(weights), i, HostLoad{});
        if constexpr (sizeof(T) == 2)
        {
            out[i] = floatToHalf(v);
        }
        else
        {
            out[i] = v;
        }
    }
}

} // namespace

void runMsDeformAttnHost(MsDeformAttnParams const& params, DataType type, void const* value, int32_t const* shapes,
    int32_t const* starts, void const* locations, void const* weights, void* y)
{
    if (type == DataType::kHALF)
    {
        msDeformAttnHost<uint16_t>(params, value, shapes, starts, locations, weights, y);
    }
    else
    {
        msDeformAttnHost<float>(params, value, shapes, starts, locations, weights, y);
    }
}

MsDeformAttnCreator::MsDeformAttnCreator()
    : StandardCreator({})
{
}

nvinfer1::IPluginV3* MsDeformAttnCreator::createPlugin(
    char const* /*name*/, nvinfer1::PluginFieldCollection const* /*fc*/, nvinfer1::TensorRTPhase /*phase*/) noexcept
{
    try
    {
        return new MsDeformAttnPlugin(mNamespace);
    }
    catch (...)
    {
        return nullptr;
    }
}

} // namespace kiln::plugins
