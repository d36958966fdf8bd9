// SPDX-License-Identifier: Apache-2.0
// The executor: how an engine runs. Two types, one per phase (style.md: build phase and run phase are separate):
//
// - EngineProgram is an EngineModel prepared once, when the engine is made: its shape expressions rebuilt as DimExpr
//   nodes, the stage at which each expression becomes known, the I/O tensors indexed by name, and every check that
//   does not depend on run-time values. It is read-only afterwards and shared by all contexts of the engine, so
//   contexts may run on different threads at once.
// - Executor belongs to one execution context: its backend, the buffers of tensors sized at run time, and the shapes
//   it evaluated last. It runs the layers in order on what the context has set (Bindings).
//
//     std::unique_ptr<EngineProgram const> program = EngineProgram::load(std::move(model)).value();
//     Executor executor(*program, makeHostBackend());
//     Status done = executor.run(bindings, ActivationMemory{block, blockBytes}, stream);   // error names the tensor
//
// Symbols and stages. Every extent is an expression over symbols. Input extents (kINPUT_EXTENT) come from
// setInputShape; values of input shape tensors (kSHAPE_VALUE of a network input) are read from the host memory at
// the input's address; both are known before the first layer runs (stage kBeforeExecution). A kSHAPE_VALUE symbol
// of a tensor a layer makes, and a kSIZE_TENSOR symbol, is known once that layer has run (stage = the layer's index):
// the executor reads the value (kINT32 or kINT64) from the tensor then. kSIZE_TENSOR symbols are plugins' size tensors
// and the counts that non-zero and NMS layers write (a non-zero layer's count is a hidden output of its own); the
// outputs that wait for them are placed at their upper bounds and shrunk once the layer has run. An expression's
// stage is the latest stage of its symbols; a tensor whose shape has a stage other than kBeforeExecution has a
// data-dependent shape.
//
// Memory. Tensors with an offset in the profile live in the activation block at that offset; other internal
// tensors get buffers the executor owns, sized from their evaluated shape when their layer runs; I/O tensors live at
// the addresses the application set, or, for outputs with an IOutputAllocator, in the memory the allocator returns
// (reallocateOutputAsync before the layer that makes the output runs, notifyShape after).
//
// Branches. The layers of an if-conditional's branches (runtime/branches.h) run only when the condition chose their
// branch: the condition layer copies the 0-D kBOOL condition to the host (its output is read only there: on a CUDA
// engine, a copy to the host and one stream synchronisation), the executor reads it before each layer under a branch,
// and skips the layers of the branch not taken; the output layers copy the chosen branch's value. An output whose
// extents differ between the branches has them as expressions of the condition's value (a data-dependent shape).
//
// Loops. A loop's layers are consecutive (plan/loops.h) and run as one block: the trip count (kCOUNT, read on the
// host) and the recurrences' initial values are read first; each iteration slices the iterators' inputs (the slice
// kernel), runs the layers a kWHILE condition depends on and reads the condition on the host (a CUDA engine copies it
// and synchronises once per iteration), runs the body, writes each concatenating output's slice of the iteration
// (axis 0 directly, another axis into a stack that the shuffle kernel transposes after the last iteration) and copies
// every recurrence's next value into its second buffer, then swaps the two (double buffering: one recurrence may
// read another's current value). A kLAST_VALUE output copies its recurrence's value after the last iteration.
//
// Placement (CUDA engines). Layers run on the GPU and tensors live in device memory, except what the host must read:
// values read as parameters (a reshape's dimensions, a slice's start: InputUse::kVALUES), values that bind symbols
// (data-dependent shapes), and shape tensors the application gives or takes in host memory. A layer runs on the
// host backend when it is a Shape layer (it reads only extents) or when every output is read only on the host, decided
// from the last layer back, so shape arithmetic stays on the host as in TensorRT. A tensor read on the other side
// from where it is written gets a mirror there, copied once its layer has run; a copy to the host is followed by one
// stream synchronisation. Engines without data-dependent shapes never synchronise inside enqueueV3.
// Host engines have everything on the host and no mirrors.
//
// Shape values (runtime/shape_values.h). Layers whose outputs depend only on constants, input extents and input shape
// tensors, and that the host reads (as values, symbols, or data of other such layers), that run on the host anyway
// (a Shape layer whose result only the device reads), or (other than constants) whose outputs are at most
// kPrecomputedBytes at every profile's kMAX inputs, are precomputed: they run on
// the host once per set of input shapes (at setInputShape, through prepareShapeValues, or at the first run after the
// inputs changed), into memory the executor keeps, and are skipped by later runs. Their device copies are written once
// per set too, from that kept host memory (a constant's device copy is the engine's device weights): an enqueueV3
// after the first one for a set of shapes queues no copy at all, and one that does copy (in a CUDA graph's capture)
// reads memory that stays valid and unchanged until the shapes change. A CUDA engine without data-dependent shapes
// therefore never copies to the host inside enqueueV3, and is capturable in a CUDA graph.
//
// Debug tensors (TensorRecord::isDebug). The context says which to observe and its IDebugListener
// (observeDebugTensors); right after the layer that makes an observed one runs (a precomputed layer counts as run, its
// values kept), the listener gets the tensor's memory where the layer wrote it (device memory on the device, host
// memory on the host, TensorLocation saying which), its type, its shape in this run, its name and the run's stream; it
// is not synchronised first, as with TensorRT. A layer of a loop's body hands its tensor once per iteration; a loop's
// boundary layers and layers of a branch not taken hand nothing. A listener that returns false fails the run.
//
// Replay (executor_replay.cpp). Launching a CUDA engine's layers costs host time per layer (argument checks, library
// calls: about 10 us each), which at small batches is longer than the GPU's work. So a CUDA engine whose layers are
// all capturable records them in a CUDA graph of its own and later runs launch that graph: when the same inputs
// (profile, shapes, shape tensor values), I/O addresses and activation memory come a second time in a row, the run
// goes directly as usual and then the layers are captured once more from the run's stream (nothing runs during a
// capture, and nothing is allocated: the direct run just sized every buffer); each later run with them launches the
// graph on its stream. A run with anything else drops the graph. Capturable: a CUDA engine without plugin layers (an
// application's enqueue may do what a graph cannot hold), loops, if-conditionals, data-dependent shapes or tensors
// copied to the host while the layers run, and a run on a stream other than the legacy default one (which cannot be
// captured), without a profiler (per-layer times), output allocators, or a capture of the application's own in
// progress on the stream. A capture that fails (a layer
// error, a call a capture refuses, an allocation in the graph) turns replay off for the context, said once at
// kVERBOSE; KILN_ENQUEUE_GRAPH=0 in the environment turns it off for every context.
#pragma once

