// SPDX-License-Identifier: Apache-2.0
#include "network/tensor.h"

#include "network/layer.h"
#include "network/network.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>
#include <vector>

namespace kiln
{

using nvinfer1::ErrorCode;

Tensor::Tensor(Network& network, std::string name, DataType type, Dims const& dims)
    : mNetwork(network)
    , mName(std::move(name))
    , mType(type)
    , mDims(dims)
    , mIsInput(true)
{
    mImpl = &mImplObject;
}

Tensor::Tensor(Network& network, std::string name, Layer& producer, int32_t outputIndex)
    : mNetwork(network)
    , mName(std::move(name))
    , mProducer(&producer)
    , mOutputIndex(outputIndex)
{
    mImpl = &mImplObject;
}

DataType Tensor::type() const noexcept
{
    if (mProducer == nullptr)
    {
        return mType;
    }
    if (!mComputedType)
    {
        auto const requested = mProducer->requestedOutputType(mOutputIndex);
        mComputedType = requested ? *requested : mProducer->kindOutputType(mOutputIndex);
    }
    return *mComputedType;
}

Dims Tensor::dims() const noexcept
{
    if (mProducer == nullptr)
    {
        return mDims;
    }
    if (!mComputedDims)
    {
        mComputedDims = mProducer->kindOutputDims(mOutputIndex);
    }
    return *mComputedDims;
}

void Tensor::shapeChanged() const noexcept
{
    mNetwork.forgetComputedShapes(*this);
}

void Tensor::forgetComputed() const noexcept
{
    mComputedType.reset();
    mComputedDims.reset();
}

std::optional<std::pair<float, float>> Tensor::dynamicRange() const noexcept
{
    if (!mHasDynamicRange)
    {
        return std::nullopt;
    }
    return std::make_pair(mDynamicRangeMin, mDynamicRangeMax);
}

char const* Tensor::dimensionName(int32_t index) const noexcept
{
    if (index < 0 || index >= Dims::MAX_DIMS || !mDimensionNames[static_cast<std::size_t>(index)])
    {
        return nullptr;
    }
    return mDimensionNames[static_cast<std::size_t>(index)]->c_str();
}

void Tensor::setOutputRole(bool output, bool shapeOutput) noexcept
{
    mIsOutput = output;
    mIsShapeOutput = output && shapeOutput;
}

template <typename... Parts>
void Tensor::Impl::fail(char const* method, Parts const&... parts) const noexcept
{
    mTensor.mNetwork.reporter().error(
        ErrorCode::kINVALID_ARGUMENT, "ITensor::", method, ": tensor ", quotedText(mTensor.mName), ": ", parts...);
}

void Tensor::Impl::setName(char const* name) noexcept
{
    if (name == nullptr)
    {
        fail("setName", "the name is null");
        return;
    }
    mTensor.mNetwork.reporter().guard("ITensor::setName", 0, [&] {
        std::string newName{name};
        if ((mTensor.mIsInput || mTensor.mIsOutput) && mTensor.mNetwork.isIOName(newName, &mTensor))
        {
            fail("setName", "another network input or output is already called ", quotedText(name),
                "; the names of inputs and outputs must be unique");
            return 0;
        }
        mTensor.mName = std::move(newName);
        return 0;
    });
}

char const* Tensor::Impl::getName() const noexcept
{
    return mTensor.mName.c_str();
}

void Tensor::Impl::setDimensions(Dims const& dimensions) noexcept
{
    if (!mTensor.mIsInput)
    {
        fail("setDimensions",
            "only network inputs have their dimensions set; the shapes of other tensors are "
            "inferred");
        return;
    }
    if (dimensions.nbDims < 0 || dimensions.nbDims > Dims::MAX_DIMS)
    {
        fail("setDimensions", "the dimensions have rank ", dimensions.nbDims, "; a shape has 0 to ", Dims::MAX_DIMS,
            " dimensions");
        return;
    }
    for (int32_t i = 0; i < dimensions.nbDims; ++i)
    {
        if (dimensions.d[i] < -1)
        {
            fail("setDimensions", "extent ", i, " of ", dimensions, " is ", dimensions.d[i],
                "; extents are -1 (set at run time) or at least 0");
            return;
        }
    }
    mTensor.mDims = dimensions;
    mTensor.shapeChanged();
}

Dims Tensor::Impl::getDimensions() const noexcept
{
    return mTensor.dims();
}

void Tensor::Impl::setType(DataType type) noexcept
{
    if (!isValidEnum(type))
    {
        fail("setType", "data type ", type, " is not a valid DataType");
        return;
    }
    if (mTensor.mIsInput)
    {
        mTensor.mType = type;
        mTensor.shapeChanged();
        return;
    }
    if (mTensor.mNetwork.isStronglyTyped())
    {
        fail("setType",
            "not allowed in a strongly typed network (kSTRONGLY_TYPED) for a tensor that is not a "
            "network input: its type follows from its layer; use a cast layer");
        return;
    }
    mTensor.mProducer->setOutputType(mTensor.mOutputIndex, type);
}

DataType Tensor::Impl::getType() const noexcept
{
    return mTensor.type();
}

bool Tensor::Impl::setDynamicRange(float min, float max) noexcept
{
    if (mTensor.mNetwork.isStronglyTyped())
    {
        fail("setDynamicRange", "not allowed in a strongly typed network (kSTRONGLY_TYPED); quantize explicitly");
        return false;
    }
    if (std::isnan(min) || std::isnan(max) || min > max)
    {
        fail("setDynamicRange", "the range [", static_cast<double>(min), ", ", static_cast<double>(max),
            "] is empty or not a number");
        return false;
    }
    mTensor.mHasDynamicRange = true;
    mTensor.mDynamicRangeMin = min;
    mTensor.mDynamicRangeMax = max;
    return true;
}

bool Tensor::Impl::isNetworkInput() const noexcept
{
    return mTensor.mIsInput;
}

bool Tensor::Impl::isNetworkOutput() const noexcept
{
    return mTensor.mIsOutput;
}

void Tensor::Impl::setBroadcastAcrossBatch(bool /*broadcastAcrossBatch*/) noexcept
{
    // No implicit batch dimension in TensorRT 10: the call has no effect.
}

bool Tensor::Impl::getBroadcastAcrossBatch() const noexcept
{
    return false;
}

nvinfer1::TensorLocation Tensor::Impl::getLocation() const noexcept
{
    return mTensor.mLocation;
}

void Tensor::Impl::setLocation(nvinfer1::TensorLocation location) noexcept
{
    if (!isValidEnum(location))
    {
        fail("setLocation", "location ", location, " is not a valid TensorLocation");
        return;
    }
    mTensor.mLocation = location;
}

bool Tensor::Impl::dynamicRangeIsSet() const noexcept
{
    return mTensor.mHasDynamicRange;
}

void Tensor::Impl::resetDynamicRange() noexcept
{
    mTensor.mHasDynamicRange = false;
}

float Tensor::Impl::getDynamicRangeMin() const noexcept
{
    return mTensor.mHasDynamicRange ? mTensor.mDynamicRangeMin : std::numeric_limits<float>::quiet_NaN();
}

float Tensor::Impl::getDynamicRangeMax() const noexcept
{
    return mTensor.mHasDynamicRange ? mTensor.mDynamicRangeMax : std::numeric_limits<float>::quiet_NaN();
}

void Tensor::Impl::setAllowedFormats(nvinfer1::TensorFormats formats) noexcept
{
    if (formats == 0 || (formats & ~kAllTensorFormats) != 0)
    {
        fail("setAllowedFormats", "format mask ", formats, " is not a non-empty set of TensorFormat bits (mask ",
            kAllTensorFormats, ")");
        return;
    }
    mTensor.mAllowedFormats = formats;
}

nvinfer1::TensorFormats Tensor::Impl::getAllowedFormats() const noexcept
{
    return mTensor.mAllowedFormats;
}

bool Tensor::Impl::isShapeTensor() const noexcept
{
    return mTensor.mNetwork.reporter().guard(
        "ITensor::isShapeTensor", false, [&] { return kiln::isShapeTensor(mTensor); });
}

bool Tensor::Impl::isExecutionTensor() const noexcept
{
    return mTensor.mNetwork.reporter().guard(
        "ITensor::isExecutionTensor", false, [&] { return kiln::isExecutionTensor(mTensor); });
}

void Tensor::Impl::setDimensionName(int32_t index, char const* name) noexcept
{
    if (!mTensor.mIsInput)
    {
        fail("setDimensionName", "only the extents of network inputs can be named");
        return;
    }
    if (index < 0 || index >= mTensor.mDims.nbDims)
    {
        fail("setDimensionName", "extent index ", index, " is out of range for dimensions ", mTensor.mDims);
        return;
    }
    mTensor.mNetwork.reporter().guard("ITensor::setDimensionName", 0, [&] {
        auto& slot = mTensor.mDimensionNames[static_cast<std::size_t>(index)];
        if (name == nullptr)
        {
            slot.reset();
        }
        else
        {
            slot = std::string{name};
        }
        return 0;
    });
}

char const* Tensor::Impl::getDimensionName(int32_t index) const noexcept
{
    if (index < 0 || index >= std::max(mTensor.dims().nbDims, 0))
    {
        fail("getDimensionName", "extent index ", index, " is out of range for dimensions ", mTensor.dims());
        return nullptr;
    }
    return mTensor.dimensionName(index);
}

namespace
{

//! Which roles a tensor's values play: computing shapes, and running the engine. Memoised over one query.
class RoleAnalysis
{
public:
    explicit RoleAnalysis(Network const& network)
    {
        for (auto const& layer : network.layers())
        {
            for (std::size_t i = 0; i < layer->inputs().size(); ++i)
            {
                if (layer->inputs()[i] != nullptr)
                {
                    mConsumers[layer->inputs()[i]].emplace_back(layer.get(), static_cast<int32_t>(i));
                }
            }
        }
    }

