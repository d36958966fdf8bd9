// SPDX-License-Identifier: Apache-2.0
// callbacks.cpp -- the runtime interfaces a Python class may implement besides loggers, profilers, progress monitors
// and output allocators: IGpuAllocator and IGpuAsyncAllocator, IErrorRecorder, IDebugListener, the plan readers
// IStreamReader and IStreamReaderV2 (Runtime.deserialize_cuda_engine(reader)) and the plan writer IStreamWriter
// (Builder.build_serialized_network_to_stream(network, config, writer)). Each is a pybind11
// trampoline: C++ calls the Python method of the same role, by name, with the GIL taken. An exception raised there is
// reported through the logger and becomes the failure value C++ expects (nullptr, false, -1); nothing crosses into
// C++. The objects that take them (runtime, builder, engine, context, ...) keep them alive (keepWith).
//
//     class Recorder(trt.IErrorRecorder):
//         def __init__(self):
//             trt.IErrorRecorder.__init__(self)
//             self.errors = []
//         def report_error(self, val, desc):
//             self.errors.append((val, desc))
//             return False
//         ...
//     runtime.error_recorder = Recorder()

#include "utils.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <string>
#include <type_traits>

namespace kiln::python
{
namespace
{

using namespace nvinfer1;

std::uintptr_t addressOf(void const* pointer)
{
    return reinterpret_cast<std::uintptr_t>(pointer);
}

//! The address a Python allocator returned, or nullptr (reported) when it is not an int.
void* addressResult(char const* method, py::handle result)
{
    try
    {
        return reinterpret_cast<void*>(toAddress(result, method));
    }
    catch (std::exception const&)
    {
        reportBadReturn(method, "an int (an address)");
        return nullptr;
    }
}

//! Whether args are all C++ values. The *Through helpers below convert their args to Python inside guardCallback, with
//! the GIL held; a Python object passed to them would be made (and copied, and released) by the caller without it,
//! which Python 3.12's allocator punishes with a segfault (issue 18: reportError's description did that).
template <typename... Args>
constexpr bool kCppValuesOnly = !(std::is_base_of_v<py::handle, Args> || ...);

//! Calls the required Python allocation method name with args; nullptr when it is missing, raises or returns no int.
template <typename Interface, typename... Args>
void* allocateThrough(Interface const* self, char const* name, Args... args) noexcept
{
    static_assert(kCppValuesOnly<Args...>, "pass C++ values: they become Python objects once the GIL is held");
    return guardCallback(name, static_cast<void*>(nullptr), [&]() -> void* {
        py::function const f = findOverride(self, name, true);
        return f ? addressResult(name, f(args...)) : nullptr;
    });
}

//! Calls the required Python method name with args and reads a bool; false when it is missing or raises.
template <typename Interface, typename... Args>
bool boolThrough(Interface const* self, char const* name, Args... args) noexcept
{
    static_assert(kCppValuesOnly<Args...>, "pass C++ values: they become Python objects once the GIL is held");
    return guardCallback(name, false, [&] {
        py::function const f = findOverride(self, name, true);
        return f ? f(args...).template cast<bool>() : false;
    });
}

//! reallocate(address, alignment, new_size) when the Python class defines it; nullptr (unsupported) otherwise.
template <typename Interface>
void* reallocateThrough(Interface const* self, void* baseAddr, uint64_t alignment, uint64_t newSize) noexcept
{
    return guardCallback("reallocate", static_cast<void*>(nullptr), [&]() -> void* {
        py::function const f = findOverride(self, "reallocate", false);
        return f ? addressResult("reallocate", f(addressOf(baseAddr), alignment, newSize)) : nullptr;
    });
}

//! The trampoline behind Python subclasses of IGpuAllocator: allocate(size, alignment, flags) and
//! deallocate(memory) are required, reallocate(address, alignment, new_size) is optional. The stream-ordered C++
//! methods are the header's, which call these.
class PyGpuAllocator : public IGpuAllocator
{
public:
    void* allocate(uint64_t const size, uint64_t const alignment, AllocatorFlags const flags) noexcept override
    {
        return allocateThrough(static_cast<IGpuAllocator const*>(this), "allocate", size, alignment, flags);
    }

