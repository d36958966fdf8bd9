// SPDX-License-Identifier: Apache-2.0
// A plugin library written the way public TensorRT 10 plugin projects write theirs, for TensorRT alone: no kiln header,
// its own shared object registered with REGISTER_TENSORRT_PLUGIN, TensorRT-style assertions that abort on a broken
// contract, and the per-context resources such plugins make in attachToContext(). kiln must run it unchanged.
//
// - "ThirdPartyLinear" version "1" namespace "" (IPluginV3): y [N, M] = x [N, K] * W [K, M] + bias. W comes
//   from the fields "weight" (K*M floats, row-major), "k" and "m". attachToContext() creates a cuBLAS handle and
//   acquires the library-wide bias (bias[j] = 0.25 * j, on the device) from the registry's resource store; enqueue()
//   multiplies with cublasSgemm on the handle and adds the bias with a kernel. Two custom tactics (the same product,
//   through cublasSgemm or cublasGemmEx) so the builder must run it to choose.
// - "ThirdPartyScaleV2" version "1" namespace "" (IPluginV2DynamicExt): y = scale * x (the field "scale"),
//   in kLINEAR or kHWC, through cublasSscal on the cuBLAS handle its attachToContext(cudnn, cublas, allocator) receives
//   (TacticSource::kCUBLAS): enqueue() fails without one.
#include "NvInfer.h"
#include "NvInferPlugin.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define THIRD_PARTY_ASSERT(condition)                                                                                  \
    do                                                                                                                 \
    {                                                                                                                  \
        if (!(condition))                                                                                              \
        {                                                                                                              \
            std::fprintf(                                                                                              \
                stderr, "third_party_plugins: assertion failed: %s (%s:%d)\n", #condition, __FILE__, __LINE__);        \
            std::abort();                                                                                              \
        }                                                                                                              \
    } while (0)

namespace third_party
{
namespace
{

using namespace nvinfer1;

constexpr char const* kNamespace = ""; // as most public plugins: registered by REGISTER_TENSORRT_PLUGIN under ""
constexpr char const* kBiasKey = "third.party.bias";
constexpr int32_t kMaxM = 1024;

__global__ void addBias(float* y, float const* bias, int64_t rows, int32_t m)
{
    int64_t const i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < rows * m)
    {
        y[i] += bias[i % m];
    }
}

//! The library-wide bias, shared by every context's plugin through the registry's resource store.
class BiasResource final : public IPluginResource
{
public:
    int32_t release() noexcept override
    {
        if (mDevice != nullptr)
        {
            cudaFree(mDevice);
            mDevice = nullptr;
        }
        return 0;
    }
    IPluginResource* clone() noexcept override
    {
        auto* made = new BiasResource;
        std::vector<float> values(kMaxM);
        for (int32_t j = 0; j < kMaxM; ++j)
        {
            values[static_cast<std::size_t>(j)] = 0.25F * static_cast<float>(j);
        }
        if (cudaMalloc(&made->mDevice, kMaxM * sizeof(float)) != cudaSuccess
            || cudaMemcpy(made->mDevice, values.data(), kMaxM * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess)
        {
            delete made;
            return nullptr;
        }
        return made;
    }
    ~BiasResource() override { release(); }

    float const* data() const noexcept { return mDevice; }

private:
    float* mDevice{};
};

class LinearPlugin final : public IPluginV3,
                           public IPluginV3OneCore,
                           public IPluginV3OneBuild,
                           public IPluginV3OneRuntime
{
public:
    LinearPlugin(std::vector<float> weight, int32_t k, int32_t m)
        : mWeight(std::move(weight))
        , mK(k)
        , mM(m)
    {
    }
    LinearPlugin(LinearPlugin const&) = delete;
    ~LinearPlugin() override
    {
        if (mBias != nullptr)
        {
            getPluginRegistry()->releasePluginResource(kBiasKey);
        }
        if (mCublas != nullptr)
        {
            cublasDestroy(mCublas);
        }
        if (mDeviceWeight != nullptr)
        {
            cudaFree(mDeviceWeight);
        }
    }

    IPluginCapability* getCapabilityInterface(PluginCapabilityType type) noexcept override
    {
        if (type == PluginCapabilityType::kBUILD)
        {
            return static_cast<IPluginV3OneBuild*>(this);
        }
        if (type == PluginCapabilityType::kRUNTIME)
        {
            return static_cast<IPluginV3OneRuntime*>(this);
        }
        THIRD_PARTY_ASSERT(type == PluginCapabilityType::kCORE);
        return static_cast<IPluginV3OneCore*>(this);
    }
    IPluginV3* clone() noexcept override
    {
        auto* made = new LinearPlugin(mWeight, mK, mM);
        made->mTactic = mTactic;
        return made;
    }

    char const* getPluginName() const noexcept override { return "ThirdPartyLinear"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    char const* getPluginNamespace() const noexcept override { return kNamespace; }

    int32_t getNbOutputs() const noexcept override { return 1; }
    int32_t configurePlugin(DynamicPluginTensorDesc const* in, int32_t nbInputs, DynamicPluginTensorDesc const*,
        int32_t nbOutputs) noexcept override
    {
        THIRD_PARTY_ASSERT(nbInputs == 1 && nbOutputs == 1);
        return in[0].desc.dims.d[1] == mK ? 0 : -1;
    }
    bool supportsFormatCombination(
        int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept override
    {
        THIRD_PARTY_ASSERT(pos < nbInputs + nbOutputs);
        return inOut[pos].desc.type == DataType::kFLOAT && inOut[pos].desc.format == TensorFormat::kLINEAR;
    }
    int32_t getOutputDataTypes(
        DataType* outputTypes, int32_t nbOutputs, DataType const* inputTypes, int32_t nbInputs) const noexcept override
    {
        THIRD_PARTY_ASSERT(nbOutputs == 1 && nbInputs == 1);
        outputTypes[0] = inputTypes[0];
        return 0;
    }
    int32_t getOutputShapes(DimsExprs const* inputs, int32_t nbInputs, DimsExprs const*, int32_t, DimsExprs* outputs,
        int32_t nbOutputs, IExprBuilder& exprBuilder) noexcept override
    {
        THIRD_PARTY_ASSERT(nbInputs == 1 && nbOutputs == 1 && inputs[0].nbDims == 2);
        outputs[0].nbDims = 2;
        outputs[0].d[0] = inputs[0].d[0];
        outputs[0].d[1] = exprBuilder.constant(mM);
        return 0;
    }
    int32_t getNbTactics() noexcept override { return 2; }
    int32_t getValidTactics(int32_t* tactics, int32_t nbTactics) noexcept override
    {
        THIRD_PARTY_ASSERT(nbTactics == 2);
        tactics[0] = 1;
        tactics[1] = 2;
        return 0;
    }

    int32_t setTactic(int32_t tactic) noexcept override
    {
        mTactic = tactic;
        return 0;
    }
    int32_t onShapeChange(PluginTensorDesc const* in, int32_t, PluginTensorDesc const*, int32_t) noexcept override
    {
        mRows = in[0].dims.d[0];
        return 0;
    }
    int32_t enqueue(PluginTensorDesc const*, PluginTensorDesc const*, void const* const* inputs, void* const* outputs,
        void*, cudaStream_t stream) noexcept override
    {
        // Only a clone attachToContext() made has what a run needs.
        if (mCublas == nullptr || mBias == nullptr || mDeviceWeight == nullptr)
        {
            return -1;
        }
        if (cublasSetStream(mCublas, stream) != CUBLAS_STATUS_SUCCESS)
        {
            return -2;
        }
        // Row-major y = x W is column-major y^T = W^T x^T: an (m x rows) result from W^T (m x k) and x^T (k x rows).
        float const one = 1.0F;
        float const zero = 0.0F;
        auto const* x = static_cast<float const*>(inputs[0]);
        auto* y = static_cast<float*>(outputs[0]);
        auto const rows = static_cast<int32_t>(mRows);
        cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
        if (mTactic == 2)
        {
            status = cublasGemmEx(mCublas, CUBLAS_OP_N, CUBLAS_OP_N, mM, rows, mK, &one, mDeviceWeight, CUDA_R_32F, mM,
                x, CUDA_R_32F, mK, &zero, y, CUDA_R_32F, mM, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        }
        else
        {
            status = cublasSgemm(
                mCublas, CUBLAS_OP_N, CUBLAS_OP_N, mM, rows, mK, &one, mDeviceWeight, mM, x, mK, &zero, y, mM);
        }
        if (status != CUBLAS_STATUS_SUCCESS)
        {
            return static_cast<int32_t>(status);
        }
        int64_t const count = mRows * mM;
        if (count > 0)
        {
            addBias<<<static_cast<unsigned>((count + 255) / 256), 256, 0, stream>>>(y, mBias->data(), mRows, mM);
        }
        return cudaGetLastError() == cudaSuccess ? 0 : -3;
    }
    IPluginV3* attachToContext(IPluginResourceContext* context) noexcept override
    {
        THIRD_PARTY_ASSERT(context != nullptr);
        auto* attached = static_cast<LinearPlugin*>(clone());
        BiasResource prototype;
        attached->mBias = static_cast<BiasResource*>(getPluginRegistry()->acquirePluginResource(kBiasKey, &prototype));
        std::size_t const bytes = mWeight.size() * sizeof(float);
        if (attached->mBias == nullptr || cublasCreate(&attached->mCublas) != CUBLAS_STATUS_SUCCESS
            || cudaMalloc(&attached->mDeviceWeight, bytes) != cudaSuccess
            || cudaMemcpy(attached->mDeviceWeight, mWeight.data(), bytes, cudaMemcpyHostToDevice) != cudaSuccess)
        {
            delete attached;
            return nullptr;
        }
        return attached;
    }
    PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {
        mFields[0]
            = PluginField("weight", mWeight.data(), PluginFieldType::kFLOAT32, static_cast<int32_t>(mWeight.size()));
        mFields[1] = PluginField("k", &mK, PluginFieldType::kINT32, 1);
        mFields[2] = PluginField("m", &mM, PluginFieldType::kINT32, 1);
        mCollection.nbFields = 3;
        mCollection.fields = mFields;
        return &mCollection;
    }

private:
    std::vector<float> mWeight;
    int32_t mK{};
    int32_t mM{};
    int32_t mTactic{1};
    int64_t mRows{};
    cublasHandle_t mCublas{};
    BiasResource* mBias{};
    float* mDeviceWeight{};
    PluginField mFields[3];
    PluginFieldCollection mCollection{};
};

class LinearCreator final : public IPluginCreatorV3One
{
public:
    LinearCreator()
    {
        mNames[0] = PluginField("weight", nullptr, PluginFieldType::kFLOAT32, 0);
        mNames[1] = PluginField("k", nullptr, PluginFieldType::kINT32, 1);
        mNames[2] = PluginField("m", nullptr, PluginFieldType::kINT32, 1);
        mCollection.nbFields = 3;
        mCollection.fields = mNames;
    }
    IPluginV3* createPlugin(char const*, PluginFieldCollection const* fc, TensorRTPhase) noexcept override
    {
        std::vector<float> weight;
        int32_t k = 0;
        int32_t m = 0;
        for (int32_t i = 0; fc != nullptr && i < fc->nbFields; ++i)
        {
            PluginField const& field = fc->fields[i];
            if (std::strcmp(field.name, "weight") == 0 && field.type == PluginFieldType::kFLOAT32)
            {
                auto const* values = static_cast<float const*>(field.data);
                weight.assign(values, values + field.length);
            }
            else if (std::strcmp(field.name, "k") == 0 && field.type == PluginFieldType::kINT32)
            {
                k = *static_cast<int32_t const*>(field.data);
            }
            else if (std::strcmp(field.name, "m") == 0 && field.type == PluginFieldType::kINT32)
            {
                m = *static_cast<int32_t const*>(field.data);
            }
        }
        if (k <= 0 || m <= 0 || m > kMaxM || weight.size() != static_cast<std::size_t>(k) * static_cast<std::size_t>(m))
        {
            return nullptr;
        }
        return new LinearPlugin(std::move(weight), k, m);
    }
    PluginFieldCollection const* getFieldNames() noexcept override { return &mCollection; }
    char const* getPluginName() const noexcept override { return "ThirdPartyLinear"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    char const* getPluginNamespace() const noexcept override { return kNamespace; }

private:
    PluginField mNames[3];
    PluginFieldCollection mCollection{};
};

class ScalePluginV2 final : public IPluginV2DynamicExt
{
public:
    explicit ScalePluginV2(float scale)
        : mScale(scale)
    {
    }

    IPluginV2DynamicExt* clone() const noexcept override
    {
        auto* made = new ScalePluginV2(mScale);
        made->setPluginNamespace(mNamespace.c_str());
        return made;
    }
    DimsExprs getOutputDimensions(int32_t, DimsExprs const* inputs, int32_t nbInputs, IExprBuilder&) noexcept override
    {
        THIRD_PARTY_ASSERT(nbInputs == 1);
        return inputs[0];
    }
    bool supportsFormatCombination(
        int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept override
    {
        THIRD_PARTY_ASSERT(nbInputs == 1 && nbOutputs == 1 && pos < 2);
        bool const format = inOut[pos].format == TensorFormat::kLINEAR || inOut[pos].format == TensorFormat::kHWC;
        return inOut[pos].type == DataType::kFLOAT && format && (pos == 0 || inOut[pos].format == inOut[0].format);
    }
    void configurePlugin(
        DynamicPluginTensorDesc const*, int32_t, DynamicPluginTensorDesc const*, int32_t) noexcept override
    {
    }
    size_t getWorkspaceSize(PluginTensorDesc const*, int32_t, PluginTensorDesc const*, int32_t) const noexcept override
    {
        return 0;
    }
    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const*, void const* const* inputs,
        void* const* outputs, void*, cudaStream_t stream) noexcept override
    {
        if (mCublas == nullptr)
        {
            return 1; // attachToContext() gave no cuBLAS handle: the plugin needs TacticSource::kCUBLAS
        }
        int64_t count = 1;
        for (int32_t i = 0; i < inputDesc[0].dims.nbDims; ++i)
        {
            count *= inputDesc[0].dims.d[i];
        }
        if (cudaMemcpyAsync(
                outputs[0], inputs[0], static_cast<size_t>(count) * sizeof(float), cudaMemcpyDeviceToDevice, stream)
            != cudaSuccess)
        {
            return 2;
        }
        if (cublasSetStream(mCublas, stream) != CUBLAS_STATUS_SUCCESS
            || cublasSscal(mCublas, static_cast<int>(count), &mScale, static_cast<float*>(outputs[0]), 1)
                != CUBLAS_STATUS_SUCCESS)
        {
            return 3;
        }
        return 0;
    }
    void attachToContext(cudnnContext*, cublasContext* cublas, IGpuAllocator*) noexcept override { mCublas = cublas; }
    void detachFromContext() noexcept override { mCublas = nullptr; }
    DataType getOutputDataType(int32_t, DataType const* inputTypes, int32_t) const noexcept override
    {
        return inputTypes[0];
    }
    char const* getPluginType() const noexcept override { return "ThirdPartyScaleV2"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    int32_t getNbOutputs() const noexcept override { return 1; }
    int32_t initialize() noexcept override { return 0; }
    void terminate() noexcept override {}
    size_t getSerializationSize() const noexcept override { return sizeof(float); }
    void serialize(void* buffer) const noexcept override { std::memcpy(buffer, &mScale, sizeof(float)); }
    void destroy() noexcept override { delete this; }
    void setPluginNamespace(char const* pluginNamespace) noexcept override { mNamespace = pluginNamespace; }
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

private:
    float mScale{1.0F};
    cublasContext* mCublas{};
    std::string mNamespace{kNamespace};
};

class ScaleCreatorV2 final : public IPluginCreator
{
public:
    ScaleCreatorV2()
    {
        mNames[0] = PluginField("scale", nullptr, PluginFieldType::kFLOAT32, 1);
        mCollection.nbFields = 1;
        mCollection.fields = mNames;
    }
    char const* getPluginName() const noexcept override { return "ThirdPartyScaleV2"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    PluginFieldCollection const* getFieldNames() noexcept override { return &mCollection; }
    IPluginV2* createPlugin(char const*, PluginFieldCollection const* fc) noexcept override
    {
        float scale = 1.0F;
        for (int32_t i = 0; fc != nullptr && i < fc->nbFields; ++i)
        {
            if (std::strcmp(fc->fields[i].name, "scale") == 0 && fc->fields[i].type == PluginFieldType::kFLOAT32)
            {
                scale = *static_cast<float const*>(fc->fields[i].data);
            }
        }
        auto* made = new ScalePluginV2(scale);
        made->setPluginNamespace(mNamespace.c_str());
        return made;
    }
    IPluginV2* deserializePlugin(char const*, void const* data, size_t length) noexcept override
    {
        if (length != sizeof(float))
        {
            return nullptr;
        }
        float scale = 0.0F;
        std::memcpy(&scale, data, sizeof(float));
        auto* made = new ScalePluginV2(scale);
        made->setPluginNamespace(mNamespace.c_str());
        return made;
    }
    void setPluginNamespace(char const* pluginNamespace) noexcept override { mNamespace = pluginNamespace; }
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

private:
    PluginField mNames[1];
    PluginFieldCollection mCollection{};
    std::string mNamespace{kNamespace};
};

} // namespace

REGISTER_TENSORRT_PLUGIN(LinearCreator);
REGISTER_TENSORRT_PLUGIN(ScaleCreatorV2);

} // namespace third_party
