// SPDX-License-Identifier: Apache-2.0
// gpu.example_kernels: runs every V3 example plugin's CUDA enqueue() and its enqueueHost() (the host oracle) on the
// same seeded random inputs and requires the same output bytes. Exit status: 0 when every case matches, 1 when one
// differs or a plugin or CUDA call fails, 77 (ctest: skipped) when there is no usable GPU.
//
//     gpu_check: pool kINT8 average: 0 of 64 bytes differ OK
#include "bar_plugin/bar_plugin.h"
#include "dummy_plugin/dummy_plugin.h"
#include "element_types.h"
#include "example_common.h"
#include "foo_plugin/foo_plugin.h"
#include "identity_conv/identity_conv.h"
#include "kiln/plugin_host.h"
#include "pool_plugin/pool_plugin.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace nvinfer1;

namespace
{

constexpr int kSkipped = 77; //!< The exit status that the test's SKIP_RETURN_CODE makes ctest report as skipped.

using Bytes = std::vector<std::byte>;

//! status as "cudaErrorNoDevice (no CUDA-capable device is detected)".
std::string cudaMessage(cudaError_t status)
{
    return std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) + ")";
}

//! Prints "gpu_check: <label>: <what> FAILED" and returns false.
bool fail(std::string const& label, std::string const& what)
{
    std::printf("gpu_check: %s: %s FAILED\n", label.c_str(), what.c_str());
    std::fflush(stdout); // Keep the order with the plugins' messages on stderr.
    return false;
}

//! True when status is cudaSuccess; otherwise reports the call that failed and returns false.
bool cudaOk(cudaError_t status, std::string const& label, char const* call)
{
    return status == cudaSuccess || fail(label, std::string(call) + " returned " + cudaMessage(status));
}

//! Releases a CUDA object with release() from a destructor, where a failure can only be reported.
template <auto release>
struct CudaRelease
{
    template <typename Handle>
    void operator()(Handle* handle) const noexcept
    {
        cudaError_t const status = release(handle);
        if (status != cudaSuccess)
        {
            std::fprintf(stderr, "gpu_check: releasing a CUDA object: %s\n", cudaGetErrorString(status));
        }
    }
};
using DeviceBuffer = std::unique_ptr<void, CudaRelease<cudaFree>>;
using Stream = std::unique_ptr<CUstream_st, CudaRelease<cudaStreamDestroy>>;

//! One plugin input or output: its descriptor and its bytes in host memory.
struct Tensor
{
    PluginTensorDesc desc;
    Bytes bytes;
};

//! A zero-filled tensor of elements values: by default the volume of dims, which cannot have a -1 extent then.
Tensor zeros(Dims const& dims, DataType type, float scale = 1.0F, int64_t elements = -1)
{
    int64_t const count = elements >= 0 ? elements : example::volume(dims);
    return Tensor{PluginTensorDesc{dims, type, TensorFormat::kLINEAR, scale},
        Bytes(static_cast<std::size_t>(count * example::elementSize(type)))};
}

//! A tensor of uniform random values in [-range, range]; quantized types store them divided by scale.
Tensor randomTensor(Dims const& dims, DataType type, std::mt19937& random, float scale = 1.0F, float range = 4.0F)
{
    Tensor tensor = zeros(dims, type, scale);
    std::uniform_real_distribution<float> uniform(-range, range);
    for (int64_t i = 0; i < example::volume(dims); ++i)
    {
        example::storeElement(tensor.bytes.data(), type, i, uniform(random), scale);
    }
    return tensor;
}

//! One comparison: a plugin, its tensors and the tactic to run it with.
struct Case
{
    std::string label;
    std::unique_ptr<IPluginV3> plugin;
    std::vector<Tensor> inputs;
    std::vector<Tensor> outputs;
    int32_t tactic{0};
};

//! What the host and the device run of a case share: the tensors' descriptors and the workspace size.
struct Launch
{
    std::vector<PluginTensorDesc> in;
    std::vector<PluginTensorDesc> out;
    std::size_t workspaceSize{};
};

