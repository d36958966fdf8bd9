// SPDX-License-Identifier: Apache-2.0
// plugins_v2.cpp -- legacy V2 plugins written in Python: trt.IPluginV2DynamicExt and trt.IPluginCreator as base
// classes of Python classes (the form five of TensorRT's python_plugin samples use), their trampolines, and the
// handles through which C++ owns Python V2 plugins. IPluginCreator is bound here for C++ creators too.
//
//     class Pad(trt.IPluginV2DynamicExt):
//         def __init__(self, pads=(1, 1)):
//             trt.IPluginV2DynamicExt.__init__(self)
//             self.num_outputs, self.plugin_type, self.plugin_version, self.plugin_namespace = 1, "Pad", "1", ""
//             self.pads = pads                                          # plain Python state, copied by clone()
//         def get_output_datatype(self, index, input_types): return input_types[0]
//         def get_output_dimensions(self, output_index, inputs, expr_builder): return trt.DimsExprs(inputs[0])
//         def supports_format_combination(self, pos, in_out, num_inputs): return in_out[pos].type == trt.float32
//         def configure_plugin(self, inp, out): pass
//         def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream): ...   # on a GPU
//         def enqueue_host(self, input_desc, output_desc, inputs, outputs, workspace): ...      # kiln's host backend
//         def serialize(self): return json.dumps({"pads": list(self.pads)})                   # bytes or str
//         def clone(self): ...
//     class PadCreator(trt.IPluginCreator):   # name, plugin_version, plugin_namespace, field_names;
//         ...                                 # create_plugin(name, fc), deserialize_plugin(name, data: bytes)
//
// Ownership, as for V3 plugins (plugins_v3.h): the Python object owns its trampoline. What C++ receives from Python
// (create_plugin, deserialize_plugin, clone) is a PluginV2Handle holding a strong reference; the handle's destroy()
// calls the Python destroy() and drops the reference. IPluginV2Layer.plugin gives back the Python object.
//
// Calls: the GIL is taken around the Python call only; whatever it raises, a missing required method and a result of
// the wrong type are reported naming the plugin and the method, and C++ gets TensorRT's failure value, except two
// that would otherwise go on silently: get_output_datatype gives an invalid type and get_output_dimensions rank -1,
// which kiln refuses naming the layer. configure_plugin() returns nothing in C++, so its failure is kept: enqueue()
// and enqueue_host() refuse to run until a later configure_plugin() succeeds.
//
// Host backend: kiln runs V2 plugins there through a kiln::IPluginV2HostRunner registered for the plugin's name,
// version and namespace (include/kiln/plugin_host.h). The module registers its runner, for the process's life, for
// each Python V2 plugin C++ receives; the runner calls the plugin's enqueue_host(input_desc, output_desc, inputs,
// outputs, workspace) with numpy views (plugin_host.cpp).

#include "plugins_v2.h"

#include "plugins_v3.h"

#include "kiln/plugin_host.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <set>
#include <tuple>

namespace kiln::python
{

KILN_IGNORE_DEPRECATED_BEGIN

using namespace nvinfer1;

namespace
{

// ---- Results --------------------------------------------------------------------------------------------------------

PluginCallProblem badResult(char const* method, std::string const& problem)
{
    return PluginCallProblem(std::string(method) + "() returned " + problem);
}

std::string typeName(py::handle object)
{
    return std::string(py::str(py::type::handle_of(object).attr("__name__")));
}

template <typename T>
T resultAs(py::handle item, char const* method, char const* expected)
{
    try
    {
        return item.cast<T>();
    }
    catch (py::cast_error const&)
    {
        throw badResult(method, "a " + typeName(item) + " where " + expected + " was expected");
    }
}

//! A byte count from a Python int; PluginCallProblem for a negative one or another type.
std::size_t byteCount(py::handle result, char const* method)
{
    auto const bytes = resultAs<int64_t>(result, method, "an int (bytes)");
    if (bytes < 0)
    {
        throw badResult(method, std::to_string(bytes) + " bytes");
    }
    return static_cast<std::size_t>(bytes);
}

//! What serialize() returned as bytes: bytes or any buffer as they are, a str as UTF-8.
std::string serializedBytes(py::handle result)
{
    if (py::isinstance<py::bytes>(result) || py::isinstance<py::str>(result))
    {
        return result.cast<std::string>();
    }
    if (PyObject_CheckBuffer(result.ptr()) != 0)
    {
        return py::module_::import("builtins").attr("bytes")(result).cast<std::string>();
    }
    throw badResult("serialize", "a " + typeName(result) + "; it must return bytes or a str");
}

py::list addressList(void const* const* pointers, int32_t count)
{
    py::list list;
    for (int32_t i = 0; i < count; ++i)
    {
        list.append(py::int_(reinterpret_cast<std::uintptr_t>(pointers[i])));
    }
    return list;
}

std::string quotedOrUnset(std::optional<std::string> const& value)
{
    return value ? "\"" + *value + "\"" : std::string("(unset)");
}

std::string className(py::handle self)
{
    return std::string(py::str(py::type::handle_of(self).attr("__qualname__")));
}

// ---- The trampoline of IPluginV2DynamicExt -------------------------------------------------------------------------

//! The C++ object behind every Python trt.IPluginV2DynamicExt: the attributes num_outputs, plugin_type, plugin_version
//! and plugin_namespace live here; the methods call the Python ones. Owned by its Python object: destroy() does
//! nothing here (the handles C++ owns call the Python destroy()).
class PyPluginV2DynamicExt : public IPluginV2DynamicExt
{
public:
    PyPluginV2DynamicExt() = default;
    ~PyPluginV2DynamicExt() override = default;
    PyPluginV2DynamicExt(PyPluginV2DynamicExt const&) = delete;
    PyPluginV2DynamicExt& operator=(PyPluginV2DynamicExt const&) = delete;