    void* reallocate(void* const baseAddr, uint64_t alignment, uint64_t newSize) noexcept override
    {
        return reallocateThrough(static_cast<IGpuAllocator const*>(this), baseAddr, alignment, newSize);
    }

    bool deallocate(void* const memory) noexcept override
    {
        return boolThrough(static_cast<IGpuAllocator const*>(this), "deallocate", addressOf(memory));
    }
};

//! The trampoline behind Python subclasses of IGpuAsyncAllocator: allocate_async and deallocate_async(memory,
//! stream) are required. allocate_async is called positionally as (size, alignment, stream, flags), the order
//! TensorRT's bindings use (not the documented (size, alignment, flags, stream)), so that allocators written for
//! TensorRT see the same values.
class PyGpuAsyncAllocator : public IGpuAsyncAllocator
{
public:
    void* allocateAsync(uint64_t const size, uint64_t const alignment, AllocatorFlags const flags,
        cudaStream_t stream) noexcept override
    {
        return allocateThrough(
            static_cast<IGpuAsyncAllocator const*>(this), "allocate_async", size, alignment, addressOf(stream), flags);
    }

    bool deallocateAsync(void* const memory, cudaStream_t stream) noexcept override
    {
        return boolThrough(
            static_cast<IGpuAsyncAllocator const*>(this), "deallocate_async", addressOf(memory), addressOf(stream));
    }

    void* reallocate(void* const baseAddr, uint64_t alignment, uint64_t newSize) noexcept override
    {
        return reallocateThrough(static_cast<IGpuAsyncAllocator const*>(this), baseAddr, alignment, newSize);
    }
};

//! The trampoline behind Python subclasses of IErrorRecorder. The Python methods are get_num_errors,
//! get_error_code(idx), get_error_desc(idx), has_overflowed, clear and report_error(val, desc); the reference count
//! is kept here. A description stays valid until clear(), as the interface promises.
class PyErrorRecorder : public IErrorRecorder
{
public:
    int32_t getNbErrors() const noexcept override
    {
        return guardCallback("get_num_errors", int32_t{-1}, [&] {
            py::function const f = findOverride(static_cast<IErrorRecorder const*>(this), "get_num_errors", true);
            return f ? f().cast<int32_t>() : int32_t{-1};
        });
    }

    ErrorCode getErrorCode(int32_t errorIdx) const noexcept override
    {
        return guardCallback("get_error_code", ErrorCode{}, [&] {
            py::function const f = findOverride(static_cast<IErrorRecorder const*>(this), "get_error_code", true);
            return f ? f(errorIdx).cast<ErrorCode>() : ErrorCode{};
        });
    }

    ErrorDesc getErrorDesc(int32_t errorIdx) const noexcept override
    {
        return guardCallback("get_error_desc", static_cast<ErrorDesc>(nullptr), [&]() -> ErrorDesc {
            py::function const f = findOverride(static_cast<IErrorRecorder const*>(this), "get_error_desc", true);
            if (!f)
            {
                return nullptr;
            }
            std::string& kept = mDescriptions[errorIdx];
            kept = f(errorIdx).cast<std::string>();
            return kept.c_str();
        });
    }

    bool hasOverflowed() const noexcept override
    {
        return boolThrough(static_cast<IErrorRecorder const*>(this), "has_overflowed");
    }

    void clear() noexcept override
    {
        guardCallback("clear", [&] {
            py::function const f = findOverride(static_cast<IErrorRecorder const*>(this), "clear", true);
            if (f)
            {
                f();
            }
            mDescriptions.clear();
        });
    }

    bool reportError(ErrorCode val, ErrorDesc desc) noexcept override
    {
        // desc becomes a Python str here, with the GIL held: not before boolThrough takes it (the crash of issue 18).
        return guardCallback("report_error", false, [&] {
            py::function const f = findOverride(static_cast<IErrorRecorder const*>(this), "report_error", true);
            return f ? f(val, textToStr(desc)).cast<bool>() : false;
        });
    }

    RefCount incRefCount() noexcept override { return ++mReferences; }

