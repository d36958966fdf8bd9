// SPDX-License-Identifier: Apache-2.0
#include "tensors.h"

#include "files.h"
#include "logger.h"
#include "values.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <sstream>

namespace kiln_tool
{
namespace
{

using nvinfer1::DataType;

constexpr std::size_t kHostAlignment = 256;

//! The names of engine's inputs, for messages: "x, mask".
std::string inputNames(nvinfer1::ICudaEngine const& engine)
{
    std::string names;
    for (int32_t i = 0; i < engine.getNbIOTensors(); ++i)
    {
        char const* name = engine.getIOTensorName(i);
        if (engine.getTensorIOMode(name) == nvinfer1::TensorIOMode::kINPUT)
        {
            names += (names.empty() ? "" : ", ") + std::string(name);
        }
    }
    return names;
}

bool isInput(nvinfer1::ICudaEngine const& engine, std::string const& name)
{
    for (int32_t i = 0; i < engine.getNbIOTensors(); ++i)
    {
        char const* tensor = engine.getIOTensorName(i);
        if (name == tensor && engine.getTensorIOMode(tensor) == nvinfer1::TensorIOMode::kINPUT)
        {
            return true;
        }
    }
    return false;
}

bool isDynamic(nvinfer1::Dims const& dims)
{
    return dims.nbDims < 0 || std::any_of(dims.d, dims.d + dims.nbDims, [](int64_t d) { return d < 0; });
}

int64_t volume(nvinfer1::Dims const& dims)
{
    int64_t count = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        count *= dims.d[i];
    }
    return count;
}

std::string describe(IoTensor const& tensor)
{
    return std::string(tensor.input ? "input" : "output") + " '" + tensor.name + "' ("
        + std::string(typeName(tensor.type)) + ", "
        + (tensor.dims.nbDims == 0 ? std::string("scalar") : dimsText(tensor.dims)) + ")";
}

std::string jsonString(std::string const& text)
{
    std::ostringstream out;
    out << '"';
    for (char const c : text)
    {
        if (c == '"' || c == '\\')
        {
            out << '\\' << c;
        }
        else if (static_cast<unsigned char>(c) < 0x20)
        {
            out << "\\u" << std::hex << std::setw(4) << std::setfill('0') << static_cast<int>(c) << std::dec;
        }
        else
        {
            out << c;
        }
    }
    out << '"';
    return out.str();
}

void writeValue(std::ostream& out, IoTensor const& tensor, int64_t index)
{
    if (tensor.type == DataType::kINT64)
    {
        int64_t value = 0;
        std::memcpy(&value, static_cast<std::byte const*>(tensor.host) + index * 8, sizeof(value));
        out << value;
        return;
    }
    double const value = readValue(tensor.host, tensor.type, index);
    if (!std::isfinite(value))
    {
        out << "null";
    }
    else
    {
        out << value;
    }
}

} // namespace

ShapeMap inferenceShapes(nvinfer1::ICudaEngine const& engine, Options const& options)
{
    for (auto const* given : {&options.shapes, &options.optShapes})
    {
        for (auto const& [name, dims] : *given)
        {
            if (!isInput(engine, name))
            {
                throw Failure((given == &options.shapes ? "--shapes" : "--optShapes") + std::string(" names '") + name
                    + "', which is not an input of the engine (inputs: " + inputNames(engine) + ")");
            }
        }
    }
    ShapeMap shapes;
    for (int32_t i = 0; i < engine.getNbIOTensors(); ++i)
    {
        char const* name = engine.getIOTensorName(i);
        if (engine.getTensorIOMode(name) != nvinfer1::TensorIOMode::kINPUT)
        {
            continue;
        }
        if (engine.isShapeInferenceIO(name))
        {
            throw Failure(std::string("the input '") + name
                + "' is a shape tensor; the tool does not yet give shape tensors values");
        }
        nvinfer1::Dims const dims = engine.getTensorShape(name);
        if (!isDynamic(dims))
        {
            shapes[name] = dims;
        }
        else if (auto const run = options.shapes.find(name); run != options.shapes.end())
        {
            shapes[name] = run->second;
        }
        else if (auto const opt = options.optShapes.find(name); opt != options.optShapes.end())
        {
            shapes[name] = opt->second;
        }
        else
        {
            shapes[name] = engine.getProfileShape(name, 0, nvinfer1::OptProfileSelector::kOPT);
        }
    }
    return shapes;
}

