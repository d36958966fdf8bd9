// SPDX-License-Identifier: Apache-2.0
#include "deform_conv.h"

#include "elements.h"

#include <array>

namespace kiln::plugins
{

namespace
{

using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::PluginField;
using nvinfer1::PluginFieldType;

//! Why the inputs' extents do not fit together (extents below 0, not known yet, are not checked); empty if they do.
std::string shapeProblem(DeformConvParams const& p, Dims const* dims, int32_t nbInputs)
{
    if (nbInputs != 4 && nbInputs != 5)
    {
        return "takes X, offset, mask, weight and optionally bias; it got " + std::to_string(nbInputs) + " inputs";
    }
    for (int32_t i = 0; i < 4; ++i)
    {
        if (dims[i].nbDims != 4)
        {
            return "input " + std::to_string(i) + " has " + std::to_string(dims[i].nbDims)
                + " dimensions; X, offset, mask and weight are 4-D";
        }
    }
    if (nbInputs == 5 && dims[4].nbDims != 1)
    {
        return "bias must be 1-D [O]";
    }
    auto known = [](int64_t a, int64_t b) { return a < 0 || b < 0 || a == b; };
    Dims const& x = dims[0];
    Dims const& w = dims[3];
    int64_t const taps = w.d[2] < 0 || w.d[3] < 0 ? -1 : w.d[2] * w.d[3];
    bool const groupsFit = (x.d[1] < 0 || x.d[1] % p.group == 0) && (w.d[0] < 0 || w.d[0] % p.group == 0)
        && (x.d[1] < 0 || x.d[1] % p.deformableGroup == 0);
    if (!groupsFit || !known(x.d[1], w.d[1] < 0 ? -1 : w.d[1] * p.group))
    {
        return "X has " + std::to_string(x.d[1]) + " channels and weight is [" + std::to_string(w.d[0]) + ", "
            + std::to_string(w.d[1]) + ", ...]; with group " + std::to_string(p.group) + " and deformable_group "
            + std::to_string(p.deformableGroup) + " they must be C = weight[1] * group, divisible by both, and O "
            + "divisible by group";
    }
    if (!known(dims[1].d[1], taps < 0 ? -1 : 2 * p.deformableGroup * taps)
        || !known(dims[2].d[1], taps < 0 ? -1 : p.deformableGroup * taps))
    {
        return "offset has " + std::to_string(dims[1].d[1]) + " channels and mask " + std::to_string(dims[2].d[1])
            + "; they must be 2 * deformable_group * kH * kW and deformable_group * kH * kW";
    }
    if (!known(dims[1].d[0], x.d[0]) || !known(dims[2].d[0], x.d[0]) || !known(dims[1].d[2], dims[2].d[2])
        || !known(dims[1].d[3], dims[2].d[3]))
    {
        return "offset and mask must be [N, ..., oH, oW] with X's N and the same oH and oW";
    }
    if (nbInputs == 5 && !known(dims[4].d[0], w.d[0]))
    {
        return "bias has " + std::to_string(dims[4].d[0]) + " elements; it must have O = " + std::to_string(w.d[0]);
    }
    return {};
}

class DeformConvPlugin final : public StandardPlugin
{
public:
    DeformConvPlugin(std::string pluginNamespace, DeformConvParams const& params)
        : StandardPlugin(std::move(pluginNamespace))
        , mParams(params)
    {
    }

    nvinfer1::IPluginV3* clone() noexcept override
    {
        try
        {
            return new DeformConvPlugin(*this);
        }
        catch (...)
        {
            return nullptr;
        }
    }

