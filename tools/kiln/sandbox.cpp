// SPDX-License-Identifier: Apache-2.0
#include "sandbox.h"

#include "logger.h"

#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <streambuf>

namespace kiln_tool
{
namespace
{

using nlohmann::json;

bool writeAll(int fd, char const* data, std::size_t size) noexcept
{
    while (size > 0)
    {
        ssize_t const written = write(fd, data, size);
        if (written < 0 && errno == EINTR)
        {
            continue;
        }
        if (written <= 0)
        {
            return false;
        }
        data += written;
        size -= static_cast<std::size_t>(written);
    }
    return true;
}

//! The tool logger's stream in a child: each flushed line goes to the parent as {"log": line}. The buffer keeps its
//! capacity, so logging allocates nothing that outlives the line (the no-leak rule counts allocations).
class ChannelStreamBuf final : public std::streambuf
{
public:
    explicit ChannelStreamBuf(ChildChannel const& channel)
        : mChannel(channel)
    {
        mLine.reserve(1024);
    }

protected:
    int_type overflow(int_type c) override
    {
        if (c != traits_type::eof())
        {
            mLine.push_back(static_cast<char>(c));
        }
        return traits_type::not_eof(c);
    }
    std::streamsize xsputn(char const* s, std::streamsize n) override
    {
        mLine.append(s, static_cast<std::size_t>(n));
        return n;
    }
    int sync() override
    {
        while (!mLine.empty() && mLine.back() == '\n')
        {
            mLine.pop_back();
        }
        if (!mLine.empty())
        {
            mChannel.send(json{{"log", mLine}});
        }
        mLine.clear();
        return 0;
    }

private:
    ChildChannel const& mChannel;
    std::string mLine;
};

std::string signalText(int signal)
{
    char const* name = sigabbrev_np(signal);
    char const* description = sigdescr_np(signal);
    return std::string("was killed by SIG") + (name != nullptr ? name : std::to_string(signal)) + " ("
        + (description != nullptr ? description : "unknown signal") + ")";
}

ChildChannel const* gChannel{}; // set in a child of runInChild

// ---- Guarded calls ------------------------------------------------------------------------------------------------

sigjmp_buf gJump;
std::vector<GuardedBuffer const*> const* gBuffers{};
Fault gFault;
struct sigaction gOldSegv;
struct sigaction gOldBus;

void onFault(int signal, siginfo_t* info, void* context)
{
    for (GuardedBuffer const* buffer : *gBuffers)
    {
        if (buffer->guards(info->si_addr))
        {
            gFault.buffer = buffer;
            gFault.offset = static_cast<std::size_t>(
                static_cast<char const*>(info->si_addr) - static_cast<char*>(buffer->data()));
            gFault.access = "touched";
#if defined(__x86_64__)
            // The page-fault error code: bit 1 is set for a write.
            gFault.access = (static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_ERR] & 2) != 0 ? "wrote" : "read";
#else
            (void)context;
#endif
            siglongjmp(gJump, 1);
        }
    }
    // Not ours: the default action, when the instruction faults again on return.
    ::signal(signal, SIG_DFL);
}

} // namespace

void ChildChannel::send(json const& message) const noexcept
{
    try
    {
        std::string const line = message.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
        writeAll(mFd, line.data(), line.size());
    }
    catch (...)
    {
    }
}

void announce(char const* call) noexcept
{
    if (gChannel != nullptr)
    {
        gChannel->send(json{{"calling", call}});
    }
}