#include "backends/backend.h"
#include "core/error.h"
#include "core/shape_expr.h"
#include "plan/engine_model.h"
#include "plan/loops.h"
#include "runtime/branches.h"

#include "NvInferRuntime.h"

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

struct CUgraphExec_st; // cudaGraphExec_t's type, as CUDA declares it

namespace kiln
{

class ContextPlugins;

using SymbolValues = std::map<SymbolId, int64_t>;

//! The alignment of activation memory and of the buffers the executor owns and asks output allocators for.
inline constexpr int64_t kActivationAlignment = 256;

//! The two places memory and layers live in a CUDA engine; a host engine has only the host.
enum class Side : uint8_t
{
    kHOST,
    kDEVICE,
};

//! Where each layer runs and each tensor lives in an engine (see "Placement" above).
struct Placement
{
    std::vector<Side> layers;      //!< Per layer: the host backend, or the engine's.
    std::vector<Side> tensors;     //!< Per tensor: where it is written.
    std::vector<uint8_t> mirrored; //!< Per tensor: also read on the other side (copied there once written).
    //! Per layer: computes values from input shapes alone that the host reads (runtime/shape_values.h): it runs on the
    //! host once per set of input shapes, and its outputs (and their device copies) are kept for later enqueues.
    std::vector<uint8_t> precomputed;
};

//! A CUDA engine's layer that computes values from input shapes alone, read only by the device, is computed on the
//! host (once per set of input shapes, then copied) when no output of it is larger than this at the profiles' kMAX.
inline constexpr int64_t kPrecomputedBytes = int64_t{256} << 10;

//! The placement of model's layers and tensors: everything on the host for a host engine. bytesAtMax holds each
//! tensor's largest size over the optimization profiles' kMAX inputs (-1 where not known before execution; empty: none
//! known), which decides which of the values from input shapes alone the host computes (see "Shape values" above).
Placement placeLayers(EngineModel const& model, std::vector<int64_t> const& bytesAtMax = {});

//! The stage of an expression known before any layer runs.
inline constexpr int32_t kBeforeExecution = -1;

//! Bytes of a tensor of type and shape: an error for a shape that is not concrete or whose size overflows.
Expected<int64_t> tensorBytes(nvinfer1::DataType type, nvinfer1::Dims const& dims);

//! "Row major linear FP32 format (kLINEAR)": how TensorRT describes a linear tensor's layout.
std::string linearFormatDescription(nvinfer1::DataType type);

//! An engine model prepared to run. Immutable once loaded.
class EngineProgram
{
public:
    //! One I/O tensor.
    struct IoTensor
    {
        int32_t tensor{kNoTensor};
        bool isInput{};
        bool dataDependent{}; //!< An output with an extent known only once some layer has run.
        //! A data-dependent output whose extents depend only on input shapes and size tensors: an address of
        //! a buffer of the size tensors' upper bound will do instead of an IOutputAllocator.
        bool upperBounded{};
        std::string formatDescription;
    };

