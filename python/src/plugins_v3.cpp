// SPDX-License-Identifier: Apache-2.0
// plugins_v3.cpp -- V3 plugins and their creators written in Python: the classes IPluginV3, IPluginV3OneCore,
// IPluginV3OneBuild, IPluginV3OneBuildV2, IPluginV3OneRuntime and IPluginCreatorV3One, each with its trampoline,
// and the handles through which C++ owns Python plugins (plugins_v3.h says how ownership and calls work). One Python
// class usually derives from the four plugin classes and answers get_capability_interface() with itself:
//
//     class Pad(trt.IPluginV3, trt.IPluginV3OneCore, trt.IPluginV3OneBuild, trt.IPluginV3OneRuntime):
//         def __init__(self, pads=1):
//             for base in (trt.IPluginV3, trt.IPluginV3OneCore, trt.IPluginV3OneBuild, trt.IPluginV3OneRuntime):
//                 base.__init__(self)
//             self.plugin_name, self.plugin_version, self.plugin_namespace = "Pad", "1", ""   # kept in C++
//             self.num_outputs = 1                                                          # kept in C++
//             self.pads = pads
//         def get_capability_interface(self, type):
//             return self
//         ...
//     trt.get_plugin_registry().register_creator(PadCreator(), "")

#include "plugins_v3.h"

#include <algorithm>
#include <cstring>

