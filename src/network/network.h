// SPDX-License-Identifier: Apache-2.0
// The network definition: the one graph representation of kiln's build phase. Network is the INetworkDefinition the
// application holds and owns every tensor and layer; the builder reads the graph through its accessors:
//
//     Network const& network = Network::of(definition);
//     for (auto const& layer : network.layers()) { layer->type(); layer->inputs(); layer->params(); ... }
//
// Layers are kept in the order they were added. setInput() may make a layer read a tensor made by a later layer
// (never a cycle), so the builder orders layers by their edges, not by this order.
//
// NetworkApi implements INetworkDefinition's methods. Those that add a layer of an offered kind live with the kind
// in src/network/layers/<stem>.cpp; those of kinds kiln does not offer yet (src/network/unsupported.cpp) return
// nullptr and report that the layer is not supported yet.
#pragma once

#include "network/if_conditional.h"
#include "network/layer.h"
#include "network/loop.h"
#include "network/report.h"
#include "network/tensor.h"

#include "NvInfer.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace kiln
{

class Network;

//! What the inline INetworkDefinition methods call.
class NetworkApi final : public nvinfer1::apiv::VNetworkDefinition
{
public:
    explicit NetworkApi(Network& network) noexcept
        : mNetwork(network)
    {
    }

    nvinfer1::ITensor* addInput(char const* name, DataType type, Dims const& dimensions) noexcept override;
    void markOutput(nvinfer1::ITensor& tensor) noexcept override;
    nvinfer1::IActivationLayer* addActivation(
        nvinfer1::ITensor& input, nvinfer1::ActivationType type) noexcept override;
    nvinfer1::ILRNLayer* addLRN(
        nvinfer1::ITensor& input, int64_t window, float alpha, float beta, float k) noexcept override;
    nvinfer1::IScaleLayer* addScale(nvinfer1::ITensor& input, nvinfer1::ScaleMode mode, Weights shift, Weights scale,
        Weights power) noexcept override;
    nvinfer1::ISoftMaxLayer* addSoftMax(nvinfer1::ITensor& input) noexcept override;
    nvinfer1::IConcatenationLayer* addConcatenation(
        nvinfer1::ITensor* const* inputs, int32_t nbInputs) noexcept override;
    nvinfer1::IElementWiseLayer* addElementWise(
        nvinfer1::ITensor& input1, nvinfer1::ITensor& input2, nvinfer1::ElementWiseOperation op) noexcept override;
    nvinfer1::IUnaryLayer* addUnary(nvinfer1::ITensor& input, nvinfer1::UnaryOperation operation) noexcept override;
    nvinfer1::IShuffleLayer* addShuffle(nvinfer1::ITensor& input) noexcept override;
    int32_t getNbLayers() const noexcept override;
    nvinfer1::ILayer* getLayer(int32_t index) const noexcept override;
    int32_t getNbInputs() const noexcept override;
    nvinfer1::ITensor* getInput(int32_t index) const noexcept override;
    int32_t getNbOutputs() const noexcept override;
    nvinfer1::ITensor* getOutput(int32_t index) const noexcept override;
    nvinfer1::IReduceLayer* addReduce(nvinfer1::ITensor& input, nvinfer1::ReduceOperation operation,
        uint32_t reduceAxes, bool keepDimensions) noexcept override;
    nvinfer1::ITopKLayer* addTopK(
        nvinfer1::ITensor& input, nvinfer1::TopKOperation op, int32_t k, uint32_t reduceAxes) noexcept override;
    nvinfer1::IGatherLayer* addGather(
        nvinfer1::ITensor& data, nvinfer1::ITensor& indices, int32_t axis) noexcept override;
    nvinfer1::IRaggedSoftMaxLayer* addRaggedSoftMax(
        nvinfer1::ITensor& input, nvinfer1::ITensor& bounds) noexcept override;
    nvinfer1::IMatrixMultiplyLayer* addMatrixMultiply(nvinfer1::ITensor& input0, nvinfer1::MatrixOperation op0,
        nvinfer1::ITensor& input1, nvinfer1::MatrixOperation op1) noexcept override;
    nvinfer1::IConstantLayer* addConstant(Dims const& dimensions, Weights weights) noexcept override;
    nvinfer1::IIdentityLayer* addIdentity(nvinfer1::ITensor& input) noexcept override;
    void removeTensor(nvinfer1::ITensor& tensor) noexcept override;
    void unmarkOutput(nvinfer1::ITensor& tensor) noexcept override;
    nvinfer1::IPluginV2Layer* addPluginV2(
        nvinfer1::ITensor* const* inputs, int32_t nbInputs, nvinfer1::IPluginV2& plugin) noexcept override;
    nvinfer1::IPluginV3Layer* addPluginV3(nvinfer1::ITensor* const* inputs, int32_t nbInputs,
        nvinfer1::ITensor* const* shapeInputs, int32_t nbShapeInputs, nvinfer1::IPluginV3& plugin) noexcept override;
    nvinfer1::ISliceLayer* addSlice(
        nvinfer1::ITensor& input, Dims const& start, Dims const& size, Dims const& stride) noexcept override;
    void setName(char const* name) noexcept override;
    char const* getName() const noexcept override;
    nvinfer1::IShapeLayer* addShape(nvinfer1::ITensor& input) noexcept override;
    bool hasImplicitBatchDimension() const noexcept override;
    bool markOutputForShapes(nvinfer1::ITensor& tensor) noexcept override;
    bool unmarkOutputForShapes(nvinfer1::ITensor& tensor) noexcept override;
    nvinfer1::IParametricReLULayer* addParametricReLU(
        nvinfer1::ITensor& input, nvinfer1::ITensor& slope) noexcept override;
    nvinfer1::IConvolutionLayer* addConvolutionNd(nvinfer1::ITensor& input, int64_t nbOutputMaps,
        Dims const& kernelSize, Weights kernelWeights, Weights biasWeights) noexcept override;
    nvinfer1::IPoolingLayer* addPoolingNd(
        nvinfer1::ITensor& input, nvinfer1::PoolingType type, Dims const& windowSize) noexcept override;
    nvinfer1::IDeconvolutionLayer* addDeconvolutionNd(nvinfer1::ITensor& input, int64_t nbOutputMaps,
        Dims const& kernelSize, Weights kernelWeights, Weights biasWeights) noexcept override;
    nvinfer1::IScaleLayer* addScaleNd(nvinfer1::ITensor& input, nvinfer1::ScaleMode mode, Weights shift, Weights scale,
        Weights power, int32_t channelAxis) noexcept override;
    nvinfer1::IResizeLayer* addResize(nvinfer1::ITensor& input) noexcept override;
    nvinfer1::ILoop* addLoop() noexcept override;
    nvinfer1::ISelectLayer* addSelect(
        nvinfer1::ITensor& condition, nvinfer1::ITensor& thenInput, nvinfer1::ITensor& elseInput) noexcept override;
    nvinfer1::IFillLayer* addFill(Dims const& dimensions, nvinfer1::FillOperation op) noexcept override;
    nvinfer1::IPaddingLayer* addPaddingNd(
        nvinfer1::ITensor& input, Dims const& prePadding, Dims const& postPadding) noexcept override;
    bool setWeightsName(Weights weights, char const* name) noexcept override;
    void setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept override;
    nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override;
    nvinfer1::IDequantizeLayer* addDequantize(nvinfer1::ITensor& input, nvinfer1::ITensor& scale) noexcept override;
    nvinfer1::IQuantizeLayer* addQuantize(nvinfer1::ITensor& input, nvinfer1::ITensor& scale) noexcept override;
    nvinfer1::IGatherLayer* addGatherV2(
        nvinfer1::ITensor& data, nvinfer1::ITensor& indices, nvinfer1::GatherMode mode) noexcept override;
    nvinfer1::IIfConditional* addIfConditional() noexcept override;
    nvinfer1::IScatterLayer* addScatter(nvinfer1::ITensor& data, nvinfer1::ITensor& indices, nvinfer1::ITensor& updates,
        nvinfer1::ScatterMode mode) noexcept override;
    nvinfer1::IEinsumLayer* addEinsum(
        nvinfer1::ITensor* const* inputs, int32_t nbInputs, char const* equation) noexcept override;
    nvinfer1::IAssertionLayer* addAssertion(nvinfer1::ITensor& condition, char const* message) noexcept override;
    nvinfer1::IOneHotLayer* addOneHot(nvinfer1::ITensor& indices, nvinfer1::ITensor& values, nvinfer1::ITensor& depth,
        int32_t axis) noexcept override;
    nvinfer1::INonZeroLayer* addNonZero(nvinfer1::ITensor& input) noexcept override;
    nvinfer1::IGridSampleLayer* addGridSample(nvinfer1::ITensor& input, nvinfer1::ITensor& grid) noexcept override;
    nvinfer1::INMSLayer* addNMS(nvinfer1::ITensor& boxes, nvinfer1::ITensor& scores,
        nvinfer1::ITensor& maxOutputBoxesPerClass) noexcept override;
    nvinfer1::IReverseSequenceLayer* addReverseSequence(
        nvinfer1::ITensor& input, nvinfer1::ITensor& sequenceLens) noexcept override;
    nvinfer1::INormalizationLayer* addNormalization(nvinfer1::ITensor& input, nvinfer1::ITensor& scale,
        nvinfer1::ITensor& bias, uint32_t axesMask) noexcept override;
    nvinfer1::ICastLayer* addCast(nvinfer1::ITensor& input, DataType toType) noexcept override;
    nvinfer1::IBuilder& getBuilder() const noexcept override;
    nvinfer1::NetworkDefinitionCreationFlags getFlags() const noexcept override;
    bool getFlag(nvinfer1::NetworkDefinitionCreationFlag networkDefinitionCreationFlag) const noexcept override;
    nvinfer1::IQuantizeLayer* addQuantizeV2(
        nvinfer1::ITensor& input, nvinfer1::ITensor& scale, DataType outputType) noexcept override;
    nvinfer1::IDequantizeLayer* addDequantizeV2(
        nvinfer1::ITensor& input, nvinfer1::ITensor& scale, DataType outputType) noexcept override;
    nvinfer1::IFillLayer* addFillV2(
        Dims const& dimensions, nvinfer1::FillOperation op, DataType outputType) noexcept override;
    bool markDebug(nvinfer1::ITensor& tensor) noexcept override;
    bool unmarkDebug(nvinfer1::ITensor& tensor) noexcept override;
    bool isDebugTensor(nvinfer1::ITensor const& tensor) const noexcept override;
    bool markWeightsRefittable(char const* name) noexcept override;
    bool unmarkWeightsRefittable(char const* name) noexcept override;
    bool areWeightsMarkedRefittable(char const* name) const noexcept override;
    nvinfer1::ISqueezeLayer* addSqueeze(nvinfer1::ITensor& input, nvinfer1::ITensor& axes) noexcept override;
    nvinfer1::IUnsqueezeLayer* addUnsqueeze(nvinfer1::ITensor& input, nvinfer1::ITensor& axes) noexcept override;
    nvinfer1::IDynamicQuantizeLayer* addDynamicQuantize(nvinfer1::ITensor& input, int32_t axis, int32_t blockSize,
        DataType toType, DataType scaleType) noexcept override;
    nvinfer1::ICumulativeLayer* addCumulative(nvinfer1::ITensor& input, nvinfer1::ITensor& axis,
        nvinfer1::CumulativeOperation operation, bool exclusive, bool reverse) noexcept override;
    bool markUnfusedTensorsAsDebugTensors() noexcept override;
    bool unmarkUnfusedTensorsAsDebugTensors() noexcept override;
    nvinfer1::ITopKLayer* addTopKV2(nvinfer1::ITensor& input, nvinfer1::TopKOperation op, int32_t k,
        uint32_t reduceAxes, DataType indicesType) noexcept override;
    nvinfer1::INonZeroLayer* addNonZeroV2(nvinfer1::ITensor& input, DataType indicesType) noexcept override;
    nvinfer1::INMSLayer* addNMSV2(nvinfer1::ITensor& boxes, nvinfer1::ITensor& scores,
        nvinfer1::ITensor& maxOutputBoxesPerClass, DataType indicesType) noexcept override;
    nvinfer1::IAttention* addAttention(nvinfer1::ITensor& query, nvinfer1::ITensor& key, nvinfer1::ITensor& value,
        nvinfer1::AttentionNormalizationOp normOp, bool isCausal) noexcept override;
    nvinfer1::IRotaryEmbeddingLayer* addRotaryEmbedding(nvinfer1::ITensor& input, nvinfer1::ITensor& cosCache,
        nvinfer1::ITensor& sinCache, bool interleaved, int32_t rotaryEmbeddingDim) noexcept override;
    nvinfer1::IDynamicQuantizeLayer* addDynamicQuantizeV2(
        nvinfer1::ITensor& input, Dims const& blockShape, DataType toType, DataType scaleType) noexcept override;
    nvinfer1::IKVCacheUpdateLayer* addKVCacheUpdate(nvinfer1::ITensor& cache, nvinfer1::ITensor& update,
        nvinfer1::ITensor& writeIndices, nvinfer1::KVCacheMode cacheMode) noexcept override;
    nvinfer1::INormalizationLayer* addNormalizationV2(nvinfer1::ITensor& input, nvinfer1::ITensor& scale,
        nvinfer1::ITensor& bias, uint32_t axesMask) noexcept override;
    nvinfer1::IMoELayer* addMoE(nvinfer1::ITensor& hiddenStates, nvinfer1::ITensor& selectedExpertsForTokens,
        nvinfer1::ITensor& scoresForSelectedExperts) noexcept override;
    nvinfer1::IDistCollectiveLayer* addDistCollective(nvinfer1::ITensor& input,
        nvinfer1::CollectiveOperation distCollectiveOp, nvinfer1::ReduceOperation reduceOp, int64_t root,
        int64_t* groups, int64_t groupSize) noexcept override;

private:
    //! Reports that method adds a layer kiln does not offer yet; returns nullptr.
    std::nullptr_t unsupported(char const* method) const noexcept;

    Network& mNetwork;
};

//! A network definition. Made by IBuilder::createNetworkV2(); owns its tensors and layers.
class Network final : public nvinfer1::INetworkDefinition
{
public:
    Network(nvinfer1::IBuilder& builder, nvinfer1::NetworkDefinitionCreationFlags flags, std::string name,
        nvinfer1::IErrorRecorder* recorder);
    ~Network() noexcept override;

    //! The Network behind a definition kiln made.
    static Network& of(nvinfer1::INetworkDefinition& definition) noexcept { return static_cast<Network&>(definition); }
    static Network const& of(nvinfer1::INetworkDefinition const& definition) noexcept
    {
        return static_cast<Network const&>(definition);
    }

    // The graph.
    std::vector<std::unique_ptr<Layer>> const& layers() const noexcept { return mLayers; }
    std::vector<std::unique_ptr<Tensor>> const& tensors() const noexcept { return mTensors; }
    std::vector<Tensor*> const& inputs() const noexcept { return mInputs; }
    //! Outputs in the order they were marked, shape outputs included.
    std::vector<Tensor*> const& outputs() const noexcept { return mOutputs; }
    nvinfer1::NetworkDefinitionCreationFlags flags() const noexcept { return mFlags; }
    bool isStronglyTyped() const noexcept;
    std::string const& name() const noexcept { return mName; }
    nvinfer1::IBuilder& builder() const noexcept { return mBuilder; }
    //! The name given with setWeightsName() to the weights whose values start at values, or nullptr.
    char const* weightsName(void const* values) const noexcept;
    bool isWeightsRefittable(std::string const& name) const noexcept { return mRefittable.count(name) != 0; }
    bool unfusedTensorsAreDebugTensors() const noexcept { return mUnfusedDebug; }

    //! The layers that read tensor, with the input index, in layer order.
    std::vector<std::pair<Layer*, int32_t>> consumers(Tensor const& tensor) const;

    //! Forgets the shape and type computed for changed and for every tensor computed from it (Tensor::shapeChanged).
    //! Cheap for a tensor no layer reads yet, which is what the setters of a layer just added meet.
    void forgetComputedShapes(Tensor const& changed) const noexcept;
    //! Forgets every computed shape and type: when a loop or an if-conditional gains a boundary layer.
    void forgetAllComputedShapes() const noexcept;

    Reporter const& reporter() const noexcept { return mReporter; }
    //! The implementation interface behind the wrapper (for kiln's own tests of methods no wrapper offers).
    nvinfer1::apiv::VNetworkDefinition& api() noexcept { return mApi; }

    //! The tensor of this network behind tensor; else reports the method (where) and what (e.g. "input") and
    //! returns nullptr.
    Tensor* own(nvinfer1::ITensor const* tensor, char const* where, char const* what) const noexcept;

    //! The tensors tensors[0 .. count) of this network; else reports what is wrong (a negative count, a null array or
    //! entry, a tensor of another network) as `where` and `what` ("inputs") and returns nullopt.
    std::optional<std::vector<Tensor*>> ownAll(
        nvinfer1::ITensor* const* tensors, int32_t count, char const* where, char const* what) const;

    //! Reports an invalid argument of `where` made of parts; returns nullptr for `return fail(...)`.
    template <typename... Parts>
    std::nullptr_t fail(char const* where, Parts const&... parts) const noexcept
    {
        mReporter.error(nvinfer1::ErrorCode::kINVALID_ARGUMENT, where, ": ", parts...);
        return nullptr;
    }

    //! Adds a layer of kind T with default name "(Unnamed Layer* N) [tag]" (tag: the kind's, unless given) and
    //! nbOutputs outputs named after it.
    template <LayerType T>
    LayerObject<T>& addLayer(std::vector<Tensor*> inputs, typename LayerKindTraits<T>::Params params, int32_t nbOutputs,
        char const* tag = nullptr, int32_t nbHiddenOutputs = 0)
    {
        auto layer = std::make_unique<LayerObject<T>>(
            *this, defaultLayerName(tag != nullptr ? tag : layerKindTag(T)), std::move(inputs), std::move(params));
        LayerObject<T>& object = *layer;
        adopt(std::move(layer), nbOutputs, nbHiddenOutputs);
        return object;
    }

    //! The if-conditional of index (ConditionParams::conditional and the like), or nullptr.
    IfConditional* conditional(int32_t index) const noexcept
    {
        return index >= 0 && static_cast<std::size_t>(index) < mConditionals.size()
            ? mConditionals[static_cast<std::size_t>(index)].get()
            : nullptr;
    }

    //! The loop of index (TripLimitParams::loop and the like), or nullptr.
    Loop* loop(int32_t index) const noexcept
    {
        return index >= 0 && static_cast<std::size_t>(index) < mLoops.size()
            ? mLoops[static_cast<std::size_t>(index)].get()
            : nullptr;
    }

    //! Whether tensor is computed from an output of layer (so that layer reading it would make a cycle). A
    //! recurrence's next value (its input 1) is read in the following iteration, so it is no edge here.
    bool dependsOn(Tensor const& tensor, Layer const& layer) const noexcept;

    //! Whether another network input or output than tensor is called name.
    bool isIOName(std::string const& name, Tensor const* except) const noexcept;

private:
    friend class NetworkApi;

    std::string defaultLayerName(char const* tag) const;
    //! Adds layer with nbOutputs outputs the application sees, then nbHiddenOutputs it does not (Layer::apiOutputs).
    void adopt(std::unique_ptr<Layer> layer, int32_t nbOutputs, int32_t nbHiddenOutputs);

    NetworkApi mApi{*this};
    nvinfer1::IBuilder& mBuilder;
    nvinfer1::NetworkDefinitionCreationFlags mFlags;
    std::string mName;
    Reporter mReporter;
    std::vector<std::unique_ptr<Tensor>> mTensors;
    std::vector<std::unique_ptr<Layer>> mLayers;
    std::vector<std::unique_ptr<IfConditional>> mConditionals;
    std::vector<std::unique_ptr<Loop>> mLoops;
    std::vector<Tensor*> mInputs;
    std::vector<Tensor*> mOutputs;
    std::unordered_map<nvinfer1::ITensor const*, Tensor*> mTensorIndex;
    //! Removed tensors stay allocated until the network goes, so that a stale pointer is recognised.
    std::vector<std::unique_ptr<Tensor>> mRemovedTensors;
    std::unordered_set<nvinfer1::ITensor const*> mRemovedIndex;
    std::map<void const*, std::string> mWeightsNames;
    std::map<std::string, void const*> mWeightsByName; //!< mWeightsNames the other way.
    std::set<std::string> mRefittable;
    bool mUnfusedDebug{};
};

} // namespace kiln
