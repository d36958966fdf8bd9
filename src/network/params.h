// SPDX-License-Identifier: Apache-2.0
// The typed parameters of each layer kind, as the network stores them and the builder reads them. Defaults are
// TensorRT's. Weights are kept as given (the API requires their memory to stay valid until the build); nothing is
// copied here. A Dims member with nbDims == -1 is "not set".
#pragma once

#include "NvInfer.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln
{

class QuickAdapters; // plugin/plugin_quick.h

using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::Weights;

//! Dims with nbDims == -1: not set, or given by a tensor input.
inline constexpr Dims kUnsetDims{-1, {}};

//! Dims of rank nbDims with every extent value.
constexpr Dims filledDims(int32_t nbDims, int64_t value) noexcept
{
    Dims dims{nbDims, {}};
    for (int32_t i = 0; i < nbDims && i < Dims::MAX_DIMS; ++i)
    {
        dims.d[i] = value;
    }
    return dims;
}

//! The identity permutation.
constexpr nvinfer1::Permutation identityPermutation() noexcept
{
    nvinfer1::Permutation permutation{};
    for (int32_t i = 0; i < Dims::MAX_DIMS; ++i)
    {
        permutation.order[i] = i;
    }
    return permutation;
}

struct ConvolutionParams
{
    int64_t nbOutputMaps{};
    Dims kernelSize{};  //!< 2 or 3 spatial extents.
    Dims stride{};      //!< Default all 1.
    Dims prePadding{};  //!< Default all 0.
    Dims postPadding{}; //!< Default all 0.
    Dims dilation{};    //!< Default all 1.
    nvinfer1::PaddingMode paddingMode{nvinfer1::PaddingMode::kEXPLICIT_ROUND_DOWN};
    int64_t nbGroups{1};
    Weights kernel{}; //!< Empty when input 1 gives the kernel.
    Weights bias{};   //!< Empty for no bias, or when input 2 gives it.
};

//! A deconvolution's parameters: ConvolutionParams' members with the deconvolution's meaning (the kernel is
//! [C, K / groups, spatial...]; the padding trims the output).
struct DeconvolutionParams
{
    int64_t nbOutputMaps{};
    Dims kernelSize{};  //!< 2 or 3 spatial extents.
    Dims stride{};      //!< Default all 1.
    Dims prePadding{};  //!< Default all 0.
    Dims postPadding{}; //!< Default all 0.
    Dims dilation{};    //!< Default all 1.
    nvinfer1::PaddingMode paddingMode{nvinfer1::PaddingMode::kEXPLICIT_ROUND_DOWN};
    int64_t nbGroups{1};
    Weights kernel{}; //!< Empty when input 1 gives the kernel.
    Weights bias{};   //!< Empty for no bias, or when input 2 gives it.
};

struct ActivationParams
{
    nvinfer1::ActivationType type{};
    float alpha{0.F};
    float beta{0.F};
};

struct PoolingParams
{
    nvinfer1::PoolingType type{};
    Dims windowSize{};
    Dims stride{};      //!< Default all 1.
    Dims prePadding{};  //!< Default all 0.
    Dims postPadding{}; //!< Default all 0.
    nvinfer1::PaddingMode paddingMode{nvinfer1::PaddingMode::kEXPLICIT_ROUND_DOWN};
    float blendFactor{0.F};
    bool averageCountExcludesPadding{true};
};

struct SoftMaxParams
{
    uint32_t axes{}; //!< One bit; default 1 << max(0, rank - 3) for the input's rank at creation.
};

struct ConcatenationParams
{
    int32_t axis{}; //!< Default max(0, rank - 3) for the first input's rank at creation.
};

struct ElementWiseParams
{
    nvinfer1::ElementWiseOperation op{};
};

struct GatherParams
{
    nvinfer1::GatherMode mode{nvinfer1::GatherMode::kDEFAULT};
    int32_t axis{};
    int32_t nbElementWiseDims{};
};

//! Destroys a V2 plugin the V2 way.
struct PluginV2Deleter
{
    void operator()(nvinfer1::IPluginV2* plugin) const noexcept
    {
        if (plugin != nullptr)
        {
            plugin->destroy();
        }
    }
};

//! The plugin's identity, copied when the layer was made (for messages and the plan).
struct PluginIdentity
{
    std::string name;
    std::string version;
    std::string pluginNamespace;

    bool operator==(PluginIdentity const&) const = default;
};

//! One field of the collection a V3 plugin gave getFieldsToSerialize(), its bytes copied.
struct PluginFieldRecord
{
    std::string name;
    nvinfer1::PluginFieldType type{nvinfer1::PluginFieldType::kUNKNOWN};
    int32_t length{};          //!< Elements, as PluginField::length (bytes for kUNKNOWN).
    std::vector<uint8_t> data; //!< length elements of type.

    bool operator==(PluginFieldRecord const&) const = default;
};

//! One node of an ahead-of-time kernel's expressions (AotKernelRecord::nodes): a constant, an extent of one of the
//! layer's data inputs, or an operation on two earlier nodes.
struct AotExprNode
{
    enum class Kind : int32_t
    {
        kCONSTANT = 0,
        kEXTENT = 1,
        kOPERATION = 2,
    };
    Kind kind{Kind::kCONSTANT};
    int64_t value{};                                                     //!< kCONSTANT.
    int32_t input{};                                                     //!< kEXTENT: the data input.
    int32_t axis{};                                                      //!< kEXTENT: which of its extents.
    nvinfer1::DimensionOperation op{nvinfer1::DimensionOperation::kSUM}; //!< kOPERATION.
    uint32_t lhs{};                                                      //!< kOPERATION: earlier nodes.
    uint32_t rhs{};

    bool operator==(AotExprNode const&) const = default;
};

//! The launch values of an ahead-of-time kernel, in AotKernelRecord::launch order.
enum class AotLaunchValue : int32_t
{
    kGRID_X = 0,
    kGRID_Y,
    kGRID_Z,
    kBLOCK_X,
    kBLOCK_Y,
    kBLOCK_Z,
    kSHARED_MEMORY,
};
inline constexpr std::size_t kAotLaunchValues = 7;

//! An ahead-of-time (AOT) kernel that stands for a V3 plugin in an engine: a Python tensorrt.plugin plugin built
//! through its aot_impl (plugin/aot_kernel.h). The engine loads the PTX and launches the kernel itself, with the
//! arguments (data input pointers, the int32 scalars, output pointers), so loading the plan needs no creator.
//! Expressions are over the layer's own data-input extents, evaluated for the actual shapes of each run.
struct AotKernelRecord
{
    std::string kernelName; //!< The PTX entry symbol.
    std::string ptx;        //!< The PTX text.
    std::vector<AotExprNode> nodes;
    std::array<uint32_t, kAotLaunchValues> launch{}; //!< Node indices: grid x/y/z, block x/y/z, shared memory bytes.
    std::vector<uint32_t> scalars;                   //!< Node indices: the int32 kernel arguments, in order.

    bool operator==(AotKernelRecord const&) const = default;
};

//! What a built engine keeps of a plugin layer: what the runtime needs to make the plugin again through the
//! registry and run it. The builder fills it; a network's plugin layers leave it empty.
struct PluginPlanRecord
{
    std::vector<PluginFieldRecord> fields; //!< V3: getFieldsToSerialize().
    std::vector<uint8_t> serialized;       //!< V2: serialize().
    int32_t tactic{};                      //!< V3: the tactic chosen (0: the default).
    int64_t workspaceBytes{};              //!< The largest getWorkspaceSize() over the profiles.
    //! Per output: the input it aliases (IPluginV3OneBuildV2::getAliasedInput), or -1.
    std::vector<int32_t> aliasedInputs;
    //! V3: the plugin's IVersionedInterface::getAPILanguage() at build time (kPYTHON for a plugin written in
    //! Python, whose creator only a Python process can register).
    nvinfer1::APILanguage language{nvinfer1::APILanguage::kCPP};
    //! V3: the ahead-of-time kernel the engine launches instead of the plugin (no fields then), or nothing.
    std::optional<AotKernelRecord> aot;

    bool operator==(PluginPlanRecord const&) const = default;
};

struct PluginV2Params
{
    //! The network's clone; null in an engine model (the runtime makes its own from plan.serialized).
    std::unique_ptr<nvinfer1::IPluginV2, PluginV2Deleter> plugin;
    int32_t level{}; //!< Top byte of getTensorRTVersion(): 0 IPluginV2 .. 3 IPluginV2DynamicExt.
    PluginIdentity identity;
    std::vector<DataType> outputTypes; //!< One per output, read when the layer was made or its inputs changed.
    PluginPlanRecord plan;
};

struct PluginV3Params
{
    //! The network's clone, deleted through IPluginV3*; null in an engine model (the runtime makes its own from
    //! plan.fields).
    std::unique_ptr<nvinfer1::IPluginV3> plugin;
    nvinfer1::IPluginV3OneBuild* build{}; //!< The clone's build capability (major 1 or 2).
    //! For a Quick plugin, the adapters build points into (plugin/plugin_quick.h); null otherwise.
    std::shared_ptr<QuickAdapters> quick;
    PluginIdentity identity;
    int32_t nbInputs{}; //!< The layer's first nbInputs inputs are data inputs, the rest shape inputs.
    int32_t nbShapeInputs{};
    std::vector<DataType> outputTypes;
    PluginPlanRecord plan;
};

struct UnaryParams
{
    nvinfer1::UnaryOperation op{};
};

struct ReduceParams
{
    nvinfer1::ReduceOperation op{};
    uint32_t axes{};
    bool keepDimensions{};
};

struct TopKParams
{
    nvinfer1::TopKOperation op{};
    int32_t k{};                            //!< Ignored when input 1 gives k.
    uint32_t axes{};                        //!< One bit: the axis.
    DataType indicesType{DataType::kINT32}; //!< Output 1's type: kINT32 or kINT64.
};

struct ShuffleParams
{
    nvinfer1::Permutation firstTranspose{identityPermutation()};
    Dims reshape{kUnsetDims}; //!< Unset: no reshape (or input 1 gives it).
    nvinfer1::Permutation secondTranspose{identityPermutation()};
    bool zeroIsPlaceholder{true};
};

struct SliceParams
{
    Dims start{};
    Dims size{};
    Dims stride{};
    nvinfer1::SampleMode mode{nvinfer1::SampleMode::kSTRICT_BOUNDS};
    Dims axes{kUnsetDims}; //!< Unset: start, size and stride cover every axis in order.
};

struct ShapeParams
{
};

//! The output shape comes from input 1 when it is given, else from outputDims when set, else from scales when there
//! are some (floor(extent * scale)), else it is the input's.
struct ResizeParams
{
    Dims outputDims{kUnsetDims};
    std::vector<float> scales; //!< Empty: not set.
    nvinfer1::InterpolationMode mode{nvinfer1::InterpolationMode::kNEAREST};
    nvinfer1::ResizeCoordinateTransformation transformation{nvinfer1::ResizeCoordinateTransformation::kASYMMETRIC};
    nvinfer1::ResizeSelector selector{nvinfer1::ResizeSelector::kFORMULA};
    nvinfer1::ResizeRoundMode rounding{nvinfer1::ResizeRoundMode::kFLOOR};
    float cubicCoeff{-0.75F};
    bool excludeOutside{false};
};

struct MatrixMultiplyParams
{
    nvinfer1::MatrixOperation ops[2]{};
};

struct IdentityParams
{
};

struct CastParams
{
    DataType toType{};
};

struct ConstantParams
{
    Dims dims{};
    Weights weights{};
};

struct SelectParams
{
};

//! The axis is input 1's value: kept here once known (at build time), -1 before; the layer's methods never set it.
struct CumulativeParams
{
    nvinfer1::CumulativeOperation op{nvinfer1::CumulativeOperation::kSUM};
    bool exclusive{};
    bool reverse{};
    int32_t axis{-1}; //!< Non-negative once resolved; the network keeps input 1 instead.
};

struct FillParams
{
    Dims dims{}; //!< Unset when input 0 gives the shape.
    nvinfer1::FillOperation op{};
    double alpha{0.0};
    double beta{1.0};
    int64_t alphaInt64{0};
    int64_t betaInt64{1};
    bool alphaBetaInt64{}; //!< Whether the last setter used was an Int64 one.
    DataType toType{DataType::kFLOAT};
};

//! Quantize and dequantize (network/layers/quantize.cpp): how input 1's scales (and input 2's zero points) map onto
//! the input. A 0-D scale is one for the whole tensor, a 1-D scale one per index of axis (negative: from the last),
//! a scale of the input's rank one per block: blockShape's extents when set (-1: the whole axis), else the input's
//! extents over the scale's.
struct QuantizeParams
{
    int32_t axis{-1};
    Dims blockShape{kUnsetDims};
    DataType toType{DataType::kINT8}; //!< kINT8, kFP8 or kINT4.
};

struct DequantizeParams
{
    int32_t axis{-1};
    Dims blockShape{kUnsetDims};
    DataType toType{DataType::kFLOAT}; //!< kFLOAT, kHALF or kBF16.
};

//! Scatter (network/layers/scatter.cpp): inputs 0 data, 1 indices, 2 updates.
struct ScatterParams
{
    nvinfer1::ScatterMode mode{};
    int32_t axis{0}; //!< kELEMENT's axis (negative: from the last).
};

//! Einsum (network/layers/einsum.cpp): the equation as given; network/einsum_equation.h parses it.
struct EinsumParams
{
    std::string equation;
};

//! Grid sample (network/layers/grid_sample.cpp): inputs 0 data [N, C, H, W], 1 grid [N, H_out, W_out, 2].
struct GridSampleParams
{
    nvinfer1::InterpolationMode mode{nvinfer1::InterpolationMode::kLINEAR};
    bool alignCorners{};
    nvinfer1::SampleMode sampleMode{nvinfer1::SampleMode::kFILL}; //!< kFILL (zeros), kCLAMP or kREFLECT.
};

//! Reverse sequence (network/layers/reverse_sequence.cpp): inputs 0 data, 1 sequence lengths.
struct ReverseSequenceParams
{
    int32_t batchAxis{1};
    int32_t sequenceAxis{0};
};

//! A non-zero layer: output 0 the indices [rank, count]; output 1, which the API does not show, the count (a 0-D kINT64
//! tensor the kernel writes, read back to learn output 0's extent).
struct NonZeroParams
{
    DataType indicesType{DataType::kINT32}; //!< Output 0's type: kINT32 or kINT64.
};

//! A non-maximum suppression: inputs 3 (IoU threshold) and 4 (score threshold) are optional tensors.
struct NMSParams
{
    nvinfer1::BoundingBoxFormat format{nvinfer1::BoundingBoxFormat::kCORNER_PAIRS};
    int32_t topKBoxLimit{5000};             //!< Candidates considered per batch item, 1 to 5000.
    DataType indicesType{DataType::kINT32}; //!< Output 0's type: kINT32 or kINT64.
};

//! The boundary layers of an if-conditional (network/layers/if_conditional.cpp) name it by its index among the
//! network's conditionals, which the engine keeps for messages.
//! - kCONDITION: input 0 the 0-D kBOOL condition; one output the API does not show, the condition as the conditional
//!   reads it (a copy, which the run time reads back to choose the branch).
//! - kCONDITIONAL_INPUT: its output is its input.
//! - kCONDITIONAL_OUTPUT: input 0 the true branch's value, input 1 the false branch's; input 2, which the API does not
//!   show, the condition layer's output. Its output is the chosen branch's value.
struct ConditionParams
{
    int32_t conditional{};
};

struct IfConditionalInputParams
{
    int32_t conditional{};
};

struct IfConditionalOutputParams
{
    int32_t conditional{};
};

//! The boundary layers of a loop (network/layers/loop.cpp) name it by its index among the network's loops.
//! - kTRIP_LIMIT: input 0 the count (kCOUNT: a 0-D kINT32 or kINT64 shape tensor) or the condition (kWHILE: a 0-D
//!   kBOOL tensor computed in the loop); no outputs.
//! - kRECURRENCE: input 0 the value before the first iteration, input 1 the next value; output 0 the current value.
//! - kITERATOR: input 0 the tensor iterated over; output 0 its slice along axis at the iteration.
//! - kLOOP_OUTPUT: input 0 the value (kLAST_VALUE: a recurrence's output); for kCONCATENATE and kREVERSE input 1 the
//!   length of the new axis (a 0-D kINT32 or kINT64 shape tensor).
struct TripLimitParams
{
    int32_t loop{};
    nvinfer1::TripLimit kind{nvinfer1::TripLimit::kCOUNT};
};

struct RecurrenceParams
{
    int32_t loop{};
};

struct IteratorParams
{
    int32_t loop{};
    int32_t axis{};
    bool reverse{};
};

struct LoopOutputParams
{
    int32_t loop{};
    nvinfer1::LoopOutput kind{nvinfer1::LoopOutput::kLAST_VALUE};
    int32_t axis{};
};

} // namespace kiln
