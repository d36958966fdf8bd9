// SPDX-License-Identifier: Apache-2.0
// libraries.cpp -- opening kiln's libraries at run time (libraries.h says why).

#include "libraries.h"

#include "NvInfer.h"

#include <dlfcn.h>

#include <stdexcept>
#include <vector>

#ifndef KILN_ONNXPARSER_LIBRARY
#define KILN_ONNXPARSER_LIBRARY "libnvonnxparser.so.10"
#endif

namespace kiln::python
{

void* openKilnLibrary(char const* name, int flags, std::string& problem)
{
    std::vector<std::string> candidates;
    Dl_info info{};
    if (dladdr(reinterpret_cast<void const*>(&getPluginRegistry), &info) != 0 && info.dli_fname != nullptr)
    {
        std::string const path = info.dli_fname;
        std::size_t const slash = path.find_last_of('/');
        if (slash != std::string::npos)
        {
            candidates.push_back(path.substr(0, slash + 1) + name);
        }
    }
    candidates.emplace_back(name);
    for (std::string const& candidate : candidates)
    {
        if (void* const handle = dlopen(candidate.c_str(), flags))
        {
            return handle;
        }
        char const* const error = dlerror();
        problem = error != nullptr ? error : candidate + " could not be loaded";
    }
    return nullptr;
}

namespace
{

template <typename Function>
void findEntryPoint(void* handle, char const* symbol, Function& function)
{
    function = reinterpret_cast<Function>(dlsym(handle, symbol));
    if (function == nullptr)
    {
        throw std::runtime_error(
            std::string("kiln's ONNX parser library ") + KILN_ONNXPARSER_LIBRARY + " has no " + symbol);
    }
}

OnnxParserLibrary openOnnxParserLibrary()
{
    std::string problem;
    void* const handle = openKilnLibrary(KILN_ONNXPARSER_LIBRARY, RTLD_NOW | RTLD_LOCAL, problem);
    if (handle == nullptr)
    {
        throw std::runtime_error(
            std::string("kiln's ONNX parser library ") + KILN_ONNXPARSER_LIBRARY + " could not be loaded: " + problem);
    }
    OnnxParserLibrary library{};
    findEntryPoint(handle, "createNvOnnxParser_INTERNAL", library.createParser);
    findEntryPoint(handle, "createNvOnnxParserRefitter_INTERNAL", library.createRefitter);
    findEntryPoint(handle, "getNvOnnxParserVersion", library.version);
    return library;
}

} // namespace

OnnxParserLibrary const& onnxParserLibrary()
{
    // A throwing initializer leaves the static uninitialized: the next call tries again.
    static OnnxParserLibrary const library = openOnnxParserLibrary();
    return library;
}

} // namespace kiln::python
