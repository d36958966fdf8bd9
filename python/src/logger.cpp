// SPDX-License-Identifier: Apache-2.0
// logger.cpp -- ILogger (subclassable in Python: log(severity, msg) is called with the GIL taken, from whichever
// thread logs; an exception it raises is printed and goes no further) and Logger, TensorRT's built-in logger that
// prints "[MM/DD/YYYY-HH:MM:SS] [TRT] [X] msg" to stdout for messages at or above its min_severity.

#include "kiln/kiln.h"
#include "utils.h"

#include <cstdio>
#include <ctime>
#include <mutex>

namespace kiln::python
{
namespace
{

using Severity = nvinfer1::ILogger::Severity;

//! Detaches logger from libkiln when it is the library's current logger, so that nothing logs to it once Python has
//! freed it (libkiln keeps the logger of the latest builder or runtime, which may outlive them).
void forgetLogger(nvinfer1::ILogger const* logger) noexcept
{
    if (getLogger() == logger)
    {
        kilnSetLogger(nullptr);
    }
}

//! The trampoline behind Python subclasses of ILogger.
class PyILogger : public nvinfer1::ILogger
{
public:
    PyILogger() = default;
    PyILogger(PyILogger const&) = delete;
    PyILogger& operator=(PyILogger const&) = delete;
    ~PyILogger() override { forgetLogger(this); }

    void log(Severity severity, nvinfer1::AsciiChar const* msg) noexcept override
    {
        py::gil_scoped_acquire gil;
        try
        {
            py::function const override = py::get_override(static_cast<nvinfer1::ILogger const*>(this), "log");
            if (!override)
            {
                reportMissingOverride("log");
                return;
            }
            override(severity, textToStr(msg));
        }
        catch (py::error_already_set& e)
        {
            reportCallbackError("log", e.what());
        }
        catch (std::exception const& e)
        {
            reportCallbackError("log", e.what());
        }
    }
};

//! TensorRT's Logger: prints messages at or above minSeverity to stdout.
class Logger : public nvinfer1::ILogger
{
public:
    explicit Logger(Severity minSeverity)
        : mMinSeverity(minSeverity)
    {
    }
    Logger(Logger const&) = delete;
    Logger& operator=(Logger const&) = delete;
    ~Logger() override { forgetLogger(this); }

    void log(Severity severity, nvinfer1::AsciiChar const* msg) noexcept override
    {
        if (static_cast<int32_t>(severity) > static_cast<int32_t>(mMinSeverity))
        {
            return;
        }
        static char const kLetters[] = {'F', 'E', 'W', 'I', 'V'};
        auto const index = static_cast<std::size_t>(severity);
        char const letter = index < sizeof(kLetters) ? kLetters[index] : '?';
        std::time_t const now = std::time(nullptr);
        std::tm local{};
        localtime_r(&now, &local);
        char stamp[32];
        std::strftime(stamp, sizeof(stamp), "%m/%d/%Y-%H:%M:%S", &local);
        static std::mutex printing;
        std::lock_guard<std::mutex> const lock(printing);
        std::printf("[%s] [TRT] [%c] %s\n", stamp, letter, msg != nullptr ? msg : "");
        std::fflush(stdout);
    }

    Severity mMinSeverity;
};

} // namespace

void bindLogger(py::module_& m)
{
    py::class_<nvinfer1::ILogger, PyILogger> logger(m, "ILogger", py::module_local());
    py::enum_<Severity>(logger, "Severity", py::arithmetic(), py::module_local())
        .value("INTERNAL_ERROR", Severity::kINTERNAL_ERROR)
        .value("ERROR", Severity::kERROR)
        .value("WARNING", Severity::kWARNING)
        .value("INFO", Severity::kINFO)
        .value("VERBOSE", Severity::kVERBOSE)
        .export_values();
    logger.def(py::init<>()).def("log", &nvinfer1::ILogger::log, py::arg("severity"), py::arg("msg"));

    py::class_<Logger, nvinfer1::ILogger>(m, "Logger", py::module_local())
        .def(py::init<Severity>(), py::arg("min_severity") = Severity::kWARNING)
        .def_readwrite("min_severity", &Logger::mMinSeverity)
        .def(
            "log", [](Logger& self, Severity severity, std::string const& msg) { self.log(severity, msg.c_str()); },
            py::arg("severity"), py::arg("msg"));
}

} // namespace kiln::python
