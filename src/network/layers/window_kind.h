// SPDX-License-Identifier: Apache-2.0
// What the convolution and pooling kinds share: the padding, padding-mode and stride methods that IConvolutionLayer
// and IPoolingLayer both declare, over parameter structs with the same field names (network/params.h).
//
//     template <>
//     class KindImpl<LayerType::kPOOLING> final : public WindowKind<nvinfer1::apiv::VPoolingLayer, PoolingParams>
#pragma once

#include "network/layer.h"

namespace kiln
{

template <typename Interface, typename Params>
class WindowKind : public Interface, public KindBase
{
public:
    using KindBase::KindBase;

    void setPrePadding(Dims const& padding) noexcept override
    {
        if (mLayer.checkDims("setPrePadding", "the padding", padding, 0, 1, 3))
        {
            p().prePadding = padding;
        }
    }
    Dims getPrePadding() const noexcept override { return p().prePadding; }
    void setPostPadding(Dims const& padding) noexcept override
    {
        if (mLayer.checkDims("setPostPadding", "the padding", padding, 0, 1, 3))
        {
            p().postPadding = padding;
        }
    }
    Dims getPostPadding() const noexcept override { return p().postPadding; }
    void setPaddingMode(nvinfer1::PaddingMode paddingMode) noexcept override
    {
        if (mLayer.checkEnum("setPaddingMode", "padding mode", paddingMode))
        {
            p().paddingMode = paddingMode;
        }
    }
    nvinfer1::PaddingMode getPaddingMode() const noexcept override { return p().paddingMode; }
    void setStrideNd(Dims const& stride) noexcept override
    {
        if (mLayer.checkDims("setStrideNd", "the stride", stride, 1, 1, 3))
        {
            p().stride = stride;
        }
    }
    Dims getStrideNd() const noexcept override { return p().stride; }
    void setPaddingNd(Dims const& padding) noexcept override
    {
        if (mLayer.checkDims("setPaddingNd", "the padding", padding, 0, 1, 3))
        {
            p().prePadding = padding;
            p().postPadding = padding;
        }
    }
    Dims getPaddingNd() const noexcept override { return p().prePadding; }

protected:
    Params& p() const noexcept { return mLayer.paramsAs<Params>(); }
};

} // namespace kiln