//! Runs enqueueHost() into outputs, which start as the zero-filled bytes of the case's outputs.
bool runOnHost(kiln::IPluginV3OneHost& host, Case const& test, Launch const& launch, std::vector<Bytes>& outputs)
{
    std::vector<void const*> inputAddresses;
    for (Tensor const& tensor : test.inputs)
    {
        inputAddresses.push_back(tensor.bytes.data());
    }
    std::vector<void*> outputAddresses;
    for (Bytes& output : outputs)
    {
        outputAddresses.push_back(output.data());
    }
    Bytes workspace(launch.workspaceSize);
    int32_t const status = host.enqueueHost(launch.in.data(), launch.out.data(), inputAddresses.data(),
        outputAddresses.data(), launch.workspaceSize > 0 ? workspace.data() : nullptr);
    return status == 0 || fail(test.label, "enqueueHost()");
}

//! A device copy of each tensor's bytes, owned by buffers, with its address appended to addresses.
bool upload(std::vector<Tensor> const& tensors, std::vector<DeviceBuffer>& buffers, std::vector<void*>& addresses,
    std::string const& label)
{
    for (Tensor const& tensor : tensors)
    {
        void* address = nullptr;
        if (!cudaOk(cudaMalloc(&address, tensor.bytes.size()), label, "cudaMalloc"))
        {
            return false;
        }
        buffers.emplace_back(address);
        addresses.push_back(address);
        if (!cudaOk(cudaMemcpy(address, tensor.bytes.data(), tensor.bytes.size(), cudaMemcpyHostToDevice), label,
                "cudaMemcpy to the device"))
        {
            return false;
        }
    }
    return true;
}

//! Runs enqueue() on a stream, with the outputs zero-filled as on the host, and copies the outputs into outputs.
bool runOnDevice(IPluginV3OneRuntime& runtime, Case const& test, Launch const& launch, std::vector<Bytes>& outputs)
{
    std::string const& label = test.label;
    std::vector<DeviceBuffer> buffers; // Owns the inputs, the outputs and the workspace.
    std::vector<void*> inputAddresses;
    std::vector<void*> outputAddresses;
    if (!upload(test.inputs, buffers, inputAddresses, label) || !upload(test.outputs, buffers, outputAddresses, label))
    {
        return false;
    }
    void* workspace = nullptr;
    if (launch.workspaceSize > 0 && !cudaOk(cudaMalloc(&workspace, launch.workspaceSize), label, "cudaMalloc"))
    {
        return false;
    }
    buffers.emplace_back(workspace);
    cudaStream_t created = nullptr;
    if (!cudaOk(cudaStreamCreate(&created), label, "cudaStreamCreate"))
    {
        return false;
    }
    Stream const stream(created);
    if (runtime.enqueue(
            launch.in.data(), launch.out.data(), inputAddresses.data(), outputAddresses.data(), workspace, stream.get())
        != 0)
    {
        return fail(label, "enqueue()");
    }
    bool ok = cudaOk(cudaStreamSynchronize(stream.get()), label, "cudaStreamSynchronize");
    for (std::size_t i = 0; ok && i < outputs.size(); ++i)
    {
        ok = cudaOk(cudaMemcpy(outputs[i].data(), outputAddresses[i], outputs[i].size(), cudaMemcpyDeviceToHost), label,
            "cudaMemcpy to the host");
    }
    return ok;
}

