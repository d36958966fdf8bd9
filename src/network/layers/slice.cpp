// SPDX-License-Identifier: Apache-2.0
// Slice: a strided window of the input. Start, size, stride and axes are parameters, or tensor inputs 1, 2, 3 and
// 5 (input 4 is the fill value of kFILL mode); setting a parameter drops the tensor input that gave it.
#include "network/checks.h"
#include "network/network.h"
#include "network/shape_rules.h"

#include <algorithm>
#include <optional>

#include <limits>

namespace kiln
{

using nvinfer1::SampleMode;

namespace
{

constexpr int32_t kStartInput = 1;
constexpr int32_t kSizeInput = 2;
constexpr int32_t kStrideInput = 3;
constexpr int32_t kAxesInput = 5;

} // namespace

template <>
class KindImpl<LayerType::kSLICE> final : public nvinfer1::apiv::VSliceLayer, public KindBase
{
public:
    using KindBase::KindBase;

    void setStart(Dims const& start) noexcept override
    {
        if (mLayer.checkDims("setStart", "the start", start, std::numeric_limits<int64_t>::min()))
        {
            edit().start = start;
            mLayer.clearInput(kStartInput);
        }
    }
    Dims getStart() const noexcept override { return given(kStartInput) ? kUnsetDims : p().start; }
    void setSize(Dims const& size) noexcept override
    {
        if (mLayer.checkDims("setSize", "the size", size, 0))
        {
            edit().size = size;
            mLayer.clearInput(kSizeInput);
        }
    }
    Dims getSize() const noexcept override { return given(kSizeInput) ? kUnsetDims : p().size; }
    void setStride(Dims const& stride) noexcept override
    {
        if (mLayer.checkDims("setStride", "the stride", stride, std::numeric_limits<int64_t>::min()))
        {
            edit().stride = stride;
            mLayer.clearInput(kStrideInput);
        }
    }
    Dims getStride() const noexcept override { return given(kStrideInput) ? kUnsetDims : p().stride; }
    void setMode(nvinfer1::SampleMode mode) noexcept override
    {
        if (mLayer.checkEnum("setMode", "sample mode", mode))
        {
            edit().mode = mode;
        }
    }
    nvinfer1::SampleMode getMode() const noexcept override { return p().mode; }
    void setAxes(Dims const& axes) noexcept override
    {
        if (!mLayer.checkDims("setAxes", "the axes", axes, std::numeric_limits<int64_t>::min()))
        {
            return;
        }
        int32_t const rank = inputDims(0).nbDims;
        bool seen[Dims::MAX_DIMS]{};
        for (int32_t i = 0; i < axes.nbDims && rank >= 0; ++i)
        {
            int64_t const axis = axes.d[i] < 0 ? axes.d[i] + rank : axes.d[i];
            if (axis < 0 || axis >= rank || seen[axis])
            {
                mLayer.fail("setAxes", "axis ", axes.d[i], " of ", axes,
                    " is out of range or repeated for an input of rank ", rank);
                return;
            }
            seen[axis] = true;
        }
        edit().axes = axes;
        mLayer.clearInput(kAxesInput);
    }
    Dims getAxes() const noexcept override { return given(kAxesInput) ? kUnsetDims : p().axes; }

