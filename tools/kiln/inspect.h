// SPDX-License-Identifier: Apache-2.0
// `kiln inspect FILE`: what a plan, an ONNX model or a plugin library holds, through the public API only. Text for
// people, `--json` for tools (one JSON object on stdout).
// - A plan (any other file): its I/O tensors (mode, type, shape, format, location), optimization profiles (each
//   input's min, opt and max), device memory, layers (type, inputs and outputs with formats, the tactic chosen), and
//   the plugin inventory: each creator its plugin layers need (name, version, namespace, interface, layers) and
//   whether its library travels in the plan; and the plugin libraries the plan carries (--setPluginsToSerialize):
//   name, size, checksum, whether they were loaded, and their creators. Loading such a plan needs their creators
//   registered (--staticPlugins, --dynamicPlugins) or `--allowEngineHostCode`, which lets the libraries load; without
//   either kiln refuses the plan, naming the libraries.
// - An ONNX model (`.onnx`): parsed into a network with kiln's parser; inputs, outputs, layers by type, the nodes that
//   became plugins with their creators, the plugin libraries the parser used; a model the parser refuses lists the
//   errors with their nodes.
// - A plugin library (an ELF file), loaded as IPluginRegistry::loadLibrary loads one (plugin_library.h): the
//   creators its getCreators (or getPluginCreators, or its static registrations) offers, each with name, version,
//   namespace, the interface it implements and its fields.
// `--staticPlugins` and `--dynamicPlugins` load libraries first, as in the build-and-run mode. Exit status: 0, 1 when
// the file cannot be read as what it is, 2 for usage errors.
//
//     kiln inspect model.plan --staticPlugins=libmy_plugins.so
//     kiln inspect model.onnx --json
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace kiln_tool
{

//! Runs `kiln inspect` with args (the words after "inspect"); returns the exit status.
int runInspect(std::vector<std::string> const& args, std::ostream& out, std::ostream& err);

} // namespace kiln_tool
