// SPDX-License-Identifier: Apache-2.0
// kiln_onnx_conformance: runs ONNX's backend node tests (Debian's libonnx-testdata) through kiln's parser, builder
// and host backend, and compares the outputs with the expected ones as ONNX's runner does (same element type and
// shape; |actual - expected| <= 1e-7 + 1e-3 * |expected|, NaN equal to NaN).
//
//     kiln_onnx_conformance [--data DIR] [--filter REGEX] [--report FILE.md] [--backend host|cuda] [--quiet]
//
// --backend cuda builds CUDA engines (on a machine with a GPU, in a build with the CUDA runtime): the same tests
// then check kiln's CUDA kernels against ONNX's expected outputs.
//
// Each test runs in a child process, so a crash or a hang is counted (as "crashed") instead of ending the run. A
// test is "unsupported" when the parser refuses the model or its inputs/outputs have types kiln lacks (the refusal
// must be a clean error), "failed" when kiln parsed it but the build, the run or the comparison failed. Like
// onnx-tensorrt's backend, a model whose parse or build fails with all graph inputs as network inputs is tried again
// with every input but the first as an initializer (the tests have no initializers; ops such as Reshape need their
// shape at build time).
#include "NvInfer.h"
#include "NvOnnxParser.h"

#include <onnx/onnx_pb.h>

#ifdef KILN_CONFORMANCE_CUDA
#include <cuda_runtime_api.h>
#endif

#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using nvinfer1::DataType;
using nvinfer1::Dims;

namespace
{

enum class Status
{
    kPASSED,
    kFAILED,
    kUNSUPPORTED,
    kCRASHED,
};

char const* statusName(Status status)
{
    switch (status)
    {
    case Status::kPASSED: return "passed";
    case Status::kFAILED: return "failed";
    case Status::kUNSUPPORTED: return "unsupported";
    case Status::kCRASHED: return "crashed";
    }
    return "?";
}

struct Outcome
{
    Status status;
    std::string reason;
};

class QuietLogger : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* message) noexcept override
    {
        if (severity <= Severity::kERROR && mLast.size() < 4000)
        {
            mLast += std::string(message) + "\n";
        }
    }
    std::string mLast;
};

