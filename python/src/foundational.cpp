// SPDX-License-Identifier: Apache-2.0
// foundational.cpp -- the value types: the Dims family (sequences of int64 extents, implicitly convertible from any
// int sequence), Weights (a zero-copy view of a numpy array, which it keeps alive) and IHostMemory (plans and
// caches, readable through the buffer protocol).

#include "utils.h"

#include <sstream>

namespace kiln::python
{
namespace
{

using nvinfer1::Dims;

int32_t rankOf(Dims const& dims)
{
    return dims.nbDims < 0 ? 0 : std::min(dims.nbDims, Dims::MAX_DIMS);
}

int32_t indexOf(Dims const& dims, std::int64_t index)
{
    int32_t const rank = rankOf(dims);
    if (index < 0)
    {
        index += rank;
    }
    if (index < 0 || index >= rank)
    {
        throw py::index_error("Dims index out of range");
    }
    return static_cast<int32_t>(index);
}

std::string dimsText(Dims const& dims)
{
    return py::str(dimsToTuple(dims));
}

//! Dims of exactly rank extents from a sequence; ValueError otherwise.
template <typename T>
T fixedDims(py::handle shape, int32_t rank)
{
    Dims const dims = toDims(shape, "shape");
    if (dims.nbDims != rank)
    {
        throw py::value_error("a " + std::to_string(rank) + "-D shape needs " + std::to_string(rank) + " extents, got "
            + std::to_string(dims.nbDims));
    }
    T result;
    for (int32_t i = 0; i < rank; ++i)
    {
        result.d[i] = dims.d[i];
    }
    return result;
}

std::size_t elementSize(nvinfer1::DataType type)
{
    using nvinfer1::DataType;
    switch (type)
    {
    case DataType::kFLOAT:
    case DataType::kINT32: return 4;
    case DataType::kHALF:
    case DataType::kBF16: return 2;
    case DataType::kINT64: return 8;
    default: return 1;
    }
}

void bindDims(py::module_& m)
{
    py::class_<Dims>(m, "Dims", py::module_local())
        .def(py::init([] {
            return Dims{0, {}};
        }))
        .def(py::init([](py::object const& shape) { return toDims(shape, "shape"); }), py::arg("shape"))
        .def_property_readonly_static("MAX_DIMS", [](py::object const&) { return Dims::MAX_DIMS; })
        .def("__len__", [](Dims const& self) { return rankOf(self); })
        .def("__getitem__", [](Dims const& self, std::int64_t index) { return self.d[indexOf(self, index)]; })
        .def("__getitem__",
            [](Dims const& self, py::slice const& slice) {
                py::tuple const all = dimsToTuple(self);
                return py::tuple(all[slice]);
            })
        .def("__setitem__",
            [](Dims& self, std::int64_t index, std::int64_t value) { self.d[indexOf(self, index)] = value; })
        .def("__setitem__",
            [](Dims& self, py::slice const& slice, py::object const& values) {
                py::list all = py::list(dimsToTuple(self));
                all[slice] = values;
                if (py::len(all) != static_cast<std::size_t>(rankOf(self)))
                {
                    throw py::value_error("slice assignment cannot change the rank of Dims");
                }
                Dims const updated = toDims(all, "value");
                for (int32_t i = 0; i < updated.nbDims; ++i)
                {
                    self.d[i] = updated.d[i];
                }
            })
        .def("__str__", &dimsText)
        .def("__repr__", &dimsText)
        .def("__eq__",
            [](Dims const& self, py::object const& other) -> py::object {
                if (!py::isinstance<py::tuple>(other) && !py::isinstance<py::list>(other)
                    && !py::isinstance<Dims>(other))
                {
                    return py::reinterpret_borrow<py::object>(Py_NotImplemented);
                }
                return py::bool_(dimsToTuple(self).equal(py::tuple(other)));
            })
        .def("__ne__",
            [](Dims const& self, py::object const& other) -> py::object {
                if (!py::isinstance<py::tuple>(other) && !py::isinstance<py::list>(other)
                    && !py::isinstance<Dims>(other))
                {
                    return py::reinterpret_borrow<py::object>(Py_NotImplemented);
                }
                return py::bool_(!dimsToTuple(self).equal(py::tuple(other)));
            })
        .attr("__hash__")
        = py::none();
    py::implicitly_convertible<py::sequence, Dims>();

    py::class_<nvinfer1::Dims2, Dims>(m, "Dims2", py::module_local())
        .def(py::init<>())
        .def(py::init<int64_t, int64_t>(), py::arg("dim0"), py::arg("dim1"))
        .def(py::init([](py::object const& shape) { return fixedDims<nvinfer1::Dims2>(shape, 2); }), py::arg("shape"));
    py::class_<nvinfer1::DimsHW, nvinfer1::Dims2>(m, "DimsHW", py::module_local())
        .def(py::init<>())
        .def(py::init<int64_t, int64_t>(), py::arg("h"), py::arg("w"))
        .def(py::init([](py::object const& shape) { return fixedDims<nvinfer1::DimsHW>(shape, 2); }), py::arg("shape"))
        .def_property(
            "h", [](nvinfer1::DimsHW const& self) { return self.d[0]; },
            [](nvinfer1::DimsHW& self, int64_t value) { self.d[0] = value; })
        .def_property(
            "w", [](nvinfer1::DimsHW const& self) { return self.d[1]; },
            [](nvinfer1::DimsHW& self, int64_t value) { self.d[1] = value; });
    py::class_<nvinfer1::Dims3, Dims>(m, "Dims3", py::module_local())
        .def(py::init<>())
        .def(py::init<int64_t, int64_t, int64_t>(), py::arg("dim0"), py::arg("dim1"), py::arg("dim2"))
        .def(py::init([](py::object const& shape) { return fixedDims<nvinfer1::Dims3>(shape, 3); }), py::arg("shape"));
    py::class_<nvinfer1::Dims4, Dims>(m, "Dims4", py::module_local())
        .def(py::init<>())
        .def(py::init<int64_t, int64_t, int64_t, int64_t>(), py::arg("dim0"), py::arg("dim1"), py::arg("dim2"),
            py::arg("dim3"))
        .def(py::init([](py::object const& shape) { return fixedDims<nvinfer1::Dims4>(shape, 4); }), py::arg("shape"));
}

py::object weightsArray(py::object const& self)
{
    PyWeights const& weights = self.cast<PyWeights const&>();
    py::object const dtype = numpyDtype(weights.weights.type);
    if (dtype.is_none())
    {
        return self;
    }
    // A view of the values, kept alive through the Weights object.
    return py::array(
        py::dtype::from_args(dtype), {weights.weights.count}, {}, const_cast<void*>(weights.weights.values), self);
}

void bindWeights(py::module_& m)
{
    using nvinfer1::DataType;
    py::class_<PyWeights>(m, "Weights", py::module_local())
        .def(py::init([](DataType type) {
            PyWeights result;
            result.weights = nvinfer1::Weights{type, nullptr, 0};
            return result;
        }),
            py::arg("type") = DataType::kFLOAT)
        .def(py::init([](DataType type, py::object const& ptr, int64_t count) {
            PyWeights result;
            result.weights = nvinfer1::Weights{type, reinterpret_cast<void const*>(toAddress(ptr, "ptr")), count};
            return result;
        }),
            py::arg("type"), py::arg("ptr"), py::arg("count"))
        .def(py::init(&weightsFromArray), py::arg("a"))
        .def_property_readonly("dtype", [](PyWeights const& self) { return self.weights.type; })
        .def_property_readonly("size", [](PyWeights const& self) { return self.weights.count; })
        .def_property_readonly("nbytes",
            [](PyWeights const& self) {
                auto const type = self.weights.type;
                bool const packed = type == DataType::kINT4 || type == DataType::kFP4;
                return packed ? (self.weights.count + 1) / 2
                              : self.weights.count * static_cast<int64_t>(elementSize(type));
            })
        .def("numpy", &weightsArray)
        .def("__len__", [](PyWeights const& self) { return self.weights.count; });
    py::implicitly_convertible<py::array, PyWeights>();
}

char const* bufferFormat(nvinfer1::DataType type)
{
    using nvinfer1::DataType;
    switch (type)
    {
    case DataType::kFLOAT: return "f";
    case DataType::kHALF: return "e";
    case DataType::kINT32: return "i";
    case DataType::kINT64: return "q";
    case DataType::kINT8: return "b";
    case DataType::kBOOL: return "?";
    default: return "B";
    }
}

void bindHostMemory(py::module_& m)
{
    py::class_<nvinfer1::IHostMemory>(m, "IHostMemory", py::buffer_protocol(), py::module_local())
        .def_property_readonly("dtype", &nvinfer1::IHostMemory::type)
        .def_property_readonly("nbytes", &nvinfer1::IHostMemory::size)
        .def_buffer([](nvinfer1::IHostMemory& self) {
            auto const type = self.type();
            auto const itemSize = static_cast<py::ssize_t>(elementSize(type));
            auto const count = static_cast<py::ssize_t>(self.size()) / itemSize;
            return py::buffer_info(self.data(), itemSize, bufferFormat(type), 1, {count}, {itemSize});
        });
}

} // namespace

void bindFoundational(py::module_& m)
{
    bindDims(m);
    bindWeights(m);
    bindHostMemory(m);
}

} // namespace kiln::python