namespace kiln::python
{

using namespace nvinfer1;

// ---- Reporting --------------------------------------------------------------------------------------------------

namespace
{

std::string quotedOrUnset(std::optional<std::string> const& value)
{
    return value ? "\"" + *value + "\"" : std::string("(unset)");
}

//! How messages name self when it is a Python creator; nothing otherwise (defined with the creator below).
std::optional<std::string> describeCreator(py::handle self);

} // namespace

std::string describePythonPlugin(py::handle self)
{
    if (!self)
    {
        return "Python plugin (unknown object)";
    }
    std::string text = "Python plugin";
    try
    {
        if (std::optional<std::string> creator = describeCreator(self))
        {
            return *creator;
        }
        if (std::optional<std::string> v2 = describePythonV2(self))
        {
            return *v2;
        }
        if (std::optional<std::string> quick = describePythonQuick(self))
        {
            return *quick;
        }
        if (py::isinstance<IPluginResource>(self))
        {
            text = "Python plugin resource";
        }
        if (py::isinstance<IPluginV3OneCore>(self))
        {
            auto const* core = dynamic_cast<PyPluginV3OneCore const*>(self.cast<IPluginV3OneCore const*>());
            if (core != nullptr)
            {
                text += " " + quotedOrUnset(core->name) + " version " + quotedOrUnset(core->version) + " namespace "
                    + quotedOrUnset(core->pluginNamespace);
            }
        }
        text += " (class " + std::string(py::str(py::type::handle_of(self).attr("__qualname__"))) + ")";
    }
    catch (std::exception const&)
    {
        PyErr_Clear();
    }
    return text;
}

void reportPluginProblem(py::handle self, char const* method, std::string const& text) noexcept
{
    try
    {
        reportCallbackMessage(method, describePythonPlugin(self) + ": " + text);
    }
    catch (std::exception const&)
    {
        reportCallbackError(method, text.c_str());
    }
}

//! A problem with a result: "<method>() returned <what was wrong>".
PluginCallProblem badResult(char const* method, std::string const& problem)
{
    return PluginCallProblem(std::string(method) + "() returned " + problem);
}

std::string typeName(py::handle object)
{
    return std::string(py::str(py::type::handle_of(object).attr("__name__")));
}

//! The items of a list or tuple that method returned, of exactly count items when count >= 0.
py::sequence resultList(py::handle result, char const* method, int64_t count, char const* items)
{
    if (!py::isinstance<py::list>(result) && !py::isinstance<py::tuple>(result))
    {
        throw badResult(method, "a " + typeName(result) + "; it must return a list of " + items);
    }
    auto sequence = py::reinterpret_borrow<py::sequence>(result);
    if (count >= 0 && static_cast<int64_t>(py::len(sequence)) != count)
    {
        throw badResult(method,
            std::to_string(py::len(sequence)) + " " + items + "; the plugin has " + std::to_string(count)
                + " outputs (num_outputs)");
    }
    return sequence;
}

//! A list of ints from a Python sequence of them (get_valid_tactics()).
std::vector<int32_t> intList(py::handle result, char const* method)
{
    std::vector<int32_t> values;
    for (py::handle item : resultList(result, method, -1, "ints"))
    {
        values.push_back(resultAs<int32_t>(item, method, "an int"));
    }
    return values;
}

void readOutputTypes(py::handle result, DataType* outputTypes, int32_t nbOutputs)
{
    py::sequence const list = resultList(result, "get_output_data_types", nbOutputs, "DataTypes");
    for (int32_t i = 0; i < nbOutputs; ++i)
    {
        outputTypes[i] = resultAs<DataType>(list[static_cast<py::size_t>(i)], "get_output_data_types", "a DataType");
    }
}

void callOutputShapes(py::function const& method, DimsExprs const* inputs, int32_t nbInputs,
    DimsExprs const* shapeInputs, int32_t nbShapeInputs, DimsExprs* outputs, int32_t nbOutputs,
    IExprBuilder& exprBuilder)
{
    py::object const builder = py::cast(&exprBuilder, py::return_value_policy::reference);
    py::object const result = method(castList(inputs, nbInputs), castList(shapeInputs, nbShapeInputs), builder);
    py::sequence const list = resultList(result, "get_output_shapes", nbOutputs, "DimsExprs");
    for (int32_t i = 0; i < nbOutputs; ++i)
    {
        outputs[i] = toDimsExprs(list[static_cast<py::size_t>(i)]);
    }
}

// ---- IPluginV3 ---------------------------------------------------------------------------------------------------

namespace
{

//! The C++ capability of type that object (what get_capability_interface() returned) implements; nullptr for None.
IPluginCapability* capabilityOf(py::handle object, PluginCapabilityType type)
{
    if (object.is_none())
    {
        return nullptr;
    }
    switch (type)
    {
    case PluginCapabilityType::kCORE:
        if (py::isinstance<IPluginV3OneCore>(object))
        {
            return object.cast<IPluginV3OneCore*>();
        }
        if (IPluginCapability* quick = quickCapabilityOf(object, type))
        {
            return quick;
        }
        throw badResult("get_capability_interface",
            "a " + typeName(object) + " for CORE; it must derive from IPluginV3OneCore or IPluginV3QuickCore");
    case PluginCapabilityType::kBUILD:
        if (py::isinstance<IPluginV3OneBuildV2>(object))
        {
            return static_cast<IPluginV3OneBuild*>(object.cast<IPluginV3OneBuildV2*>());
        }
        if (py::isinstance<IPluginV3OneBuild>(object))
        {
            return object.cast<IPluginV3OneBuild*>();
        }
        if (IPluginCapability* quick = quickCapabilityOf(object, type))
        {
            return quick;
        }
        throw badResult("get_capability_interface",
            "a " + typeName(object)
                + " for BUILD; it must derive from IPluginV3OneBuild, IPluginV3OneBuildV2, IPluginV3QuickBuild or "
                  "IPluginV3QuickAOTBuild");
    case PluginCapabilityType::kRUNTIME:
        if (py::isinstance<IPluginV3OneRuntime>(object))
        {
            return object.cast<IPluginV3OneRuntime*>();
        }
        if (IPluginCapability* quick = quickCapabilityOf(object, type))
        {
            return quick;
        }
        throw badResult("get_capability_interface",
            "a " + typeName(object) + " for RUNTIME; it must derive from IPluginV3OneRuntime or IPluginV3QuickRuntime");
    }
    return nullptr;
}

bool isKnownCapability(PluginCapabilityType type) noexcept
{
    return type == PluginCapabilityType::kCORE || type == PluginCapabilityType::kBUILD
        || type == PluginCapabilityType::kRUNTIME;
}

} // namespace

IPluginCapability* PyPluginV3::getCapabilityInterface(PluginCapabilityType type) noexcept
{
    // Only TensorRT's three types reach Python; kiln's own (its host capability) is found on the handle.
    if (!isKnownCapability(type))
    {
        return nullptr;
    }
    auto const self = [this] { return pythonSelf(static_cast<IPluginV3 const*>(this)); };
    return callPlugin(self, "get_capability_interface", static_cast<IPluginCapability*>(nullptr), [&] {
        py::object const result = requiredMethod(static_cast<IPluginV3 const*>(this), "get_capability_interface")(type);
        IPluginCapability* const capability = capabilityOf(result, type);
        if (capability != nullptr && !result.is(self()))
        {
            bool const kept
                = std::any_of(mKept.begin(), mKept.end(), [&](py::object const& o) { return o.is(result); });
            if (!kept)
            {
                mKept.push_back(result);
            }
        }
        return capability;
    });
}

IPluginV3* PyPluginV3::clone() noexcept
{
    auto const self = [this] { return pythonSelf(static_cast<IPluginV3 const*>(this)); };
    return callPlugin(self, "clone", static_cast<IPluginV3*>(nullptr),
        [&] { return adoptPlugin(requiredMethod(static_cast<IPluginV3 const*>(this), "clone")(), "clone"); });
}

// ---- IPluginV3OneCore ----------------------------------------------------------------------------------------------

char const* PyPluginV3OneCore::field(std::optional<std::string> const& value, char const* attribute) const noexcept
{
    return attributeText(
        [this] { return pythonSelf(static_cast<IPluginV3OneCore const*>(this)); }, value, attribute, kSetInPluginInit);
}

// ---- IPluginV3OneBuild ---------------------------------------------------------------------------------------------

namespace
{

//! What IPluginV3OneBuild keeps in C++ for a Python plugin: the attributes num_outputs, format_combination_limit,
//! metadata_string and timing_cache_id.
class BuildFields
{
public:
    virtual ~BuildFields() = default;
    BuildFields() = default;
    BuildFields(BuildFields const&) = delete;
    BuildFields& operator=(BuildFields const&) = delete;

