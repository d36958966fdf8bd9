// Must fail: IPluginV3OneCore::getPluginName is noexcept (spec 4.4, 9.3); an override without noexcept has a
// looser exception specification, which is ill-formed. The control build adds the noexcept.

#include "full_v3_plugin.h"

#if defined(KILN_CONTROL)
#define KILN_TEST_NOEXCEPT noexcept
#else
#define KILN_TEST_NOEXCEPT
#endif

class LaxPlugin : public kiln_test::FullV3Plugin
{
public:
    nvinfer1::AsciiChar const* getPluginName() const KILN_TEST_NOEXCEPT override { return "LaxPlugin"; }
};
