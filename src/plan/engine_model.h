// SPDX-License-Identifier: Apache-2.0
// The engine model: everything a built engine is, in one value that the three phases share. The builder makes it
// from a network and a config (builder/build.h), the plan writer encodes it and the plan reader decodes it
// (plan/engine_codec.h), and the runtime executes it (runtime/). Nothing in it points into a network: tensors,
// layers, expressions and weights refer to each other by index, and weights are owned by the model; the one
// exception is a model built only to be written as a plan, whose blobs borrow the network's weights
// (WeightsBlob::borrowed).
//
//     EngineModel model = buildEngineModel(network, config).value();
//     std::vector<uint8_t> plan = encodeEngine(model).value();
//     EngineModel loaded = decodeEngine(plan.data(), plan.size()).value();   // equal to model
//
// Shapes are symbolic. Every extent of every tensor is an expression (exprs[i]) over symbols: network-input
// extents, shape-tensor values and data-dependent values. The runtime binds the symbols from setInputShape, from
// the values of input shape tensors, and (for data-dependent symbols) from a tensor's values once the layer that
// makes it has run, then evaluates the expressions.
#pragma once

#include "core/shape_expr.h"
#include "network/layer_kinds.h"
#include "plan/container.h"

#include "NvInferRuntime.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace kiln
{

//! "No tensor": an absent optional input of a layer, or a symbol with no source tensor.
inline constexpr int32_t kNoTensor = -1;

//! One node of the shape-expression DAG. Operands are earlier nodes: exprs[i].lhs < i.
struct ExprRecord
{
    DimExpr::Kind kind{DimExpr::Kind::kCONSTANT};
    int64_t value{};                                 //!< kCONSTANT.
    uint32_t symbol{};                               //!< kSYMBOL: index into EngineModel::symbols.
    DimensionOperation op{DimensionOperation::kSUM}; //!< kOPERATION.
    uint32_t lhs{};                                  //!< kOPERATION: index into EngineModel::exprs.
    uint32_t rhs{};

    bool operator==(ExprRecord const&) const = default;
};

//! A symbol and where its value comes from at run time.
struct SymbolRecord
{
    std::string name;  //!< "input.d0", "shape.v1": for messages.
    SymbolKind kind{}; //!< kINPUT_EXTENT, kSHAPE_VALUE or kSIZE_TENSOR.
    //! kINPUT_EXTENT: the network input whose extent `index` it is (given by setInputShape).
    //! kSHAPE_VALUE: the tensor whose value `index` it is: a network input shape tensor (its values are given with
    //! setTensorAddress, in host memory), or a tensor computed by a layer (a data-dependent value, read once the
    //! layer has run).
    //! kSIZE_TENSOR: the tensor made by the plugin layer that declared it (issue 4).
    int32_t tensor{kNoTensor};
    int32_t index{};
    //! kSIZE_TENSOR only: the optimum and upper-bound expressions the plugin gave.
    int32_t optimum{-1};
    int32_t upperBound{-1};

    bool operator==(SymbolRecord const&) const = default;
};

//! One tensor of the engine: a network input or output, or an internal tensor made by a layer.
struct TensorRecord
{
    std::string name;
    DataType type{DataType::kFLOAT};
    std::vector<uint32_t> shape; //!< One expression index per extent (the rank is shape.size()).
    //! A shape tensor's values in row-major order, one expression each, when shape inference tracked them.
    std::optional<std::vector<uint32_t>> values;
    bool isInput{};
    bool isOutput{};
    //! An I/O tensor whose values are shapes (TensorRT's isShapeInferenceIO): it lives in host memory.
    bool isShapeTensor{};
    nvinfer1::TensorFormat format{nvinfer1::TensorFormat::kLINEAR};
    //! The quantization scale of a kINT8 / kFP8 tensor (its dynamic range over the type's largest value); 1 otherwise.
    float scale{1.0F};
    int32_t producer{-1}; //!< The layer that makes it (index into EngineModel::layers), -1 for a network input.
    //! Marked with INetworkDefinition::markDebug: the builder keeps it (no fusion absorbs it) under its network name,
    //! and an execution context may hand it to its IDebugListener once its layer has run.
    bool isDebug{};

    bool operator==(TensorRecord const&) const = default;
};

//! One operation of a fused point-wise program (LayerRecord::pointwise, CUDA engines). The builder's fusion
//! (builder/fusion.h) folds a chain of element-wise, unary and activation layers into one layer that computes them
//! element by element without writing the tensors between them.
struct PointwiseStep
{
    enum class Kind : int32_t
    {
        kELEMENTWISE = 0, //!< op is an ElementWiseOperation (an arithmetic one: no comparison or logic).
        kUNARY = 1,       //!< op is a UnaryOperation (one with a float result: not kNOT, kISINF or kISNAN).
        kACTIVATION = 2,  //!< op is an ActivationType, with alpha and beta.
    };

    Kind kind{};
    int32_t op{};
    float alpha{}; //!< kACTIVATION only.
    float beta{};  //!< kACTIVATION only.
    //! Operands. A value v >= 0 is the layer's input v; a value v < 0 is the result of step -1 - v, an earlier step.
    int32_t a{};
    int32_t b{}; //!< kELEMENTWISE only (0 otherwise).

    bool operator==(PointwiseStep const&) const = default;
};

//! The largest fused point-wise program: steps, and inputs of the layer (what the CUDA kernel takes).
inline constexpr std::size_t kMaxPointwiseSteps = 32;
inline constexpr std::size_t kMaxPointwiseInputs = 8;

//! The operand value of step k's result (PointwiseStep::a and b).
constexpr int32_t pointwiseStepOperand(int32_t step) noexcept
{
    return -1 - step;
}

//! Whether a fused point-wise step may compute op of kind: the arithmetic element-wise operations, the unary
//! operations with a float result, every activation.
bool isPointwiseOp(PointwiseStep::Kind kind, int32_t op) noexcept;

//! What is wrong with program as the steps of a layer with nbInputs inputs, naming the step: its size (1 to
//! kMaxPointwiseSteps steps, at most kMaxPointwiseInputs inputs), kinds and operations (isPointwiseOp), and operands
//! (an input below nbInputs, or an earlier step; b is 0 except for element-wise steps). nullopt when nothing is.
std::optional<std::string> pointwiseProgramProblem(std::span<PointwiseStep const> program, std::size_t nbInputs);

//! A kernel that the builder's fusion (builder/fusion.h) put in place of a pattern of layers (CUDA engines). The
//! layer keeps the type and parameters of one layer of the pattern (named below); the fused kernel replaces what that
//! kind computes.
struct FusedKernel
{
    enum class Kind : int32_t
    {
        //! A kREDUCE layer; inputs x, then optionally gamma and beta. Normalizes every row of x's last axis:
        //! out = (x - mean) / sqrt(variance + epsilon) * gamma + beta, where gamma and beta (when present) have x's
        //! rank, the extent 1 on every axis but the last, and the last axis's extent.
        kLAYER_NORM = 1,
        //! A kMATRIX_MULTIPLY layer; inputs q, k, v, each [B, S, heads * D] (k and v may have another S), then
        //! optionally an additive mask of rank 4, each extent [B, heads, Sq, Skv]'s or 1, of q's type or kFLOAT. Per
        //! batch and head, in float: s = scale * q k^T + mask, out = softmax(s) v over the keys, written
        //! [B, Sq, heads * D] (the heads merged). A row the softmax makes NaN (every s -inf, as a fully masked row;
        //! or an s NaN or +inf) gives zeros under zeroMaskedRows and NaN otherwise, as the unfused layers do with and
        //! without the exporters' guard select(isnan(p), 0, p). A row of finite s (a mask of finfo.min) is an ordinary
        //! softmax.
        kATTENTION = 2,
        //! A kGATHER layer (the first lookup's); inputs: `gathers` pairs (table, indices), then the addends, then
        //! normAffine of gamma and beta. Every row of the output's last axis (extent H) is
        //!     s = sum over k of table_k[indices_k[row], :] + sum of addend[row, :]
        //! computed in float, then out = s, or the layer norm of s over the last axis (normalize: epsilon, gamma and
        //! beta as kLAYER_NORM has them). A table is [rows, H] (a lookup along axis 0); indices_k are kINT32 or
        //! kINT64 of the output's rank less one, each extent the output's or 1 (broadcast); an addend has the
        //! output's rank, each extent the output's or 1, and H last. An index outside [0, rows) adds zeros (as the
        //! gather kernel writes zeros); with bit k of wrapped, a negative index of lookup k counts from the end
        //! (ONNX's Gather: the importer's select(i < 0, i + rows, i), fused). Tables, addends, gamma, beta and the
        //! output share one type (kFLOAT, kHALF or kBF16). BERT's embeddings and their layer norm in one kernel.
        kEMBEDDING = 3,
    };

    Kind kind{Kind::kLAYER_NORM};
    float epsilon{};  //!< kLAYER_NORM.
    int32_t heads{};  //!< kATTENTION.
    float scale{1.F}; //!< kATTENTION: the factor of the scores.
    //! kATTENTION: rows the softmax makes NaN give zeros (the NaN guard was fused). Plans before it was added: false.
    bool zeroMaskedRows{};
    //! kATTENTION: input 0 holds q, k and v side by side, [B, S, 3 * heads * D] (q, then k, then v along the last
    //! axis: one product made the three, builder/fusion_qkv.cpp), then optionally the mask; k and v have q's S.
    bool packedQkv{};
    int32_t gathers{};    //!< kEMBEDDING: the (table, indices) pairs at the front of the inputs, 1 or more.
    int32_t wrapped{};    //!< kEMBEDDING: bit k set: negative indices of lookup k wrap (idx + rows).
    bool normalize{};     //!< kEMBEDDING: a layer norm of the sum (epsilon) follows.
    int32_t normAffine{}; //!< kEMBEDDING with normalize: the last inputs are gamma (1), or gamma and beta (2); or 0.

    bool operator==(FusedKernel const&) const = default;
};

//! The most lookups, and the most addends, one fused embedding takes (FusedKernel::kEMBEDDING).
constexpr int32_t kMaxEmbeddingTerms = 4;

//! The longest row (the output's last extent) a fused embedding takes: one warp keeps a row in registers.
constexpr int64_t kMaxEmbeddingRow = 1024;

//! The head sizes a fused attention takes (the CUDA kernel's variants).
constexpr bool fusedAttentionHeadSize(int64_t headSize) noexcept
{
    return headSize == 16 || headSize == 32 || headSize == 64 || headSize == 128;
}

//! The input of a CUDA engine's convolution record that holds a fused residual (LayerRecord::epilogue).
inline constexpr std::size_t kConvolutionResidualInput = 3;

//! One layer, in execution order.
struct LayerRecord
{
    std::string name;
    LayerType type{};
    std::vector<int32_t> inputs;  //!< Tensor indices; kNoTensor for an absent optional input.
    std::vector<int32_t> outputs; //!< Tensor indices.
    //! The layer's parameters. Weights point into EngineModel::weights (or are empty). A CUDA engine's convolution
    //! whose tensors are kHWC8/kDHWC8 (builder/layout.h) holds its kernel weights KRSC, in its data type. Plugin
    //! alternatives hold no plugin object here; the plan support for plugins comes with issue 4.
    LayerParams params;
    std::string metadata;
    //! The variant of the kind's kernel the builder timed fastest (CUDA engines; 0: the kind's default): its index in
    //! the list the kernel family gave at build time, and its name (cuda::TacticNames; empty for kinds without
    //! variants and in plans written before names were recorded). chosenTactic() finds it in the list of the machine
    //! that runs it.
    int32_t tactic{};
    std::string tacticName;
    //! A convolution's or matrix multiply's fused activation, applied to its result (CUDA engines): the activation
    //! layer that followed it is gone. A matrix multiply with a fused bias also has a third input, added to the
    //! product before the activation (broadcast as an element-wise sum), and with a fused residual a fourth, of the
    //! output's shape, added after the bias (the third input is kNoTensor when there is a residual but no bias):
    //!     out = epilogue(scale * (a * b) + bias + residual)
    //! A convolution with a fused residual (builder/fusion.h, fuseConvolutionResiduals) has it as input
    //! kConvolutionResidualInput, after the kernel tensor (1) and the bias tensor (2), each kNoTensor when absent; the
    //! residual has the output's type, format and shape:
    //!     out = epilogue(conv(x, kernel) + bias + residual)
    std::optional<ActivationParams> epilogue;
    //! A CUDA engine's matrix multiply: the factor of the product (a multiplication by a scalar constant that followed
    //! the matrix multiply, folded in by the fusion); 1 otherwise.
    float scale{1.F};
    //! A fused point-wise program (CUDA engines; empty: none). The layer computes, for every element of its one
    //! output, the steps in order on its inputs' elements (each input's extents are the output's or 1, broadcast;
    //! the same rank), and writes the last step's result. Inputs and output share one type (kFLOAT, kHALF or kBF16);
    //! the steps compute in float. params keeps the parameters of the layer that the program's last step came from.
    std::vector<PointwiseStep> pointwise;
    //! A fused kernel that replaced a pattern of layers (CUDA engines; none: the kind's own kernel).
    std::optional<FusedKernel> fused;
    //! Per weights field of the parameters (slot 0: a convolution's or deconvolution's kernel, a constant's weights;
    //! slot 1: the bias), the EngineModel::refit.weights entry the field holds a form of, or -1 when it is not
    //! refittable (plan/refit.h).
    std::array<int32_t, 2> refit{-1, -1};
    //! A reshape (a shuffle without transposes) whose output is a view of input 0's memory: it runs nothing, and the
    //! input's memory lives as long as the output (memoryRoots, runtime/shape_values.h). The builder sets it where
    //! reshapeViews allows; the model check refuses it on any other layer.
    bool viewsInput{};
};

//! A condition on shapes that must hold at run time (a non-zero value), recorded by a layer's shape rule.
struct AssertionRecord
{
    uint32_t condition{}; //!< Expression index.
    std::string message;
    int32_t layer{-1}; //!< The layer that recorded it.

    bool operator==(AssertionRecord const&) const = default;
};

//! One optimization profile, and the activation memory planned for it.
struct ProfileRecord
{
    //! The range of one network input.
    struct Input
    {
        int32_t tensor{kNoTensor};
        Dims min{};
        Dims opt{};
        Dims max{};
        //! For a shape tensor input: its values at kMIN, kOPT and kMAX (empty otherwise).
        std::vector<int64_t> minValues;
        std::vector<int64_t> optValues;
        std::vector<int64_t> maxValues;

        //! Same tensor and values, and shapes of the same rank with the same extents within it (Dims has no ==).
        bool operator==(Input const& other) const
        {
            auto const same = [](Dims const& a, Dims const& b) {
                return a.nbDims == b.nbDims && std::equal(a.d, a.d + std::clamp(a.nbDims, 0, Dims::MAX_DIMS), b.d);
            };
            return tensor == other.tensor && same(min, other.min) && same(opt, other.opt) && same(max, other.max)
                && minValues == other.minValues && optValues == other.optValues && maxValues == other.maxValues;
        }
    };

    std::vector<Input> inputs; //!< One per network input, in EngineModel::ioTensors order.
    //! Per tensor (index into EngineModel::tensors): its byte offset in the activation block, or -1 for a tensor
    //! that does not live there (I/O tensors, and tensors whose size is known only at run time).
    std::vector<int64_t> offsets;
    int64_t activationBytes{}; //!< The size of the activation block for this profile.

    bool operator==(ProfileRecord const&) const = default;
};

//! Bytes that weights point to: owned by the blob, or borrowed from the network while the builder writes a plan.
//! A built model borrows so that the way from the network into the plan copies the weights once, into the plan
//! (builder/build.h, ModelWeights::kBORROW): TensorRT's contract keeps a network's weights alive until the build that
//! reads them returns. A decoded plan's blobs, and weights the builder rewrites (builder/layout.h), are owned.
struct WeightsBlob
{
    DataType type{DataType::kFLOAT};
    int64_t count{};            //!< Elements.
    std::vector<uint8_t> bytes; //!< Owned storage (packed types take less than a byte per element); empty if borrowed.
    std::span<uint8_t const> borrowed; //!< Borrowed storage, in memory the blob does not own; empty if owned.

    WeightsBlob() = default;
    //! A blob that owns its storage.
    WeightsBlob(DataType blobType, int64_t blobCount, std::vector<uint8_t> owned) noexcept
        : type(blobType)
        , count(blobCount)
        , bytes(std::move(owned))
    {
    }
    //! A blob that reads storage it does not own, which must outlive it.
    static WeightsBlob borrow(DataType blobType, int64_t blobCount, std::span<uint8_t const> storage) noexcept
    {
        WeightsBlob blob(blobType, blobCount, {});
        blob.borrowed = storage;
        return blob;
    }

    //! The values were left out of the plan (BuilderFlag::kSTRIP_PLAN): the blob holds zeros until a refit gives them.
    bool stripped{};

    //! The storage, owned or borrowed: what every reader of a blob's bytes uses.
    std::span<uint8_t const> view() const noexcept
    {
        return borrowed.empty() ? std::span<uint8_t const>(bytes) : borrowed;
    }

    //! Same type, count and bytes, wherever the bytes are.
    bool operator==(WeightsBlob const& other) const noexcept
    {
        return type == other.type && count == other.count && stripped == other.stripped
            && std::ranges::equal(view(), other.view());
    }
};

//! Weights of the network that an IRefitter may replace: named as TensorRT names them, by the network layer that
//! holds them and their role (IRefitter::setWeights), and by the name setWeightsName gave them, if any
//! (setNamedWeights). type and count are the prototype: what the network gave, and what new weights must have. The
//! layers that hold a form of them point here (LayerRecord::refit).
struct RefitWeightsRecord
{
    std::string layer;
    nvinfer1::WeightsRole role{nvinfer1::WeightsRole::kKERNEL};
    std::string name; //!< Empty: unnamed (refitted by layer and role only).
    DataType type{DataType::kFLOAT};
    int64_t count{};

    bool operator==(RefitWeightsRecord const&) const = default;
};

//! How an engine may be refitted (BuilderFlag::kREFIT, kREFIT_IDENTICAL, kREFIT_INDIVIDUAL, kSTRIP_PLAN).
struct RefitRecord
{
    enum class Mode : int32_t
    {
        kNONE = 0,      //!< Not refittable.
        kREFIT = 1,     //!< Any new values; nothing folds refittable weights into others.
        kIDENTICAL = 2, //!< The same values as at build time (kREFIT_IDENTICAL): folding is allowed.
    };

    Mode mode{Mode::kNONE};
    std::vector<RefitWeightsRecord> weights;
    //! BuilderFlag::kSTRIP_PLAN: the plan leaves the values of the refittable weights out.
    bool strip{};

    bool operator==(RefitRecord const&) const = default;
};

//! A plugin creator that a plugin library in the plan provides: what the library's entry point (getCreators, or the
//! deprecated getPluginCreators) gave at build time.
struct PluginCreatorRecord
{
    //! The interface the creator implements.
    enum class Kind : int32_t
    {
        kV2 = 0, //!< IPluginCreator ("PLUGIN CREATOR_V1"): makes IPluginV2 plugins.
        kV3 = 1, //!< IPluginCreatorV3One ("PLUGIN CREATOR_V3ONE"): makes IPluginV3 plugins.
    };

    PluginIdentity identity; //!< Name, version and the namespace the creator reports.
    Kind kind{Kind::kV3};

    bool operator==(PluginCreatorRecord const&) const = default;
};

//! A plugin library the plan carries (IBuilderConfig::setPluginsToSerialize; runtime/plan_libraries.h loads it): the
//! file's bytes, their checksum, and the creators it provides (the plan's inventory of them).
struct PluginLibraryRecord
{
    std::string name;           //!< The library's file name when it was built in ("libmy_plugins.so"), for messages.
    std::vector<uint8_t> bytes; //!< The whole file.
    uint64_t checksum{};        //!< CRC-64/XZ of bytes (plan/container.h).
    std::vector<PluginCreatorRecord> creators;

    bool operator==(PluginLibraryRecord const&) const = default;
};

//! A built engine. Movable, not copyable (layer parameters may own plugin objects).
struct EngineModel
{
    std::string name; //!< The network's name.
    PlanBackend backend{PlanBackend::kHOST};
    std::vector<ExprRecord> exprs;
    std::vector<SymbolRecord> symbols;
    std::vector<TensorRecord> tensors;
    std::vector<LayerRecord> layers; //!< Execution order: a layer's inputs are made by earlier layers.
    std::vector<AssertionRecord> assertions;
    //! The I/O tensors in TensorRT's order: the network inputs in the order they were added, then the outputs in
    //! the order they were marked.
    std::vector<int32_t> ioTensors;
    int32_t nbInputs{}; //!< The first nbInputs entries of ioTensors are inputs.
    std::vector<ProfileRecord> profiles;
    //! Weights referenced by layer parameters. A vector of vectors (or of borrowed spans): moving the model keeps every
    //! pointer valid.
    std::vector<WeightsBlob> weights;
    int64_t deviceMemorySize{}; //!< The largest activationBytes over the profiles.
    //! The builder's TacticSources bits (ICudaEngine::getTacticSources): whether V2 plugins receive cuDNN and cuBLAS
    //! handles in attachToContext() on the CUDA backend.
    uint32_t tacticSources{};
    RefitRecord refit;
    //! The builder's ProfilingVerbosity (ICudaEngine::getProfilingVerbosity).
    nvinfer1::ProfilingVerbosity profilingVerbosity{nvinfer1::ProfilingVerbosity::kLAYER_NAMES_ONLY};
    //! The plugin libraries the plan carries (IBuilderConfig::setPluginsToSerialize), in the order they were named.
    std::vector<PluginLibraryRecord> pluginLibraries;

    EngineModel() = default;
    EngineModel(EngineModel&&) = default;
    EngineModel& operator=(EngineModel&&) = default;
    EngineModel(EngineModel const&) = delete;
    EngineModel& operator=(EngineModel const&) = delete;

    //! The index of the tensor named name, or kNoTensor.
    int32_t findTensor(std::string const& name) const noexcept;
    //! Weights for a copy of blob index (an empty Weights for index -1).
    Weights weightsOf(int32_t index) const noexcept;
};

//! Per tensor: the tensor whose memory it lives in. A plugin output that aliases an input (PluginPlanRecord::
//! aliasedInputs) lives in that input's memory, and so on down a chain; every other tensor is its own root.
std::vector<int32_t> aliasRoots(EngineModel const& model);

//! The index in names (a kernel family's variants for the problem at hand, in the order the libraries list them on
//! this machine) of the variant the builder chose for layer: the one named layer.tacticName wherever the list has it;
//! without a recorded name, layer.tactic when it is in range; else 0, the default variant (another library version
//! or GPU that lacks the variant: the engine still runs, perhaps slower).
int32_t chosenTactic(LayerRecord const& layer, std::span<std::string const> names) noexcept;

//! What the time of each of layer's variants depends on, as text for a timing cache key: the layer's kind, the
//! parameters its kernels read (a convolution's or deconvolution's geometry and groups, a matrix multiply's
//! operations), its fused epilogue and scale, each input's and the output's type, format and extents (inputDims and
//! outputDims, the shapes it is timed at; an absent optional input has rank -1), and the variants' names (names, in the
//! order the kernel family lists them). Not the layer's name nor its weights' values: layers that differ only in those
//! have the same text, so a build times them once.
std::string tacticProblemText(LayerRecord const& layer, EngineModel const& model, std::span<Dims const> inputDims,
    Dims const& outputDims, std::span<std::string const> names);

} // namespace kiln
