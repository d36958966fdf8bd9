// SPDX-License-Identifier: Apache-2.0
// libraries.h -- the libraries of kiln the module opens at run time instead of linking: the standard plugin library
// (init_libnvinfer_plugins) and the ONNX parser. kiln/__init__.py loads the module with RTLD_GLOBAL, and with it every
// library the module links, so that libraries opened later (cuDNN's engines, plugin libraries) find libnvinfer's
// symbols. The parser links libonnx and protobuf; linked by the module, they joined the process's global scope and
// took the place of the copies other extensions carry (the onnx wheel's: its calls went to Debian's libprotobuf and
// crashed). Opened here with RTLD_LOCAL, they serve the parser alone.
//
//     auto const& parser = kiln::python::onnxParserLibrary();   // std::runtime_error if it cannot be loaded
//     void* p = parser.createParser(&network, &logger, NV_ONNX_PARSER_VERSION);

#ifndef KILN_PYTHON_LIBRARIES_H
#define KILN_PYTHON_LIBRARIES_H

#include <cstdint>
#include <string>

namespace kiln::python
{

//! Opens kiln's library name (a soname) with dlopen flags: first the file beside libnvinfer (the wheel's kiln/, an
//! install's lib/), then by name (the module's RUNPATH, which leads into the build tree; LD_LIBRARY_PATH; the
//! system's). The handle, or nullptr with problem set to the loader's last error. Handles are kept for the process.
void* openKilnLibrary(char const* name, int flags, std::string& problem);

//! The ONNX parser library's entry points (NvOnnxParser.h's extern "C" functions).
struct OnnxParserLibrary
{
    void* (*createParser)(void* network, void* logger, int version) noexcept;
    void* (*createRefitter)(void* refitter, void* logger, std::int32_t version) noexcept;
    int (*version)() noexcept;
};

//! The parser library, opened on first use with RTLD_NOW | RTLD_LOCAL (see above); std::runtime_error naming the
//! library and the loader's error when it cannot be opened or lacks an entry point (a later call tries again).
OnnxParserLibrary const& onnxParserLibrary();

} // namespace kiln::python

#endif // KILN_PYTHON_LIBRARIES_H
