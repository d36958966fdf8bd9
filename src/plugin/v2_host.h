// SPDX-License-Identifier: Apache-2.0
// The process-wide table of V2 host runners (kiln::IPluginV2HostRunner, include/kiln/plugin_host.h): the exported
// kilnRegisterPluginV2HostRunner / kilnDeregisterPluginV2HostRunner fill it; the builder and the runtime look a V2
// plugin's runner up by the plugin's name, version and namespace when the engine runs on the host backend. A runner is
// recognised by its interface info {"KILN_PLUGIN_V2_HOST_RUNNER", 1, x}, never by RTTI. Guarded by one mutex.
//
//     auto runner = requireV2HostRunner(params.identity);   // error: names the plugin, says how to register one
//     runner.value()->enqueueHost(*plugin, inputDescs, outputDescs, inputs, outputs, workspace);
#pragma once

#include "core/error.h"
#include "kiln/plugin_host.h"
#include "network/params.h"

#include <functional>
#include <optional>
#include <string>

namespace kiln
{

//! Registers runner for identity; false (with the reason in *why) when one is registered already or runner does not
//! report "KILN_PLUGIN_V2_HOST_RUNNER" major 1.
bool registerV2HostRunner(PluginIdentity const& identity, IPluginV2HostRunner& runner, std::string* why);

//! Removes identity's runner; false when there is none.
bool deregisterV2HostRunner(PluginIdentity const& identity);

//! The runner registered for identity, or nullptr.
IPluginV2HostRunner* findV2HostRunner(PluginIdentity const& identity);

//! The runner registered for identity, or an error (kUNSUPPORTED_STATE) that names the plugin and says how to register
//! one.
Expected<IPluginV2HostRunner*> requireV2HostRunner(PluginIdentity const& identity);

//! The body of kiln's C entry points that take a plugin's name, version and namespace (nullptr: ""): runs
//! what(identity), which returns why it failed or nothing. Returns true on success; false, after logging an error that
//! opens with where and names the plugin, when name or version is null, what fails, or memory runs out.
bool identityEntryPoint(char const* where, char const* name, char const* version, char const* pluginNamespace,
    std::function<std::optional<std::string>(PluginIdentity const&)> const& what) noexcept;

} // namespace kiln
