// SPDX-License-Identifier: Apache-2.0
// The workspace of an execution context's libraries (kernels.h: Libraries::workspace) on a real device: grown in
// stream order outside a capture, and grown while its stream is captured into an application's graph (an enqueueV3
// captured after a shape change without the run outside a capture that TensorRT asks for), where the block must not
// become the graph's and the old block must stay valid; and a request captured on another stream than the last plain
// run's, which must wait for that run inside the graph. Skipped without a usable GPU.
#include "backends/cuda/kernels.h"

#include "cuda_test_util.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace kiln::cuda::test
{
namespace
{

constexpr int64_t kMiB = int64_t{1} << 20;

//! CudaKernelTest's stream; each test makes the libraries it needs.
class CudaLibraries : public CudaKernelTest
{
protected:
    //! The workspace of bytes, asserted to be given.
    void* workspace(Libraries& libraries, int64_t bytes)
    {
        Expected<void*> const block = libraries.workspace(bytes, mStream);
        EXPECT_TRUE(block.ok()) << (block.ok() ? "" : block.error().message);
        return block.ok() ? block.value() : nullptr;
    }

    //! Whether bytes of block can be written and read back on the stream.
    bool holds(void* block, int64_t bytes, uint8_t value)
    {
        std::vector<uint8_t> back(static_cast<std::size_t>(bytes));
        return cudaMemsetAsync(block, value, back.size(), mStream) == cudaSuccess
            && cudaMemcpyAsync(back.data(), block, back.size(), cudaMemcpyDeviceToHost, mStream) == cudaSuccess
            && cudaStreamSynchronize(mStream) == cudaSuccess && back.front() == value && back.back() == value;
    }
};

//! The node types of graph.
std::vector<cudaGraphNodeType> nodeTypes(cudaGraph_t graph)
{
    size_t count = 0;
    EXPECT_EQ(cudaGraphGetNodes(graph, nullptr, &count), cudaSuccess);
    std::vector<cudaGraphNode_t> nodes(count);
    EXPECT_EQ(cudaGraphGetNodes(graph, nodes.data(), &count), cudaSuccess);
    std::vector<cudaGraphNodeType> types;
    for (cudaGraphNode_t node : nodes)
    {
        cudaGraphNodeType type{};
        EXPECT_EQ(cudaGraphNodeGetType(node, &type), cudaSuccess);
        types.push_back(type);
    }
    return types;
}

TEST_F(CudaLibraries, WorkspaceGrowsInStreamOrderAndKeepsASmallerRequestsBlock)
{
    Libraries libraries;
    void* const first = workspace(libraries, kMiB);
    ASSERT_NE(first, nullptr);
    EXPECT_TRUE(holds(first, kMiB, 1));
    EXPECT_EQ(workspace(libraries, kMiB / 2), first);
    void* const grown = workspace(libraries, 3 * kMiB);
    ASSERT_NE(grown, nullptr);
    EXPECT_TRUE(holds(grown, 3 * kMiB, 2));
}

TEST_F(CudaLibraries, WorkspaceGrownInsideACaptureIsNotTheGraphsAndTheOldBlockStays)
{
    Libraries libraries;
    void* const before = workspace(libraries, kMiB);
    ASSERT_NE(before, nullptr);
    ASSERT_TRUE(holds(before, kMiB, 1));

    // A capture in which the first request fits the old block and the second needs a larger one: both blocks are
    // used by the graph.
    cudaGraph_t graph{};
    ASSERT_EQ(cudaStreamBeginCapture(mStream, cudaStreamCaptureModeGlobal), cudaSuccess);
    void* const old = workspace(libraries, kMiB);
    bool const oldWritten = cudaMemsetAsync(old, 3, kMiB, mStream) == cudaSuccess;
    void* const grown = workspace(libraries, 8 * kMiB);
    bool const grownWritten = grown != nullptr && cudaMemsetAsync(grown, 4, 8 * kMiB, mStream) == cudaSuccess;
    cudaError_t const ended = cudaStreamEndCapture(mStream, &graph);
    ASSERT_EQ(ended, cudaSuccess) << cudaGetErrorString(ended) << ": the capture was invalidated";
    EXPECT_EQ(old, before);
    EXPECT_TRUE(oldWritten);
    ASSERT_NE(grown, nullptr);
    EXPECT_TRUE(grownWritten);
    for (cudaGraphNodeType const type : nodeTypes(graph))
    {
        EXPECT_NE(type, cudaGraphNodeTypeMemAlloc) << "the workspace became an allocation of the graph";
        EXPECT_NE(type, cudaGraphNodeTypeMemFree) << "the old workspace was freed in the graph";
    }

    // Replayed twice, then destroyed: both blocks stay the libraries'.
    cudaGraphExec_t exec{};
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    for (int32_t k = 0; k < 2; ++k)
    {
        ASSERT_EQ(cudaGraphLaunch(exec, mStream), cudaSuccess);
    }
    ASSERT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
    std::vector<uint8_t> back(8 * kMiB);
    ASSERT_EQ(cudaMemcpy(back.data(), grown, back.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(back.front(), 4);
    EXPECT_EQ(back.back(), 4);
    EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
    EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
    EXPECT_TRUE(holds(grown, 8 * kMiB, 5)) << "the grown block outlives the graph";
    EXPECT_TRUE(holds(before, kMiB, 6)) << "the old block is retired, not freed";

    // Outside a capture again: a smaller request keeps the block, a larger one grows past it in stream order.
    EXPECT_EQ(workspace(libraries, 2 * kMiB), grown);
    void* const again = workspace(libraries, 32 * kMiB);
    ASSERT_NE(again, nullptr);
    EXPECT_TRUE(holds(again, 32 * kMiB, 7));
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

//! Captures one request of bytes on stream (with a write into the block) and says whether the capture stayed valid;
//! the graph's node types in types.
bool captureRequest(Libraries& libraries, cudaStream_t stream, int64_t bytes, std::vector<cudaGraphNodeType>& types)
{
    cudaGraph_t graph{};
    if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) != cudaSuccess)
    {
        return false;
    }
    Expected<void*> const block = libraries.workspace(bytes, stream);
    bool const written
        = block.ok() && cudaMemsetAsync(block.value(), 9, static_cast<std::size_t>(bytes), stream) == cudaSuccess;
    cudaError_t const ended = cudaStreamEndCapture(stream, &graph);
    EXPECT_TRUE(block.ok()) << (block.ok() ? "" : block.error().message);
    EXPECT_EQ(ended, cudaSuccess) << cudaGetErrorString(ended);
    if (ended != cudaSuccess || !written)
    {
        static_cast<void>(cudaGetLastError());
        if (graph != nullptr)
        {
            static_cast<void>(cudaGraphDestroy(graph));
        }
        return false;
    }
    types = nodeTypes(graph);
    cudaGraphExec_t exec{};
    bool const ran = cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess
        && cudaGraphLaunch(exec, stream) == cudaSuccess && cudaStreamSynchronize(stream) == cudaSuccess;
    if (exec != nullptr)
    {
        static_cast<void>(cudaGraphExecDestroy(exec));
    }
    static_cast<void>(cudaGraphDestroy(graph));
    return ran;
}

//! A plain run on one stream, then a run captured on another (torch.cuda.graph captures on a stream of its own after
//! warm-up runs on the current one): the capture waits for the plain run's use of the block as an external event
//! node, whether the plain run ended (finishRun; its stream then destroyed) or not.
TEST_F(CudaLibraries, ARequestCapturedOnAnotherStreamWaitsForThePlainRunInTheGraph)
{
    for (bool const finished : {true, false})
    {
        Libraries libraries;
        cudaStream_t plain{};
        ASSERT_EQ(cudaStreamCreateWithFlags(&plain, cudaStreamNonBlocking), cudaSuccess);
        Expected<void*> const block = libraries.workspace(kMiB, plain);
        ASSERT_TRUE(block.ok()) << block.error().message;
        ASSERT_EQ(cudaMemsetAsync(block.value(), 1, kMiB, plain), cudaSuccess);
        if (finished)
        {
            libraries.finishRun(plain);
            ASSERT_EQ(cudaStreamDestroy(plain), cudaSuccess);
            plain = nullptr;
        }
        std::vector<cudaGraphNodeType> types;
        EXPECT_TRUE(captureRequest(libraries, mStream, kMiB, types)) << (finished ? "after finishRun" : "mid-run");
        EXPECT_NE(std::find(types.begin(), types.end(), cudaGraphNodeTypeWaitEvent), types.end())
            << "the graph does not wait for the plain run's work on the block";
        EXPECT_TRUE(holds(block.value(), kMiB, 2));
        if (plain != nullptr)
        {
            EXPECT_EQ(cudaStreamSynchronize(plain), cudaSuccess);
            EXPECT_EQ(cudaStreamDestroy(plain), cudaSuccess);
        }
    }
}

} // namespace
} // namespace kiln::cuda::test