    //! One input's range in one profile, with 32-bit copies of its shape values for getProfileTensorValues.
    struct ProfileInput
    {
        ProfileRecord::Input const* record{};
        std::array<std::vector<int32_t>, 3> values32; //!< Indexed by OptProfileSelector.
    };

    //! Prepares model. An error for a model that is not consistent, a plan for a backend other than the host, or a
    //! layer whose output shape depends on values the layer itself computes, unless it is a layer that makes size
    //! tensors (a plugin, a non-zero or an NMS layer: its outputs are then placed at the size tensors' upper bounds).
    static Expected<std::unique_ptr<EngineProgram const>> load(EngineModel&& model);

    EngineModel const& model() const noexcept { return mModel; }
    ExprContext const& exprs() const noexcept { return mExprs; }

    //! The node of expression record index.
    DimExpr const& node(uint32_t record) const { return *mNodes.at(record); }

    //! When expression record index is known: kBeforeExecution, or the index of the layer after which it is.
    int32_t stage(uint32_t record) const { return mStages.at(record); }

    //! The symbol node of model symbol index (its SymbolId is index).
    DimExpr const& symbolNode(uint32_t symbol) const { return *mSymbolNodes.at(symbol); }

    //! The I/O tensors, in ICudaEngine's order.
    std::span<IoTensor const> ioTensors() const noexcept { return mIo; }

    //! The I/O position of the tensor named name, or -1.
    int32_t ioPosition(std::string_view name) const noexcept;

    //! The I/O position of tensor index, or -1.
    int32_t ioPositionOfTensor(int32_t tensor) const noexcept;

    //! The debug tensors (TensorRecord::isDebug), in the model's order.
    std::span<int32_t const> debugTensors() const noexcept { return mDebugTensors; }

    //! The position in debugTensors() of the debug tensor named name, or -1.
    int32_t debugPosition(std::string_view name) const noexcept;

    //! Input position's range in profile (position < nbInputs, profile valid).
    ProfileInput const& profileInput(int32_t profile, int32_t position) const;

