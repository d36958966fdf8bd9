// SPDX-License-Identifier: Apache-2.0
// plugin_host.cpp -- Python plugins on kiln's host backend. A Python plugin class that defines
//
//     enqueue_host(input_desc, output_desc, inputs, outputs, workspace)
//
// gets kiln's host capability (kiln::IPluginV3OneHost, include/kiln/plugin_host.h): the host backend calls that
// method where a GPU engine calls enqueue(), after the same set_tactic()/on_shape_change() sequence, on the object
// attach_to_context() returned. inputs and outputs are numpy arrays viewing the host buffers, shaped and typed by the
// descriptors (inputs read-only); the work must be done when the method returns. A buffer whose shape or size the
// descriptors do not give (an output with data-dependent extents, the workspace) arrives as a PluginHostBuffer, which
// makes numpy views of the shape the plugin decides. Arrays and buffers are valid during the call only.
//
//     def enqueue_host(self, input_desc, output_desc, inputs, outputs, workspace):
//         np.copyto(outputs[0], np.pad(inputs[0], self.pads, mode="wrap"))

#include "plugins_v3.h"

#include "kiln/plugin_host.h"
#include "kiln/plugin_quick.h"

namespace kiln::python
{

using namespace nvinfer1;

namespace
{

//! A host buffer the plugin sizes itself: its address, its element type and the extents known (-1 where the data
//! decides).
struct PluginHostBuffer
{
    std::uintptr_t address{};
    Dims dims{};
    DataType type{DataType::kUINT8};
    TensorFormat format{TensorFormat::kLINEAR};
};

//! The numpy type that holds one element of type: numpy's own where it has one, else an unsigned integer of the same
//! width (bfloat16 as uint16, FP8 and E8M0 as uint8); None for the 4-bit types (two to a byte).
py::object elementDtype(DataType type)
{
    py::object dtype = numpyDtype(type);
    if (!dtype.is_none())
    {
        return dtype;
    }
    switch (type)
    {
    case DataType::kBF16: return py::dtype::of<uint16_t>();
    case DataType::kFP8:
    case DataType::kE8M0: return py::dtype::of<uint8_t>();
    default: return py::none();
    }
}

//! A numpy view of shape over the host memory at address; nothing is copied and nothing is kept.
py::array hostArray(py::dtype const& dtype, std::vector<py::ssize_t> const& shape, void const* address, bool writable)
{
    // A capsule that frees nothing is the base object: numpy then views the memory instead of copying it.
    static char const kNoMemory = 0;
    py::capsule const base(address != nullptr ? address : &kNoMemory, [](void* /*memory*/) {});
    py::array array(dtype, shape, std::vector<py::ssize_t>{}, address != nullptr ? address : &kNoMemory, base);
    if (!writable)
    {
        array.attr("setflags")(py::arg("write") = false);
    }
    return array;
}

bool knownShape(Dims const& dims) noexcept
{
    if (dims.nbDims < 0 || dims.nbDims > Dims::MAX_DIMS)
    {
        return false;
    }
    return std::all_of(dims.d, dims.d + dims.nbDims, [](int64_t extent) { return extent >= 0; });
}

//! What enqueue_host() receives for one tensor: a numpy view when the descriptor gives the shape (linear format), a
//! flat uint8 view of the packed bytes for the 4-bit types, a PluginHostBuffer otherwise.
py::object tensorView(PluginTensorDesc const& desc, void const* data, bool writable)
{
    py::object const dtype = elementDtype(desc.type);
    if (!knownShape(desc.dims) || desc.format != TensorFormat::kLINEAR)
    {
        return py::cast(PluginHostBuffer{reinterpret_cast<std::uintptr_t>(data), desc.dims, desc.type, desc.format});
    }
    std::vector<py::ssize_t> shape(desc.dims.d, desc.dims.d + desc.dims.nbDims);
    py::ssize_t count = 1;
    for (py::ssize_t extent : shape)
    {
        count *= extent;
    }
    if (data == nullptr && count != 0)
    {
        throw PluginCallProblem("a tensor of " + std::to_string(count) + " elements has no memory");
    }
    if (dtype.is_none())
    {
        return hostArray(py::dtype::of<uint8_t>(), {(count + 1) / 2}, data, writable);
    }
    return hostArray(py::reinterpret_borrow<py::dtype>(dtype), shape, data, writable);
}

//! A numpy view of shape over buffer, of dtype (the buffer's element type when None).
py::array bufferArray(PluginHostBuffer const& buffer, py::object const& shape, py::object const& dtype)
{
    py::object type = dtype.is_none() ? elementDtype(buffer.type) : py::object(py::dtype::from_args(dtype));
    if (type.is_none())
    {
        throw py::type_error("numpy has no type for this buffer's elements; pass dtype= (numpy.uint8 for the bytes)");
    }
    Dims const dims = toDims(shape, "shape");
    std::vector<py::ssize_t> extents(dims.d, dims.d + dims.nbDims);
    if (std::any_of(extents.begin(), extents.end(), [](py::ssize_t extent) { return extent < 0; }))
    {
        throw py::value_error("as_array: extents must not be negative");
    }
    if (buffer.address == 0)
    {
        throw py::value_error("as_array: the buffer has no memory");
    }
    return hostArray(
        py::reinterpret_borrow<py::dtype>(type), extents, reinterpret_cast<void const*>(buffer.address), true);
}

//! A handle whose plugin defines enqueue_host(): kiln finds its host capability from its class (RTTI), as for a
//! C++ plugin that derives from kiln::IPluginV3OneHost.
class PluginV3HostHandle final : public PluginV3Handle, public kiln::IPluginV3OneHost
{
public:
    using PluginV3Handle::PluginV3Handle;

