// SPDX-License-Identifier: Apache-2.0
// An execution context's I/O tensors bound for the kiln tool's inference. Each lives where
// ICudaEngine::getTensorLocation says: a tensor in host memory (every I/O tensor of a host engine) is bound to its host
// buffer; one in device memory (a CUDA engine's) to a device buffer, with a pinned host copy that upload() and
// download() copy from and to. Inputs hold --loadInputs' files or seeded random values.
//
//     ShapeMap const shapes = inferenceShapes(engine, options);   // each input's shape for this run
//     IoBindings io(engine, context, shapes, options.loadInputs);
//     io.upload(stream); context.enqueueV3(stream.get()); io.download(stream);
//     writeOutputsJson(io.tensors(), "out.json");
#pragma once

#include "gpu.h"
#include "options.h"
#include "specs.h"

#include "NvInfer.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln_tool
{

//! The shape each input of engine runs at: its own when static, else from --shapes, else from --optShapes, else its
//! profile 0's opt shape. A Failure when --shapes or --optShapes names a tensor that is not an input.
ShapeMap inferenceShapes(nvinfer1::ICudaEngine const& engine, Options const& options);

struct IoTensor
{
    std::string name;
    bool input{};
    nvinfer1::DataType type{};
    nvinfer1::Dims dims{};
    std::size_t bytes{};
    bool onDevice{}; //!< In device memory: device is bound, host is its staging copy.
    void* host{};    //!< The values in host memory (bound itself when !onDevice).
    void* device{};
};

class IoBindings
{
public:
    //! Sets each input's shape from shapes, binds every I/O tensor and fills the inputs (loadInputs' files, else
    //! random values: the first random input from seed, the next from seed + 1, and so on, in the engine's order);
    //! device inputs are uploaded once, synchronously.
    IoBindings(nvinfer1::ICudaEngine const& engine, nvinfer1::IExecutionContext& context, ShapeMap const& shapes,
        std::vector<NamedFile> const& loadInputs, uint32_t seed = 1);

    std::vector<IoTensor> const& tensors() const noexcept { return mTensors; }
    //! Whether any tensor is in device memory (a CUDA engine).
    bool onDevice() const noexcept { return mOnDevice; }

    //! Copies the device inputs from their host copies, on stream.
    void upload(gpu::Stream const& stream) const;
    //! Copies the device outputs to their host copies, on stream.
    void download(gpu::Stream const& stream) const;

private:
    //! Host memory for tensor: pinned when it is staged for the device, else aligned for kiln's host kernels.
    void allocate(IoTensor& tensor);
    void fillInputs(std::vector<NamedFile> const& loadInputs, uint32_t seed);

    std::vector<IoTensor> mTensors;
    std::vector<std::shared_ptr<void>> mMemory; //!< Owns every host and device buffer of mTensors.
    bool mOnDevice{};
};

//! Writes the outputs of tensors to path as trtexec's --exportOutput does: a JSON array of objects with the tensor's
//! "name", its "dimensions" ("2x3") and its "values" (non-finite values as null).
void writeOutputsJson(std::vector<IoTensor> const& tensors, std::string const& path);

} // namespace kiln_tool
