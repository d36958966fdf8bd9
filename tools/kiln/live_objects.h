// SPDX-License-Identifier: Apache-2.0
// What a plugin leaves alive, counted for `kiln check-plugin`'s no-leak and resources-released rules.
//
// live_objects.cpp is compiled into every executable that links kiln_tool_core (an INTERFACE source), because only
// an executable's definitions interpose for the plugin libraries it loads:
// - the global operator new and delete, which count the allocations made with C++ new and not yet deleted, by any
//   library of the process (a plugin's objects included);
// - getPluginRegistry(), which returns kiln's registry unchanged except while counting is on: then it returns a
//   forwarding registry that counts acquirePluginResource and releasePluginResource per key. Counting is meant for a
//   check's child process, around calls into one plugin.
//
//     int64_t const before = liveAllocations();
//     ... create and destroy plugins ...
//     int64_t const left = liveAllocations() - before;
//
//     ResourceCounting counting;                   // on until destroyed
//     ... create, attach and destroy plugins ...
//     for (auto const& [key, count] : counting.counts()) ...
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace kiln_tool
{

//! The allocations made with the global operator new (every form but the aligned ones) and not yet deleted.
int64_t liveAllocations() noexcept;

//! Calls to the registry's resource methods for one key.
struct ResourceCount
{
    int64_t acquired{}; //!< acquirePluginResource calls that returned a resource.
    int64_t released{}; //!< releasePluginResource calls that returned 0.
};

//! Counts the resource calls made through getPluginRegistry() while it lives (one at a time per process).
class ResourceCounting
{
public:
    ResourceCounting();
    ~ResourceCounting();
    ResourceCounting(ResourceCounting const&) = delete;
    ResourceCounting& operator=(ResourceCounting const&) = delete;

    //! Per key, what was counted so far.
    std::map<std::string, ResourceCount> counts() const;

    //! Whether this process's getPluginRegistry() is the counting one (false when live_objects.cpp is not linked
    //! into the executable, or another definition came first).
    static bool available() noexcept;
};

} // namespace kiln_tool
