// SPDX-License-Identifier: Apache-2.0
#include "backends/host/shuffle.h"

#include "backends/host/data_movement.h"

#include <string>
#include <vector>

namespace kiln::host
{

namespace
{

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "shuffle: " + message};
}

bool isPermutation(nvinfer1::Permutation const& p, int32_t rank) noexcept
{
    std::vector<bool> seen(static_cast<std::size_t>(rank), false);
    for (int32_t i = 0; i < rank; ++i)
    {
        int32_t const v = p.order[i];
        if (v < 0 || v >= rank || seen[static_cast<std::size_t>(v)])
        {
            return false;
        }
        seen[static_cast<std::size_t>(v)] = true;
    }
    return true;
}

std::string orderString(nvinfer1::Permutation const& p, int32_t rank)
{
    std::string text = "(";
    for (int32_t i = 0; i < rank; ++i)
    {
        text += (i > 0 ? ", " : "") + std::to_string(p.order[i]);
    }
    return text + ")";
}

Dims permuted(Dims const& dims, nvinfer1::Permutation const& p) noexcept
{
    Dims out{dims.nbDims, {}};
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        out.d[i] = dims.d[p.order[i]];
    }
    return out;
}

//! The three shapes: after the first transpose, after the reshape, and the output.
struct Stages
{
    Dims transposed;
    Dims reshaped;
    Dims out;
};

Expected<Stages> stages(ShuffleParams const& params, Dims const& in)
{
    if (!isPermutation(params.firstTranspose, in.nbDims))
    {
        return invalid("the first transpose " + orderString(params.firstTranspose, in.nbDims)
            + " is not a permutation of the input " + shapeString(in) + "'s dimensions");
    }
    Stages s;
    s.transposed = permuted(in, params.firstTranspose);
    s.reshaped = s.transposed;
    if (params.reshape.nbDims >= 0)
    {
        Dims const& r = params.reshape;
        if (r.nbDims > Dims::MAX_DIMS)
        {
            return invalid("reshape dimensions of rank " + std::to_string(r.nbDims) + " exceed the maximum rank");
        }
        std::string const what
            = "the transposed input " + shapeString(s.transposed) + " and reshape dimensions " + shapeString(r) + ": ";
        s.reshaped = Dims{r.nbDims, {}};
        int32_t inferred = -1;
        int64_t known = 1;
        for (int32_t i = 0; i < r.nbDims; ++i)
        {
            int64_t extent = r.d[i];
            if (extent == 0 && params.zeroIsPlaceholder)
            {
                if (i >= s.transposed.nbDims)
                {
                    return invalid(
                        what + "dimension " + std::to_string(i) + " is a 0 placeholder past the input's rank");
                }
                extent = s.transposed.d[i];
            }
            else if (extent == -1)
            {
                if (inferred >= 0)
                {
                    return invalid(what + "more than one -1");
                }
                inferred = i;
                continue;
            }
            else if (extent < 0)
            {
                return invalid(what + "dimension " + std::to_string(i) + " is " + std::to_string(extent));
            }
            s.reshaped.d[i] = extent;
            std::optional<int64_t> const product = checkedProduct(known, extent);
            if (!product)
            {
                return invalid(what + "the dimensions multiply past 2^63");
            }
            known = *product;
        }
        int64_t const total = elementCount(s.transposed);
        if (inferred >= 0)
        {
            if (known == 0 || total % known != 0)
            {
                return invalid(what + "the -1 cannot be inferred (" + std::to_string(total) + " elements, the others "
                    + "multiply to " + std::to_string(known) + ")");
            }
            s.reshaped.d[inferred] = total / known;
        }
        else if (known != total)
        {
            return invalid(
                what + "the element counts " + std::to_string(total) + " and " + std::to_string(known) + " differ");
        }
    }
    if (!isPermutation(params.secondTranspose, s.reshaped.nbDims))
    {
        return invalid("the second transpose " + orderString(params.secondTranspose, s.reshaped.nbDims)
            + " is not a permutation of the reshaped " + shapeString(s.reshaped) + "'s dimensions");
    }
    s.out = permuted(s.reshaped, params.secondTranspose);
    return s;
}

} // namespace

Expected<TensorDesc> inferShuffle(ShuffleParams const& params, TensorDesc const& in)
{
    if (!contains(kMoveTypes, in.type))
    {
        return invalid(std::string("does not take ") + dataTypeName(in.type) + " inputs (it takes "
            + typeSetString(kMoveTypes) + ")");
    }
    if (!isValidShape(in.dims))
    {
        return invalid("the input shape " + shapeString(in.dims) + " is not valid");
    }
    Expected<Stages> const s = stages(params, in.dims);
    if (!s)
    {
        return s.error();
    }
    return TensorDesc{in.type, s.value().out};
}

void transposeCopy(HostTensor const& in, nvinfer1::Permutation const& order, HostTensor const& out) noexcept
{
    Index const inStrides = rowMajorStrides(in.dims);
    int64_t const count = elementCount(out.dims);
    for (int64_t o = 0; o < count; ++o)
    {
        Index const c = coordinatesOf(out.dims, o);
        int64_t source = 0;
        for (int32_t i = 0; i < out.dims.nbDims; ++i)
        {
            source += c[static_cast<std::size_t>(i)] * inStrides[static_cast<std::size_t>(order.order[i])];
        }
        copyElement(out, o, in, source);
    }
}

Status runShuffle(ShuffleParams const& params, HostTensor const& in, HostTensor const& out)
{
    Expected<TensorDesc> const desc = inferShuffle(params, {in.type, in.dims});
    if (!desc)
    {
        return desc.error();
    }
    if (out.type != in.type || !sameShape(out.dims, desc.value().dims))
    {
        return invalid(std::string("the output is ") + dataTypeName(out.type) + " " + shapeString(out.dims)
            + " but must be " + dataTypeName(in.type) + " " + shapeString(desc.value().dims));
    }
    for (auto const& [tensor, role] : {std::pair{&in, "input"}, std::pair{&out, "output"}})
    {
        if (std::optional<Error> const error = checkMoveTensor(*tensor, role))
        {
            return invalid(error->message);
        }
    }
    Stages const s = stages(params, in.dims).value();
    // First transpose into scratch, whose row-major bytes read as the reshaped shape; then the second transpose.
    HostBuffer scratch(in.type, s.transposed, in.scale);
    transposeCopy(in, params.firstTranspose, scratch.tensor());
    HostTensor reshaped = scratch.tensor();
    reshaped.dims = s.reshaped;
    transposeCopy(reshaped, params.secondTranspose, out);
    return Done{};
}

} // namespace kiln::host
