// Test fixture: complete implementations of the callback interfaces an application or the engine implements
// (ILogger, ILoggerFinder, IGpuAllocator, IGpuAsyncAllocator, IErrorRecorder, IOutputAllocator, IStreamReader,
// IStreamReaderV2, IStreamWriter, IDebugListener, IProfiler, IProgressMonitor, IPluginResource,
// IPluginResourceContext), each overriding every virtual method with the spec's exact signature (sections 5.6-5.10),
// including the places where the spec has no `noexcept`. Every call records its name in lastCall().
// C++14, RTTI-free, free of deprecation warnings.

#ifndef KILN_TESTS_HEADERS_FULL_CALLBACKS_H
#define KILN_TESTS_HEADERS_FULL_CALLBACKS_H

#include "NvInfer.h"
#include "fixture_common.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace kiln_test
{

//! Remembers the name of the last method called.
class CallRecorder
{
public:
    char const* lastCall() const noexcept { return mLastCall; }

protected:
    void record(char const* method) const noexcept { mLastCall = method; }

private:
    mutable char const* mLastCall{""};
};

class FullLogger : public nvinfer1::ILogger, public CallRecorder
{
public:
    void log(Severity severity, nvinfer1::AsciiChar const* msg) noexcept override
    {
        record("log");
        mLastSeverity = severity;
        mLastMessage = msg;
    }

    Severity lastSeverity() const noexcept { return mLastSeverity; }

    char const* lastMessage() const noexcept { return mLastMessage; }

private:
    LiveCounter mCounter;
    Severity mLastSeverity{Severity::kVERBOSE};
    char const* mLastMessage{""};
};

class FullLoggerFinder : public nvinfer1::ILoggerFinder, public CallRecorder
{
public:
    explicit FullLoggerFinder(nvinfer1::ILogger* logger = nullptr) noexcept
        : mLogger(logger)
    {
    }

    ~FullLoggerFinder() override = default;

    nvinfer1::ILogger* findLogger() override
    {
        record("findLogger");
        return mLogger;
    }

private:
    LiveCounter mCounter;
    nvinfer1::ILogger* mLogger;
};

class FullGpuAllocator : public nvinfer1::IGpuAllocator, public CallRecorder
{
public:
    void* allocate(
        uint64_t const size, uint64_t const alignment, nvinfer1::AllocatorFlags const flags) noexcept override
    {
        record("allocate");
        mLastFlags = flags;
        static_cast<void>(alignment);
        return std::malloc(static_cast<size_t>(size));
    }

    void* reallocate(void* const baseAddr, uint64_t alignment, uint64_t newSize) noexcept override
    {
        record("reallocate");
        static_cast<void>(alignment);
        return std::realloc(baseAddr, static_cast<size_t>(newSize));
    }

    bool deallocate(void* const memory) noexcept override
    {
        record("deallocate");
        std::free(memory);
        return true;
    }

    void* allocateAsync(uint64_t const size, uint64_t const alignment, nvinfer1::AllocatorFlags const flags,
        cudaStream_t stream) noexcept override
    {
        record("allocateAsync");
        static_cast<void>(alignment);
        static_cast<void>(stream);
        mLastFlags = flags;
        return std::malloc(static_cast<size_t>(size));
    }

    bool deallocateAsync(void* const memory, cudaStream_t stream) noexcept override
    {
        record("deallocateAsync");
        static_cast<void>(stream);
        std::free(memory);
        return true;
    }

    nvinfer1::AllocatorFlags lastFlags() const noexcept { return mLastFlags; }

private:
    LiveCounter mCounter;
    nvinfer1::AllocatorFlags mLastFlags{0};
};

class FullGpuAsyncAllocator : public nvinfer1::IGpuAsyncAllocator, public CallRecorder
{
public:
    void* allocateAsync(uint64_t const size, uint64_t const alignment, nvinfer1::AllocatorFlags const flags,
        cudaStream_t stream) noexcept override
    {
        record("allocateAsync");
        static_cast<void>(alignment);
        static_cast<void>(flags);
        mLastStream = stream;
        return std::malloc(static_cast<size_t>(size));
    }

    bool deallocateAsync(void* const memory, cudaStream_t stream) noexcept override
    {
        record("deallocateAsync");
        mLastStream = stream;
        std::free(memory);
        return true;
    }

    void* reallocate(void* const baseAddr, uint64_t alignment, uint64_t newSize) noexcept override
    {
        record("reallocate");
        static_cast<void>(alignment);
        return std::realloc(baseAddr, static_cast<size_t>(newSize));
    }

    void* allocate(
        uint64_t const size, uint64_t const alignment, nvinfer1::AllocatorFlags const flags) noexcept override
    {
        record("allocate");
        static_cast<void>(alignment);
        static_cast<void>(flags);
        return std::malloc(static_cast<size_t>(size));
    }

    bool deallocate(void* const memory) noexcept override
    {
        record("deallocate");
        std::free(memory);
        return true;
    }

    cudaStream_t lastStream() const noexcept { return mLastStream; }

private:
    LiveCounter mCounter;
    cudaStream_t mLastStream{nullptr};
};

class FullErrorRecorder : public nvinfer1::IErrorRecorder, public CallRecorder
{
public:
    static constexpr int32_t kCAPACITY = 4;

    int32_t getNbErrors() const noexcept override
    {
        record("getNbErrors");
        return mNbErrors;
    }

    nvinfer1::ErrorCode getErrorCode(int32_t errorIdx) const noexcept override
    {
        record("getErrorCode");
        return inRange(errorIdx) ? mCodes[errorIdx] : nvinfer1::ErrorCode::kINVALID_ARGUMENT;
    }

    ErrorDesc getErrorDesc(int32_t errorIdx) const noexcept override
    {
        record("getErrorDesc");
        return inRange(errorIdx) ? mDescs[errorIdx] : "";
    }

    bool hasOverflowed() const noexcept override
    {
        record("hasOverflowed");
        return mOverflowed;
    }

    void clear() noexcept override
    {
        record("clear");
        mNbErrors = 0;
        mOverflowed = false;
    }

    bool reportError(nvinfer1::ErrorCode val, ErrorDesc desc) noexcept override
    {
        record("reportError");
        if (mNbErrors == kCAPACITY)
        {
            mOverflowed = true;
            return true;
        }
        mCodes[mNbErrors] = val;
        mDescs[mNbErrors] = desc;
        ++mNbErrors;
        return val == nvinfer1::ErrorCode::kINTERNAL_ERROR;
    }

    RefCount incRefCount() noexcept override
    {
        record("incRefCount");
        return ++mRefCount;
    }

    RefCount decRefCount() noexcept override
    {
        record("decRefCount");
        return --mRefCount;
    }

private:
    bool inRange(int32_t errorIdx) const noexcept { return errorIdx >= 0 && errorIdx < mNbErrors; }

    LiveCounter mCounter;
    nvinfer1::ErrorCode mCodes[kCAPACITY]{};
    ErrorDesc mDescs[kCAPACITY]{};
    int32_t mNbErrors{0};
    bool mOverflowed{false};
    RefCount mRefCount{0};
};

class FullOutputAllocator : public nvinfer1::IOutputAllocator, public CallRecorder
{
public:
    void* reallocateOutput(
        char const* tensorName, void* currentMemory, uint64_t size, uint64_t alignment) noexcept override
    {
        record("reallocateOutput");
        static_cast<void>(tensorName);
        static_cast<void>(alignment);
        return size <= sizeof(mBuffer) ? mBuffer : currentMemory;
    }

    void* reallocateOutputAsync(
        char const* tensorName, void* currentMemory, uint64_t size, uint64_t alignment, cudaStream_t stream) override
    {
        record("reallocateOutputAsync");
        static_cast<void>(tensorName);
        static_cast<void>(currentMemory);
        static_cast<void>(alignment);
        static_cast<void>(stream);
        return size <= sizeof(mBuffer) ? mBuffer : nullptr;
    }

    void notifyShape(char const* tensorName, nvinfer1::Dims const& dims) noexcept override
    {
        record("notifyShape");
        static_cast<void>(tensorName);
        mLastShape = dims;
    }

    nvinfer1::Dims const& lastShape() const noexcept { return mLastShape; }

    void* buffer() noexcept { return mBuffer; }

private:
    LiveCounter mCounter;
    alignas(16) unsigned char mBuffer[64]{};
    nvinfer1::Dims mLastShape{0, {}};
};

class FullStreamReader : public nvinfer1::IStreamReader, public CallRecorder
{
public:
    int64_t read(void* destination, int64_t nbBytes) override
    {
        record("read");
        std::memset(destination, 0x5A, static_cast<size_t>(nbBytes));
        return nbBytes;
    }

private:
    LiveCounter mCounter;
};

class FullStreamReaderV2 : public nvinfer1::IStreamReaderV2, public CallRecorder
{
public:
    int64_t read(void* destination, int64_t nbBytes, cudaStream_t stream) noexcept override
    {
        record("read");
        static_cast<void>(stream);
        std::memset(destination, 0xA5, static_cast<size_t>(nbBytes));
        mPosition += nbBytes;
        return nbBytes;
    }

    bool seek(int64_t offset, nvinfer1::SeekPosition where) noexcept override
    {
        record("seek");
        mPosition = (where == nvinfer1::SeekPosition::kSET) ? offset : mPosition + offset;
        return where != nvinfer1::SeekPosition::kEND;
    }

    int64_t position() const noexcept { return mPosition; }

private:
    LiveCounter mCounter;
    int64_t mPosition{0};
};

class FullStreamWriter : public nvinfer1::IStreamWriter, public CallRecorder
{
public:
    int64_t write(void const* data, int64_t nbBytes) override
    {
        record("write");
        static_cast<void>(data);
        mWritten += nbBytes;
        return nbBytes;
    }

    int64_t written() const noexcept { return mWritten; }

private:
    LiveCounter mCounter;
    int64_t mWritten{0};
};

class FullDebugListener : public nvinfer1::IDebugListener, public CallRecorder
{
public:
    bool processDebugTensor(void const* addr, nvinfer1::TensorLocation location, nvinfer1::DataType type,
        nvinfer1::Dims const& shape, char const* name, cudaStream_t stream) override
    {
        record("processDebugTensor");
        static_cast<void>(addr);
        static_cast<void>(type);
        static_cast<void>(name);
        static_cast<void>(stream);
        return location == nvinfer1::TensorLocation::kHOST && shape.nbDims >= 0;
    }

private:
    LiveCounter mCounter;
};

class FullProfiler : public nvinfer1::IProfiler, public CallRecorder
{
public:
    void reportLayerTime(char const* layerName, float ms) noexcept override
    {
        record("reportLayerTime");
        static_cast<void>(layerName);
        mTotalMs += ms;
    }

    float totalMs() const noexcept { return mTotalMs; }

private:
    LiveCounter mCounter;
    float mTotalMs{0.F};
};

class FullProgressMonitor : public nvinfer1::IProgressMonitor, public CallRecorder
{
public:
    void phaseStart(char const* phaseName, char const* parentPhase, int32_t nbSteps) noexcept override
    {
        record("phaseStart");
        static_cast<void>(phaseName);
        static_cast<void>(parentPhase);
        mSteps = nbSteps;
    }

    bool stepComplete(char const* phaseName, int32_t step) noexcept override
    {
        record("stepComplete");
        static_cast<void>(phaseName);
        return step + 1 < mSteps;
    }

    void phaseFinish(char const* phaseName) noexcept override
    {
        record("phaseFinish");
        static_cast<void>(phaseName);
    }

private:
    LiveCounter mCounter;
    int32_t mSteps{0};
};

class FullPluginResource : public nvinfer1::IPluginResource, public CallRecorder
{
public:
    int32_t release() noexcept override
    {
        record("release");
        mReleased = true;
        return 0;
    }

    nvinfer1::IPluginResource* clone() noexcept override
    {
        record("clone");
        return new FullPluginResource();
    }

    bool released() const noexcept { return mReleased; }

private:
    LiveCounter mCounter;
    bool mReleased{false};
};

class FullPluginResourceContext : public nvinfer1::IPluginResourceContext, public CallRecorder
{
public:
    FullPluginResourceContext(
        nvinfer1::IGpuAllocator* allocator = nullptr, nvinfer1::IErrorRecorder* recorder = nullptr) noexcept
        : mAllocator(allocator)
        , mRecorder(recorder)
    {
    }

    nvinfer1::IGpuAllocator* getGpuAllocator() const noexcept override
    {
        record("getGpuAllocator");
        return mAllocator;
    }

    nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override
    {
        record("getErrorRecorder");
        return mRecorder;
    }

private:
    LiveCounter mCounter;
    nvinfer1::IGpuAllocator* mAllocator;
    nvinfer1::IErrorRecorder* mRecorder;
};

} // namespace kiln_test

#endif // KILN_TESTS_HEADERS_FULL_CALLBACKS_H