    //! The symbols bound once layer index has run.
    std::span<uint32_t const> symbolsBoundBy(int32_t layer) const { return mBoundBy.at(static_cast<size_t>(layer)); }

    //! The assertions that can be checked at stage (kBeforeExecution or a layer index).
    std::span<uint32_t const> assertionsAt(int32_t stage) const
    {
        return mAssertionsAt.at(static_cast<size_t>(stage + 1));
    }

    //! The shape of tensor as far as it is known before run time: constant extents, -1 for the others.
    nvinfer1::Dims staticShape(int32_t tensor) const;

    //! Whether every extent of tensor is a constant.
    bool hasStaticShape(int32_t tensor) const;

    //! The tensor's shape with the symbols in values: extents whose expression cannot be evaluated (a symbol
    //! without a value, a division by zero) are -1.
    nvinfer1::Dims knownShape(int32_t tensor, SymbolValues const& values) const;

    //! The tensor whose memory tensor lives in (itself unless a plugin writes it in place of an input).
    int32_t aliasRoot(int32_t tensor) const { return mAliasRoots.at(static_cast<std::size_t>(tensor)); }
    //! Whether layer is a reshape whose output is a view of its input's memory: it runs nothing
    //! (LayerRecord::viewsInput).
    bool reshapeView(int32_t layer) const { return mReshapeViews.at(static_cast<std::size_t>(layer)) != 0; }

    //! The total size of the weights.
    int64_t weightBytes() const noexcept { return mWeightBytes; }

    //! Whether the engine runs on the CUDA backend (its activations and non-shape I/O in device memory).
    bool onDevice() const noexcept { return mModel.backend == PlanBackend::kCUDA; }

    //! Where layer index runs: on the host backend, or on the engine's backend (see "Placement" above).
    Side layerSide(int32_t layer) const { return mLayerSides.at(static_cast<std::size_t>(layer)); }

    //! Where tensor index is written: by its layer's side, or for a network input where the application gives it.
    Side tensorSide(int32_t tensor) const { return mTensorSides.at(static_cast<std::size_t>(tensor)); }

    //! Whether tensor index is also read on the other side, so that the executor copies it there once written.
    bool mirrored(int32_t tensor) const { return mMirrored.at(static_cast<std::size_t>(tensor)) != 0; }

    //! Whether layer index runs on the host once per set of input shapes (Placement::precomputed).
    bool precomputed(int32_t layer) const { return mPrecomputed.at(static_cast<std::size_t>(layer)) != 0; }

    //! The branches of the engine's if-conditionals (runtime/branches.h): which layers run under which condition.
    Branches const& branches() const noexcept { return mBranches; }

    //! The engine's loops (plan/loops.h); each block's members are consecutive layers.
    Loops const& loops() const noexcept { return mLoops; }

    //! Where the application gives I/O tensor index: host memory for shape tensors and on the host backend.
    Side ioSide(int32_t tensor) const
    {
        return onDevice() && !mModel.tensors.at(static_cast<std::size_t>(tensor)).isShapeTensor ? Side::kDEVICE
                                                                                                : Side::kHOST;
    }

private:
    EngineProgram() = default;

    Expected<bool> prepare();
    //! Refuses an activation block larger than the profile's tensors can use, and a device memory size that is not
    //! the largest block.
    Expected<bool> checkActivationBlocks() const;
    void place();

