// SPDX-License-Identifier: Apache-2.0
// Shuffle: transpose, reshape (0 copies an extent unless zeroIsPlaceholder is off, one -1 is inferred; or the shape
// from tensor input 1), transpose.
#include "network/checks.h"
#include "network/definition_shapes.h"
#include "network/network.h"
#include "network/shape_rules.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace kiln
{

using nvinfer1::Permutation;

template <>
class KindImpl<LayerType::kSHUFFLE> final : public nvinfer1::apiv::VShuffleLayer, public KindBase
{
public:
    using KindBase::KindBase;

    void setFirstTranspose(Permutation const& permutation) noexcept override
    {
        int32_t const rank = inputDims(0).nbDims;
        if (rank >= 0 && !isPermutation(permutation, rank))
        {
            mLayer.fail("setFirstTranspose", "the first ", rank,
                " entries of the permutation are not a permutation of 0 to ", rank - 1, " (the input's rank is ", rank,
                ")");
            return;
        }
        edit().firstTranspose = permutation;
    }
    Permutation const& getFirstTranspose() const noexcept override { return p().firstTranspose; }
    void setReshapeDimensions(Dims const& dimensions) noexcept override
    {
        if (!mLayer.checkDims("setReshapeDimensions", "the reshape dimensions", dimensions, -1))
        {
            return;
        }
        int32_t inferred = 0;
        for (int32_t i = 0; i < dimensions.nbDims; ++i)
        {
            inferred += dimensions.d[i] == -1 ? 1 : 0;
        }
        if (inferred > 1)
        {
            mLayer.fail("setReshapeDimensions", "the reshape dimensions ", dimensions,
                " have more than one -1; at most one extent is inferred");
            return;
        }
        edit().reshape = dimensions;
        mLayer.clearInput(1);
    }
    Dims getReshapeDimensions() const noexcept override
    {
        return mLayer.input(1) != nullptr ? kUnsetDims : p().reshape;
    }
    void setSecondTranspose(Permutation const& permutation) noexcept override
    {
        int32_t const rank = reshapedDims().nbDims;
        if (rank >= 0 && !isPermutation(permutation, rank))
        {
            mLayer.fail("setSecondTranspose", "the first ", rank,
                " entries of the permutation are not a permutation of 0 to ", rank - 1, " (the reshaped rank is ", rank,
                ")");
            return;
        }
        edit().secondTranspose = permutation;
    }
    Permutation const& getSecondTranspose() const noexcept override { return p().secondTranspose; }
    void setZeroIsPlaceholder(bool zeroIsPlaceholder) noexcept override
    {
        edit().zeroIsPlaceholder = zeroIsPlaceholder;
    }
    bool getZeroIsPlaceholder() const noexcept override { return p().zeroIsPlaceholder; }

    //! Inputs: 0 data, 1 reshape dimensions.
    int32_t inputCapacity() const noexcept { return 2; }
    bool isShapeInput(int32_t index) const noexcept { return index == 1; }
    bool computesShapeValues() const noexcept { return true; }
    DataType outputType(int32_t /*index*/) const noexcept { return inputType(0); }
    Dims outputDims(int32_t /*index*/) const noexcept
    {
        if (mLayer.input(1) != nullptr)
        {
            if (auto const dims = computedReshapeDims())
            {
                return *dims;
            }
        }
        Dims const shaped = reshapedDims();
        return shaped.nbDims < 0 ? kUnsetDims : permuteDims(shaped, p().secondTranspose);
    }

private:
    ShuffleParams const& p() const noexcept { return mLayer.paramsAs<ShuffleParams>(); }
    //! The parameters, to change: the layer's outputs are then computed again (Layer::editParams).
    ShuffleParams& edit() noexcept { return mLayer.editParams<ShuffleParams>(); }

    //! The output of a reshape to a shape tensor's values, through the symbolic rule and the layers that compute the
    //! values (network/definition_shapes.h): x reshaped to [x.d0, -1] from x's own shape is [-1, C*H*W]; nullopt when
    //! the values cannot be followed.
    std::optional<Dims> computedReshapeDims() const noexcept
    {
        try
        {
            ExprContext exprs;
            auto const outputs = inferFromDefinition(mLayer, exprs);
            if (!outputs || outputs.value().empty() || !outputs.value().front().shape
                || outputs.value().front().shape->size() > static_cast<std::size_t>(Dims::MAX_DIMS))
            {
                return std::nullopt;
            }
            SymbolicDims const& shape = *outputs.value().front().shape;
            Dims dims{static_cast<int32_t>(shape.size()), {}};
            for (std::size_t i = 0; i < shape.size(); ++i)
            {
                int64_t value = -1;
                dims.d[i] = isConstantExpr(shape[i], &value) ? value : -1;
            }
            return dims;
        }
        catch (...)
        {
            return std::nullopt;
        }
    }

    //! The shape after the first transpose and the reshape.
    Dims reshapedDims() const noexcept
    {
        Dims const input = inputDims(0);
        Dims const transposed = input.nbDims < 0 ? kUnsetDims : permuteDims(input, p().firstTranspose);
        if (mLayer.input(1) != nullptr)
        {
            Dims const shape = inputDims(1);
            bool const known = shape.nbDims == 1 && shape.d[0] >= 0 && shape.d[0] <= Dims::MAX_DIMS;
            return known ? filledDims(static_cast<int32_t>(shape.d[0]), -1) : kUnsetDims;
        }
        Dims result = p().reshape;
        if (result.nbDims < 0)
        {
            return transposed;
        }
        // An extent copied by a 0 placeholder is a factor of both the input's volume and the extents given, so it
        // cancels from the inferred one even when it is dynamic ([-1, 8, 4] reshaped to {0, -1} is [-1, 32]), as the
        // builder's symbolic shapes find (core/shape_expr.h).
        int32_t inferred = -1;
        int64_t given = 1;
        int64_t remaining = 1;
        bool copiedZero = false;
        std::vector<bool> copied(static_cast<std::size_t>(std::max(transposed.nbDims, 0)), false);
        for (int32_t i = 0; i < result.nbDims; ++i)
        {
            if (result.d[i] == 0 && p().zeroIsPlaceholder)
            {
                result.d[i] = i < transposed.nbDims ? transposed.d[i] : -1;
                if (i < transposed.nbDims)
                {
                    copied[static_cast<std::size_t>(i)] = true;
                    copiedZero = copiedZero || transposed.d[i] == 0;
                }
                else
                {
                    given = -1; // nothing to copy: the builder reports it
                }
            }
            else if (result.d[i] == -1 && p().reshape.d[i] == -1)
            {
                inferred = i;
            }
            else if (given >= 0 && (result.d[i] < 0 || __builtin_mul_overflow(given, result.d[i], &given)))
            {
                given = -1;
            }
        }
        for (int32_t i = 0; i < transposed.nbDims && remaining >= 0; ++i)
        {
            if (!copied[static_cast<std::size_t>(i)]
                && (transposed.d[i] < 0 || __builtin_mul_overflow(remaining, transposed.d[i], &remaining)))
            {
                remaining = -1;
            }
        }
        if (inferred >= 0)
        {
            bool const exact
                = !copiedZero && transposed.nbDims >= 0 && remaining >= 0 && given > 0 && remaining % given == 0;
            result.d[inferred] = exact ? remaining / given : -1;
        }
        return result;
    }
};

nvinfer1::IShuffleLayer* NetworkApi::addShuffle(nvinfer1::ITensor& input) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addShuffle";
    return mNetwork.reporter().guard(
        kWhere, static_cast<nvinfer1::IShuffleLayer*>(nullptr), [&]() -> nvinfer1::IShuffleLayer* {
            Tensor* data = mNetwork.own(&input, kWhere, "input");
            if (data == nullptr)
            {
                return nullptr;
            }
            return &mNetwork.addLayer<LayerType::kSHUFFLE>({data}, ShuffleParams{}, 1);
        });
}

