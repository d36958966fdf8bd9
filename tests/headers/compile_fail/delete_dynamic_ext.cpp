// Must fail: IPluginV2DynamicExt's destructor is protected (spec 6.4, 9.3), so `delete` through an
// IPluginV2DynamicExt* does not compile; V2 plugins are freed with destroy(). The control build calls destroy().

#include "NvInferRuntime.h"

void kilnRelease(nvinfer1::IPluginV2DynamicExt* plugin);
void kilnRelease(nvinfer1::IPluginV2DynamicExt* plugin)
{
#if defined(KILN_CONTROL)
    plugin->destroy();
#else
    delete plugin;
#endif
}
