// SPDX-License-Identifier: Apache-2.0
// The one list of the layer kinds kiln's network offers. Everything per kind is generated from it: the table of
// kinds (LayerType, API class name, the tag of default layer names), the parameter variant LayerParams (alternative
// i is the parameters of kLayerKinds[i]), and LayerKindTraits (API wrapper, implementation interface, parameters).
// Each kind's behaviour lives in src/network/layers/<stem>.cpp, as the specialisation KindImpl<LayerType::k...>.
//
//     for (LayerKindInfo const& kind : kLayerKinds) { ... kind.type, kind.className, kind.tag ... }
//     LayerParams params = ConvolutionParams{...};   // params.index() == layerKindIndex(LayerType::kCONVOLUTION)
#pragma once

#include "network/params.h"

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>
#include <variant>

// TensorRT names the implementation interfaces of the conditional's input and output layers without "If"; the list
// derives V<Name>Layer from the API class's name.
namespace nvinfer1::apiv
{
using VIfConditionalInputLayer = VConditionalInputLayer;
using VIfConditionalOutputLayer = VConditionalOutputLayer;
} // namespace nvinfer1::apiv

namespace kiln
{

using nvinfer1::LayerType;

// X(LayerType enumerator, Name, tag): the API class is nvinfer1::I<Name>Layer, its implementation interface
// nvinfer1::apiv::V<Name>Layer, the parameters <Name>Params; default layer names read "(Unnamed Layer* 3) [tag]".
// Rows follow the order of LayerType.
#define KILN_LAYER_KINDS(X)                                                                                            \
    X(kCONVOLUTION, Convolution, "Convolution")                                                                        \
    X(kCAST, Cast, "Cast")                                                                                             \
    X(kACTIVATION, Activation, "Activation")                                                                           \
    X(kPOOLING, Pooling, "Pooling")                                                                                    \
    X(kSOFTMAX, SoftMax, "Softmax")                                                                                    \
    X(kDECONVOLUTION, Deconvolution, "Deconvolution")                                                                  \
    X(kCONCATENATION, Concatenation, "Concatenation")                                                                  \
    X(kELEMENTWISE, ElementWise, "ElementWise")                                                                        \
    X(kUNARY, Unary, "Unary")                                                                                          \
    X(kSHUFFLE, Shuffle, "Shuffle")                                                                                    \
    X(kREDUCE, Reduce, "Reduce")                                                                                       \
    X(kTOPK, TopK, "TopK")                                                                                             \
    X(kGATHER, Gather, "Gather")                                                                                       \
    X(kMATRIX_MULTIPLY, MatrixMultiply, "Matrix Multiply")                                                             \
    X(kCONSTANT, Constant, "Constant")                                                                                 \
    X(kIDENTITY, Identity, "Identity")                                                                                 \
    X(kPLUGIN_V2, PluginV2, "PluginV2")                                                                                \
    X(kSLICE, Slice, "Slice")                                                                                          \
    X(kSHAPE, Shape, "Shape")                                                                                          \
    X(kRESIZE, Resize, "Resize")                                                                                       \
    X(kTRIP_LIMIT, TripLimit, "TripLimit")                                                                             \
    X(kRECURRENCE, Recurrence, "Recurrence")                                                                           \
    X(kITERATOR, Iterator, "Iterator")                                                                                 \
    X(kLOOP_OUTPUT, LoopOutput, "LoopOutput")                                                                          \
    X(kSELECT, Select, "Select")                                                                                       \
    X(kFILL, Fill, "Fill")                                                                                             \
    X(kQUANTIZE, Quantize, "Quantize")                                                                                 \
    X(kDEQUANTIZE, Dequantize, "Dequantize")                                                                           \
    X(kCONDITION, Condition, "Condition")                                                                              \
    X(kCONDITIONAL_INPUT, IfConditionalInput, "ConditionalInput")                                                      \
    X(kCONDITIONAL_OUTPUT, IfConditionalOutput, "ConditionalOutput")                                                   \
    X(kSCATTER, Scatter, "Scatter")                                                                                    \
    X(kEINSUM, Einsum, "Einsum")                                                                                       \
    X(kNON_ZERO, NonZero, "NonZero")                                                                                   \
    X(kGRID_SAMPLE, GridSample, "GridSample")                                                                          \
    X(kNMS, NMS, "NMS")                                                                                                \
    X(kREVERSE_SEQUENCE, ReverseSequence, "ReverseSequence")                                                           \
    X(kPLUGIN_V3, PluginV3, "PluginV3")                                                                                \
    X(kCUMULATIVE, Cumulative, "Cumulative")

//! One row of the list.
struct LayerKindInfo
{
    LayerType type;
    char const* className; //!< "IConvolutionLayer".
    char const* tag;       //!< "Convolution", as in "(Unnamed Layer* 0) [Convolution]".
};

#define KILN_LAYER_KIND_ROW(e, Name, tag) LayerKindInfo{LayerType::e, "I" #Name "Layer", tag},
inline constexpr std::array kLayerKinds{KILN_LAYER_KINDS(KILN_LAYER_KIND_ROW)};
#undef KILN_LAYER_KIND_ROW

static_assert(kLayerKinds.size() == 39,
    "KILN_LAYER_KINDS lists the 20 layer kinds of issue 3, kTOPK, kRESIZE, kDECONVOLUTION, kQUANTIZE, kDEQUANTIZE, "
    "kSCATTER, kEINSUM, kNON_ZERO, kGRID_SAMPLE, kNMS, kREVERSE_SEQUENCE, kCUMULATIVE and the if-conditional's "
    "kCONDITION, kCONDITIONAL_INPUT and kCONDITIONAL_OUTPUT, and the loop's kTRIP_LIMIT, kRECURRENCE, kITERATOR and "
    "kLOOP_OUTPUT");

constexpr bool layerKindRowsInEnumOrder() noexcept
{
    for (std::size_t i = 1; i < kLayerKinds.size(); ++i)
    {
        if (static_cast<int32_t>(kLayerKinds[i - 1].type) >= static_cast<int32_t>(kLayerKinds[i].type))
        {
            return false;
        }
    }
    return true;
}
static_assert(layerKindRowsInEnumOrder(), "KILN_LAYER_KINDS rows follow the order of LayerType");

//! The row of type, or nullopt for a kind kiln does not offer.
constexpr std::optional<std::size_t> layerKindIndex(LayerType type) noexcept
{
    for (std::size_t i = 0; i < kLayerKinds.size(); ++i)
    {
        if (kLayerKinds[i].type == type)
        {
            return i;
        }
    }
    return std::nullopt;
}

//! Whether kiln's network offers layers of this kind.
constexpr bool isSupportedLayerType(LayerType type) noexcept
{
    return layerKindIndex(type).has_value();
}

//! The tag of default names ("Convolution"), or "Unknown".
constexpr char const* layerKindTag(LayerType type) noexcept
{
    auto const index = layerKindIndex(type);
    return index ? kLayerKinds[*index].tag : "Unknown";
}

//! Whether a layer of this kind is a loop's or an if-conditional's boundary (trip limit, recurrence, iterator, loop
//! output, condition, conditional input or output).
constexpr bool isLoopOrConditionalBoundary(LayerType type) noexcept
{
    switch (type)
    {
    case LayerType::kTRIP_LIMIT:
    case LayerType::kRECURRENCE:
    case LayerType::kITERATOR:
    case LayerType::kLOOP_OUTPUT:
    case LayerType::kCONDITION:
    case LayerType::kCONDITIONAL_INPUT:
    case LayerType::kCONDITIONAL_OUTPUT: return true;
    default: return false;
    }
}

//! The API class name ("IConvolutionLayer"), or "ILayer".
constexpr char const* layerClassName(LayerType type) noexcept
{
    auto const index = layerKindIndex(type);
    return index ? kLayerKinds[*index].className : "ILayer";
}

//! The types of one kind: its API wrapper, implementation interface and parameters.
template <LayerType T>
struct LayerKindTraits;

#define KILN_LAYER_KIND_TRAITS(e, Name, tag)                                                                           \
    template <>                                                                                                        \
    struct LayerKindTraits<LayerType::e>                                                                               \
    {                                                                                                                  \
        using Wrapper = nvinfer1::I##Name##Layer;                                                                      \
        using Interface = nvinfer1::apiv::V##Name##Layer;                                                              \
        using Params = Name##Params;                                                                                   \
    };
KILN_LAYER_KINDS(KILN_LAYER_KIND_TRAITS)
#undef KILN_LAYER_KIND_TRAITS

namespace detail
{
template <std::size_t... I>
auto layerParamsVariant(std::index_sequence<I...>)
    -> std::variant<typename LayerKindTraits<kLayerKinds[I].type>::Params...>;
} // namespace detail

//! The parameters of a layer: alternative i belongs to kLayerKinds[i].
using LayerParams = decltype(detail::layerParamsVariant(std::make_index_sequence<kLayerKinds.size()>{}));

static_assert(std::variant_size_v<LayerParams> == kLayerKinds.size(), "one parameter struct per layer kind");

//! The LayerType whose parameters are P.
template <typename P>
inline constexpr LayerType kLayerTypeOf = LayerType{-1};

#define KILN_LAYER_TYPE_OF(e, Name, tag)                                                                               \
    template <>                                                                                                        \
    inline constexpr LayerType kLayerTypeOf<Name##Params> = LayerType::e;
KILN_LAYER_KINDS(KILN_LAYER_TYPE_OF)
#undef KILN_LAYER_TYPE_OF

//! The LayerType of the alternative params holds.
inline LayerType layerTypeOf(LayerParams const& params) noexcept
{
    return kLayerKinds[params.index()].type;
}

} // namespace kiln
