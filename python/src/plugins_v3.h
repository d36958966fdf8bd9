// SPDX-License-Identifier: Apache-2.0
// plugins_v3.h -- V3 plugins written in Python, shared by plugins_v3.cpp (the trampolines of IPluginV3, its
// capabilities and IPluginCreatorV3One), plugin_exprs.cpp (descriptors and shape expressions) and plugin_host.cpp
// (enqueue_host on kiln's host backend); plugins_v2.cpp (IPluginV2DynamicExt and IPluginCreator written in Python)
// reuses its reporting, descriptors and host views.
//
// Ownership. A Python plugin object holds one C++ trampoline per bound base (IPluginV3, IPluginV3OneCore, ...), owned
// by the Python object. C++ never deletes those. What C++ receives from Python (create_plugin, clone,
// attach_to_context) is a PluginV3Handle: a C++ object that holds a strong reference to the Python plugin and
// forwards to its IPluginV3 trampoline. Deleting the handle (the engine, the network or the builder is done with the
// plugin) calls the plugin's destroy() and drops the reference, with the GIL taken. IPluginV3Layer.plugin gives back
// the Python object, not the handle.
//
// Calls. Every trampoline method takes the GIL for the Python call only, and catches everything: a Python exception,
// a missing required method or a result of the wrong type is reported through the logger naming the plugin (name,
// version, namespace and class) and the method, and C++ gets TensorRT's failure value (-1, nullptr, false).

#ifndef KILN_PYTHON_PLUGINS_V3_H
#define KILN_PYTHON_PLUGINS_V3_H