    EngineModel mModel;
    ExprContext mExprs;
    std::vector<DimExpr const*> mSymbolNodes;
    std::vector<DimExpr const*> mNodes;
    std::vector<int32_t> mStages;
    std::vector<IoTensor> mIo;
    std::unordered_map<std::string, int32_t> mIoByName;
    std::vector<int32_t> mIoOfTensor;
    std::vector<int32_t> mDebugTensors;
    std::vector<std::vector<ProfileInput>> mProfileInputs; //!< [profile][input position].
    std::vector<std::vector<uint32_t>> mBoundBy;           //!< Per layer.
    std::vector<std::vector<uint32_t>> mAssertionsAt;      //!< Per stage + 1.
    int64_t mWeightBytes{};
    std::vector<int32_t> mAliasRoots;
    std::vector<Side> mLayerSides;
    std::vector<Side> mTensorSides;
    std::vector<uint8_t> mMirrored;
    std::vector<uint8_t> mReshapeViews;
    std::vector<uint8_t> mPrecomputed;
    Branches mBranches;
    Loops mLoops;
};

//! What an execution context has set, as the executor reads it. Indexed by I/O position.
struct Bindings
{
    int32_t profile{};
    std::vector<nvinfer1::Dims> shapes; //!< Inputs' shapes; nbDims == -1 while not set. Outputs unused.
    std::vector<void*> addresses;
    std::vector<nvinfer1::IOutputAllocator*> allocators;
};

//! The symbols the inputs give, and what is still missing.
struct InputState
{
    SymbolValues values;
    //! I/O positions of the inputs that are not fully given: no shape, or a shape tensor without an address.
    std::vector<int32_t> missing;
    //! The first input shape-tensor value outside the profile's range, or one that cannot be read.
    std::optional<std::string> problem;
};

//! Binds the symbols known before execution from what bindings give. Symbols of inputs not yet given stay unbound.
InputState bindInputs(EngineProgram const& program, Bindings const& bindings);

//! A block of memory aligned to kActivationAlignment, owned: host memory, or device memory from a GPU allocator.
class MemoryBlock
{
public:
    //! device: the allocator of device memory; null for host memory.
    explicit MemoryBlock(nvinfer1::IGpuAllocator* device = nullptr) noexcept
        : mData(nullptr, Free{device})
    {
    }
    MemoryBlock(MemoryBlock&&) noexcept = default;
    MemoryBlock& operator=(MemoryBlock&&) noexcept = default;
    MemoryBlock(MemoryBlock const&) = delete;
    MemoryBlock& operator=(MemoryBlock const&) = delete;
    //! Frees device memory in the order of the default stream: the application's stream may be gone by then (it must
    //! only have finished the context's work, as with TensorRT).
    ~MemoryBlock() { release(nullptr); }
    //! At least bytes bytes; keeps the current block when it is large enough. Throws std::bad_alloc. Device memory is
    //! freed and allocated in the order of stream (a smaller block is freed in the order of the stream it was last
    //! given for, since the work queued there may still read it).
    void reserve(int64_t bytes, cudaStream_t stream = nullptr);
    std::byte* data() const noexcept { return mData.get(); }
    int64_t size() const noexcept { return mSize; }
    bool onDevice() const noexcept { return mData.get_deleter().device != nullptr; }
    //! Frees the block in the order of stream.
    void release(cudaStream_t stream = nullptr) noexcept
    {
        mData.get_deleter().stream = stream;
        mData.reset();
        mSize = 0;
    }

private:
    struct Free
    {
        nvinfer1::IGpuAllocator* device{};
        cudaStream_t stream{}; //!< The stream the block was last given for.
        void operator()(std::byte* p) const noexcept;
    };
    std::unique_ptr<std::byte, Free> mData;
    int64_t mSize{};
};

//! The activation block a run uses.
struct ActivationMemory
{
    std::byte* base{};
    int64_t bytes{};
};

//! Runs one context's enqueues. Not thread-safe: one per context.
class Executor
{
public:
    //! plugins: the context's plugins (attachToContext clones), or null for an engine without plugin layers.
    //! device: the allocator of the device memory a CUDA engine's executor owns (null for a host engine).
    Executor(EngineProgram const& program, std::unique_ptr<Backend> backend,
        std::unique_ptr<ContextPlugins> plugins = nullptr, nvinfer1::IGpuAllocator* device = nullptr);
    ~Executor();

    //! Runs every layer. The error says what is missing or failed and names the tensor, layer or assertion; the
    //! caller adds the API method.
    host::Status run(Bindings const& bindings, ActivationMemory memory, cudaStream_t stream);

