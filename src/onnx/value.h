// SPDX-License-Identifier: Apache-2.0
// What flows between ONNX nodes during import: a network tensor, weights known at parse time (initializers, Constant
// nodes, values the parser folded), or nothing (an omitted optional input, whose name is "").
//
//     Value v = ctx.value("conv1.weight");
//     if (v.isWeights()) { ShapedWeights const& w = v.weights(); float const* f = w.as<float>(); }
#pragma once

#include "NvInfer.h"

#include <cstdint>
#include <string>

namespace kiln::onnx_import
{

using nvinfer1::DataType;
using nvinfer1::Dims;

//! The number of elements of shape (1 for a scalar, 0 when a dimension is 0). Dimensions must be known.
int64_t volume(Dims const& shape) noexcept;

//! Parse-time values: element type, shape and bytes. The bytes belong to the import context (or to a file it
//! mapped) and live as long as the parser.
struct ShapedWeights
{
    DataType type{DataType::kFLOAT};
    Dims shape{0, {}};
    void const* data{nullptr};
    int64_t count{0}; //!< Elements: volume(shape).
    std::string name; //!< The initializer's name, or "" for values the parser made.

    template <typename T>
    T const* as() const noexcept
    {
        return static_cast<T const*>(data);
    }

    //! Element i as a double, whatever the element type (kFLOAT, kHALF, kBF16, integers, kBOOL).
    double number(int64_t i) const;
    //! Element i as an int64_t (floating values are truncated).
    int64_t integer(int64_t i) const;
    //! The API's view of the bytes.
    nvinfer1::Weights api() const noexcept { return nvinfer1::Weights{type, data, count}; }
};

//! A node input or output.
class Value
{
public:
    //! Nothing: an omitted optional input.
    Value() = default;
    static Value tensor(nvinfer1::ITensor& tensor)
    {
        Value v;
        v.mTensor = &tensor;
        return v;
    }
    static Value weights(ShapedWeights weights)
    {
        Value v;
        v.mWeights = std::move(weights);
        v.mIsWeights = true;
        return v;
    }

    bool isNull() const noexcept { return mTensor == nullptr && !mIsWeights; }
    bool isTensor() const noexcept { return mTensor != nullptr; }
    bool isWeights() const noexcept { return mIsWeights; }

    nvinfer1::ITensor& tensor() const noexcept { return *mTensor; }
    ShapedWeights const& weights() const noexcept { return mWeights; }

    //! The shape: the weights' or the tensor's (with -1 for dimensions known only at run time).
    Dims shape() const noexcept { return mIsWeights ? mWeights.shape : mTensor->getDimensions(); }
    DataType type() const noexcept { return mIsWeights ? mWeights.type : mTensor->getType(); }
    int32_t rank() const noexcept { return shape().nbDims; }

private:
    nvinfer1::ITensor* mTensor{nullptr};
    ShapedWeights mWeights;
    bool mIsWeights{false};
};

} // namespace kiln::onnx_import
