// SPDX-License-Identifier: Apache-2.0
// plugins_v2.h -- V2 plugins in the bindings: how C++ frees a V2 plugin it was given (destroy()), shared by plugins.cpp
// (C++ V2 plugins and the plugin layers) and plugins_v2.cpp (IPluginV2DynamicExt and IPluginCreator written in
// Python, with the handles through which C++ owns Python V2 plugins).
//
//     layer.plugin   # IPluginV2Layer.plugin: pluginV2Object() gives the Python plugin behind the network's handle

#ifndef KILN_PYTHON_PLUGINS_V2_H
#define KILN_PYTHON_PLUGINS_V2_H

#include "utils.h"

namespace kiln::python
{

//! Frees a V2 plugin the way its interface requires: destroy().
struct PluginV2Destroy
{
    void operator()(nvinfer1::IPluginV2* plugin) const noexcept
    {
        if (plugin != nullptr)
        {
            plugin->destroy();
        }
    }
};

//! The Python object of a V2 plugin C++ keeps (a layer's): the Python plugin behind a handle, else a reference to the
//! C++ object that keeps parent alive.
py::object pluginV2Object(nvinfer1::IPluginV2* plugin, py::handle parent);

//! Binds IPluginCreator (C++ creators and the base of Python V2 creators) and IPluginV2DynamicExt (the base of Python
//! V2 plugins). Call after IPluginCreatorInterface and IPluginV2DynamicExtBase are bound.
void bindPluginsV2(py::module_& m);

} // namespace kiln::python

#endif // KILN_PYTHON_PLUGINS_V2_H