    //! Checks what enqueue checks before running (every input given and within the profile, every assertion that
    //! the inputs decide), and evaluates the shapes they decide. Used by inferShapes.
    host::Status prepareShapes(Bindings const& bindings);

    //! Computes the shape values (Placement::precomputed) for what bindings give now, when every input is given, so
    //! that the next enqueue finds them ready (IExecutionContext::setInputShape). An error for inputs not all given or
    //! outside the profile (the caller ignores it: enqueue reports it). A CUDA engine's device copies are reserved
    //! here and written by the next run, on its stream.
    host::Status prepareShapeValues(Bindings const& bindings);

    //! How many times the precomputed layers ran: once per set of input shapes, not once per run.
    int64_t shapeValueRuns() const noexcept { return mShapeValueRuns; }

    //! The shape of every tensor after the last run or prepareShapes (-1 where not evaluated).
    std::span<nvinfer1::Dims const> shapes() const noexcept { return mShapes; }

    //! Times each layer of a CUDA engine with CUDA events on the run's stream (the context has a profiler): the GPU's
    //! time from the layer's first queued work to the next layer's. Off by default (the host's time per layer).
    void timeOnDevice(bool enabled) noexcept;

    //! Hands debug tensor debugTensors()[i] of the program to listener after the layer that makes it runs, for each
    //! on[i] != 0 (IExecutionContext::setTensorDebugState); a null listener hands none. A listener that returns false
    //! (or throws) fails the run, naming the tensor. Runs that hand tensors run the layers directly (no replay).
    void observeDebugTensors(nvinfer1::IDebugListener* listener, std::span<uint8_t const> on);

