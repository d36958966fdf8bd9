// Must fail: IStreamWriter's getInterfaceInfo is `final` (spec 5.10, 10.13-10.16): an application writer cannot
// report another kind. The control build leaves getInterfaceInfo alone and implements write only.

#include "NvInferRuntime.h"

class RenamedWriter : public nvinfer1::IStreamWriter
{
public:
    int64_t write(void const* /*data*/, int64_t nbBytes) override { return nbBytes; }

#if !defined(KILN_CONTROL)
    nvinfer1::InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return nvinfer1::InterfaceInfo{"RenamedWriter", 1, 0};
    }
#endif
};
