// Must fail: IPluginV3OneBuild::getOutputDataTypes is const (spec 4.5, 9.3: const, unlike getOutputShapes). An
// override without const overrides nothing, so `override` is an error. The control build adds the const.

#include "full_v3_plugin.h"

#if defined(KILN_CONTROL)
#define KILN_TEST_CONST const
#else
#define KILN_TEST_CONST
#endif

class MutablePlugin : public kiln_test::FullV3Plugin
{
public:
    int32_t getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t nbOutputs, nvinfer1::DataType const* inputTypes,
        int32_t nbInputs) KILN_TEST_CONST noexcept override
    {
        return kiln_test::FullV3Plugin::getOutputDataTypes(outputTypes, nbOutputs, inputTypes, nbInputs);
    }
};
