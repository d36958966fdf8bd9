// SPDX-License-Identifier: Apache-2.0
#include "network/report.h"

#include <cstdio>

namespace kiln
{

namespace message
{
void append(std::string& out, double value)
{
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%g", value);
    out += buffer;
}

void append(std::string& out, nvinfer1::Dims const& dims)
{
    if (dims.nbDims < 0 || dims.nbDims > nvinfer1::Dims::MAX_DIMS)
    {
        out += dims.nbDims == -1 ? "[unknown rank]" : "[rank " + std::to_string(dims.nbDims) + "]";
        return;
    }
    out += '[';
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        out += i == 0 ? "" : ", ";
        out += std::to_string(dims.d[i]);
    }
    out += ']';
}
} // namespace message

Reporter::~Reporter() noexcept
{
    setRecorder(nullptr);
}

void Reporter::setRecorder(nvinfer1::IErrorRecorder* recorder) noexcept
{
    if (recorder == mRecorder)
    {
        return;
    }
    if (recorder != nullptr)
    {
        recorder->incRefCount();
    }
    if (mRecorder != nullptr)
    {
        mRecorder->decRefCount();
    }
    mRecorder = recorder;
}

void Reporter::emit(nvinfer1::ErrorCode code, std::string const& message) const noexcept
{
    log(Severity::kERROR, message);
    if (mRecorder == nullptr)
    {
        return;
    }
    try
    {
        std::string description = message;
        if (description.size() > nvinfer1::IErrorRecorder::kMAX_DESC_LENGTH)
        {
            description.resize(nvinfer1::IErrorRecorder::kMAX_DESC_LENGTH - 3);
            description += "...";
        }
        mRecorder->reportError(code, description.c_str());
    }
    catch (...)
    {
        log(Severity::kINTERNAL_ERROR, "out of memory while reporting an error to the error recorder");
    }
}

} // namespace kiln