    nvinfer1::APILanguage getAPILanguage() const noexcept override { return nvinfer1::APILanguage::kPYTHON; }

    int32_t enqueueHost(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace) noexcept override
    {
        py::handle const self = mObject;
        return callPlugin([self] { return self; }, "enqueue_host", int32_t{-1},
            [&] {
                auto const counts = runtime().counts();
                if (!counts)
                {
                    throw PluginCallProblem("enqueue_host() was called before on_shape_change(), which tells the "
                                            "bindings the numbers of inputs and outputs");
                }
                auto const [nbInputs, nbOutputs] = *counts;
                mObject.attr("enqueue_host")(descList(inputDesc, nbInputs), descList(outputDesc, nbOutputs),
                    hostTensorViews(inputDesc, inputs, nbInputs, false),
                    hostTensorViews(outputDesc, const_cast<void const* const*>(outputs), nbOutputs, true),
                    hostWorkspace(workspace));
                return int32_t{0};
            });
    }

private:
    //! The plugin's runtime capability, which recorded on_shape_change()'s counts (found once, with the GIL held).
    PyPluginV3OneRuntime const& runtime()
    {
        if (mRuntime == nullptr)
        {
            IPluginCapability* const capability = mPlugin->getCapabilityInterface(PluginCapabilityType::kRUNTIME);
            mRuntime = dynamic_cast<PyPluginV3OneRuntime const*>(capability);
            if (mRuntime == nullptr)
            {
                throw PluginCallProblem(
                    "get_capability_interface(RUNTIME) gave no Python IPluginV3OneRuntime; enqueue_host() needs one");
            }
        }
        return *mRuntime;
    }

    PyPluginV3OneRuntime const* mRuntime{};
};

} // namespace

py::list hostTensorViews(PluginTensorDesc const* descs, void const* const* data, int32_t count, bool writable)
{
    py::list list;
    for (int32_t i = 0; i < count; ++i)
    {
        list.append(tensorView(descs[i], data[i], writable));
    }
    return list;
}

py::object hostWorkspace(void* workspace)
{
    if (workspace == nullptr)
    {
        return py::none();
    }
    return py::cast(PluginHostBuffer{
        reinterpret_cast<std::uintptr_t>(workspace), Dims{1, {-1}}, DataType::kUINT8, TensorFormat::kLINEAR});
}

std::unique_ptr<PluginV3Handle> makePluginHandle(py::object object, PyPluginV3& plugin)
{
    if (py::hasattr(object, "get_aot_kernel"))
    {
        return makeAotPluginHandle(std::move(object), plugin); // plugin_aot.cpp; the engine never runs the plugin
    }
    if (py::hasattr(object, "enqueue_host"))
    {
        if (py::isinstance<IPluginV3QuickRuntime>(object))
        {
            return makeQuickHostHandle(std::move(object), plugin); // plugins_quick.cpp
        }
        return std::make_unique<PluginV3HostHandle>(std::move(object), plugin);
    }
    return std::make_unique<PluginV3Handle>(std::move(object), plugin);
}

void bindPluginHost(py::module_& m)
{
    py::class_<PluginHostBuffer>(m, "PluginHostBuffer", py::module_local())
        .def_readonly("address", &PluginHostBuffer::address)
        .def_readonly("dims", &PluginHostBuffer::dims)
        .def_readonly("type", &PluginHostBuffer::type)
        .def_readonly("format", &PluginHostBuffer::format)
        .def("__int__", [](PluginHostBuffer const& self) { return self.address; })
        .def("__index__", [](PluginHostBuffer const& self) { return self.address; })
        .def("as_array", &bufferArray, py::arg("shape"), py::arg("dtype") = py::none())
        .def("__repr__", [](PluginHostBuffer const& self) {
            return "PluginHostBuffer(address=" + std::to_string(self.address)
                + ", dims=" + std::string(py::str(dimsToTuple(self.dims))) + ")";
        });
}

} // namespace kiln::python
