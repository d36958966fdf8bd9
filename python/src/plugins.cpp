// SPDX-License-Identifier: Apache-2.0
// plugins.cpp -- the plugin surface for C++ plugins: the plugin enums, PluginField and the two field collections
// (PluginFieldCollection, a list of PluginField; PluginFieldCollection_, the C struct creators receive and report),
// the registry (get_plugin_registry(), get_builder_plugin_registry(), init_libnvinfer_plugins()), V2 plugins
// (IPluginV2, IPluginV2Ext, IPluginV2DynamicExtBase) and the plugin layers. The classes Python may implement are in
// plugins_v2.cpp (IPluginCreator, IPluginV2DynamicExt) and plugins_v3.cpp (the V3 classes).
//
//     trt.init_libnvinfer_plugins(logger, "")
//     creator = trt.get_plugin_registry().get_creator("ROIAlign_TRT", "2", "")
//     fields = trt.PluginFieldCollection([trt.PluginField("output_height", np.array([2], np.int32),
//                                                         trt.PluginFieldType.INT32)])
//     plugin = creator.create_plugin("roi", fields, trt.TensorRTPhase.BUILD)
//     layer = network.add_plugin_v3([x, rois, batch], [], plugin)

#include "kiln/plugin_quick.h"
#include "libraries.h"
#include "plugin_fields.h"
#include "plugins_v2.h"
#include "plugins_v3.h"
#include "utils.h"

#include <pybind11/stl_bind.h>

#include <dlfcn.h>

#include <cstring>
#include <string>
#include <vector>