    //! Inputs: 0 data, 1 start, 2 size, 3 stride, 4 fill value, 5 axes.
    int32_t inputCapacity() const noexcept { return 6; }
    bool isShapeInput(int32_t index) const noexcept
    {
        return index == kStartInput || index == kSizeInput || index == kStrideInput || index == kAxesInput;
    }
    bool computesShapeValues() const noexcept { return true; }
    DataType outputType(int32_t /*index*/) const noexcept { return inputType(0); }
    Dims outputDims(int32_t /*index*/) const noexcept
    {
        Dims const input = inputDims(0);
        Dims const axes = getAxes();
        if (input.nbDims < 0)
        {
            return kUnsetDims;
        }
        if (given(kAxesInput))
        {
            return filledDims(input.nbDims, -1);
        }
        Dims const size = given(kSizeInput) ? filledDims(axes.nbDims < 0 ? input.nbDims : axes.nbDims, -1) : p().size;
        if (axes.nbDims < 0)
        {
            return size.nbDims == input.nbDims ? size : filledDims(input.nbDims, -1);
        }
        Dims result = input;
        for (int32_t i = 0; i < axes.nbDims && i < size.nbDims; ++i)
        {
            int64_t const axis = axes.d[i] < 0 ? axes.d[i] + input.nbDims : axes.d[i];
            if (axis >= 0 && axis < input.nbDims)
            {
                result.d[axis] = size.d[i];
            }
        }
        return result;
    }

private:
    SliceParams const& p() const noexcept { return mLayer.paramsAs<SliceParams>(); }
    //! The parameters, to change: the layer's outputs are then computed again (Layer::editParams).
    SliceParams& edit() noexcept { return mLayer.editParams<SliceParams>(); }
    bool given(int32_t index) const noexcept { return mLayer.input(index) != nullptr; }
};

nvinfer1::ISliceLayer* NetworkApi::addSlice(
    nvinfer1::ITensor& input, Dims const& start, Dims const& size, Dims const& stride) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addSlice";
    return mNetwork.reporter().guard(
        kWhere, static_cast<nvinfer1::ISliceLayer*>(nullptr), [&]() -> nvinfer1::ISliceLayer* {
            Tensor* data = mNetwork.own(&input, kWhere, "input");
            if (data == nullptr)
            {
                return nullptr;
            }
            for (Dims const* dims : {&start, &size, &stride})
            {
                if (dims->nbDims < 0 || dims->nbDims > Dims::MAX_DIMS)
                {
                    return mNetwork.fail(kWhere, "start, size and stride have 0 to ", Dims::MAX_DIMS,
                        " dimensions; one has ", dims->nbDims);
                }
            }
            if (start.nbDims != size.nbDims || size.nbDims != stride.nbDims)
            {
                return mNetwork.fail(
                    kWhere, "start ", start, ", size ", size, " and stride ", stride, " differ in rank");
            }
            for (int32_t i = 0; i < size.nbDims; ++i)
            {
                if (size.d[i] < 0)
                {
                    return mNetwork.fail(kWhere, "extent ", i, " of the size ", size, " is negative");
                }
            }
            // Their rank is the input's, or that of the axes set later with setAxes(): the builder checks it.
            return &mNetwork.addLayer<LayerType::kSLICE>(
                {data}, SliceParams{start, size, stride, nvinfer1::SampleMode::kSTRICT_BOUNDS, kUnsetDims}, 1);
        });
}

// The symbolic shape rule (network/shape_rules.h).
namespace
{

//! Start, size, stride or axes: from the parameter, or from the values of the given tensor input.
std::optional<SymbolicDims> sliceOperand(ShapeRuleContext& context, int32_t index, Dims const& param, char const* what)
{
    SymbolicTensor const& tensor = context.input(index);
    if (!tensor.present())
    {
        return param.nbDims < 0 ? std::nullopt : std::optional(constantDims(context.exprs(), param));
    }
    int64_t length = 0;
    if (tensor.rank() != 1 || !isConstantExpr((*tensor.shape)[0], &length))
    {
        context.fail(context.error("input ", index, " (", what, ") has shape ", context.str(*tensor.shape),
            "; it must be a 1-D shape tensor of build-time length"));
        return std::nullopt;
    }
    if (!tensor.values)
    {
        context.fail(context.error("the values of input ", index, " (", what, ") are not known symbolically"));
        return std::nullopt;
    }
    return tensor.values;
}

//! Index i of a 1-D tensor of extent n read by a slice in mode, or nullopt when it is not a plain index.
std::optional<int64_t> sampledIndex(int64_t x, int64_t n, SampleMode mode) noexcept
{
    switch (mode)
    {
    case SampleMode::kSTRICT_BOUNDS: return x >= 0 && x < n ? std::optional(x) : std::nullopt;
    case SampleMode::kWRAP: return n > 0 ? std::optional(((x % n) + n) % n) : std::nullopt;
    case SampleMode::kCLAMP: return n > 0 ? std::optional(std::clamp<int64_t>(x, 0, n - 1)) : std::nullopt;
    default: return std::nullopt;
    }
}

} // namespace