IoBindings::IoBindings(nvinfer1::ICudaEngine const& engine, nvinfer1::IExecutionContext& context,
    ShapeMap const& shapes, std::vector<NamedFile> const& loadInputs, uint32_t seed)
{
    for (auto const& [name, dims] : shapes)
    {
        if (!context.setInputShape(name.c_str(), dims))
        {
            throw Failure("setInputShape('" + name + "', " + dimsText(dims)
                + ") failed: the shape is outside the engine's optimization profile or does not fit the input");
        }
    }
    for (int32_t i = 0; i < engine.getNbIOTensors(); ++i)
    {
        IoTensor tensor;
        tensor.name = engine.getIOTensorName(i);
        char const* name = tensor.name.c_str();
        tensor.input = engine.getTensorIOMode(name) == nvinfer1::TensorIOMode::kINPUT;
        tensor.type = engine.getTensorDataType(name);
        tensor.dims = context.getTensorShape(name);
        if (isDynamic(tensor.dims))
        {
            throw Failure("the output '" + tensor.name + "' has a data-dependent shape (" + dimsText(tensor.dims)
                + "); the tool does not yet bind outputs through an IOutputAllocator");
        }
        tensor.bytes = byteCount(tensor.type, volume(tensor.dims));
        tensor.onDevice = engine.getTensorLocation(name) == nvinfer1::TensorLocation::kDEVICE;
        mOnDevice = mOnDevice || tensor.onDevice;
        allocate(tensor);
        if (!context.setTensorAddress(name, tensor.onDevice ? tensor.device : tensor.host))
        {
            throw Failure("setTensorAddress('" + tensor.name + "') failed");
        }
        mTensors.push_back(std::move(tensor));
    }
    fillInputs(loadInputs, seed);
    if (mOnDevice)
    {
        gpu::Stream const stream;
        upload(stream);
        stream.synchronize();
    }
}

void IoBindings::allocate(IoTensor& tensor)
{
    if (tensor.onDevice)
    {
        auto const device = std::make_shared<gpu::DeviceMemory>(tensor.bytes);
        auto const pinned = std::make_shared<gpu::PinnedMemory>(tensor.bytes);
        tensor.device = device->get();
        tensor.host = pinned->get();
        mMemory.push_back(device);
        mMemory.push_back(pinned);
        return;
    }
    std::size_t const rounded
        = (std::max<std::size_t>(tensor.bytes, 1) + kHostAlignment - 1) / kHostAlignment * kHostAlignment;
    std::shared_ptr<void> host(std::aligned_alloc(kHostAlignment, rounded), std::free);
    if (host == nullptr)
    {
        throw Failure(
            "cannot allocate " + std::to_string(tensor.bytes) + " bytes of host memory for the " + describe(tensor));
    }
    std::memset(host.get(), 0, rounded);
    tensor.host = host.get();
    mMemory.push_back(std::move(host));
}

void IoBindings::fillInputs(std::vector<NamedFile> const& loadInputs, uint32_t seed)
{
    for (NamedFile const& file : loadInputs)
    {
        auto const tensor = std::find_if(
            mTensors.begin(), mTensors.end(), [&](IoTensor const& t) { return t.input && t.name == file.name; });
        if (tensor == mTensors.end())
        {
            std::string inputs;
            for (IoTensor const& t : mTensors)
            {
                inputs += t.input ? (inputs.empty() ? "" : ", ") + t.name : "";
            }
            throw Failure(
                "--loadInputs names '" + file.name + "', which is not an input of the engine (inputs: " + inputs + ")");
        }
    }
    for (IoTensor& tensor : mTensors)
    {
        if (!tensor.input)
        {
            continue;
        }
        auto const file = std::find_if(
            loadInputs.begin(), loadInputs.end(), [&](NamedFile const& f) { return f.name == tensor.name; });
        if (file == loadInputs.end())
        {
            fillRandom(tensor.host, tensor.type, volume(tensor.dims), seed++);
            continue;
        }
        std::vector<char> const bytes = readFile(file->path, "--loadInputs");
        if (bytes.size() != tensor.bytes)
        {
            throw Failure("--loadInputs: " + file->path + " holds " + std::to_string(bytes.size()) + " bytes, but the "
                + describe(tensor) + " takes " + std::to_string(tensor.bytes));
        }
        std::memcpy(tensor.host, bytes.data(), bytes.size());
    }
}

void IoBindings::upload(gpu::Stream const& stream) const
{
    for (IoTensor const& tensor : mTensors)
    {
        if (tensor.input && tensor.onDevice && tensor.bytes > 0)
        {
            gpu::copyAsync(tensor.device, tensor.host, tensor.bytes, gpu::Direction::kHOST_TO_DEVICE, stream);
        }
    }
}

void IoBindings::download(gpu::Stream const& stream) const
{
    for (IoTensor const& tensor : mTensors)
    {
        if (!tensor.input && tensor.onDevice && tensor.bytes > 0)
        {
            gpu::copyAsync(tensor.host, tensor.device, tensor.bytes, gpu::Direction::kDEVICE_TO_HOST, stream);
        }
    }
}

void writeOutputsJson(std::vector<IoTensor> const& tensors, std::string const& path)
{
    std::ostringstream out;
    out << std::setprecision(9);
    out << "[\n";
    char const* separator = "  ";
    for (IoTensor const& tensor : tensors)
    {
        if (tensor.input)
        {
            continue;
        }
        out << separator << "{ \"name\" : " << jsonString(tensor.name) << "\n";
        separator = ", ";
        out << "  " << separator << "\"dimensions\" : \"" << dimsText(tensor.dims) << "\"\n";
        out << "  " << separator << "\"values\" : [ ";
        int64_t const count = volume(tensor.dims);
        for (int64_t i = 0; i < count; ++i)
        {
            out << (i > 0 ? ", " : "");
            writeValue(out, tensor, i);
        }
        out << " ]\n  }\n";
    }
    out << "]\n";
    std::string const text = out.str();
    writeFile(path, text.data(), text.size(), "--exportOutput");
}

} // namespace kiln_tool
