// SPDX-License-Identifier: Apache-2.0
// Where the rules come from:
// - NvInfer.h's ITopKLayer documentation: the operation (TopKOperation kMAX, kMIN), k, the axes bit mask, the
//   indices type (setIndicesType: kINT32 or kINT64, default kINT32), k from input 1.
// - Types and shapes: the operator reference's TopK page (docs.nvidia.com/deeplearning/tensorrt/latest/_static/
//   operators/TopK.html): values int32, int64, float16, float32, bfloat16; indices int32, int64; the outputs have the
//   input's shape with the axis' extent k; k <= the axis' extent.
// - Ties: ONNX's TopK ("the element with the lower index will appear first"), which TensorRT's ONNX parser maps onto
//   this layer.
// - Not documented by TensorRT, chosen by kiln and stated in topk.h: NaN ordering (above every number, as NumPy's and
//   PyTorch's sorts), k == 0, no upper bound on k (TensorRT documents k <= 3840), any axis (TensorRT's operator
//   reference says one of the last four).
#include "backends/host/topk.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace kiln::host
{

namespace
{

using nvinfer1::TopKOperation;

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "topk: " + message};
}

//! Whether a comes after b in ascending order, NaN above every number and equal to NaN.
bool above(double a, double b) noexcept
{
    if (std::isnan(a))
    {
        return !std::isnan(b);
    }
    return !std::isnan(b) && a > b;
}

bool above(int64_t a, int64_t b) noexcept
{
    return a > b;
}

//! The positions 0 .. n - 1 of one row (key(j): the element at position j), the first k of them in output order.
template <typename Key>
std::vector<int64_t> selectRow(TopKOperation op, int64_t n, int64_t k, Key const& key)
{
    using Value = decltype(key(0));
    std::vector<Value> keys(static_cast<std::size_t>(n));
    std::vector<int64_t> order(static_cast<std::size_t>(n));
    for (int64_t j = 0; j < n; ++j)
    {
        keys[static_cast<std::size_t>(j)] = key(j);
        order[static_cast<std::size_t>(j)] = j;
    }
    bool const largest = op == TopKOperation::kMAX;
    // A total order: by value (largest or smallest first), then by position.
    auto const before = [&](int64_t a, int64_t b) {
        Value const x = keys[static_cast<std::size_t>(a)];
        Value const y = keys[static_cast<std::size_t>(b)];
        bool const first = largest ? above(x, y) : above(y, x);
        bool const second = largest ? above(y, x) : above(x, y);
        return first || (!second && a < b);
    };
    std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
    order.resize(static_cast<std::size_t>(k));
    return order;
}

} // namespace

Expected<TensorDesc> inferTopK(TopKParams const& params, TensorDesc const& in)
{
    if (params.op != TopKOperation::kMAX && params.op != TopKOperation::kMIN)
    {
        return invalid("unknown TopKOperation " + std::to_string(static_cast<int32_t>(params.op)));
    }
    if (!contains(kTopKTypes, in.type))
    {
        return invalid(std::string("does not accept ") + dataTypeName(in.type) + " inputs (it takes "
            + typeSetString(kTopKTypes) + ")");
    }
    if (!isValidShape(in.dims))
    {
        return invalid("the input shape " + shapeString(in.dims) + " is not valid");
    }
    int32_t const rank = in.dims.nbDims;
    if (std::popcount(params.axes) != 1 || std::countr_zero(params.axes) >= rank)
    {
        return invalid("axes mask " + std::to_string(params.axes) + " must name exactly one axis of the input "
            + shapeString(in.dims));
    }
    int32_t const axis = std::countr_zero(params.axes);
    int64_t const extent = in.dims.d[axis];
    if (params.k < 0 || params.k > extent)
    {
        return invalid("k is " + std::to_string(params.k) + "; it must be 0 to the axis' extent "
            + std::to_string(extent) + " (the input is " + shapeString(in.dims) + ")");
    }
    if (params.indicesType != DataType::kINT32 && params.indicesType != DataType::kINT64)
    {
        return invalid(
            std::string("the indices type is ") + dataTypeName(params.indicesType) + "; it must be kINT32 or kINT64");
    }
    if (params.indicesType == DataType::kINT32 && extent - 1 > std::numeric_limits<int32_t>::max())
    {
        return invalid("the axis has " + std::to_string(extent)
            + " elements, more than kINT32 indices can number; use kINT64 indices");
    }
    Dims out = in.dims;
    out.d[axis] = params.k;
    return TensorDesc{in.type, out};
}

Status runTopK(TopKParams const& params, HostTensor const& in, HostTensor const& values, HostTensor const& indices)
{
    Expected<TensorDesc> const desc = inferTopK(params, {in.type, in.dims});
    if (!desc)
    {
        return desc.error();
    }
    Dims const& shape = desc.value().dims;
    if (std::optional<std::string> const mismatch = outputMismatch(values, in.type, shape))
    {
        return invalid("output 0 (values): " + *mismatch);
    }
    if (std::optional<std::string> const mismatch = outputMismatch(indices, params.indicesType, shape))
    {
        return invalid("output 1 (indices): " + *mismatch);
    }
    for (auto const& [tensor, role] :
        {std::pair{&in, "input"}, std::pair{&values, "output 0 (values)"}, std::pair{&indices, "output 1 (indices)"}})
    {
        if (std::optional<Error> const error = checkTensor(*tensor, role))
        {
            return invalid(error->message);
        }
    }
    if (elementCount(in.dims) == 0)
    {
        return Done{}; // Nothing to select (the outer and inner counts may still be large: no loop over them).
    }
    // The input as [outer, n, inner]: row (o, i) holds the elements o * n * inner + j * inner + i.
    int32_t const axis = std::countr_zero(params.axes);
    int64_t const n = in.dims.d[axis];
    int64_t const k = params.k;
    int64_t outer = 1;
    int64_t inner = 1;
    for (int32_t d = 0; d < axis; ++d)
    {
        outer *= in.dims.d[d];
    }
    for (int32_t d = axis + 1; d < in.dims.nbDims; ++d)
    {
        inner *= in.dims.d[d];
    }
    bool const floating = numberKind(in.type) == NumberKind::kFLOATING;
    for (int64_t o = 0; o < outer; ++o)
    {
        for (int64_t i = 0; i < inner; ++i)
        {
            int64_t const base = o * n * inner + i;
            std::vector<int64_t> const picked = floating
                ? selectRow(params.op, n, k, [&](int64_t j) { return loadFloat(in, base + j * inner); })
                : selectRow(params.op, n, k, [&](int64_t j) { return loadInteger(in, base + j * inner); });
            for (int64_t t = 0; t < k; ++t)
            {
                int64_t const from = base + picked[static_cast<std::size_t>(t)] * inner;
                int64_t const to = o * k * inner + t * inner + i;
                if (floating)
                {
                    storeFloat(values, to, loadFloat(in, from));
                }
                else
                {
                    storeInteger(values, to, loadInteger(in, from));
                }
                storeInteger(indices, to, picked[static_cast<std::size_t>(t)]);
            }
        }
    }
    return Done{};
}

} // namespace kiln::host
