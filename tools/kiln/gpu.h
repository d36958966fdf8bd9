// SPDX-License-Identifier: Apache-2.0
// The CUDA runtime calls the kiln tool makes for CUDA engines (device and pinned memory, a stream, events, a CUDA
// graph), each wrapped so that a failure is a Failure naming the call. The tool built without the CUDA toolkit
// (KILN_TOOL_CUDA unset) keeps the same interface: unusableReason() says why, and the rest throws; host engines need
// none of it.
//
//     if (std::string const why = gpu::unusableReason(); !why.empty()) ...   // no CUDA engines here
//     gpu::Stream stream;
//     gpu::DeviceMemory memory(bytes);
//     gpu::copyAsync(memory.get(), host, bytes, gpu::Direction::kHOST_TO_DEVICE, stream);
#pragma once

#include "NvInferRuntime.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace kiln_tool::gpu
{

//! Empty when a CUDA device can be used here; else why not (no CUDA in this build, no device, no driver).
std::string unusableReason();

//! Makes device current and returns its name.
std::string selectDevice(int32_t device);

//! The calling thread's current device (a new thread starts on device 0: --streams makes its threads use this one).
int32_t currentDevice();

//! Makes device current for the calling thread.
void setCurrentDevice(int32_t device);

//! Device memory of a fixed size (at least one byte).
class DeviceMemory
{
public:
    explicit DeviceMemory(std::size_t bytes);
    void* get() const noexcept { return mMemory.get(); }

private:
    std::unique_ptr<void, void (*)(void*)> mMemory;
};

//! Page-locked host memory of a fixed size (at least one byte), for fast and asynchronous copies.
class PinnedMemory
{
public:
    explicit PinnedMemory(std::size_t bytes);
    void* get() const noexcept { return mMemory.get(); }

private:
    std::unique_ptr<void, void (*)(void*)> mMemory;
};

class Stream
{
public:
    Stream();
    cudaStream_t get() const noexcept { return mStream.get(); }
    //! Waits for the stream's work.
    void synchronize() const;

private:
    std::unique_ptr<CUstream_st, void (*)(cudaStream_t)> mStream;
};

class Event
{
public:
    Event();
    void record(Stream const& stream) const;
    //! Waits for the event.
    void synchronize() const;
    //! Milliseconds from start to end, both recorded and complete.
    static float elapsedMs(Event const& start, Event const& end);

private:
    std::unique_ptr<CUevent_st, void (*)(cudaEvent_t)> mEvent;
};

enum class Direction
{
    kHOST_TO_DEVICE,
    kDEVICE_TO_HOST,
};

void copyAsync(void* destination, void const* source, std::size_t bytes, Direction direction, Stream const& stream);

//! An executable CUDA graph of work captured from a stream.
class Graph
{
public:
    //! The work enqueue puts on stream, captured; empty (why says why) when capture or instantiation fails.
    static std::optional<Graph> capture(
        std::function<bool(cudaStream_t)> const& enqueue, Stream const& stream, std::string& why);
    void launch(Stream const& stream) const;

private:
    Graph() = default;
    std::shared_ptr<void> mExec; //!< The cudaGraphExec_t.
};

} // namespace kiln_tool::gpu