    //! TensorRT's mark of an IPluginV2DynamicExt written in Python: kV2_DYNAMICEXT_PYTHON (0x43) in the top byte.
    int32_t getTensorRTVersion() const noexcept override
    {
        return static_cast<int32_t>((static_cast<uint32_t>(PluginVersion::kV2_DYNAMICEXT_PYTHON) << 24U)
            | (static_cast<uint32_t>(NV_TENSORRT_VERSION) & 0xFFFFFFU));
    }

    AsciiChar const* getPluginType() const noexcept override { return field(type, "plugin_type"); }
    AsciiChar const* getPluginVersion() const noexcept override { return field(version, "plugin_version"); }
    AsciiChar const* getPluginNamespace() const noexcept override { return field(pluginNamespace, "plugin_namespace"); }
    void setPluginNamespace(AsciiChar const* value) noexcept override;
    int32_t getNbOutputs() const noexcept override;
    DataType getOutputDataType(int32_t index, DataType const* inputTypes, int32_t nbInputs) const noexcept override;
    DimsExprs getOutputDimensions(
        int32_t outputIndex, DimsExprs const* inputs, int32_t nbInputs, IExprBuilder& exprBuilder) noexcept override;
    bool supportsFormatCombination(
        int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept override;
    void configurePlugin(DynamicPluginTensorDesc const* in, int32_t nbInputs, DynamicPluginTensorDesc const* out,
        int32_t nbOutputs) noexcept override;
    size_t getWorkspaceSize(PluginTensorDesc const* inputs, int32_t nbInputs, PluginTensorDesc const* outputs,
        int32_t nbOutputs) const noexcept override;
    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc, void const* const* inputs,
        void* const* outputs, void* workspace, cudaStream_t stream) noexcept override;
    int32_t initialize() noexcept override;
    void terminate() noexcept override;
    size_t getSerializationSize() const noexcept override;
    void serialize(void* buffer) const noexcept override;
    void destroy() noexcept override {}
    IPluginV2DynamicExt* clone() const noexcept override;

    //! Runs the plugin's enqueue_host() on host memory (kiln's host backend), as enqueue() would run on a GPU.
    int32_t enqueueHost(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace) noexcept;

    //! The Python plugin object (GIL held).
    py::handle self() const noexcept { return pythonSelf(this); }

    std::optional<int32_t> nbOutputs;
    std::optional<std::string> type;
    std::optional<std::string> version;
    std::optional<std::string> pluginNamespace;

private:
    template <typename Result, typename Body>
    Result call(char const* method, Result failure, Body&& body) const noexcept
    {
        return callPlugin([this] { return self(); }, method, failure, std::forward<Body>(body));
    }

    py::function required(char const* name) const { return requiredMethod(this, name); }

    //! value's text, or nullptr reported as an unset attribute.
    char const* field(std::optional<std::string> const& value, char const* attribute) const noexcept
    {
        return attributeText([this] { return self(); }, value, attribute, kSetInPluginInit);
    }

    //! The numbers of inputs (from the latest configure_plugin()) and outputs (num_outputs) method needs, as the
    //! C++ enqueue() signatures do not carry them; PluginCallProblem when configure_plugin() failed or never ran.
    std::pair<int32_t, int32_t> counts(char const* method) const;

    std::optional<int32_t> mNbInputs;
    std::optional<std::string> mConfigureFailure; //!< Why the latest configure_plugin() failed, if it did.
};

//! What C++ holds of a Python V2 plugin it was given: a strong reference to the Python object, and its trampoline,
//! to which every call goes. destroy() calls the Python destroy(), drops the reference and deletes the handle.
class PluginV2Handle final : public IPluginV2DynamicExt
{
public:
    PluginV2Handle(py::object object, PyPluginV2DynamicExt& plugin) noexcept
        : mObject(std::move(object))
        , mPlugin(&plugin)
    {
    }
    ~PluginV2Handle() override { drop(); }
    PluginV2Handle(PluginV2Handle const&) = delete;
    PluginV2Handle& operator=(PluginV2Handle const&) = delete;