    RefCount decRefCount() noexcept override { return --mReferences; }

private:
    mutable std::map<int32_t, std::string> mDescriptions;
    std::atomic<RefCount> mReferences{0};
};

//! The trampoline behind Python subclasses of IDebugListener: process_debug_tensor(addr, location, type, shape,
//! name, stream) with the address and the stream as ints. True when the method ran, false when it is missing or
//! raised.
class PyDebugListener : public IDebugListener
{
public:
    bool processDebugTensor(void const* addr, TensorLocation location, DataType type, Dims const& shape,
        char const* name, cudaStream_t stream) noexcept override
    {
        return guardCallback("process_debug_tensor", false, [&] {
            py::function const f = findOverride(static_cast<IDebugListener const*>(this), "process_debug_tensor", true);
            if (!f)
            {
                return false;
            }
            f(addressOf(addr), location, type, shape, textToStr(name), addressOf(stream));
            return true;
        });
    }
};

//! Copies up to nbBytes of a Python buffer (bytes, bytearray, numpy, ...) to destination; the count copied.
int64_t copyChunk(py::handle chunk, void* destination, int64_t nbBytes)
{
    py::buffer_info const info = py::reinterpret_borrow<py::buffer>(chunk).request();
    int64_t const size = std::min<int64_t>(info.size * info.itemsize, nbBytes);
    if (size > 0)
    {
        std::memcpy(destination, info.ptr, static_cast<std::size_t>(size));
    }
    return size;
}

//! The trampoline behind Python subclasses of IStreamReader: read(size) returns a buffer of at most size bytes, of
//! which C++ takes what fits; 0 (end or failure) when it is missing, raises or returns no buffer.
class PyStreamReader : public IStreamReader
{
public:
    int64_t read(void* destination, int64_t nbBytes) noexcept override
    {
        return guardCallback("read", int64_t{0}, [&] {
            py::function const f = findOverride(static_cast<IStreamReader const*>(this), "read", true);
            return f ? copyChunk(f(nbBytes), destination, nbBytes) : int64_t{0};
        });
    }
};

//! The trampoline behind Python subclasses of IStreamReaderV2: read(num_bytes, stream) is called until num_bytes
//! have arrived (an empty buffer ends it early), and seek(offset, where) moves the position. kiln reads plans into
//! host memory, so the chunks are copied with memcpy.
class PyStreamReaderV2 : public IStreamReaderV2
{
public:
    int64_t read(void* destination, int64_t nbBytes, cudaStream_t stream) noexcept override
    {
        return guardCallback("read", int64_t{0}, [&] {
            py::function const f = findOverride(static_cast<IStreamReaderV2 const*>(this), "read", true);
            int64_t done = 0;
            while (f && done < nbBytes)
            {
                int64_t const got = copyChunk(
                    f(nbBytes - done, addressOf(stream)), static_cast<char*>(destination) + done, nbBytes - done);
                if (got == 0)
                {
                    break;
                }
                done += got;
            }
            return done;
        });
    }