    //! Milliseconds each layer took in the last run. With timeOnDevice, waits for the run's last event first (a
    //! failure leaves the times 0).
    std::span<float const> layerTimes() noexcept;

private:
    //! What the inputs decide (evaluateStatic), skipped when bindings give what the last call was given: the same
    //! profile, input shapes and input shape tensor values.
    host::Status prepareInputs(Bindings const& bindings);
    bool sameInputs(Bindings const& bindings) const;
    void rememberInputs(Bindings const& bindings);
    //! Runs the precomputed layers on the host into memory the executor keeps, and places their device copies
    //! (executor_shape_values.cpp). Device memory is reserved in the order of stream.
    host::Status computeShapeValues(Bindings const& bindings, cudaStream_t stream);
    //! Queues the copies of the shape values the device reads and computeShapeValues left to copy.
    host::Status uploadShapeValues(cudaStream_t stream);
    host::Status evaluateStatic(Bindings const& bindings);
    host::Status checkAssertions(int32_t stage, SymbolValues const& values) const;
    host::Status completeShape(int32_t tensor, SymbolValues const& values);
    //! The symbol values with layer's size tensors at their upper bounds, or nullopt when it declares none.
    Expected<std::optional<SymbolValues>> upperBoundValues(int32_t layer) const;
    //! The dims a plugin's descriptor of output tensor shows: -1 for extents that wait for layer's size tensors.
    nvinfer1::Dims descriptorDims(int32_t tensor, int32_t layer) const;
    //! After layer bound its size tensors: its outputs' real shapes, within the upper bounds they were placed at.
    host::Status shrinkToValues(LayerRecord const& layer);
    host::Status placeOutput(int32_t tensor, Bindings const& bindings, ActivationMemory memory, cudaStream_t stream);
    host::Status bindSymbolsOf(int32_t layer);
    //! Memory for I/O tensor position of bytes bytes: the application's address, or its output allocator's.
    Expected<void*> ioMemory(int32_t position, int64_t bytes, Bindings const& bindings, cudaStream_t stream);
    //! The bytes tensor takes at its current shape.
    Expected<int64_t> currentBytes(int32_t tensor) const;
    //! Places tensor's copy on the other side and queues the copy; copiedToHost is set for a copy to the host.
    host::Status mirror(int32_t tensor, Bindings const& bindings, cudaStream_t stream, bool& copiedToHost);
    //! The view of tensor on side: where it is written, or its mirror.
    host::HostTensor const& viewOn(int32_t tensor, Side side) const;
    //! Whether the layers under branch node run in this run: every condition from the outermost in chose its side.
    bool branchTaken(int32_t node) const;
    //! Waits for the stream when a copy to the host is pending (pending is cleared).
    host::Status synchronize(bool& pending, cudaStream_t stream);
    //! Runs layer l (not a loop's boundary layer): places its outputs, runs it, mirrors and binds what it made.
    host::Status runLayerAt(
        std::size_t l, Bindings const& bindings, ActivationMemory memory, cudaStream_t stream, bool& copiedToHost);
    //! Hands the debug tensors layer made that are observed to the debug listener (observeDebugTensors).
    host::Status reportDebugTensors(LayerRecord const& layer, cudaStream_t stream) const;
    //! Runs the layers in order (after run() prepared the inputs and shape values).
    host::Status runLayers(Bindings const& bindings, ActivationMemory memory, cudaStream_t stream, bool& copiedToHost);
    //! Replay (file comment): launches the graph of these bindings when there is one, else runs the layers directly
    //! and captures them when these bindings came twice in a row. nullopt when replay does not apply (the caller runs
    //! the layers).
    std::optional<host::Status> replayLayers(Bindings const& bindings, ActivationMemory memory, cudaStream_t stream);
    //! Whether the program's layers can be captured (file comment, "Replay"), decided once.
    bool capturableProgram() const;
    //! Captures the layers from stream into a new graph (mReplay.graph); false when the capture failed.
    bool captureLayers(Bindings const& bindings, ActivationMemory memory, cudaStream_t stream);
    //! Runs a loop's block until a trip limit stops it (executor_loops.cpp).
    host::Status runLoop(LoopBlock const& loop, Bindings const& bindings, ActivationMemory memory, cudaStream_t stream,
        bool& copiedToHost);
    //! Copies bytes from one buffer to another, both in side's memory (in stream's order on the device).
    host::Status copyOnSide(void* to, void const* from, int64_t bytes, Side side, cudaStream_t stream);
    //! Places the output of a loop's boundary layer (its shape completed); its mirror, if any, is made later.
    host::Status placeBoundaryOutput(
        int32_t tensor, Bindings const& bindings, ActivationMemory memory, cudaStream_t stream);
    //! After tensor was written: its copy on the other side, where it has one.
    host::Status refreshMirror(int32_t tensor, Bindings const& bindings, cudaStream_t stream, bool& copiedToHost);