namespace kiln::python
{
namespace
{

using namespace nvinfer1;

template <typename T>
using Layer = py::class_<T, ILayer, std::unique_ptr<T, py::nodelete>>;

void setFieldName(PyPluginField& self, py::str const& name)
{
    char const* const text = PyUnicode_AsUTF8(name.ptr());
    if (text == nullptr)
    {
        throw py::error_already_set();
    }
    self.name = name;
    self.field.name = text;
}

void setFieldData(PyPluginField& self, py::buffer const& data)
{
    py::buffer_info const info = data.request();
    self.data = data;
    self.field.data = info.ptr;
    self.field.length = static_cast<int32_t>(info.size);
}

//! The numpy type of a field's values; AttributeError where numpy has none, as in TensorRT.
py::dtype fieldDtype(PluginFieldType type)
{
    switch (type)
    {
    case PluginFieldType::kFLOAT32: return py::dtype::of<float>();
    case PluginFieldType::kFLOAT64: return py::dtype::of<double>();
    case PluginFieldType::kINT8:
    case PluginFieldType::kCHAR:
    case PluginFieldType::kUNKNOWN: return py::dtype::of<int8_t>();
    case PluginFieldType::kINT16: return py::dtype::of<int16_t>();
    case PluginFieldType::kINT32: return py::dtype::of<int32_t>();
    case PluginFieldType::kINT64: return py::dtype::of<int64_t>();
    default: break;
    }
    throw py::attribute_error("No known conversion for returning data from plugin field of this type to Python");
}

//! The field's values: a numpy view kept alive through the field's Python object when Python gave the data; a copy
//! when the field views C++ memory (a PluginFieldCollection_ passed to create_plugin, whose memory is the caller's and
//! goes when the call returns: plugins keep fc[0].data, as TensorRT's samples do).
py::object fieldData(py::object const& self)
{
    PyPluginField const& field = self.cast<PyPluginField const&>();
    py::dtype const dtype = fieldDtype(field.field.type);
    if (field.field.data == nullptr)
    {
        return py::array(dtype, std::vector<py::ssize_t>{0}, std::vector<py::ssize_t>{});
    }
    if (field.data.is_none())
    {
        return py::array(dtype, {field.field.length}, {}, field.field.data); // No base: numpy copies.
    }
    return py::array(dtype, {field.field.length}, {}, field.field.data, self);
}

PyPluginField viewField(PluginField const& field)
{
    return PyPluginField{field, py::none(), py::none()};
}

void bindPluginEnums(py::module_& m)
{
    py::enum_<PluginFieldType>(m, "PluginFieldType", py::module_local())
        .value("FLOAT16", PluginFieldType::kFLOAT16)
        .value("FLOAT32", PluginFieldType::kFLOAT32)
        .value("FLOAT64", PluginFieldType::kFLOAT64)
        .value("INT8", PluginFieldType::kINT8)
        .value("INT16", PluginFieldType::kINT16)
        .value("INT32", PluginFieldType::kINT32)
        .value("CHAR", PluginFieldType::kCHAR)
        .value("DIMS", PluginFieldType::kDIMS)
        .value("UNKNOWN", PluginFieldType::kUNKNOWN)
        .value("BF16", PluginFieldType::kBF16)
        .value("INT64", PluginFieldType::kINT64)
        .value("FP8", PluginFieldType::kFP8)
        .value("INT4", PluginFieldType::kINT4)
        .value("FP4", PluginFieldType::kFP4);
    py::enum_<PluginCapabilityType>(m, "PluginCapabilityType", py::arithmetic(), py::module_local())
        .value("CORE", PluginCapabilityType::kCORE)
        .value("BUILD", PluginCapabilityType::kBUILD)
        .value("RUNTIME", PluginCapabilityType::kRUNTIME);
    py::enum_<TensorRTPhase>(m, "TensorRTPhase", py::arithmetic(), py::module_local())
        .value("BUILD", TensorRTPhase::kBUILD)
        .value("RUNTIME", TensorRTPhase::kRUNTIME);
}

void bindFields(py::module_& m)
{
    py::class_<PyPluginField>(m, "PluginField", py::module_local())
        .def(py::init([](py::str const& name) {
            PyPluginField field{PluginField{}, py::none(), py::none()};
            setFieldName(field, name);
            return field;
        }),
            py::arg("name") = py::str(""))
        .def(py::init([](py::str const& name, py::buffer const& data, PluginFieldType type) {
            PyPluginField field{PluginField{}, py::none(), py::none()};
            setFieldName(field, name);
            setFieldData(field, data);
            field.field.type = type;
            return field;
        }),
            py::arg("name"), py::arg("data"), py::arg("type") = PluginFieldType::kUNKNOWN)
        .def_property(
            "name", [](PyPluginField const& self) { return textToStr(self.field.name); }, &setFieldName)
        .def_property("data", &fieldData, &setFieldData)
        .def_property(
            "type", [](PyPluginField const& self) { return self.field.type; },
            [](PyPluginField& self, PluginFieldType type) { self.field.type = type; })
        .def_property(
            "size", [](PyPluginField const& self) { return self.field.length; },
            [](PyPluginField& self, int32_t size) { self.field.length = size; });

    py::bind_vector<std::vector<PyPluginField>>(m, "PluginFieldCollection", py::module_local());

    py::class_<PluginFieldCollection>(m, "PluginFieldCollection_", py::module_local())
        .def("__len__", [](PluginFieldCollection const& self) { return self.nbFields; })
        .def(
            "__getitem__",
            [](PluginFieldCollection const& self, int64_t index) {
                if (index < 0)
                {
                    index += self.nbFields;
                }
                if (index < 0 || index >= self.nbFields || self.fields == nullptr)
                {
                    throw py::index_error("plugin field index out of range");
                }
                return viewField(self.fields[index]);
            },
            py::keep_alive<0, 1>());
}

//! The Python object of a creator, typed by the interface kind it reports (TensorRT's rule); RuntimeError for a
//! kind neither family has.
py::object creatorObject(IPluginCreatorInterface* creator)
{
    if (creator == nullptr)
    {
        return py::none();
    }
    char const* const kind = creator->getInterfaceInfo().kind;
    if (kind != nullptr && std::strcmp(kind, "PLUGIN CREATOR_V1") == 0)
    {
        return py::cast(static_cast<IPluginCreator*>(creator), py::return_value_policy::reference);
    }
    if (kind != nullptr && std::strcmp(kind, "PLUGIN CREATOR_V3ONE") == 0)
    {
        return py::cast(static_cast<IPluginCreatorV3One*>(creator), py::return_value_policy::reference);
    }
    if (kind != nullptr && std::strcmp(kind, "PLUGIN CREATOR_V3QUICK") == 0)
    {
        return py::cast(static_cast<nvinfer1::IPluginCreatorV3Quick*>(creator), py::return_value_policy::reference);
    }
    throw std::runtime_error("Unknown plugin creator type");
}

template <typename List>
py::list creatorList(List list, int32_t count)
{
    py::list result;
    for (int32_t i = 0; list != nullptr && i < count; ++i)
    {
        result.append(creatorObject(list[i]));
    }
    return result;
}

void bindCreators(py::module_& m)
{
    py::class_<IPluginCreatorInterface, std::unique_ptr<IPluginCreatorInterface, py::nodelete>>(
        m, "IPluginCreatorInterface", py::module_local());
}

void bindPluginObjects(py::module_& m)
{
    py::class_<IPluginV2, std::unique_ptr<IPluginV2, PluginV2Destroy>>(m, "IPluginV2", py::module_local())
        .def_property_readonly("num_outputs", &IPluginV2::getNbOutputs)
        .def_property_readonly("plugin_type", [](IPluginV2 const& self) { return textToStr(self.getPluginType()); })
        .def_property_readonly(
            "plugin_version", [](IPluginV2 const& self) { return textToStr(self.getPluginVersion()); })
        .def_property(
            "plugin_namespace", [](IPluginV2 const& self) { return textToStr(self.getPluginNamespace()); },
            [](IPluginV2& self, std::string const& pluginNamespace) {
                self.setPluginNamespace(pluginNamespace.c_str());
            })
        .def_property_readonly("serialization_size", &IPluginV2::getSerializationSize)
        .def_property_readonly("tensorrt_version", &IPluginV2::getTensorRTVersion);

    // For typing and for C++ plugins; Python plugins derive from IPluginV2DynamicExt (plugins_v2.cpp).
    py::class_<IPluginV2Ext, IPluginV2, std::unique_ptr<IPluginV2Ext, PluginV2Destroy>>(
        m, "IPluginV2Ext", py::module_local());
    py::class_<IPluginV2DynamicExt, IPluginV2Ext, std::unique_ptr<IPluginV2DynamicExt, PluginV2Destroy>>(
        m, "IPluginV2DynamicExtBase", py::module_local());

    py::class_<IPluginCapability, std::unique_ptr<IPluginCapability, py::nodelete>>(
        m, "IPluginCapability", py::module_local());
    Layer<IPluginV2Layer>(m, "IPluginV2Layer", py::module_local())
        .def_property_readonly("plugin",
            [](py::object const& self) { return pluginV2Object(&self.cast<IPluginV2Layer&>().getPlugin(), self); });
    Layer<IPluginV3Layer>(m, "IPluginV3Layer", py::module_local())
        .def_property_readonly("plugin",
            [](py::object const& self) { return pluginV3Object(&self.cast<IPluginV3Layer&>().getPlugin(), self); });
}

//! Calls initLibNvInferPlugins of kiln's standard plugin library, libnvinfer_plugin.so.10 (openKilnLibrary: beside
//! libkiln, then by name). False (logged) when it cannot be loaded.
bool initStandardPlugins(ILogger* logger, char const* pluginNamespace)
{
    constexpr char const* kLibrary = "libnvinfer_plugin.so.10";
    std::string problem;
    // Kept loaded for the process, as the creators it registers must stay. Global, as TensorRT's is in a C++
    // application: it links only libnvinfer.
    if (void* const handle = openKilnLibrary(kLibrary, RTLD_NOW | RTLD_GLOBAL, problem))
    {
        using Init = bool (*)(void*, char const*);
        if (auto const init = reinterpret_cast<Init>(dlsym(handle, "initLibNvInferPlugins")))
        {
            return init(logger, pluginNamespace);
        }
        problem = std::string(kLibrary) + " has no initLibNvInferPlugins";
    }
    std::string const message
        = "init_libnvinfer_plugins: kiln's standard plugin library could not be loaded: " + problem;
    (logger != nullptr ? logger : getLogger())->log(ILogger::Severity::kERROR, message.c_str());
    return false;
}

void bindRegistry(py::module_& m)
{
    py::class_<IPluginRegistry, std::unique_ptr<IPluginRegistry, py::nodelete>>(
        m, "IPluginRegistry", py::module_local(), py::dynamic_attr())
        .def_property_readonly("plugin_creator_list",
            [](IPluginRegistry const& self) {
                int32_t count = 0;
                IPluginCreator* const* const list = self.getPluginCreatorList(&count);
                return creatorList(list, count);
            })
        .def_property_readonly("all_creators",
            [](IPluginRegistry const& self) {
                int32_t count = 0;
                IPluginCreatorInterface* const* const list = self.getAllCreators(&count);
                return creatorList(list, count);
            })
        .def_property_readonly("all_creators_recursive",
            [](IPluginRegistry& self) {
                int32_t count = 0;
                IPluginCreatorInterface* const* const list = self.getAllCreatorsRecursive(&count);
                return creatorList(list, count);
            })
        .def(
            "register_creator",
            [](py::object const& self, py::object const& creator, std::string const& pluginNamespace) {
                auto& registry = self.cast<IPluginRegistry&>();
                bool const ok
                    = registry.registerCreator(creator.cast<IPluginCreatorInterface&>(), pluginNamespace.c_str());
                if (ok)
                {
                    // The registry keeps what it registered (TensorRT's rule).
                    if (!py::hasattr(self, "_kiln_creators"))
                    {
                        keepWith(self, "_kiln_creators", py::list());
                    }
                    self.attr("_kiln_creators").cast<py::list>().append(creator);
                }
                return ok;
            },
            py::arg("creator"), py::arg("plugin_namespace") = "")
        .def(
            "deregister_creator",
            [](py::object const& self, py::object const& creator) {
                bool const ok
                    = self.cast<IPluginRegistry&>().deregisterCreator(creator.cast<IPluginCreatorInterface const&>());
                if (ok && py::hasattr(self, "_kiln_creators"))
                {
                    // The registry no longer keeps it.
                    py::list const kept = self.attr("_kiln_creators");
                    for (py::size_t i = 0; i < py::len(kept); ++i)
                    {
                        if (py::object(kept[i]).is(creator))
                        {
                            kept.attr("pop")(i);
                            break;
                        }
                    }
                }
                return ok;
            },
            py::arg("creator"))
        .def(
            "get_plugin_creator",
            [](IPluginRegistry& self, std::string const& type, std::string const& version,
                std::string const& pluginNamespace) {
                return creatorObject(self.getPluginCreator(type.c_str(), version.c_str(), pluginNamespace.c_str()));
            },
            py::arg("type"), py::arg("version"), py::arg("plugin_namespace") = "")
        .def(
            "get_creator",
            [](IPluginRegistry& self, std::string const& type, std::string const& version,
                std::string const& pluginNamespace) {
                return creatorObject(self.getCreator(type.c_str(), version.c_str(), pluginNamespace.c_str()));
            },
            py::arg("type"), py::arg("version"), py::arg("plugin_namespace") = "")
        .def(
            "load_library",
            [](IPluginRegistry& self, std::string const& path) -> py::object {
                void* const handle = self.loadLibrary(path.c_str());
                if (handle == nullptr)
                {
                    return py::none();
                }
                return py::int_(reinterpret_cast<std::uintptr_t>(handle));
            },
            py::arg("plugin_path"))
        .def(
            "deregister_library",
            [](IPluginRegistry& self, py::object const& handle) {
                self.deregisterLibrary(reinterpret_cast<void*>(toAddress(handle, "handle")));
            },
            py::arg("handle"))
        .def("acquire_plugin_resource", &acquirePluginResource, py::arg("key"), py::arg("resource"))
        .def("release_plugin_resource", &releasePluginResource, py::arg("key"))
        .def_property(
            "parent_search_enabled", &IPluginRegistry::isParentSearchEnabled, &IPluginRegistry::setParentSearchEnabled)
        .def_property("error_recorder", &IPluginRegistry::getErrorRecorder,
            keepingSetter<IPluginRegistry, IErrorRecorder>("_kiln_error_recorder",
                [](IPluginRegistry& self, IErrorRecorder* recorder) { self.setErrorRecorder(recorder); }),
            py::return_value_policy::reference);

    // One Python object for the process-wide registry, cached in the module as TensorRT caches it.
    m.def("get_plugin_registry", [m]() {
        if (!py::hasattr(m, "_plugin_registry"))
        {
            m.attr("_plugin_registry") = py::cast(getPluginRegistry(), py::return_value_policy::reference);
        }
        return m.attr("_plugin_registry");
    });
    m.def(
        "get_builder_plugin_registry", [](EngineCapability capability) { return getBuilderPluginRegistry(capability); },
        py::arg("capability"), py::return_value_policy::reference);
    m.def(
        "init_libnvinfer_plugins",
        [](ILogger* logger, std::string const& pluginNamespace) {
            py::gil_scoped_release release;
            return initStandardPlugins(logger, pluginNamespace.c_str());
        },
        py::arg("logger"), py::arg("namespace"));
}

} // namespace

void bindPlugins(py::module_& m)
{
    bindPluginEnums(m);
    bindFields(m);
    bindCreators(m);
    bindPluginObjects(m);
    bindPluginsV2(m);
    bindPluginsV3(m);
    bindRegistry(m);
}

} // namespace kiln::python
