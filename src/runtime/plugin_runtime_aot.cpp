// SPDX-License-Identifier: Apache-2.0
// Ahead-of-time kernels at run time (AotKernelRecord, network/params.h): the engine plugin of a V3 plugin layer that
// the builder replaced by a compiled kernel. No creator is looked up and no plugin object made: each execution
// context loads the PTX once (cudaLibraryLoadData, through the CUDA runtime, so libkiln links no driver library) and
// launches the kernel with the launch values evaluated for each run's input shapes and the arguments (data input
// pointers, the int32 scalars, output pointers) on the context's stream. On the host backend nothing can run PTX: the
// run fails, naming the plugin.
#include "core/logging.h"
#include "network/checks.h"
#include "plugin/aot_kernel.h"
#include "runtime/plugin_runtime.h"

#if KILN_WITH_CUDA
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#endif

namespace kiln
{
namespace
{

using nvinfer1::ErrorCode;

//! An AOT kernel of one execution context: the loaded PTX and its kernel (CUDA backend).
class ContextAotKernel final : public ContextPlugin
{
public:
    ContextAotKernel(AotKernelRecord const& record, std::string who)
        : mRecord(record)
        , mWho(std::move(who))
    {
    }

    ~ContextAotKernel() override
    {
#if KILN_WITH_CUDA
        if (mLibrary != nullptr)
        {
            static_cast<void>(cudaLibraryUnload(mLibrary));
        }
#endif
    }
    ContextAotKernel(ContextAotKernel const&) = delete;
    ContextAotKernel& operator=(ContextAotKernel const&) = delete;

    //! Loads the PTX and finds the kernel (CUDA backend).
    std::optional<Error> load()
    {
#if KILN_WITH_CUDA
        if (cudaError_t const status
            = cudaLibraryLoadData(&mLibrary, mRecord.ptx.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0);
            status != cudaSuccess)
        {
            mLibrary = nullptr;
            static_cast<void>(cudaGetLastError());
            return Error{ErrorCode::kFAILED_INITIALIZATION,
                mWho + ": cannot load the PTX of its AOT kernel: " + cudaGetErrorString(status)};
        }
        if (cudaError_t const status = cudaLibraryGetKernel(&mKernel, mLibrary, mRecord.kernelName.c_str());
            status != cudaSuccess)
        {
            static_cast<void>(cudaGetLastError());
            return Error{ErrorCode::kFAILED_INITIALIZATION,
                mWho + ": the PTX has no kernel '" + mRecord.kernelName + "': " + cudaGetErrorString(status)};
        }
        mParamSizes = kernelParamSizes(mKernel);
#endif
        return std::nullopt;
    }