std::string readFile(fs::path const& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

//! A tensor's element type in kiln's terms; nullopt for types kiln lacks (exactly: no DOUBLE -> FLOAT here).
std::optional<DataType> exactType(int32_t onnxType)
{
    switch (onnxType)
    {
    case onnx::TensorProto::FLOAT: return DataType::kFLOAT;
    case onnx::TensorProto::FLOAT16: return DataType::kHALF;
    case onnx::TensorProto::BFLOAT16: return DataType::kBF16;
    case onnx::TensorProto::INT8: return DataType::kINT8;
    case onnx::TensorProto::UINT8: return DataType::kUINT8;
    case onnx::TensorProto::INT32: return DataType::kINT32;
    case onnx::TensorProto::INT64: return DataType::kINT64;
    case onnx::TensorProto::BOOL: return DataType::kBOOL;
    default: return std::nullopt;
    }
}

size_t elementSize(DataType type)
{
    switch (type)
    {
    case DataType::kINT64: return 8;
    case DataType::kFLOAT:
    case DataType::kINT32: return 4;
    case DataType::kHALF:
    case DataType::kBF16: return 2;
    default: return 1;
    }
}

//! A test tensor: type, shape, bytes.
struct HostTensor
{
    DataType type{DataType::kFLOAT};
    Dims shape{0, {}};
    std::vector<std::byte> bytes;
    int64_t count() const
    {
        int64_t n = 1;
        for (int32_t i = 0; i < shape.nbDims; ++i)
        {
            n *= shape.d[i];
        }
        return n;
    }
};

template <typename Field, typename T>
void fromField(Field const& field, HostTensor& t)
{
    t.bytes.resize(static_cast<size_t>(field.size()) * sizeof(T));
    for (int i = 0; i < field.size(); ++i)
    {
        T v = static_cast<T>(field[i]);
        std::memcpy(t.bytes.data() + static_cast<size_t>(i) * sizeof(T), &v, sizeof(T));
    }
}

std::optional<HostTensor> toHost(onnx::TensorProto const& proto, std::string& why)
{
    std::optional<DataType> type = exactType(proto.data_type());
    if (!type)
    {
        why = "element type "
            + onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(proto.data_type()))
            + " is not a kiln type";
        return std::nullopt;
    }
    HostTensor t;
    t.type = *type;
    t.shape.nbDims = proto.dims_size();
    for (int i = 0; i < proto.dims_size(); ++i)
    {
        t.shape.d[i] = proto.dims(i);
    }
    if (proto.has_raw_data())
    {
        t.bytes.resize(proto.raw_data().size());
        if (!t.bytes.empty())
        {
            std::memcpy(t.bytes.data(), proto.raw_data().data(), t.bytes.size());
        }
    }
    else
    {
        switch (proto.data_type())
        {
        case onnx::TensorProto::FLOAT: fromField<decltype(proto.float_data()), float>(proto.float_data(), t); break;
        case onnx::TensorProto::INT64: fromField<decltype(proto.int64_data()), int64_t>(proto.int64_data(), t); break;
        case onnx::TensorProto::INT32: fromField<decltype(proto.int32_data()), int32_t>(proto.int32_data(), t); break;
        case onnx::TensorProto::FLOAT16:
        case onnx::TensorProto::BFLOAT16:
            fromField<decltype(proto.int32_data()), uint16_t>(proto.int32_data(), t);
            break;
        case onnx::TensorProto::INT8: fromField<decltype(proto.int32_data()), int8_t>(proto.int32_data(), t); break;
        default: fromField<decltype(proto.int32_data()), uint8_t>(proto.int32_data(), t); break;
        }
    }
    if (t.bytes.size() != static_cast<size_t>(t.count()) * elementSize(t.type))
    {
        why = "test data of unexpected size";
        return std::nullopt;
    }
    return t;
}

double valueAt(HostTensor const& t, int64_t i)
{
    auto const* p = t.bytes.data() + static_cast<size_t>(i) * elementSize(t.type);
    auto read = [p](auto v) {
        std::memcpy(&v, p, sizeof v);
        return v;
    };
    switch (t.type)
    {
    case DataType::kFLOAT: return read(float{});
    case DataType::kHALF:
    {
        uint16_t h = read(uint16_t{});
        uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
        if (exp == 0)
        {
            return (sign ? -1.0 : 1.0) * std::ldexp(static_cast<double>(man), -24);
        }
        if (exp == 31)
        {
            return man != 0 ? NAN : (sign ? -INFINITY : INFINITY);
        }
        uint32_t bits = sign | ((exp + 112) << 23) | (man << 13);
        float f;
        std::memcpy(&f, &bits, 4);
        return f;
    }
    case DataType::kBF16:
    {
        uint32_t bits = static_cast<uint32_t>(read(uint16_t{})) << 16;
        float f;
        std::memcpy(&f, &bits, 4);
        return f;
    }
    case DataType::kINT8: return read(int8_t{});
    case DataType::kUINT8: return read(uint8_t{});
    case DataType::kBOOL: return read(uint8_t{}) != 0 ? 1.0 : 0.0;
    case DataType::kINT32: return read(int32_t{});
    case DataType::kINT64: return static_cast<double>(read(int64_t{}));
    default: return NAN;
    }
}

std::string dimsText(Dims const& d)
{
    std::string s = "[";
    for (int32_t i = 0; i < d.nbDims; ++i)
    {
        s += (i ? "," : "") + std::to_string(d.d[i]);
    }
    return s + "]";
}

