// SPDX-License-Identifier: Apache-2.0
// Finding a V3 plugin's host capability (kiln::IPluginV3OneHost, include/kiln/plugin_host.h), without RTTI: ask
// getCapabilityInterface(kPLUGIN_CAPABILITY_HOST) and trust the answer only if its interface info says
// "KILN_PLUGIN_V3ONE_HOST" version 1. Many plugins answer an unknown capability type with some other capability
// (often the core one) instead of nullptr; the interface info tells those apart.
#pragma once

#include "NvInferRuntime.h"
#include "core/error.h"
#include "kiln/plugin_host.h"

#include <string>

namespace kiln
{

//! plugin's host capability, or nullptr when it does not offer one.
IPluginV3OneHost* findHostCapability(nvinfer1::IPluginV3& plugin) noexcept;

//! Why plugin cannot run on the host backend, naming it: what getCapabilityInterface(kPLUGIN_CAPABILITY_HOST)
//! returned instead of an IPluginV3OneHost. Meant for a plugin findHostCapability() did not find.
std::string hostCapabilityProblem(nvinfer1::IPluginV3& plugin);

//! plugin's host capability, or an error (kUNSUPPORTED_STATE) with hostCapabilityProblem()'s message.
Expected<IPluginV3OneHost*> requireHostCapability(nvinfer1::IPluginV3& plugin);

} // namespace kiln