    bool shape(Tensor const& tensor)
    {
        if (auto found = mShape.find(&tensor); found != mShape.end())
        {
            return found->second;
        }
        mShape[&tensor] = false;
        bool result = tensor.isShapeOutput();
        for (auto const& [layer, index] : consumers(tensor))
        {
            result = result || layer->isShapeInput(index) || (forwardsValues(*layer) && anyOutput(*layer, true));
        }
        return mShape[&tensor] = result;
    }

    bool execution(Tensor const& tensor)
    {
        if (auto found = mExecution.find(&tensor); found != mExecution.end())
        {
            return found->second;
        }
        mExecution[&tensor] = false;
        bool result = tensor.isOutput() && !tensor.isShapeOutput();
        for (auto const& [layer, index] : consumers(tensor))
        {
            if (layer->isShapeInput(index) || layer->type() == LayerType::kSHAPE)
            {
                continue; // read for its shape or its shape values only
            }
            result = result || !layer->computesShapeValues() || anyOutput(*layer, false);
        }
        return mExecution[&tensor] = result;
    }

private:
    std::vector<std::pair<Layer*, int32_t>> const& consumers(Tensor const& tensor) const
    {
        static std::vector<std::pair<Layer*, int32_t>> const kNone;
        auto const found = mConsumers.find(&tensor);
        return found == mConsumers.end() ? kNone : found->second;
    }

    static bool forwardsValues(Layer const& layer) noexcept
    {
        return layer.computesShapeValues() && layer.type() != LayerType::kSHAPE;
    }

    bool anyOutput(Layer const& layer, bool shapeRole)
    {
        for (Tensor const* output : layer.outputs())
        {
            if (shapeRole ? shape(*output) : execution(*output))
            {
                return true;
            }
        }
        return false;
    }

    std::unordered_map<Tensor const*, std::vector<std::pair<Layer*, int32_t>>> mConsumers;
    std::unordered_map<Tensor const*, bool> mShape;
    std::unordered_map<Tensor const*, bool> mExecution;
};

} // namespace

bool isShapeTensor(Tensor const& tensor)
{
    return RoleAnalysis{tensor.network()}.shape(tensor);
}

std::unordered_set<Tensor const*> shapeTensors(Network const& network)
{
    RoleAnalysis roles{network};
    std::unordered_set<Tensor const*> result;
    for (auto const& tensor : network.tensors())
    {
        if (roles.shape(*tensor))
        {
            result.insert(tensor.get());
        }
    }
    return result;
}

bool isExecutionTensor(Tensor const& tensor)
{
    return RoleAnalysis{tensor.network()}.execution(tensor);
}

} // namespace kiln