    int32_t getTensorRTVersion() const noexcept override { return mPlugin->getTensorRTVersion(); }
    AsciiChar const* getPluginType() const noexcept override { return mPlugin->getPluginType(); }
    AsciiChar const* getPluginVersion() const noexcept override { return mPlugin->getPluginVersion(); }
    AsciiChar const* getPluginNamespace() const noexcept override { return mPlugin->getPluginNamespace(); }
    void setPluginNamespace(AsciiChar const* value) noexcept override { mPlugin->setPluginNamespace(value); }
    int32_t getNbOutputs() const noexcept override { return mPlugin->getNbOutputs(); }
    DataType getOutputDataType(int32_t index, DataType const* inputTypes, int32_t nbInputs) const noexcept override
    {
        return mPlugin->getOutputDataType(index, inputTypes, nbInputs);
    }
    DimsExprs getOutputDimensions(
        int32_t outputIndex, DimsExprs const* inputs, int32_t nbInputs, IExprBuilder& exprBuilder) noexcept override
    {
        return mPlugin->getOutputDimensions(outputIndex, inputs, nbInputs, exprBuilder);
    }
    bool supportsFormatCombination(
        int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept override
    {
        return mPlugin->supportsFormatCombination(pos, inOut, nbInputs, nbOutputs);
    }
    void configurePlugin(DynamicPluginTensorDesc const* in, int32_t nbInputs, DynamicPluginTensorDesc const* out,
        int32_t nbOutputs) noexcept override
    {
        mPlugin->configurePlugin(in, nbInputs, out, nbOutputs);
    }
    size_t getWorkspaceSize(PluginTensorDesc const* inputs, int32_t nbInputs, PluginTensorDesc const* outputs,
        int32_t nbOutputs) const noexcept override
    {
        return mPlugin->getWorkspaceSize(inputs, nbInputs, outputs, nbOutputs);
    }
    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc, void const* const* inputs,
        void* const* outputs, void* workspace, cudaStream_t stream) noexcept override
    {
        return mPlugin->enqueue(inputDesc, outputDesc, inputs, outputs, workspace, stream);
    }
    int32_t initialize() noexcept override { return mPlugin->initialize(); }
    void terminate() noexcept override { mPlugin->terminate(); }
    size_t getSerializationSize() const noexcept override { return mPlugin->getSerializationSize(); }
    void serialize(void* buffer) const noexcept override { mPlugin->serialize(buffer); }
    IPluginV2DynamicExt* clone() const noexcept override { return mPlugin->clone(); }
    void attachToContext(cudnnContext* cudnn, cublasContext* cublas, IGpuAllocator* allocator) noexcept override
    {
        mPlugin->attachToContext(cudnn, cublas, allocator);
    }
    void detachFromContext() noexcept override { mPlugin->detachFromContext(); }

    void destroy() noexcept override
    {
        if (mObject && Py_IsInitialized() != 0)
        {
            py::gil_scoped_acquire gil;
            py::handle const self = mObject;
            callPlugin([self] { return self; }, "destroy", 0,
                [&] {
                    if (py::function const f
                        = py::get_override(static_cast<PyPluginV2DynamicExt const*>(mPlugin), "destroy"))
                    {
                        f();
                    }
                    return 0;
                });
        }
        delete this;
    }

    PyPluginV2DynamicExt& python() const noexcept { return *mPlugin; }

    //! The Python plugin (GIL held).
    py::object object() const { return mObject; }

    //! Gives the reference to the caller instead of destroying the plugin (GIL held): for a plugin that goes back to
    //! Python.
    py::object release() { return std::move(mObject); }

private:
    void drop() noexcept
    {
        if (!mObject)
        {
            return;
        }
        if (Py_IsInitialized() == 0)
        {
            mObject.release(); // The interpreter is gone: nothing to free.
            return;
        }
        py::gil_scoped_acquire gil;
        mObject = py::object();
    }

