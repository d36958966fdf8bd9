// SPDX-License-Identifier: Apache-2.0
// plugin_exprs.cpp -- what V3 plugin methods receive: tensor descriptors (PluginTensorDesc, DynamicPluginTensorDesc),
// symbolic shapes for get_output_shapes() (DimensionOperation, IDimensionExpr, IExprBuilder, DimsExprs) and the
// IPluginResourceContext of attach_to_context(). Expressions belong to the builder that made them and are valid
// during the call only, as in C++.
//
//     def get_output_shapes(self, inputs, shape_inputs, expr_builder):
//         out = trt.DimsExprs(inputs[0])
//         two = expr_builder.constant(2)
//         out[1] = expr_builder.operation(trt.DimensionOperation.SUM, inputs[0][1], two)
//         return [out]

#include "plugins_v3.h"

namespace kiln::python
{

using namespace nvinfer1;

py::list descList(PluginTensorDesc const* descs, int32_t count)
{
    return castList(descs, count);
}

py::list dynamicDescList(DynamicPluginTensorDesc const* descs, int32_t count)
{
    return castList(descs, count);
}

namespace
{

//! An empty DimsExprs of rank (its extents unset); ValueError outside 0..MAX_DIMS.
DimsExprs emptyExprs(int64_t rank)
{
    if (rank < 0 || rank > Dims::MAX_DIMS)
    {
        throw py::value_error("DimsExprs: a shape has 0 to " + std::to_string(Dims::MAX_DIMS) + " dimensions, got "
            + std::to_string(rank));
    }
    DimsExprs exprs{};
    exprs.nbDims = static_cast<int32_t>(rank);
    return exprs;
}

//! A DimsExprs of a sequence of IDimensionExpr (None for an unset extent).
DimsExprs exprsOf(py::sequence const& items)
{
    DimsExprs exprs = emptyExprs(static_cast<int64_t>(py::len(items)));
    for (int32_t i = 0; i < exprs.nbDims; ++i)
    {
        py::object const item = items[static_cast<py::size_t>(i)];
        exprs.d[i] = item.is_none() ? nullptr : item.cast<IDimensionExpr const*>();
    }
    return exprs;
}

int32_t exprIndex(DimsExprs const& self, int64_t index)
{
    if (index < 0)
    {
        index += self.nbDims;
    }
    if (index < 0 || index >= self.nbDims)
    {
        throw py::index_error("DimsExprs index out of range");
    }
    return static_cast<int32_t>(index);
}

void bindDescriptors(py::module_& m)
{
    py::class_<PluginTensorDesc>(m, "PluginTensorDesc", py::module_local())
        .def(py::init([] {
            return PluginTensorDesc{Dims{0, {}}, DataType::kFLOAT, TensorFormat::kLINEAR, -1.0F};
        }))
        .def_property(
            "dims", [](PluginTensorDesc const& self) { return self.dims; },
            [](PluginTensorDesc& self, py::object const& dims) { self.dims = toDims(dims, "dims"); })
        .def_readwrite("type", &PluginTensorDesc::type)
        .def_readwrite("format", &PluginTensorDesc::format)
        .def_readwrite("scale", &PluginTensorDesc::scale);

    py::class_<DynamicPluginTensorDesc>(m, "DynamicPluginTensorDesc", py::module_local())
        .def(py::init([] {
            DynamicPluginTensorDesc desc{};
            desc.desc = PluginTensorDesc{Dims{0, {}}, DataType::kFLOAT, TensorFormat::kLINEAR, -1.0F};
            return desc;
        }))
        .def(py::init(
                 [](PluginTensorDesc const& desc, py::object const& min, py::object const& max, py::object const& opt) {
                     return DynamicPluginTensorDesc{desc, toDims(min, "min"), toDims(max, "max"), toDims(opt, "opt")};
                 }),
            py::arg("desc"), py::arg("min"), py::arg("max"), py::arg("opt"))
        .def_readwrite("desc", &DynamicPluginTensorDesc::desc)
        .def_property(
            "min", [](DynamicPluginTensorDesc const& self) { return self.min; },
            [](DynamicPluginTensorDesc& self, py::object const& dims) { self.min = toDims(dims, "min"); })
        .def_property(
            "max", [](DynamicPluginTensorDesc const& self) { return self.max; },
            [](DynamicPluginTensorDesc& self, py::object const& dims) { self.max = toDims(dims, "max"); })
        .def_property(
            "opt", [](DynamicPluginTensorDesc const& self) { return self.opt; },
            [](DynamicPluginTensorDesc& self, py::object const& dims) { self.opt = toDims(dims, "opt"); });
}

void bindExpressions(py::module_& m)
{
    py::enum_<DimensionOperation>(m, "DimensionOperation", py::module_local())
        .value("SUM", DimensionOperation::kSUM)
        .value("PROD", DimensionOperation::kPROD)
        .value("MAX", DimensionOperation::kMAX)
        .value("MIN", DimensionOperation::kMIN)
        .value("SUB", DimensionOperation::kSUB)
        .value("EQUAL", DimensionOperation::kEQUAL)
        .value("LESS", DimensionOperation::kLESS)
        .value("FLOOR_DIV", DimensionOperation::kFLOOR_DIV)
        .value("CEIL_DIV", DimensionOperation::kCEIL_DIV);

    auto const reference = py::return_value_policy::reference;
    py::class_<IDimensionExpr, std::unique_ptr<IDimensionExpr, py::nodelete>>(m, "IDimensionExpr", py::module_local())
        .def("is_constant", &IDimensionExpr::isConstant)
        .def("get_constant_value", &IDimensionExpr::getConstantValue)
        .def("is_size_tensor", &IDimensionExpr::isSizeTensor);

    py::class_<IExprBuilder, std::unique_ptr<IExprBuilder, py::nodelete>>(m, "IExprBuilder", py::module_local())
        .def("constant", &IExprBuilder::constant, reference)
        .def(
            "operation",
            [](IExprBuilder& self, DimensionOperation op, IDimensionExpr const& first, IDimensionExpr const& second) {
                return self.operation(op, first, second);
            },
            reference)
        .def(
            "declare_size_tensor",
            [](IExprBuilder& self, int32_t outputIndex, IDimensionExpr const& opt, IDimensionExpr const& upper) {
                return self.declareSizeTensor(outputIndex, opt, upper);
            },
            reference);

    py::class_<DimsExprs>(m, "DimsExprs", py::module_local())
        .def(py::init([] { return emptyExprs(0); }))
        .def(py::init([](DimsExprs const& other) { return other; }))
        .def(py::init([](int64_t rank) { return emptyExprs(rank); }))
        .def(py::init([](py::sequence const& items) { return exprsOf(items); }))
        .def("__len__", [](DimsExprs const& self) { return self.nbDims; })
        .def(
            "__getitem__", [](DimsExprs const& self, int64_t index) { return self.d[exprIndex(self, index)]; },
            reference)
        .def("__setitem__",
            [](DimsExprs& self, int64_t index, IDimensionExpr const* expr) { self.d[exprIndex(self, index)] = expr; })
        .def("__repr__", [](DimsExprs const& self) {
            std::string text = "DimsExprs(";
            for (int32_t i = 0; i < self.nbDims; ++i)
            {
                IDimensionExpr const* expr = self.d[i];
                text += i > 0 ? ", " : "";
                text += expr == nullptr ? "None" : expr->isConstant() ? std::to_string(expr->getConstantValue()) : "?";
            }
            return text + ")";
        });
}

void bindResourceContext(py::module_& m)
{
    py::class_<IPluginResourceContext, std::unique_ptr<IPluginResourceContext, py::nodelete>>(
        m, "IPluginResourceContext", py::module_local())
        .def_property_readonly(
            "gpu_allocator", &IPluginResourceContext::getGpuAllocator, py::return_value_policy::reference)
        .def_property_readonly(
            "error_recorder", &IPluginResourceContext::getErrorRecorder, py::return_value_policy::reference);
}

} // namespace

DimsExprs toDimsExprs(py::handle object)
{
    if (py::isinstance<DimsExprs>(object))
    {
        return object.cast<DimsExprs>();
    }
    if (py::isinstance<py::list>(object) || py::isinstance<py::tuple>(object))
    {
        try
        {
            return exprsOf(py::reinterpret_borrow<py::sequence>(object));
        }
        catch (py::cast_error const&)
        {
        }
    }
    throw PluginCallProblem("get_output_shapes() returned a "
        + std::string(py::str(py::type::handle_of(object).attr("__name__")))
        + " for an output; each output's shape is a DimsExprs (or a list of IDimensionExpr)");
}

void bindPluginExprs(py::module_& m)
{
    bindDescriptors(m);
    bindExpressions(m);
    bindResourceContext(m);
}

} // namespace kiln::python
