// SPDX-License-Identifier: Apache-2.0
// A layer of a network definition. Layer is the graph node the builder walks (kind, name, inputs, outputs, typed
// parameters) and implements the ILayer half of the API; LayerObject<T> is the object the application holds, an
// I<Name>Layer whose own methods go to KindImpl<T>, the kind's descriptor in src/network/layers/<stem>.cpp.
//
// Output shapes here are what a kind knows without symbolic inference, which is the builder's job: shape-preserving
// kinds (activation, unary, softmax, cast, identity) copy their input's shape; constant, fill and shape layers
// know theirs from their parameters; the other kinds give the rank when it follows from ranks alone, with -1 for
// extents they do not compute, and an unknown rank (nbDims == -1) when it depends on values (a reshape given by a
// tensor, plugin outputs).
#pragma once

#include "network/layer_kinds.h"
#include "network/report.h"
#include "network/tensor.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kiln
{

class Network;

//! A layer of a network. Owned by the network.
class Layer : public nvinfer1::apiv::VLayer
{
public:
    ~Layer() noexcept override = default;

    LayerType type() const noexcept { return mType; }
    //! "IConvolutionLayer".
    char const* className() const noexcept { return layerClassName(mType); }
    std::string const& name() const noexcept { return mName; }
    Network& network() const noexcept { return mNetwork; }
    //! The inputs; an absent optional input is nullptr.
    std::vector<Tensor*> const& inputs() const noexcept { return mInputs; }
    //! Input index, or nullptr when absent or out of range.
    Tensor* input(int32_t index) const noexcept;
    //! Makes optional input index absent (a parameter replaces it); trailing absent inputs are dropped.
    void clearInput(int32_t index) noexcept;
    //! The inputs the application sees (getNbInputs / getInput). The others, last, are hidden: edges only the engine
    //! uses, such as the condition an if-conditional's output layer reads.
    int32_t apiInputs() const noexcept { return static_cast<int32_t>(mInputs.size()) - mNbHiddenInputs; }
    //! Appends a hidden input (see apiInputs).
    void appendHiddenInput(Tensor& tensor);
    //! Every output, the hidden ones (see apiOutputs) last.
    std::vector<Tensor*> const& outputs() const noexcept { return mOutputs; }
    //! The outputs the application sees (getNbOutputs / getOutput). The others are hidden: tensors only the engine
    //! uses, such as a non-zero layer's count, from which the run time learns the extent of its output 0.
    int32_t apiOutputs() const noexcept { return static_cast<int32_t>(mOutputs.size()) - mNbHiddenOutputs; }
    LayerParams const& params() const noexcept { return mParams; }
    template <typename P>
    P const& paramsAs() const noexcept
    {
        return std::get<P>(mParams);
    }
    //! The parameters, to change: the shapes and types computed from this layer's outputs are forgotten.
    template <typename P>
    P& editParams() noexcept
    {
        outputsChanged();
        return std::get<P>(mParams);
    }
    //! Forgets the shapes and types computed for this layer's outputs and for every tensor computed from them
    //! (Tensor::dims and Tensor::type compute each once): after a change of parameters, inputs or output types.
    void outputsChanged() const noexcept;
    //! The precision set with setPrecision(), if any.
    std::optional<DataType> precision() const noexcept { return mPrecision; }
    //! The type set with setOutputType(index), if any.
    std::optional<DataType> requestedOutputType(int32_t index) const noexcept;
    std::string const& metadata() const noexcept { return mMetadata; }

    //! The application's object.
    virtual nvinfer1::ILayer& api() noexcept = 0;
    //! The type of output index as the kind gives it from the inputs and parameters.
    virtual DataType kindOutputType(int32_t index) const noexcept = 0;
    //! The shape of output index as far as the kind knows it without symbolic inference (see above).
    virtual Dims kindOutputDims(int32_t index) const noexcept = 0;
    //! Whether input index is read for its values as a shape (a reshape, slice or fill shape, a plugin shape input).
    virtual bool isShapeInput(int32_t index) const noexcept = 0;
    //! Whether the kind can compute shape values from shape values (element-wise, gather, concatenation, ...).
    virtual bool computesShapeValues() const noexcept = 0;

    //! Reports an invalid argument of method: `<class>::<method>: layer "<name>": <parts>`.
    template <typename... Parts>
    void fail(char const* method, Parts const&... parts) const noexcept
    {
        reporter().error(nvinfer1::ErrorCode::kINVALID_ARGUMENT, className(), "::", method, ": layer ",
            quotedText(mName), ": ", parts...);
    }

    //! Whether dims has rank in [minRank, maxRank] and extents >= minExtent; else reports it as what of method.
    bool checkDims(char const* method, char const* what, Dims const& dims, int64_t minExtent, int32_t minRank = 0,
        int32_t maxRank = Dims::MAX_DIMS) const noexcept;

    //! Whether value is an enumerator of E; else reports it as what of method.
    template <typename E>
    bool checkEnum(char const* method, char const* what, E value) const noexcept
    {
        if (isValidEnum(value))
        {
            return true;
        }
        fail(method, what, " ", value, " is not a valid value");
        return false;
    }

    Reporter const& reporter() const noexcept;

    // VLayer: the ILayer methods.
    LayerType getType() const noexcept override;
    void setName(char const* name) noexcept override;
    char const* getName() const noexcept override;
    int32_t getNbInputs() const noexcept override;
    nvinfer1::ITensor* getInput(int32_t index) const noexcept override;
    int32_t getNbOutputs() const noexcept override;
    nvinfer1::ITensor* getOutput(int32_t index) const noexcept override;
    void setInput(int32_t index, nvinfer1::ITensor& tensor) noexcept override;
    void setPrecision(DataType dataType) noexcept override;
    DataType getPrecision() const noexcept override;
    bool precisionIsSet() const noexcept override;
    void resetPrecision() noexcept override;
    void setOutputType(int32_t index, DataType dataType) noexcept override;
    DataType getOutputType(int32_t index) const noexcept override;
    bool outputTypeIsSet(int32_t index) const noexcept override;
    void resetOutputType(int32_t index) noexcept override;
    void setMetadata(char const* docString) noexcept override;
    char const* getMetadata() const noexcept override;
    bool setNbRanks(int32_t nbRanks) noexcept override;
    int32_t getNbRanks() const noexcept override;

protected:
    Layer(Network& network, LayerType type, std::string name, std::vector<Tensor*> inputs, LayerParams params);

    //! One more than the highest input index setInput() accepts (a kind with optional inputs accepts more).
    virtual int32_t inputCapacity() const noexcept = 0;
    //! After setInput() replaced or appended input index.
    virtual void inputChanged(int32_t index) noexcept = 0;

private:
    friend class Network;

    //! Whether the layer may change types: refuses in a strongly typed network.
    bool checkWeaklyTyped(char const* method) const noexcept;
    bool checkOutputIndex(char const* method, int32_t index) const noexcept;

    Network& mNetwork;
    LayerType mType;
    std::string mName;
    std::vector<Tensor*> mInputs;
    std::vector<Tensor*> mOutputs; //!< Owned by the network.
    int32_t mNbHiddenOutputs{};    //!< The last outputs, which the API does not show.
    int32_t mNbHiddenInputs{};     //!< The last inputs, which the API does not show.
    LayerParams mParams;
    std::optional<DataType> mPrecision;
    std::vector<std::optional<DataType>> mOutputTypes;
    std::string mMetadata;
};

//! The shared part of the kind descriptors: the defaults a kind keeps unless it declares its own.
class KindBase
{
public:
    explicit KindBase(Layer& layer) noexcept
        : mLayer(layer)
    {
    }
    bool isShapeInput(int32_t /*index*/) const noexcept { return false; }
    bool computesShapeValues() const noexcept { return false; }
    //! Inputs can be replaced, not appended.
    int32_t inputCapacity() const noexcept { return static_cast<int32_t>(mLayer.inputs().size()); }
    void inputChanged(int32_t /*index*/) noexcept {}

protected:
    //! The shape of input index, or an unknown rank when it is absent.
    Dims inputDims(int32_t index) const noexcept;
    //! What shape inference over the network as it stands gives output index: constant extents, -1 for those that
    //! depend on dynamic input extents (as TensorRT reports them); an unknown rank when the shapes cannot be inferred.
    //! For the kinds whose outputs only the layer's own code can shape (plugins).
    Dims inferredOutputDims(int32_t index) const noexcept;
    //! The type of input index, or kFLOAT when it is absent.
    DataType inputType(int32_t index) const noexcept;

    Layer& mLayer;
};

//! The descriptor of one kind: implements its I<Name>Layer methods and declares dataOutputType / outputDims (and,
//! where it differs from KindBase, isShapeInput, computesShapeValues, inputCapacity, inputChanged).
template <LayerType T>
class KindImpl;

//! The application's object for a layer of kind T.
template <LayerType T>
class LayerObject final : public LayerKindTraits<T>::Wrapper, public Layer
{
public:
    using Params = typename LayerKindTraits<T>::Params;

    LayerObject(Network& network, std::string name, std::vector<Tensor*> inputs, Params params)
        : Layer(network, T, std::move(name), std::move(inputs), LayerParams{std::move(params)})
        , mKind(*this)
    {
        static_assert(std::is_base_of_v<typename LayerKindTraits<T>::Interface, KindImpl<T>>);
        this->mLayer = static_cast<nvinfer1::apiv::VLayer*>(static_cast<Layer*>(this));
        this->mImpl = &mKind;
        using Wrapper = typename LayerKindTraits<T>::Wrapper;
        if constexpr (std::is_base_of_v<nvinfer1::IIfConditionalBoundaryLayer,
                          Wrapper> || std::is_base_of_v<nvinfer1::ILoopBoundaryLayer, Wrapper>)
        {
            this->mBoundary = &mKind;
        }
    }

    KindImpl<T>& kind() noexcept { return mKind; }
    Params& kindParams() noexcept { return editParams<Params>(); }

    nvinfer1::ILayer& api() noexcept override { return *this; }
    DataType kindOutputType(int32_t index) const noexcept override { return mKind.outputType(index); }
    Dims kindOutputDims(int32_t index) const noexcept override { return mKind.outputDims(index); }
    bool isShapeInput(int32_t index) const noexcept override { return mKind.isShapeInput(index); }
    bool computesShapeValues() const noexcept override { return mKind.computesShapeValues(); }

protected:
    int32_t inputCapacity() const noexcept override { return mKind.inputCapacity(); }
    void inputChanged(int32_t index) noexcept override { mKind.inputChanged(index); }

private:
    KindImpl<T> mKind;
};

} // namespace kiln
