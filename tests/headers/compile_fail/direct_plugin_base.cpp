// Must fail: NvInferPluginBase.h is internal. Included directly, before any public header has pulled it in, it
// hits its static_assert "Do not directly include this file. Include NvInferRuntime.h or NvInferPluginUtils.h"
// (spec 1.2). The control build (KILN_CONTROL) includes NvInferPluginUtils.h first and must compile.

#if defined(KILN_CONTROL)
#include "NvInferPluginUtils.h"
#endif
#include "NvInferPluginBase.h"
