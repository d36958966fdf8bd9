// SPDX-License-Identifier: Apache-2.0
// parser.cpp -- OnnxParser (nvonnxparser::IParser; it keeps its logger, and its network keeps it, since the network
// may point into weights the parser owns), OnnxParserRefitter (nvonnxparser::IParserRefitter; it keeps its refitter
// and logger) and ParserError. The parser library is opened at run time, locally (libraries.h says why), and reached
// through its entry points.

#include "NvOnnxParser.h"
#include "libraries.h"
#include "utils.h"

namespace kiln::python
{
namespace
{

using nvonnxparser::IParser;
using nvonnxparser::IParserError;

std::string errorCodeName(nvonnxparser::ErrorCode code)
{
    return py::str(py::cast(code).attr("name"));
}

std::string errorText(IParserError const& error)
{
    using nvonnxparser::ErrorCode;
    std::string text;
    if (error.code() != ErrorCode::kMODEL_DESERIALIZE_FAILED && error.code() != ErrorCode::kREFIT_FAILED)
    {
        text = "In node " + std::to_string(error.node()) + " with name: " + std::string(error.nodeName())
            + " and operator: " + std::string(error.nodeOperator()) + " ";
    }
    text += "(" + std::string(error.func()) + "): " + errorCodeName(error.code()) + ": " + std::string(error.desc());
    return text;
}

//! load_model_proto(model, path=None) of the parser and the parser refitter: the model's bytes from any buffer, the
//! path (external data is found beside it) optional.
template <typename Parser>
bool loadModelProtoInto(Parser& self, py::buffer const& model, py::object const& path)
{
    py::buffer_info const info = model.request();
    auto const bytes = static_cast<std::size_t>(info.size * info.itemsize);
    std::string const location = path.is_none() ? std::string() : py::str(path).cast<std::string>();
    py::gil_scoped_release release;
    return self.loadModelProto(info.ptr, bytes, path.is_none() ? nullptr : location.c_str());
}

//! load_initializer(name, data, size) of both: data is an address (an int or anything with __int__).
template <typename Parser>
bool loadInitializerInto(Parser& self, std::string const& name, py::object const& data, std::size_t size)
{
    return self.loadInitializer(name.c_str(), reinterpret_cast<void const*>(toAddress(data, "data")), size);
}

void bindParserError(py::module_& m)
{
    py::class_<IParserError, std::unique_ptr<IParserError, py::nodelete>>(m, "ParserError", py::module_local())
        .def("code", &IParserError::code)
        .def("desc", [](IParserError const& self) { return textToStr(self.desc()); })
        .def("file", [](IParserError const& self) { return textToStr(self.file()); })
        .def("line", &IParserError::line)
        .def("func", [](IParserError const& self) { return textToStr(self.func()); })
        .def("node", &IParserError::node)
        .def("node_name", [](IParserError const& self) { return textToStr(self.nodeName()); })
        .def("node_operator", [](IParserError const& self) { return textToStr(self.nodeOperator()); })
        .def("local_function_stack",
            [](IParserError const& self) {
                std::vector<std::string> stack;
                char const* const* entries = self.localFunctionStack();
                for (int32_t i = 0; entries != nullptr && i < self.localFunctionStackSize(); ++i)
                {
                    stack.emplace_back(entries[i] != nullptr ? entries[i] : "");
                }
                return stack;
            })
        .def("local_function_stack_size", &IParserError::localFunctionStackSize)
        .def("__str__", &errorText)
        .def("__repr__", &errorText);
}

void bindOnnxParser(py::module_& m)
{
    py::class_<IParser>(m, "OnnxParser", py::module_local())
        .def(py::init([](nvinfer1::INetworkDefinition& network, nvinfer1::ILogger& logger) {
            auto* const parser
                = static_cast<IParser*>(onnxParserLibrary().createParser(&network, &logger, NV_ONNX_PARSER_VERSION));
            if (parser == nullptr)
            {
                throw std::runtime_error("OnnxParser: the library could not create a parser (see the logger)");
            }
            return parser;
        }),
            py::arg("network"), py::arg("logger"), py::keep_alive<1, 3>(), py::keep_alive<2, 1>())
        .def(
            "parse",
            [](IParser& self, py::buffer const& model, py::object const& path) {
                py::buffer_info const info = model.request();
                auto const bytes = static_cast<std::size_t>(info.size * info.itemsize);
                std::string const location = path.is_none() ? std::string() : py::str(path).cast<std::string>();
                py::gil_scoped_release release;
                return self.parse(info.ptr, bytes, path.is_none() ? nullptr : location.c_str());
            },
            py::arg("model"), py::arg("path") = py::none())
        .def(
            "parse_from_file",
            [](IParser& self, std::string const& model) { return self.parseFromFile(model.c_str(), 0); },
            py::arg("model"), py::call_guard<py::gil_scoped_release>())
        .def(
            "supports_model_v2",
            [](IParser& self, py::buffer const& model, py::object const& path) {
                py::buffer_info const info = model.request();
                auto const bytes = static_cast<std::size_t>(info.size * info.itemsize);
                std::string const location = path.is_none() ? std::string() : py::str(path).cast<std::string>();
                py::gil_scoped_release release;
                return self.supportsModelV2(info.ptr, bytes, path.is_none() ? nullptr : location.c_str());
            },
            py::arg("model"), py::arg("path") = py::none())
        .def(
            "supports_model",
            [](IParser& self, py::buffer const& model, py::object const& path) {
                py::buffer_info const info = model.request();
                auto const bytes = static_cast<std::size_t>(info.size * info.itemsize);
                std::string const location = path.is_none() ? std::string() : py::str(path).cast<std::string>();
                SubGraphCollection_t collection;
                bool supported = false;
                {
                    py::gil_scoped_release release;
                    supported
                        = self.supportsModel(info.ptr, bytes, collection, path.is_none() ? nullptr : location.c_str());
                }
                return py::make_tuple(supported, collection);
            },
            py::arg("model"), py::arg("path") = py::none())
        .def(
            "parse_with_weight_descriptors",
            [](IParser& self, py::buffer const& model) {
                py::buffer_info const info = model.request();
                auto const bytes = static_cast<std::size_t>(info.size * info.itemsize);
                py::gil_scoped_release release;
                return self.parseWithWeightDescriptors(info.ptr, bytes);
            },
            py::arg("model"))
        .def("load_model_proto", &loadModelProtoInto<IParser>, py::arg("model"), py::arg("path") = py::none())
        .def("load_initializer", &loadInitializerInto<IParser>, py::arg("name"), py::arg("data"), py::arg("size"))
        .def("parse_model_proto", &IParser::parseModelProto, py::call_guard<py::gil_scoped_release>())
        .def("set_builder_config", &IParser::setBuilderConfig, py::arg("builder_config"), py::keep_alive<1, 2>())
        .def_property_readonly("num_subgraphs", &IParser::getNbSubgraphs)
        .def("is_subgraph_supported", &IParser::isSubgraphSupported, py::arg("index"))
        .def(
            "get_subgraph_nodes",
            [](IParser& self, int64_t index) {
                int64_t length = 0;
                int64_t const* nodes = self.getSubgraphNodes(index, length);
                return nodes == nullptr ? std::vector<int64_t>() : std::vector<int64_t>(nodes, nodes + length);
            },
            py::arg("index"))
        .def(
            "supports_operator",
            [](IParser const& self, std::string const& op) { return self.supportsOperator(op.c_str()); },
            py::arg("op_name"))
        .def_property_readonly("num_errors", &IParser::getNbErrors)
        .def("get_error", &IParser::getError, py::arg("index"), py::return_value_policy::reference_internal)
        .def("clear_errors", &IParser::clearErrors)
        .def_property("flags", &IParser::getFlags, &IParser::setFlags)
        .def("set_flag", &IParser::setFlag, py::arg("flag"))
        .def("clear_flag", &IParser::clearFlag, py::arg("flag"))
        .def("get_flag", &IParser::getFlag, py::arg("flag"))
        .def(
            "get_layer_output_tensor",
            [](IParser& self, std::string const& name, int64_t i) {
                return const_cast<nvinfer1::ITensor*>(self.getLayerOutputTensor(name.c_str(), i));
            },
            py::arg("name"), py::arg("i"), py::return_value_policy::reference)
        .def("get_used_vc_plugin_libraries", [](IParser const& self) {
            int64_t count = 0;
            char const* const* libraries = self.getUsedVCPluginLibraries(count);
            if (count < 0)
            {
                throw std::runtime_error("Internal error");
            }
            std::vector<std::string> result;
            for (int64_t i = 0; libraries != nullptr && i < count; ++i)
            {
                result.emplace_back(libraries[i] != nullptr ? libraries[i] : "");
            }
            return result;
        });
}

//! OnnxParserRefitter: gives a Refitter the values of a model's initializers, by the names the parser gave the
//! engine's weights, and refits. It keeps its refitter, which it calls, and its logger. (TensorRT has the refitter
//! keep the parser refitter instead, whose memory the refitter reads until refit_cuda_engine; kiln's refits before
//! refit_from_* returns and withdraws what it gave when that fails, so the refitter never points into it.)
void bindOnnxParserRefitter(py::module_& m)
{
    using nvonnxparser::IParserRefitter;
    py::class_<IParserRefitter>(m, "OnnxParserRefitter", py::module_local())
        .def(py::init([](nvinfer1::IRefitter& refitter, nvinfer1::ILogger& logger) {
            auto* const parserRefitter = static_cast<IParserRefitter*>(
                onnxParserLibrary().createRefitter(&refitter, &logger, NV_ONNX_PARSER_VERSION));
            if (parserRefitter == nullptr)
            {
                throw std::runtime_error(
                    "OnnxParserRefitter: the library could not create a parser refitter (see the logger)");
            }
            return parserRefitter;
        }),
            py::arg("refitter"), py::arg("logger"), py::keep_alive<1, 2>(), py::keep_alive<1, 3>())
        .def(
            "refit_from_bytes",
            [](IParserRefitter& self, py::buffer const& model, py::object const& path) {
                py::buffer_info const info = model.request();
                auto const bytes = static_cast<std::size_t>(info.size * info.itemsize);
                std::string const location = path.is_none() ? std::string() : py::str(path).cast<std::string>();
                py::gil_scoped_release release;
                return self.refitFromBytes(info.ptr, bytes, path.is_none() ? nullptr : location.c_str());
            },
            py::arg("model"), py::arg("path") = py::none())
        .def(
            "refit_from_file",
            [](IParserRefitter& self, std::string const& model) { return self.refitFromFile(model.c_str()); },
            py::arg("model"), py::call_guard<py::gil_scoped_release>())
        .def_property_readonly("num_errors", &IParserRefitter::getNbErrors)
        .def("get_error", &IParserRefitter::getError, py::arg("index"), py::return_value_policy::reference_internal)
        .def("clear_errors", &IParserRefitter::clearErrors)
        .def("load_model_proto", &loadModelProtoInto<IParserRefitter>, py::arg("model"), py::arg("path") = py::none())
        .def("load_initializer", &loadInitializerInto<IParserRefitter>, py::arg("name"), py::arg("data"),
            py::arg("size"))
        .def("refit_model_proto", &IParserRefitter::refitModelProto, py::call_guard<py::gil_scoped_release>());
}

} // namespace

void bindParser(py::module_& m)
{
    bindParserError(m);
    bindOnnxParser(m);
    bindOnnxParserRefitter(m);
    m.def("get_nv_onnx_parser_version", [] { return onnxParserLibrary().version(); });
}

} // namespace kiln::python
