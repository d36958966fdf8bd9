// SPDX-License-Identifier: Apache-2.0
// `kiln check-plugin LIBRARY`: loads a plugin library the way kiln's registry does (plugin_library.h) and proves each
// creator's contract without a GPU where it can, rule by rule (check_rules.cpp lists them: fields round trip, clone
// fidelity, supportsFormatCombination within pos and consistent, output shapes, every output written by enqueueHost,
// nothing touched out of bounds, attachToContext, resources released, no leak, the interfaces' names and versions).
// Each finding names the creator and the rule: passed, broken (with what was seen) or skipped (with the reason).
// Every step runs in a child process of its own (sandbox.h), so a plugin that crashes or hangs breaks that step's
// rule and the report goes on.
//
// Sample inputs are found by probing (plugin_sample.h) or given: --inputs=N, --shapes=2x3x8x8,3x1x1x1, and
// --field NAME=VALUES for fields whose declared data is null. --creator NAME checks only that creator; --json prints
// one JSON object; --list-rules prints the rules. Exit status: 0 when no rule is broken, 1 when one is (or the library
// cannot be loaded), 2 for usage errors.
//
//     kiln check-plugin libmy_plugins.so
//     kiln check-plugin libidentity_conv.so --field=kernel_shape=1,1 --field=strides=1,1 --field=group=3 --json
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace kiln_tool
{

//! Runs `kiln check-plugin` with args (the words after "check-plugin"); returns the exit status.
int runCheckPlugin(std::vector<std::string> const& args, std::ostream& out, std::ostream& err);

} // namespace kiln_tool