ChildOutcome runInChild(std::function<void(ChildChannel const&)> const& body, int timeoutSeconds)
{
    int fds[2];
    if (pipe(fds) != 0)
    {
        throw Failure(std::string("check-plugin: cannot make a pipe: ") + std::strerror(errno));
    }
    pid_t const pid = fork();
    if (pid < 0)
    {
        close(fds[0]);
        close(fds[1]);
        throw Failure(std::string("check-plugin: cannot fork: ") + std::strerror(errno));
    }
    if (pid == 0)
    {
        close(fds[0]);
        ChildChannel const channel(fds[1]);
        gChannel = &channel;
        ChannelStreamBuf buffer(channel);
        std::ostream stream(&buffer);
        logger().setStream(&stream);
        int status = 0;
        try
        {
            body(channel);
            channel.send(json{{"completed", true}});
        }
        catch (std::exception const& e)
        {
            channel.send(json{{"error", e.what()}});
            status = 3;
        }
        catch (...)
        {
            channel.send(json{{"error", "an exception that is not a std::exception"}});
            status = 3;
        }
        _exit(status);
    }
    close(fds[1]);
    ChildOutcome outcome;
    std::string pending;
    bool timedOut = false;
    auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSeconds);
    char chunk[4096];
    while (true)
    {
        auto const left
            = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd descriptor{fds[0], POLLIN, 0};
        int const ready = poll(&descriptor, 1, static_cast<int>(std::max<int64_t>(left.count(), 0)));
        if (ready < 0 && errno == EINTR)
        {
            continue;
        }
        if (ready == 0)
        {
            timedOut = true;
            kill(pid, SIGKILL);
            break;
        }
        ssize_t const got = read(fds[0], chunk, sizeof(chunk));
        if (got < 0 && errno == EINTR)
        {
            continue;
        }
        if (got <= 0)
        {
            break;
        }
        pending.append(chunk, static_cast<std::size_t>(got));
        for (std::size_t end = pending.find('\n'); end != std::string::npos; end = pending.find('\n'))
        {
            json message = json::parse(pending.substr(0, end), nullptr, /*allow_exceptions=*/false);
            pending.erase(0, end + 1);
            if (message.is_object() && message.contains("log"))
            {
                outcome.logs.push_back(message["log"].get<std::string>());
            }
            else if (message.is_object() && message.contains("calling"))
            {
                outcome.lastCall = message["calling"].get<std::string>();
            }
            else if (message.is_object() && message.contains("completed"))
            {
                outcome.completed = true;
            }
            else if (message.is_object() && message.contains("error"))
            {
                outcome.ending = "failed: " + message["error"].get<std::string>();
            }
            else
            {
                outcome.messages.push_back(std::move(message));
            }
        }
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    {
    }
    if (timedOut)
    {
        outcome.completed = false;
        outcome.ending = "ran past the " + std::to_string(timeoutSeconds) + " s limit (killed)";
    }
    else if (WIFSIGNALED(status))
    {
        outcome.completed = false;
        outcome.ending = signalText(WTERMSIG(status));
    }
    else if (!outcome.completed && outcome.ending.empty())
    {
        outcome.ending = "exited with status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1)
            + " before finishing";
    }
    return outcome;
}

GuardedBuffer::GuardedBuffer(std::size_t size, std::size_t alignment)
    : mSize(size)
{
    std::size_t const page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    std::size_t const padded = (size + alignment - 1) / alignment * alignment;
    std::size_t const readable = (padded + page - 1) / page * page;
    mMappingSize = std::max<std::size_t>(readable, page) + page;
    void* mapping = mmap(nullptr, mMappingSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapping == MAP_FAILED)
    {
        throw std::runtime_error(std::string("cannot map guarded memory: ") + std::strerror(errno));
    }
    mMapping = static_cast<char*>(mapping);
    mGuard = mMapping + mMappingSize - page;
    mprotect(mGuard, page, PROT_NONE);
    mData = mGuard - padded;
}

GuardedBuffer::~GuardedBuffer()
{
    munmap(mMapping, mMappingSize);
}

bool GuardedBuffer::guards(void const* address) const noexcept
{
    auto const* byte = static_cast<char const*>(address);
    return byte >= mGuard && byte < mMapping + mMappingSize;
}

std::optional<Fault> callGuarded(std::vector<GuardedBuffer const*> const& buffers, std::function<void()> const& call)
{
    gBuffers = &buffers;
    struct sigaction action
    {
    };
    action.sa_sigaction = onFault;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &gOldSegv);
    sigaction(SIGBUS, &action, &gOldBus);
    std::optional<Fault> fault;
    if (sigsetjmp(gJump, 1) == 0)
    {
        call();
    }
    else
    {
        fault = gFault;
    }
    sigaction(SIGSEGV, &gOldSegv, nullptr);
    sigaction(SIGBUS, &gOldBus, nullptr);
    gBuffers = nullptr;
    return fault;
}

} // namespace kiln_tool
