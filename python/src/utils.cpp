// SPDX-License-Identifier: Apache-2.0
// utils.cpp -- the shared conversions of utils.h.

#include "utils.h"

#include <cstdio>
#include <cstring>
#include <string>

namespace kiln::python
{

std::uintptr_t toAddress(py::handle object, char const* argument)
{
    if (object.is_none())
    {
        return 0;
    }
    PyObject* number = PyNumber_Index(object.ptr());
    if (number == nullptr)
    {
        PyErr_Clear();
        if (PyNumber_Check(object.ptr()) == 0 || PyFloat_Check(object.ptr()) != 0)
        {
            throw py::type_error(std::string("argument '") + argument
                + "': expected an int (an address or handle), got "
                + std::string(py::str(py::type::handle_of(object).attr("__name__"))));
        }
        number = PyNumber_Long(object.ptr());
        if (number == nullptr)
        {
            throw py::error_already_set();
        }
    }
    py::object const owned = py::reinterpret_steal<py::object>(number);
    unsigned long long const value = PyLong_AsUnsignedLongLong(owned.ptr());
    if (PyErr_Occurred() != nullptr)
    {
        PyErr_Clear();
        throw py::value_error(std::string("argument '") + argument + "': " + std::string(py::str(owned))
            + " is not an address (a non-negative int below 2**64)");
    }
    return static_cast<std::uintptr_t>(value);
}

nvinfer1::Dims toDims(py::handle object, char const* argument)
{
    if (py::isinstance<nvinfer1::Dims>(object))
    {
        return object.cast<nvinfer1::Dims>();
    }
    if (py::isinstance<py::str>(object) || py::isinstance<py::bytes>(object) || PySequence_Check(object.ptr()) == 0)
    {
        throw py::type_error(std::string("argument '") + argument + "': expected a sequence of ints, got "
            + std::string(py::str(py::type::handle_of(object).attr("__name__"))));
    }
    py::sequence const sequence = py::reinterpret_borrow<py::sequence>(object);
    auto const size = static_cast<std::int64_t>(py::len(sequence));
    if (size > nvinfer1::Dims::MAX_DIMS)
    {
        throw py::value_error(std::string("argument '") + argument + "': a shape has at most "
            + std::to_string(nvinfer1::Dims::MAX_DIMS) + " dimensions, got " + std::to_string(size));
    }
    nvinfer1::Dims dims{};
    dims.nbDims = static_cast<int32_t>(size);
    for (std::int64_t i = 0; i < size; ++i)
    {
        py::object const item = sequence[static_cast<py::size_t>(i)];
        PyObject* number = PyNumber_Index(item.ptr());
        if (number == nullptr)
        {
            PyErr_Clear();
            throw py::type_error(
                std::string("argument '") + argument + "': element " + std::to_string(i) + " is not an int");
        }
        py::object const owned = py::reinterpret_steal<py::object>(number);
        dims.d[i] = owned.cast<std::int64_t>();
    }
    return dims;
}

py::tuple dimsToTuple(nvinfer1::Dims const& dims)
{
    int32_t const rank = dims.nbDims < 0 ? 0 : std::min(dims.nbDims, nvinfer1::Dims::MAX_DIMS);
    py::tuple result(rank);
    for (int32_t i = 0; i < rank; ++i)
    {
        result[static_cast<py::size_t>(i)] = py::int_(dims.d[i]);
    }
    return result;
}

void deprecated(char const* message)
{
    if (PyErr_WarnEx(PyExc_DeprecationWarning, message, 1) != 0)
    {
        throw py::error_already_set();
    }
}

py::object numpyDtype(nvinfer1::DataType type)
{
    using nvinfer1::DataType;
    switch (type)
    {
    case DataType::kFLOAT: return py::dtype::of<float>();
    case DataType::kHALF: return py::dtype("float16");
    case DataType::kINT8: return py::dtype::of<int8_t>();
    case DataType::kINT32: return py::dtype::of<int32_t>();
    case DataType::kINT64: return py::dtype::of<int64_t>();
    case DataType::kBOOL: return py::dtype("bool");
    case DataType::kUINT8: return py::dtype::of<uint8_t>();
    default: return py::none();
    }
}

PyWeights weightsFromArray(py::array const& array)
{
    if ((array.flags() & py::array::c_style) == 0)
    {
        throw py::value_error("Weights: the numpy array is non-contiguous; pass numpy.ascontiguousarray(a)");
    }
    using nvinfer1::DataType;
    py::dtype const dtype = array.dtype();
    char const kind = dtype.kind();
    auto const size = dtype.itemsize();
    DataType type{};
    if (kind == 'f' && size == 4)
    {
        type = DataType::kFLOAT;
    }
    else if (kind == 'f' && size == 2)
    {
        type = DataType::kHALF;
    }
    else if (kind == 'i' && size == 8)
    {
        type = DataType::kINT64;
    }
    else if (kind == 'i' && size == 4)
    {
        type = DataType::kINT32;
    }
    else if (kind == 'i' && size == 1)
    {
        type = DataType::kINT8;
    }
    else if (kind == 'b')
    {
        type = DataType::kBOOL;
    }
    else if (kind == 'u' && size == 1)
    {
        type = DataType::kUINT8;
    }
    else
    {
        throw py::value_error(
            "Could not implicitly convert NumPy data type: " + std::string(py::str(static_cast<py::handle>(dtype)))
            + " to TensorRT (float32, float16, int64, int32, int8, bool and uint8 are supported)");
    }
    PyWeights result;
    result.weights = nvinfer1::Weights{type, array.data(), static_cast<int64_t>(array.size())};
    result.owner = array;
    return result;
}

} // namespace kiln::python