    char const* getPluginName() const noexcept override { return kDeformConvName; }
    char const* getPluginVersion() const noexcept override { return kDeformConvVersion; }

    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::DimsExprs const* /*shapeInputs*/, int32_t /*nbShapeInputs*/, nvinfer1::DimsExprs* outputs,
        int32_t nbOutputs, nvinfer1::IExprBuilder& /*exprBuilder*/) noexcept override
    {
        if ((nbInputs != 4 && nbInputs != 5) || nbOutputs != 1 || inputs[0].nbDims != 4 || inputs[1].nbDims != 4
            || inputs[3].nbDims != 4)
        {
            logError(kDeformConvName, "takes 4-D X, offset, mask and weight and an optional bias, and has one output");
            return -1;
        }
        outputs[0].nbDims = 4;
        outputs[0].d[0] = inputs[0].d[0];
        outputs[0].d[1] = inputs[3].d[0];
        outputs[0].d[2] = inputs[1].d[2];
        outputs[0].d[3] = inputs[1].d[3];
        return 0;
    }

    bool supportsFormatCombination(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t /*nbInputs*/,
        int32_t /*nbOutputs*/) noexcept override
    {
        nvinfer1::PluginTensorDesc const& desc = inOut[pos].desc;
        if (desc.format != nvinfer1::TensorFormat::kLINEAR)
        {
            return false;
        }
        return pos == 0 ? isFloatOrHalf(desc.type) : desc.type == inOut[0].desc.type;
    }

    int32_t configurePlugin(nvinfer1::DynamicPluginTensorDesc const* in, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* /*out*/, int32_t /*nbOutputs*/) noexcept override
    {
        try
        {
            std::array<Dims, 5> dims{};
            for (int32_t i = 0; i < nbInputs && i < 5; ++i)
            {
                dims[i] = in[i].desc.dims;
            }
            mHasBias = nbInputs == 5;
            return reportProblem(shapeProblem(mParams, dims.data(), nbInputs));
        }
        catch (...)
        {
            return -1;
        }
    }

    int32_t onShapeChange(nvinfer1::PluginTensorDesc const* in, int32_t nbInputs,
        nvinfer1::PluginTensorDesc const* /*out*/, int32_t /*nbOutputs*/) noexcept override
    {
        try
        {
            std::array<Dims, 5> dims{};
            for (int32_t i = 0; i < nbInputs && i < 5; ++i)
            {
                dims[i] = in[i].dims;
            }
            mHasBias = nbInputs == 5;
            return reportProblem(shapeProblem(mParams, dims.data(), nbInputs));
        }
        catch (...)
        {
            return -1;
        }
    }

    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* /*workspace*/, cudaStream_t stream) noexcept override
    {
        if (!shapesAgree(inputDesc, outputDesc))
        {
            return -1;
        }
#ifdef KILN_PLUGINS_CUDA
        DeformConvParams const params = paramsFor(inputDesc, outputDesc);
        cudaError_t const status = launchDeformConv(params, inputDesc[0].type, inputs[0], inputs[1], inputs[2],
            inputs[3], params.hasBias ? inputs[4] : nullptr, outputs[0], stream);
        if (status != cudaSuccess)
        {
            logError(kDeformConvName, std::string("the CUDA kernel failed to launch: ") + cudaGetErrorString(status));
            return -1;
        }
        return 0;
#else
        static_cast<void>(inputDesc), static_cast<void>(outputDesc), static_cast<void>(inputs);
        static_cast<void>(outputs), static_cast<void>(stream);
        logError(kDeformConvName, "this build of the standard plugin library has no CUDA kernels");
        return -1;
#endif
    }

    int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* /*workspace*/) noexcept override
    {
        if (!shapesAgree(inputDesc, outputDesc))
        {
            return -1;
        }
        DeformConvParams const params = paramsFor(inputDesc, outputDesc);
        runDeformConvHost(params, inputDesc[0].type, inputs[0], inputs[1], inputs[2], inputs[3],
            params.hasBias ? inputs[4] : nullptr, outputs[0]);
        return 0;
    }

    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {
        mStride = {mParams.strideH, mParams.strideW};
        mPadding = {mParams.padH, mParams.padW};
        mDilation = {mParams.dilationH, mParams.dilationW};
        mFields = {PluginField{"stride", mStride.data(), PluginFieldType::kINT32, 2},
            PluginField{"padding", mPadding.data(), PluginFieldType::kINT32, 2},
            PluginField{"dilation", mDilation.data(), PluginFieldType::kINT32, 2},
            PluginField{"group", &mParams.group, PluginFieldType::kINT32, 1},
            PluginField{"deformable_group", &mParams.deformableGroup, PluginFieldType::kINT32, 1}};
        mCollection = {static_cast<int32_t>(mFields.size()), mFields.data()};
        return &mCollection;
    }

