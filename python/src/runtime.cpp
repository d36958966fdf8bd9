// SPDX-License-Identifier: Apache-2.0
// runtime.cpp -- Runtime (keeps its logger), ICudaEngine (keeps its runtime) and IExecutionContext (keeps its
// engine). Addresses and streams are Python ints or objects int() accepts; on the host backend the addresses may be
// numpy arrays' data pointers (array.ctypes.data), and the stream is ignored (0 is fine).

#include "utils.h"

#include <cstdio>
#include <memory>
#include <vector>

namespace kiln::python
{
namespace
{

using namespace nvinfer1;

constexpr auto kTake = py::return_value_policy::take_ownership;

py::object nameOrNone(char const* name)
{
    return name == nullptr ? py::object(py::none()) : py::object(textToStr(name));
}

cudaStream_t toStream(py::handle stream, char const* argument)
{
    return reinterpret_cast<cudaStream_t>(toAddress(stream, argument));
}

//! The address a Python output allocator returned, or nullptr (reported) when it is not an int.
void* outputAddress(char const* method, py::handle result)
{
    try
    {
        return reinterpret_cast<void*>(toAddress(result, method));
    }
    catch (std::exception const&)
    {
        reportBadReturn(method, "an int");
        return nullptr;
    }
}

//! The trampoline behind Python subclasses of IOutputAllocator. reallocate_output_async is optional: without it
//! reallocate_output is called, as in TensorRT. The address returned is an int (0: failure); an exception is
//! reported and becomes nullptr.
class PyOutputAllocator : public IOutputAllocator
{
public:
    void* reallocateOutput(
        char const* tensorName, void* currentMemory, uint64_t size, uint64_t alignment) noexcept override
    {
        return guardCallback("reallocate_output", static_cast<void*>(nullptr), [&]() -> void* {
            py::function const f = findOverride(self(), "reallocate_output", true);
            return f ? outputAddress("reallocate_output",
                       f(textToStr(tensorName), reinterpret_cast<std::uintptr_t>(currentMemory), size, alignment))
                     : nullptr;
        });
    }

    void* reallocateOutputAsync(char const* tensorName, void* currentMemory, uint64_t size, uint64_t alignment,
        cudaStream_t stream) noexcept override
    {
        return guardCallback("reallocate_output_async", static_cast<void*>(nullptr), [&]() -> void* {
            py::function const f = findOverride(self(), "reallocate_output_async", false);
            if (!f)
            {
                return reallocateOutput(tensorName, currentMemory, size, alignment);
            }
            return outputAddress("reallocate_output_async",
                f(textToStr(tensorName), reinterpret_cast<std::uintptr_t>(currentMemory), size, alignment,
                    reinterpret_cast<std::uintptr_t>(stream)));
        });
    }

