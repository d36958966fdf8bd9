// SPDX-License-Identifier: Apache-2.0
// plugin_fields.h -- Python's PluginField and the C struct made from a list of them, shared by the plugin binding
// files: plugins.cpp binds them, plugins_v3.cpp converts what Python creators and plugins return
// (field_names, get_fields_to_serialize()) into the PluginFieldCollection C++ reads.
//
//     FieldArray const array(fields.cast<std::vector<PyPluginField> const&>());
//     creator.createPlugin("name", &array.collection, phase);

#ifndef KILN_PYTHON_PLUGIN_FIELDS_H
#define KILN_PYTHON_PLUGIN_FIELDS_H

#include "utils.h"

#include <vector>

namespace kiln::python
{

//! Python's PluginField: TensorRT's PluginField plus the Python objects its name and data point into (a str and a
//! buffer such as a numpy array), so that a field stays valid while it is referenced, also from a collection. A
//! field read from a creator's PluginFieldCollection_ views C++ memory and owns nothing.
struct PyPluginField
{
    nvinfer1::PluginField field;
    py::object name;
    py::object data;
};

} // namespace kiln::python

PYBIND11_MAKE_OPAQUE(std::vector<kiln::python::PyPluginField>)

namespace kiln::python
{

//! A C struct over copies of fields: valid while this object lives, as the copies keep the fields' Python objects.
//! Not copyable (the struct points into it). Make and destroy it with the GIL held.
struct FieldArray
{
    std::vector<PyPluginField> owners;
    std::vector<nvinfer1::PluginField> fields;
    nvinfer1::PluginFieldCollection collection{};

    explicit FieldArray(std::vector<PyPluginField> const& from)
        : owners(from)
    {
        for (PyPluginField const& field : owners)
        {
            fields.push_back(field.field);
        }
        collection.nbFields = static_cast<int32_t>(fields.size());
        collection.fields = fields.data();
    }

    FieldArray(FieldArray const&) = delete;
    FieldArray& operator=(FieldArray const&) = delete;
};

} // namespace kiln::python

#endif // KILN_PYTHON_PLUGIN_FIELDS_H
