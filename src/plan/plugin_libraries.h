// SPDX-License-Identifier: Apache-2.0
// The plugin libraries a plan carries (EngineModel::pluginLibraries; IBuilderConfig::setPluginsToSerialize): the
// model checks of their records, which the plan writer and reader run with the others (plan/model_check.h), and how
// messages name them. The builder fills the records (builder/plugin_libraries.h); the runtime loads the libraries
// (runtime/plan_libraries.h).
//
//     if (auto problem = pluginLibrariesProblem(model)) { ... "plugin library 0 (\"libx.so\"): its bytes ..." }
#pragma once

#include "plan/engine_model.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace kiln
{

//! A library's file name is at most this long (a file name on Linux).
inline constexpr std::size_t kMaxPluginLibraryName = 255;

//! The checksum a PluginLibraryRecord stores for bytes: CRC-64/XZ.
uint64_t pluginLibraryChecksum(std::span<uint8_t const> bytes) noexcept;

//! `plugin library 0 ("libx.so")`: how messages name model.pluginLibraries[index].
std::string pluginLibraryText(EngineModel const& model, std::size_t index);

//! `"libx.so" (plugin "A" version "1" namespace "", plugin "B" ...)`: a library and the creators it provides.
std::string describePluginLibrary(PluginLibraryRecord const& library);

//! The first problem of model's plugin libraries, or std::nullopt: a name that is empty, longer than
//! kMaxPluginLibraryName, holds a '/' or a NUL, or is another library's too; no bytes; bytes that do not match their
//! checksum; a creator whose name or version is empty, whose strings are longer than 1023 bytes or hold a NUL, whose
//! kind is unknown, or that another creator of the plan has too.
std::optional<std::string> pluginLibrariesProblem(EngineModel const& model);

} // namespace kiln