//! Device memory for a CUDA engine's I/O (only in builds with the CUDA runtime, KILN_CONFORMANCE_CUDA).
class DeviceBuffer
{
public:
    DeviceBuffer() = default;
    DeviceBuffer(DeviceBuffer const&) = delete;
    DeviceBuffer& operator=(DeviceBuffer const&) = delete;
    ~DeviceBuffer() { release(); }

    //! size bytes of device memory (the old contents are dropped); nullptr when there is no CUDA runtime.
    void* resize(size_t size)
    {
        release();
#ifdef KILN_CONFORMANCE_CUDA
        if (cudaMalloc(&mData, std::max<size_t>(size, 1)) != cudaSuccess)
        {
            mData = nullptr;
        }
#else
        (void)size;
#endif
        return mData;
    }
    bool upload(void const* host, size_t size)
    {
#ifdef KILN_CONFORMANCE_CUDA
        return resize(size) != nullptr && cudaMemcpy(mData, host, size, cudaMemcpyHostToDevice) == cudaSuccess;
#else
        (void)host;
        (void)size;
        return false;
#endif
    }
    bool download(void* host, size_t size) const
    {
#ifdef KILN_CONFORMANCE_CUDA
        return size == 0 || cudaMemcpy(host, mData, size, cudaMemcpyDeviceToHost) == cudaSuccess;
#else
        (void)host;
        (void)size;
        return false;
#endif
    }
    void* data() const
    {
        return mData;
    }

private:
    void release()
    {
#ifdef KILN_CONFORMANCE_CUDA
        if (mData != nullptr)
        {
            cudaFree(mData);
        }
#endif
        mData = nullptr;
    }
    void* mData{nullptr};
};

//! Grows output buffers as the engine asks (data-dependent shapes): host memory, or device memory for outputs a
//! CUDA engine writes on the GPU (copied to buffer by fetch()).
class Allocator final : public nvinfer1::IOutputAllocator
{
public:
    void* reallocateOutputAsync(char const*, void*, uint64_t size, uint64_t, cudaStream_t) noexcept override
    {
        buffer.resize(std::max<uint64_t>(size, 1));
        return onDevice ? device.resize(buffer.size()) : buffer.data();
    }
    void notifyShape(char const*, Dims const& dims) noexcept override { shape = dims; }
    //! The output's bytes into buffer (a no-op for host outputs).
    bool fetch() { return !onDevice || device.download(buffer.data(), buffer.size()); }

    bool onDevice{false};
    std::vector<std::byte> buffer;
    DeviceBuffer device;
    Dims shape{-1, {}};
};

