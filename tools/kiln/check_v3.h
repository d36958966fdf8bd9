// SPDX-License-Identifier: Apache-2.0
// What `kiln check-plugin`'s V3 checks share (check_v3*.cpp): owning a plugin, creating it from the case's fields,
// its capabilities (each only when it reports the interface it must; the host capability found through RTTI, as kiln
// finds it), its serialized fields, attaching it to a context; and the steps each file defines. Every step runs in
// a child process of its own (check_plugin.cpp), so it may leave a plugin half-used.
#pragma once

#include "check_support.h"

#include "kiln/plugin_host.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln_tool::check_v3
{

using namespace nvinfer1;

//! Deletes a V3 plugin (its destructor is public), telling the parent first in case it crashes.
struct V3Deleter
{
    void operator()(IPluginV3* plugin) const noexcept
    {
        announce("delete (the plugin's destructor)");
        delete plugin;
    }
};
using V3Ptr = std::unique_ptr<IPluginV3, V3Deleter>;

//! A plugin's capabilities, each only when it reports the interface it must.
struct Capabilities
{
    IPluginV3OneCore* core{};
    IPluginV3OneBuild* build{};
    IPluginV3OneRuntime* runtime{};
    kiln::IPluginV3OneHost* host{};
    std::string problem; //!< The first capability that is missing or reports another interface.
    std::string seen;    //!< "PLUGIN_V3ONE_CORE 1.0, ..." for the report.
};

//! "\"PLUGIN_V3ONE_CORE\" 1.0".
std::string infoText(InterfaceInfo const& info);

//! createPlugin("check_plugin", fields, phase) of the case's creator, owned.
V3Ptr create(CreatorCase const& c, TensorRTPhase phase, PluginFieldCollection const* fields);

//! The plugin createPlugin(kBUILD) makes from the case's fields; a StepSkipped when there is none.
V3Ptr sampleCreate(CreatorCase const& c);

//! plugin's capabilities, each null when missing or reporting another interface (problem says which).
Capabilities capabilitiesOf(IPluginV3& plugin);

//! plugin's capabilities; a StepSkipped when core, build or runtime is unusable.
Capabilities usableCapabilities(IPluginV3& plugin, char const* whose = "the plugin's");

//! A copy of what getFieldsToSerialize returns; problem says what is wrong with it.
FieldSet serializedFields(IPluginV3OneRuntime& runtime, std::string& problem);

//! attachToContext(context) as an owned object; nullptr when it returned null or the plugin itself (which is then
//! not deleted twice: self says so).
V3Ptr attach(IPluginV3& plugin, IPluginV3OneRuntime& runtime, IPluginResourceContext& context, bool* self = nullptr);

//! "Name version V namespace \"ns\"" as the core capability reports it.
std::string identityOf(IPluginV3OneCore const& core);

// check_v3_objects.cpp: the plugin objects' life.
Finding checkCreate(CreatorCase const& c);
std::vector<Finding> checkIdentity(CreatorCase const& c);
std::vector<Finding> checkCapabilities(CreatorCase const& c);
std::vector<Finding> checkFieldsRoundTrip(CreatorCase const& c);
std::vector<Finding> checkClone(CreatorCase const& c);
std::vector<Finding> checkAttach(CreatorCase const& c);
std::vector<Finding> checkResources(CreatorCase const& c);
std::vector<Finding> checkLeak(CreatorCase const& c);

// check_v3_formats.cpp: sample inputs, formats, output shapes.
ProbeResult probe(CreatorCase const& c);
std::vector<Finding> checkFormatWithinPos(CreatorCase const& c);
std::vector<Finding> checkFormatConsistent(CreatorCase const& c);
std::vector<Finding> checkOutputShapes(CreatorCase const& c);

// check_v3_enqueue.cpp: enqueueHost on guarded buffers.
std::vector<Finding> checkEnqueue(CreatorCase const& c);

} // namespace kiln_tool::check_v3