    py::object mObject;
    PyPluginV2DynamicExt* mPlugin;
};

// ---- The host runner ------------------------------------------------------------------------------------------------

//! The trampoline of a plugin kiln gives the runner: a handle's, or a Python object's own; nullptr for a C++ plugin.
PyPluginV2DynamicExt* trampolineOf(IPluginV2& plugin) noexcept
{
    if (auto* const handle = dynamic_cast<PluginV2Handle*>(&plugin))
    {
        return &handle->python();
    }
    return dynamic_cast<PyPluginV2DynamicExt*>(&plugin);
}

//! kiln's host runner for every Python V2 plugin: calls its enqueue_host().
class PythonV2HostRunner final : public kiln::IPluginV2HostRunner
{
public:
    int32_t enqueueHost(IPluginV2& plugin, PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace) noexcept override
    {
        if (PyPluginV2DynamicExt* const python = trampolineOf(plugin))
        {
            return python->enqueueHost(inputDesc, outputDesc, inputs, outputs, workspace);
        }
        if (Py_IsInitialized() != 0)
        {
            py::gil_scoped_acquire gil;
            char const* const name = plugin.getPluginType();
            reportCallbackMessage("enqueue_host",
                std::string("the Python bindings' host runner was given the C++ plugin \"")
                    + (name != nullptr ? name : "") + "\", which has the name, version and namespace of a Python "
                    + "IPluginV2DynamicExt; give C++ and Python plugins different names");
        }
        return -1;
    }
};

PythonV2HostRunner& hostRunner() noexcept
{
    static auto* runner = new PythonV2HostRunner; // Never destroyed: engines may outlive the module's statics.
    return *runner;
}

//! Registers the module's host runner for plugin's name, version and namespace, once per process and identity (kiln
//! logs an error if another runner holds it). Nothing while an attribute is unset. Called with the GIL held; the lock
//! is not held while kiln logs, which may call a Python logger that lets other threads run.
void offerHostRunner(PyPluginV2DynamicExt const& plugin)
{
    if (!plugin.type || !plugin.version || !plugin.pluginNamespace)
    {
        return;
    }
    static std::mutex mutex;
    static std::set<std::tuple<std::string, std::string, std::string>> offered;
    {
        std::lock_guard<std::mutex> const lock(mutex);
        if (!offered.emplace(*plugin.type, *plugin.version, *plugin.pluginNamespace).second)
        {
            return;
        }
    }
    kilnRegisterPluginV2HostRunner(
        plugin.type->c_str(), plugin.version->c_str(), plugin.pluginNamespace->c_str(), &hostRunner());
}

// ---- Handles ------------------------------------------------------------------------------------------------------

//! The C++ plugin for what a Python method returned (create_plugin, deserialize_plugin, clone): nullptr for None, a
//! new handle for a Python IPluginV2DynamicExt; PluginCallProblem for anything else. GIL held; the caller owns it.
IPluginV2DynamicExt* adoptPluginV2(py::handle result, char const* method)
{
    if (result.is_none())
    {
        return nullptr;
    }
    if (!py::isinstance<PyPluginV2DynamicExt>(result))
    {
        throw badResult(
            method, "a " + typeName(result) + "; it must return a Python plugin (a trt.IPluginV2DynamicExt) or None");
    }
    auto* const plugin = result.cast<PyPluginV2DynamicExt*>();
    if (plugin == nullptr)
    {
        throw badResult(method, "a plugin whose IPluginV2DynamicExt.__init__ was not called");
    }
    offerHostRunner(*plugin);
    return new PluginV2Handle(py::reinterpret_borrow<py::object>(result), *plugin);
}

//! The Python object of a plugin C++ gave away (a creator's, called from Python): the Python plugin behind a handle
//! (the handle is deleted without destroy()), else the C++ plugin, owned by Python.
py::object pluginV2ToPython(IPluginV2* owned)
{
    if (owned == nullptr)
    {
        return py::none();
    }
    if (auto* const handle = dynamic_cast<PluginV2Handle*>(owned))
    {
        py::object object = handle->release();
        delete handle;
        return object;
    }
    return py::cast(std::unique_ptr<IPluginV2, PluginV2Destroy>(owned));
}

// ---- The trampoline's methods ------------------------------------------------------------------------------------

void PyPluginV2DynamicExt::setPluginNamespace(AsciiChar const* value) noexcept
{
    call("plugin_namespace", 0, [&] {
        pluginNamespace = value != nullptr ? value : "";
        offerHostRunner(*this);
        return 0;
    });
}

int32_t PyPluginV2DynamicExt::getNbOutputs() const noexcept
{
    if (nbOutputs)
    {
        return *nbOutputs;
    }
    return call("num_outputs", int32_t{-1}, []() -> int32_t {
        throw PluginCallProblem("AttributeError: num_outputs not initialized; set it in the plugin's __init__");
    });
}

DataType PyPluginV2DynamicExt::getOutputDataType(
    int32_t index, DataType const* inputTypes, int32_t nbInputs) const noexcept
{
    // Not TensorRT's DataType{} (FLOAT) on failure: an invalid type, which kiln refuses naming the layer.
    return call("get_output_datatype", static_cast<DataType>(-1), [&] {
        py::list types;
        for (int32_t i = 0; i < nbInputs; ++i)
        {
            types.append(inputTypes[i]);
        }
        return resultAs<DataType>(required("get_output_datatype")(index, types), "get_output_datatype", "a DataType");
    });
}

DimsExprs PyPluginV2DynamicExt::getOutputDimensions(
    int32_t outputIndex, DimsExprs const* inputs, int32_t nbInputs, IExprBuilder& exprBuilder) noexcept
{
    return call("get_output_dimensions", DimsExprs{-1, {}}, [&] {
        py::list inputList;
        for (int32_t i = 0; i < nbInputs; ++i)
        {
            inputList.append(py::cast(inputs[i]));
        }
        py::object const builder = py::cast(&exprBuilder, py::return_value_policy::reference);
        py::object const result = required("get_output_dimensions")(outputIndex, inputList, builder);
        try
        {
            return toDimsExprs(result);
        }
        catch (PluginCallProblem const&)
        {
            throw badResult("get_output_dimensions",
                "a " + typeName(result) + "; it must return a DimsExprs (or a list of IDimensionExpr)");
        }
    });
}

bool PyPluginV2DynamicExt::supportsFormatCombination(
    int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept
{
    return call("supports_format_combination", false, [&] {
        py::object const result
            = required("supports_format_combination")(pos, descList(inOut, nbInputs + nbOutputs), nbInputs);
        return resultAs<bool>(result, "supports_format_combination", "a bool");
    });
}

void PyPluginV2DynamicExt::configurePlugin(
    DynamicPluginTensorDesc const* in, int32_t nbInputs, DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept
{
    mNbInputs = nbInputs;
    mConfigureFailure = "it raised or was not implemented (the error above)";
    call("configure_plugin", 0, [&] {
        required("configure_plugin")(dynamicDescList(in, nbInputs), dynamicDescList(out, nbOutputs));
        mConfigureFailure.reset();
        return 0;
    });
}

size_t PyPluginV2DynamicExt::getWorkspaceSize(
    PluginTensorDesc const* inputs, int32_t nbInputs, PluginTensorDesc const* outputs, int32_t nbOutputs) const noexcept
{
    return call("get_workspace_size", size_t{0}, [&] {
        py::function const f = py::get_override(this, "get_workspace_size");
        return f ? byteCount(f(descList(inputs, nbInputs), descList(outputs, nbOutputs)), "get_workspace_size")
                 : size_t{0};
    });
}

std::pair<int32_t, int32_t> PyPluginV2DynamicExt::counts(char const* method) const
{
    if (mConfigureFailure)
    {
        throw PluginCallProblem(
            std::string(method) + "() was not run: the latest configure_plugin() failed; " + *mConfigureFailure);
    }
    if (!mNbInputs)
    {
        throw PluginCallProblem(std::string(method)
            + "() was called before configure_plugin(), which tells the bindings the number of inputs");
    }
    if (!nbOutputs)
    {
        throw PluginCallProblem("AttributeError: num_outputs not initialized; set it in the plugin's __init__");
    }
    return {*mNbInputs, *nbOutputs};
}

int32_t PyPluginV2DynamicExt::enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
    void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept
{
    return call("enqueue", int32_t{-1}, [&] {
        auto const [nbInputs, nbOutputs] = counts("enqueue");
        required("enqueue")(descList(inputDesc, nbInputs), descList(outputDesc, nbOutputs),
            addressList(inputs, nbInputs), addressList(const_cast<void const* const*>(outputs), nbOutputs),
            py::int_(reinterpret_cast<std::uintptr_t>(workspace)), py::int_(reinterpret_cast<std::uintptr_t>(stream)));
        return int32_t{0};
    });
}

int32_t PyPluginV2DynamicExt::enqueueHost(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
    void const* const* inputs, void* const* outputs, void* workspace) noexcept
{
    return call("enqueue_host", int32_t{-1}, [&] {
        auto const [nbInputs, nbOutputs] = counts("enqueue_host");
        py::object const object = py::reinterpret_borrow<py::object>(self());
        if (!py::hasattr(object, "enqueue_host"))
        {
            throw PluginCallProblem(
                "it cannot run on kiln's host backend: its class defines no enqueue_host(input_desc, output_desc, "
                "inputs, outputs, workspace) method, which kiln's host backend calls in place of enqueue() "
                "(docs/python.md)");
        }
        object.attr("enqueue_host")(descList(inputDesc, nbInputs), descList(outputDesc, nbOutputs),
            hostTensorViews(inputDesc, inputs, nbInputs, false),
            hostTensorViews(outputDesc, const_cast<void const* const*>(outputs), nbOutputs, true),
            hostWorkspace(workspace));
        return int32_t{0};
    });
}

int32_t PyPluginV2DynamicExt::initialize() noexcept
{
    // Optional; what it returns is ignored, as in TensorRT's bindings: only an exception fails it.
    return call("initialize", int32_t{-1}, [&] {
        if (py::function const f = py::get_override(static_cast<PyPluginV2DynamicExt const*>(this), "initialize"))
        {
            f();
        }
        return int32_t{0};
    });
}

void PyPluginV2DynamicExt::terminate() noexcept
{
    call("terminate", 0, [&] {
        if (py::function const f = py::get_override(static_cast<PyPluginV2DynamicExt const*>(this), "terminate"))
        {
            f();
        }
        return 0;
    });
}

size_t PyPluginV2DynamicExt::getSerializationSize() const noexcept
{
    bool overridden = false;
    size_t const size = call("get_serialization_size", size_t{0}, [&] {
        py::function const f = py::get_override(this, "get_serialization_size");
        overridden = static_cast<bool>(f);
        return f ? byteCount(f(), "get_serialization_size") : size_t{0};
    });
    if (overridden)
    {
        return size;
    }
    // The default, as in TensorRT's bindings: the length of what serialize() gives.
    return call("serialize", size_t{0}, [&] { return serializedBytes(required("serialize")()).size(); });
}

void PyPluginV2DynamicExt::serialize(void* buffer) const noexcept
{
    call("serialize", 0, [&] {
        std::string const bytes = serializedBytes(required("serialize")());
        std::size_t size = bytes.size();
        if (py::function const f = py::get_override(this, "get_serialization_size"))
        {
            size = byteCount(f(), "get_serialization_size");
        }
        // buffer holds the size get_serialization_size() gives: never more is written.
        std::memcpy(buffer, bytes.data(), std::min(size, bytes.size()));
        if (size != bytes.size())
        {
            std::memset(
                static_cast<char*>(buffer) + std::min(size, bytes.size()), 0, size - std::min(size, bytes.size()));
            throw badResult("serialize",
                std::to_string(bytes.size()) + " bytes, but get_serialization_size() gives " + std::to_string(size));
        }
        return 0;
    });
}

IPluginV2DynamicExt* PyPluginV2DynamicExt::clone() const noexcept
{
    return call("clone", static_cast<IPluginV2DynamicExt*>(nullptr),
        [&] { return adoptPluginV2(required("clone")(), "clone"); });
}

// ---- The trampoline of IPluginCreator
// --------------------------------------------------------------------------------

//! The C++ object behind every Python trt.IPluginCreator: name, plugin_version, plugin_namespace and field_names live
//! here; create_plugin(name, field_collection) and deserialize_plugin(name, data) are called in Python. A creator
//! freed while registered leaves the process-wide registry first.
class PyPluginCreatorV2 : public IPluginCreator
{
public:
    PyPluginCreatorV2() = default;
    ~PyPluginCreatorV2() override { leaveRegistry(*this); }
    PyPluginCreatorV2(PyPluginCreatorV2 const&) = delete;
    PyPluginCreatorV2& operator=(PyPluginCreatorV2 const&) = delete;

    APILanguage getAPILanguage() const noexcept override { return APILanguage::kPYTHON; }

    AsciiChar const* getPluginName() const noexcept override { return text(name, "name"); }
    AsciiChar const* getPluginVersion() const noexcept override { return text(version, "plugin_version"); }
    AsciiChar const* getPluginNamespace() const noexcept override { return text(pluginNamespace, "plugin_namespace"); }
    void setPluginNamespace(AsciiChar const* value) noexcept override
    {
        pluginNamespace = value != nullptr ? value : "";
    }

    PluginFieldCollection const* getFieldNames() noexcept override
    {
        return fieldNames ? &fieldNames->collection : unset<PluginFieldCollection const*>("field_names");
    }

    IPluginV2* createPlugin(AsciiChar const* pluginName, PluginFieldCollection const* fc) noexcept override
    {
        return call("create_plugin", [&] {
            static PluginFieldCollection const kNoFields{};
            py::object const fields = py::cast(fc != nullptr ? fc : &kNoFields, py::return_value_policy::reference);
            return adoptPluginV2(requiredMethod(static_cast<IPluginCreator const*>(this), "create_plugin")(
                                     textToStr(pluginName != nullptr ? pluginName : ""), fields),
                "create_plugin");
        });
    }

    IPluginV2* deserializePlugin(AsciiChar const* pluginName, void const* data, size_t length) noexcept override
    {
        return call("deserialize_plugin", [&] {
            py::bytes const bytes(static_cast<char const*>(data), data != nullptr ? length : 0);
            return adoptPluginV2(requiredMethod(static_cast<IPluginCreator const*>(this), "deserialize_plugin")(
                                     textToStr(pluginName != nullptr ? pluginName : ""), bytes),
                "deserialize_plugin");
        });
    }

    std::optional<std::string> name;
    std::optional<std::string> version;
    std::optional<std::string> pluginNamespace;
    py::object fieldNamesObject;
    std::unique_ptr<FieldArray> fieldNames;

private:
    template <typename Body>
    IPluginV2* call(char const* method, Body&& body) const noexcept
    {
        auto const self = [this] { return pythonSelf(static_cast<IPluginCreator const*>(this)); };
        return callPlugin(self, method, static_cast<IPluginV2*>(nullptr), std::forward<Body>(body));
    }

    char const* text(std::optional<std::string> const& value, char const* attribute) const noexcept
    {
        return attributeText([this] { return pythonSelf(static_cast<IPluginCreator const*>(this)); }, value, attribute,
            kSetInCreatorInit);
    }
    template <typename Result>
    Result unset(char const* attribute) const noexcept
    {
        return unsetAttribute<Result>(
            [this] { return pythonSelf(static_cast<IPluginCreator const*>(this)); }, attribute, kSetInCreatorInit);
    }
};

// ---- Bindings ------------------------------------------------------------------------------------------------------

//! Deletes what Python constructed (always a trampoline).
template <typename Trampoline>
struct TrampolineDelete
{
    template <typename T>
    void operator()(T* object) const noexcept
    {
        delete static_cast<Trampoline*>(object);
    }
};

//! The Python trampoline of self, or AttributeError naming attribute as read-only for C++ objects.
template <typename Trampoline, typename Interface>
Trampoline& pythonPart(Interface& self, char const* attribute, char const* what)
{
    auto* const python = dynamic_cast<Trampoline*>(&self);
    if (python == nullptr)
    {
        throw py::attribute_error(std::string("Can't set attribute: ") + attribute + " is read-only for C++ " + what);
    }
    return *python;
}

//! A str attribute kept in Trampoline::*member: AttributeError when read unset.
template <typename Class, typename Trampoline>
void pythonTextProperty(Class& cls, char const* name, std::optional<std::string> Trampoline::*member)
{
    cls.def_property(
        name,
        [member, name](Trampoline const& self) -> py::str {
            if (!(self.*member))
            {
                throw py::attribute_error(std::string(name) + " not initialized");
            }
            return textToStr((self.*member)->c_str());
        },
        [member](Trampoline& self, std::string const& value) { self.*member = value; });
}

void bindPluginV2DynamicExt(py::module_& m)
{
    using Plugin = PyPluginV2DynamicExt;
    py::class_<Plugin, IPluginV2DynamicExt, std::unique_ptr<Plugin, TrampolineDelete<Plugin>>> plugin(
        m, "IPluginV2DynamicExt", py::module_local());
    plugin.def(py::init<>())
        .def_property_readonly_static("FORMAT_COMBINATION_LIMIT",
            [](py::object const&) { return IPluginV2DynamicExt::kFORMAT_COMBINATION_LIMIT; })
        .def_property(
            "num_outputs",
            [](Plugin const& self) {
                if (!self.nbOutputs)
                {
                    throw py::attribute_error("num_outputs not initialized");
                }
                return *self.nbOutputs;
            },
            [](Plugin& self, int32_t value) { self.nbOutputs = value; });
    pythonTextProperty(plugin, "plugin_type", &Plugin::type);
    pythonTextProperty(plugin, "plugin_version", &Plugin::version);
    pythonTextProperty(plugin, "plugin_namespace", &Plugin::pluginNamespace);
    // The defaults of the optional methods, as TensorRT's Python class gives them.
    plugin.def("initialize", [](Plugin& /*self*/) { return 0; })
        .def("terminate", [](Plugin& /*self*/) {})
        .def("destroy", [](Plugin& /*self*/) {})
        .def(
            "get_workspace_size",
            [](Plugin& /*self*/, py::object const& /*in*/, py::object const& /*out*/) { return 0; },
            py::arg("input_desc"), py::arg("output_desc"))
        .def("get_serialization_size", [](Plugin const& self) { return self.getSerializationSize(); });
}

void bindCreatorV2(py::module_& m)
{
    using Creator = PyPluginCreatorV2;
    py::class_<IPluginCreator, IPluginCreatorInterface, Creator,
        std::unique_ptr<IPluginCreator, TrampolineDelete<Creator>>>
        creator(m, "IPluginCreator", py::module_local());
    creator.def(py::init<>());
    textProperty(creator, "name", &IPluginCreator::getPluginName, &Creator::name, "creators");
    textProperty(creator, "plugin_version", &IPluginCreator::getPluginVersion, &Creator::version, "creators");
    creator
        .def_property(
            "plugin_namespace",
            [](IPluginCreator const& self) -> py::str {
                if (auto const* python = dynamic_cast<Creator const*>(&self))
                {
                    if (!python->pluginNamespace)
                    {
                        throw py::attribute_error("plugin_namespace not initialized");
                    }
                    return textToStr(python->pluginNamespace->c_str());
                }
                return textToStr(self.getPluginNamespace());
            },
            [](IPluginCreator& self, std::string const& value) { self.setPluginNamespace(value.c_str()); })
        .def_property(
            "field_names",
            [](py::object const& self) -> py::object {
                auto& cpp = self.cast<IPluginCreator&>();
                if (auto const* python = dynamic_cast<Creator const*>(&cpp))
                {
                    if (!python->fieldNamesObject)
                    {
                        throw py::attribute_error("field_names not initialized");
                    }
                    return python->fieldNamesObject;
                }
                static PluginFieldCollection const kNoFields{};
                PluginFieldCollection const* const fields = cpp.getFieldNames();
                return py::cast(
                    fields != nullptr ? fields : &kNoFields, py::return_value_policy::reference_internal, self);
            },
            [](IPluginCreator& self, py::object const& fields) {
                Creator& python = pythonPart<Creator>(self, "field_names", "creators");
                if (py::isinstance<std::vector<PyPluginField>>(fields))
                {
                    python.fieldNames = std::make_unique<FieldArray>(fields.cast<std::vector<PyPluginField> const&>());
                }
                else if (py::isinstance<py::list>(fields) || py::isinstance<py::tuple>(fields))
                {
                    std::vector<PyPluginField> list;
                    for (py::handle item : fields)
                    {
                        list.push_back(item.cast<PyPluginField>());
                    }
                    python.fieldNames = std::make_unique<FieldArray>(list);
                }
                else
                {
                    throw py::type_error("field_names must be a PluginFieldCollection (or a list of PluginField), not "
                        + typeName(fields));
                }
                python.fieldNamesObject = fields;
            })
        .def(
            "create_plugin",
            [](IPluginCreator& self, std::string const& name, std::vector<PyPluginField> const& fields) {
                FieldArray const array(fields);
                IPluginV2* plugin = nullptr;
                {
                    py::gil_scoped_release release; // A Python creator takes it back.
                    plugin = self.createPlugin(name.c_str(), &array.collection);
                }
                return pluginV2ToPython(plugin);
            },
            py::arg("name"), py::arg("field_collection"))
        .def(
            "create_plugin",
            [](IPluginCreator& self, std::string const& name, PluginFieldCollection const& fields) {
                IPluginV2* plugin = nullptr;
                {
                    py::gil_scoped_release release;
                    plugin = self.createPlugin(name.c_str(), &fields);
                }
                return pluginV2ToPython(plugin);
            },
            py::arg("name"), py::arg("field_collection"))
        .def(
            "deserialize_plugin",
            [](IPluginCreator& self, std::string const& name, py::buffer const& serialized) {
                py::buffer_info const info = serialized.request();
                IPluginV2* plugin = nullptr;
                {
                    py::gil_scoped_release release;
                    plugin = self.deserializePlugin(
                        name.c_str(), info.ptr, static_cast<std::size_t>(info.size * info.itemsize));
                }
                return pluginV2ToPython(plugin);
            },
            py::arg("name"), py::arg("serialized_plugin"));
}

} // namespace

std::optional<std::string> describePythonV2(py::handle self)
{
    if (py::isinstance<PyPluginV2DynamicExt>(self))
    {
        auto const* plugin = self.cast<PyPluginV2DynamicExt const*>();
        if (plugin == nullptr)
        {
            return std::nullopt;
        }
        return "Python plugin " + quotedOrUnset(plugin->type) + " version " + quotedOrUnset(plugin->version)
            + " namespace " + quotedOrUnset(plugin->pluginNamespace) + " (class " + className(self) + ")";
    }
    if (py::isinstance<IPluginCreator>(self))
    {
        auto const* creator = dynamic_cast<PyPluginCreatorV2 const*>(self.cast<IPluginCreator const*>());
        if (creator == nullptr)
        {
            return std::nullopt;
        }
        return "Python plugin creator " + quotedOrUnset(creator->name) + " version " + quotedOrUnset(creator->version)
            + " namespace " + quotedOrUnset(creator->pluginNamespace) + " (class " + className(self) + ")";
    }
    return std::nullopt;
}

py::object pluginV2Object(IPluginV2* plugin, py::handle parent)
{
    if (auto* const handle = dynamic_cast<PluginV2Handle*>(plugin))
    {
        return handle->object();
    }
    return py::cast(plugin, py::return_value_policy::reference_internal, parent);
}

void bindPluginsV2(py::module_& m)
{
    bindCreatorV2(m);
    bindPluginV2DynamicExt(m);
}

KILN_IGNORE_DEPRECATED_END

} // namespace kiln::python
