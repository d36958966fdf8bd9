// SPDX-License-Identifier: Apache-2.0
// plugins_quick.cpp -- TensorRT's Quick plugin interfaces (include/kiln/plugin_quick.h), on which TensorRT's own
// tensorrt.plugin package is written: the classes IPluginV3QuickCore, IPluginV3QuickBuild, IPluginV3QuickAOTBuild,
// IPluginV3QuickRuntime and IPluginCreatorV3Quick, each with its trampoline, the AOT values KernelLaunchParams,
// ISymExprs and ISymExpr, and the enums QuickPluginCreationRequest, PluginArgType and PluginArgDataType. A JIT plugin
// class derives from IPluginV3, IPluginV3QuickCore, IPluginV3QuickBuild and IPluginV3QuickRuntime and answers
// get_capability_interface() with itself:
//
//     class Add(trt.IPluginV3, trt.IPluginV3QuickCore, trt.IPluginV3QuickBuild, trt.IPluginV3QuickRuntime):
//         def __init__(self, k=1.0):
//             for base in (trt.IPluginV3, trt.IPluginV3QuickCore, trt.IPluginV3QuickBuild, trt.IPluginV3QuickRuntime):
//                 base.__init__(self)
//             self.plugin_name, self.plugin_version, self.plugin_namespace = "add", "1", "demo"   # kept in C++
//         def get_num_outputs(self): return 1
//         def get_output_data_types(self, input_types, ranks): return [input_types[0]]
//         def get_supported_format_combinations(self, in_out, num_inputs): ...   # a flat list of PluginTensorDesc
//         def enqueue(self, input_desc, output_desc, inputs, outputs, in_strides, out_strides, stream): ...
//         ...
//
// Calls follow plugins_v3.h: the GIL is taken for the Python call only, and an exception or a bad result is reported
// naming the plugin and the method and becomes TensorRT's failure value. On kiln's host backend a Quick JIT plugin
// whose class defines enqueue_host(input_desc, output_desc, inputs, outputs, in_strides, out_strides) runs through
// it (numpy views of host memory, as for enqueue_host of V3One plugins; see plugin_host.cpp).
#include "kiln/plugin_quick.h"
#include "plugins_v3.h"

namespace kiln::python
{

using namespace nvinfer1;

namespace
{

std::string quoted(std::optional<std::string> const& value)
{
    return value ? "\"" + *value + "\"" : std::string("(unset)");
}

// ---- IPluginV3QuickCore --------------------------------------------------------------------------------------------

//! The trampoline of trt.IPluginV3QuickCore: the name, version and namespace live here, set through the properties.
class PyPluginV3QuickCore : public IPluginV3QuickCore
{
public:
    APILanguage getAPILanguage() const noexcept override { return APILanguage::kPYTHON; }
    char const* getPluginName() const noexcept override { return field(name, "plugin_name"); }
    char const* getPluginVersion() const noexcept override { return field(version, "plugin_version"); }
    char const* getPluginNamespace() const noexcept override { return field(pluginNamespace, "plugin_namespace"); }

    std::optional<std::string> name;
    std::optional<std::string> version;
    std::optional<std::string> pluginNamespace;

private:
    char const* field(std::optional<std::string> const& value, char const* attribute) const noexcept
    {
        return attributeText([this] { return pythonSelf(static_cast<IPluginV3QuickCore const*>(this)); }, value,
            attribute, kSetInPluginInit);
    }
};

// ---- IPluginV3QuickBuild and IPluginV3QuickAOTBuild ----------------------------------------------------------------

//! The descriptors of what get_supported_format_combinations() returned.
std::vector<PluginTensorDesc> descVector(py::handle result, char const* method)
{
    std::vector<PluginTensorDesc> descs;
    for (py::handle item : resultList(result, method, -1, "PluginTensorDesc"))
    {
        descs.push_back(resultAs<PluginTensorDesc>(item, method, "a PluginTensorDesc"));
    }
    return descs;
}

//! The trampoline of trt.IPluginV3QuickBuild (Base = IPluginV3QuickBuild) and the build part of
//! trt.IPluginV3QuickAOTBuild.
template <typename Base>
class PyQuickBuildT : public Base
{
public:
    APILanguage getAPILanguage() const noexcept override { return APILanguage::kPYTHON; }