//! Parses, builds and runs model with inputs; compares with expected.
Outcome runModel(std::string const& bytes, std::vector<std::pair<std::string, HostTensor>> const& inputs,
    std::vector<std::pair<std::string, HostTensor>> const& expected, bool& parseFailed)
{
    QuietLogger logger;
    parseFailed = false;
    std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger)};
    std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
    std::unique_ptr<nvonnxparser::IParser> parser{nvonnxparser::createParser(*network, logger)};
    if (!parser->parse(bytes.data(), bytes.size()))
    {
        parseFailed = true;
        std::string why = parser->getNbErrors() > 0 ? parser->getError(0)->desc() : "parse failed";
        if (parser->getNbErrors() > 0 && parser->getError(0)->nodeOperator()[0] != '\0')
        {
            why = std::string(parser->getError(0)->nodeOperator()) + ": " + why;
        }
        return {Status::kUNSUPPORTED, why};
    }
    std::unique_ptr<nvinfer1::IBuilderConfig> config{builder->createBuilderConfig()};
    nvinfer1::IOptimizationProfile* profile = builder->createOptimizationProfile();
    bool needProfile = false;
    for (int32_t i = 0; i < network->getNbInputs(); ++i)
    {
        nvinfer1::ITensor* input = network->getInput(i);
        auto found
            = std::find_if(inputs.begin(), inputs.end(), [&](auto const& p) { return p.first == input->getName(); });
        if (found == inputs.end())
        {
            return {Status::kFAILED, std::string("no test data for network input ") + input->getName()};
        }
        for (auto k : {nvinfer1::OptProfileSelector::kMIN, nvinfer1::OptProfileSelector::kOPT,
                 nvinfer1::OptProfileSelector::kMAX})
        {
            profile->setDimensions(input->getName(), k, found->second.shape);
            if (input->isShapeTensor())
            {
                std::vector<int64_t> values;
                for (int64_t e = 0; e < found->second.count(); ++e)
                {
                    values.push_back(static_cast<int64_t>(valueAt(found->second, e)));
                }
                profile->setShapeValuesV2(input->getName(), k, values.data(), static_cast<int32_t>(values.size()));
            }
        }
        needProfile = true;
    }
    if (needProfile)
    {
        config->addOptimizationProfile(profile);
    }
    std::unique_ptr<nvinfer1::IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
    if (plan == nullptr)
    {
        return {Status::kFAILED, "build failed: " + logger.mLast};
    }
    std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(logger)};
    std::unique_ptr<nvinfer1::ICudaEngine> engine{runtime->deserializeCudaEngine(plan->data(), plan->size())};
    if (engine == nullptr)
    {
        return {Status::kFAILED, "the plan did not load: " + logger.mLast};
    }
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    std::map<std::string, DeviceBuffer> deviceInputs;
    for (auto const& [name, tensor] : inputs)
    {
        if (engine->getTensorIOMode(name.c_str()) != nvinfer1::TensorIOMode::kINPUT)
        {
            continue;
        }
        context->setInputShape(name.c_str(), tensor.shape);
        if (engine->getTensorLocation(name.c_str()) == nvinfer1::TensorLocation::kDEVICE)
        {
            DeviceBuffer& buffer = deviceInputs[name];
            if (!buffer.upload(tensor.bytes.data(), tensor.bytes.size()))
            {
                return {Status::kFAILED, "cannot copy input " + name + " to the GPU (a runner without CUDA?)"};
            }
            context->setInputTensorAddress(name.c_str(), buffer.data());
            continue;
        }
        context->setInputTensorAddress(name.c_str(), tensor.bytes.data());
    }
    std::map<std::string, Allocator> allocators;
    for (auto const& [name, want] : expected)
    {
        if (engine->getTensorIOMode(name.c_str()) != nvinfer1::TensorIOMode::kOUTPUT)
        {
            return {Status::kFAILED, "the engine has no output " + name};
        }
        Allocator& allocator = allocators[name];
        allocator.onDevice = engine->getTensorLocation(name.c_str()) == nvinfer1::TensorLocation::kDEVICE;
        context->setOutputAllocator(name.c_str(), &allocator);
    }
    if (!context->enqueueV3(nullptr))
    {
        return {Status::kFAILED, "enqueueV3 failed: " + logger.mLast};
    }
#ifdef KILN_CONFORMANCE_CUDA
    cudaDeviceSynchronize();
#endif
    for (auto const& [name, want] : expected)
    {
        Allocator& got = allocators[name];
        if (!got.fetch())
        {
            return {Status::kFAILED, "cannot copy output " + name + " from the GPU"};
        }
        DataType type = engine->getTensorDataType(name.c_str());
        if (type != want.type)
        {
            return {Status::kFAILED,
                "output " + name + " has type " + std::to_string(static_cast<int>(type)) + ", expected "
                    + std::to_string(static_cast<int>(want.type))};
        }
        Dims shape = got.shape.nbDims >= 0 ? got.shape : context->getTensorShape(name.c_str());
        if (shape.nbDims != want.shape.nbDims || !std::equal(shape.d, shape.d + shape.nbDims, want.shape.d))
        {
            return {Status::kFAILED,
                "output " + name + " has shape " + dimsText(shape) + ", expected " + dimsText(want.shape)};
        }
        HostTensor actual{type, shape, got.buffer};
        for (int64_t i = 0; i < want.count(); ++i)
        {
            double a = valueAt(actual, i);
            double e = valueAt(want, i);
            bool same = (std::isnan(a) && std::isnan(e)) || a == e
                || (std::isfinite(e) && std::fabs(a - e) <= 1e-7 + 1e-3 * std::fabs(e));
            if (!same)
            {
                std::ostringstream why;
                why << "output " << name << " element " << i << " is " << a << ", expected " << e;
                return {Status::kFAILED, why.str()};
            }
        }
    }
    return {Status::kPASSED, ""};
}

