// SPDX-License-Identifier: Apache-2.0
// A tensor of a network definition: a network input, or one output of a layer. The object is both the ITensor the
// application holds and the graph node the builder walks. Its type and shape are an input's own; for a layer
// output they come from the producing layer's kind when asked (see Layer::kindOutputType / kindOutputDims).
#pragma once

#include "network/params.h"

#include "NvInfer.h"

#include <array>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>

namespace kiln
{

class Layer;
class Network;

//! Every TensorFormat: the default of ITensor::getAllowedFormats().
inline constexpr nvinfer1::TensorFormats kAllTensorFormats
    = (1U << static_cast<uint32_t>(nvinfer1::EnumMax<nvinfer1::TensorFormat>())) - 1U;

//! A tensor of a network. Owned by the network.
class Tensor final : public nvinfer1::ITensor
{
public:
    //! A network input.
    Tensor(Network& network, std::string name, DataType type, Dims const& dims);
    //! Output outputIndex of producer.
    Tensor(Network& network, std::string name, Layer& producer, int32_t outputIndex);
    ~Tensor() noexcept override = default;

    Network& network() const noexcept { return mNetwork; }
    std::string const& name() const noexcept { return mName; }
    //! An input's type; for a layer output the producer's requested output type, else the type its kind gives.
    DataType type() const noexcept;
    //! An input's shape; for a layer output what the producer's kind knows without symbolic inference.
    Dims dims() const noexcept;
    //! Forgets the shape and type computed for this tensor and every tensor computed from it: they are computed
    //! again when next asked. Layer::outputsChanged and the input's own setters call it.
    void shapeChanged() const noexcept;
    //! Forgets this tensor's own computed shape and type (Network::forgetComputedShapes walks the readers).
    void forgetComputed() const noexcept;
    Layer* producer() const noexcept { return mProducer; }
    int32_t producerOutput() const noexcept { return mOutputIndex; }
    bool isInput() const noexcept { return mIsInput; }
    bool isOutput() const noexcept { return mIsOutput; }
    bool isShapeOutput() const noexcept { return mIsShapeOutput; }
    bool isDebug() const noexcept { return mIsDebug; }
    nvinfer1::TensorFormats allowedFormats() const noexcept { return mAllowedFormats; }
    nvinfer1::TensorLocation location() const noexcept { return mLocation; }
    //! The range set with setDynamicRange(), if any.
    std::optional<std::pair<float, float>> dynamicRange() const noexcept;
    //! The name of extent index of an input, or nullptr.
    char const* dimensionName(int32_t index) const noexcept;

    // Changes the network makes.
    void setOutputRole(bool output, bool shapeOutput) noexcept;
    void setDebug(bool debug) noexcept { mIsDebug = debug; }
    void setRemoved() noexcept { mRemoved = true; }
    //! Marks the tensor as read by a layer (it stays marked: a sign that computed shapes may depend on it).
    void markRead() const noexcept { mEverRead = true; }
    //! Whether a layer has ever read the tensor; when not, nothing computed from it can be cached.
    bool everRead() const noexcept { return mEverRead; }
    bool removed() const noexcept { return mRemoved; }

private:
    //! What the inline ITensor methods call.
    class Impl final : public nvinfer1::apiv::VTensor
    {
    public:
        explicit Impl(Tensor& tensor)
            : mTensor(tensor)
        {
        }
        void setName(char const* name) noexcept override;
        char const* getName() const noexcept override;
        void setDimensions(Dims const& dimensions) noexcept override;
        Dims getDimensions() const noexcept override;
        void setType(DataType type) noexcept override;
        DataType getType() const noexcept override;
        bool setDynamicRange(float min, float max) noexcept override;
        bool isNetworkInput() const noexcept override;
        bool isNetworkOutput() const noexcept override;
        void setBroadcastAcrossBatch(bool broadcastAcrossBatch) noexcept override;
        bool getBroadcastAcrossBatch() const noexcept override;
        nvinfer1::TensorLocation getLocation() const noexcept override;
        void setLocation(nvinfer1::TensorLocation location) noexcept override;
        bool dynamicRangeIsSet() const noexcept override;
        void resetDynamicRange() noexcept override;
        float getDynamicRangeMin() const noexcept override;
        float getDynamicRangeMax() const noexcept override;
        void setAllowedFormats(nvinfer1::TensorFormats formats) noexcept override;
        nvinfer1::TensorFormats getAllowedFormats() const noexcept override;
        bool isShapeTensor() const noexcept override;
        bool isExecutionTensor() const noexcept override;
        void setDimensionName(int32_t index, char const* name) noexcept override;
        char const* getDimensionName(int32_t index) const noexcept override;

    private:
        //! Reports an invalid argument: "ITensor::<method>: tensor "<name>": parts".
        template <typename... Parts>
        void fail(char const* method, Parts const&... parts) const noexcept;

        Tensor& mTensor;
    };

    Impl mImplObject{*this};
    Network& mNetwork;
    std::string mName;
    Layer* mProducer{};
    int32_t mOutputIndex{-1};
    DataType mType{DataType::kFLOAT}; //!< Inputs only.
    Dims mDims{kUnsetDims};           //!< Inputs only.
    // A layer output's type and shape, computed once from the producer (each query of a whole model would otherwise
    // walk every path to the inputs: exponential in the number of residual branches). shapeChanged() forgets them.
    mutable std::optional<DataType> mComputedType;
    mutable std::optional<Dims> mComputedDims;
    bool mIsInput{};
    bool mIsOutput{};
    bool mIsShapeOutput{};
    bool mIsDebug{};
    bool mRemoved{};
    mutable bool mEverRead{};
    nvinfer1::TensorFormats mAllowedFormats{kAllTensorFormats};
    nvinfer1::TensorLocation mLocation{nvinfer1::TensorLocation::kDEVICE};
    bool mHasDynamicRange{};
    float mDynamicRangeMin{};
    float mDynamicRangeMax{};
    std::array<std::optional<std::string>, Dims::MAX_DIMS> mDimensionNames{};
};

//! Whether tensor's values are used to compute shapes (a shape output, a shape input of a layer, or an input of a
//! layer that computes shape values for one).
bool isShapeTensor(Tensor const& tensor);

//! The tensors of network for which isShapeTensor holds, found in one walk (a call per tensor walks the graph each
//! time).
std::unordered_set<Tensor const*> shapeTensors(Network const& network);

//! Whether tensor's values are needed when the engine runs (an output, or data of a layer that runs).
bool isExecutionTensor(Tensor const& tensor);

} // namespace kiln