    std::optional<int32_t> nbOutputs;
    int32_t formatCombinationLimit{IPluginV3OneBuild::kDEFAULT_FORMAT_COMBINATION_LIMIT};
    std::optional<std::string> metadataString;
    std::optional<std::string> timingCacheId;

protected:
    std::string mTimingCacheIdResult; //!< What get_timing_cache_id() returned last.
};

//! The trampoline of trt.IPluginV3OneBuild (Base = IPluginV3OneBuild) and of trt.IPluginV3OneBuildV2.
template <typename Base>
class PyPluginV3OneBuildT : public Base, public BuildFields
{
public:
    APILanguage getAPILanguage() const noexcept override { return APILanguage::kPYTHON; }

    int32_t configurePlugin(DynamicPluginTensorDesc const* in, int32_t nbInputs, DynamicPluginTensorDesc const* out,
        int32_t nbOutputs) noexcept override
    {
        return call("configure_plugin", int32_t{-1}, [&] {
            required("configure_plugin")(dynamicDescList(in, nbInputs), dynamicDescList(out, nbOutputs));
            return int32_t{0};
        });
    }

    int32_t getOutputDataTypes(
        DataType* outputTypes, int32_t nbOutputs, DataType const* inputTypes, int32_t nbInputs) const noexcept override
    {
        return call("get_output_data_types", int32_t{-1}, [&] {
            py::list types;
            for (int32_t i = 0; i < nbInputs; ++i)
            {
                types.append(inputTypes[i]);
            }
            readOutputTypes(required("get_output_data_types")(types), outputTypes, nbOutputs);
            return int32_t{0};
        });
    }

    int32_t getOutputShapes(DimsExprs const* inputs, int32_t nbInputs, DimsExprs const* shapeInputs,
        int32_t nbShapeInputs, DimsExprs* outputs, int32_t nbOutputs, IExprBuilder& exprBuilder) noexcept override
    {
        return call("get_output_shapes", int32_t{-1}, [&] {
            callOutputShapes(required("get_output_shapes"), inputs, nbInputs, shapeInputs, nbShapeInputs, outputs,
                nbOutputs, exprBuilder);
            return int32_t{0};
        });
    }