    host::Status run(std::span<nvinfer1::PluginTensorDesc const> descs, int32_t nbInputs, bool /*changed*/,
        void const* const* inputs, void* const* outputs, void* /*workspace*/, bool host, cudaStream_t stream) override
    {
        if (host)
        {
            return Error{ErrorCode::kUNSUPPORTED_STATE,
                mWho + " is an ahead-of-time (AOT) kernel ('" + mRecord.kernelName
                    + "', PTX), which only the CUDA backend runs; the host backend cannot run PTX. Build the "
                      "engine for the CUDA backend (KILN_BACKEND=cuda), or use the plugin's JIT implementation"};
        }
        mDims.clear();
        for (int32_t i = 0; i < nbInputs; ++i)
        {
            mDims.push_back(descs[static_cast<std::size_t>(i)].dims);
        }
        auto launch = evaluateAotKernel(mRecord, mDims);
        if (!launch)
        {
            return Error{launch.error().code, mWho + ": " + launch.error().message};
        }
        if (launch.value().empty())
        {
            return host::Done{}; // Empty tensors: nothing to compute.
        }
#if KILN_WITH_CUDA
        AotLaunch const& values = launch.value();
        auto const nbOutputs = descs.size() - static_cast<std::size_t>(nbInputs);
        mArgs.clear();
        for (int32_t i = 0; i < nbInputs; ++i)
        {
            // cudaLaunchKernel reads each argument through its address: the address of the input pointer itself.
            mArgs.push_back(const_cast<void*>(static_cast<void const*>(&inputs[i])));
        }
        for (int32_t const& scalar : values.scalars)
        {
            mArgs.push_back(const_cast<void*>(static_cast<void const*>(&scalar)));
        }
        for (std::size_t o = 0; o < nbOutputs; ++o)
        {
            mArgs.push_back(const_cast<void*>(static_cast<void const*>(&outputs[o])));
        }
        if (auto refusal = matchParameters(static_cast<std::size_t>(nbInputs), values.scalars.size(), nbOutputs))
        {
            return *refusal;
        }
        auto const* function = reinterpret_cast<void const*>(mKernel);
        if (values.sharedMemory > mSharedConfigured && values.sharedMemory > kDefaultSharedMemory)
        {
            if (cudaError_t const status = cudaFuncSetAttribute(
                    function, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int32_t>(values.sharedMemory));
                status != cudaSuccess)
            {
                static_cast<void>(cudaGetLastError());
                return Error{ErrorCode::kFAILED_EXECUTION,
                    mWho + ": cannot give its AOT kernel " + std::to_string(values.sharedMemory)
                        + " bytes of shared memory: " + cudaGetErrorString(status)};
            }
            mSharedConfigured = values.sharedMemory;
        }
        dim3 const grid{values.grid[0], values.grid[1], values.grid[2]};
        dim3 const block{values.block[0], values.block[1], values.block[2]};
        if (cudaError_t const status
            = cudaLaunchKernel(function, grid, block, mArgs.data(), values.sharedMemory, stream);
            status != cudaSuccess)
        {
            static_cast<void>(cudaGetLastError());
            return Error{ErrorCode::kFAILED_EXECUTION,
                mWho + ": launching its AOT kernel '" + mRecord.kernelName + "' failed: " + cudaGetErrorString(status)};
        }
        return host::Done{};
#else
        static_cast<void>(inputs);
        static_cast<void>(outputs);
        static_cast<void>(stream);
        return Error{ErrorCode::kUNSUPPORTED_STATE, mWho + ": this kiln was built without the CUDA backend"};
#endif
    }

private:
#if KILN_WITH_CUDA
    //! The sizes of the kernel's parameters in order, from the driver (cuKernelGetParamInfo, CUDA 12.4, reached through
    //! the runtime's entry-point lookup); empty when the driver cannot tell.
    static std::vector<std::size_t> kernelParamSizes(cudaKernel_t kernel)
    {
        using GetParamInfo = int (*)(void* kernel, std::size_t index, std::size_t* offset, std::size_t* size);
        void* entry = nullptr;
        cudaDriverEntryPointQueryResult found{};
        if (cudaGetDriverEntryPointByVersion("cuKernelGetParamInfo", &entry, 12040, cudaEnableDefault, &found)
                != cudaSuccess
            || found != cudaDriverEntryPointSuccess || entry == nullptr)
        {
            static_cast<void>(cudaGetLastError());
            return {};
        }
        auto const getParamInfo = reinterpret_cast<GetParamInfo>(entry);
        std::vector<std::size_t> sizes;
        for (std::size_t index = 0; index < 4096; ++index)
        {
            std::size_t offset = 0;
            std::size_t size = 0;
            if (getParamInfo(static_cast<void*>(kernel), index, &offset, &size) != 0)
            {
                break; // CUDA_ERROR_INVALID_VALUE past the last parameter.
            }
            sizes.push_back(size);
        }
        return sizes;
    }

