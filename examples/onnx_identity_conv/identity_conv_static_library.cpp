// SPDX-License-Identifier: Apache-2.0
// IdentityConv as a self-registering plugin library (libkiln_identity_conv_static_plugin.so): its creator is registered
// in getPluginRegistry() when the library is loaded and deregistered when it is unloaded. This is the form that tools
// which only open a library expect: trtexec's --staticPlugins and Polygraphy's --plugins (ctypes.CDLL). The library
// exports no getCreators, so IPluginRegistry::loadLibrary does not take it; identity_conv_library.cpp is that form.
#include "identity_conv.h"

#include "NvInferRuntime.h"

namespace
{

struct Registration
{
    Registration() { getPluginRegistry()->registerCreator(identityConvCreator(), ""); }
    ~Registration() { getPluginRegistry()->deregisterCreator(identityConvCreator()); }
    Registration(Registration const&) = delete;
    Registration& operator=(Registration const&) = delete;
};

Registration const registration;

} // namespace
