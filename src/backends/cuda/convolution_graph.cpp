// SPDX-License-Identifier: Apache-2.0
// The graph-API convolution (convolution_graph.h). The graph is a chain: the convolution of x and w (accumulating in
// float), then the bias addition, the residual addition and the ReLU where the problem has them. Every step but the
// last writes a float virtual tensor; the last writes y, so the real tensors are exactly those a run gives.
#include "backends/cuda/convolution_graph.h"
#include "backends/cuda/libraries.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>

namespace kiln::cuda
{

namespace
{

//! The graph's tensor ids: the real ones are the variant pack's.
enum TensorId : int64_t
{
    kX = 1,
    kW = 2,
    kBias = 3,
    kY = 4,
    kConvolved = 5,
    kBiased = 6,
    kResidual = 7,
    kSummed = 8,
};

#define KILN_CUDNN_GRAPH(call, what)                                                                                   \
    do                                                                                                                 \
    {                                                                                                                  \
        if (cudnnStatus_t const status_ = (call); status_ != CUDNN_STATUS_SUCCESS)                                     \
        {                                                                                                              \
            return cudnnFailure(status_, "convolution (cuDNN graph): " what);                                          \
        }                                                                                                              \
    } while (false)

Expected<BackendDescriptor> create(cudnnBackendDescriptorType_t type)
{
    cudnnBackendDescriptor_t descriptor{};
    KILN_CUDNN_GRAPH(cudnnBackendCreateDescriptor(type, &descriptor), "cudnnBackendCreateDescriptor");
    return BackendDescriptor(descriptor);
}

cudnnStatus_t setOne(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
    cudnnBackendAttributeType_t type, void const* value)
{
    return cudnnBackendSetAttribute(descriptor, name, type, 1, value);
}

cudnnStatus_t setDescriptor(
    cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name, BackendDescriptor const& value)
{
    cudnnBackendDescriptor_t const raw = value.get();
    return setOne(descriptor, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, &raw);
}

//! A finalized tensor descriptor.
Expected<BackendDescriptor> tensor(TensorId id, cudnnDataType_t type, int32_t rank, std::array<int64_t, 5> const& dims,
    std::array<int64_t, 5> const& strides, int64_t alignment, bool isVirtual)
{
    Expected<BackendDescriptor> made = create(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    if (!made)
    {
        return made;
    }
    cudnnBackendDescriptor_t const d = made.value().get();
    int64_t const uid = id;
    KILN_CUDNN_GRAPH(setOne(d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, &type), "tensor data type");
    KILN_CUDNN_GRAPH(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, rank, dims.data()),
        "tensor dimensions");
    KILN_CUDNN_GRAPH(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, rank, strides.data()),
        "tensor strides");
    KILN_CUDNN_GRAPH(setOne(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, &uid), "tensor id");
    KILN_CUDNN_GRAPH(setOne(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, &alignment), "tensor alignment");
    KILN_CUDNN_GRAPH(setOne(d, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, &isVirtual), "tensor virtual flag");
    KILN_CUDNN_GRAPH(cudnnBackendFinalize(d), "cudnnBackendFinalize (tensor)");
    return made;
}

//! A finalized point-wise operation: y = mode(x) or mode(x, b), computed in float.
Expected<BackendDescriptor> pointwise(cudnnPointwiseMode_t mode, BackendDescriptor const& x, BackendDescriptor const* b,
    BackendDescriptor const& y, std::vector<BackendDescriptor>& held)
{
    Expected<BackendDescriptor> function = create(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    if (!function)
    {
        return function;
    }
    cudnnDataType_t const precision = CUDNN_DATA_FLOAT;
    cudnnBackendDescriptor_t const f = function.value().get();
    KILN_CUDNN_GRAPH(setOne(f, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, &mode), "point-wise mode");
    KILN_CUDNN_GRAPH(
        setOne(f, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, &precision), "point-wise precision");
    KILN_CUDNN_GRAPH(cudnnBackendFinalize(f), "cudnnBackendFinalize (point-wise function)");

    Expected<BackendDescriptor> operation = create(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    if (!operation)
    {
        return operation;
    }
    cudnnBackendDescriptor_t const o = operation.value().get();
    KILN_CUDNN_GRAPH(
        setDescriptor(o, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, function.value()), "point-wise function");
    KILN_CUDNN_GRAPH(setDescriptor(o, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, x), "point-wise x");
    if (b != nullptr)
    {
        KILN_CUDNN_GRAPH(setDescriptor(o, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, *b), "point-wise b");
    }
    KILN_CUDNN_GRAPH(setDescriptor(o, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y), "point-wise y");
    KILN_CUDNN_GRAPH(cudnnBackendFinalize(o), "cudnnBackendFinalize (point-wise operation)");
    held.push_back(std::move(function.value()));
    return operation;
}

//! A finalized forward convolution y = conv(x, w), accumulating in float.
Expected<BackendDescriptor> convolution(GraphConvolutionProblem const& p, BackendDescriptor const& x,
    BackendDescriptor const& w, BackendDescriptor const& y, std::vector<BackendDescriptor>& held)
{
    Expected<BackendDescriptor> conv = create(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    if (!conv)
    {
        return conv;
    }
    cudnnBackendDescriptor_t const c = conv.value().get();
    cudnnDataType_t const compute = CUDNN_DATA_FLOAT;
    cudnnConvolutionMode_t const mode = CUDNN_CROSS_CORRELATION;
    int64_t const spatial = p.nbSpatial;
    KILN_CUDNN_GRAPH(setOne(c, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, &compute), "compute type");
    KILN_CUDNN_GRAPH(setOne(c, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, &mode), "mode");
    KILN_CUDNN_GRAPH(setOne(c, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, &spatial), "spatial rank");
    for (auto const& [name, values] : {std::pair{CUDNN_ATTR_CONVOLUTION_DILATIONS, &p.dilation},
             std::pair{CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, &p.stride},
             std::pair{CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, &p.pad},
             std::pair{CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, &p.pad}})
    {
        KILN_CUDNN_GRAPH(cudnnBackendSetAttribute(c, name, CUDNN_TYPE_INT64, spatial, values->data()), "window");
    }
    KILN_CUDNN_GRAPH(cudnnBackendFinalize(c), "cudnnBackendFinalize (convolution)");

    Expected<BackendDescriptor> operation = create(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    if (!operation)
    {
        return operation;
    }
    cudnnBackendDescriptor_t const o = operation.value().get();
    float const alpha = 1.F;
    float const beta = 0.F;
    KILN_CUDNN_GRAPH(setDescriptor(o, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, x), "convolution x");
    KILN_CUDNN_GRAPH(setDescriptor(o, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, w), "convolution w");
    KILN_CUDNN_GRAPH(setDescriptor(o, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, y), "convolution y");
    KILN_CUDNN_GRAPH(
        setDescriptor(o, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, conv.value()), "convolution descriptor");
    KILN_CUDNN_GRAPH(setOne(o, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, &alpha), "alpha");
    KILN_CUDNN_GRAPH(setOne(o, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, &beta), "beta");
    KILN_CUDNN_GRAPH(cudnnBackendFinalize(o), "cudnnBackendFinalize (convolution operation)");
    held.push_back(std::move(conv.value()));
    return operation;
}

//! The engine of a configuration.
Expected<BackendDescriptor> engineOf(BackendDescriptor const& config)
{
    Expected<BackendDescriptor> engine = create(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    if (!engine)
    {
        return engine.error();
    }
    cudnnBackendDescriptor_t raw = engine.value().get();
    int64_t count = 0;
    KILN_CUDNN_GRAPH(cudnnBackendGetAttribute(
                         config.get(), CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &count, &raw),
        "the configuration's engine");
    return engine;
}

//! A configuration's name (GraphConvolution::name): its engine's global index and its knob choices.
Expected<std::string> configurationName(BackendDescriptor const& config)
{
    Expected<BackendDescriptor> engine = engineOf(config);
    if (!engine)
    {
        return engine.error();
    }
    int64_t index = 0;
    int64_t count = 0;
    KILN_CUDNN_GRAPH(cudnnBackendGetAttribute(
                         engine.value().get(), CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &count, &index),
        "the engine's global index");
    int64_t knobs = 0;
    KILN_CUDNN_GRAPH(cudnnBackendGetAttribute(config.get(), CUDNN_ATTR_ENGINECFG_KNOB_CHOICES,
                         CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &knobs, nullptr),
        "the configuration's knob count");
    std::vector<BackendDescriptor> choices;
    std::vector<cudnnBackendDescriptor_t> raw;
    for (int64_t i = 0; i < knobs; ++i)
    {
        Expected<BackendDescriptor> choice = create(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR);
        if (!choice)
        {
            return choice.error();
        }
        raw.push_back(choice.value().get());
        choices.push_back(std::move(choice.value()));
    }
    if (knobs > 0)
    {
        KILN_CUDNN_GRAPH(cudnnBackendGetAttribute(config.get(), CUDNN_ATTR_ENGINECFG_KNOB_CHOICES,
                             CUDNN_TYPE_BACKEND_DESCRIPTOR, knobs, &count, raw.data()),
            "the configuration's knob choices");
        knobs = std::clamp<int64_t>(count, 0, knobs);
    }
    std::string name = "cudnn graph engine " + std::to_string(index) + " knobs";
    for (int64_t i = 0; i < knobs; ++i)
    {
        cudnnBackendKnobType_t type{};
        int64_t value = 0;
        cudnnBackendDescriptor_t const choice = raw[static_cast<std::size_t>(i)];
        KILN_CUDNN_GRAPH(
            cudnnBackendGetAttribute(choice, CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &count, &type),
            "a knob's type");
        KILN_CUDNN_GRAPH(
            cudnnBackendGetAttribute(choice, CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, 1, &count, &value),
            "a knob's value");
        name += (i == 0 ? " " : ",") + std::to_string(type) + "=" + std::to_string(value);
    }
    return name;
}

//! Whether kiln accepts an engine's numerical notes: its convolutions read the inputs as they are and accumulate in
//! float.
Expected<bool> acceptable(BackendDescriptor const& config)
{
    Expected<BackendDescriptor> engine = engineOf(config);
    if (!engine)
    {
        return engine.error();
    }
    cudnnBackendDescriptor_t const raw = engine.value().get();
    int64_t count = 0;
    std::array<cudnnBackendNumericalNote_t, CUDNN_NUMERICAL_NOTE_TYPE_COUNT> notes{};
    KILN_CUDNN_GRAPH(cudnnBackendGetAttribute(raw, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                         static_cast<int64_t>(notes.size()), &count, notes.data()),
        "the engine's numerical notes");
    count = std::clamp<int64_t>(count, 0, static_cast<int64_t>(notes.size()));
    return std::none_of(notes.begin(), notes.begin() + count, [](cudnnBackendNumericalNote_t note) {
        return note == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS
            || note == CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION;
    });
}

} // namespace

BackendDescriptor& BackendDescriptor::operator=(BackendDescriptor&& other) noexcept
{
    if (this != &other)
    {
        BackendDescriptor doomed(mDescriptor);
        mDescriptor = other.release();
    }
    return *this;
}

BackendDescriptor::~BackendDescriptor()
{
    if (mDescriptor != nullptr)
    {
        static_cast<void>(cudnnBackendDestroyDescriptor(mDescriptor));
    }
}

cudnnBackendDescriptor_t BackendDescriptor::release() noexcept
{
    return std::exchange(mDescriptor, nullptr);
}

Expected<std::unique_ptr<GraphConvolution>> GraphConvolution::make(
    cudnnHandle_t handle, GraphConvolutionProblem const& problem, std::size_t most)
{
    auto graph = std::unique_ptr<GraphConvolution>(new GraphConvolution());
    graph->mProblem = problem;
    GraphConvolutionProblem const& p = graph->mProblem;
    std::vector<BackendDescriptor>& parts = graph->mParts;
    std::vector<BackendDescriptor>& held = graph->mFunctions;
    int32_t const rank = p.nbSpatial + 2;
    int64_t const alignment = p.alignment;
    auto const keep = [&](Expected<BackendDescriptor> made) -> Expected<std::size_t> {
        if (!made)
        {
            return made.error();
        }
        parts.push_back(std::move(made.value()));
        return parts.size() - 1;
    };

    // The tensors: x, w, y, then the bias and the float intermediates where the graph has them.
    std::array<Expected<std::size_t>, 3> const real{
        keep(tensor(kX, p.type, rank, p.xDims, p.xStrides, alignment, false)),
        keep(tensor(kW, p.type, rank, p.wDims, p.wStrides, alignment, false)),
        keep(tensor(kY, p.type, rank, p.yDims, p.yStrides, alignment, false))};
    for (Expected<std::size_t> const& made : real)
    {
        if (!made)
        {
            return made.error();
        }
    }
    std::size_t const x = real[0].value();
    std::size_t const w = real[1].value();
    std::size_t const y = real[2].value();
    std::vector<std::size_t> operations;

    // The convolution, then the bias, the residual and the ReLU where the graph has them, each writing a float
    // intermediate but the last, which writes y.
    int const steps = 1 + (p.bias ? 1 : 0) + (p.residual ? 1 : 0) + (p.relu ? 1 : 0);
    int step = 0;
    auto const next = [&](TensorId intermediate) -> Expected<std::size_t> {
        ++step;
        if (step == steps)
        {
            return y;
        }
        return keep(tensor(intermediate, CUDNN_DATA_FLOAT, rank, p.yDims, p.yStrides, alignment, true));
    };
    Expected<std::size_t> result = next(kConvolved);
    if (!result)
    {
        return result.error();
    }
    Expected<std::size_t> const conv = keep(convolution(p, parts[x], parts[w], parts[result.value()], held));
    if (!conv)
    {
        return conv.error();
    }
    operations.push_back(conv.value());
    if (p.bias)
    {
        std::array<int64_t, 5> biasDims{};
        std::array<int64_t, 5> biasStrides{};
        std::fill_n(biasDims.begin(), rank, 1);
        std::fill_n(biasStrides.begin(), rank, p.yDims[1]);
        biasDims[1] = p.yDims[1];
        biasStrides[1] = 1;
        Expected<std::size_t> const bias = keep(tensor(kBias, p.type, rank, biasDims, biasStrides, alignment, false));
        if (!bias)
        {
            return bias.error();
        }
        std::size_t const in = result.value();
        result = next(kBiased);
        if (!result)
        {
            return result.error();
        }
        Expected<std::size_t> const add
            = keep(pointwise(CUDNN_POINTWISE_ADD, parts[in], &parts[bias.value()], parts[result.value()], held));
        if (!add)
        {
            return add.error();
        }
        operations.push_back(add.value());
    }
    if (p.residual)
    {
        Expected<std::size_t> const residual
            = keep(tensor(kResidual, p.type, rank, p.yDims, p.yStrides, alignment, false));
        if (!residual)
        {
            return residual.error();
        }
        std::size_t const in = result.value();
        result = next(kSummed);
        if (!result)
        {
            return result.error();
        }
        Expected<std::size_t> const add
            = keep(pointwise(CUDNN_POINTWISE_ADD, parts[in], &parts[residual.value()], parts[result.value()], held));
        if (!add)
        {
            return add.error();
        }
        operations.push_back(add.value());
    }
    if (p.relu)
    {
        std::size_t const in = result.value();
        result = next(kBiased);
        if (!result)
        {
            return result.error();
        }
        Expected<std::size_t> const relu
            = keep(pointwise(CUDNN_POINTWISE_RELU_FWD, parts[in], nullptr, parts[result.value()], held));
        if (!relu)
        {
            return relu.error();
        }
        operations.push_back(relu.value());
    }

    Expected<BackendDescriptor> made = create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    if (!made)
    {
        return made.error();
    }
    graph->mGraph = std::move(made.value());
    cudnnBackendDescriptor_t const g = graph->mGraph.get();
    std::vector<cudnnBackendDescriptor_t> ops;
    for (std::size_t const index : operations)
    {
        ops.push_back(parts[index].get());
    }
    KILN_CUDNN_GRAPH(setOne(g, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, &handle), "graph handle");
    KILN_CUDNN_GRAPH(cudnnBackendSetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                         static_cast<int64_t>(ops.size()), ops.data()),
        "graph operations");
    KILN_CUDNN_GRAPH(cudnnBackendFinalize(g), "cudnnBackendFinalize (operation graph)");

    // The heuristic's configurations, in its order.
    Expected<BackendDescriptor> heuristic = create(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    if (!heuristic)
    {
        return heuristic.error();
    }
    cudnnBackendDescriptor_t const h = heuristic.value().get();
    cudnnBackendHeurMode_t const mode = CUDNN_HEUR_MODE_A;
    KILN_CUDNN_GRAPH(setDescriptor(h, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph->mGraph), "heuristic graph");
    KILN_CUDNN_GRAPH(setOne(h, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, &mode), "heuristic mode");
    KILN_CUDNN_GRAPH(cudnnBackendFinalize(h), "cudnnBackendFinalize (engine heuristic)");
    int64_t available = 0;
    KILN_CUDNN_GRAPH(cudnnBackendGetAttribute(
                         h, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &available, nullptr),
        "the heuristic's result count");
    std::vector<BackendDescriptor> configs;
    std::vector<cudnnBackendDescriptor_t> raw;
    for (int64_t i = 0; i < available; ++i)
    {
        Expected<BackendDescriptor> config = create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
        if (!config)
        {
            return config.error();
        }
        raw.push_back(config.value().get());
        configs.push_back(std::move(config.value()));
    }
    int64_t returned = 0;
    if (available > 0)
    {
        KILN_CUDNN_GRAPH(cudnnBackendGetAttribute(h, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                             available, &returned, raw.data()),
            "the heuristic's results");
    }
    returned = std::clamp<int64_t>(returned, 0, available);
    for (int64_t i = 0; i < returned && graph->mTactics.size() < most; ++i)
    {
        BackendDescriptor& config = configs[static_cast<std::size_t>(i)];
        Expected<bool> const accepted = acceptable(config);
        Expected<std::string> name = configurationName(config);
        // The heuristic may list one engine configuration more than once: it is one tactic.
        bool const listed = name && std::any_of(graph->mTactics.begin(), graph->mTactics.end(), [&](Tactic const& t) {
            return t.name == name.value();
        });
        if (accepted && accepted.value() && name && !listed)
        {
            graph->mTactics.push_back(Tactic{std::move(config), std::move(name.value()), {}, 0, false});
        }
    }
    return graph;
}

Expected<std::size_t> GraphConvolution::prepare(cudnnHandle_t handle, std::size_t tactic)
{
    if (tactic >= mTactics.size())
    {
        return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
            "convolution (cuDNN graph): tactic " + std::to_string(tactic)
                + " is out of range: " + std::to_string(mTactics.size()) + " engine configurations"};
    }
    Tactic& t = mTactics[tactic];
    if (t.refused)
    {
        return cudnnFailure(CUDNN_STATUS_NOT_SUPPORTED, "convolution (cuDNN graph): cudnnBackendFinalize (plan)");
    }
    if (t.plan.get() != nullptr)
    {
        return t.workspaceBytes;
    }
    Expected<BackendDescriptor> made = create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    if (!made)
    {
        return made.error();
    }
    cudnnBackendDescriptor_t const plan = made.value().get();
    KILN_CUDNN_GRAPH(setOne(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, &handle), "plan handle");
    KILN_CUDNN_GRAPH(setDescriptor(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, t.config), "plan configuration");
    if (cudnnStatus_t const status = cudnnBackendFinalize(plan); status != CUDNN_STATUS_SUCCESS)
    {
        t.refused = true;
        return cudnnFailure(status, "convolution (cuDNN graph): cudnnBackendFinalize (plan)");
    }
    int64_t bytes = 0;
    int64_t count = 0;
    KILN_CUDNN_GRAPH(
        cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &count, &bytes),
        "the plan's workspace size");
    t.workspaceBytes = static_cast<std::size_t>(std::max<int64_t>(bytes, 0));
    t.plan = std::move(made.value());
    return t.workspaceBytes;
}

bool GraphConvolution::aligned(GraphConvolutionOperands const& operands) const noexcept
{
    auto const fits = [&](void const* pointer) {
        return reinterpret_cast<uintptr_t>(pointer) % static_cast<uintptr_t>(mProblem.alignment) == 0;
    };
    return fits(operands.x) && fits(operands.w) && fits(operands.y) && (!mProblem.bias || fits(operands.bias))
        && (!mProblem.residual || fits(operands.residual));
}

std::optional<Error> GraphConvolution::run(
    cudnnHandle_t handle, std::size_t tactic, GraphConvolutionOperands const& operands, void* workspace)
{
    if (tactic >= mTactics.size() || mTactics[tactic].plan.get() == nullptr)
    {
        return Error{nvinfer1::ErrorCode::kINTERNAL_ERROR,
            "convolution (cuDNN graph): tactic " + std::to_string(tactic) + " runs before it was prepared"};
    }
    std::array<void const*, 6> const used{operands.x, operands.w, mProblem.bias ? operands.bias : nullptr, operands.y,
        mProblem.residual ? operands.residual : nullptr, workspace};
    if (mPack.get() != nullptr && mPackTactic == tactic && mPackPointers == used)
    {
        KILN_CUDNN_GRAPH(cudnnBackendExecute(handle, mTactics[tactic].plan.get(), mPack.get()), "cudnnBackendExecute");
        return std::nullopt;
    }
    mPack = BackendDescriptor();
    std::array<int64_t, 5> ids{kX, kW, kY};
    std::array<void*, 5> pointers{const_cast<void*>(operands.x), const_cast<void*>(operands.w), operands.y};
    int64_t count = 3;
    for (auto const& [present, id, pointer] :
        {std::tuple{mProblem.bias, kBias, operands.bias}, std::tuple{mProblem.residual, kResidual, operands.residual}})
    {
        if (present)
        {
            ids[static_cast<std::size_t>(count)] = id;
            pointers[static_cast<std::size_t>(count)] = const_cast<void*>(pointer);
            ++count;
        }
    }
    Expected<BackendDescriptor> made = create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    if (!made)
    {
        return made.error();
    }
    cudnnBackendDescriptor_t const pack = made.value().get();
    KILN_CUDNN_GRAPH(
        cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, count, ids.data()),
        "variant pack ids");
    KILN_CUDNN_GRAPH(cudnnBackendSetAttribute(
                         pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, count, pointers.data()),
        "variant pack pointers");
    KILN_CUDNN_GRAPH(
        setOne(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, &workspace), "variant pack workspace");
    KILN_CUDNN_GRAPH(cudnnBackendFinalize(pack), "cudnnBackendFinalize (variant pack)");
    mPack = std::move(made.value());
    mPackTactic = tactic;
    mPackPointers = used;
    KILN_CUDNN_GRAPH(cudnnBackendExecute(handle, mTactics[tactic].plan.get(), pack), "cudnnBackendExecute");
    return std::nullopt;
}

#undef KILN_CUDNN_GRAPH

} // namespace kiln::cuda
