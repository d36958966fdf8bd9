// SPDX-License-Identifier: Apache-2.0
// plugin_dlpack.cpp -- the DLPack capsules behind tensorrt.plugin's Tensor.__dlpack__ (python/kiln/plugin/_dlpack.py
// decides what goes in them: device, type, shape, strides, version; this file owns their memory and lifetime).
//
//     capsule = _kiln._dlpack_capsule(owner, data, (2, 0), (2, 32, 1), (4, 8), (8, 1), 0, (1, 0))
//
// gives a "dltensor_versioned" capsule (DLManagedTensorVersioned, version 1.0) over data, or with version None a
// legacy "dltensor" capsule (DLManagedTensor). The DLManagedTensor holds a reference to owner until its deleter runs.
// DLPack's rules (dlpack.h, and the Python specification of the array API standard):
// - a consumer renames the capsule it takes ("used_dltensor", "used_dltensor_versioned") and calls the deleter when it
//   is done; a capsule destroyed under its first name was never taken, and its destructor calls the deleter;
// - the deleter may be called from any thread, with or without the GIL, and while a Python exception is being raised
//   (a consumer freeing its array during unwinding): it takes the GIL and keeps the exception as it was. This is why it
//   is C++ and not a ctypes callback, which runs Python code under the pending exception and loses it.
// After the interpreter has finalized, the deleter frees the struct and leaves owner alone.

#include "plugins_v3.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace kiln::python
{

namespace
{

// The ABI of dlpack.h (DLPack 1.1), which kiln does not otherwise depend on.
struct DLDevice
{
    int32_t device_type;
    int32_t device_id;
};

struct DLDataType
{
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
};

struct DLTensor
{
    void* data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t* shape;
    int64_t* strides;
    uint64_t byte_offset;
};

struct DLManagedTensor
{
    DLTensor dl_tensor;
    void* manager_ctx;
    void (*deleter)(DLManagedTensor* self);
};

struct DLPackVersion
{
    uint32_t major;
    uint32_t minor;
};

struct DLManagedTensorVersioned
{
    DLPackVersion version;
    void* manager_ctx;
    void (*deleter)(DLManagedTensorVersioned* self);
    uint64_t flags;
    DLTensor dl_tensor;
};

//! One export: the struct the consumer sees, the arrays its DLTensor points to, and the reference to the owner.
template <typename Managed>
struct Export
{
    Managed managed{};
    std::vector<int64_t> shape;
    std::vector<int64_t> strides;
    PyObject* owner{};
};

template <typename Managed>
void deleteExport(Managed* self) noexcept
{
    if (self == nullptr)
    {
        return;
    }
    auto* record = static_cast<Export<Managed>*>(self->manager_ctx);
    if (Py_IsInitialized() != 0)
    {
        py::gil_scoped_acquire gil;
        py::error_scope pending; // an exception being raised stays as it is
        Py_DECREF(record->owner);
    }
    delete record;
}

template <typename Managed>
char const* capsuleName() noexcept
{
    return std::is_same_v<Managed, DLManagedTensorVersioned> ? "dltensor_versioned" : "dltensor";
}

//! The capsule's destructor: a capsule still under its first name was never consumed, so it still owns the tensor.
template <typename Managed>
void destroyCapsule(PyObject* capsule) noexcept
{
    char const* name = capsuleName<Managed>();
    if (PyCapsule_IsValid(capsule, name) != 0)
    {
        auto* managed = static_cast<Managed*>(PyCapsule_GetPointer(capsule, name));
        managed->deleter(managed);
    }
}

template <typename Managed>
py::object makeCapsule(py::object const& owner, std::uintptr_t data, std::tuple<int32_t, int32_t> device,
    std::tuple<uint8_t, uint8_t, uint16_t> dtype, std::vector<int64_t> shape, std::vector<int64_t> strides,
    uint64_t byteOffset, std::optional<std::tuple<uint32_t, uint32_t>> const& version)
{
    auto record = std::make_unique<Export<Managed>>();
    record->shape = std::move(shape);
    record->strides = std::move(strides);
    Managed& managed = record->managed;
    DLTensor& tensor = managed.dl_tensor;
    tensor.data = reinterpret_cast<void*>(data);
    tensor.device = DLDevice{std::get<0>(device), std::get<1>(device)};
    tensor.ndim = static_cast<int32_t>(record->shape.size());
    tensor.dtype = DLDataType{std::get<0>(dtype), std::get<1>(dtype), std::get<2>(dtype)};
    tensor.shape = record->shape.data();
    tensor.strides = record->strides.data();
    tensor.byte_offset = byteOffset;
    managed.manager_ctx = record.get();
    managed.deleter = &deleteExport<Managed>;
    if constexpr (std::is_same_v<Managed, DLManagedTensorVersioned>)
    {
        managed.version = DLPackVersion{std::get<0>(*version), std::get<1>(*version)};
        managed.flags = 0; // never READ_ONLY: TensorRT marks inputs read-only without enforcing it
    }
    PyObject* capsule = PyCapsule_New(&managed, capsuleName<Managed>(), &destroyCapsule<Managed>);
    if (capsule == nullptr)
    {
        throw py::error_already_set();
    }
    record->owner = owner.inc_ref().ptr();
    record.release(); // owned by the capsule until consumed, then by the consumer until it calls the deleter
    return py::reinterpret_steal<py::object>(capsule);
}

} // namespace

void bindPluginDlpack(py::module_& m)
{
    m.def(
        "_dlpack_capsule",
        [](py::object const& owner, py::handle data, std::tuple<int32_t, int32_t> device,
            std::tuple<uint8_t, uint8_t, uint16_t> dtype, std::vector<int64_t> shape, std::vector<int64_t> strides,
            uint64_t byteOffset, std::optional<std::tuple<uint32_t, uint32_t>> const& version) {
            if (shape.size() != strides.size())
            {
                throw py::value_error("_dlpack_capsule: shape has " + std::to_string(shape.size())
                    + " extents and strides " + std::to_string(strides.size()));
            }
            std::uintptr_t const address = toAddress(data, "data");
            if (version)
            {
                return makeCapsule<DLManagedTensorVersioned>(
                    owner, address, device, dtype, std::move(shape), std::move(strides), byteOffset, version);
            }
            return makeCapsule<DLManagedTensor>(
                owner, address, device, dtype, std::move(shape), std::move(strides), byteOffset, version);
        },
        py::arg("owner"), py::arg("data"), py::arg("device"), py::arg("dtype"), py::arg("shape"), py::arg("strides"),
        py::arg("byte_offset"), py::arg("version"),
        "kiln's internal: a DLPack capsule over data that keeps owner alive until the consumer's deleter runs "
        "(python/kiln/plugin/_dlpack.py makes it). version (major, minor) gives a versioned capsule, None a legacy "
        "one.");
}

} // namespace kiln::python
