// SPDX-License-Identifier: Apache-2.0
// Loops (ILoop) and their boundary layers: trip limits (kTRIP_LIMIT), recurrences (kRECURRENCE), iterators
// (kITERATOR) and outputs (kLOOP_OUTPUT). The layers of the body are ordinary layers.
//
// What kiln checks: at most one trip limit of each kind, a kCOUNT limit a 0-D kINT32 or kINT64 tensor and a kWHILE
// limit a 0-D kBOOL one; an iterator's axis within its input's rank; a kLAST_VALUE output reads a recurrence of the
// same loop; a kCONCATENATE or kREVERSE output has its length (input 1) and an axis within [0, rank]; a recurrence has
// its next value (input 1), of the initial value's type and shape. Loops nested in loops are refused at build time.
#include "core/data_type.h"
#include "network/checks.h"
#include "network/network.h"
#include "network/shape_rules.h"

namespace kiln
{

namespace
{

//! The part of the four boundary kinds' descriptors they share.
class LoopBoundaryKind : public nvinfer1::apiv::VLoopBoundaryLayer, public KindBase
{
public:
    using KindBase::KindBase;

protected:
    template <typename P>
    nvinfer1::ILoop* loop() const noexcept
    {
        return mLayer.network().loop(mLayer.paramsAs<P>().loop);
    }
};

//! The shape of in without axis.
Dims withoutAxis(Dims const& in, int32_t axis) noexcept
{
    if (in.nbDims <= 0 || axis < 0 || axis >= in.nbDims)
    {
        return kUnsetDims;
    }
    Dims out{in.nbDims - 1, {}};
    for (int32_t i = 0, j = 0; i < in.nbDims; ++i)
    {
        if (i != axis)
        {
            out.d[j++] = in.d[i];
        }
    }
    return out;
}

} // namespace

template <>
class KindImpl<LayerType::kTRIP_LIMIT> final : public nvinfer1::apiv::VTripLimitLayer, public LoopBoundaryKind
{
public:
    using LoopBoundaryKind::LoopBoundaryKind;

    nvinfer1::ILoop* getLoop() const noexcept override { return loop<TripLimitParams>(); }
    nvinfer1::TripLimit getTripLimit() const noexcept override { return mLayer.paramsAs<TripLimitParams>().kind; }

    //! A count is read for its value.
    bool isShapeInput(int32_t index) const noexcept
    {
        return index == 0 && mLayer.paramsAs<TripLimitParams>().kind == nvinfer1::TripLimit::kCOUNT;
    }
    DataType outputType(int32_t /*index*/) const noexcept { return DataType::kFLOAT; }
    Dims outputDims(int32_t /*index*/) const noexcept { return kUnsetDims; }
};

template <>
class KindImpl<LayerType::kRECURRENCE> final : public nvinfer1::apiv::VRecurrenceLayer, public LoopBoundaryKind
{
public:
    using LoopBoundaryKind::LoopBoundaryKind;

    nvinfer1::ILoop* getLoop() const noexcept override { return loop<RecurrenceParams>(); }

    //! Input 1, the next value, is set after the layer is made.
    int32_t inputCapacity() const noexcept { return 2; }
    DataType outputType(int32_t /*index*/) const noexcept { return inputType(0); }
    Dims outputDims(int32_t /*index*/) const noexcept { return inputDims(0); }
};

template <>
class KindImpl<LayerType::kITERATOR> final : public nvinfer1::apiv::VIteratorLayer, public LoopBoundaryKind
{
public:
    using LoopBoundaryKind::LoopBoundaryKind;

    nvinfer1::ILoop* getLoop() const noexcept override { return loop<IteratorParams>(); }
    void setAxis(int32_t axis) noexcept override { edit().axis = axis; }
    int32_t getAxis() const noexcept override { return p().axis; }
    void setReverse(bool reverse) noexcept override { edit().reverse = reverse; }
    bool getReverse() const noexcept override { return p().reverse; }

