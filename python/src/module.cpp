// SPDX-License-Identifier: Apache-2.0
// module.cpp -- kiln._kiln, the compiled half of the kiln package (kiln/__init__.py re-exports it and adds what
// TensorRT keeps in Python). One binding file per API area: enums, foundational types, logger, network and layers,
// builder, runtime, the Python-implemented
// callback interfaces (callbacks.cpp), the refitter, plugins and the ONNX parser.

#include "NvInfer.h"
#include "NvInferVersion.h"
#include "utils.h"

#include <dlfcn.h>

namespace
{

//! The path libkiln was loaded from (kiln/__init__.py makes it global with RTLD_NOLOAD): the file that defines
//! getInferLibVersion, whatever its name (libnvinfer.so.10 in the build tree, libkiln.so.0 in the wheel).
std::string libraryPath()
{
    Dl_info info{};
    if (dladdr(reinterpret_cast<void const*>(&getInferLibVersion), &info) == 0 || info.dli_fname == nullptr)
    {
        return {};
    }
    return info.dli_fname;
}

} // namespace

PYBIND11_MODULE(_kiln, m)
{
    m.doc() = "kiln's TensorRT-compatible Python bindings";
    namespace kp = kiln::python;
    kp::bindEnums(m);
    kp::bindFoundational(m);
    kp::bindLogger(m);
    kp::bindCallbacks(m);
    kp::bindNetwork(m);
    kp::bindLayers(m);
    kp::bindPlugins(m);
    kp::bindBuilder(m);
    kp::bindRuntime(m);
    kp::bindRefitter(m);
#if KILN_PYTHON_WITH_ONNX
    kp::bindParser(m);
#endif
    m.attr("_tensorrt_version") = std::to_string(NV_TENSORRT_MAJOR) + "." + std::to_string(NV_TENSORRT_MINOR) + "."
        + std::to_string(NV_TENSORRT_PATCH) + "." + std::to_string(NV_TENSORRT_BUILD);
    m.attr("_kiln_version") = std::to_string(KILN_VERSION_MAJOR) + "." + std::to_string(KILN_VERSION_MINOR) + "."
        + std::to_string(KILN_VERSION_PATCH);
    m.attr("_library_path") = libraryPath();
}
