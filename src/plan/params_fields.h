// SPDX-License-Identifier: Apache-2.0
// The fields of each layer kind's parameters (network/params.h) as one list per kind, each with the name messages
// use: the model checks walk it to check every enumeration, Dims and Weights, and the codec's tests walk it to compare
// parameters field by field. A static_assert holds each list to every member of its struct.
//
//     forEachField(ConvolutionParams{}, [](char const* name, auto const& value) { ... });   // "nbOutputMaps", ...
#pragma once

#include "network/params.h"

#include <cstddef>
#include <utility>

namespace kiln
{

template <typename Visit>
constexpr void forEachField(ConvolutionParams const& p, Visit&& visit)
{
    visit("nbOutputMaps", p.nbOutputMaps);
    visit("kernelSize", p.kernelSize);
    visit("stride", p.stride);
    visit("prePadding", p.prePadding);
    visit("postPadding", p.postPadding);
    visit("dilation", p.dilation);
    visit("paddingMode", p.paddingMode);
    visit("nbGroups", p.nbGroups);
    visit("kernel weights", p.kernel);
    visit("bias weights", p.bias);
}

template <typename Visit>
constexpr void forEachField(DeconvolutionParams const& p, Visit&& visit)
{
    visit("nbOutputMaps", p.nbOutputMaps);
    visit("kernelSize", p.kernelSize);
    visit("stride", p.stride);
    visit("prePadding", p.prePadding);
    visit("postPadding", p.postPadding);
    visit("dilation", p.dilation);
    visit("paddingMode", p.paddingMode);
    visit("nbGroups", p.nbGroups);
    visit("kernel weights", p.kernel);
    visit("bias weights", p.bias);
}

template <typename Visit>
constexpr void forEachField(CumulativeParams const& p, Visit&& visit)
{
    visit("op", p.op);
    visit("exclusive", p.exclusive);
    visit("reverse", p.reverse);
    visit("axis", p.axis);
}

template <typename Visit>
constexpr void forEachField(EinsumParams const& p, Visit&& visit)
{
    visit("equation", p.equation);
}

template <typename Visit>
constexpr void forEachField(GridSampleParams const& p, Visit&& visit)
{
    visit("mode", p.mode);
    visit("alignCorners", p.alignCorners);
    visit("sampleMode", p.sampleMode);
}

template <typename Visit>
constexpr void forEachField(ReverseSequenceParams const& p, Visit&& visit)
{
    visit("batchAxis", p.batchAxis);
    visit("sequenceAxis", p.sequenceAxis);
}

template <typename Visit>
constexpr void forEachField(CastParams const& p, Visit&& visit)
{
    visit("toType", p.toType);
}

template <typename Visit>
constexpr void forEachField(ActivationParams const& p, Visit&& visit)
{
    visit("type", p.type);
    visit("alpha", p.alpha);
    visit("beta", p.beta);
}

template <typename Visit>
constexpr void forEachField(PoolingParams const& p, Visit&& visit)
{
    visit("type", p.type);
    visit("windowSize", p.windowSize);
    visit("stride", p.stride);
    visit("prePadding", p.prePadding);
    visit("postPadding", p.postPadding);
    visit("paddingMode", p.paddingMode);
    visit("blendFactor", p.blendFactor);
    visit("averageCountExcludesPadding", p.averageCountExcludesPadding);
}

template <typename Visit>
constexpr void forEachField(SoftMaxParams const& p, Visit&& visit)
{
    visit("axes", p.axes);
}

template <typename Visit>
constexpr void forEachField(ConcatenationParams const& p, Visit&& visit)
{
    visit("axis", p.axis);
}

template <typename Visit>
constexpr void forEachField(ElementWiseParams const& p, Visit&& visit)
{
    visit("op", p.op);
}

template <typename Visit>
constexpr void forEachField(UnaryParams const& p, Visit&& visit)
{
    visit("op", p.op);
}

template <typename Visit>
constexpr void forEachField(ShuffleParams const& p, Visit&& visit)
{
    visit("firstTranspose", p.firstTranspose);
    visit("reshape", p.reshape);
    visit("secondTranspose", p.secondTranspose);
    visit("zeroIsPlaceholder", p.zeroIsPlaceholder);
}

template <typename Visit>
constexpr void forEachField(ReduceParams const& p, Visit&& visit)
{
    visit("op", p.op);
    visit("axes", p.axes);
    visit("keepDimensions", p.keepDimensions);
}

template <typename Visit>
constexpr void forEachField(TopKParams const& p, Visit&& visit)
{
    visit("op", p.op);
    visit("k", p.k);
    visit("axes", p.axes);
    visit("indicesType", p.indicesType);
}

template <typename Visit>
constexpr void forEachField(GatherParams const& p, Visit&& visit)
{
    visit("mode", p.mode);
    visit("axis", p.axis);
    visit("nbElementWiseDims", p.nbElementWiseDims);
}

template <typename Visit>
constexpr void forEachField(MatrixMultiplyParams const& p, Visit&& visit)
{
    visit("ops[0]", p.ops[0]);
    visit("ops[1]", p.ops[1]);
}

template <typename Visit>
constexpr void forEachField(ConstantParams const& p, Visit&& visit)
{
    visit("dims", p.dims);
    visit("weights", p.weights);
}

template <typename Visit>
constexpr void forEachField(IdentityParams const&, Visit&&)
{
}

//! Plugin layers: only the output types; the plugin object and its identity reach the plan with issue 4.
template <typename Visit>
constexpr void forEachField(PluginV2Params const& p, Visit&& visit)
{
    visit("outputTypes", p.outputTypes);
}

template <typename Visit>
constexpr void forEachField(SliceParams const& p, Visit&& visit)
{
    visit("start", p.start);
    visit("size", p.size);
    visit("stride", p.stride);
    visit("mode", p.mode);
    visit("axes", p.axes);
}

template <typename Visit>
constexpr void forEachField(ShapeParams const&, Visit&&)
{
}

template <typename Visit>
constexpr void forEachField(ResizeParams const& p, Visit&& visit)
{
    visit("outputDims", p.outputDims);
    visit("scales", p.scales);
    visit("mode", p.mode);
    visit("transformation", p.transformation);
    visit("selector", p.selector);
    visit("rounding", p.rounding);
    visit("cubicCoeff", p.cubicCoeff);
    visit("excludeOutside", p.excludeOutside);
}

template <typename Visit>
constexpr void forEachField(QuantizeParams const& p, Visit&& visit)
{
    visit("axis", p.axis);
    visit("blockShape", p.blockShape);
    visit("toType", p.toType);
}

template <typename Visit>
constexpr void forEachField(DequantizeParams const& p, Visit&& visit)
{
    visit("axis", p.axis);
    visit("blockShape", p.blockShape);
    visit("toType", p.toType);
}

template <typename Visit>
constexpr void forEachField(ScatterParams const& p, Visit&& visit)
{
    visit("mode", p.mode);
    visit("axis", p.axis);
}

template <typename Visit>
constexpr void forEachField(NonZeroParams const& p, Visit&& visit)
{
    visit("indicesType", p.indicesType);
}

template <typename Visit>
constexpr void forEachField(NMSParams const& p, Visit&& visit)
{
    visit("format", p.format);
    visit("topKBoxLimit", p.topKBoxLimit);
    visit("indicesType", p.indicesType);
}

template <typename Visit>
constexpr void forEachField(ConditionParams const& p, Visit&& visit)
{
    visit("conditional", p.conditional);
}

template <typename Visit>
constexpr void forEachField(IfConditionalInputParams const& p, Visit&& visit)
{
    visit("conditional", p.conditional);
}

template <typename Visit>
constexpr void forEachField(IfConditionalOutputParams const& p, Visit&& visit)
{
    visit("conditional", p.conditional);
}

template <typename Visit>
constexpr void forEachField(TripLimitParams const& p, Visit&& visit)
{
    visit("loop", p.loop);
    visit("kind", p.kind);
}

template <typename Visit>
constexpr void forEachField(RecurrenceParams const& p, Visit&& visit)
{
    visit("loop", p.loop);
}

template <typename Visit>
constexpr void forEachField(IteratorParams const& p, Visit&& visit)
{
    visit("loop", p.loop);
    visit("axis", p.axis);
    visit("reverse", p.reverse);
}

template <typename Visit>
constexpr void forEachField(LoopOutputParams const& p, Visit&& visit)
{
    visit("loop", p.loop);
    visit("kind", p.kind);
    visit("axis", p.axis);
}

template <typename Visit>
constexpr void forEachField(SelectParams const&, Visit&&)
{
}

template <typename Visit>
constexpr void forEachField(FillParams const& p, Visit&& visit)
{
    visit("dims", p.dims);
    visit("op", p.op);
    visit("alpha", p.alpha);
    visit("beta", p.beta);
    visit("alphaInt64", p.alphaInt64);
    visit("betaInt64", p.betaInt64);
    visit("alphaBetaInt64", p.alphaBetaInt64);
    visit("toType", p.toType);
}

template <typename Visit>
constexpr void forEachField(PluginV3Params const& p, Visit&& visit)
{
    visit("outputTypes", p.outputTypes);
}

namespace detail
{
//! Converts to any member type: braces of n of them initialize an aggregate with at least n members (an array member
//! counts one per element), which is how memberCount counts.
struct AnyMember
{
    template <typename T>
    constexpr operator T() const noexcept; // Only named in unevaluated braces.
};

template <typename T, std::size_t... I>
constexpr bool bracesTake(std::index_sequence<I...>) noexcept
{
    return requires
    {
        T{(static_cast<void>(I), AnyMember{})...};
    };
}

//! The members of the aggregate T.
template <typename T, std::size_t N = 0>
constexpr std::size_t memberCount() noexcept
{
    if constexpr (bracesTake<T>(std::make_index_sequence<N + 1>{}))
    {
        return memberCount<T, N + 1>();
    }
    else
    {
        return N;
    }
}

//! The fields forEachField visits for P.
template <typename P>
constexpr std::size_t visitedCount() noexcept
{
    std::size_t count = 0;
    forEachField(P{}, [&count](char const*, auto const&) { ++count; });
    return count;
}

template <typename... P>
constexpr bool everyMemberVisited() noexcept
{
    return ((visitedCount<P>() == memberCount<P>()) && ...);
}
} // namespace detail

// The plugin kinds hold plugin objects, which no list visits. Clang before 15 cannot evaluate it (its constexpr
// evaluation of parameters holding std::vector); GCC, which every CI stage builds with, checks it.
#if !defined(__clang__) || __clang_major__ >= 15
static_assert(detail::everyMemberVisited<ConvolutionParams, CastParams, ActivationParams, PoolingParams, SoftMaxParams,
                  DeconvolutionParams, ConcatenationParams, ElementWiseParams, UnaryParams, ShuffleParams, ReduceParams,
                  TopKParams, GatherParams, MatrixMultiplyParams, ConstantParams, IdentityParams, SliceParams,
                  ShapeParams, ResizeParams, SelectParams, FillParams, QuantizeParams, DequantizeParams, ScatterParams,
                  EinsumParams, GridSampleParams, ReverseSequenceParams, CumulativeParams, NonZeroParams, NMSParams,
                  ConditionParams, IfConditionalInputParams, IfConditionalOutputParams, TripLimitParams,
                  RecurrenceParams, IteratorParams, LoopOutputParams>(),
    "forEachField visits every member of each kind's parameters");
#endif

} // namespace kiln