private:
    DeformConvPlugin(DeformConvPlugin const& other)
        : StandardPlugin(other)
        , mParams(other.mParams)
        , mHasBias(other.mHasBias)
    {
    }

    static int32_t reportProblem(std::string const& problem)
    {
        if (problem.empty())
        {
            return 0;
        }
        logError(kDeformConvName, problem);
        return -1;
    }

    //! The attributes with the extents of this run.
    //! Whether this run's tensors have the shapes the attributes imply: X [N, C, H, W], offset [N, dg * 2 * kH * kW,
    //! oH, oW], mask [N, dg * kH * kW, oH, oW], W [O, C / group, kH, kW], bias [O], Y [N, O, oH, oW] with oH and oW
    //! the convolution's output extents; logs what differs otherwise. A plan whose recorded shapes disagree with its
    //! fields (a corrupted or hostile one) is refused here rather than read or written past.
    bool shapesAgree(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc) const
    {
        Dims const& x = inputDesc[0].dims;
        Dims const& offset = inputDesc[1].dims;
        Dims const& mask = inputDesc[2].dims;
        Dims const& w = inputDesc[3].dims;
        Dims const& y = outputDesc[0].dims;
        auto const extent = [](int64_t in, int64_t pad, int64_t dilation, int64_t kernel, int64_t stride) {
            return stride > 0 ? (in + 2 * pad - dilation * (kernel - 1) - 1) / stride + 1 : -1;
        };
        int64_t const group = mParams.group;
        int64_t const deformable = mParams.deformableGroup;
        bool agree = x.nbDims == 4 && offset.nbDims == 4 && mask.nbDims == 4 && w.nbDims == 4 && y.nbDims == 4
            && group > 0 && deformable > 0 && x.d[1] % group == 0 && x.d[1] % deformable == 0 && w.d[0] % group == 0
            && w.d[1] * group == x.d[1] && y.d[0] == x.d[0] && y.d[1] == w.d[0]
            && y.d[2] == extent(x.d[2], mParams.padH, mParams.dilationH, w.d[2], mParams.strideH)
            && y.d[3] == extent(x.d[3], mParams.padW, mParams.dilationW, w.d[3], mParams.strideW);
        for (Dims const* field : {&offset, &mask})
        {
            int64_t const per = field == &offset ? 2 : 1;
            agree = agree && field->d[0] == x.d[0] && field->d[1] == deformable * per * w.d[2] * w.d[3]
                && field->d[2] == y.d[2] && field->d[3] == y.d[3];
        }
        if (agree && mHasBias)
        {
            Dims const& bias = inputDesc[4].dims;
            agree = bias.nbDims == 1 && bias.d[0] == w.d[0];
        }
        if (!agree)
        {
            logError(kDeformConvName,
                "the tensors of this run do not have the shapes its attributes imply (X [N, C, H, W], offset [N, "
                "deformable_group * 2 * kH * kW, oH, oW], mask [N, deformable_group * kH * kW, oH, oW], W [O, C / "
                "group, kH, kW], bias [O], Y [N, O, oH, oW]); nothing was computed");
        }
        return agree;
    }

    DeformConvParams paramsFor(
        nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc) const noexcept
    {
        DeformConvParams params = mParams;
        Dims const& x = inputDesc[0].dims;
        Dims const& w = inputDesc[3].dims;
        params.batch = x.d[0];
        params.channels = x.d[1];
        params.height = x.d[2];
        params.width = x.d[3];
        params.outChannels = w.d[0];
        params.kernelH = w.d[2];
        params.kernelW = w.d[3];
        params.outHeight = outputDesc[0].dims.d[2];
        params.outWidth = outputDesc[0].dims.d[3];
        params.hasBias = mHasBias;
        return params;
    }

    DeformConvParams mParams;
    bool mHasBias{false}; //!< Whether there is a bias input (set by configurePlugin and onShapeChange).
    std::array<int32_t, 2> mStride{};
    std::array<int32_t, 2> mPadding{};
    std::array<int32_t, 2> mDilation{};
    std::vector<PluginField> mFields;
    nvinfer1::PluginFieldCollection mCollection{};
};

