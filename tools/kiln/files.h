// SPDX-License-Identifier: Apache-2.0
// Whole-file reads and writes for the kiln tool's flags (--loadEngine, --saveEngine, --timingCacheFile,
// --loadInputs); a failure is a Failure that names the flag and the file.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace kiln_tool
{

//! The bytes of path; flag names what asked for it in the error.
std::vector<char> readFile(std::string const& path, std::string const& flag);

//! Writes size bytes at data to path, replacing it.
void writeFile(std::string const& path, void const* data, std::size_t size, std::string const& flag);

} // namespace kiln_tool
