// SPDX-License-Identifier: Apache-2.0
// plugin_resources.cpp -- resources shared among plugins, written in Python: IPluginResource (clone() and release()
// in Python) and the registry's acquire_plugin_resource(key, resource) and release_plugin_resource(key). The registry
// stores a clone per key, made by the first acquisition's resource.clone(); the clone is a Python object that the
// registry holds (through a ResourceHandle) until the last release calls its release() and drops it.
//
//     class SharedTable(trt.IPluginResource):
//         def __init__(self, table=None):
//             trt.IPluginResource.__init__(self)
//             self.table = table
//         def clone(self):
//             return SharedTable(load_table())     # the one stored: load here
//         def release(self):
//             self.table = None
//
//     table = trt.get_plugin_registry().acquire_plugin_resource("table", SharedTable())   # the stored clone
//     trt.get_plugin_registry().release_plugin_resource("table")

#include "plugins_v3.h"

namespace kiln::python
{

using namespace nvinfer1;

namespace
{

auto resourceSelf(IPluginResource const* resource)
{
    return [resource] { return pythonSelf(resource); };
}

IPluginResource* adoptResource(py::handle result);

//! The trampoline of trt.IPluginResource: clone() and release() are called in Python.
class PyPluginResource : public IPluginResource
{
public:
    APILanguage getAPILanguage() const noexcept override { return APILanguage::kPYTHON; }

    int32_t release() noexcept override
    {
        return callPlugin(resourceSelf(this), "release", int32_t{-1}, [&] {
            requiredMethod(static_cast<IPluginResource const*>(this), "release")();
            return int32_t{0};
        });
    }

    IPluginResource* clone() noexcept override
    {
        return callPlugin(resourceSelf(this), "clone", static_cast<IPluginResource*>(nullptr),
            [&] { return adoptResource(requiredMethod(static_cast<IPluginResource const*>(this), "clone")()); });
    }
};

//! What the registry holds of a Python resource: a strong reference, dropped (with the GIL) when the registry deletes
//! it after its last release.
class ResourceHandle final : public IPluginResource
{
public:
    ResourceHandle(py::object object, PyPluginResource& resource) noexcept
        : mObject(std::move(object))
        , mResource(&resource)
    {
    }

    ~ResourceHandle() override
    {
        if (Py_IsInitialized() == 0)
        {
            mObject.release();
            return;
        }
        py::gil_scoped_acquire gil;
        mObject = py::object();
    }

    ResourceHandle(ResourceHandle const&) = delete;
    ResourceHandle& operator=(ResourceHandle const&) = delete;

    APILanguage getAPILanguage() const noexcept override { return APILanguage::kPYTHON; }
    int32_t release() noexcept override { return mResource->release(); }
    IPluginResource* clone() noexcept override { return mResource->clone(); }

    py::object object() const { return mObject; }

private:
    py::object mObject;
    PyPluginResource* mResource;
};

IPluginResource* adoptResource(py::handle result)
{
    if (result.is_none())
    {
        return nullptr;
    }
    auto* const resource = py::isinstance<IPluginResource>(result) ? result.cast<IPluginResource*>() : nullptr;
    auto* const python = dynamic_cast<PyPluginResource*>(resource);
    if (python == nullptr)
    {
        throw PluginCallProblem("clone() returned a "
            + std::string(py::str(py::type::handle_of(result).attr("__name__")))
            + "; it must return a trt.IPluginResource written in Python, or None");
    }
    return new ResourceHandle(py::reinterpret_borrow<py::object>(result), *python);
}

} // namespace

py::object acquirePluginResource(IPluginRegistry& registry, std::string const& key, IPluginResource& resource)
{
    IPluginResource* stored = nullptr;
    {
        // Released: another thread may be cloning this key, and that clone() needs the GIL.
        py::gil_scoped_release release;
        stored = registry.acquirePluginResource(key.c_str(), &resource);
    }
    if (stored == nullptr)
    {
        return py::none();
    }
    if (auto const* handle = dynamic_cast<ResourceHandle const*>(stored))
    {
        return handle->object();
    }
    return py::cast(stored, py::return_value_policy::reference);
}

int32_t releasePluginResource(IPluginRegistry& registry, std::string const& key)
{
    py::gil_scoped_release release;
    return registry.releasePluginResource(key.c_str());
}

void bindPluginResources(py::module_& m)
{
    py::class_<IPluginResource, PyPluginResource>(m, "IPluginResource", py::module_local()).def(py::init<>());
}

} // namespace kiln::python