//! One test directory, in this process.
Outcome runTest(fs::path const& dir)
{
    onnx::ModelProto model;
    std::string bytes = readFile(dir / "model.onnx");
    if (!model.ParseFromString(bytes))
    {
        return {Status::kFAILED, "model.onnx does not parse as a ModelProto"};
    }
    fs::path data = dir / "test_data_set_0";
    std::vector<std::pair<std::string, HostTensor>> inputs;
    std::vector<onnx::TensorProto> inputProtos;
    int fed = 0;
    std::set<std::string> initializers;
    for (auto const& initializer : model.graph().initializer())
    {
        initializers.insert(initializer.name());
    }
    for (auto const& input : model.graph().input())
    {
        if (initializers.count(input.name()) != 0)
        {
            continue; // older models list their initializers as graph inputs too; no test data is given for them
        }
        if (!input.type().has_tensor_type())
        {
            return {Status::kUNSUPPORTED, "input " + input.name() + " is not a tensor (sequence or optional)"};
        }
        onnx::TensorProto proto;
        std::string raw = readFile(data / ("input_" + std::to_string(fed++) + ".pb"));
        if (!proto.ParseFromString(raw))
        {
            return {Status::kUNSUPPORTED, "input " + input.name() + " data is not a tensor"};
        }
        std::string why;
        std::optional<HostTensor> t = toHost(proto, why);
        if (!t)
        {
            return {Status::kUNSUPPORTED, "input " + input.name() + ": " + why};
        }
        inputs.emplace_back(input.name(), std::move(*t));
        proto.set_name(input.name());
        inputProtos.push_back(std::move(proto));
    }
    std::vector<std::pair<std::string, HostTensor>> expected;
    int index = 0;
    for (auto const& output : model.graph().output())
    {
        if (!output.type().has_tensor_type())
        {
            return {Status::kUNSUPPORTED, "output " + output.name() + " is not a tensor (sequence or optional)"};
        }
        onnx::TensorProto proto;
        if (!proto.ParseFromString(readFile(data / ("output_" + std::to_string(index++) + ".pb"))))
        {
            return {Status::kUNSUPPORTED, "output " + output.name() + " data is not a tensor"};
        }
        std::string why;
        std::optional<HostTensor> t = toHost(proto, why);
        if (!t)
        {
            return {Status::kUNSUPPORTED, "output " + output.name() + ": " + why};
        }
        expected.emplace_back(output.name(), std::move(*t));
    }

    bool parseFailed = false;
    Outcome first = runModel(bytes, inputs, expected, parseFailed);
    if (first.status == Status::kPASSED || inputProtos.size() < 2)
    {
        return first;
    }
    // Again with every input but the first as an initializer.
    onnx::ModelProto constant = model;
    for (size_t i = 1; i < inputProtos.size(); ++i)
    {
        *constant.mutable_graph()->add_initializer() = inputProtos[i];
    }
    std::string constantBytes = constant.SerializeAsString();
    std::vector<std::pair<std::string, HostTensor>> firstInput(inputs.begin(), inputs.begin() + 1);
    bool secondParseFailed = false;
    Outcome second = runModel(constantBytes, firstInput, expected, secondParseFailed);
    if (second.status == Status::kPASSED)
    {
        return second;
    }
    // Report the attempt that got further.
    return (parseFailed && !secondParseFailed) ? second : first;
}

