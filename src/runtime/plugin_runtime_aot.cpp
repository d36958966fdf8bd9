// SPDX-License-Identifier: Apache-2.0
// Ahead-of-time kernels at run time (AotKernelRecord, network/params.h): the engine plugin of a V3 plugin layer that
// the builder replaced by a compiled kernel. No creator is looked up and no plugin object made: each execution
// context loads the PTX once (cudaLibraryLoadData, through the CUDA runtime, so libkiln links no driver library) and
// launches the kernel with the launch values evaluated for each run's input shapes and the arguments (data input
// pointers, the int32 scalars, output pointers) on the context's stream. On the host backend nothing can run PTX: the
// run fails, naming the plugin.
#include "network/checks.h"
#include "plugin/aot_kernel.h"
#include "runtime/plugin_runtime.h"

#if KILN_WITH_CUDA
#include <cuda_runtime_api.h>
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
    AotKernelRecord const& mRecord;
    std::string mWho;
    std::vector<Dims> mDims;
#if KILN_WITH_CUDA
    static constexpr uint32_t kDefaultSharedMemory = 48 * 1024;
    cudaLibrary_t mLibrary{};
    cudaKernel_t mKernel{};
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
