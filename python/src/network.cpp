// SPDX-License-Identifier: Apache-2.0
// network.cpp -- INetworkDefinition (its add_* return the concrete layer class, owned by the network, or None on
// failure; weights given to it are kept alive by the network), ITensor and ILayer.

#include "utils.h"

#include <vector>

namespace kiln::python
{
namespace
{

using nvinfer1::INetworkDefinition;
using nvinfer1::ITensor;

constexpr auto kInternal = py::return_value_policy::reference_internal;

std::vector<ITensor*> tensorList(py::sequence const& inputs, char const* argument)
{
    std::vector<ITensor*> result;
    for (py::handle const item : inputs)
    {
        if (item.is_none())
        {
            throw py::type_error(std::string("argument '") + argument + "': None is not an ITensor");
        }
        result.push_back(item.cast<ITensor*>());
    }
    return result;
}

void bindTensor(py::module_& m)
{
    py::class_<ITensor, std::unique_ptr<ITensor, py::nodelete>>(m, "ITensor", py::module_local())
        .def_property(
            "name", [](ITensor const& self) { return textToStr(self.getName()); },
            [](ITensor& self, std::string const& name) { self.setName(name.c_str()); })
        .def_property("shape", &ITensor::getDimensions, &ITensor::setDimensions)
        .def_property("dtype", &ITensor::getType, &ITensor::setType)
        .def_property("location", &ITensor::getLocation, &ITensor::setLocation)
        .def_property("allowed_formats", &ITensor::getAllowedFormats, &ITensor::setAllowedFormats)
        .def_property_readonly("is_network_input", &ITensor::isNetworkInput)
        .def_property_readonly("is_network_output", &ITensor::isNetworkOutput)
        .def_property_readonly("is_shape_tensor", &ITensor::isShapeTensor)
        .def_property_readonly("is_execution_tensor", &ITensor::isExecutionTensor)
        .def(
            "set_dimension_name",
            [](ITensor& self, int32_t index, std::string const& name) { self.setDimensionName(index, name.c_str()); },
            py::arg("index"), py::arg("name"))
        .def(
            "get_dimension_name",
            [](ITensor const& self, int32_t index) -> py::object {
                char const* name = self.getDimensionName(index);
                return name == nullptr ? py::object(py::none()) : py::object(textToStr(name));
            },
            py::arg("index"));
}

void bindLayer(py::module_& m)
{
    using nvinfer1::ILayer;
    py::class_<ILayer, std::unique_ptr<ILayer, py::nodelete>>(m, "ILayer", py::module_local(), py::dynamic_attr())
        .def_property(
            "name", [](ILayer const& self) { return textToStr(self.getName()); },
            [](ILayer& self, std::string const& name) { self.setName(name.c_str()); })
        .def_property(
            "metadata", [](ILayer const& self) { return textToStr(self.getMetadata()); },
            [](ILayer& self, std::string const& metadata) { self.setMetadata(metadata.c_str()); })
        .def_property_readonly("type", &ILayer::getType)
        .def_property_readonly("num_inputs", &ILayer::getNbInputs)
        .def_property_readonly("num_outputs", &ILayer::getNbOutputs)
        .def_property("precision", &ILayer::getPrecision, &ILayer::setPrecision)
        .def_property_readonly("precision_is_set",
            [](ILayer const& self) {
                deprecated("Use strongly typed networks instead.");
                return self.precisionIsSet();
            })
        .def("reset_precision", &ILayer::resetPrecision)
        .def("set_input", &ILayer::setInput, py::arg("index"), py::arg("tensor"))
        .def("get_input", &ILayer::getInput, py::arg("index"), kInternal)
        .def("get_output", &ILayer::getOutput, py::arg("index"), kInternal)
        .def("set_output_type", &ILayer::setOutputType, py::arg("index"), py::arg("dtype"))
        .def("get_output_type", &ILayer::getOutputType, py::arg("index"))
        .def("output_type_is_set", &ILayer::outputTypeIsSet, py::arg("index"))
        .def("reset_output_type", &ILayer::resetOutputType, py::arg("index"));
}

void bindNetworkDefinition(py::module_& m)
{
    using namespace nvinfer1;
    py::class_<INetworkDefinition>(m, "INetworkDefinition", py::module_local(), py::dynamic_attr())
        .def_property(
            "name", [](INetworkDefinition const& self) { return textToStr(self.getName()); },
            [](INetworkDefinition& self, std::string const& name) { self.setName(name.c_str()); })
        .def_property_readonly("num_layers", &INetworkDefinition::getNbLayers)
        .def_property_readonly("num_inputs", &INetworkDefinition::getNbInputs)
        .def_property_readonly("num_outputs", &INetworkDefinition::getNbOutputs)
        .def_property_readonly("flags", &INetworkDefinition::getFlags)
        .def_property_readonly("has_implicit_batch_dimension", [](INetworkDefinition const&) { return false; })
        .def_property("error_recorder", &INetworkDefinition::getErrorRecorder,
            keepingSetter<INetworkDefinition, IErrorRecorder>("_kiln_error_recorder",
                [](INetworkDefinition& self, IErrorRecorder* recorder) { self.setErrorRecorder(recorder); }),
            py::return_value_policy::reference)
        .def("get_flag", &INetworkDefinition::getFlag, py::arg("flag"))
        .def("get_layer", &INetworkDefinition::getLayer, py::arg("index"), kInternal)
        .def("get_input", &INetworkDefinition::getInput, py::arg("index"), kInternal)
        .def("get_output", &INetworkDefinition::getOutput, py::arg("index"), kInternal)
        .def("__len__", &INetworkDefinition::getNbLayers)
        .def(
            "__getitem__",
            [](INetworkDefinition const& self, int64_t index) {
                int64_t const count = self.getNbLayers();
                if (index < 0)
                {
                    index += count;
                }
                if (index < 0 || index >= count)
                {
                    throw py::index_error("network layer index out of range");
                }
                return self.getLayer(static_cast<int32_t>(index));
            },
            kInternal)
        .def(
            "add_input",
            [](INetworkDefinition& self, std::string const& name, DataType dtype, Dims const& shape) {
                return self.addInput(name.c_str(), dtype, shape);
            },
            py::arg("name"), py::arg("dtype"), py::arg("shape"), kInternal)
        .def("mark_output", &INetworkDefinition::markOutput, py::arg("tensor"))
        .def("unmark_output", &INetworkDefinition::unmarkOutput, py::arg("tensor"))
        .def("mark_output_for_shapes", &INetworkDefinition::markOutputForShapes, py::arg("tensor"))
        .def("unmark_output_for_shapes", &INetworkDefinition::unmarkOutputForShapes, py::arg("tensor"))
        .def("remove_tensor", &INetworkDefinition::removeTensor, py::arg("tensor"))
        .def("mark_debug", &INetworkDefinition::markDebug, py::arg("tensor"))
        .def("unmark_debug", &INetworkDefinition::unmarkDebug, py::arg("tensor"))
        .def("is_debug_tensor", &INetworkDefinition::isDebugTensor, py::arg("tensor"))
        .def(
            "mark_weights_refittable",
            [](INetworkDefinition& self, std::string const& name) { return self.markWeightsRefittable(name.c_str()); },
            py::arg("name"))
        .def(
            "unmark_weights_refittable",
            [](INetworkDefinition& self, std::string const& name) {
                return self.unmarkWeightsRefittable(name.c_str());
            },
            py::arg("name"))
        .def(
            "are_weights_marked_refittable",
            [](INetworkDefinition const& self, std::string const& name) {
                return self.areWeightsMarkedRefittable(name.c_str());
            },
            py::arg("name"))
        .def(
            "add_convolution_nd",
            [](INetworkDefinition& self, ITensor& input, int64_t numOutputMaps, Dims const& kernelShape,
                PyWeights const& kernel, py::object const& bias) {
                return self.addConvolutionNd(
                    input, numOutputMaps, kernelShape, kernel.weights, optionalWeights(bias, input.getType()));
            },
            py::arg("input"), py::arg("num_output_maps"), py::arg("kernel_shape"), py::arg("kernel"),
            py::arg("bias") = py::none(), py::keep_alive<1, 5>(), py::keep_alive<1, 6>(), kInternal)
        .def(
            "add_deconvolution_nd",
            [](INetworkDefinition& self, ITensor& input, int64_t numOutputMaps, Dims const& kernelShape,
                PyWeights const& kernel, py::object const& bias) {
                return self.addDeconvolutionNd(
                    input, numOutputMaps, kernelShape, kernel.weights, optionalWeights(bias, input.getType()));
            },
            py::arg("input"), py::arg("num_output_maps"), py::arg("kernel_shape"), py::arg("kernel"),
            py::arg("bias") = py::none(), py::keep_alive<1, 5>(), py::keep_alive<1, 6>(), kInternal)
        .def("add_activation", &INetworkDefinition::addActivation, py::arg("input"), py::arg("type"), kInternal)
        .def("add_pooling_nd", &INetworkDefinition::addPoolingNd, py::arg("input"), py::arg("type"),
            py::arg("window_size"), kInternal)
        .def("add_softmax", &INetworkDefinition::addSoftMax, py::arg("input"), kInternal)
        .def(
            "add_concatenation",
            [](INetworkDefinition& self, py::sequence const& inputs) {
                std::vector<ITensor*> const tensors = tensorList(inputs, "inputs");
                return self.addConcatenation(tensors.data(), static_cast<int32_t>(tensors.size()));
            },
            py::arg("inputs"), kInternal)
        .def("mark_unfused_tensors_as_debug_tensors", &INetworkDefinition::markUnfusedTensorsAsDebugTensors)
        .def("unmark_unfused_tensors_as_debug_tensors", &INetworkDefinition::unmarkUnfusedTensorsAsDebugTensors)
        .def(
            "set_weights_name",
            [](INetworkDefinition& self, PyWeights const& weights, std::string const& name) {
                return self.setWeightsName(weights.weights, name.c_str());
            },
            py::arg("weights"), py::arg("name"))
        .def(
            "add_plugin_v2",
            [](INetworkDefinition& self, py::sequence const& inputs, IPluginV2& plugin) {
                std::vector<ITensor*> const tensors = tensorList(inputs, "inputs");
                return self.addPluginV2(tensors.data(), static_cast<int32_t>(tensors.size()), plugin);
            },
            py::arg("inputs"), py::arg("plugin"), kInternal)
        .def(
            "add_plugin_v3",
            [](INetworkDefinition& self, py::sequence const& inputs, py::sequence const& shapeInputs,
                IPluginV3& plugin) {
                // The network keeps a clone of the plugin, so the Python plugin object may go afterwards.
                std::vector<ITensor*> const tensors = tensorList(inputs, "inputs");
                std::vector<ITensor*> const shapeTensors = tensorList(shapeInputs, "shape_inputs");
                return self.addPluginV3(tensors.data(), static_cast<int32_t>(tensors.size()), shapeTensors.data(),
                    static_cast<int32_t>(shapeTensors.size()), plugin);
            },
            py::arg("inputs"), py::arg("shape_inputs"), py::arg("plugin"), kInternal)
        .def("add_elementwise", &INetworkDefinition::addElementWise, py::arg("input1"), py::arg("input2"),
            py::arg("op"), kInternal)
        .def("add_unary", &INetworkDefinition::addUnary, py::arg("input"), py::arg("op"), kInternal)
        .def("add_shuffle", &INetworkDefinition::addShuffle, py::arg("input"), kInternal)
        .def("add_slice", &INetworkDefinition::addSlice, py::arg("input"), py::arg("start"), py::arg("shape"),
            py::arg("stride"), kInternal)
        .def("add_reduce", &INetworkDefinition::addReduce, py::arg("input"), py::arg("op"), py::arg("axes"),
            py::arg("keep_dims"), kInternal)
        .def("add_topk", py::overload_cast<ITensor&, TopKOperation, int32_t, uint32_t>(&INetworkDefinition::addTopK),
            py::arg("input"), py::arg("op"), py::arg("k"), py::arg("axes"), kInternal)
        .def("add_topk",
            py::overload_cast<ITensor&, TopKOperation, int32_t, uint32_t, DataType>(&INetworkDefinition::addTopK),
            py::arg("input"), py::arg("op"), py::arg("k"), py::arg("axes"), py::arg("indices_type"), kInternal)
        .def("add_gather", &INetworkDefinition::addGather, py::arg("input"), py::arg("indices"), py::arg("axis"),
            kInternal)
        .def("add_gather_v2", &INetworkDefinition::addGatherV2, py::arg("input"), py::arg("indices"), py::arg("mode"),
            kInternal)
        .def("add_scatter", &INetworkDefinition::addScatter, py::arg("data"), py::arg("indices"), py::arg("updates"),
            py::arg("mode"), kInternal)
        .def("add_matrix_multiply", &INetworkDefinition::addMatrixMultiply, py::arg("input0"), py::arg("op0"),
            py::arg("input1"), py::arg("op1"), kInternal)
        .def(
            "add_constant",
            [](INetworkDefinition& self, Dims const& shape, PyWeights const& weights) {
                return self.addConstant(shape, weights.weights);
            },
            py::arg("shape"), py::arg("weights"), py::keep_alive<1, 3>(), kInternal)
        .def("add_identity", &INetworkDefinition::addIdentity, py::arg("input"), kInternal)
        .def("add_shape", &INetworkDefinition::addShape, py::arg("input"), kInternal)
        .def("add_resize", &INetworkDefinition::addResize, py::arg("input"), kInternal)
        .def("add_cast", &INetworkDefinition::addCast, py::arg("input"), py::arg("to_type"), kInternal)
        .def("add_select", &INetworkDefinition::addSelect, py::arg("condition"), py::arg("then_input"),
            py::arg("else_input"), kInternal)
        .def("add_non_zero", py::overload_cast<ITensor&, DataType>(&INetworkDefinition::addNonZero), py::arg("input"),
            py::arg("indices_type"), kInternal)
        .def("add_grid_sample", &INetworkDefinition::addGridSample, py::arg("input"), py::arg("grid"), kInternal)
        .def("add_reverse_sequence", &INetworkDefinition::addReverseSequence, py::arg("input"),
            py::arg("sequence_lens"), kInternal)
        .def(
            "add_einsum",
            [](INetworkDefinition& self, py::sequence const& inputs, std::string const& equation) {
                std::vector<ITensor*> const tensors = tensorList(inputs, "inputs");
                return self.addEinsum(tensors.data(), static_cast<int32_t>(tensors.size()), equation.c_str());
            },
            py::arg("inputs"), py::arg("equation"), kInternal)
        .def("add_cumulative", &INetworkDefinition::addCumulative, py::arg("input"), py::arg("axis"), py::arg("op"),
            py::arg("exclusive"), py::arg("reverse"), kInternal)
        .def("add_fill", py::overload_cast<Dims const&, FillOperation, DataType>(&INetworkDefinition::addFill),
            py::arg("shape"), py::arg("op"), py::arg("output_type"), kInternal)
        .def("add_quantize", py::overload_cast<ITensor&, ITensor&, DataType>(&INetworkDefinition::addQuantize),
            py::arg("input"), py::arg("scale"), py::arg("output_type"), kInternal)
        .def("add_dequantize", py::overload_cast<ITensor&, ITensor&, DataType>(&INetworkDefinition::addDequantize),
            py::arg("input"), py::arg("scale"), py::arg("output_type"), kInternal)
        .def("add_nms", py::overload_cast<ITensor&, ITensor&, ITensor&, DataType>(&INetworkDefinition::addNMS),
            py::arg("boxes"), py::arg("scores"), py::arg("max_output_boxes_per_class"), py::arg("indices_type"),
            kInternal);
}

} // namespace

nvinfer1::Weights optionalWeights(py::object const& weights, nvinfer1::DataType fallback)
{
    if (weights.is_none())
    {
        return nvinfer1::Weights{fallback, nullptr, 0};
    }
    if (py::isinstance<py::array>(weights))
    {
        // The array itself owns the values; the binding's keep_alive holds it.
        return weightsFromArray(py::reinterpret_borrow<py::array>(weights)).weights;
    }
    return weights.cast<PyWeights const&>().weights;
}

void bindNetwork(py::module_& m)
{
    bindTensor(m);
    bindLayer(m);
    bindNetworkDefinition(m);
}

} // namespace kiln::python
