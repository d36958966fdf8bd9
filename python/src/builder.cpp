// SPDX-License-Identifier: Apache-2.0
// builder.cpp -- Builder (keeps its logger), IBuilderConfig and IOptimizationProfile (owned by the builder). The
// build itself runs with the GIL released; a Python logger takes it back for each message.

#include "utils.h"

#include <algorithm>
#include <memory>

namespace kiln::python
{
namespace
{

using namespace nvinfer1;

constexpr auto kInternal = py::return_value_policy::reference_internal;
constexpr auto kTake = py::return_value_policy::take_ownership;

void bindProfile(py::module_& m)
{
    py::class_<IOptimizationProfile, std::unique_ptr<IOptimizationProfile, py::nodelete>>(
        m, "IOptimizationProfile", py::module_local())
        .def(
            "set_shape",
            [](IOptimizationProfile& self, std::string const& input, Dims const& min, Dims const& opt,
                Dims const& max) {
                bool const ok = self.setDimensions(input.c_str(), OptProfileSelector::kMIN, min)
                    && self.setDimensions(input.c_str(), OptProfileSelector::kOPT, opt)
                    && self.setDimensions(input.c_str(), OptProfileSelector::kMAX, max);
                if (!ok)
                {
                    throw std::runtime_error("Shape provided for min/opt/max is inconsistent for input '" + input
                        + "': every extent needs min <= opt <= max, the same rank in all three, and no -1");
                }
            },
            py::arg("input"), py::arg("min"), py::arg("opt"), py::arg("max"))
        .def(
            "get_shape",
            [](IOptimizationProfile const& self, std::string const& input) {
                py::list result;
                Dims const min = self.getDimensions(input.c_str(), OptProfileSelector::kMIN);
                if (min.nbDims < 0)
                {
                    return result;
                }
                result.append(min);
                result.append(self.getDimensions(input.c_str(), OptProfileSelector::kOPT));
                result.append(self.getDimensions(input.c_str(), OptProfileSelector::kMAX));
                return result;
            },
            py::arg("input"))
        .def(
            "set_shape_input",
            [](IOptimizationProfile& self, std::string const& input, std::vector<int64_t> const& min,
                std::vector<int64_t> const& opt, std::vector<int64_t> const& max) {
                if (min.size() != opt.size() || min.size() != max.size())
                {
                    throw std::runtime_error(
                        "Shape values provided for min/opt/max of '" + input + "' have different lengths");
                }
                auto const n = static_cast<int32_t>(min.size());
                bool const ok = self.setShapeValuesV2(input.c_str(), OptProfileSelector::kMIN, min.data(), n)
                    && self.setShapeValuesV2(input.c_str(), OptProfileSelector::kOPT, opt.data(), n)
                    && self.setShapeValuesV2(input.c_str(), OptProfileSelector::kMAX, max.data(), n);
                if (!ok)
                {
                    throw std::runtime_error(
                        "Shape values provided for min/opt/max of '" + input + "' are inconsistent");
                }
            },
            py::arg("input"), py::arg("min"), py::arg("opt"), py::arg("max"))
        .def(
            "get_shape_input",
            [](IOptimizationProfile const& self, std::string const& input) {
                py::list result;
                int32_t const count = self.getNbShapeValues(input.c_str());
                if (count < 0)
                {
                    return result;
                }
                for (auto const selector :
                    {OptProfileSelector::kMIN, OptProfileSelector::kOPT, OptProfileSelector::kMAX})
                {
                    int64_t const* values = self.getShapeValuesV2(input.c_str(), selector);
                    if (values == nullptr)
                    {
                        return py::list();
                    }
                    result.append(py::cast(std::vector<int64_t>(values, values + count)));
                }
                return result;
            },
            py::arg("input"))
        .def_property("extra_memory_target", &IOptimizationProfile::getExtraMemoryTarget,
            &IOptimizationProfile::setExtraMemoryTarget)
        .def("__bool__", &IOptimizationProfile::isValid)
        .def("__nonzero__", &IOptimizationProfile::isValid);
}

std::string keyText(TimingCacheKey const& key)
{
    static char const kDigits[] = "0123456789abcdef";
    std::string text = "0x";
    for (uint8_t const byte : key.data)
    {
        text += kDigits[byte >> 4];
        text += kDigits[byte & 0xF];
    }
    return text;
}

TimingCacheKey parseKey(std::string const& text)
{
    auto const digit = [](char c) -> int {
        if (c >= '0' && c <= '9')
        {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f')
        {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F')
        {
            return c - 'A' + 10;
        }
        return -1;
    };
    TimingCacheKey key{};
    bool ok = text.size() == 2 + 2 * sizeof(key.data) && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    for (std::size_t i = 0; ok && i < sizeof(key.data); ++i)
    {
        int const high = digit(text[2 + 2 * i]);
        int const low = digit(text[3 + 2 * i]);
        ok = high >= 0 && low >= 0;
        key.data[i] = static_cast<uint8_t>(ok ? high * 16 + low : 0);
    }
    if (!ok)
    {
        throw py::value_error("TimingCacheKey.parse: expected '0x' and 32 hex digits, got '" + text + "'");
    }
    return key;
}

void bindTimingCache(py::module_& m)
{
    py::class_<TimingCacheKey>(m, "TimingCacheKey", py::module_local())
        .def_static("parse", &parseKey, py::arg("text"))
        .def("__str__", &keyText)
        .def("__repr__", &keyText);
    py::class_<TimingCacheValue>(m, "TimingCacheValue", py::module_local())
        .def(py::init([](uint64_t tacticHash, float timingMSec) {
            return TimingCacheValue{tacticHash, timingMSec};
        }),
            py::arg("tacticHash"), py::arg("timingMSec"))
        .def_readwrite("tacticHash", &TimingCacheValue::tacticHash)
        .def_readwrite("timingMSec", &TimingCacheValue::timingMSec);
    py::class_<ITimingCache>(m, "ITimingCache", py::module_local())
        .def("serialize", &ITimingCache::serialize, kTake)
        .def("combine", &ITimingCache::combine, py::arg("input_cache"), py::arg("ignore_mismatch"))
        .def("reset", &ITimingCache::reset)
        .def("queryKeys",
            [](ITimingCache const& self) {
                std::vector<TimingCacheKey> keys(
                    static_cast<std::size_t>(std::max<int64_t>(self.queryKeys(nullptr, 0), 0)));
                int64_t const count = self.queryKeys(keys.data(), static_cast<int64_t>(keys.size()));
                keys.resize(static_cast<std::size_t>(std::clamp<int64_t>(count, 0, static_cast<int64_t>(keys.size()))));
                return keys;
            })
        .def("query", &ITimingCache::query, py::arg("key"))
        .def("update", &ITimingCache::update, py::arg("key"), py::arg("value"));
}

//! The trampoline behind Python subclasses of IProgressMonitor. step_complete returning False (or raising) cancels
//! the build, as in TensorRT.
class PyProgressMonitor : public IProgressMonitor
{
public:
    void phaseStart(char const* phaseName, char const* parentPhase, int32_t nbSteps) noexcept override
    {
        guardCallback("phase_start", [&] {
            if (py::function const f = findOverride(self(), "phase_start", true))
            {
                f(textToStr(phaseName),
                    parentPhase == nullptr ? py::object(py::none()) : py::object(textToStr(parentPhase)), nbSteps);
            }
        });
    }

    //! False (cancel the build) when step_complete returns False, is missing or raises.
    bool stepComplete(char const* phaseName, int32_t step) noexcept override
    {
        return guardCallback("step_complete", false, [&] {
            py::function const f = findOverride(self(), "step_complete", true);
            return f ? f(textToStr(phaseName), step).cast<bool>() : false;
        });
    }

    void phaseFinish(char const* phaseName) noexcept override
    {
        guardCallback("phase_finish", [&] {
            if (py::function const f = findOverride(self(), "phase_finish", true))
            {
                f(textToStr(phaseName));
            }
        });
    }

private:
    IProgressMonitor const* self() const noexcept { return this; }
};

void bindProgressMonitor(py::module_& m)
{
    py::class_<IProgressMonitor, PyProgressMonitor>(m, "IProgressMonitor", py::module_local())
        .def(py::init<>())
        .def("phase_start", &IProgressMonitor::phaseStart, py::arg("phase_name"), py::arg("parent_phase"),
            py::arg("num_steps"))
        .def("step_complete", &IProgressMonitor::stepComplete, py::arg("phase_name"), py::arg("step"))
        .def("phase_finish", &IProgressMonitor::phaseFinish, py::arg("phase_name"));
}

void bindConfig(py::module_& m)
{
    py::class_<IBuilderConfig>(m, "IBuilderConfig", py::module_local(), py::dynamic_attr())
        .def_property(
            "avg_timing_iterations", &IBuilderConfig::getAvgTimingIterations, &IBuilderConfig::setAvgTimingIterations)
        .def_property("engine_capability", &IBuilderConfig::getEngineCapability, &IBuilderConfig::setEngineCapability)
        .def_property(
            "default_device_type", &IBuilderConfig::getDefaultDeviceType, &IBuilderConfig::setDefaultDeviceType)
        .def_property("DLA_core", &IBuilderConfig::getDLACore, &IBuilderConfig::setDLACore)
        .def_property(
            "profiling_verbosity", &IBuilderConfig::getProfilingVerbosity, &IBuilderConfig::setProfilingVerbosity)
        .def_property("builder_optimization_level", &IBuilderConfig::getBuilderOptimizationLevel,
            &IBuilderConfig::setBuilderOptimizationLevel)
        .def_property("max_num_tactics", &IBuilderConfig::getMaxNbTactics, &IBuilderConfig::setMaxNbTactics)
        .def_property("hardware_compatibility_level", &IBuilderConfig::getHardwareCompatibilityLevel,
            &IBuilderConfig::setHardwareCompatibilityLevel)
        .def_property("runtime_platform", &IBuilderConfig::getRuntimePlatform, &IBuilderConfig::setRuntimePlatform)
        .def_property("max_aux_streams", &IBuilderConfig::getMaxAuxStreams, &IBuilderConfig::setMaxAuxStreams)
        .def_property("tiling_optimization_level", &IBuilderConfig::getTilingOptimizationLevel,
            &IBuilderConfig::setTilingOptimizationLevel)
        .def_property("l2_limit_for_tiling", &IBuilderConfig::getL2LimitForTiling, &IBuilderConfig::setL2LimitForTiling)
        .def_property(
            "progress_monitor", [](IBuilderConfig const& self) { return self.getProgressMonitor(); },
            [](py::object const& self, IProgressMonitor* monitor) {
                self.cast<IBuilderConfig&>().setProgressMonitor(monitor);
                py::setattr(self, "_kiln_progress_monitor", py::cast(monitor, py::return_value_policy::reference));
            },
            py::return_value_policy::reference)
        // INT8 calibration and algorithm selection are deprecated and not bound: the properties read None and accept
        // only None, so that code reading them (Polygraphy reads int8_calibrator before every build) works.
        .def_property(
            "int8_calibrator",
            [](IBuilderConfig const&) {
                deprecated("Deprecated in TensorRT 10.1. Superseded by explicit quantization.");
                return py::none();
            },
            [](IBuilderConfig& self, py::object const& calibrator) {
                deprecated("Deprecated in TensorRT 10.1. Superseded by explicit quantization.");
                if (!calibrator.is_none())
                {
                    throw py::type_error("kiln does not bind INT8 calibrators (deprecated); only None is accepted");
                }
                self.setInt8Calibrator(nullptr);
            })
        .def_property(
            "algorithm_selector", [](IBuilderConfig const&) { return py::none(); },
            [](IBuilderConfig& self, py::object const& selector) {
                deprecated("Deprecated in TensorRT 10.8. Please use editable mode in ITimingCache instead.");
                if (!selector.is_none())
                {
                    throw py::type_error("kiln does not bind algorithm selectors (deprecated); only None is accepted");
                }
                self.setAlgorithmSelector(nullptr);
            })
        .def(
            "set_calibration_profile",
            [](IBuilderConfig& self, IOptimizationProfile const* profile) {
                deprecated("Deprecated in TensorRT 10.1. Superseded by explicit quantization.");
                return self.setCalibrationProfile(profile);
            },
            py::arg("profile"))
        .def(
            "get_calibration_profile",
            [](IBuilderConfig& self) {
                deprecated("Deprecated in TensorRT 10.1. Superseded by explicit quantization.");
                return self.getCalibrationProfile();
            },
            py::return_value_policy::reference)
        .def_property("flags", &IBuilderConfig::getFlags, &IBuilderConfig::setFlags)
        .def("set_flag", &IBuilderConfig::setFlag, py::arg("flag"))
        .def("clear_flag", &IBuilderConfig::clearFlag, py::arg("flag"))
        .def("get_flag", &IBuilderConfig::getFlag, py::arg("flag"))
        .def("set_memory_pool_limit", &IBuilderConfig::setMemoryPoolLimit, py::arg("pool"), py::arg("pool_size"))
        .def("get_memory_pool_limit", &IBuilderConfig::getMemoryPoolLimit, py::arg("pool"))
        .def("reset", &IBuilderConfig::reset)
        .def_property(
            "profile_stream",
            [](IBuilderConfig const& self) { return reinterpret_cast<std::uintptr_t>(self.getProfileStream()); },
            [](IBuilderConfig& self, py::object const& stream) {
                self.setProfileStream(reinterpret_cast<cudaStream_t>(toAddress(stream, "profile_stream")));
            })
        .def(
            "add_optimization_profile",
            [](IBuilderConfig& self, IOptimizationProfile const* profile) {
                return self.addOptimizationProfile(profile);
            },
            py::arg("profile"), py::keep_alive<1, 2>())
        .def_property_readonly("num_optimization_profiles", &IBuilderConfig::getNbOptimizationProfiles)
        .def(
            "create_timing_cache",
            [](IBuilderConfig const& self, py::buffer const& serializedTimingCache) {
                py::buffer_info const info = serializedTimingCache.request();
                return self.createTimingCache(info.ptr, static_cast<std::size_t>(info.size * info.itemsize));
            },
            py::arg("serialized_timing_cache"), kTake)
        .def("set_timing_cache", &IBuilderConfig::setTimingCache, py::arg("cache"), py::arg("ignore_mismatch"),
            py::keep_alive<1, 2>())
        .def(
            "get_timing_cache",
            [](IBuilderConfig const& self) { return const_cast<ITimingCache*>(self.getTimingCache()); },
            py::return_value_policy::reference)
        .def_property(
            "quantization_flags", &IBuilderConfig::getQuantizationFlags, &IBuilderConfig::setQuantizationFlags)
        .def("set_quantization_flag", &IBuilderConfig::setQuantizationFlag, py::arg("flag"))
        .def("clear_quantization_flag", &IBuilderConfig::clearQuantizationFlag, py::arg("flag"))
        .def("get_quantization_flag", &IBuilderConfig::getQuantizationFlag, py::arg("flag"))
        .def("set_tactic_sources", &IBuilderConfig::setTacticSources, py::arg("tactic_sources"))
        .def("get_tactic_sources", &IBuilderConfig::getTacticSources)
        .def("set_preview_feature", &IBuilderConfig::setPreviewFeature, py::arg("feature"), py::arg("enable"))
        .def("get_preview_feature", &IBuilderConfig::getPreviewFeature, py::arg("feature"))
        .def("set_device_type", &IBuilderConfig::setDeviceType, py::arg("layer"), py::arg("device_type"))
        .def("get_device_type", &IBuilderConfig::getDeviceType, py::arg("layer"))
        .def("is_device_type_set", &IBuilderConfig::isDeviceTypeSet, py::arg("layer"))
        .def("reset_device_type", &IBuilderConfig::resetDeviceType, py::arg("layer"))
        .def("can_run_on_DLA", &IBuilderConfig::canRunOnDLA, py::arg("layer"))
        .def_property(
            "plugins_to_serialize",
            [](IBuilderConfig const& self) {
                std::vector<std::string> paths;
                for (int32_t i = 0; i < self.getNbPluginsToSerialize(); ++i)
                {
                    char const* path = self.getPluginToSerialize(i);
                    paths.emplace_back(path != nullptr ? path : "");
                }
                return paths;
            },
            [](IBuilderConfig& self, std::vector<std::string> const& paths) {
                std::vector<char const*> pointers;
                for (auto const& path : paths)
                {
                    pointers.push_back(path.c_str());
                }
                self.setPluginsToSerialize(pointers.data(), static_cast<int32_t>(pointers.size()));
            });
}

void bindBuilderClass(py::module_& m)
{
    py::class_<IBuilder>(m, "Builder", py::module_local(), py::dynamic_attr())
        .def(py::init([](ILogger& logger) {
            IBuilder* builder = createInferBuilder(logger);
            if (builder == nullptr)
            {
                throw std::runtime_error("Builder: the library could not create a builder (see the logger)");
            }
            return builder;
        }),
            py::arg("logger"), py::keep_alive<1, 2>())
        .def(
            "create_network", [](IBuilder& self, uint32_t flags) { return self.createNetworkV2(flags); },
            py::arg("flags") = 0U, py::keep_alive<0, 1>(), kTake)
        .def("create_builder_config", &IBuilder::createBuilderConfig, py::keep_alive<0, 1>(), kTake)
        .def("create_optimization_profile", &IBuilder::createOptimizationProfile, kInternal)
        .def(
            "build_serialized_network",
            [](IBuilder& self, INetworkDefinition& network, IBuilderConfig& config) {
                return self.buildSerializedNetwork(network, config);
            },
            py::arg("network"), py::arg("config"), py::call_guard<py::gil_scoped_release>(), kTake)
        .def(
            "build_serialized_network_to_stream",
            [](IBuilder& self, INetworkDefinition& network, IBuilderConfig& config, IStreamWriter& writer) {
                return self.buildSerializedNetworkToStream(network, config, writer);
            },
            py::arg("network"), py::arg("config"), py::arg("writer"), py::call_guard<py::gil_scoped_release>())
        .def(
            "build_engine_with_config",
            [](IBuilder& self, INetworkDefinition& network, IBuilderConfig& config) {
                return self.buildEngineWithConfig(network, config);
            },
            py::arg("network"), py::arg("config"), py::call_guard<py::gil_scoped_release>(), py::keep_alive<0, 1>(),
            kTake)
        .def("is_network_supported", &IBuilder::isNetworkSupported, py::arg("network"), py::arg("config"),
            py::call_guard<py::gil_scoped_release>())
        .def_property_readonly("platform_has_tf32", &IBuilder::platformHasTf32)
        .def_property_readonly("platform_has_fast_fp16", &IBuilder::platformHasFastFp16)
        .def_property_readonly("platform_has_fast_int8", &IBuilder::platformHasFastInt8)
        .def_property_readonly("max_DLA_batch_size", &IBuilder::getMaxDLABatchSize)
        .def_property_readonly("num_DLA_cores", &IBuilder::getNbDLACores)
        .def_property_readonly("logger", &IBuilder::getLogger, py::return_value_policy::reference)
        .def_property("max_threads", &IBuilder::getMaxThreads, &IBuilder::setMaxThreads)
        .def_property("gpu_allocator", nullptr,
            keepingSetter<IBuilder, IGpuAllocator>("_kiln_gpu_allocator",
                [](IBuilder& self, IGpuAllocator* allocator) { self.setGpuAllocator(allocator); }))
        .def_property("error_recorder", &IBuilder::getErrorRecorder,
            keepingSetter<IBuilder, IErrorRecorder>("_kiln_error_recorder",
                [](IBuilder& self, IErrorRecorder* recorder) { self.setErrorRecorder(recorder); }),
            py::return_value_policy::reference)
        .def("reset", &IBuilder::reset);
}

} // namespace

void bindBuilder(py::module_& m)
{
    bindTimingCache(m);
    bindProgressMonitor(m);
    bindProfile(m);
    bindConfig(m);
    bindBuilderClass(m);
}

} // namespace kiln::python
