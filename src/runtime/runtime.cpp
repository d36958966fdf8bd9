// SPDX-License-Identifier: Apache-2.0
#include "runtime/runtime.h"

#include "core/entry_point.h"
#include "plan/container.h"
#include "plan/engine_codec.h"
#include "runtime/engine.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kiln
{
namespace
{

using nvinfer1::ErrorCode;

//! Appends what read gives to bytes until they hold total bytes or the stream ends (a read of 0 bytes); never asks
//! for more than total. read(destination, nbBytes) returns the number of bytes it wrote, or a negative number on
//! failure, and may throw; reader names its interface in messages. The buffer grows a chunk at a time as bytes
//! arrive, not to the size a header announces, so a stream that lies about its size costs little more memory than it
//! delivers.
template <typename Read>
std::optional<Error> readUpTo(Read& read, char const* reader, std::vector<uint8_t>& bytes, std::size_t total)
{
    constexpr std::size_t kChunk = std::size_t{1} << 20U;
    while (bytes.size() < total)
    {
        std::size_t const old = bytes.size();
        std::size_t const asked = std::min(kChunk, total - old);
        bytes.resize(old + asked);
        int64_t got = 0;
        try
        {
            got = read(bytes.data() + old, static_cast<int64_t>(asked));
        }
        catch (...)
        {
            return Error{ErrorCode::kFAILED_EXECUTION,
                std::string(reader) + "::read threw after " + std::to_string(old) + " bytes"};
        }
        if (got < 0 || static_cast<uint64_t>(got) > asked)
        {
            return Error{ErrorCode::kFAILED_EXECUTION,
                std::string(reader) + "::read returned " + std::to_string(got) + " when asked for "
                    + std::to_string(asked) + " bytes (after " + std::to_string(old) + " bytes)"};
        }
        bytes.resize(old + static_cast<std::size_t>(got));
        if (got == 0)
        {
            break;
        }
    }
    return std::nullopt;
}

//! The plan a reader gives: its header first, which says how many bytes follow, then exactly those. A stream that
//! goes on past the plan is not read further; one that ends early is refused.
template <typename Read>
Expected<std::vector<uint8_t>> readPlanFrom(Read&& read, char const* reader)
{
    std::vector<uint8_t> bytes;
    if (auto failed = readUpTo(read, reader, bytes, kPlanHeaderSize))
    {
        return *failed;
    }
    // A foreign stream, and one that ends inside the header, stop here.
    auto const size = planSizeFromHeader(bytes);
    if (!size)
    {
        return size.error();
    }
    if (uint64_t const payload = size.value() - kPlanHeaderSize; payload >= kMaxPayloadBytes)
    {
        return Error{ErrorCode::kINVALID_ARGUMENT,
            "cannot load the plan: its header announces " + std::to_string(payload)
                + " bytes of payload; a payload holds less than " + std::to_string(kMaxPayloadBytes)};
    }
    if (auto failed = readUpTo(read, reader, bytes, size.value()))
    {
        return *failed;
    }
    if (bytes.size() < size.value())
    {
        return Error{ErrorCode::kINVALID_ARGUMENT,
            std::string(reader) + ": the stream ended after " + std::to_string(bytes.size()) + " of "
                + std::to_string(size.value()) + " bytes"};
    }
    return bytes;
}

} // namespace

Runtime::Runtime(nvinfer1::ILogger& logger)
    : mLogger(logger)
{
    mImpl = &mImplObject;
}

Runtime::~Runtime() noexcept = default;

nvinfer1::ICudaEngine* Runtime::Impl::load(char const* method, void const* data, std::size_t size) noexcept
{
    Reporter const& reporter = mRuntime.mReporter;
    return reporter.guard(method, static_cast<nvinfer1::ICudaEngine*>(nullptr), [&]() -> nvinfer1::ICudaEngine* {
        auto const plan = readPlan(data, size);
        if (!plan)
        {
            reporter.error(plan.error().code, method, ": ", plan.error().message);
            return nullptr;
        }
        auto model = decodeEngine(data, size);
        if (!model)
        {
            reporter.error(model.error().code, method, ": ", model.error().message);
            return nullptr;
        }
        std::string const name = model.value().name;
        auto program = EngineProgram::load(std::move(model.value()));
        if (!program)
        {
            reporter.error(program.error().code, method, ": network ", quotedText(name), ": ", program.error().message);
            return nullptr;
        }
        WeightsRefresh refresh;
        auto backends = backendsFor(*program.value(), &refresh);
        if (!backends)
        {
            reporter.error(
                backends.error().code, method, ": network ", quotedText(name), ": ", backends.error().message);
            return nullptr;
        }
        auto engine = std::make_unique<Engine>(
            std::move(program.value()), mRuntime.mLogger, std::move(backends.value()), reporter.recorder());
        engine->setPluginAllocator(mRuntime.mAllocator);
        engine->setWeightsRefresh(std::move(refresh));
        auto libraries = usePlanLibraries(engine->program().model(), *::getPluginRegistry(), libraryPolicy());
        if (!libraries)
        {
            reporter.error(
                libraries.error().code, method, ": network ", quotedText(name), ": ", libraries.error().message);
            return nullptr;
        }
        engine->setPlanLibraries(std::move(libraries.value()));
        if (auto problem = engine->makePlugins(*::getPluginRegistry()))
        {
            reporter.error(problem->code, method, ": network ", quotedText(name), ": ", problem->message);
            return nullptr;
        }
        return engine.release();
    });
}

nvinfer1::ICudaEngine* Runtime::Impl::deserializeCudaEngine(void const* blob, std::size_t size) noexcept
{
    constexpr char const* kWhere = "IRuntime::deserializeCudaEngine";
    if (blob == nullptr || size == 0)
    {
        mRuntime.mReporter.error(ErrorCode::kINVALID_ARGUMENT, kWhere, ": the plan is ",
            blob == nullptr ? "a null pointer" : "empty (0 bytes)", "; give the bytes of a serialized engine");
        return nullptr;
    }
    return load(kWhere, blob, size);
}

nvinfer1::ICudaEngine* Runtime::Impl::deserializeCudaEngine(nvinfer1::IStreamReader& streamReader) noexcept
{
    constexpr char const* kWhere = "IRuntime::deserializeCudaEngine";
    return mRuntime.mReporter.guard(kWhere, static_cast<nvinfer1::ICudaEngine*>(nullptr), [&] {
        auto const bytes
            = readPlanFrom([&](void* destination, int64_t nbBytes) { return streamReader.read(destination, nbBytes); },
                "IStreamReader");
        if (!bytes)
        {
            mRuntime.mReporter.error(bytes.error().code, kWhere, ": ", bytes.error().message);
            return static_cast<nvinfer1::ICudaEngine*>(nullptr);
        }
        return deserializeCudaEngine(bytes.value().data(), bytes.value().size());
    });
}

nvinfer1::ICudaEngine* Runtime::Impl::deserializeCudaEngineV2(nvinfer1::IStreamReaderV2& streamReader) noexcept
{
    constexpr char const* kWhere = "IRuntime::deserializeCudaEngine";
    return mRuntime.mReporter.guard(kWhere, static_cast<nvinfer1::ICudaEngine*>(nullptr), [&] {
        // The host runtime reads into host memory, in stream order on the default stream.
        auto const bytes = readPlanFrom(
            [&](void* destination, int64_t nbBytes) { return streamReader.read(destination, nbBytes, nullptr); },
            "IStreamReaderV2");
        if (!bytes)
        {
            mRuntime.mReporter.error(bytes.error().code, kWhere, ": ", bytes.error().message);
            return static_cast<nvinfer1::ICudaEngine*>(nullptr);
        }
        return deserializeCudaEngine(bytes.value().data(), bytes.value().size());
    });
}

void Runtime::Impl::setDLACore(int32_t dlaCore) noexcept
{
    if (dlaCore != -1)
    {
        mRuntime.mReporter.error(ErrorCode::kINVALID_ARGUMENT, "IRuntime::setDLACore: DLA core ", dlaCore,
            " does not exist; kiln has no DLA cores (getNbDLACores() is 0)");
        return;
    }
    mRuntime.mDLACore = dlaCore;
}

int32_t Runtime::Impl::getDLACore() const noexcept
{
    return mRuntime.mDLACore;
}

int32_t Runtime::Impl::getNbDLACores() const noexcept
{
    return 0;
}

void Runtime::Impl::setGpuAllocator(nvinfer1::IGpuAllocator* allocator) noexcept
{
    mRuntime.mAllocator = allocator;
}

void Runtime::Impl::setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept
{
    mRuntime.mReporter.setRecorder(recorder);
}

nvinfer1::IErrorRecorder* Runtime::Impl::getErrorRecorder() const noexcept
{
    return mRuntime.mReporter.recorder();
}

nvinfer1::ILogger* Runtime::Impl::getLogger() const noexcept
{
    return &mRuntime.mLogger;
}

bool Runtime::Impl::setMaxThreads(int32_t maxThreads) noexcept
{
    if (!mRuntime.mReporter.checkAtLeast("IRuntime::setMaxThreads", "maxThreads", maxThreads, 1))
    {
        return false;
    }
    mRuntime.mMaxThreads = maxThreads;
    return true;
}

int32_t Runtime::Impl::getMaxThreads() const noexcept
{
    return mRuntime.mMaxThreads;
}

void Runtime::Impl::setTemporaryDirectory(char const* path) noexcept
{
    mRuntime.mReporter.guard("IRuntime::setTemporaryDirectory", false, [&] {
        mRuntime.mHasTemporaryDirectory = path != nullptr;
        mRuntime.mTemporaryDirectory = path != nullptr ? path : "";
        return true;
    });
}

char const* Runtime::Impl::getTemporaryDirectory() const noexcept
{
    return mRuntime.mHasTemporaryDirectory ? mRuntime.mTemporaryDirectory.c_str() : nullptr;
}

void Runtime::Impl::setTempfileControlFlags(nvinfer1::TempfileControlFlags flags) noexcept
{
    constexpr uint32_t kKnown = (1U << static_cast<uint32_t>(nvinfer1::EnumMax<nvinfer1::TempfileControlFlag>())) - 1U;
    if ((flags & ~kKnown) != 0)
    {
        mRuntime.mReporter.error(ErrorCode::kINVALID_ARGUMENT, "IRuntime::setTempfileControlFlags: flags ", flags,
            " contain bits that are no TempfileControlFlag (mask ", kKnown, ")");
        return;
    }
    mRuntime.mTempfileFlags = flags;
}

nvinfer1::TempfileControlFlags Runtime::Impl::getTempfileControlFlags() const noexcept
{
    return mRuntime.mTempfileFlags;
}

nvinfer1::IPluginRegistry& Runtime::Impl::getPluginRegistry() noexcept
{
    return *::getPluginRegistry();
}

void Runtime::Impl::setPluginRegistryParent(nvinfer1::IPluginRegistry* /*parent*/) noexcept
{
    // No wrapper method reaches this slot; the runtime always uses the process-wide registry.
}

nvinfer1::IRuntime* Runtime::Impl::loadRuntime(char const* path) noexcept
{
    mRuntime.mReporter.error(ErrorCode::kUNSUPPORTED_STATE, "IRuntime::loadRuntime: cannot load ", quotedText(path),
        ": kiln has no lean runtime libraries; it runs its own plans with this runtime (version-compatible TensorRT "
        "plans are not supported)");
    return nullptr;
}

PlanLibraryPolicy Runtime::Impl::libraryPolicy() const
{
    auto const allows = [&](nvinfer1::TempfileControlFlag flag) {
        return (mRuntime.mTempfileFlags & (1U << static_cast<uint32_t>(flag))) != 0;
    };
    return PlanLibraryPolicy{mRuntime.mEngineHostCodeAllowed,
        allows(nvinfer1::TempfileControlFlag::kALLOW_IN_MEMORY_FILES),
        allows(nvinfer1::TempfileControlFlag::kALLOW_TEMPORARY_FILES),
        mRuntime.mHasTemporaryDirectory ? mRuntime.mTemporaryDirectory : std::string()};
}

void Runtime::Impl::setEngineHostCodeAllowed(bool allowed) noexcept
{
    mRuntime.mEngineHostCodeAllowed = allowed;
}

bool Runtime::Impl::getEngineHostCodeAllowed() const noexcept
{
    return mRuntime.mEngineHostCodeAllowed;
}

} // namespace kiln

extern "C" TENSORRTAPI void* createInferRuntime_INTERNAL(void* logger, int32_t version) noexcept
{
    return kiln::createFromEntryPoint<nvinfer1::IRuntime, kiln::Runtime>("createInferRuntime", logger, version);
}