Expected<std::vector<SymbolicTensor>> inferOutputShapes(SliceParams const& params, ShapeRuleContext& context)
{
    SymbolicTensor const& data = context.input(0);
    if (!data.present())
    {
        return context.error("input 0 is missing");
    }
    int32_t const rank = data.rank();
    auto start = sliceOperand(context, kStartInput, params.start, "start");
    auto size = sliceOperand(context, kSizeInput, params.size, "size");
    auto stride = sliceOperand(context, kStrideInput, params.stride, "stride");
    auto axesExprs = sliceOperand(context, kAxesInput, params.axes, "axes");
    if (context.failed())
    {
        return context.finish({});
    }
    // The axes the operands apply to: every axis in order, or the (constant) axes given.
    std::vector<int32_t> axes;
    if (axesExprs)
    {
        std::vector<bool> seen(static_cast<std::size_t>(rank), false);
        for (DimExpr const* expr : *axesExprs)
        {
            int64_t axis = 0;
            if (!isConstantExpr(expr, &axis))
            {
                return context.error("the axes must be build-time constants; one is ", context.str(expr));
            }
            int64_t const normal = axis < 0 ? axis + rank : axis;
            if (normal < 0 || normal >= rank || seen[static_cast<std::size_t>(normal)])
            {
                return context.error("axis ", axis, " is out of range or repeated for an input of rank ", rank);
            }
            seen[static_cast<std::size_t>(normal)] = true;
            axes.push_back(static_cast<int32_t>(normal));
        }
    }
    else
    {
        for (int32_t i = 0; i < rank; ++i)
        {
            axes.push_back(i);
        }
    }
    for (auto const& [operand, what] : {std::pair{&start, "start"}, {&size, "size"}, {&stride, "stride"}})
    {
        if (!*operand || (*operand)->size() != axes.size())
        {
            return context.error("the ", what, " has ", *operand ? static_cast<int64_t>((*operand)->size()) : -1,
                " entries; it needs one per sliced axis (", axes.size(),
                axesExprs ? " axes given)" : ", the input's rank)");
        }
    }
    SymbolicDims out = *data.shape;
    for (std::size_t i = 0; i < axes.size(); ++i)
    {
        DimExpr const* extent = (*size)[i];
        int64_t value = 0;
        if (isConstantExpr(extent, &value) && value < 0)
        {
            return context.error("the size of axis ", axes[i], " is ", value, "; extents are at least 0");
        }
        auto const axis = static_cast<std::size_t>(axes[i]);
        // Strict bounds, all constant: the first and last sampled coordinates lie inside the input.
        int64_t first = 0;
        int64_t step = 0;
        int64_t n = 0;
        if (params.mode == SampleMode::kSTRICT_BOUNDS && value > 0 && isConstantExpr(extent)
            && isConstantExpr((*start)[i], &first) && isConstantExpr((*stride)[i], &step)
            && isConstantExpr((*data.shape)[axis], &n))
        {
            int64_t reach = 0;
            int64_t last = 0;
            if (__builtin_mul_overflow(value - 1, step, &reach) || __builtin_add_overflow(first, reach, &last))
            {
                return context.error("axis ", axes[i], ": start ", first, " + (size ", value, " - 1) * stride ", step,
                    " passes a 64-bit coordinate");
            }
            if (first < 0 || first >= n || last < 0 || last >= n)
            {
                return context.error("axis ", axes[i], ": start ", first, ", size ", value, " and stride ", step,
                    " read coordinates ", first, " to ", last, " of an extent of ", n,
                    " (kSTRICT_BOUNDS needs them inside)");
            }
        }
        out[axis] = extent;
    }
    SymbolicTensor result{out, std::nullopt, {}};
    // Shape-tensor values of a 1-D slice with constant start, size and stride.
    int64_t first = 0;
    int64_t count = 0;
    int64_t step = 0;
    if (rank == 1 && data.values && isConstantExpr((*start)[0], &first) && isConstantExpr((*size)[0], &count)
        && isConstantExpr((*stride)[0], &step) && count >= 0 && static_cast<std::size_t>(count) <= kMaxShapeValues)
    {
        SymbolicDims values;
        auto const n = static_cast<int64_t>(data.values->size());
        for (int64_t j = 0; j < count; ++j)
        {
            int64_t coordinate = 0;
            if (__builtin_mul_overflow(j, step, &coordinate) || __builtin_add_overflow(first, coordinate, &coordinate))
            {
                break; // Not a value the slice can give: the kernels refuse it.
            }
            auto const index = sampledIndex(coordinate, n, params.mode);
            if (!index)
            {
                break;
            }
            values.push_back((*data.values)[static_cast<std::size_t>(*index)]);
        }
        if (static_cast<int64_t>(values.size()) == count)
        {
            result.values = std::move(values);
        }
    }
    return context.finish({std::move(result)});
}

} // namespace kiln
