// SPDX-License-Identifier: Apache-2.0
// utils.h -- the conversions every binding file shares: Python ints (and objects with __index__/__int__) to
// addresses and streams, int sequences to Dims, numpy arrays to Weights, and the DeprecationWarning TensorRT's
// bindings issue. Behaviour stays in C++; the binding files only call the public API through these.
//
//     void* p = kiln::python::toAddress(obj, "memory");   // TypeError naming "memory" if obj is not an int
//     nvinfer1::Dims d = kiln::python::toDims(seq, "shape");

#ifndef KILN_PYTHON_UTILS_H
#define KILN_PYTHON_UTILS_H

#include "NvInfer.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <string>

namespace kiln::python
{
namespace py = pybind11;

//! An address or handle from a Python int or any object int() or __index__ accepts (numpy integers, cuda-python
//! handles); TypeError naming argument otherwise.
std::uintptr_t toAddress(py::handle object, char const* argument);

//! A shape from any sequence of ints (tuple, list, range, numpy array, Dims); ValueError past MAX_DIMS.
nvinfer1::Dims toDims(py::handle object, char const* argument);

//! The Python tuple of a shape's extents (an unknown rank gives an empty tuple).
py::tuple dimsToTuple(nvinfer1::Dims const& dims);

//! Prints "[ERROR] Exception caught in <method>(): <what>" to stderr, as TensorRT's bindings do when a Python
//! callback raises; the caller then returns the failure value C++ expects. Call with the GIL held.
void reportCallbackError(char const* method, char const* what) noexcept;

//! A Python str of C text that need not be UTF-8 (invalid bytes are replaced).
py::str textToStr(char const* text);

//! Issues a DeprecationWarning with message.
void deprecated(char const* message);

//! The numpy dtype of a DataType, or None where numpy has none.
py::object numpyDtype(nvinfer1::DataType type);

//! Python's Weights: TensorRT's Weights plus the Python object that owns the values (a numpy array, or None for
//! a raw pointer or empty weights). TensorRT keeps no copy of weights, so the owner lives as long as this object,
//! and every layer or network given the Weights keeps them alive (keep_alive in the bindings).
struct PyWeights
{
    nvinfer1::Weights weights{nvinfer1::DataType::kFLOAT, nullptr, 0};
    py::object owner;
};

//! Weights viewing a C-contiguous numpy array without a copy; ValueError for other layouts and dtypes.
PyWeights weightsFromArray(py::array const& array);

//! Weights from an optional argument: None gives empty weights of type fallback.
nvinfer1::Weights optionalWeights(py::object const& weights, nvinfer1::DataType fallback);

//! The C++ class of a layer of type, for the polymorphic_type_hook below (nullptr for classes not bound).
std::type_info const* layerClass(nvinfer1::LayerType type);

void bindEnums(py::module_& m);
void bindFoundational(py::module_& m);
void bindLogger(py::module_& m);
void bindNetwork(py::module_& m);
void bindLayers(py::module_& m);
void bindBuilder(py::module_& m);
void bindRuntime(py::module_& m);
void bindParser(py::module_& m);

} // namespace kiln::python

namespace pybind11
{
//! Every ILayer pointer reaches Python as its concrete class (IConvolutionLayer, ...), found from getType(): kiln's
//! layer classes are internal, so pybind11's RTTI look-up would stop at ILayer.
template <>
struct polymorphic_type_hook<nvinfer1::ILayer>
{
    static void const* get(nvinfer1::ILayer const* src, std::type_info const*& type);
};
} // namespace pybind11

#endif // KILN_PYTHON_UTILS_H
