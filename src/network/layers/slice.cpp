// SPDX-License-Identifier: Apache-2.0
// Slice: a strided window of the input. Start, size, stride and axes are parameters, or tensor inputs 1, 2, 3 and
// 5 (input 4 is the fill value of kFILL mode); setting a parameter drops the tensor input that gave it.
#include "network/checks.h"
#include "network/network.h"

#include <limits>

namespace kiln
{

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
            p().start = start;
            mLayer.clearInput(kStartInput);
        }
    }
    Dims getStart() const noexcept override { return given(kStartInput) ? kUnsetDims : p().start; }
    void setSize(Dims const& size) noexcept override
    {
        if (mLayer.checkDims("setSize", "the size", size, 0))
        {
            p().size = size;
            mLayer.clearInput(kSizeInput);
        }
    }
    Dims getSize() const noexcept override { return given(kSizeInput) ? kUnsetDims : p().size; }
    void setStride(Dims const& stride) noexcept override
    {
        if (mLayer.checkDims("setStride", "the stride", stride, std::numeric_limits<int64_t>::min()))
        {
            p().stride = stride;
            mLayer.clearInput(kStrideInput);
        }
    }
    Dims getStride() const noexcept override { return given(kStrideInput) ? kUnsetDims : p().stride; }
    void setMode(nvinfer1::SampleMode mode) noexcept override
    {
        if (mLayer.checkEnum("setMode", "sample mode", mode))
        {
            p().mode = mode;
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
        p().axes = axes;
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
    SliceParams& p() const noexcept { return mLayer.paramsAs<SliceParams>(); }
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

} // namespace kiln