    DataType outputType(int32_t /*index*/) const noexcept { return inputType(0); }
    Dims outputDims(int32_t /*index*/) const noexcept { return withoutAxis(inputDims(0), p().axis); }

private:
    IteratorParams const& p() const noexcept { return mLayer.paramsAs<IteratorParams>(); }
    //! The parameters, to change: the layer's outputs are then computed again (Layer::editParams).
    IteratorParams& edit() noexcept { return mLayer.editParams<IteratorParams>(); }
};

template <>
class KindImpl<LayerType::kLOOP_OUTPUT> final : public nvinfer1::apiv::VLoopOutputLayer, public LoopBoundaryKind
{
public:
    using LoopBoundaryKind::LoopBoundaryKind;

    nvinfer1::ILoop* getLoop() const noexcept override { return loop<LoopOutputParams>(); }
    nvinfer1::LoopOutput getLoopOutput() const noexcept override { return p().kind; }
    void setAxis(int32_t axis) noexcept override { edit().axis = axis; }
    int32_t getAxis() const noexcept override { return p().axis; }

    //! Input 1, the length of a concatenation, is set after the layer is made and read for its value.
    int32_t inputCapacity() const noexcept { return 2; }
    bool isShapeInput(int32_t index) const noexcept { return index == 1; }
    DataType outputType(int32_t /*index*/) const noexcept { return inputType(0); }
    Dims outputDims(int32_t /*index*/) const noexcept
    {
        Dims const in = inputDims(0);
        if (p().kind == nvinfer1::LoopOutput::kLAST_VALUE || in.nbDims < 0)
        {
            return in;
        }
        if (p().axis < 0 || p().axis > in.nbDims || in.nbDims >= Dims::MAX_DIMS)
        {
            return kUnsetDims;
        }
        Dims out{in.nbDims + 1, {}};
        for (int32_t i = 0, j = 0; i < out.nbDims; ++i)
        {
            out.d[i] = i == p().axis ? -1 : in.d[j++];
        }
        return out;
    }

private:
    LoopOutputParams const& p() const noexcept { return mLayer.paramsAs<LoopOutputParams>(); }
    //! The parameters, to change: the layer's outputs are then computed again (Layer::editParams).
    LoopOutputParams& edit() noexcept { return mLayer.editParams<LoopOutputParams>(); }
};

// ---- Loop ---------------------------------------------------------------------------------------------------------

Loop::Loop(Network& network, int32_t index, std::string name)
    : mNetwork(network)
    , mIndex(index)
    , mName(std::move(name))
{
    mImpl = &mApi;
}

nvinfer1::IRecurrenceLayer* Loop::Api::addRecurrence(nvinfer1::ITensor& initialValue) noexcept
{
    constexpr char const* kWhere = "ILoop::addRecurrence";
    Loop& loop = mLoop;
    Network& network = loop.mNetwork;
    return network.reporter().guard(
        kWhere, static_cast<nvinfer1::IRecurrenceLayer*>(nullptr), [&]() -> nvinfer1::IRecurrenceLayer* {
            Tensor* initial = network.own(&initialValue, kWhere, "initial value");
            if (initial == nullptr)
            {
                return nullptr;
            }
            return &network.addLayer<LayerType::kRECURRENCE>({initial}, RecurrenceParams{loop.mIndex}, 1);
        });
}

nvinfer1::ITripLimitLayer* Loop::Api::addTripLimit(nvinfer1::ITensor& tensor, nvinfer1::TripLimit limit) noexcept
{
    constexpr char const* kWhere = "ILoop::addTripLimit";
    Loop& loop = mLoop;
    Network& network = loop.mNetwork;
    return network.reporter().guard(
        kWhere, static_cast<nvinfer1::ITripLimitLayer*>(nullptr), [&]() -> nvinfer1::ITripLimitLayer* {
            Tensor* value = network.own(&tensor, kWhere, "tensor");
            if (value == nullptr)
            {
                return nullptr;
            }
            if (!isValidEnum(limit))
            {
                return network.fail(
                    kWhere, "loop ", quotedText(loop.mName), ": the trip limit ", limit, " is not a TripLimit");
            }
            if (loop.tripLimit(limit) != nullptr)
            {
                return network.fail(kWhere, "loop ", quotedText(loop.mName), " already has a ",
                    limit == nvinfer1::TripLimit::kCOUNT ? "kCOUNT" : "kWHILE", " trip limit");
            }
            bool const count = limit == nvinfer1::TripLimit::kCOUNT;
            bool const typeOk = count ? isIndexType(value->type()) : value->type() == DataType::kBOOL;
            if (!typeOk || value->dims().nbDims > 0)
            {
                return network.fail(kWhere, "loop ", quotedText(loop.mName), ": the ", count ? "kCOUNT" : "kWHILE",
                    " limit ", quotedText(value->name()), " is ", dataTypeName(value->type()), " ", value->dims(),
                    count ? "; it must be a 0-D kINT32 or kINT64 tensor" : "; it must be a 0-D kBOOL tensor");
            }
            auto& layer = network.addLayer<LayerType::kTRIP_LIMIT>({value}, TripLimitParams{loop.mIndex, limit}, 0);
            loop.mTripLimits[static_cast<std::size_t>(limit)] = &layer;
            return &layer;
        });
}

nvinfer1::IIteratorLayer* Loop::Api::addIterator(nvinfer1::ITensor& tensor, int32_t axis, bool reverse) noexcept
{
    constexpr char const* kWhere = "ILoop::addIterator";
    Loop& loop = mLoop;
    Network& network = loop.mNetwork;
    return network.reporter().guard(
        kWhere, static_cast<nvinfer1::IIteratorLayer*>(nullptr), [&]() -> nvinfer1::IIteratorLayer* {
            Tensor* data = network.own(&tensor, kWhere, "tensor");
            if (data == nullptr)
            {
                return nullptr;
            }
            int32_t const rank = data->dims().nbDims;
            if (rank == 0 || (rank > 0 && (axis < 0 || axis >= rank)) || axis < 0)
            {
                return network.fail(kWhere, "loop ", quotedText(loop.mName), ": axis ", axis, " is out of range for ",
                    quotedText(data->name()), " ", data->dims(), "; an iterator takes an axis in [0, rank)");
            }
            return &network.addLayer<LayerType::kITERATOR>({data}, IteratorParams{loop.mIndex, axis, reverse}, 1);
        });
}

nvinfer1::ILoopOutputLayer* Loop::Api::addLoopOutput(
    nvinfer1::ITensor& tensor, nvinfer1::LoopOutput outputKind, int32_t axis) noexcept
{
    constexpr char const* kWhere = "ILoop::addLoopOutput";
    Loop& loop = mLoop;
    Network& network = loop.mNetwork;
    return network.reporter().guard(
        kWhere, static_cast<nvinfer1::ILoopOutputLayer*>(nullptr), [&]() -> nvinfer1::ILoopOutputLayer* {
            Tensor* value = network.own(&tensor, kWhere, "tensor");
            if (value == nullptr)
            {
                return nullptr;
            }
            if (!isValidEnum(outputKind))
            {
                return network.fail(
                    kWhere, "loop ", quotedText(loop.mName), ": the output kind ", outputKind, " is not a LoopOutput");
            }
            if (outputKind == nvinfer1::LoopOutput::kLAST_VALUE)
            {
                Layer const* producer = value->producer();
                bool const recurrence = producer != nullptr && producer->type() == LayerType::kRECURRENCE
                    && producer->paramsAs<RecurrenceParams>().loop == loop.mIndex;
                if (!recurrence)
                {
                    return network.fail(kWhere, "loop ", quotedText(loop.mName), ": a kLAST_VALUE output reads the ",
                        "output of a recurrence of the loop; ", quotedText(value->name()), " is not one");
                }
            }
            int32_t const rank = value->dims().nbDims;
            if (outputKind != nvinfer1::LoopOutput::kLAST_VALUE && (axis < 0 || (rank >= 0 && axis > rank)))
            {
                return network.fail(kWhere, "loop ", quotedText(loop.mName), ": axis ", axis, " is out of range for ",
                    quotedText(value->name()), " ", value->dims(), "; the new axis is in [0, rank]");
            }
            return &network.addLayer<LayerType::kLOOP_OUTPUT>(
                {value}, LoopOutputParams{loop.mIndex, outputKind, axis}, 1);
        });
}

void Loop::Api::setName(char const* name) noexcept
{
    Loop& loop = mLoop;
    if (name == nullptr)
    {
        loop.mNetwork.fail("ILoop::setName", "loop ", quotedText(loop.mName), ": the name is null");
        return;
    }
    loop.mNetwork.reporter().guard("ILoop::setName", 0, [&] {
        loop.mName = name;
        return 0;
    });
}

char const* Loop::Api::getName() const noexcept
{
    return mLoop.mName.c_str();
}

nvinfer1::ILoop* NetworkApi::addLoop() noexcept
{
    return mNetwork.reporter().guard("INetworkDefinition::addLoop", static_cast<nvinfer1::ILoop*>(nullptr), [&] {
        auto const index = static_cast<int32_t>(mNetwork.mLoops.size());
        mNetwork.mLoops.push_back(
            std::make_unique<Loop>(mNetwork, index, "(Unnamed Loop " + std::to_string(index) + ")"));
        return static_cast<nvinfer1::ILoop*>(mNetwork.mLoops.back().get());
    });
}

// ---- Shape rules (network/shape_rules.h) ----------------------------------------------------------------------------

Expected<std::vector<SymbolicTensor>> inferOutputShapes(TripLimitParams const& params, ShapeRuleContext& context)
{
    SymbolicTensor const& limit = context.input(0);
    if (!limit.present())
    {
        return context.error("input 0 (the limit) is missing");
    }
    bool const count = params.kind == nvinfer1::TripLimit::kCOUNT;
    bool const typeOk = count ? isIndexType(limit.type) : limit.type == DataType::kBOOL;
    if (!typeOk || limit.rank() != 0)
    {
        return context.error("the limit is ", dataTypeName(limit.type), " of rank ", limit.rank(),
            count ? "; a kCOUNT limit is a 0-D kINT32 or kINT64 tensor" : "; a kWHILE limit is a 0-D kBOOL tensor");
    }
    return context.finish({});
}

//! The current value: the initial value's type and shape (the next value, input 1, must have them too; the driver
//! checks it once the body is inferred). Its values change from iteration to iteration, so none are kept.
Expected<std::vector<SymbolicTensor>> inferOutputShapes(RecurrenceParams const& /*params*/, ShapeRuleContext& context)
{
    SymbolicTensor const& initial = context.input(0);
    if (!initial.present())
    {
        return context.error("input 0 (the initial value) is missing");
    }
    return context.finish({SymbolicTensor{initial.shape, std::nullopt, initial.type}});
}

Expected<std::vector<SymbolicTensor>> inferOutputShapes(IteratorParams const& params, ShapeRuleContext& context)
{
    SymbolicTensor const& data = context.input(0);
    if (!data.present())
    {
        return context.error("input 0 is missing");
    }
    if (params.axis < 0 || params.axis >= data.rank())
    {
        return context.error("axis ", params.axis, " is out of range for an input of rank ", data.rank());
    }
    SymbolicDims shape = *data.shape;
    shape.erase(shape.begin() + params.axis);
    return context.finish({SymbolicTensor{std::move(shape), std::nullopt, data.type}});
}

Expected<std::vector<SymbolicTensor>> inferOutputShapes(LoopOutputParams const& params, ShapeRuleContext& context)
{
    SymbolicTensor const& value = context.input(0);
    if (!value.present())
    {
        return context.error("input 0 is missing");
    }
    if (params.kind == nvinfer1::LoopOutput::kLAST_VALUE)
    {
        return context.finish({SymbolicTensor{value.shape, std::nullopt, value.type}});
    }
    SymbolicTensor const& length = context.input(1);
    if (!length.present())
    {
        return context.error("a kCONCATENATE or kREVERSE output needs its length: set input 1 (a 0-D kINT32 or kINT64 "
                             "shape tensor)");
    }
    if (!isIndexType(length.type) || length.rank() != 0 || !length.values || length.values->size() != 1)
    {
        return context.error("the length (input 1) is ", dataTypeName(length.type), " of rank ", length.rank(),
            "; it must be a 0-D kINT32 or kINT64 shape tensor");
    }
    if (params.axis < 0 || params.axis > value.rank() || value.rank() >= Dims::MAX_DIMS)
    {
        return context.error("axis ", params.axis, " is out of range for a value of rank ", value.rank(),
            "; the new axis is in [0, rank]");
    }
    SymbolicDims shape = *value.shape;
    shape.insert(shape.begin() + params.axis, length.values->front());
    return context.finish({SymbolicTensor{std::move(shape), std::nullopt, value.type}});
}

} // namespace kiln
