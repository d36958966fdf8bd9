// Must fail: NvInferRuntimeBase.h is internal. Included directly, before any public header has pulled it in, it
// hits its static_assert "Do not directly include this file. Include NvInferRuntime.h or NvInferPluginUtils.h"
// (spec 1.2). The control build (KILN_CONTROL) includes NvInferRuntime.h first and must compile: the assert sits
// inside the include guard.

#if defined(KILN_CONTROL)
#include "NvInferRuntime.h"
#endif
#include "NvInferRuntimeBase.h"