template <typename T>
void deformConvHost(DeformConvParams const& params, void const* x, void const* offset, void const* mask,
    void const* weight, void const* bias, void* y)
{
    auto* out = static_cast<T*>(y);
    int64_t const count = params.outputCount();
    for (int64_t i = 0; i < count; ++i)
    {
        float const v = deformConvValue(params, static_cast<T const*>(x), static_cast<T const*>(offset),
            static_cast<T const*>(mask), static_cast<T const*>(weight), static_cast<T const*>(bias), i, HostLoad{});
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

void runDeformConvHost(DeformConvParams const& params, DataType type, void const* x, void const* offset,
    void const* mask, void const* weight, void const* bias, void* y)
{
    if (type == DataType::kHALF)
    {
        deformConvHost<uint16_t>(params, x, offset, mask, weight, bias, y);
    }
    else
    {
        deformConvHost<float>(params, x, offset, mask, weight, bias, y);
    }
}

DeformConvCreator::DeformConvCreator()
    : StandardCreator({PluginField{"stride", nullptr, PluginFieldType::kINT32, 2},
        PluginField{"padding", nullptr, PluginFieldType::kINT32, 2},
        PluginField{"dilation", nullptr, PluginFieldType::kINT32, 2},
        PluginField{"group", nullptr, PluginFieldType::kINT32, 1},
        PluginField{"deformable_group", nullptr, PluginFieldType::kINT32, 1}})
{
}

nvinfer1::IPluginV3* DeformConvCreator::createPlugin(
    char const* /*name*/, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase /*phase*/) noexcept
{
    try
    {
        FieldReader const fields(kDeformConvName, fc);
        std::vector<int32_t> stride{1, 1};
        std::vector<int32_t> padding{0, 0};
        std::vector<int32_t> dilation{1, 1};
        DeformConvParams params;
        if (!fields.readInts("stride", stride) || !fields.readInts("padding", padding)
            || !fields.readInts("dilation", dilation) || !fields.readInt("group", params.group)
            || !fields.readInt("deformable_group", params.deformableGroup))
        {
            return nullptr;
        }
        std::string problem;
        if (stride[0] <= 0 || stride[1] <= 0 || dilation[0] <= 0 || dilation[1] <= 0)
        {
            problem = "stride and dilation must be positive";
        }
        else if (padding[0] < 0 || padding[1] < 0)
        {
            problem = "padding must be 0 or more";
        }
        else if (params.group <= 0 || params.deformableGroup <= 0)
        {
            problem = "group and deformable_group must be positive; they are " + std::to_string(params.group) + " and "
                + std::to_string(params.deformableGroup);
        }
        if (!problem.empty())
        {
            logError(kDeformConvName, problem);
            return nullptr;
        }
        params.strideH = stride[0];
        params.strideW = stride[1];
        params.padH = padding[0];
        params.padW = padding[1];
        params.dilationH = dilation[0];
        params.dilationW = dilation[1];
        return new DeformConvPlugin(mNamespace, params);
    }
    catch (...)
    {
        return nullptr;
    }
}

} // namespace kiln::plugins