    void notifyShape(char const* tensorName, Dims const& dims) noexcept override
    {
        guardCallback("notify_shape", [&] {
            py::function const f = findOverride(self(), "notify_shape", true);
            if (f)
            {
                f(textToStr(tensorName), dims);
            }
        });
    }

private:
    IOutputAllocator const* self() const noexcept { return this; }
};

//! The trampoline behind Python subclasses of IProfiler: report_layer_time(layer_name, ms) with the GIL taken.
class PyProfiler : public IProfiler
{
public:
    void reportLayerTime(char const* layerName, float ms) noexcept override
    {
        guardCallback("report_layer_time", [&] {
            py::function const f = findOverride(static_cast<IProfiler const*>(this), "report_layer_time", true);
            if (f)
            {
                f(textToStr(layerName), ms);
            }
        });
    }
};

//! TensorRT's built-in Profiler: prints "<layer>: <ms>ms" to stdout.
class Profiler : public IProfiler
{
public:
    void reportLayerTime(char const* layerName, float ms) noexcept override
    {
        std::printf("%s: %gms\n", layerName != nullptr ? layerName : "", static_cast<double>(ms));
        std::fflush(stdout);
    }
};

void bindProfiler(py::module_& m)
{
    py::class_<IProfiler, PyProfiler>(m, "IProfiler", py::module_local())
        .def(py::init<>())
        .def("report_layer_time", &IProfiler::reportLayerTime, py::arg("layer_name"), py::arg("ms"));
    py::class_<Profiler, IProfiler>(m, "Profiler", py::module_local()).def(py::init<>());
}

void bindOutputAllocator(py::module_& m)
{
    py::class_<IOutputAllocator, PyOutputAllocator>(m, "IOutputAllocator", py::module_local()).def(py::init<>());
}

void bindRuntimeClass(py::module_& m)
{
    py::class_<IRuntime>(m, "Runtime", py::module_local(), py::dynamic_attr())
        .def(py::init([](ILogger& logger) {
            IRuntime* runtime = createInferRuntime(logger);
            if (runtime == nullptr)
            {
                throw std::runtime_error("Runtime: the library could not create a runtime (see the logger)");
            }
            return runtime;
        }),
            py::arg("logger"), py::keep_alive<1, 2>())
        .def(
            "deserialize_cuda_engine",
            [](IRuntime& self, py::buffer const& serializedEngine) {
                py::buffer_info const info = serializedEngine.request();
                auto const bytes = static_cast<std::size_t>(info.size * info.itemsize);
                ICudaEngine* engine{};
                {
                    py::gil_scoped_release release;
                    engine = self.deserializeCudaEngine(info.ptr, bytes);
                }
                return takeKeepingAlive(engine, py::cast(&self, py::return_value_policy::reference));
            },
            py::arg("serialized_engine"))
        .def(
            "deserialize_cuda_engine",
            [](IRuntime& self, IStreamReader& streamReader) {
                ICudaEngine* engine{};
                {
                    py::gil_scoped_release release;
                    engine = self.deserializeCudaEngine(streamReader);
                }
                return takeKeepingAlive(engine, py::cast(&self, py::return_value_policy::reference));
            },
            py::arg("stream_reader"))
        .def(
            "deserialize_cuda_engine",
            [](IRuntime& self, IStreamReaderV2& streamReader) {
                ICudaEngine* engine{};
                {
                    py::gil_scoped_release release;
                    engine = self.deserializeCudaEngine(streamReader);
                }
                return takeKeepingAlive(engine, py::cast(&self, py::return_value_policy::reference));
            },
            py::arg("stream_reader_v2"))
        .def_property("DLA_core", &IRuntime::getDLACore, &IRuntime::setDLACore)
        .def_property("gpu_allocator", nullptr,
            keepingSetter<IRuntime, IGpuAllocator>("_kiln_gpu_allocator",
                [](IRuntime& self, IGpuAllocator* allocator) { self.setGpuAllocator(allocator); }))
        .def_property("error_recorder", &IRuntime::getErrorRecorder,
            keepingSetter<IRuntime, IErrorRecorder>("_kiln_error_recorder",
                [](IRuntime& self, IErrorRecorder* recorder) { self.setErrorRecorder(recorder); }),
            py::return_value_policy::reference)
        .def_property_readonly("num_DLA_cores", &IRuntime::getNbDLACores)
        .def_property_readonly("logger", &IRuntime::getLogger, py::return_value_policy::reference)
        .def_property("max_threads", &IRuntime::getMaxThreads, &IRuntime::setMaxThreads)
        .def_property(
            "temporary_directory", [](IRuntime const& self) { return nameOrNone(self.getTemporaryDirectory()); },
            [](IRuntime& self, std::string const& path) { self.setTemporaryDirectory(path.c_str()); })
        .def_property("tempfile_control_flags", &IRuntime::getTempfileControlFlags, &IRuntime::setTempfileControlFlags)
        .def_property(
            "engine_host_code_allowed", &IRuntime::getEngineHostCodeAllowed, &IRuntime::setEngineHostCodeAllowed);
}

void bindEngine(py::module_& m)
{
    py::class_<ICudaEngine>(m, "ICudaEngine", py::module_local(), py::dynamic_attr())
        .def_property_readonly("num_io_tensors", &ICudaEngine::getNbIOTensors)
        .def(
            "get_tensor_name",
            [](ICudaEngine const& self, int32_t index) { return nameOrNone(self.getIOTensorName(index)); },
            py::arg("index"))
        .def("__getitem__",
            [](ICudaEngine const& self, int64_t index) {
                int64_t const count = self.getNbIOTensors();
                if (index < 0)
                {
                    index += count;
                }
                if (index < 0 || index >= count)
                {
                    throw py::index_error("engine I/O tensor index out of range");
                }
                return nameOrNone(self.getIOTensorName(static_cast<int32_t>(index)));
            })
        .def(
            "get_tensor_mode",
            [](ICudaEngine const& self, std::string const& name) { return self.getTensorIOMode(name.c_str()); },
            py::arg("name"))
        .def(
            "get_tensor_shape",
            [](ICudaEngine const& self, std::string const& name) { return self.getTensorShape(name.c_str()); },
            py::arg("name"))
        .def(
            "get_tensor_dtype",
            [](ICudaEngine const& self, std::string const& name) { return self.getTensorDataType(name.c_str()); },
            py::arg("name"))
        .def(
            "get_tensor_location",
            [](ICudaEngine const& self, std::string const& name) { return self.getTensorLocation(name.c_str()); },
            py::arg("name"))
        .def(
            "is_shape_inference_io",
            [](ICudaEngine const& self, std::string const& name) { return self.isShapeInferenceIO(name.c_str()); },
            py::arg("name"))
        .def(
            "is_debug_tensor",
            [](ICudaEngine const& self, std::string const& name) { return self.isDebugTensor(name.c_str()); },
            py::arg("name"))
        .def(
            "get_tensor_format",
            [](ICudaEngine const& self, std::string const& name) { return self.getTensorFormat(name.c_str()); },
            py::arg("name"))
        .def(
            "get_tensor_format",
            [](ICudaEngine const& self, std::string const& name, int32_t profileIndex) {
                return self.getTensorFormat(name.c_str(), profileIndex);
            },
            py::arg("name"), py::arg("profile_index"))
        .def(
            "get_tensor_profile_shape",
            [](ICudaEngine const& self, std::string const& name, int32_t profileIndex) {
                py::list result;
                for (auto const selector :
                    {OptProfileSelector::kMIN, OptProfileSelector::kOPT, OptProfileSelector::kMAX})
                {
                    result.append(self.getProfileShape(name.c_str(), profileIndex, selector));
                }
                return result;
            },
            py::arg("name"), py::arg("profile_index"))
        .def_property_readonly("num_layers", &ICudaEngine::getNbLayers)
        .def_property_readonly("num_optimization_profiles", &ICudaEngine::getNbOptimizationProfiles)
        .def_property_readonly("name", [](ICudaEngine const& self) { return nameOrNone(self.getName()); })
        .def_property_readonly("refittable", &ICudaEngine::isRefittable)
        .def_property_readonly("engine_capability", &ICudaEngine::getEngineCapability)
        .def_property_readonly("tactic_sources", &ICudaEngine::getTacticSources)
        .def_property_readonly("profiling_verbosity", &ICudaEngine::getProfilingVerbosity)
        .def_property_readonly("hardware_compatibility_level", &ICudaEngine::getHardwareCompatibilityLevel)
        .def_property_readonly("num_aux_streams", &ICudaEngine::getNbAuxStreams)
        .def_property("error_recorder", &ICudaEngine::getErrorRecorder,
            keepingSetter<ICudaEngine, IErrorRecorder>("_kiln_error_recorder",
                [](ICudaEngine& self, IErrorRecorder* recorder) { self.setErrorRecorder(recorder); }),
            py::return_value_policy::reference)
        .def_property_readonly("has_implicit_batch_dimension", [](ICudaEngine const&) { return false; })
        .def_property_readonly("device_memory_size",
            [](ICudaEngine const& self) {
                deprecated("Use device_memory_size_v2 instead.");
                return self.getDeviceMemorySize();
            })
        .def_property_readonly("device_memory_size_v2", &ICudaEngine::getDeviceMemorySizeV2)
        .def(
            "get_device_memory_size_for_profile",
            [](ICudaEngine const& self, int32_t profileIndex) {
                deprecated("Use get_device_memory_size_for_profile_v2 instead.");
                return self.getDeviceMemorySizeForProfile(profileIndex);
            },
            py::arg("profile_index"))
        .def(
            "get_aliased_input_tensor",
            [](ICudaEngine const& self, std::string const& name) {
                return nameOrNone(self.getAliasedInputTensor(name.c_str()));
            },
            py::arg("name"))
        .def_property(
            "weight_streaming_budget",
            [](ICudaEngine const& self) {
                deprecated("Use weight_streaming_budget_v2 instead.");
                return self.getWeightStreamingBudget();
            },
            [](ICudaEngine& self, int64_t budget) {
                deprecated("Use weight_streaming_budget_v2 instead.");
                self.setWeightStreamingBudget(budget);
            })
        .def_property_readonly("minimum_weight_streaming_budget",
            [](ICudaEngine const& self) {
                deprecated("Use streamable_weights_size instead.");
                return self.getMinimumWeightStreamingBudget();
            })
        .def_property("weight_streaming_budget_v2", &ICudaEngine::getWeightStreamingBudgetV2,
            [](ICudaEngine& self, int64_t budget) { self.setWeightStreamingBudgetV2(budget); })
        .def_property_readonly("streamable_weights_size", &ICudaEngine::getStreamableWeightsSize)
        .def_property_readonly(
            "weight_streaming_scratch_memory_size", &ICudaEngine::getWeightStreamingScratchMemorySize)
        .def("get_weight_streaming_automatic_budget", &ICudaEngine::getWeightStreamingAutomaticBudget)
        .def("get_device_memory_size_for_profile_v2", &ICudaEngine::getDeviceMemorySizeForProfileV2,
            py::arg("profile_index"))
        .def("get_engine_stat", &ICudaEngine::getEngineStat, py::arg("stat") = EngineStat::kTOTAL_WEIGHTS_SIZE)
        .def(
            "create_execution_context",
            [](ICudaEngine& self, ExecutionContextAllocationStrategy strategy) {
                return self.createExecutionContext(strategy);
            },
            py::arg("strategy") = ExecutionContextAllocationStrategy::kSTATIC, py::keep_alive<0, 1>(),
            py::call_guard<py::gil_scoped_release>(), kTake)
        .def("create_engine_inspector", &ICudaEngine::createEngineInspector, py::keep_alive<0, 1>(), kTake)
        .def("serialize", &ICudaEngine::serialize, py::call_guard<py::gil_scoped_release>(), kTake);
}

void bindInspector(py::module_& m)
{
    py::class_<IEngineInspector>(m, "EngineInspector", py::module_local(), py::dynamic_attr())
        .def_property(
            "execution_context",
            [](IEngineInspector const& self) { return const_cast<IExecutionContext*>(self.getExecutionContext()); },
            [](py::object const& self, IExecutionContext const* context) {
                self.cast<IEngineInspector&>().setExecutionContext(context);
                py::setattr(self, "_kiln_context", py::cast(context, py::return_value_policy::reference));
            },
            py::return_value_policy::reference)
        .def_property("error_recorder", &IEngineInspector::getErrorRecorder,
            keepingSetter<IEngineInspector, IErrorRecorder>("_kiln_error_recorder",
                [](IEngineInspector& self, IErrorRecorder* recorder) { self.setErrorRecorder(recorder); }),
            py::return_value_policy::reference)
        .def(
            "get_layer_information",
            [](IEngineInspector const& self, int32_t layerIndex, LayerInformationFormat format) {
                return nameOrNone(self.getLayerInformation(layerIndex, format));
            },
            py::arg("layer_index"), py::arg("format"))
        .def(
            "get_engine_information",
            [](IEngineInspector const& self, LayerInformationFormat format) {
                return nameOrNone(self.getEngineInformation(format));
            },
            py::arg("format"));
}

void bindContext(py::module_& m)
{
    py::class_<IExecutionContext>(m, "IExecutionContext", py::module_local(), py::dynamic_attr())
        .def_property_readonly("engine", &IExecutionContext::getEngine, py::return_value_policy::reference)
        .def_property(
            "name", [](IExecutionContext const& self) { return nameOrNone(self.getName()); },
            [](IExecutionContext& self, std::string const& name) { self.setName(name.c_str()); })
        .def_property("debug_sync", &IExecutionContext::getDebugSync, &IExecutionContext::setDebugSync)
        .def_property(
            "profiler", [](IExecutionContext const& self) { return self.getProfiler(); },
            [](py::object const& self, IProfiler* profiler) {
                self.cast<IExecutionContext&>().setProfiler(profiler);
                py::setattr(self, "_kiln_profiler", py::cast(profiler, py::return_value_policy::reference));
            },
            py::return_value_policy::reference)
        .def_property("error_recorder", &IExecutionContext::getErrorRecorder,
            keepingSetter<IExecutionContext, IErrorRecorder>("_kiln_error_recorder",
                [](IExecutionContext& self, IErrorRecorder* recorder) { self.setErrorRecorder(recorder); }),
            py::return_value_policy::reference)
        .def_property("temporary_allocator", &IExecutionContext::getTemporaryStorageAllocator,
            keepingSetter<IExecutionContext, IGpuAllocator>("_kiln_temporary_allocator",
                [](IExecutionContext& self, IGpuAllocator* allocator) {
                    self.setTemporaryStorageAllocator(allocator);
                }),
            py::return_value_policy::reference)
        .def_property("enqueue_emits_profile", &IExecutionContext::getEnqueueEmitsProfile,
            &IExecutionContext::setEnqueueEmitsProfile)
        .def("report_to_profiler", &IExecutionContext::reportToProfiler)
        .def_property_readonly("active_optimization_profile", &IExecutionContext::getOptimizationProfile)
        .def_property_readonly("all_binding_shapes_specified", &IExecutionContext::allInputDimensionsSpecified)
        .def_property_readonly("all_shape_inputs_specified", &IExecutionContext::allInputShapesSpecified)
        .def(
            "set_optimization_profile_async",
            [](IExecutionContext& self, int32_t profileIndex, py::object const& streamHandle) {
                cudaStream_t const stream = toStream(streamHandle, "stream_handle");
                bool ok = false;
                {
                    py::gil_scoped_release release;
                    ok = self.setOptimizationProfileAsync(profileIndex, stream);
                }
                if (!ok)
                {
                    throw std::runtime_error("Error in set optimization profile async.");
                }
                return true;
            },
            py::arg("profile_index"), py::arg("stream_handle"))
        .def(
            "set_input_shape",
            [](IExecutionContext& self, std::string const& name, Dims const& shape) {
                return self.setInputShape(name.c_str(), shape);
            },
            py::arg("name"), py::arg("shape"))
        .def(
            "get_tensor_shape",
            [](IExecutionContext const& self, std::string const& name) { return self.getTensorShape(name.c_str()); },
            py::arg("name"))
        .def(
            "get_tensor_strides",
            [](IExecutionContext const& self, std::string const& name) { return self.getTensorStrides(name.c_str()); },
            py::arg("name"))
        .def(
            "set_tensor_address",
            [](IExecutionContext& self, std::string const& name, py::object const& memory) {
                return self.setTensorAddress(name.c_str(), reinterpret_cast<void*>(toAddress(memory, "memory")));
            },
            py::arg("name"), py::arg("memory"))
        .def(
            "get_tensor_address",
            [](IExecutionContext const& self, std::string const& name) {
                return reinterpret_cast<std::uintptr_t>(self.getTensorAddress(name.c_str()));
            },
            py::arg("name"))
        .def(
            "get_max_output_size",
            [](IExecutionContext const& self, std::string const& name) { return self.getMaxOutputSize(name.c_str()); },
            py::arg("name"))
        .def("infer_shapes",
            [](IExecutionContext& self) {
                int32_t const count = self.getEngine().getNbIOTensors();
                std::vector<char const*> names(static_cast<std::size_t>(std::max(count, 1)), nullptr);
                int32_t result = 0;
                {
                    py::gil_scoped_release release;
                    result = self.inferShapes(static_cast<int32_t>(names.size()), names.data());
                }
                if (result < 0)
                {
                    throw std::runtime_error("infer_shapes error code: " + std::to_string(result));
                }
                std::vector<std::string> pending;
                for (int32_t i = 0; i < std::min<int32_t>(result, static_cast<int32_t>(names.size())); ++i)
                {
                    pending.emplace_back(
                        names[static_cast<std::size_t>(i)] != nullptr ? names[static_cast<std::size_t>(i)] : "");
                }
                return pending;
            })
        .def(
            "execute_async_v3",
            [](IExecutionContext& self, py::object const& streamHandle) {
                cudaStream_t const stream = toStream(streamHandle, "stream_handle");
                py::gil_scoped_release release;
                return self.enqueueV3(stream);
            },
            py::arg("stream_handle"))
        .def(
            "execute_v2",
            [](IExecutionContext& self, py::sequence const& bindings) {
                std::vector<void*> pointers;
                for (py::handle const binding : bindings)
                {
                    pointers.push_back(reinterpret_cast<void*>(toAddress(binding, "bindings")));
                }
                py::gil_scoped_release release;
                return self.executeV2(pointers.data());
            },
            py::arg("bindings"))
        .def(
            "set_output_allocator",
            [](IExecutionContext& self, std::string const& name, IOutputAllocator* outputAllocator) {
                return self.setOutputAllocator(name.c_str(), outputAllocator);
            },
            py::arg("name"), py::arg("output_allocator"), py::keep_alive<1, 3>())
        .def(
            "get_output_allocator",
            [](IExecutionContext const& self, std::string const& name) {
                return self.getOutputAllocator(name.c_str());
            },
            py::arg("name"), py::return_value_policy::reference)
        .def(
            "set_tensor_debug_state",
            [](IExecutionContext& self, std::string const& name, bool flag) {
                return self.setTensorDebugState(name.c_str(), flag);
            },
            py::arg("name"), py::arg("flag"))
        .def(
            "get_debug_state",
            [](IExecutionContext const& self, std::string const& name) { return self.getDebugState(name.c_str()); },
            py::arg("name"))
        .def("set_all_tensors_debug_state", &IExecutionContext::setAllTensorsDebugState, py::arg("flag"))
        .def(
            "set_debug_listener",
            [](py::object const& self, py::object const& listener) {
                bool const ok = self.cast<IExecutionContext&>().setDebugListener(
                    listener.is_none() ? nullptr : listener.cast<IDebugListener*>());
                keepWith(self, "_kiln_debug_listener", listener);
                return ok;
            },
            py::arg("listener"))
        .def("get_debug_listener", &IExecutionContext::getDebugListener, py::return_value_policy::reference)
        .def("update_device_memory_size_for_shapes", &IExecutionContext::updateDeviceMemorySizeForShapes)
        .def_property("device_memory", nullptr, py::cpp_function([](IExecutionContext& self, py::object const& memory) {
            self.setDeviceMemory(reinterpret_cast<void*>(toAddress(memory, "memory")));
        }))
        .def(
            "set_device_memory",
            [](IExecutionContext& self, py::object const& memory, int64_t size) {
                self.setDeviceMemoryV2(reinterpret_cast<void*>(toAddress(memory, "memory")), size);
            },
            py::arg("memory"), py::arg("size"))
        .def(
            "set_communicator",
            [](IExecutionContext& self, py::object const& communicator) {
                // A PyCapsule of the ncclComm_t (TensorRT's attention_mdtrt sample wraps nccl.core's pointer as one,
                // named "ncclComm_t"), or the pointer as an int.
                void* pointer = nullptr;
                if (PyCapsule_CheckExact(communicator.ptr()))
                {
                    pointer = PyCapsule_GetPointer(communicator.ptr(), PyCapsule_GetName(communicator.ptr()));
                    if (pointer == nullptr)
                    {
                        throw py::error_already_set();
                    }
                }
                else
                {
                    pointer = reinterpret_cast<void*>(toAddress(communicator, "communicator"));
                }
                return self.setCommunicator(pointer);
            },
            py::arg("communicator"));
}

} // namespace

void bindRuntime(py::module_& m)
{
    bindProfiler(m);
    bindOutputAllocator(m);
    bindRuntimeClass(m);
    bindEngine(m);
    bindContext(m);
    bindInspector(m);
}

} // namespace kiln::python
