// SPDX-License-Identifier: Apache-2.0
// The builder's progress on a terminal, as trtexec shows it: an IProgressMonitor that keeps one line per phase on a
// stream and redraws it in place ("\r"), with a bar and the steps done, when the percentage changes; the finished
// phase's line stays. The tool sets it on the builder configuration only when stderr is a terminal, so logs and
// pipes get no progress lines.
//
//     TerminalProgress progress(std::cerr);
//     config->setProgressMonitor(&progress);
#pragma once

#include "NvInfer.h"

#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

namespace kiln_tool
{

class TerminalProgress final : public nvinfer1::IProgressMonitor
{
public:
    explicit TerminalProgress(std::ostream& out);

    void phaseStart(char const* phaseName, char const* parentPhase, int32_t nbSteps) noexcept override;
    bool stepComplete(char const* phaseName, int32_t step) noexcept override;
    void phaseFinish(char const* phaseName) noexcept override;

private:
    struct Phase
    {
        std::string name;
        int32_t depth{};
        int32_t steps{};
        int32_t done{};
        int32_t shownPercent{-1};
    };

    //! Redraws phase's line when its percentage changed (always when force).
    void draw(Phase& phase, bool force);

    std::ostream& mOut;
    std::mutex mMutex; // The builder may report from more than one thread.
    std::vector<Phase> mPhases;
};

//! Whether stderr is a terminal (the progress is shown there only then).
bool stderrIsTerminal() noexcept;

} // namespace kiln_tool