//! Configures the plugin, runs it both ways and prints "gpu_check: <label>: <n> of <total> bytes differ OK".
bool check(Case const& test)
{
    if (test.plugin == nullptr)
    {
        return fail(test.label, "createPlugin()");
    }
    IPluginV3& plugin = *test.plugin;
    auto* build = static_cast<IPluginV3OneBuild*>(plugin.getCapabilityInterface(PluginCapabilityType::kBUILD));
    auto* runtime = static_cast<IPluginV3OneRuntime*>(plugin.getCapabilityInterface(PluginCapabilityType::kRUNTIME));
    auto* host = static_cast<kiln::IPluginV3OneHost*>(plugin.getCapabilityInterface(kiln::kPLUGIN_CAPABILITY_HOST));
    if (build == nullptr || runtime == nullptr || host == nullptr)
    {
        return fail(test.label, "getCapabilityInterface() for kBUILD, kRUNTIME or the host capability");
    }
    // A profile whose minimum, optimum and maximum are the tensors' shapes.
    Launch launch;
    std::vector<DynamicPluginTensorDesc> dynamicIn;
    std::vector<DynamicPluginTensorDesc> dynamicOut;
    std::vector<Bytes> hostOutputs;
    for (Tensor const& tensor : test.inputs)
    {
        launch.in.push_back(tensor.desc);
        dynamicIn.push_back({tensor.desc, tensor.desc.dims, tensor.desc.dims, tensor.desc.dims});
    }
    for (Tensor const& tensor : test.outputs)
    {
        launch.out.push_back(tensor.desc);
        dynamicOut.push_back({tensor.desc, tensor.desc.dims, tensor.desc.dims, tensor.desc.dims});
        hostOutputs.push_back(tensor.bytes);
    }
    auto const nbIn = static_cast<int32_t>(launch.in.size());
    auto const nbOut = static_cast<int32_t>(launch.out.size());
    if (build->configurePlugin(dynamicIn.data(), nbIn, dynamicOut.data(), nbOut) != 0
        || runtime->setTactic(test.tactic) != 0
        || runtime->onShapeChange(launch.in.data(), nbIn, launch.out.data(), nbOut) != 0)
    {
        return fail(test.label, "configurePlugin(), setTactic() or onShapeChange()");
    }
    launch.workspaceSize = build->getWorkspaceSize(dynamicIn.data(), nbIn, dynamicOut.data(), nbOut);
    std::vector<Bytes> deviceOutputs = hostOutputs;
    if (!runOnHost(*host, test, launch, hostOutputs) || !runOnDevice(*runtime, test, launch, deviceOutputs))
    {
        return false;
    }
    std::size_t differing = 0;
    std::size_t total = 0;
    for (std::size_t i = 0; i < hostOutputs.size(); ++i)
    {
        for (std::size_t b = 0; b < hostOutputs[i].size(); ++b)
        {
            differing += hostOutputs[i][b] != deviceOutputs[i][b] ? 1 : 0;
        }
        total += hostOutputs[i].size();
    }
    std::string const what = std::to_string(differing) + " of " + std::to_string(total) + " bytes differ";
    return example::report("gpu_check", test.label + ": " + what, differing == 0);
}

//! A plugin from creator (null when there is none) for the build phase, with fields.
std::unique_ptr<IPluginV3> create(IPluginCreatorV3One* creator, std::vector<PluginField> const& fields)
{
    PluginFieldCollection const collection{static_cast<int32_t>(fields.size()), fields.data()};
    return std::unique_ptr<IPluginV3>{
        creator == nullptr ? nullptr : creator->createPlugin("gpu_check", &collection, TensorRTPhase::kBUILD)};
}

char const* typeName(DataType type)
{
    switch (type)
    {
    case DataType::kHALF: return "kHALF";
    case DataType::kBF16: return "kBF16";
    case DataType::kFP8: return "kFP8";
    case DataType::kINT8: return "kINT8";
    default: return "kFLOAT";
    }
}

