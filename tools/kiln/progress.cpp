// SPDX-License-Identifier: Apache-2.0
#include "progress.h"

#include <unistd.h>

#include <algorithm>

namespace kiln_tool
{

TerminalProgress::TerminalProgress(std::ostream& out)
    : mOut(out)
{
}

void TerminalProgress::phaseStart(char const* phaseName, char const* parentPhase, int32_t nbSteps) noexcept
{
    std::lock_guard<std::mutex> const lock(mMutex);
    int32_t depth = 0;
    if (parentPhase != nullptr)
    {
        auto const parent = std::find_if(
            mPhases.begin(), mPhases.end(), [&](Phase const& phase) { return phase.name == parentPhase; });
        depth = parent != mPhases.end() ? parent->depth + 1 : 0;
    }
    mPhases.push_back(Phase{phaseName != nullptr ? phaseName : "", depth, std::max(nbSteps, 0), 0, -1});
    draw(mPhases.back(), true);
}

bool TerminalProgress::stepComplete(char const* phaseName, int32_t step) noexcept
{
    std::lock_guard<std::mutex> const lock(mMutex);
    auto const phase = std::find_if(
        mPhases.rbegin(), mPhases.rend(), [&](Phase const& p) { return phaseName != nullptr && p.name == phaseName; });
    if (phase != mPhases.rend())
    {
        phase->done = std::max(phase->done, step + 1);
        draw(*phase, false);
    }
    return true; // The tool never cancels a build.
}

void TerminalProgress::phaseFinish(char const* phaseName) noexcept
{
    std::lock_guard<std::mutex> const lock(mMutex);
    auto const phase = std::find_if(
        mPhases.rbegin(), mPhases.rend(), [&](Phase const& p) { return phaseName != nullptr && p.name == phaseName; });
    if (phase == mPhases.rend())
    {
        return;
    }
    phase->done = phase->steps;
    draw(*phase, true);
    mOut << "\n";
    mOut.flush();
    mPhases.erase(std::next(phase).base());
}

void TerminalProgress::draw(Phase& phase, bool force)
{
    constexpr int32_t kWidth = 30;
    int32_t const percent = phase.steps > 0 ? static_cast<int32_t>(int64_t{100} * phase.done / phase.steps) : 100;
    if (!force && percent == phase.shownPercent)
    {
        return;
    }
    phase.shownPercent = percent;
    int32_t const filled = percent * kWidth / 100;
    mOut << "\r" << std::string(static_cast<std::size_t>(2 * phase.depth), ' ') << "[" << phase.name << "] ["
         << std::string(static_cast<std::size_t>(filled), '=')
         << std::string(static_cast<std::size_t>(kWidth - filled), ' ') << "] " << percent << "% (" << phase.done << "/"
         << phase.steps << ")";
    mOut.flush();
}

bool stderrIsTerminal() noexcept
{
    return isatty(STDERR_FILENO) == 1;
}

} // namespace kiln_tool
