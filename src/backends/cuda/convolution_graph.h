// SPDX-License-Identifier: Apache-2.0
// A forward convolution through cuDNN's graph (backend) API, with its bias, a residual and ReLU fused in the same
// graph: y = relu(conv(x, w) + bias + residual), each part optional (the residual is a ResNet block's shortcut, of y's
// shape and layout). cuDNN's engine heuristics (mode A) list the engine configurations
// that run the graph, which include engines the legacy API (cudnnConvolutionForward) does not reach: runtime-fused
// ones and the architecture's newest tensor-core kernels. Each configuration becomes one tactic of the convolution
// (convolution.cpp); its execution plan is finalized on the tactic's first run (finalizing compiles some engines, so
// the configurations nobody runs cost nothing), and a configuration cuDNN then refuses is reported as refused, for the
// caller to run another tactic.
//
//     GraphConvolutionProblem problem{...};
//     Expected<std::unique_ptr<GraphConvolution>> graph = GraphConvolution::make(handle, problem, 8);
//     Expected<size_t> workspace = graph.value()->prepare(handle, tactic); // finalizes the plan once
//     std::optional<Error> failed = graph.value()->run(handle, tactic, {x, w, bias, y, residual}, workspaceMemory);
#pragma once

#include "core/error.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <cudnn.h>

namespace kiln::cuda
{

//! One convolution as the graph describes it. Extents are cuDNN's [N, C, spatial...] (a filter [K, C/G, spatial...]),
//! strides in elements, in whatever layout the memory has (NCHW or NHWC).
struct GraphConvolutionProblem
{
    cudnnDataType_t type{}; //!< Of x, w, bias and y; the convolution accumulates in float.
    int32_t nbSpatial{};    //!< 2 or 3.
    int32_t alignment{16};  //!< The byte alignment every pointer of a run has (run() checks it).
    std::array<int64_t, 5> xDims{};
    std::array<int64_t, 5> xStrides{};
    std::array<int64_t, 5> wDims{};
    std::array<int64_t, 5> wStrides{};
    std::array<int64_t, 5> yDims{};
    std::array<int64_t, 5> yStrides{};
    std::array<int64_t, 3> pad{}; //!< The same before and after each axis.
    std::array<int64_t, 3> stride{};
    std::array<int64_t, 3> dilation{};
    bool bias{};     //!< A bias per output map, [1, K, 1...] of type.
    bool residual{}; //!< A tensor of type with y's extents and strides, added after the bias.
    bool relu{};     //!< ReLU last.
};

//! The device memory of one run.
struct GraphConvolutionOperands
{
    void const* x{};
    void const* w{};
    void const* bias{}; //!< Read when the problem has a bias.
    void* y{};
    void const* residual{}; //!< Read when the problem has a residual.
};

//! A cuDNN backend descriptor, destroyed with its owner.
class BackendDescriptor
{
public:
    BackendDescriptor() = default;
    explicit BackendDescriptor(cudnnBackendDescriptor_t descriptor) noexcept
        : mDescriptor(descriptor)
    {
    }
    BackendDescriptor(BackendDescriptor&& other) noexcept
        : mDescriptor(other.release())
    {
    }
    BackendDescriptor& operator=(BackendDescriptor&& other) noexcept;
    BackendDescriptor(BackendDescriptor const&) = delete;
    BackendDescriptor& operator=(BackendDescriptor const&) = delete;
    ~BackendDescriptor();

    cudnnBackendDescriptor_t get() const noexcept { return mDescriptor; }
    cudnnBackendDescriptor_t release() noexcept;

private:
    cudnnBackendDescriptor_t mDescriptor{};
};

//! The graph of one problem, its engine configurations (the tactics) and their execution plans once finalized.
class GraphConvolution
{
public:
    //! The graph and the heuristic's configurations for problem, at most most of them, those whose numerical notes
    //! kiln accepts (no reduction in reduced precision, no down-converted inputs). An error when cuDNN cannot describe
    //! the graph; an empty list when no engine runs it.
    static Expected<std::unique_ptr<GraphConvolution>> make(
        cudnnHandle_t handle, GraphConvolutionProblem const& problem, std::size_t most);

    std::size_t size() const noexcept { return mTactics.size(); }
    //! The tactic's name: "cudnn graph engine <global index> knobs <type>=<value>,...", what identifies an engine
    //! configuration for one cuDNN version.
    std::string const& name(std::size_t tactic) const noexcept { return mTactics[tactic].name; }
    GraphConvolutionProblem const& problem() const noexcept { return mProblem; }

    //! Finalizes tactic's execution plan (once) and gives its workspace size in bytes; CUDNN_STATUS_NOT_SUPPORTED's
    //! error when cuDNN refuses it (then and on every later call).
    Expected<std::size_t> prepare(cudnnHandle_t handle, std::size_t tactic);
    //! Whether the pointers of operands have the alignment the graph was described with.
    bool aligned(GraphConvolutionOperands const& operands) const noexcept;
    //! Runs the prepared tactic on handle's stream with workspace (its prepare() size, may be null when 0). The
    //! variant pack (the pointers cuDNN reads) is made once and reused while the tactic and pointers stay the same,
    //! as they do from one enqueueV3 to the next: a run is then one cudnnBackendExecute.
    std::optional<Error> run(
        cudnnHandle_t handle, std::size_t tactic, GraphConvolutionOperands const& operands, void* workspace);

private:
    struct Tactic
    {
        BackendDescriptor config;
        std::string name;
        BackendDescriptor plan; //!< Finalized on the first prepare().
        std::size_t workspaceBytes{};
        bool refused{};
    };

    GraphConvolutionProblem mProblem{};
    BackendDescriptor mGraph;
    std::vector<BackendDescriptor> mParts;     //!< The tensors and operations the graph refers to.
    std::vector<BackendDescriptor> mFunctions; //!< The convolution and point-wise descriptors the operations use.
    std::vector<Tactic> mTactics;
    //! The variant pack of the last run, with the tactic and the pointers (x, w, bias, y, residual, workspace) it
    //! holds.
    BackendDescriptor mPack;
    std::size_t mPackTactic{};
    std::array<void const*, 6> mPackPointers{};
};

} // namespace kiln::cuda
