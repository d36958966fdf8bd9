// SPDX-License-Identifier: Apache-2.0
// Finding a V3 plugin's host capability (kiln::IPluginV3OneHost, include/kiln/plugin_host.h) without calling the plugin
// outside TensorRT's contract: getCapabilityInterface() only ever sees kCORE, kBUILD and kRUNTIME, unless the plugin
// opted in. Two opt-ins, both explicit:
//
// 1. The plugin's class derives publicly from kiln::IPluginV3OneHost and carries RTTI (the compiler's default): kiln
//    finds that base with a cross-cast on the object's own type information, without calling the plugin. An object
//    compiled with -fno-rtti has no type information in its vtable, and kiln sees that before casting.
// 2. Its name, version and namespace were declared with kilnRegisterPluginV3Host(): kiln then asks
//    getCapabilityInterface(kiln::kPLUGIN_CAPABILITY_HOST), as the plugin promised to answer it (for plugins built
//    with -fno-rtti, or whose host capability is an object of its own).
//
// Either way the capability is trusted only if its interface info says "KILN_PLUGIN_V3ONE_HOST" version 1.
#pragma once

#include "NvInferRuntime.h"
#include "core/error.h"
#include "kiln/plugin_host.h"
#include "network/params.h"

#include <string>

namespace kiln
{

//! plugin's host capability, or nullptr when it did not opt in (or offers another version).
IPluginV3OneHost* findHostCapability(nvinfer1::IPluginV3& plugin) noexcept;

//! Why plugin cannot run on the host backend, naming it and saying how to opt in. Meant for a plugin
//! findHostCapability() did not find.
std::string hostCapabilityProblem(nvinfer1::IPluginV3& plugin);

//! plugin's host capability, or an error (kUNSUPPORTED_STATE) with hostCapabilityProblem()'s message.
Expected<IPluginV3OneHost*> requireHostCapability(nvinfer1::IPluginV3& plugin);

//! Declares that the plugins of identity answer getCapabilityInterface(kPLUGIN_CAPABILITY_HOST); false when declared
//! already.
bool declareV3Host(PluginIdentity const& identity);

//! Withdraws identity's declaration; false when there is none.
bool withdrawV3Host(PluginIdentity const& identity);

} // namespace kiln