    EngineProgram const& mProgram;
    std::unique_ptr<Backend> mBackend;
    std::unique_ptr<ContextPlugins> mPlugins;
    std::optional<SymbolValues> mStaticValues; //!< The input symbols mStaticShapes were evaluated with.
    std::vector<nvinfer1::Dims> mStaticShapes; //!< Per tensor: extents known before execution, -1 for the others.
    SymbolValues mValues;                      //!< Every symbol bound during the current run.
    std::vector<nvinfer1::Dims> mShapes;       //!< Per tensor, during and after a run.
    std::vector<host::HostTensor> mViews;      //!< Per tensor, during a run.
    std::unique_ptr<Backend> mHostBackend;     //!< A CUDA engine's host-side layers.
    std::vector<MemoryBlock> mOwned;           //!< Per tensor: buffers of tensors outside the activation block.
    std::vector<host::HostTensor> mMirrors;    //!< Per tensor: its copy on the other side, where mirrored.
    std::vector<MemoryBlock> mMirrorOwned;     //!< Per tensor: the memory of its mirror.
    //! Per tensor: a loop's second buffer, on the tensor's side: a recurrence's next value, or the stacked iterations
    //! of a concatenating loop output whose axis is not 0.
    std::vector<MemoryBlock> mLoopBuffers;
    std::vector<host::HostTensor const*> mScratchInputs; //!< runLayerAt's views, kept to reuse their storage.
    std::vector<host::HostTensor> mScratchOutputs;
    std::vector<nvinfer1::Dims> mScratchDims;
    std::vector<void*> mAllocated; //!< Per I/O position: memory the output allocator last returned.
    std::vector<float> mLayerTimes;
    //! Per layer: a constant whose output the executor points at the engine's device weights instead of running it.
    std::vector<bool> mWeightsConstants;
    //! timeOnDevice: one event before each layer and one after the last, recorded by the last run.
    std::vector<cudaEvent_t> mLayerEvents;
    bool mTimeOnDevice{};
    bool mEventsRecorded{};
    nvinfer1::IDebugListener* mDebugListener{}; //!< Set while some debug tensor is observed; else null.
    std::vector<uint8_t> mDebugObserved;        //!< Per tensor: handed to mDebugListener once written.
    //! Per layer, per input: the side the layer reads it on (values on the host, shapes where written, data where the
    //! layer runs).
    std::vector<std::vector<Side>> mInputSides;
    //! Per layer: the device weights a weights constant reads (mWeightsConstants), or null.
    std::vector<void const*> mConstantData;
    std::vector<int32_t> mPrecomputedLayers; //!< Placement::precomputed, in order.
    std::vector<int32_t> mShapeTensorInputs; //!< I/O positions of the input shape tensors.
    //! What prepareInputs was last given: the profile, the input shapes and the input shape tensors' bytes.
    struct InputKey
    {
        int32_t profile{-1};
        std::vector<nvinfer1::Dims> shapes;
        std::vector<std::vector<std::byte>> values; //!< Per mShapeTensorInputs entry.
    };
    InputKey mInputKey;
    bool mInputsKnown{};                  //!< mInputKey holds inputs that evaluated without error.
    bool mShapeValuesReady{};             //!< The precomputed layers' outputs hold the values of mInputKey's inputs.
    bool mValuesExtended{};               //!< mValues has symbols bound during the last run besides mStaticValues.
    std::vector<int32_t> mPendingUploads; //!< Shape value tensors whose device copy is still to be written.
    int64_t mShapeValueRuns{};
    cudaStream_t mLastStream{};  //!< The stream of the last run, for memory reserved between runs.
    int64_t mInputsGeneration{}; //!< Counts the changes of mInputKey.

    //! What a graph of the layers was captured for: the inputs (mInputsGeneration), I/O addresses and activation
    //! memory. Compared and rewritten in place on every run (its address list keeps its storage): inputs -1 matches
    //! no run.
    struct ReplayKey
    {
        int64_t inputs{-1};
        std::vector<void*> addresses;
        std::byte* memory{};
        int64_t memoryBytes{};
        bool matches(int64_t generation, Bindings const& bindings, ActivationMemory const& block) const
        {
            return inputs == generation && memory == block.base && memoryBytes == block.bytes
                && addresses == bindings.addresses;
        }
        void assign(int64_t generation, Bindings const& bindings, ActivationMemory const& block)
        {
            inputs = generation;
            addresses.assign(bindings.addresses.begin(), bindings.addresses.end());
            memory = block.base;
            memoryBytes = block.bytes;
        }
    };
    //! Replay's state (file comment): the key of the last direct run, the graph and its key.
    struct Replay
    {
        bool capturable{}; //!< capturableProgram(), and not turned off by the environment.
        bool refused{};    //!< A capture failed: the layers run directly from now on.
        ReplayKey lastDirect;
        ReplayKey captured;
        CUgraphExec_st* graph{}; //!< cudaGraphExec_t.
    };
    Replay mReplay;
    //! Destroys the replay graph (a run with other bindings may move the buffers it reads).
    void dropReplayGraph() noexcept;
};

} // namespace kiln
