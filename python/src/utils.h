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

//! Reports "Exception caught in <method>(): <what>" at kERROR through the library's current logger (the one of the
//! latest builder, runtime or refitter), as TensorRT's bindings report a Python callback that raised; the caller then
//! returns the failure value C++ expects. The logger's own log() reports to stderr instead ("[ERROR] ..."), and so
//! does a report made while another one is being logged. Call with the GIL held.
void reportCallbackError(char const* method, char const* what) noexcept;

//! Reports message as it is, the same way (method says only whether the logger's own log() failed).
void reportCallbackMessage(char const* method, std::string const& message) noexcept;

//! Reports "Method: <method> was not overriden. Please provide an implementation for this method." the same way.
void reportMissingOverride(char const* method) noexcept;

//! Reports "Return value of <method>() could not be interpreted as <expected>" the same way.
void reportBadReturn(char const* method, char const* expected) noexcept;

//! The Python override called name of a trampoline's interface object, or an empty function. A missing override of
//! a required method is reported (reportMissingOverride). Call with the GIL held.
template <typename Interface>
py::function findOverride(Interface const* self, char const* name, bool required)
{
    py::function f = py::get_override(self, name);
    if (!f && required)
    {
        reportMissingOverride(name);
    }
    return f;
}

//! Runs body, which calls into Python, with the GIL taken, and returns its result; a Python exception (or a C++
//! one from a conversion) is reported with reportCallbackError(method) and gives failure instead. Nothing escapes:
//! this is the wall between a Python callback and the C++ that called it. Make every Python object inside body: the
//! caller may not hold the GIL (Python 3.12 crashed on a str made in the arguments, issue 18).
template <typename Result, typename Body>
Result guardCallback(char const* method, Result failure, Body&& body) noexcept
{
    py::gil_scoped_acquire gil;
    try
    {
        return body();
    }
    catch (py::error_already_set& e)
    {
        reportCallbackError(method, e.what());
    }
    catch (std::exception const& e)
    {
        reportCallbackError(method, e.what());
    }
    return failure;
}

//! guardCallback() for callbacks without a result.
template <typename Body>
void guardCallback(char const* method, Body&& body) noexcept
{
    guardCallback(method, 0, [&] {
        body();
        return 0;
    });
}

//! The Python object of result, which Python owns from now on, keeping owner alive as long as it lives: what
//! py::keep_alive<0, 1>() with take_ownership does, written out for overloaded methods. pybind11 3 runs an overload's
//! keep_alive even when that overload's argument conversion failed, on a placeholder result (pybind/pybind11#6154), so
//! deserialize_cuda_engine(stream_reader), its second overload, crashed in keep_alive_impl. Call with the GIL held.
template <typename T>
py::object takeKeepingAlive(T* result, py::handle owner)
{
    py::object object = py::cast(result, py::return_value_policy::take_ownership);
    if (!object.is_none())
    {
        py::detail::keep_alive_impl(object, owner);
    }
    return object;
}

//! Keeps value alive as long as owner by storing it in owner's __dict__ under slot (the class needs
//! py::dynamic_attr()); setting another value in the same slot releases the previous one. C++ keeps only pointers to
//! the Python objects given to setters (recorders, allocators, listeners, monitors), so their owner keeps them.
void keepWith(py::handle owner, char const* slot, py::handle value);

//! The setter of a property that hands C++ an interface object (None gives nullptr) through set(owner, object) and
//! keeps the Python object with its owner in slot (keepWith).
template <typename Owner, typename Interface, typename Set>
py::cpp_function keepingSetter(char const* slot, Set set)
{
    return py::cpp_function([slot, set](py::object const& self, py::object const& value) {
        set(self.cast<Owner&>(), value.is_none() ? nullptr : value.cast<Interface*>());
        keepWith(self, slot, value);
    });
}

//! A Python str of C text that need not be UTF-8 (invalid bytes are replaced). Call with the GIL held.
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
void bindCallbacks(py::module_& m);
void bindRefitter(py::module_& m);
void bindPlugins(py::module_& m);

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