    bool supportsFormatCombination(
        int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept override
    {
        return call("supports_format_combination", false, [&] {
            py::object const result
                = required("supports_format_combination")(pos, dynamicDescList(inOut, nbInputs + nbOutputs), nbInputs);
            return resultAs<bool>(result, "supports_format_combination", "a bool");
        });
    }

    int32_t getNbOutputs() const noexcept override
    {
        if (nbOutputs)
        {
            return *nbOutputs;
        }
        return call("num_outputs", int32_t{-1}, []() -> int32_t {
            throw PluginCallProblem("AttributeError: num_outputs not initialized; set it in the plugin's __init__");
        });
    }

    size_t getWorkspaceSize(DynamicPluginTensorDesc const* inputs, int32_t nbInputs,
        DynamicPluginTensorDesc const* outputs, int32_t nbOutputs) const noexcept override
    {
        return call("get_workspace_size", size_t{0}, [&] {
            py::function const f = py::get_override(static_cast<Base const*>(this), "get_workspace_size");
            if (!f)
            {
                return size_t{0};
            }
            auto const bytes
                = resultAs<int64_t>(f(dynamicDescList(inputs, nbInputs), dynamicDescList(outputs, nbOutputs)),
                    "get_workspace_size", "an int (bytes)");
            if (bytes < 0)
            {
                throw badResult("get_workspace_size", std::to_string(bytes) + " bytes");
            }
            return static_cast<size_t>(bytes);
        });
    }

    int32_t getNbTactics() noexcept override
    {
        return call("get_valid_tactics", int32_t{-1}, [&] { return static_cast<int32_t>(validTactics().size()); });
    }

    int32_t getValidTactics(int32_t* tactics, int32_t nbTactics) noexcept override
    {
        return call("get_valid_tactics", int32_t{-1}, [&] {
            std::vector<int32_t> const list = validTactics();
            if (static_cast<int64_t>(list.size()) != nbTactics)
            {
                throw badResult("get_valid_tactics",
                    std::to_string(list.size()) + " tactics, where the call before gave " + std::to_string(nbTactics));
            }
            std::copy(list.begin(), list.end(), tactics);
            return int32_t{0};
        });
    }

    char const* getTimingCacheID() noexcept override
    {
        // A get_timing_cache_id() method, where the class defines one, else the attribute timing_cache_id.
        return call("get_timing_cache_id", static_cast<char const*>(nullptr), [&]() -> char const* {
            py::function const f = py::get_override(static_cast<Base const*>(this), "get_timing_cache_id");
            if (!f)
            {
                return timingCacheId ? timingCacheId->c_str() : nullptr;
            }
            py::object const result = f();
            if (result.is_none())
            {
                return nullptr;
            }
            mTimingCacheIdResult = resultAs<std::string>(result, "get_timing_cache_id", "a str or None");
            return mTimingCacheIdResult.c_str();
        });
    }

    int32_t getFormatCombinationLimit() noexcept override { return formatCombinationLimit; }

    char const* getMetadataString() noexcept override { return metadataString ? metadataString->c_str() : nullptr; }

protected:
    template <typename Result, typename Body>
    Result call(char const* method, Result failure, Body&& body) const noexcept
    {
        auto const self = [this] { return pythonSelf(static_cast<Base const*>(this)); };
        return callPlugin(self, method, failure, std::forward<Body>(body));
    }

    py::function required(char const* name) const { return requiredMethod(static_cast<Base const*>(this), name); }

    //! What get_valid_tactics() gives (none where the class does not define it).
    std::vector<int32_t> validTactics()
    {
        py::function const f = py::get_override(static_cast<Base const*>(this), "get_valid_tactics");
        return f ? intList(f(), "get_valid_tactics") : std::vector<int32_t>{};
    }
};

using PyPluginV3OneBuild = PyPluginV3OneBuildT<IPluginV3OneBuild>;

//! The trampoline of trt.IPluginV3OneBuildV2: adds get_aliased_input(output_index), -1 when not defined.
class PyPluginV3OneBuildV2 : public PyPluginV3OneBuildT<IPluginV3OneBuildV2>
{
public:
    int32_t getAliasedInput(int32_t outputIndex) noexcept override
    {
        return call("get_aliased_input", int32_t{-1}, [&] {
            py::function const f = py::get_override(static_cast<IPluginV3OneBuildV2 const*>(this), "get_aliased_input");
            return f ? resultAs<int32_t>(f(outputIndex), "get_aliased_input", "an int") : int32_t{-1};
        });
    }
};

} // namespace

// ---- IPluginV3OneRuntime -------------------------------------------------------------------------------------------

namespace
{

auto runtimeSelf(IPluginV3OneRuntime const* runtime)
{
    return [runtime] { return pythonSelf(runtime); };
}

} // namespace

py::list addressList(void const* const* pointers, int32_t count)
{
    py::list list;
    for (int32_t i = 0; i < count; ++i)
    {
        list.append(py::int_(reinterpret_cast<std::uintptr_t>(pointers[i])));
    }
    return list;
}

int32_t PyPluginV3OneRuntime::setTactic(int32_t tactic) noexcept
{
    return callPlugin(runtimeSelf(this), "set_tactic", int32_t{-1}, [&] {
        requiredMethod(static_cast<IPluginV3OneRuntime const*>(this), "set_tactic")(tactic);
        return int32_t{0};
    });
}

int32_t PyPluginV3OneRuntime::onShapeChange(
    PluginTensorDesc const* in, int32_t nbInputs, PluginTensorDesc const* out, int32_t nbOutputs) noexcept
{
    mCounts.emplace(nbInputs, nbOutputs);
    return callPlugin(runtimeSelf(this), "on_shape_change", int32_t{-1}, [&] {
        requiredMethod(static_cast<IPluginV3OneRuntime const*>(this), "on_shape_change")(
            descList(in, nbInputs), descList(out, nbOutputs));
        return int32_t{0};
    });
}

int32_t PyPluginV3OneRuntime::enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
    void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept
{
    return callPlugin(runtimeSelf(this), "enqueue", int32_t{-1}, [&] {
        if (!mCounts)
        {
            throw PluginCallProblem("enqueue() was called before on_shape_change(), which tells the bindings the "
                                    "numbers of inputs and outputs");
        }
        auto const [nbInputs, nbOutputs] = *mCounts;
        requiredMethod(static_cast<IPluginV3OneRuntime const*>(this), "enqueue")(descList(inputDesc, nbInputs),
            descList(outputDesc, nbOutputs), addressList(inputs, nbInputs),
            addressList(const_cast<void const* const*>(outputs), nbOutputs),
            py::int_(reinterpret_cast<std::uintptr_t>(workspace)), py::int_(reinterpret_cast<std::uintptr_t>(stream)));
        return int32_t{0};
    });
}

IPluginV3* PyPluginV3OneRuntime::attachToContext(IPluginResourceContext* context) noexcept
{
    return callPlugin(runtimeSelf(this), "attach_to_context", static_cast<IPluginV3*>(nullptr), [&] {
        py::object const result = requiredMethod(static_cast<IPluginV3OneRuntime const*>(this), "attach_to_context")(
            py::cast(context, py::return_value_policy::reference));
        return adoptPlugin(result, "attach_to_context");
    });
}

std::vector<PyPluginField> fieldList(py::handle object, char const* method)
{
    if (py::isinstance<std::vector<PyPluginField>>(object))
    {
        return object.cast<std::vector<PyPluginField> const&>();
    }
    if (py::isinstance<py::list>(object) || py::isinstance<py::tuple>(object))
    {
        std::vector<PyPluginField> fields;
        for (py::handle item : object)
        {
            fields.push_back(resultAs<PyPluginField>(item, method, "a PluginField"));
        }
        return fields;
    }
    throw badResult(method, "a " + typeName(object) + "; it must return a PluginFieldCollection");
}

PluginFieldCollection const* PyPluginV3OneRuntime::getFieldsToSerialize() noexcept
{
    return callPlugin(runtimeSelf(this), "get_fields_to_serialize", static_cast<PluginFieldCollection const*>(nullptr),
        [&]() -> PluginFieldCollection const* {
            py::object const result
                = requiredMethod(static_cast<IPluginV3OneRuntime const*>(this), "get_fields_to_serialize")();
            // Kept until the next call: C++ reads the fields after this returns.
            mSerialized = std::make_unique<FieldArray>(fieldList(result, "get_fields_to_serialize"));
            return &mSerialized->collection;
        });
}

// ---- Handles -----------------------------------------------------------------------------------------------------

PluginV3Handle::PluginV3Handle(py::object object, PyPluginV3& plugin) noexcept
    : mObject(std::move(object))
    , mPlugin(&plugin)
{
}

PluginV3Handle::~PluginV3Handle()
{
    if (!mObject)
    {
        return;
    }
    if (Py_IsInitialized() == 0)
    {
        mObject.release(); // The interpreter is gone: nothing to call, nothing to free.
        return;
    }
    py::gil_scoped_acquire gil;
    py::handle const self = mObject;
    callPlugin([self] { return self; }, "destroy", 0,
        [&] {
            if (py::function const f = py::get_override(static_cast<IPluginV3 const*>(mPlugin), "destroy"))
            {
                f();
            }
            return 0;
        });
    mObject = py::object();
}

IPluginV3* adoptPlugin(py::handle result, char const* method)
{
    if (result.is_none())
    {
        return nullptr;
    }
    if (!py::isinstance<IPluginV3>(result))
    {
        throw badResult(method, "a " + typeName(result) + "; it must return a plugin (a trt.IPluginV3) or None");
    }
    auto* const plugin = result.cast<IPluginV3*>();
    if (plugin == nullptr)
    {
        throw badResult(method, "a plugin whose IPluginV3.__init__ was not called");
    }
    if (auto* const python = dynamic_cast<PyPluginV3*>(plugin))
    {
        return makePluginHandle(py::reinterpret_borrow<py::object>(result), *python).release();
    }
    // A C++ plugin object that Python owns: C++ takes a copy of its own.
    return plugin->clone();
}

py::object pluginV3Object(IPluginV3* plugin, py::handle parent)
{
    if (auto* const handle = dynamic_cast<PluginV3Handle*>(plugin))
    {
        return handle->object();
    }
    return py::cast(plugin, py::return_value_policy::reference_internal, parent);
}

py::object pluginToPython(IPluginV3* owned)
{
    if (owned == nullptr)
    {
        return py::none();
    }
    if (auto* const handle = dynamic_cast<PluginV3Handle*>(owned))
    {
        py::object object = handle->release();
        delete handle;
        return object;
    }
    return py::cast(std::unique_ptr<IPluginV3>(owned));
}

// ---- IPluginCreatorV3One -------------------------------------------------------------------------------------------

void leaveRegistry(IPluginCreatorInterface const& creator) noexcept
{
    IPluginRegistry* const registry = getPluginRegistry();
    int32_t count = 0;
    IPluginCreatorInterface* const* const creators = registry != nullptr ? registry->getAllCreators(&count) : nullptr;
    if (creators != nullptr && std::find(creators, creators + count, &creator) != creators + count)
    {
        registry->deregisterCreator(creator);
    }
}

namespace
{

//! The trampoline of trt.IPluginCreatorV3One (its attributes: PyCreatorT); create_plugin(name, field_collection,
//! phase) is called in Python.
class PyPluginCreatorV3One : public PyCreatorT<IPluginCreatorV3One>
{
public:
    IPluginV3* createPlugin(
        AsciiChar const* pluginName, PluginFieldCollection const* fc, TensorRTPhase phase) noexcept override
    {
        auto const self = [this] { return pythonSelf(static_cast<IPluginCreatorV3One const*>(this)); };
        return callPlugin(self, "create_plugin", static_cast<IPluginV3*>(nullptr), [&] {
            py::object const result = requiredMethod(static_cast<IPluginCreatorV3One const*>(this), "create_plugin")(
                textToStr(pluginName), fieldsObject(fc), phase);
            return adoptPlugin(result, "create_plugin");
        });
    }
};

} // namespace

namespace
{

//! The description of a Python creator for messages, or nothing when self is none.
std::optional<std::string> describeCreator(py::handle self)
{
    if (!py::isinstance<IPluginCreatorV3One>(self))
    {
        return std::nullopt;
    }
    auto const* creator = dynamic_cast<PyPluginCreatorV3One const*>(self.cast<IPluginCreatorV3One const*>());
    return creator != nullptr ? std::optional<std::string>(creator->describe(self)) : std::nullopt;
}

} // namespace

// ---- Bindings ----------------------------------------------------------------------------------------------------

namespace
{

//! The BuildFields of a Python build capability; AttributeError naming attribute for a C++ one.
BuildFields& buildFields(IPluginV3OneBuild& self, char const* attribute)
{
    auto* const fields = dynamic_cast<BuildFields*>(&self);
    if (fields == nullptr)
    {
        throw py::attribute_error(std::string("Can't set attribute: ") + attribute + " is read-only for C++ plugins");
    }
    return *fields;
}

BuildFields const* buildFieldsOf(IPluginV3OneBuild const& self)
{
    return dynamic_cast<BuildFields const*>(&self);
}

//! The Python object of a C++ plugin's capability, typed by what it reports.
py::object capabilityObject(IPluginCapability* capability, PluginCapabilityType type)
{
    if (capability == nullptr)
    {
        return py::none();
    }
    if (py::object quick = quickCapabilityObject(capability); !quick.is_none())
    {
        return quick;
    }
    auto const reference = py::return_value_policy::reference;
    switch (type)
    {
    case PluginCapabilityType::kCORE: return py::cast(static_cast<IPluginV3OneCore*>(capability), reference);
    case PluginCapabilityType::kBUILD:
        if (capability->getInterfaceInfo().major == 2)
        {
            return py::cast(static_cast<IPluginV3OneBuildV2*>(capability), reference);
        }
        return py::cast(static_cast<IPluginV3OneBuild*>(capability), reference);
    case PluginCapabilityType::kRUNTIME: return py::cast(static_cast<IPluginV3OneRuntime*>(capability), reference);
    }
    return py::cast(capability, reference);
}

void bindPluginV3(py::module_& m)
{
    py::class_<IPluginV3, PyPluginV3>(m, "IPluginV3", py::module_local())
        .def(py::init<>())
        .def(
            "get_capability_interface",
            [](py::object const& self, PluginCapabilityType type) {
                py::object result = capabilityObject(self.cast<IPluginV3&>().getCapabilityInterface(type), type);
                if (!result.is_none() && !result.is(self))
                {
                    // The capability keeps its plugin alive (not when it is the plugin: that would never be freed).
                    py::detail::keep_alive_impl(result, self);
                }
                return result;
            },
            py::arg("type"))
        .def("clone", [](IPluginV3& self) { return pluginToPython(self.clone()); })
        .def("destroy", [](IPluginV3& /*self*/) {}); // The default: nothing to release.

    py::class_<IPluginV3OneCore, IPluginCapability, PyPluginV3OneCore, Owned<IPluginV3OneCore>> core(
        m, "IPluginV3OneCore", py::module_local());
    core.def(py::init<>());
    textProperty(core, "plugin_name", &IPluginV3OneCore::getPluginName, &PyPluginV3OneCore::name);
    textProperty(core, "plugin_version", &IPluginV3OneCore::getPluginVersion, &PyPluginV3OneCore::version);
    textProperty(core, "plugin_namespace", &IPluginV3OneCore::getPluginNamespace, &PyPluginV3OneCore::pluginNamespace);
}

void bindBuildCapabilities(py::module_& m)
{
    py::class_<IPluginV3OneBuild, IPluginCapability, PyPluginV3OneBuild, Owned<IPluginV3OneBuild>>(
        m, "IPluginV3OneBuild", py::module_local())
        .def(py::init<>())
        .def_property_readonly_static("DEFAULT_FORMAT_COMBINATION_LIMIT",
            [](py::object const&) { return IPluginV3OneBuild::kDEFAULT_FORMAT_COMBINATION_LIMIT; })
        .def_property(
            "num_outputs",
            [](IPluginV3OneBuild const& self) {
                BuildFields const* fields = buildFieldsOf(self);
                if (fields == nullptr)
                {
                    return self.getNbOutputs();
                }
                if (!fields->nbOutputs)
                {
                    throw py::attribute_error("num_outputs not initialized");
                }
                return *fields->nbOutputs;
            },
            [](IPluginV3OneBuild& self, int32_t value) { buildFields(self, "num_outputs").nbOutputs = value; })
        .def_property(
            "format_combination_limit", [](IPluginV3OneBuild& self) { return self.getFormatCombinationLimit(); },
            [](IPluginV3OneBuild& self, int32_t value) {
                buildFields(self, "format_combination_limit").formatCombinationLimit = value;
            })
        .def_property(
            "metadata_string",
            [](IPluginV3OneBuild& self) -> py::object {
                char const* const text = self.getMetadataString();
                return text == nullptr ? py::object(py::none()) : py::object(textToStr(text));
            },
            [](IPluginV3OneBuild& self, std::optional<std::string> value) {
                buildFields(self, "metadata_string").metadataString = std::move(value);
            })
        .def_property(
            "timing_cache_id",
            [](IPluginV3OneBuild& self) -> py::object {
                BuildFields const* fields = buildFieldsOf(self);
                if (fields != nullptr)
                {
                    return fields->timingCacheId ? py::object(textToStr(fields->timingCacheId->c_str()))
                                                 : py::object(py::none());
                }
                char const* const text = self.getTimingCacheID();
                return text == nullptr ? py::object(py::none()) : py::object(textToStr(text));
            },
            [](IPluginV3OneBuild& self, std::optional<std::string> value) {
                buildFields(self, "timing_cache_id").timingCacheId = std::move(value);
            })
        // The defaults of the optional methods, as TensorRT's Python classes give them.
        .def("get_valid_tactics", [](IPluginV3OneBuild& /*self*/) { return py::list(); })
        .def(
            "get_workspace_size",
            [](IPluginV3OneBuild& /*self*/, py::object const& /*inputs*/, py::object const& /*outputs*/) { return 0; },
            py::arg("input_desc"), py::arg("output_desc"));

    py::class_<IPluginV3OneBuildV2, IPluginV3OneBuild, PyPluginV3OneBuildV2, Owned<IPluginV3OneBuildV2>>(
        m, "IPluginV3OneBuildV2", py::module_local())
        .def(py::init<>())
        .def(
            "get_aliased_input", [](IPluginV3OneBuildV2& /*self*/, int32_t /*outputIndex*/) { return -1; },
            py::arg("output_index"));
}

void bindRuntimeCapability(py::module_& m)
{
    py::class_<IPluginV3OneRuntime, IPluginCapability, PyPluginV3OneRuntime, Owned<IPluginV3OneRuntime>>(
        m, "IPluginV3OneRuntime", py::module_local())
        .def(py::init<>());
}

void bindCreatorV3(py::module_& m)
{
    py::class_<IPluginCreatorV3One, IPluginCreatorInterface, PyPluginCreatorV3One, Owned<IPluginCreatorV3One>> creator(
        m, "IPluginCreatorV3One", py::module_local());
    creator.def(py::init<>());
    bindCreatorFields<IPluginCreatorV3One, PyPluginCreatorV3One>(creator);
    creator
        .def(
            "create_plugin",
            [](IPluginCreatorV3One& self, std::string const& name, std::vector<PyPluginField> const& fields,
                TensorRTPhase phase) {
                FieldArray const array(fields);
                IPluginV3* plugin = nullptr;
                {
                    py::gil_scoped_release release; // A Python creator takes it back.
                    plugin = self.createPlugin(name.c_str(), &array.collection, phase);
                }
                return pluginToPython(plugin);
            },
            py::arg("name"), py::arg("field_collection"), py::arg("phase"))
        .def(
            "create_plugin",
            [](IPluginCreatorV3One& self, std::string const& name, PluginFieldCollection const& fields,
                TensorRTPhase phase) {
                IPluginV3* plugin = nullptr;
                {
                    py::gil_scoped_release release;
                    plugin = self.createPlugin(name.c_str(), &fields, phase);
                }
                return pluginToPython(plugin);
            },
            py::arg("name"), py::arg("field_collection"), py::arg("phase"));
}

} // namespace

void bindPluginsV3(py::module_& m)
{
    bindPluginExprs(m);
    bindPluginV3(m);
    bindBuildCapabilities(m);
    bindRuntimeCapability(m);
    bindCreatorV3(m);
    bindPluginsQuick(m);
    bindPluginHost(m);
    bindPluginDlpack(m);
    bindPluginResources(m);
}

} // namespace kiln::python
