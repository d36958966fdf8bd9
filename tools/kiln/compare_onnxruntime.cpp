// SPDX-License-Identifier: Apache-2.0
// `kiln compare`'s onnxruntime runner: see compare_runners.h. The script below is written to a temporary folder at
// run time, so the tool needs no file installed beside it; Python, numpy and onnxruntime are the user's.
#include "compare_runners.h"

#include "files.h"
#include "logger.h"
#include "values.h"

#include <nlohmann/json.hpp>

#include <stdlib.h>
#include <sys/wait.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>

namespace kiln_tool
{
namespace
{

namespace fs = std::filesystem;
using nlohmann::json;

//! python SCRIPT MANIFEST. MANIFEST is JSON: {"model", "inputs": [{"name", "dtype", "shape", "file"}], "outputDir",
//! "result"}; the script writes "result": {"status": "ran" | "unavailable" | "refused" | "failed", "reason",
//! "version", "notes", "outputs": [{"name", "dtype", "shape", "file"}]}, each output a float64 raw file.
constexpr char const* kScript = R"PY(# kiln compare's ONNX Runtime runner, written by the kiln tool for one run.
import json
import os
import sys


def main():
    with open(sys.argv[1]) as f:
        manifest = json.load(f)

    def finish(**result):
        with open(manifest["result"], "w") as f:
            json.dump(result, f)

    try:
        import numpy as np
        import onnxruntime as ort
    except Exception as e:  # not installed, or an installation that does not import
        finish(status="unavailable", reason="%s: %s" % (type(e).__name__, e))
        return
    try:
        session = ort.InferenceSession(manifest["model"], providers=["CPUExecutionProvider"])
    except Exception as e:
        finish(status="refused", reason=str(e).strip(), version=ort.__version__)
        return
    try:
        numpy_types = {
            "tensor(float)": np.float32, "tensor(float16)": np.float16, "tensor(double)": np.float64,
            "tensor(int8)": np.int8, "tensor(uint8)": np.uint8, "tensor(int16)": np.int16,
            "tensor(uint16)": np.uint16, "tensor(int32)": np.int32, "tensor(uint32)": np.uint32,
            "tensor(int64)": np.int64, "tensor(uint64)": np.uint64, "tensor(bool)": np.bool_,
        }
        wanted = {i.name: i.type for i in session.get_inputs()}
        feeds = {}
        notes = []
        for given in manifest["inputs"]:
            name = given["name"]
            if name not in wanted:
                finish(status="failed", version=ort.__version__,
                       reason="ONNX Runtime's session has no input '%s' (its inputs: %s)" % (name, ", ".join(wanted)))
                return
            array = np.fromfile(given["file"], dtype=given["dtype"]).reshape(given["shape"])
            numpy_type = numpy_types.get(wanted[name])
            if numpy_type is not None and array.dtype != np.dtype(numpy_type):
                notes.append("input '%s' cast from %s to %s, its type in the model" %
                             (name, array.dtype, np.dtype(numpy_type)))
                array = array.astype(numpy_type)
            feeds[name] = array
        names = [o.name for o in session.get_outputs()]
        outputs = []
        for k, (name, value) in enumerate(zip(names, session.run(names, feeds))):
            value = np.asarray(value)
            path = os.path.join(manifest["outputDir"], "output_%d.f64" % k)
            np.ascontiguousarray(value, dtype=np.float64).tofile(path)
            outputs.append({"name": name, "dtype": str(value.dtype), "shape": [int(d) for d in value.shape],
                            "file": path})
        finish(status="ran", version=ort.__version__, notes=notes, outputs=outputs)
    except Exception as e:
        finish(status="failed", reason="%s: %s" % (type(e).__name__, str(e).strip()), version=ort.__version__)


main()
)PY";

//! A folder of its own under the system's temporary folder, removed with everything in it.
class TemporaryFolder
{
public:
    TemporaryFolder()
    {
        std::string pattern = (fs::temp_directory_path() / "kiln_compare_XXXXXX").string();
        if (mkdtemp(pattern.data()) == nullptr)
        {
            throw Failure("cannot make a temporary folder for the ONNX Runtime runner in " + pattern);
        }
        mPath = pattern;
    }
    ~TemporaryFolder()
    {
        std::error_code ignored;
        fs::remove_all(mPath, ignored);
    }
    TemporaryFolder(TemporaryFolder const&) = delete;
    TemporaryFolder& operator=(TemporaryFolder const&) = delete;