    //! Checks mArgs (pointers and int32 scalars) against the kernel's parameters before cudaLaunchKernel, which reads
    //! one argument per parameter the kernel declares: fewer arguments would make it read past them. Parameters past
    //! the plugin's (Triton's scratch pointers, which a kernel without scratch memory never reads) get zeros.
    //! The counts are the record's, the same every run: the check and the padding are made by the first run that
    //! passes, and later runs only append the padding's addresses.
    std::optional<Error> matchParameters(std::size_t nbInputs, std::size_t nbScalars, std::size_t nbOutputs)
    {
        if (mParamSizes.empty())
        {
            return std::nullopt; // A driver before CUDA 12.4: the launch trusts the plan.
        }
        if (mParametersMatched)
        {
            for (std::vector<std::byte>& zeros : mPadding)
            {
                mArgs.push_back(zeros.data());
            }
            return std::nullopt;
        }
        std::size_t const given = mArgs.size();
        if (mParamSizes.size() < given)
        {
            return Error{ErrorCode::kFAILED_EXECUTION,
                mWho + ": its AOT kernel '" + mRecord.kernelName + "' takes " + std::to_string(mParamSizes.size())
                    + " parameters, but the plugin passes " + std::to_string(given) + " ("
                    + std::to_string(nbInputs + nbOutputs) + " tensor pointers and " + std::to_string(nbScalars)
                    + " int32 scalars): the kernel and the plugin's aot_impl disagree"};
        }
        for (std::size_t i = 0; i < given; ++i)
        {
            bool const scalar = i >= nbInputs && i < nbInputs + nbScalars;
            std::size_t const expected = scalar ? sizeof(int32_t) : sizeof(void*);
            if (mParamSizes[i] != expected)
            {
                return Error{ErrorCode::kFAILED_EXECUTION,
                    mWho + ": parameter " + std::to_string(i) + " of its AOT kernel '" + mRecord.kernelName + "' is "
                        + std::to_string(mParamSizes[i]) + " bytes, but the plugin passes "
                        + (scalar ? "an int32 scalar" : "a tensor pointer") + " (" + std::to_string(expected)
                        + " bytes) there"};
            }
        }
        mPadding.resize(mParamSizes.size() - given);
        for (std::size_t i = given; i < mParamSizes.size(); ++i)
        {
            std::vector<std::byte>& zeros = mPadding[i - given];
            zeros.assign(std::max<std::size_t>(mParamSizes[i], 1), std::byte{0});
            mArgs.push_back(zeros.data());
        }
        mParametersMatched = true;
        if (!mPadding.empty())
        {
            log(nvinfer1::ILogger::Severity::kINFO,
                mWho + ": its AOT kernel '" + mRecord.kernelName + "' takes " + std::to_string(mPadding.size())
                    + " parameters after the plugin's (Triton's scratch pointers, for one); they are passed as zeros");
        }
        return std::nullopt;
    }
#endif

    AotKernelRecord const& mRecord;
    std::string mWho;
    std::vector<Dims> mDims;
#if KILN_WITH_CUDA
    static constexpr uint32_t kDefaultSharedMemory = 48 * 1024;
    cudaLibrary_t mLibrary{};
    cudaKernel_t mKernel{};
    std::vector<std::size_t> mParamSizes;
    std::vector<std::vector<std::byte>> mPadding;
    bool mParametersMatched{false};
    std::vector<void*> mArgs;
    uint32_t mSharedConfigured{};
#endif
};

//! An AOT kernel of one engine: its record, nothing made.
class EngineAotKernel final : public EnginePlugin
{
public:
    EngineAotKernel(AotKernelRecord const& record, std::string who, bool host)
        : mRecord(record)
        , mWho(std::move(who))
        , mHost(host)
    {
    }

    Expected<std::unique_ptr<ContextPlugin>> attach(
        nvinfer1::IPluginResourceContext& /*resources*/, V2Handles& /*handles*/) override
    {
        auto context = std::make_unique<ContextAotKernel>(mRecord, mWho);
        if (!mHost)
        {
            if (auto problem = context->load())
            {
                return *problem;
            }
        }
        return std::unique_ptr<ContextPlugin>{std::move(context)};
    }

private:
    AotKernelRecord const& mRecord;
    std::string mWho;
    bool mHost;
};

} // namespace

Expected<std::unique_ptr<EnginePlugin>> makeEnginePluginAot(
    std::string const& layerName, PluginV3Params const& params, bool host)
{
    std::string const who = "layer '" + layerName + "': " + describeIdentity(params.identity);
    return std::unique_ptr<EnginePlugin>{std::make_unique<EngineAotKernel>(*params.plan.aot, who, host)};
}

} // namespace kiln
