// SPDX-License-Identifier: Apache-2.0
#include "plugin_library.h"

#include "logger.h"

#include <dlfcn.h>

#include <algorithm>
#include <set>

namespace kiln_tool
{
namespace
{

using namespace nvinfer1;

using GetCreatorsFn = IPluginCreatorInterface* const* (*)(int32_t&);
using GetPluginCreatorsFn = IPluginCreator* const* (*)(int32_t&);
using SetLoggerFinderFn = void (*)(ILoggerFinder*);

//! A logger finder for the library's setLoggerFinder: the tool's logger.
class ToolLoggerFinder final : public ILoggerFinder
{
public:
    ILogger* findLogger() override { return &logger(); }
};

std::string text(char const* value)
{
    return value != nullptr ? value : "";
}

//! The address of a symbol handle's library defines itself (dlsym also searches its dependencies), or nullptr.
void* ownSymbol(void* handle, char const* name)
{
    void* address = dlsym(handle, name);
    if (address == nullptr)
    {
        return nullptr;
    }
    void* libraryMap = nullptr;
    void* symbolMap = nullptr;
    Dl_info info{};
    bool const own = dlinfo(handle, RTLD_DI_LINKMAP, &libraryMap) == 0
        && dladdr1(address, &info, &symbolMap, RTLD_DL_LINKMAP) != 0 && symbolMap == libraryMap;
    return own ? address : nullptr;
}

std::set<IPluginCreatorInterface*> registeredCreators()
{
    int32_t count = 0;
    IPluginCreatorInterface* const* all = getPluginRegistry()->getAllCreators(&count);
    return std::set<IPluginCreatorInterface*>(all, all + (all != nullptr ? std::max(count, 0) : 0));
}

} // namespace

IPluginCreatorV3One* LibraryCreator::v3() const noexcept
{
    return isV3() ? static_cast<IPluginCreatorV3One*>(creator) : nullptr;
}

IPluginCreator* LibraryCreator::v2() const noexcept
{
    return isV2() ? static_cast<IPluginCreator*>(creator) : nullptr;
}

std::string LibraryCreator::interfaceText() const
{
    return kind + " " + std::to_string(major) + "." + std::to_string(minor);
}

std::string LibraryCreator::identityText() const
{
    return name + " version " + version + " namespace \"" + pluginNamespace + "\"";
}

LibraryCreator describeCreator(IPluginCreatorInterface* creator)
{
    LibraryCreator described;
    described.creator = creator;
    if (creator == nullptr)
    {
        return described;
    }
    InterfaceInfo const info = creator->getInterfaceInfo();
    described.kind = text(info.kind);
    described.major = info.major;
    described.minor = info.minor;
    if (IPluginCreatorV3One const* v3 = described.v3())
    {
        described.name = text(v3->getPluginName());
        described.version = text(v3->getPluginVersion());
        described.pluginNamespace = text(v3->getPluginNamespace());
    }
    else if (IPluginCreator const* v2 = described.v2())
    {
        described.name = text(v2->getPluginName());
        described.version = text(v2->getPluginVersion());
        described.pluginNamespace = text(v2->getPluginNamespace());
    }
    return described;
}

PluginLibrary openPluginLibrary(std::string const& path, std::string const& step)
{
    std::set<IPluginCreatorInterface*> const before = registeredCreators();
    // Kept loaded for the process's life: its creators may be registered (--staticPlugins) or referenced.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr)
    {
        char const* why = dlerror();
        throw Failure(step + ": cannot load " + path + ": " + (why != nullptr ? why : "dlopen failed"));
    }
    PluginLibrary library;
    library.path = path;
    library.handle = handle;
    for (char const* symbol : {"getCreators", "getPluginCreators", "setLoggerFinder", "setLogger"})
    {
        if (ownSymbol(handle, symbol) != nullptr)
        {
            library.entryPoints.push_back(symbol);
        }
    }
    if (auto* setFinder = reinterpret_cast<SetLoggerFinderFn>(ownSymbol(handle, "setLoggerFinder")))
    {
        static ToolLoggerFinder finder;
        setFinder(&finder);
    }
    int32_t count = 0;
    std::vector<IPluginCreatorInterface*> found;
    if (auto* getCreators = reinterpret_cast<GetCreatorsFn>(ownSymbol(handle, "getCreators")))
    {
        library.source = "getCreators";
        IPluginCreatorInterface* const* list = getCreators(count);
        found.assign(list, list + (list != nullptr ? std::max(count, 0) : 0));
    }
    else if (auto* getPluginCreators = reinterpret_cast<GetPluginCreatorsFn>(ownSymbol(handle, "getPluginCreators")))
    {
        library.source = "getPluginCreators";
        IPluginCreator* const* list = getPluginCreators(count);
        found.assign(list, list + (list != nullptr ? std::max(count, 0) : 0));
    }
    else
    {
        library.source = "static registration";
        std::set<IPluginCreatorInterface*> const after = registeredCreators();
        std::set_difference(after.begin(), after.end(), before.begin(), before.end(), std::back_inserter(found));
        if (found.empty())
        {
            throw Failure(step + ": " + path
                + " exports neither getCreators nor getPluginCreators and registered no creators while it loaded: "
                  "not a plugin library (a library loaded earlier in this process, e.g. by --staticPlugins, shows "
                  "its static registrations only the first time)");
        }
    }
    if (count < 0)
    {
        throw Failure(step + ": " + path + ": " + library.source + " reported a negative creator count ("
            + std::to_string(count) + "), which IPluginRegistry::loadLibrary refuses");
    }
    if (count > 0 && found.empty())
    {
        throw Failure(step + ": " + path + ": " + library.source + " reported " + std::to_string(count)
            + " creators but returned nullptr, which IPluginRegistry::loadLibrary refuses");
    }
    for (std::size_t i = 0; i < found.size(); ++i)
    {
        if (found[i] == nullptr)
        {
            throw Failure(step + ": " + path + ": " + library.source + " returned a null creator at index "
                + std::to_string(i) + ", which IPluginRegistry::loadLibrary refuses");
        }
        library.creators.push_back(describeCreator(found[i]));
    }
    return library;
}

} // namespace kiln_tool