    bool seek(int64_t offset, SeekPosition where) noexcept override
    {
        return boolThrough(static_cast<IStreamReaderV2 const*>(this), "seek", offset, where);
    }
};

//! The trampoline behind Python subclasses of IStreamWriter: write(data) gets the next bytes of the plan as a bytes
//! object and returns how many it took; 0 (failure) when it is missing, raises or returns something other than an int.
class PyStreamWriter : public IStreamWriter
{
public:
    int64_t write(void const* data, int64_t nbBytes) noexcept override
    {
        return guardCallback("write", int64_t{0}, [&] {
            py::function const f = findOverride(static_cast<IStreamWriter const*>(this), "write", true);
            if (!f)
            {
                return int64_t{0};
            }
            py::object const result = f(py::bytes(static_cast<char const*>(data), static_cast<std::size_t>(nbBytes)));
            if (!py::isinstance<py::int_>(result))
            {
                reportBadReturn("write", "an int");
                return int64_t{0};
            }
            return result.cast<int64_t>();
        });
    }
};

void bindStreamReaders(py::module_& m)
{
    py::class_<IStreamReader, PyStreamReader>(m, "IStreamReader", py::module_local()).def(py::init<>());
    py::class_<IStreamReaderV2, PyStreamReaderV2>(m, "IStreamReaderV2", py::module_local()).def(py::init<>());
    py::class_<IStreamWriter, PyStreamWriter>(m, "IStreamWriter", py::module_local())
        .def(py::init<>())
        .def(
            "write",
            [](IStreamWriter& self, py::buffer const& data) {
                py::buffer_info const info = data.request();
                return self.write(info.ptr, static_cast<int64_t>(info.size * info.itemsize));
            },
            py::arg("data"));
}

void bindGpuAllocators(py::module_& m)
{
    // The methods bound here are the C++ ones: called on a Python subclass they go through the trampoline (and so
    // the subclass's own methods), as TensorRT's do.
    py::class_<IGpuAllocator, PyGpuAllocator>(m, "IGpuAllocator", py::module_local())
        .def(py::init<>())
        .def(
            "allocate",
            [](IGpuAllocator& self, uint64_t size, uint64_t alignment, AllocatorFlags flags) {
                return addressOf(self.allocate(size, alignment, flags));
            },
            py::arg("size"), py::arg("alignment"), py::arg("flags"))
        .def(
            "reallocate",
            [](IGpuAllocator& self, py::object const& address, uint64_t alignment, uint64_t newSize) {
                return addressOf(
                    self.reallocate(reinterpret_cast<void*>(toAddress(address, "address")), alignment, newSize));
            },
            py::arg("address"), py::arg("alignment"), py::arg("new_size"))
        .def(
            "deallocate",
            [](IGpuAllocator& self, py::object const& memory) {
                return self.deallocate(reinterpret_cast<void*>(toAddress(memory, "memory")));
            },
            py::arg("memory"))
        .def(
            "allocate_async",
            [](IGpuAllocator& self, uint64_t size, uint64_t alignment, AllocatorFlags flags, py::object const& stream) {
                return addressOf(self.allocateAsync(
                    size, alignment, flags, reinterpret_cast<cudaStream_t>(toAddress(stream, "stream"))));
            },
            py::arg("size"), py::arg("alignment"), py::arg("flags"), py::arg("stream"))
        .def(
            "deallocate_async",
            [](IGpuAllocator& self, py::object const& memory, py::object const& stream) {
                return self.deallocateAsync(reinterpret_cast<void*>(toAddress(memory, "memory")),
                    reinterpret_cast<cudaStream_t>(toAddress(stream, "stream")));
            },
            py::arg("memory"), py::arg("stream"));
    py::class_<IGpuAsyncAllocator, IGpuAllocator, PyGpuAsyncAllocator>(m, "IGpuAsyncAllocator", py::module_local())
        .def(py::init<>());
}

void bindErrorRecorder(py::module_& m)
{
    py::class_<IErrorRecorder, PyErrorRecorder>(m, "IErrorRecorder", py::module_local())
        .def(py::init<>())
        .def_property_readonly_static(
            "MAX_DESC_LENGTH", [](py::object const&) { return IErrorRecorder::kMAX_DESC_LENGTH; })
        .def("num_errors", &IErrorRecorder::getNbErrors)
        .def("get_error_code", &IErrorRecorder::getErrorCode, py::arg("arg0"))
        .def(
            "get_error_desc",
            [](IErrorRecorder const& self, int32_t index) {
                char const* const desc = self.getErrorDesc(index);
                return desc == nullptr ? py::object(py::none()) : py::object(textToStr(desc));
            },
            py::arg("arg0"))
        .def("has_overflowed", &IErrorRecorder::hasOverflowed)
        .def("clear", &IErrorRecorder::clear)
        .def(
            "report_error",
            [](IErrorRecorder& self, ErrorCode val, std::string const& desc) {
                return self.reportError(val, desc.c_str());
            },
            py::arg("val"), py::arg("desc"));
}

void bindDebugListener(py::module_& m)
{
    py::class_<IDebugListener, PyDebugListener>(m, "IDebugListener", py::module_local())
        .def(py::init<>())
        .def(
            "process_debug_tensor",
            [](IDebugListener& self, py::object const& addr, TensorLocation location, DataType type, Dims const& shape,
                std::string const& name, py::object const& stream) {
                return self.processDebugTensor(reinterpret_cast<void const*>(toAddress(addr, "addr")), location, type,
                    shape, name.c_str(), reinterpret_cast<cudaStream_t>(toAddress(stream, "stream")));
            },
            py::arg("addr"), py::arg("location"), py::arg("type"), py::arg("shape"), py::arg("name"),
            py::arg("stream"));
}

} // namespace

void bindCallbacks(py::module_& m)
{
    bindGpuAllocators(m);
    bindErrorRecorder(m);
    bindDebugListener(m);
    bindStreamReaders(m);
}

} // namespace kiln::python