    fs::path const& path() const noexcept { return mPath; }

private:
    fs::path mPath;
};

//! numpy's name of a kiln input type; empty when numpy has none.
std::string numpyType(nvinfer1::DataType type)
{
    using nvinfer1::DataType;
    switch (type)
    {
    case DataType::kFLOAT: return "float32";
    case DataType::kHALF: return "float16";
    case DataType::kINT8: return "int8";
    case DataType::kUINT8: return "uint8";
    case DataType::kINT32: return "int32";
    case DataType::kINT64: return "int64";
    case DataType::kBOOL: return "bool";
    default: return {};
    }
}

//! kiln's type name of a numpy dtype name, so that types compare across runners ("float32" -> "FP32").
std::string kilnTypeName(std::string const& dtype)
{
    static std::map<std::string, std::string> const names{{"float32", "FP32"}, {"float16", "FP16"}, {"float64", "FP64"},
        {"int8", "INT8"}, {"uint8", "UINT8"}, {"int32", "INT32"}, {"int64", "INT64"}, {"bool", "BOOL"}};
    auto const found = names.find(dtype);
    return found != names.end() ? found->second : dtype;
}

std::string shellQuoted(std::string const& text)
{
    std::string quoted = "'";
    for (char const c : text)
    {
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return quoted + "'";
}

//! The last lines of a file, for messages.
std::string tail(fs::path const& path)
{
    std::error_code error;
    if (!fs::exists(path, error))
    {
        return {};
    }
    std::vector<char> const bytes = readFile(path.string(), "the ONNX Runtime runner");
    std::string text(bytes.begin(), bytes.end());
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
    {
        text.pop_back();
    }
    return text.size() > 600 ? "..." + text.substr(text.size() - 600) : text;
}

TensorValues readOutput(json const& entry)
{
    TensorValues values;
    values.name = entry.at("name").get<std::string>();
    values.type = kilnTypeName(entry.at("dtype").get<std::string>());
    values.dims = entry.at("shape").get<std::vector<int64_t>>();
    std::vector<char> const bytes = readFile(entry.at("file").get<std::string>(), "the ONNX Runtime runner");
    int64_t const count = elementCount(values.dims);
    if (static_cast<int64_t>(bytes.size()) != count * static_cast<int64_t>(sizeof(double)))
    {
        throw Failure("the ONNX Runtime runner wrote " + std::to_string(bytes.size()) + " bytes for the output '"
            + values.name + "' of shape " + shapeText(values.dims) + ", not " + std::to_string(count)
            + " float64 values");
    }
    values.values.resize(static_cast<std::size_t>(count));
    std::memcpy(values.values.data(), bytes.data(), bytes.size());
    return values;
}

} // namespace

OnnxRuntimeRun runOnnxRuntime(
    std::string const& model, std::vector<InputTensor> const& inputs, std::string const& python)
{
    OnnxRuntimeRun run;
    TemporaryFolder const folder;
    json manifestInputs = json::array();
    for (std::size_t i = 0; i < inputs.size(); ++i)
    {
        InputTensor const& input = inputs[i];
        std::string const dtype = numpyType(input.type);
        if (dtype.empty())
        {
            run.reason = "the input '" + input.name + "' is " + std::string(typeName(input.type))
                + ", which numpy has no type for";
            return run;
        }
        fs::path const file = folder.path() / ("input_" + std::to_string(i) + ".bin");
        writeFile(file.string(), input.bytes.data(), input.bytes.size(), "the ONNX Runtime runner");
        manifestInputs.push_back(
            {{"name", input.name}, {"dtype", dtype}, {"shape", input.dims}, {"file", file.string()}});
    }
    fs::path const script = folder.path() / "kiln_compare_onnxruntime.py";
    fs::path const manifest = folder.path() / "manifest.json";
    fs::path const result = folder.path() / "result.json";
    fs::path const errors = folder.path() / "stderr.txt";
    std::string const scriptText = kScript;
    writeFile(script.string(), scriptText.data(), scriptText.size(), "the ONNX Runtime runner");
    std::string const manifestText = json{{"model", fs::absolute(model).string()}, {"inputs", manifestInputs},
        {"outputDir", folder.path().string()},
        {"result", result.string()}}.dump();
    writeFile(manifest.string(), manifestText.data(), manifestText.size(), "the ONNX Runtime runner");

    std::string const command = shellQuoted(python) + " " + shellQuoted(script.string()) + " "
        + shellQuoted(manifest.string()) + " </dev/null >" + shellQuoted(errors.string()) + " 2>&1";
    int const status = std::system(command.c_str());
    int const exitStatus = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::error_code error;
    if (!fs::exists(result, error))
    {
        if (exitStatus == 127 || exitStatus == 126)
        {
            run.reason = "cannot run the Python interpreter '" + python + "' (" + tail(errors)
                + "); --python or KILN_PYTHON names another";
            return run;
        }
        throw Failure("the ONNX Runtime runner's Python script ended (exit status " + std::to_string(exitStatus)
            + ") without a result: " + tail(errors));
    }
    std::vector<char> const bytes = readFile(result.string(), "the ONNX Runtime runner");
    json const answer = json::parse(bytes.begin(), bytes.end(), nullptr, /*allow_exceptions=*/false);
    std::string const state = answer.is_object() ? answer.value("status", "") : "";
    run.version = answer.is_object() ? answer.value("version", "") : "";
    std::string const reason = answer.is_object() ? answer.value("reason", "") : "";
    if (state == "unavailable")
    {
        run.reason = "'" + python + "' cannot import onnxruntime and numpy (" + reason + ")";
        return run;
    }
    if (state == "refused")
    {
        run.reason = "ONNX Runtime " + run.version + " cannot load the model: " + reason;
        return run;
    }
    if (state != "ran")
    {
        throw Failure("ONNX Runtime " + run.version + " failed to run the model: "
            + (reason.empty() ? "the script's result is unreadable: " + tail(errors) : reason));
    }
    for (json const& note : answer.value("notes", json::array()))
    {
        run.notes.push_back(note.get<std::string>());
    }
    for (json const& entry : answer.value("outputs", json::array()))
    {
        run.outputs.push_back(readOutput(entry));
    }
    run.ran = true;
    return run;
}

} // namespace kiln_tool
