// Must fail: IPluginRegistry's destructor is protected (spec 5.1): the registry belongs to the library and cannot
// be deleted through the pointer getPluginRegistry() returns. The control build only uses the pointer.

#include "NvInferRuntime.h"

bool kilnDropRegistry();
bool kilnDropRegistry()
{
    nvinfer1::IPluginRegistry* const registry = getPluginRegistry();
#if !defined(KILN_CONTROL)
    delete registry;
#endif
    return registry != nullptr;
}