    int32_t getOutputDataTypes(DataType* outputTypes, int32_t nbOutputs, DataType const* inputTypes,
        int32_t const* inputRanks, int32_t nbInputs) const noexcept override
    {
        return call("get_output_data_types", int32_t{-1}, [&] {
            py::list types;
            py::list ranks;
            for (int32_t i = 0; i < nbInputs; ++i)
            {
                types.append(inputTypes[i]);
                ranks.append(inputRanks[i]);
            }
            readOutputTypes(required("get_output_data_types")(types, ranks), outputTypes, nbOutputs);
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

    int32_t configurePlugin(DynamicPluginTensorDesc const* in, int32_t nbInputs, DynamicPluginTensorDesc const* out,
        int32_t nbOutputs) noexcept override
    {
        return call("configure_plugin", int32_t{-1}, [&] {
            required("configure_plugin")(dynamicDescList(in, nbInputs), dynamicDescList(out, nbOutputs));
            return int32_t{0};
        });
    }

    int32_t getNbSupportedFormatCombinations(
        DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept override
    {
        mCombinations.clear();
        return call("get_supported_format_combinations", int32_t{-1}, [&] {
            py::object const result
                = required("get_supported_format_combinations")(dynamicDescList(inOut, nbInputs + nbOutputs), nbInputs);
            std::vector<PluginTensorDesc> descs = descVector(result, "get_supported_format_combinations");
            auto const width = static_cast<std::size_t>(nbInputs + nbOutputs);
            if (width == 0 || descs.size() % width != 0)
            {
                throw PluginCallProblem("ValueError: get_supported_format_combinations() returned "
                    + std::to_string(descs.size()) + " PluginTensorDesc, not a multiple of the " + std::to_string(width)
                    + " inputs and outputs");
            }
            mCombinations = std::move(descs);
            return static_cast<int32_t>(mCombinations.size() / width);
        });
    }

    int32_t getSupportedFormatCombinations(DynamicPluginTensorDesc const* /*inOut*/, int32_t nbInputs,
        int32_t nbOutputs, PluginTensorDesc* supportedCombinations, int32_t nbFormatCombinations) noexcept override
    {
        return call("get_supported_format_combinations", int32_t{-1}, [&] {
            auto const count
                = static_cast<std::size_t>(nbFormatCombinations) * static_cast<std::size_t>(nbInputs + nbOutputs);
            if (nbFormatCombinations < 0 || count != mCombinations.size())
            {
                throw PluginCallProblem(
                    "getSupportedFormatCombinations() must follow getNbSupportedFormatCombinations() "
                    "for the same I/O (the bindings keep the list between the two calls)");
            }
            std::copy(mCombinations.begin(), mCombinations.end(), supportedCombinations);
            return int32_t{0};
        });
    }

    int32_t getNbOutputs() const noexcept override
    {
        return call("get_num_outputs", int32_t{-1}, [&] {
            py::function const f = py::get_override(static_cast<Base const*>(this), "get_num_outputs");
            return f ? resultAs<int32_t>(f(), "get_num_outputs", "an int") : int32_t{0};
        });
    }

    int32_t getAliasedInput(int32_t outputIndex) noexcept override
    {
        return call("get_aliased_input", int32_t{-1}, [&] {
            py::function const f = py::get_override(static_cast<Base const*>(this), "get_aliased_input");
            return f ? resultAs<int32_t>(f(outputIndex), "get_aliased_input", "an int") : int32_t{-1};
        });
    }

    int32_t getNbTactics() noexcept override
    {
        mTactics.clear();
        return call("get_valid_tactics", int32_t{-1}, [&] {
            py::function const f = py::get_override(static_cast<Base const*>(this), "get_valid_tactics");
            mTactics = f ? intList(f(), "get_valid_tactics") : std::vector<int32_t>{};
            return static_cast<int32_t>(mTactics.size());
        });
    }

    int32_t getValidTactics(int32_t* tactics, int32_t nbTactics) noexcept override
    {
        return call("get_valid_tactics", int32_t{-1}, [&] {
            if (static_cast<int64_t>(mTactics.size()) != nbTactics)
            {
                throw PluginCallProblem(
                    "getValidTactics() must follow getNbTactics() (the bindings keep the tactics between the two calls)");
            }
            std::copy(mTactics.begin(), mTactics.end(), tactics);
            return int32_t{0};
        });
    }

    char const* getTimingCacheID() noexcept override { return optionalText("get_timing_cache_id", mTimingCacheId); }
    char const* getMetadataString() noexcept override { return optionalText("get_metadata_string", mMetadata); }

protected:
    template <typename Result, typename Body>
    Result call(char const* method, Result failure, Body&& body) const noexcept
    {
        auto const self = [this] { return pythonSelf(static_cast<Base const*>(this)); };
        return callPlugin(self, method, failure, std::forward<Body>(body));
    }

    py::function required(char const* name) const { return requiredMethod(static_cast<Base const*>(this), name); }

private:
    //! What the optional method returned (a str, kept in kept), or nullptr when it is absent or returned None.
    char const* optionalText(char const* method, std::string& kept)
    {
        return call(method, static_cast<char const*>(nullptr), [&]() -> char const* {
            py::function const f = py::get_override(static_cast<Base const*>(this), method);
            py::object const result = f ? f() : py::object(py::none());
            if (result.is_none())
            {
                return nullptr;
            }
            kept = resultAs<std::string>(result, method, "a str or None");
            return kept.c_str();
        });
    }

    std::vector<PluginTensorDesc> mCombinations; //!< The latest get_supported_format_combinations(), flat.
    std::vector<int32_t> mTactics;               //!< The latest get_valid_tactics().
    std::string mTimingCacheId;
    std::string mMetadata;
};

using PyPluginV3QuickBuild = PyQuickBuildT<IPluginV3QuickBuild>;

//! The text or bytes item of a result, as bytes.
std::string textOrBytes(py::handle item, char const* method, char const* what)
{
    if (!py::isinstance<py::str>(item) && !py::isinstance<py::bytes>(item))
    {
        throw badResult(method, std::string("a ") + typeName(item) + " as the " + what + "; it must be a str or bytes");
    }
    return item.cast<std::string>();
}

//! The trampoline of trt.IPluginV3QuickAOTBuild: get_launch_params() fills the engine's KernelLaunchParams and
//! ISymExprs, get_kernel() gives the kernel's name and PTX, set_tactic() the tactic both are asked for.
class PyPluginV3QuickAOTBuild : public PyQuickBuildT<IPluginV3QuickAOTBuild>
{
public:
    int32_t getLaunchParams(DimsExprs const* inputs, DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs, IKernelLaunchParams* launchParams, ISymExprs* extraArgs,
        IExprBuilder& exprBuilder) noexcept override
    {
        return call("get_launch_params", int32_t{-1}, [&] {
            // The previous call's objects go first: the engine's ones live at the same addresses now.
            mLaunch = py::object();
            mArgs = py::object();
            // Kept after the call (with the ISymExpr objects set on them) until the engine has read the values.
            mLaunch = py::cast(launchParams, py::return_value_policy::reference);
            mArgs = py::cast(extraArgs, py::return_value_policy::reference);
            py::object const builder = py::cast(&exprBuilder, py::return_value_policy::reference);
            required("get_launch_params")(castList(inputs, nbInputs), dynamicDescList(inOut, nbInputs + nbOutputs),
                nbInputs, mLaunch, mArgs, builder);
            return int32_t{0};
        });
    }

    int32_t getKernel(PluginTensorDesc const* in, int32_t nbInputs, PluginTensorDesc const* out, int32_t nbOutputs,
        char const** kernelName, char** compiledKernel, int32_t* compiledKernelSize) noexcept override
    {
        return call("get_kernel", int32_t{-1}, [&] {
            py::object const result = required("get_kernel")(descList(in, nbInputs), descList(out, nbOutputs));
            if (!py::isinstance<py::tuple>(result) || py::len(result) != 2)
            {
                throw badResult("get_kernel", "a " + typeName(result) + "; it must return (kernel name, PTX)");
            }
            auto const items = py::reinterpret_borrow<py::tuple>(result);
            mName = textOrBytes(items[0], "get_kernel", "kernel name");
            mKernel = textOrBytes(items[1], "get_kernel", "compiled kernel");
            *kernelName = mName.c_str();
            *compiledKernel = mKernel.data();
            *compiledKernelSize = static_cast<int32_t>(mKernel.size());
            return int32_t{0};
        });
    }

    int32_t setTactic(int32_t tactic) noexcept override
    {
        return call("set_tactic", int32_t{-1}, [&] {
            required("set_tactic")(tactic);
            return int32_t{0};
        });
    }

    ~PyPluginV3QuickAOTBuild() override
    {
        if (Py_IsInitialized() == 0)
        {
            mLaunch.release();
            mArgs.release();
        }
    }

private:
    py::object mLaunch;
    py::object mArgs;
    std::string mName;
    std::string mKernel;
};

// ---- IPluginV3QuickRuntime -----------------------------------------------------------------------------------------

//! The trampoline of trt.IPluginV3QuickRuntime.
class PyPluginV3QuickRuntime : public IPluginV3QuickRuntime
{
public:
    APILanguage getAPILanguage() const noexcept override { return APILanguage::kPYTHON; }

    int32_t setTactic(int32_t tactic) noexcept override
    {
        return call("set_tactic", int32_t{-1}, [&] {
            required("set_tactic")(tactic);
            return int32_t{0};
        });
    }

    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc, void const* const* inputs,
        void* const* outputs, Dims const* inputStrides, Dims const* outputStrides, int32_t nbInputs, int32_t nbOutputs,
        cudaStream_t stream) noexcept override
    {
        return call("enqueue", int32_t{-1}, [&] {
            required("enqueue")(descList(inputDesc, nbInputs), descList(outputDesc, nbOutputs),
                addressList(inputs, nbInputs), addressList(const_cast<void const* const*>(outputs), nbOutputs),
                castList(inputStrides, nbInputs), castList(outputStrides, nbOutputs),
                py::int_(reinterpret_cast<std::uintptr_t>(stream)));
            return int32_t{0};
        });
    }

    PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {
        return call("get_fields_to_serialize", static_cast<PluginFieldCollection const*>(nullptr),
            [&]() -> PluginFieldCollection const* {
                py::object const result = required("get_fields_to_serialize")();
                // Kept until the next call: C++ reads the fields after this returns.
                mSerialized = std::make_unique<FieldArray>(fieldList(result, "get_fields_to_serialize"));
                return &mSerialized->collection;
            });
    }

private:
    template <typename Result, typename Body>
    Result call(char const* method, Result failure, Body&& body) const noexcept
    {
        auto const self = [this] { return pythonSelf(static_cast<IPluginV3QuickRuntime const*>(this)); };
        return callPlugin(self, method, failure, std::forward<Body>(body));
    }

    py::function required(char const* name) const
    {
        return requiredMethod(static_cast<IPluginV3QuickRuntime const*>(this), name);
    }

    std::unique_ptr<FieldArray> mSerialized;
};

// ---- IPluginCreatorV3Quick -----------------------------------------------------------------------------------------

//! The trampoline of trt.IPluginCreatorV3Quick (its attributes: PyCreatorT); create_plugin(name, namespace, fc, phase,
//! quickPluginType) is called in Python with five positional arguments.
class PyPluginCreatorV3Quick : public PyCreatorT<IPluginCreatorV3Quick>
{
public:
    IPluginV3* createPlugin(AsciiChar const* pluginName, AsciiChar const* nspace, PluginFieldCollection const* fc,
        TensorRTPhase phase, QuickPluginCreationRequest request) noexcept override
    {
        auto const self = [this] { return pythonSelf(static_cast<IPluginCreatorV3Quick const*>(this)); };
        return callPlugin(self, "create_plugin", static_cast<IPluginV3*>(nullptr), [&] {
            py::object const result = requiredMethod(static_cast<IPluginCreatorV3Quick const*>(this), "create_plugin")(
                textToStr(pluginName), textToStr(nspace != nullptr ? nspace : ""), fieldsObject(fc), phase, request);
            return adoptPlugin(result, "create_plugin");
        });
    }
};

// ---- ISymExpr ------------------------------------------------------------------------------------------------------

//! The trampoline of trt.ISymExpr: type, dtype and expr are attributes kept here (tensorrt.plugin's SymExprImpl sets
//! them in __init__), so the engine reads them without Python.
class PySymExpr final : public ISymExpr
{
public:
    PySymExpr() = default;
    virtual ~PySymExpr() = default;
    PySymExpr(PySymExpr const&) = delete;
    PySymExpr& operator=(PySymExpr const&) = delete;

    PluginArgType getType() const noexcept override { return type; }
    PluginArgDataType getDataType() const noexcept override { return dtype; }
    void* getExpr() noexcept override { return const_cast<IDimensionExpr*>(expr); }

    PluginArgType type{PluginArgType::kINT};
    PluginArgDataType dtype{PluginArgDataType::kINT32};
    IDimensionExpr const* expr{};
};

struct SymExprDelete
{
    void operator()(ISymExpr* expr) const noexcept { delete static_cast<PySymExpr*>(expr); }
};

PySymExpr& pythonSym(ISymExpr& self)
{
    auto* const python = dynamic_cast<PySymExpr*>(&self);
    if (python == nullptr)
    {
        throw py::attribute_error("this ISymExpr was not made in Python");
    }
    return *python;
}

//! The Python object of an ISymExpr the engine holds (one Python made), or None.
py::object symObject(ISymExpr* expr)
{
    return expr == nullptr ? py::object(py::none()) : py::cast(expr, py::return_value_policy::reference);
}

// ---- Bindings ------------------------------------------------------------------------------------------------------

void bindQuickEnums(py::module_& m)
{
    py::enum_<QuickPluginCreationRequest>(m, "QuickPluginCreationRequest", py::arithmetic(), py::module_local())
        .value("UNKNOWN", QuickPluginCreationRequest::kUNKNOWN)
        .value("PREFER_JIT", QuickPluginCreationRequest::kPREFER_JIT)
        .value("PREFER_AOT", QuickPluginCreationRequest::kPREFER_AOT)
        .value("STRICT_JIT", QuickPluginCreationRequest::kSTRICT_JIT)
        .value("STRICT_AOT", QuickPluginCreationRequest::kSTRICT_AOT);
    py::enum_<PluginArgType>(m, "PluginArgType", py::arithmetic(), py::module_local())
        .value("INT", PluginArgType::kINT);
    py::enum_<PluginArgDataType>(m, "PluginArgDataType", py::arithmetic(), py::module_local())
        .value("INT8", PluginArgDataType::kINT8)
        .value("INT16", PluginArgDataType::kINT16)
        .value("INT32", PluginArgDataType::kINT32);
}

void bindAotValues(py::module_& m)
{
    py::class_<ISymExpr, PySymExpr, std::unique_ptr<ISymExpr, SymExprDelete>>(m, "ISymExpr", py::module_local())
        .def(py::init<>())
        .def_property(
            "type", [](ISymExpr const& self) { return self.getType(); },
            [](ISymExpr& self, PluginArgType value) { pythonSym(self).type = value; })
        .def_property(
            "dtype", [](ISymExpr const& self) { return self.getDataType(); },
            [](ISymExpr& self, PluginArgDataType value) { pythonSym(self).dtype = value; })
        .def_property(
            "expr",
            [](ISymExpr& self) -> py::object {
                auto const* expr = static_cast<IDimensionExpr const*>(self.getExpr());
                return expr == nullptr ? py::object(py::none()) : py::cast(expr, py::return_value_policy::reference);
            },
            [](ISymExpr& self, IDimensionExpr const* value) { pythonSym(self).expr = value; });

    py::class_<ISymExprs, std::unique_ptr<ISymExprs, py::nodelete>>(m, "ISymExprs", py::module_local())
        .def_property(
            "nbSymExprs", [](ISymExprs const& self) { return self.getNbSymExprs(); },
            [](ISymExprs& self, int32_t count) {
                if (!self.setNbSymExprs(count))
                {
                    throw py::value_error("nbSymExprs: " + std::to_string(count) + " is out of range");
                }
            })
        .def("__len__", [](ISymExprs const& self) { return self.getNbSymExprs(); })
        .def("__getitem__",
            [](ISymExprs const& self, int32_t index) {
                if (index < 0 || index >= self.getNbSymExprs())
                {
                    throw py::index_error("ISymExprs index out of range");
                }
                return symObject(self.getSymExpr(index));
            })
        .def(
            "__setitem__",
            [](ISymExprs& self, int32_t index, ISymExpr* value) {
                if (!self.setSymExpr(index, value))
                {
                    throw py::index_error("ISymExprs index out of range (set nbSymExprs first)");
                }
            },
            py::keep_alive<1, 3>());

    py::class_<IKernelLaunchParams, std::unique_ptr<IKernelLaunchParams, py::nodelete>> launch(
        m, "KernelLaunchParams", py::module_local());
    using Getter = ISymExpr* (IKernelLaunchParams::*)() noexcept;
    using Setter = bool (IKernelLaunchParams::*)(ISymExpr*) noexcept;
    struct Field
    {
        char const* name;
        Getter get;
        Setter set;
    };
    for (Field const& field : {Field{"grid_x", &IKernelLaunchParams::getGridX, &IKernelLaunchParams::setGridX},
             Field{"grid_y", &IKernelLaunchParams::getGridY, &IKernelLaunchParams::setGridY},
             Field{"grid_z", &IKernelLaunchParams::getGridZ, &IKernelLaunchParams::setGridZ},
             Field{"block_x", &IKernelLaunchParams::getBlockX, &IKernelLaunchParams::setBlockX},
             Field{"block_y", &IKernelLaunchParams::getBlockY, &IKernelLaunchParams::setBlockY},
             Field{"block_z", &IKernelLaunchParams::getBlockZ, &IKernelLaunchParams::setBlockZ},
             Field{"shared_mem", &IKernelLaunchParams::getSharedMem, &IKernelLaunchParams::setSharedMem}})
    {
        Getter const get = field.get;
        Setter const set = field.set;
        launch.def_property(field.name,
            py::cpp_function([get](IKernelLaunchParams& self) { return symObject((self.*get)()); }),
            py::cpp_function(
                [set](IKernelLaunchParams& self, ISymExpr* value) { (self.*set)(value); }, py::keep_alive<1, 2>()));
    }
}

template <typename Class, typename Interface>
void bindIdentity(Class& cls)
{
    textProperty(cls, "plugin_name", &Interface::getPluginName, &PyPluginV3QuickCore::name);
    textProperty(cls, "plugin_version", &Interface::getPluginVersion, &PyPluginV3QuickCore::version);
    textProperty(cls, "plugin_namespace", &Interface::getPluginNamespace, &PyPluginV3QuickCore::pluginNamespace);
}

void bindQuickClasses(py::module_& m)
{
    py::class_<IPluginV3QuickCore, IPluginCapability, PyPluginV3QuickCore, Owned<IPluginV3QuickCore>> core(
        m, "IPluginV3QuickCore", py::module_local());
    core.def(py::init<>());
    bindIdentity<decltype(core), IPluginV3QuickCore>(core);

    py::class_<IPluginV3QuickBuild, IPluginCapability, PyPluginV3QuickBuild, Owned<IPluginV3QuickBuild>>(
        m, "IPluginV3QuickBuild", py::module_local())
        .def(py::init<>());
    py::class_<IPluginV3QuickAOTBuild, IPluginV3QuickBuild, PyPluginV3QuickAOTBuild, Owned<IPluginV3QuickAOTBuild>>(
        m, "IPluginV3QuickAOTBuild", py::module_local())
        .def(py::init<>());
    py::class_<IPluginV3QuickRuntime, IPluginCapability, PyPluginV3QuickRuntime, Owned<IPluginV3QuickRuntime>>(
        m, "IPluginV3QuickRuntime", py::module_local())
        .def(py::init<>());

    py::class_<IPluginCreatorV3Quick, IPluginCreatorInterface, PyPluginCreatorV3Quick, Owned<IPluginCreatorV3Quick>>
        creator(m, "IPluginCreatorV3Quick", py::module_local());
    creator.def(py::init<>());
    bindCreatorFields<IPluginCreatorV3Quick, PyPluginCreatorV3Quick>(creator);
    creator.def(
        "create_plugin",
        [](IPluginCreatorV3Quick& self, std::string const& name, std::string const& pluginNamespace,
            std::vector<PyPluginField> const& fields, TensorRTPhase phase, QuickPluginCreationRequest request) {
            FieldArray const array(fields);
            IPluginV3* plugin = nullptr;
            {
                py::gil_scoped_release release; // A Python creator takes it back.
                plugin = self.createPlugin(name.c_str(), pluginNamespace.c_str(), &array.collection, phase, request);
            }
            return pluginToPython(plugin);
        },
        py::arg("name"), py::arg("namespace"), py::arg("field_collection"), py::arg("phase"),
        py::arg("quickPluginType") = QuickPluginCreationRequest::kUNKNOWN);
}

//! A handle whose Quick JIT plugin defines enqueue_host(): kiln finds its host capability from its class (RTTI), as
//! for a C++ Quick plugin that derives from kiln::IPluginV3QuickHost.
class PluginV3QuickHostHandle final : public PluginV3Handle, public kiln::IPluginV3QuickHost
{
public:
    using PluginV3Handle::PluginV3Handle;

    APILanguage getAPILanguage() const noexcept override { return APILanguage::kPYTHON; }

    int32_t enqueueHost(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, Dims const* inputStrides, Dims const* outputStrides,
        int32_t nbInputs, int32_t nbOutputs) noexcept override
    {
        py::handle const self = mObject;
        return callPlugin([self] { return self; }, "enqueue_host", int32_t{-1},
            [&] {
                mObject.attr("enqueue_host")(descList(inputDesc, nbInputs), descList(outputDesc, nbOutputs),
                    hostTensorViews(inputDesc, inputs, nbInputs, false),
                    hostTensorViews(outputDesc, const_cast<void const* const*>(outputs), nbOutputs, true),
                    castList(inputStrides, nbInputs), castList(outputStrides, nbOutputs));
                return int32_t{0};
            });
    }
};

} // namespace

std::optional<std::string> describePythonQuick(py::handle self)
{
    if (py::isinstance<IPluginCreatorV3Quick>(self))
    {
        auto const* creator = dynamic_cast<PyPluginCreatorV3Quick const*>(self.cast<IPluginCreatorV3Quick const*>());
        return creator != nullptr ? std::optional<std::string>(creator->describe(self)) : std::nullopt;
    }
    if (!py::isinstance<IPluginV3QuickCore>(self))
    {
        return std::nullopt;
    }
    auto const* core = dynamic_cast<PyPluginV3QuickCore const*>(self.cast<IPluginV3QuickCore const*>());
    if (core == nullptr)
    {
        return std::nullopt;
    }
    return "Python Quick plugin " + quoted(core->name) + " version " + quoted(core->version) + " namespace "
        + quoted(core->pluginNamespace) + " (class "
        + std::string(py::str(py::type::handle_of(self).attr("__qualname__"))) + ")";
}

std::unique_ptr<PluginV3Handle> makeQuickHostHandle(py::object object, PyPluginV3& plugin)
{
    return std::make_unique<PluginV3QuickHostHandle>(std::move(object), plugin);
}

IPluginCapability* quickCapabilityOf(py::handle object, PluginCapabilityType type)
{
    switch (type)
    {
    case PluginCapabilityType::kCORE:
        return py::isinstance<IPluginV3QuickCore>(object) ? object.cast<IPluginV3QuickCore*>() : nullptr;
    case PluginCapabilityType::kBUILD:
        if (py::isinstance<IPluginV3QuickAOTBuild>(object))
        {
            return object.cast<IPluginV3QuickAOTBuild*>();
        }
        return py::isinstance<IPluginV3QuickBuild>(object) ? object.cast<IPluginV3QuickBuild*>() : nullptr;
    case PluginCapabilityType::kRUNTIME:
        return py::isinstance<IPluginV3QuickRuntime>(object) ? object.cast<IPluginV3QuickRuntime*>() : nullptr;
    }
    return nullptr;
}

py::object quickCapabilityObject(IPluginCapability* capability)
{
    InterfaceInfo const info = capability->getInterfaceInfo();
    std::string const kind = info.kind != nullptr ? info.kind : "";
    auto const reference = py::return_value_policy::reference;
    if (kind == "PLUGIN_V3QUICK_CORE")
    {
        return py::cast(static_cast<IPluginV3QuickCore*>(capability), reference);
    }
    if (kind == "PLUGIN_V3QUICKAOT_BUILD")
    {
        return py::cast(static_cast<IPluginV3QuickAOTBuild*>(capability), reference);
    }
    if (kind == "PLUGIN_V3QUICK_BUILD")
    {
        return py::cast(static_cast<IPluginV3QuickBuild*>(capability), reference);
    }
    if (kind == "PLUGIN_V3QUICK_RUNTIME")
    {
        return py::cast(static_cast<IPluginV3QuickRuntime*>(capability), reference);
    }
    return py::none();
}

void bindPluginsQuick(py::module_& m)
{
    bindQuickEnums(m);
    bindAotValues(m);
    bindQuickClasses(m);
}

} // namespace kiln::python