#include "plugin_fields.h"
#include "utils.h"

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::python
{

//! How messages name the Python plugin object self: 'Python plugin "Pad" version "1" namespace "" (class PadPlugin)',
//! from its IPluginV3OneCore fields where it has them. Call with the GIL held.
std::string describePythonPlugin(py::handle self);

//! Reports one failed call of method on the Python object self at kERROR through the library's logger: "<what
//! self is>: <text>". Call with the GIL held.
void reportPluginProblem(py::handle self, char const* method, std::string const& text) noexcept;

//! A problem found while calling a Python plugin (a missing required method, a result of the wrong type), raised
//! inside callPlugin() and reported with the plugin's name.
struct PluginCallProblem : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

//! The Python object whose trampoline object is the Interface part, or an empty handle.
template <typename Interface>
py::handle pythonSelf(Interface const* object) noexcept
{
    return py::detail::get_object_handle(object, py::detail::get_type_info(typeid(Interface)));
}

//! The Python override name of the trampoline object self; PluginCallProblem when the class defines none.
template <typename Interface>
py::function requiredMethod(Interface const* self, char const* name)
{
    py::function f = py::get_override(self, name);
    if (!f)
    {
        throw PluginCallProblem(
            std::string("Method: ") + name + " was not overriden. Please provide an implementation for this method.");
    }
    return f;
}

//! Runs body, which calls into Python, with the GIL taken, and returns its result. Whatever it raises is reported
//! naming self() (a callable giving the Python object) and method, and gives failure: nothing escapes into C++.
//! After the interpreter has finalized, failure at once.
template <typename Self, typename Result, typename Body>
Result callPlugin(Self&& self, char const* method, Result failure, Body&& body) noexcept
{
    if (Py_IsInitialized() == 0)
    {
        return failure;
    }
    py::gil_scoped_acquire gil;
    try
    {
        return body();
    }
    catch (py::error_already_set& e)
    {
        reportPluginProblem(self(), method, std::string("exception caught in ") + method + "(): " + e.what());
    }
    catch (PluginCallProblem const& e)
    {
        reportPluginProblem(self(), method, e.what());
    }
    catch (std::exception const& e)
    {
        reportPluginProblem(self(), method, std::string("exception caught in ") + method + "(): " + e.what());
    }
    return failure;
}

//! Where a plugin's or a creator's Python class sets the attributes unsetAttribute reports.
inline constexpr char const* kSetInPluginInit = "set it in the plugin's __init__";
inline constexpr char const* kSetInCreatorInit
    = "set name, plugin_version, plugin_namespace and field_names in the creator's __init__";

//! What an attribute the Python class never set gives C++ (nullptr of Result), reported naming self() (a callable
//! giving the Python object) and attribute as not initialized; remedy says where to set it (kSetInPluginInit,
//! kSetInCreatorInit).
template <typename Result, typename Self>
Result unsetAttribute(Self&& self, char const* attribute, char const* remedy) noexcept
{
    return callPlugin(std::forward<Self>(self), attribute, Result{nullptr}, [&]() -> Result {
        throw PluginCallProblem(std::string("AttributeError: ") + attribute + " not initialized; " + remedy);
    });
}

//! value's text, or unsetAttribute's nullptr.
template <typename Self>
char const* attributeText(
    Self&& self, std::optional<std::string> const& value, char const* attribute, char const* remedy) noexcept
{
    return value ? value->c_str() : unsetAttribute<char const*>(std::forward<Self>(self), attribute, remedy);
}

//! The trampoline of trt.IPluginV3: get_capability_interface(type) and clone() in Python; destroy() is called
//! through the PluginV3Handle that C++ deletes.
class PyPluginV3 : public nvinfer1::IPluginV3
{
public:
    nvinfer1::APILanguage getAPILanguage() const noexcept override { return nvinfer1::APILanguage::kPYTHON; }
    nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept override;
    nvinfer1::IPluginV3* clone() noexcept override;

private:
    //! Capability objects get_capability_interface() returned that are not the plugin itself: kept while the plugin
    //! lives, as C++ keeps their addresses.
    std::vector<py::object> mKept;
};

//! The trampoline of trt.IPluginV3OneCore: the name, version and namespace live here, set through the properties.
class PyPluginV3OneCore : public nvinfer1::IPluginV3OneCore
{
public:
    nvinfer1::APILanguage getAPILanguage() const noexcept override { return nvinfer1::APILanguage::kPYTHON; }
    char const* getPluginName() const noexcept override { return field(name, "plugin_name"); }
    char const* getPluginVersion() const noexcept override { return field(version, "plugin_version"); }
    char const* getPluginNamespace() const noexcept override { return field(pluginNamespace, "plugin_namespace"); }

    std::optional<std::string> name;
    std::optional<std::string> version;
    std::optional<std::string> pluginNamespace;

private:
    //! value's text, or nullptr reported as an unset attribute.
    char const* field(std::optional<std::string> const& value, char const* attribute) const noexcept;
};

//! The trampoline of trt.IPluginV3OneRuntime. on_shape_change() records the numbers of inputs and outputs, which
//! enqueue() and enqueue_host() need (their C++ signatures do not carry them).
class PyPluginV3OneRuntime : public nvinfer1::IPluginV3OneRuntime
{
public:
    nvinfer1::APILanguage getAPILanguage() const noexcept override { return nvinfer1::APILanguage::kPYTHON; }
    int32_t setTactic(int32_t tactic) noexcept override;
    int32_t onShapeChange(nvinfer1::PluginTensorDesc const* in, int32_t nbInputs, nvinfer1::PluginTensorDesc const* out,
        int32_t nbOutputs) noexcept override;
    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override;
    nvinfer1::IPluginV3* attachToContext(nvinfer1::IPluginResourceContext* context) noexcept override;
    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override;

    //! The numbers of inputs and outputs of the latest onShapeChange(), or nothing before the first.
    std::optional<std::pair<int32_t, int32_t>> counts() const noexcept { return mCounts; }

private:
    std::optional<std::pair<int32_t, int32_t>> mCounts;
    std::unique_ptr<FieldArray> mSerialized; //!< The fields of the latest getFieldsToSerialize().
};

//! What C++ holds of a Python plugin it was given: a strong reference to the Python object and its IPluginV3
//! trampoline, to which it forwards. Its destructor calls the plugin's destroy() and drops the reference.
class PluginV3Handle : public nvinfer1::IPluginV3
{
public:
    PluginV3Handle(py::object object, PyPluginV3& plugin) noexcept;
    ~PluginV3Handle() override;
    PluginV3Handle(PluginV3Handle const&) = delete;
    PluginV3Handle& operator=(PluginV3Handle const&) = delete;

    nvinfer1::APILanguage getAPILanguage() const noexcept override { return nvinfer1::APILanguage::kPYTHON; }
    nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept override
    {
        return mPlugin->getCapabilityInterface(type);
    }
    nvinfer1::IPluginV3* clone() noexcept override { return mPlugin->clone(); }

    //! The Python plugin (with the GIL held).
    py::object object() const { return mObject; }

    //! Gives the reference to the caller instead of destroying the plugin (with the GIL held): for a plugin that
    //! goes back to Python.
    py::object release() { return std::move(mObject); }

protected:
    py::object mObject;
    PyPluginV3* mPlugin;
};

//! A handle for object, whose IPluginV3 trampoline is plugin: one with kiln's AOT build capability when object has a
//! get_aot_kernel method, else one with kiln's host capability when it has an enqueue_host method (plugin_host.cpp).
//! Call with the GIL held.
std::unique_ptr<PluginV3Handle> makePluginHandle(py::object object, PyPluginV3& plugin);

//! A handle for object, whose IPluginV3 trampoline is plugin, with kiln's AOT build capability: object defines
//! get_aot_kernel() (plugin_aot.cpp). Call with the GIL held.
std::unique_ptr<PluginV3Handle> makeAotPluginHandle(py::object object, PyPluginV3& plugin);

//! The C++ plugin for what a Python method returned (create_plugin, clone, attach_to_context): nullptr for None; a
//! new handle for a Python plugin; a clone for a C++ plugin object. PluginCallProblem for anything else. Call with the
//! GIL held; the caller owns the result.
nvinfer1::IPluginV3* adoptPlugin(py::handle result, char const* method);

//! The Python object of a plugin C++ keeps (a layer's): the Python plugin behind a handle, else a reference to the
//! C++ object that keeps parent alive.
py::object pluginV3Object(nvinfer1::IPluginV3* plugin, py::handle parent);

//! The Python object of a plugin C++ gave away (clone, create_plugin called from Python): the Python plugin behind a
//! handle (the handle is deleted without destroy()), else the C++ object, owned by Python.
py::object pluginToPython(nvinfer1::IPluginV3* owned);

//! Python lists of descriptors (copies).
py::list descList(nvinfer1::PluginTensorDesc const* descs, int32_t count);
py::list dynamicDescList(nvinfer1::DynamicPluginTensorDesc const* descs, int32_t count);

//! A DimsExprs from what get_output_shapes() returned for one output: a DimsExprs or a sequence of IDimensionExpr.
nvinfer1::DimsExprs toDimsExprs(py::handle object);

//! What enqueue_host() receives for count tensors of kiln's host backend (plugin_host.cpp): numpy views shaped and
//! typed by descs (read-only unless writable), or a PluginHostBuffer where the descriptor does not give the shape.
//! Valid during the call only. PluginCallProblem for a tensor of elements without memory.
py::list hostTensorViews(
    nvinfer1::PluginTensorDesc const* descs, void const* const* data, int32_t count, bool writable);

//! What enqueue_host() receives as its workspace: None for nullptr, else a PluginHostBuffer of unknown extent.
py::object hostWorkspace(void* workspace);

//! Deregisters creator from the process-wide registry when it is registered there (a Python creator being freed), so
//! the registry never keeps a dangling creator.
void leaveRegistry(nvinfer1::IPluginCreatorInterface const& creator) noexcept;

//! How messages name a Python V2 plugin or V2 creator (plugins_v2.cpp); nothing for other objects. GIL held.
std::optional<std::string> describePythonV2(py::handle self);

//! IPluginRegistry.acquire_plugin_resource(key, resource): the stored clone (the Python object for a Python
//! resource), or None when the registry refuses (logged). Releases the GIL while the registry works.
py::object acquirePluginResource(
    nvinfer1::IPluginRegistry& registry, std::string const& key, nvinfer1::IPluginResource& resource);

//! IPluginRegistry.release_plugin_resource(key): release()'s status for the last user, 0 before, -1 when key holds
//! nothing (logged).
int32_t releasePluginResource(nvinfer1::IPluginRegistry& registry, std::string const& key);

//! A problem with a result: "<method>() returned <what was wrong>".
PluginCallProblem badResult(char const* method, std::string const& problem);

//! The name of object's type, for messages.
std::string typeName(py::handle object);

//! The items of a list or tuple that method returned, of exactly count items when count >= 0 (items names them).
py::sequence resultList(py::handle result, char const* method, int64_t count, char const* items);

//! Converts item to T, or PluginCallProblem naming method and what was expected.
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

//! A list of ints from a Python sequence of them (get_valid_tactics()).
std::vector<int32_t> intList(py::handle result, char const* method);

//! A Python list of copies of count items (descriptors, DimsExprs, Dims).
template <typename T>
py::list castList(T const* items, int32_t count)
{
    py::list list;
    for (int32_t i = 0; i < count; ++i)
    {
        list.append(py::cast(items[i]));
    }
    return list;
}

//! Writes the nbOutputs types of what get_output_data_types() returned to outputTypes (PluginCallProblem otherwise).
void readOutputTypes(py::handle result, nvinfer1::DataType* outputTypes, int32_t nbOutputs);

//! Calls method, a get_output_shapes(inputs, shape_inputs, expr_builder), and writes the nbOutputs DimsExprs it
//! returns to outputs (PluginCallProblem otherwise).
void callOutputShapes(py::function const& method, nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
    nvinfer1::DimsExprs const* shapeInputs, int32_t nbShapeInputs, nvinfer1::DimsExprs* outputs, int32_t nbOutputs,
    nvinfer1::IExprBuilder& exprBuilder);

//! The fields in what a Python method returned: a PluginFieldCollection, or a list or tuple of PluginField.
std::vector<PyPluginField> fieldList(py::handle object, char const* method);

//! Python ints of count addresses.
py::list addressList(void const* const* pointers, int32_t count);

//! Deletes what Python constructed (always a trampoline) through the interface's virtual destructor.
struct VirtualDelete
{
    template <typename T>
    void operator()(T* object) const noexcept
    {
        delete object;
    }
};

template <typename T>
using Owned = std::unique_ptr<T, VirtualDelete>;

//! Adds the str attribute name to cls: kept in Trampoline::*member for Python objects (AttributeError when read
//! unset), read through getter and read-only for C++ objects (the error calls them C++ `what`).
template <typename Class, typename Interface, typename Trampoline>
void textProperty(Class& cls, char const* name, char const* (Interface::*getter)() const noexcept,
    std::optional<std::string> Trampoline::*member, char const* what = "plugins")
{
    cls.def_property(
        name,
        [getter, member, name](Interface const& self) -> py::str {
            if (auto const* python = dynamic_cast<Trampoline const*>(&self))
            {
                if (!(python->*member))
                {
                    throw py::attribute_error(std::string(name) + " not initialized");
                }
                return textToStr((python->*member)->c_str());
            }
            return textToStr((self.*getter)());
        },
        [member, name, what](Interface& self, std::string const& value) {
            auto* const python = dynamic_cast<Trampoline*>(&self);
            if (python == nullptr)
            {
                throw py::attribute_error(
                    std::string("Can't set attribute: ") + name + " is read-only for C++ " + what);
            }
            python->*member = value;
        });
}

//! What a Python creator of Interface (IPluginCreatorV3One, IPluginCreatorV3Quick) keeps in C++: the attributes
//! name, plugin_version, plugin_namespace and field_names. A creator that Python frees while it is still registered in
//! the process-wide registry deregisters itself first, so the registry never keeps a dangling creator (the registry's
//! Python object keeps the creators registered through it, so this happens at exit).
template <typename Interface>
class PyCreatorT : public Interface
{
public:
    ~PyCreatorT() override { leaveRegistry(*this); }

    nvinfer1::APILanguage getAPILanguage() const noexcept override { return nvinfer1::APILanguage::kPYTHON; }

    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override
    {
        return fieldNames ? &fieldNames->collection : unset<nvinfer1::PluginFieldCollection const*>("field_names");
    }
    nvinfer1::AsciiChar const* getPluginName() const noexcept override { return text(name, "name"); }
    nvinfer1::AsciiChar const* getPluginVersion() const noexcept override { return text(version, "plugin_version"); }
    nvinfer1::AsciiChar const* getPluginNamespace() const noexcept override
    {
        return text(pluginNamespace, "plugin_namespace");
    }

    //! "Python plugin creator "name" version "1" namespace "" (class C)", for messages (GIL held).
    std::string describe(py::handle self) const
    {
        auto const quoted
            = [](std::optional<std::string> const& v) { return v ? "\"" + *v + "\"" : std::string("(unset)"); };
        return "Python plugin creator " + quoted(name) + " version " + quoted(version) + " namespace "
            + quoted(pluginNamespace) + " (class "
            + std::string(py::str(py::type::handle_of(self).attr("__qualname__"))) + ")";
    }

    std::optional<std::string> name;
    std::optional<std::string> version;
    std::optional<std::string> pluginNamespace;
    py::object fieldNamesObject;
    std::unique_ptr<FieldArray> fieldNames;

protected:
    //! fc as create_plugin() receives it (an empty collection for null). GIL held.
    static py::object fieldsObject(nvinfer1::PluginFieldCollection const* fc)
    {
        static nvinfer1::PluginFieldCollection const kNoFields{};
        return py::cast(fc != nullptr ? fc : &kNoFields, py::return_value_policy::reference);
    }

private:
    auto self() const
    {
        return [this] { return pythonSelf(static_cast<Interface const*>(this)); };
    }
    char const* text(std::optional<std::string> const& value, char const* attribute) const noexcept
    {
        return attributeText(self(), value, attribute, kSetInCreatorInit);
    }
    template <typename Result>
    Result unset(char const* attribute) const noexcept
    {
        return unsetAttribute<Result>(self(), attribute, kSetInCreatorInit);
    }
};

//! Adds the attributes name, plugin_version, plugin_namespace and field_names to cls, the class of Interface whose
//! Python trampoline is Trampoline (a PyCreatorT): kept in C++ for Python creators, read-only for C++ ones.
template <typename Interface, typename Trampoline, typename Class>
void bindCreatorFields(Class& cls)
{
    textProperty(cls, "name", &Interface::getPluginName, &Trampoline::name);
    textProperty(cls, "plugin_version", &Interface::getPluginVersion, &Trampoline::version);
    textProperty(cls, "plugin_namespace", &Interface::getPluginNamespace, &Trampoline::pluginNamespace);
    cls.def_property(
        "field_names",
        [](py::object const& self) -> py::object {
            auto& cpp = self.cast<Interface&>();
            if (auto const* python = dynamic_cast<Trampoline const*>(&cpp))
            {
                if (!python->fieldNamesObject)
                {
                    throw py::attribute_error("field_names not initialized");
                }
                return python->fieldNamesObject;
            }
            return py::cast(cpp.getFieldNames(), py::return_value_policy::reference_internal, self);
        },
        [](Interface& self, py::object const& fields) {
            auto* const python = dynamic_cast<Trampoline*>(&self);
            if (python == nullptr)
            {
                throw py::attribute_error("Can't set attribute: field_names is read-only for C++ creators");
            }
            try
            {
                python->fieldNames = std::make_unique<FieldArray>(fieldList(fields, "field_names"));
            }
            catch (PluginCallProblem const&)
            {
                throw py::type_error(
                    "field_names must be a PluginFieldCollection (or a list of PluginField), not " + typeName(fields));
            }
            python->fieldNamesObject = fields;
        });
}

//! How messages name self when it is a Python Quick plugin or Quick creator (plugins_quick.cpp); nothing otherwise.
//! GIL held.
std::optional<std::string> describePythonQuick(py::handle self);

//! A handle for object (a Python Quick JIT plugin whose class defines enqueue_host), whose IPluginV3 trampoline is
//! plugin, with kiln's Quick host capability (plugins_quick.cpp). Call with the GIL held.
std::unique_ptr<PluginV3Handle> makeQuickHostHandle(py::object object, PyPluginV3& plugin);

//! The C++ Quick capability of type that object (what get_capability_interface() returned) implements, or nullptr
//! when it implements none (plugins_quick.cpp).
nvinfer1::IPluginCapability* quickCapabilityOf(py::handle object, nvinfer1::PluginCapabilityType type);

//! The Python object of a C++ plugin's Quick capability (by its interface kind), or None when it is none.
py::object quickCapabilityObject(nvinfer1::IPluginCapability* capability);

void bindPluginsQuick(py::module_& m);

void bindPluginExprs(py::module_& m);
void bindPluginResources(py::module_& m);
void bindPluginsV3(py::module_& m);
void bindPluginsV2(py::module_& m);
void bindPluginHost(py::module_& m);
void bindPluginDlpack(py::module_& m);

} // namespace kiln::python

#endif // KILN_PYTHON_PLUGINS_V3_H