namespace kiln::python
{

namespace
{

//! Sends one report of a failed Python callback to the library's logger, or to stderr from the logger's own log() and
//! while another report is being logged (a Python logger that raises would otherwise report itself forever).
void reportCallbackProblem(char const* method, std::string const& message) noexcept
{
    thread_local bool reporting = false;
    nvinfer1::ILogger* const logger = reporting || std::strcmp(method, "log") == 0 ? nullptr : getLogger();
    if (logger == nullptr)
    {
        std::fprintf(stderr, "[ERROR] %s\n", message.c_str());
        std::fflush(stderr);
        return;
    }
    reporting = true;
    logger->log(nvinfer1::ILogger::Severity::kERROR, message.c_str());
    reporting = false;
}

} // namespace

void reportCallbackError(char const* method, char const* what) noexcept
{
    try
    {
        reportCallbackProblem(method, std::string("Exception caught in ") + method + "(): " + what);
    }
    catch (std::exception const&)
    {
        std::fprintf(stderr, "[ERROR] Exception caught in %s()\n", method);
    }
}

void reportCallbackMessage(char const* method, std::string const& message) noexcept
{
    try
    {
        reportCallbackProblem(method, message);
    }
    catch (std::exception const&)
    {
        std::fprintf(stderr, "[ERROR] %s\n", message.c_str());
    }
}

void reportMissingOverride(char const* method) noexcept
{
    try
    {
        reportCallbackProblem(method,
            std::string("Method: ") + method + " was not overriden. Please provide an implementation for this method.");
    }
    catch (std::exception const&)
    {
        std::fprintf(stderr, "[ERROR] Method: %s was not overriden\n", method);
    }
}

void reportBadReturn(char const* method, char const* expected) noexcept
{
    try
    {
        reportCallbackProblem(
            method, std::string("Return value of ") + method + "() could not be interpreted as " + expected);
    }
    catch (std::exception const&)
    {
        std::fprintf(stderr, "[ERROR] Return value of %s() could not be interpreted\n", method);
    }
}

void keepWith(py::handle owner, char const* slot, py::handle value)
{
    py::setattr(owner, slot, value);
}

py::str textToStr(char const* text)
{
    if (text == nullptr)
    {
        return py::str("");
    }
    PyObject* const result = PyUnicode_DecodeUTF8(text, static_cast<Py_ssize_t>(std::strlen(text)), "replace");
    if (result == nullptr)
    {
        throw py::error_already_set();
    }
    return py::reinterpret_steal<py::str>(result);
}

} // namespace kiln::python
