// SPDX-License-Identifier: Apache-2.0
// Running plugin code where it cannot take `kiln check-plugin` down, and catching the reads and writes it must not
// make.
// - runInChild() runs a function in a forked child process. The child sends JSON messages back through a pipe (and
//   the tool logger's lines, so that a plugin's log reaches the report); a crash, a non-zero exit or a hang (killed
//   after a time limit) comes back as how the child ended, never as the parent's end.
// - GuardedBuffer is memory whose end touches an inaccessible page; callGuarded() runs a call and turns an access to
//   such a page into a Fault (where, in which buffer) instead of a crash, so the caller can say "read inOut[2]" or
//   "wrote past the end of output 0". Other faults still kill the process (the child, when inside runInChild).
//
//     ChildOutcome const outcome = runInChild([&](ChildChannel const& channel) {
//         GuardedBuffer descs(2 * sizeof(PluginTensorDesc));
//         std::optional<Fault> const fault = callGuarded({&descs}, [&] { plugin.supportsFormatCombination(...); });
//         channel.send({{"fault", fault.has_value()}});
//     }, 30);
//     if (!outcome.completed) ... outcome.ending   // "was killed by SIGSEGV (Segmentation fault)"
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kiln_tool
{

//! A child's way back to its parent: one JSON value per line through a pipe.
class ChildChannel
{
public:
    explicit ChildChannel(int fd) noexcept
        : mFd(fd)
    {
    }
    //! Sends message (whole, or not at all when the parent has gone).
    void send(nlohmann::json const& message) const noexcept;

private:
    int mFd;
};

//! What a child sent and how it ended.
struct ChildOutcome
{
    std::vector<nlohmann::json> messages; //!< In the order sent.
    std::vector<std::string> logs;        //!< The tool logger's lines in the child (plugins log through it).
    std::string lastCall;                 //!< The last call announced (announce()) before it ended.
    bool completed{};                     //!< The function returned.
    //! When not completed, as a predicate: "was killed by SIGSEGV (Segmentation fault)", "ran past the 30 s limit
    //! (killed)", "exited with status 1 before finishing".
    std::string ending;
};

//! Runs body in a forked child process; what it sent, logged, and how it ended come back. The child ends with
//! _exit (no static destructors, no atexit handlers) and is killed after timeoutSeconds.
ChildOutcome runInChild(std::function<void(ChildChannel const&)> const& body, int timeoutSeconds);

//! Inside runInChild: tells the parent that the child is about to make call ("enqueueHost"), so that a crash can be
//! placed; a no-op elsewhere.
void announce(char const* call) noexcept;

//! size bytes (at an alignment-aligned address) ending less than alignment bytes before an inaccessible page: an
//! access just past the end, or further, faults. Owned mappings, unmapped when destroyed; the bytes start zeroed.
class GuardedBuffer
{
public:
    explicit GuardedBuffer(std::size_t size, std::size_t alignment = 16);
    ~GuardedBuffer();
    GuardedBuffer(GuardedBuffer const&) = delete;
    GuardedBuffer& operator=(GuardedBuffer const&) = delete;

    void* data() const noexcept { return mData; }
    std::size_t size() const noexcept { return mSize; }
    //! The bytes between the end of data and the guard page (fewer than the alignment).
    std::size_t gap() const noexcept { return mGuard - (static_cast<char*>(mData) + mSize); }
    //! Whether address lies in the guard page.
    bool guards(void const* address) const noexcept;

private:
    char* mMapping{};
    std::size_t mMappingSize{};
    char* mGuard{};
    void* mData{};
    std::size_t mSize{};
};

//! Where a guarded call touched a guard page.
struct Fault
{
    GuardedBuffer const* buffer{};
    std::size_t offset{};          //!< Bytes from the buffer's data() to the faulting address.
    char const* access{"touched"}; //!< "read" or "wrote" where the processor says (x86-64), else "touched".
};

//! Calls call; an access to the guard page of one of buffers stops it there and comes back as the Fault (the call's
//! own frames are abandoned, not unwound). Any other fault is left to kill the process. Not reentrant.
std::optional<Fault> callGuarded(std::vector<GuardedBuffer const*> const& buffers, std::function<void()> const& call);

} // namespace kiln_tool