//! One test in a child process, with a time limit.
Outcome runIsolated(fs::path const& dir, int timeoutSeconds)
{
    int fds[2];
    if (pipe(fds) != 0)
    {
        return {Status::kCRASHED, "pipe failed"};
    }
    pid_t child = fork();
    if (child == 0)
    {
        close(fds[0]);
        Outcome outcome = runTest(dir);
        std::string message = std::to_string(static_cast<int>(outcome.status)) + "\n" + outcome.reason;
        ssize_t written = write(fds[1], message.data(), message.size());
        (void)written;
        close(fds[1]);
        _exit(0);
    }
    close(fds[1]);
    std::string message;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSeconds);
    char buffer[4096];
    bool timedOut = false;
    while (true)
    {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0)
        {
            timedOut = true;
            break;
        }
        pollfd p{fds[0], POLLIN, 0};
        if (poll(&p, 1, static_cast<int>(left.count())) <= 0)
        {
            continue;
        }
        ssize_t n = read(fds[0], buffer, sizeof buffer);
        if (n <= 0)
        {
            break;
        }
        message.append(buffer, static_cast<size_t>(n));
    }
    close(fds[0]);
    if (timedOut)
    {
        kill(child, SIGKILL);
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (timedOut)
    {
        return {Status::kCRASHED, "timed out after " + std::to_string(timeoutSeconds) + " s"};
    }
    if (WIFSIGNALED(status))
    {
        return {Status::kCRASHED, std::string("killed by signal ") + strsignal(WTERMSIG(status))};
    }
    size_t newline = message.find('\n');
    if (newline == std::string::npos)
    {
        return {Status::kCRASHED, "exited without a result (status " + std::to_string(WEXITSTATUS(status)) + ")"};
    }
    std::string reason = message.substr(newline + 1);
    std::replace(reason.begin(), reason.end(), '\n', ' ');
    return {static_cast<Status>(std::stoi(message.substr(0, newline))), reason};
}

void writeReport(fs::path const& path, std::vector<std::pair<std::string, Outcome>> const& results,
    std::map<Status, int> const& counts)
{
    std::ofstream out(path);
    out << "# ONNX node conformance\n\n"
        << "ONNX's backend node tests from Debian's `libonnx-testdata` (ONNX 1.12.0) run through kiln's parser, "
           "builder and host backend by `kiln_onnx_conformance` (`tests/onnx/conformance.cpp`); this file is its "
           "`--report` output. Regenerate it with\n\n"
        << "    build/tests/onnx/kiln_onnx_conformance --report docs/onnx-conformance.md\n\n"
        << "Comparison as ONNX's runner: same element type and shape, |actual - expected| <= 1e-7 + 1e-3 |expected|. "
           "*unsupported*: the parser refused the model with an error, or its inputs or outputs have types kiln lacks "
           "(DOUBLE, STRING, UINT16/32/64, INT16, sequences, optionals). *failed*: parsed, but the build, the run or "
           "the comparison failed. *crashed*: the test process died or hung (each test runs in its own process).\n\n";
    out << "| passed | failed | unsupported | crashed | total |\n|---|---|---|---|---|\n";
    out << "| " << counts.at(Status::kPASSED) << " | " << counts.at(Status::kFAILED) << " | "
        << counts.at(Status::kUNSUPPORTED) << " | " << counts.at(Status::kCRASHED) << " | " << results.size()
        << " |\n\n";
    out << "| test | result | reason |\n|---|---|---|\n";
    for (auto const& [name, outcome] : results)
    {
        std::string reason = outcome.reason.substr(0, 200);
        std::replace(reason.begin(), reason.end(), '|', '/');
        out << "| " << name << " | " << statusName(outcome.status) << " | " << reason << " |\n";
    }
}

} // namespace

