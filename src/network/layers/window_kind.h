// SPDX-License-Identifier: Apache-2.0
// What the convolution, deconvolution and pooling kinds share: the padding, padding-mode and stride methods that
// IConvolutionLayer, IDeconvolutionLayer and IPoolingLayer declare (WindowKind), and the output maps, groups,
// kernel, bias, kernel size and dilation methods of the two filtering kinds (FilterKind), over parameter structs with
// the same field names (network/params.h), and the checks of addConvolutionNd and addDeconvolutionNd (addFilterLayer).
//
//     template <>
//     class KindImpl<LayerType::kPOOLING> final : public WindowKind<nvinfer1::apiv::VPoolingLayer, PoolingParams>
#pragma once

#include "network/checks.h"
#include "network/layer.h"
#include "network/network.h"

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
            edit().prePadding = padding;
        }
    }
    Dims getPrePadding() const noexcept override { return p().prePadding; }
    void setPostPadding(Dims const& padding) noexcept override
    {
        if (mLayer.checkDims("setPostPadding", "the padding", padding, 0, 1, 3))
        {
            edit().postPadding = padding;
        }
    }
    Dims getPostPadding() const noexcept override { return p().postPadding; }
    void setPaddingMode(nvinfer1::PaddingMode paddingMode) noexcept override
    {
        if (mLayer.checkEnum("setPaddingMode", "padding mode", paddingMode))
        {
            edit().paddingMode = paddingMode;
        }
    }
    nvinfer1::PaddingMode getPaddingMode() const noexcept override { return p().paddingMode; }
    void setStrideNd(Dims const& stride) noexcept override
    {
        if (mLayer.checkDims("setStrideNd", "the stride", stride, 1, 1, 3))
        {
            edit().stride = stride;
        }
    }
    Dims getStrideNd() const noexcept override { return p().stride; }
    void setPaddingNd(Dims const& padding) noexcept override
    {
        if (mLayer.checkDims("setPaddingNd", "the padding", padding, 0, 1, 3))
        {
            edit().prePadding = padding;
            edit().postPadding = padding;
        }
    }
    Dims getPaddingNd() const noexcept override { return p().prePadding; }

protected:
    Params const& p() const noexcept { return mLayer.paramsAs<Params>(); }
    //! The parameters, to change: the layer's outputs are then computed again (Layer::editParams).
    Params& edit() noexcept { return mLayer.editParams<Params>(); }
};

//! The methods IConvolutionLayer and IDeconvolutionLayer share beyond the window's; inputs 0 data, 1 kernel, 2 bias.
template <typename Interface, typename Params>
class FilterKind : public WindowKind<Interface, Params>
{
public:
    using WindowKind<Interface, Params>::WindowKind;

    void setNbOutputMaps(int64_t nbOutputMaps) noexcept override
    {
        if (nbOutputMaps < 1)
        {
            this->mLayer.fail("setNbOutputMaps", "nbOutputMaps is ", nbOutputMaps, "; it must be at least 1");
            return;
        }
        this->edit().nbOutputMaps = nbOutputMaps;
    }
    int64_t getNbOutputMaps() const noexcept override { return this->p().nbOutputMaps; }
    void setNbGroups(int64_t nbGroups) noexcept override
    {
        if (nbGroups < 1)
        {
            this->mLayer.fail("setNbGroups", "nbGroups is ", nbGroups, "; it must be at least 1");
            return;
        }
        this->edit().nbGroups = nbGroups;
    }
    int64_t getNbGroups() const noexcept override { return this->p().nbGroups; }
    void setKernelWeights(Weights weights) noexcept override
    {
        if (char const* problem = weightsProblem(weights))
        {
            this->mLayer.fail("setKernelWeights", "the kernel weights are unusable: ", problem);
            return;
        }
        this->edit().kernel = weights;
    }
    Weights getKernelWeights() const noexcept override { return this->p().kernel; }
    void setBiasWeights(Weights weights) noexcept override
    {
        if (char const* problem = weightsProblem(weights))
        {
            this->mLayer.fail("setBiasWeights", "the bias weights are unusable: ", problem);
            return;
        }
        this->edit().bias = weights;
    }
    Weights getBiasWeights() const noexcept override { return this->p().bias; }
    void setKernelSizeNd(Dims const& kernelSize) noexcept override
    {
        if (this->mLayer.checkDims("setKernelSizeNd", "the kernel size", kernelSize, 1, 2, 3))
        {
            this->edit().kernelSize = kernelSize;
        }
    }
    Dims getKernelSizeNd() const noexcept override { return this->p().kernelSize; }
    void setDilationNd(Dims const& dilation) noexcept override
    {
        if (this->mLayer.checkDims("setDilationNd", "the dilation", dilation, 1, 1, 3))
        {
            this->edit().dilation = dilation;
        }
    }
    Dims getDilationNd() const noexcept override { return this->p().dilation; }

    //! Inputs: 0 data, 1 kernel, 2 bias.
    int32_t inputCapacity() const noexcept { return 3; }
    DataType outputType(int32_t /*index*/) const noexcept { return this->inputType(0); }
};

//! What addConvolutionNd and addDeconvolutionNd share: the checks of their arguments (errors name where and the kind,
//! noun: "convolution"), then the layer of kind T with stride 1, no padding and dilation 1 on every spatial axis. Runs
//! inside the caller's reporter guard.
template <LayerType T>
LayerObject<T>* addFilterLayer(Network& network, char const* where, char const* noun, nvinfer1::ITensor& input,
    int64_t nbOutputMaps, Dims const& kernelSize, Weights kernelWeights, Weights biasWeights)
{
    Tensor* data = network.own(&input, where, "input");
    if (data == nullptr)
    {
        return nullptr;
    }
    if (nbOutputMaps < 1)
    {
        return network.fail(where, "nbOutputMaps is ", nbOutputMaps, "; it must be at least 1");
    }
    if (kernelSize.nbDims < 2 || kernelSize.nbDims > 3)
    {
        return network.fail(where, "the kernel size ", kernelSize, " has ", kernelSize.nbDims, " dimensions; a ", noun,
            " is 2-D or 3-D");
    }
    for (int32_t i = 0; i < kernelSize.nbDims; ++i)
    {
        if (kernelSize.d[i] < 1)
        {
            return network.fail(where, "extent ", i, " of the kernel size ", kernelSize, " is ", kernelSize.d[i],
                "; kernel extents are at least 1");
        }
    }
    if (char const* problem = weightsProblem(kernelWeights))
    {
        return network.fail(where, "the kernel weights are unusable: ", problem);
    }
    if (char const* problem = weightsProblem(biasWeights))
    {
        return network.fail(where, "the bias weights are unusable: ", problem);
    }
    int32_t const rank = data->dims().nbDims;
    if (rank >= 0 && rank < kernelSize.nbDims + 2)
    {
        return network.fail(where, "input ", quotedText(data->name()), " has shape ", data->dims(), "; a ",
            kernelSize.nbDims, "-D ", noun, " needs batch, channel and ", kernelSize.nbDims, " spatial dimensions");
    }
    typename LayerKindTraits<T>::Params params;
    params.nbOutputMaps = nbOutputMaps;
    params.kernelSize = kernelSize;
    params.stride = filledDims(kernelSize.nbDims, 1);
    params.prePadding = filledDims(kernelSize.nbDims, 0);
    params.postPadding = filledDims(kernelSize.nbDims, 0);
    params.dilation = filledDims(kernelSize.nbDims, 1);
    params.kernel = kernelWeights;
    params.bias = biasWeights;
    return &network.addLayer<T>({data}, std::move(params), 1);
}

} // namespace kiln
