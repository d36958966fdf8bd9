// Must fail: IPluginV2DynamicExt makes the implicit-batch enqueue(int32_t, void const* const*, void* const*, void*,
// cudaStream_t) a private `final` override (spec 6.4), so a dynamic-shape plugin that still overrides it does not
// compile ("overriding final function"). The control build overrides the dynamic-shape enqueue instead.

#include "NvInferRuntime.h"

class StaleDynamicPlugin : public nvinfer1::IPluginV2DynamicExt
{
public:
#if defined(KILN_CONTROL)
    int32_t enqueue(nvinfer1::PluginTensorDesc const* /*inputDesc*/, nvinfer1::PluginTensorDesc const* /*outputDesc*/,
        void const* const* /*inputs*/, void* const* /*outputs*/, void* /*workspace*/,
        cudaStream_t /*stream*/) noexcept override
    {
        return 0;
    }
#else
    int32_t enqueue(int32_t /*batchSize*/, void const* const* /*inputs*/, void* const* /*outputs*/, void* /*workspace*/,
        cudaStream_t /*stream*/) noexcept override
    {
        return 0;
    }
#endif
};