int main(int argc, char** argv)
{
    fs::path data = "/usr/share/libonnx-testdata/data/node";
    std::string filter = ".*";
    std::optional<fs::path> report;
    bool quiet = false;
    int timeout = 60;
    int minPassed = 0;
    std::string backend = "host";
    for (int i = 1; i < argc; ++i)
    {
        std::string arg = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc)
            {
                std::fprintf(stderr, "%s needs a value\n", arg.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (arg == "--data")
        {
            data = next();
        }
        else if (arg == "--filter")
        {
            filter = next();
        }
        else if (arg == "--report")
        {
            report = next();
        }
        else if (arg == "--timeout")
        {
            timeout = std::stoi(next());
        }
        else if (arg == "--min-passed")
        {
            minPassed = std::stoi(next());
        }
        else if (arg == "--backend")
        {
            backend = next();
        }
        else if (arg == "--quiet")
        {
            quiet = true;
        }
        else
        {
            std::printf("usage: kiln_onnx_conformance [--data DIR] [--filter REGEX] [--report FILE.md] "
                        "[--timeout SECONDS] [--min-passed N] [--backend host|cuda] [--quiet]\n"
                        "Runs the ONNX node tests under DIR (default %s) whose names match REGEX (search, not full "
                        "match) on kiln's host backend (or the CUDA one). Exits 1 when a test crashed or fewer than N "
                        "passed.\n",
                data.c_str());
            return arg == "--help" ? 0 : 2;
        }
    }
    setenv("KILN_BACKEND", backend.c_str(), 1);
    if (!fs::is_directory(data))
    {
        std::fprintf(stderr, "kiln_onnx_conformance: %s is not a directory (install libonnx-testdata)\n", data.c_str());
        return 2;
    }
    // POSIX extended regular expressions (GCC 12's <regex> trips -Wmaybe-uninitialized under the sanitizers).
    regex_t pattern;
    if (regcomp(&pattern, filter.c_str(), REG_EXTENDED | REG_NOSUB) != 0)
    {
        std::fprintf(
            stderr, "kiln_onnx_conformance: --filter '%s' is not a valid regular expression\n", filter.c_str());
        return 2;
    }
    std::vector<fs::path> tests;
    for (auto const& entry : fs::directory_iterator(data))
    {
        if (entry.is_directory() && fs::exists(entry.path() / "model.onnx")
            && regexec(&pattern, entry.path().filename().c_str(), 0, nullptr, 0) == 0)
        {
            tests.push_back(entry.path());
        }
    }
    regfree(&pattern);
    std::sort(tests.begin(), tests.end());
    std::map<Status, int> counts{
        {Status::kPASSED, 0}, {Status::kFAILED, 0}, {Status::kUNSUPPORTED, 0}, {Status::kCRASHED, 0}};
    std::vector<std::pair<std::string, Outcome>> results;
    for (fs::path const& test : tests)
    {
        Outcome outcome = runIsolated(test, timeout);
        ++counts[outcome.status];
        std::string name = test.filename().string();
        if (!quiet || outcome.status == Status::kCRASHED)
        {
            std::printf("%-11s %s%s%s\n", statusName(outcome.status), name.c_str(), outcome.reason.empty() ? "" : ": ",
                outcome.reason.substr(0, 300).c_str());
            std::fflush(stdout);
        }
        results.emplace_back(name, outcome);
    }
    std::printf("kiln_onnx_conformance: %d passed, %d failed, %d unsupported, %d crashed, of %zu\n",
        counts[Status::kPASSED], counts[Status::kFAILED], counts[Status::kUNSUPPORTED], counts[Status::kCRASHED],
        tests.size());
    if (report)
    {
        writeReport(*report, results, counts);
    }
    return counts[Status::kCRASHED] == 0 && counts[Status::kPASSED] >= minPassed ? 0 : 1;
}
