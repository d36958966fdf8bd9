// SPDX-License-Identifier: Apache-2.0
// refitter.cpp -- Refitter: new weights for an engine built refittable, by layer and role or by name. It keeps its
// engine and logger, and the weights (numpy arrays) given to it until the refitter goes: kiln reads them only in
// refit_cuda_engine().
//
//     refitter = trt.Refitter(engine, logger)
//     refitter.set_named_weights("conv.weight", new_kernel)    # a float32 numpy array of the same size
//     assert refitter.refit_cuda_engine()

#include "utils.h"

#include <vector>

namespace kiln::python
{
namespace
{

using namespace nvinfer1;

//! Weights from a Weights object or a numpy array (the implicit conversion of other Weights parameters).
PyWeights toWeights(py::object const& value)
{
    return py::isinstance<py::array>(value) ? weightsFromArray(py::reinterpret_borrow<py::array>(value))
                                            : value.cast<PyWeights>();
}

//! Weights read back from the refitter: type and count, values not owned (they are the caller's).
PyWeights viewWeights(Weights const& weights)
{
    PyWeights result;
    result.weights = weights;
    result.owner = py::none();
    return result;
}

//! Remembers value (weights given for key) in the refitter's __dict__ until the same key gets other weights.
void keepWeights(py::object const& self, std::string const& key, py::object const& value)
{
    if (!py::hasattr(self, "_kiln_weights"))
    {
        keepWith(self, "_kiln_weights", py::dict());
    }
    self.attr("_kiln_weights")[py::str(key)] = value;
}

//! A list of names a count-then-fill getter writes (getMissingWeights, getAllWeights, ...).
template <typename Fill>
std::vector<std::string> nameList(Fill fill)
{
    int32_t const count = fill(0, nullptr);
    std::vector<char const*> names(static_cast<std::size_t>(std::max(count, 0)), nullptr);
    int32_t const written = fill(count, names.data());
    std::vector<std::string> result;
    for (int32_t i = 0; i < std::min(count, written); ++i)
    {
        result.emplace_back(names[static_cast<std::size_t>(i)] != nullptr ? names[static_cast<std::size_t>(i)] : "");
    }
    return result;
}

//! (layer names, roles) from getMissing or getAll.
template <typename Fill>
py::tuple layerRoleLists(Fill fill)
{
    int32_t const count = fill(0, nullptr, nullptr);
    auto const size = static_cast<std::size_t>(std::max(count, 0));
    std::vector<char const*> names(size, nullptr);
    std::vector<WeightsRole> roles(size, WeightsRole::kANY);
    int32_t const written = fill(count, names.data(), roles.data());
    py::list nameResult;
    py::list roleResult;
    for (int32_t i = 0; i < std::min(count, written); ++i)
    {
        auto const index = static_cast<std::size_t>(i);
        nameResult.append(textToStr(names[index]));
        roleResult.append(roles[index]);
    }
    return py::make_tuple(nameResult, roleResult);
}

} // namespace

void bindRefitter(py::module_& m)
{
    py::class_<IRefitter>(m, "Refitter", py::module_local(), py::dynamic_attr())
        .def(py::init([](ICudaEngine& engine, ILogger& logger) {
            IRefitter* const refitter = createInferRefitter(engine, logger);
            if (refitter == nullptr)
            {
                throw std::runtime_error("Refitter: the library could not create a refitter (see the logger)");
            }
            return refitter;
        }),
            py::arg("engine"), py::arg("logger"), py::keep_alive<1, 2>(), py::keep_alive<1, 3>())
        .def(
            "set_weights",
            [](py::object const& self, std::string const& layerName, WeightsRole role, py::object const& weights) {
                PyWeights const converted = toWeights(weights);
                bool const ok = self.cast<IRefitter&>().setWeights(layerName.c_str(), role, converted.weights);
                keepWeights(self, layerName + "/" + std::to_string(static_cast<int32_t>(role)), weights);
                return ok;
            },
            py::arg("layer_name"), py::arg("role"), py::arg("weights"))
        .def(
            "set_named_weights",
            [](py::object const& self, std::string const& name, py::object const& weights) {
                PyWeights const converted = toWeights(weights);
                bool const ok = self.cast<IRefitter&>().setNamedWeights(name.c_str(), converted.weights);
                keepWeights(self, name, weights);
                return ok;
            },
            py::arg("name"), py::arg("weights"))
        .def(
            "set_named_weights",
            [](py::object const& self, std::string const& name, py::object const& weights, TensorLocation location) {
                PyWeights const converted = toWeights(weights);
                bool const ok = self.cast<IRefitter&>().setNamedWeights(name.c_str(), converted.weights, location);
                keepWeights(self, name, weights);
                return ok;
            },
            py::arg("name"), py::arg("weights"), py::arg("location"))
        .def(
            "get_named_weights",
            [](IRefitter const& self, std::string const& name) {
                return viewWeights(self.getNamedWeights(name.c_str()));
            },
            py::arg("weights_name"))
        .def(
            "get_weights_location",
            [](IRefitter const& self, std::string const& name) { return self.getWeightsLocation(name.c_str()); },
            py::arg("weights_name"))
        .def(
            "unset_named_weights",
            [](IRefitter& self, std::string const& name) { return self.unsetNamedWeights(name.c_str()); },
            py::arg("weights_name"))
        .def(
            "get_weights_prototype",
            [](IRefitter const& self, std::string const& name) {
                return viewWeights(self.getWeightsPrototype(name.c_str()));
            },
            py::arg("weights_name"))
        .def("refit_cuda_engine", &IRefitter::refitCudaEngine, py::call_guard<py::gil_scoped_release>())
        .def(
            "refit_cuda_engine_async",
            [](IRefitter& self, py::object const& streamHandle) {
                auto const stream = reinterpret_cast<cudaStream_t>(toAddress(streamHandle, "stream_handle"));
                py::gil_scoped_release release;
                return self.refitCudaEngineAsync(stream);
            },
            py::arg("stream_handle"))
        .def("get_missing",
            [](IRefitter& self) {
                return layerRoleLists([&](int32_t size, char const** names, WeightsRole* roles) {
                    return self.getMissing(size, names, roles);
                });
            })
        .def("get_all",
            [](IRefitter& self) {
                return layerRoleLists([&](int32_t size, char const** names, WeightsRole* roles) {
                    return self.getAll(size, names, roles);
                });
            })
        .def("get_missing_weights",
            [](IRefitter& self) {
                return nameList([&](int32_t size, char const** names) { return self.getMissingWeights(size, names); });
            })
        .def("get_all_weights",
            [](IRefitter& self) {
                return nameList([&](int32_t size, char const** names) { return self.getAllWeights(size, names); });
            })
        .def(
            "get_dynamic_range",
            [](IRefitter const& self, std::string const& name) {
                deprecated("Deprecated in TensorRT 10.1. Superseded by explicit quantization.");
                return py::make_tuple(self.getDynamicRangeMin(name.c_str()), self.getDynamicRangeMax(name.c_str()));
            },
            py::arg("tensor_name"))
        .def(
            "set_dynamic_range",
            [](IRefitter& self, std::string const& name, std::vector<float> const& range) {
                deprecated("Deprecated in TensorRT 10.1. Superseded by explicit quantization.");
                if (range.size() != 2)
                {
                    throw py::value_error("Dynamic range must contain exactly 2 elements");
                }
                return self.setDynamicRange(name.c_str(), range[0], range[1]);
            },
            py::arg("tensor_name"), py::arg("range"))
        .def("get_tensors_with_dynamic_range",
            [](IRefitter const& self) {
                deprecated("Deprecated in TensorRT 10.1. Superseded by explicit quantization.");
                return nameList(
                    [&](int32_t size, char const** names) { return self.getTensorsWithDynamicRange(size, names); });
            })
        .def_property("error_recorder", &IRefitter::getErrorRecorder,
            keepingSetter<IRefitter, IErrorRecorder>("_kiln_error_recorder",
                [](IRefitter& self, IErrorRecorder* recorder) { self.setErrorRecorder(recorder); }),
            py::return_value_policy::reference)
        .def_property_readonly("logger", &IRefitter::getLogger, py::return_value_policy::reference)
        .def_property("max_threads", &IRefitter::getMaxThreads, &IRefitter::setMaxThreads)
        .def_property("weights_validation", &IRefitter::getWeightsValidation, &IRefitter::setWeightsValidation);
}

} // namespace kiln::python