// The symbolic shape rule (network/shape_rules.h).
Expected<std::vector<SymbolicTensor>> inferOutputShapes(ShuffleParams const& params, ShapeRuleContext& context)
{
    SymbolicTensor const& data = context.input(0);
    if (!data.present())
    {
        return context.error("input 0 is missing");
    }
    int32_t const rank = data.rank();
    if (!isPermutation(params.firstTranspose, rank))
    {
        return context.error("the first transpose is not a permutation of the input's ", rank, " dimensions");
    }
    SymbolicDims transposed;
    for (int32_t i = 0; i < rank; ++i)
    {
        transposed.push_back((*data.shape)[static_cast<std::size_t>(params.firstTranspose.order[i])]);
    }

    // The reshape dimensions: parameters, or the values of input 1 (a 1-D shape tensor of build-time length).
    SymbolicDims requested;
    bool reshaping = false;
    if (SymbolicTensor const& shape = context.input(1); shape.present())
    {
        int64_t length = 0;
        if (shape.rank() != 1 || !isConstantExpr((*shape.shape)[0], &length))
        {
            return context.error("input 1 (the reshape dimensions) has shape ", context.str(*shape.shape),
                "; it must be a 1-D shape tensor of build-time length");
        }
        if (!shape.values)
        {
            return context.error("the values of input 1 (the reshape dimensions) are not known symbolically");
        }
        requested = *shape.values;
        reshaping = true;
    }
    else if (params.reshape.nbDims >= 0)
    {
        requested = constantDims(context.exprs(), params.reshape);
        reshaping = true;
    }

    SymbolicDims reshaped = transposed;
    if (reshaping)
    {
        reshaped.clear();
        int32_t inferred = -1;
        DimExpr const* known = context.constant(1);
        for (std::size_t i = 0; i < requested.size(); ++i)
        {
            int64_t value = 0;
            bool const constant = isConstantExpr(requested[i], &value);
            if (constant && value == 0 && params.zeroIsPlaceholder)
            {
                if (i >= transposed.size())
                {
                    return context.error("reshape dimension ", i,
                        " is 0, which copies the input's extent, but the input has only ", transposed.size(),
                        " dimensions");
                }
                reshaped.push_back(transposed[i]);
            }
            else if (constant && value == -1)
            {
                if (inferred >= 0)
                {
                    return context.error("reshape dimensions ", context.str(requested),
                        " have more than one -1; at most one extent is inferred");
                }
                inferred = static_cast<int32_t>(i);
                reshaped.push_back(nullptr);
                continue;
            }
            else if (constant && value < 0)
            {
                return context.error("reshape dimension ", i, " is ", value, "; extents are at least 0 (or -1)");
            }
            else
            {
                reshaped.push_back(requested[i]);
            }
            known = context.mul(known, reshaped.back());
        }
        DimExpr const* total = context.volume(transposed);
        std::string const what = "the input " + context.str(transposed) + " has " + context.str(total)
            + " elements; reshape dimensions " + context.str(requested);
        if (inferred >= 0)
        {
            int64_t k = 0;
            int64_t t = 0;
            if (isConstantExpr(known, &k) && k == 0)
            {
                return context.error(what, " cannot infer the -1: the other extents multiply to 0");
            }
            if (isConstantExpr(known, &k) && isConstantExpr(total, &t) && t % k != 0)
            {
                return context.error(what, " cannot infer the -1: ", t, " is not a multiple of ", k);
            }
            DimExpr const* extent = context.floorDiv(total, known);
            reshaped[static_cast<std::size_t>(inferred)] = extent;
            context.requireEqual(context.mul(extent, known), total, what + " cannot infer the -1 exactly");
        }
        else
        {
            context.requireEqual(known, total, what + " have " + context.str(known) + "; the counts must be equal");
        }
    }

    if (!isPermutation(params.secondTranspose, static_cast<int32_t>(reshaped.size())))
    {
        return context.error(
            "the second transpose is not a permutation of the reshaped ", reshaped.size(), " dimensions");
    }
    SymbolicDims out;
    for (std::size_t i = 0; i < reshaped.size(); ++i)
    {
        out.push_back(reshaped[static_cast<std::size_t>(params.secondTranspose.order[i])]);
    }
    SymbolicTensor result{out, std::nullopt, {}};
    if (data.values && rank <= 1 && out.size() <= 1)
    {
        result.values = data.values; // row-major order is kept by a reshape between 0-D and 1-D
    }
    return context.finish({std::move(result)});
}

} // namespace kiln