//! Every case, in the order their inputs draw from random.
std::vector<Case> makeCases(std::mt19937& random)
{
    std::vector<Case> cases;
    // PadPlugin registers itself (REGISTER_TENSORRT_PLUGIN): [2,3,17,20] zero-padded to [2,3,32,32].
    cases.push_back({"pad kFLOAT", create(example::findV3Creator("PadPlugin", "1", ""), {}),
        {randomTensor(Dims4{2, 3, 17, 20}, DataType::kFLOAT, random)}, {zeros(Dims4{2, 3, 32, 32}, DataType::kFLOAT)}});
    // BarPlugin: R = 2 repeats of K selected pixels, at most H * W = 20, then K itself as a 0-D size tensor.
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF})
    {
        cases.push_back({std::string("bar ") + typeName(type), create(&barPluginCreator(), {}),
            {randomTensor(Dims4{2, 3, 4, 5}, type, random, 1.0F, 1.0F)},
            {zeros(Dims4{2, 3, 2, -1}, type, 1.0F, 2 * 3 * 2 * 20), zeros(Dims{0, {}}, DataType::kINT32)}});
    }
    // PoolPlugin: max over 2 x 2 windows, average over 3 x 2 ones; quantized types map [-4, 4] in, [-2, 2] out.
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kFP8, DataType::kINT8})
    {
        float const largest = type == DataType::kINT8 ? 127.0F : type == DataType::kFP8 ? 448.0F : 0.0F;
        float const inScale = largest > 0.0F ? 4.0F / largest : 1.0F;
        float const outScale = largest > 0.0F ? 2.0F / largest : 1.0F;
        for (int32_t const mode : {0, 1})
        {
            int32_t const window[2] = {mode == 0 ? 2 : 3, 2};
            cases.push_back({std::string("pool ") + typeName(type) + (mode == 0 ? " max" : " average"),
                create(&poolPluginCreator(),
                    {PluginField("mode", &mode, PluginFieldType::kINT32, 1),
                        PluginField("window", window, PluginFieldType::kINT32, 2)}),
                {randomTensor(Dims4{2, 4, 6, 8}, type, random, inScale)},
                {zeros(Dims4{2, 4, 6 / window[0], 8 / window[1]}, type, outScale)}});
        }
    }
    // FooPlugin: y = 2 x + W with each of its custom tactics.
    float const scale = 2.0F;
    for (int32_t const tactic : {1, 2})
    {
        cases.push_back({"foo tactic " + std::to_string(tactic),
            create(&fooPluginCreator(), {PluginField("scale", &scale, PluginFieldType::kFLOAT32, 1)}),
            {randomTensor(Dims2{3, 64}, DataType::kFLOAT, random)}, {zeros(Dims2{3, 64}, DataType::kFLOAT)}, tactic});
    }
    // DummyPlugin: y = b * (x * v + s) + a, with every field showing in the output.
    int32_t const intScalar = 7;
    float const floatVector[4] = {0.5F, -1.0F, 2.0F, 0.25F};
    DummyStruct const dummyStruct{3, 0.25F};
    cases.push_back({"dummy",
        create(&dummyPluginCreator(),
            {PluginField("intScalar", &intScalar, PluginFieldType::kINT32, 1),
                PluginField("floatVector", floatVector, PluginFieldType::kFLOAT32, 4),
                PluginField("dummyStruct", &dummyStruct, PluginFieldType::kUNKNOWN, sizeof(DummyStruct))}),
        {randomTensor(Dims2{5, 4}, DataType::kFLOAT, random)}, {zeros(Dims2{5, 4}, DataType::kFLOAT)}});
    // IdentityConv: a 1 x 1 convolution with one group per channel, X copied to the output; W stays FP32.
    int32_t const ones[2] = {1, 1};
    int32_t const pads[4] = {0, 0, 0, 0};
    int32_t const group = 3;
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF})
    {
        cases.push_back({std::string("identity_conv ") + typeName(type),
            create(&identityConvCreator(),
                {PluginField("kernel_shape", ones, PluginFieldType::kINT32, 2),
                    PluginField("strides", ones, PluginFieldType::kINT32, 2),
                    PluginField("pads", pads, PluginFieldType::kINT32, 4),
                    PluginField("group", &group, PluginFieldType::kINT32, 1)}),
            {randomTensor(Dims4{2, 3, 5, 7}, type, random), randomTensor(Dims4{3, 1, 1, 1}, DataType::kFLOAT, random)},
            {zeros(Dims4{2, 3, 5, 7}, type)}});
    }
    return cases;
}

} // namespace

int main()
{
    int deviceCount = 0;
    cudaError_t const status = cudaGetDeviceCount(&deviceCount);
    if (status != cudaSuccess || deviceCount == 0)
    {
        std::string const why = status != cudaSuccess ? cudaMessage(status) : "no devices";
        std::printf("gpu_check: skipped, no usable GPU: cudaGetDeviceCount: %s\n", why.c_str());
        return kSkipped;
    }
    std::mt19937 random(7);
    bool ok = true;
    for (Case const& test : makeCases(random))
    {
        ok = check(test) && ok;
    }
    std::printf("gpu_check: %s\n", ok ? "every kernel matches its host code" : "FAILED");
    return ok ? 0 : 1;
}
