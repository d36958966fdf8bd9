// SPDX-License-Identifier: Apache-2.0
// layers.cpp -- the concrete layer classes and their properties (TensorRT's Python names), and the type hook that
// gives every ILayer pointer its concrete class. Weight properties read as numpy views of the layer's weights and
// take numpy arrays or Weights (kept alive by the layer).

#include "utils.h"

namespace kiln::python
{
namespace
{

using namespace nvinfer1;

template <typename T>
using Layer = py::class_<T, ILayer, std::unique_ptr<T, py::nodelete>>;

//! A numpy view of weights kept alive through owner (None when the weights are empty or have no numpy type).
py::object weightsView(Weights const& weights, py::handle owner)
{
    py::object const dtype = numpyDtype(weights.type);
    if (weights.values == nullptr || dtype.is_none())
    {
        return py::none();
    }
    return py::array(py::dtype::from_args(dtype), {weights.count}, {}, const_cast<void*>(weights.values), owner);
}

//! Sets weights through setter and keeps their owner alive as long as the layer's Python object.
template <typename T, typename Setter>
void setWeights(py::object const& self, py::object const& value, char const* name, Setter setter)
{
    PyWeights const weights = py::isinstance<py::array>(value)
        ? weightsFromArray(py::reinterpret_borrow<py::array>(value))
        : value.cast<PyWeights>();
    (self.cast<T&>().*setter)(weights.weights);
    py::setattr(self, (std::string("_kiln_") + name).c_str(), value);
}

template <typename T>
void bindConvolutionLike(py::module_& m, char const* name)
{
    Layer<T>(m, name, py::module_local())
        .def_property("num_output_maps", &T::getNbOutputMaps, &T::setNbOutputMaps)
        .def_property("num_groups", &T::getNbGroups, &T::setNbGroups)
        .def_property("pre_padding", &T::getPrePadding, &T::setPrePadding)
        .def_property("post_padding", &T::getPostPadding, &T::setPostPadding)
        .def_property("padding_mode", &T::getPaddingMode, &T::setPaddingMode)
        .def_property("kernel_size_nd", &T::getKernelSizeNd, &T::setKernelSizeNd)
        .def_property("stride_nd", &T::getStrideNd, &T::setStrideNd)
        .def_property("padding_nd", &T::getPaddingNd, &T::setPaddingNd)
        .def_property("dilation_nd", &T::getDilationNd, &T::setDilationNd)
        .def_property(
            "kernel", [](py::object const& self) { return weightsView(self.cast<T&>().getKernelWeights(), self); },
            [](py::object const& self, py::object const& value) {
                setWeights<T>(self, value, "kernel", &T::setKernelWeights);
            })
        .def_property(
            "bias", [](py::object const& self) { return weightsView(self.cast<T&>().getBiasWeights(), self); },
            [](py::object const& self, py::object const& value) {
                setWeights<T>(self, value, "bias", &T::setBiasWeights);
            });
}

template <typename T>
void bindQuantizeLike(py::module_& m, char const* name)
{
    Layer<T>(m, name, py::module_local())
        .def_property("axis", &T::getAxis, &T::setAxis)
        .def_property("block_shape", &T::getBlockShape, &T::setBlockShape)
        .def_property("to_type", &T::getToType, &T::setToType);
}

std::vector<int32_t> permutationList(Permutation const& permutation)
{
    return std::vector<int32_t>(permutation.order, permutation.order + Dims::MAX_DIMS);
}

void bindPermutation(py::module_& m)
{
    py::class_<Permutation>(m, "Permutation", py::module_local())
        .def(py::init([] {
            Permutation p{};
            for (int32_t i = 0; i < Dims::MAX_DIMS; ++i)
            {
                p.order[i] = i;
            }
            return p;
        }))
        .def(py::init([](std::vector<int32_t> const& order) {
            if (order.size() > static_cast<std::size_t>(Dims::MAX_DIMS))
            {
                throw py::value_error("a permutation has at most 8 entries");
            }
            Permutation p{};
            for (int32_t i = 0; i < Dims::MAX_DIMS; ++i)
            {
                p.order[i] = i < static_cast<int32_t>(order.size()) ? order[static_cast<std::size_t>(i)] : i;
            }
            return p;
        }),
            py::arg("order"))
        .def("__len__", [](Permutation const&) { return Dims::MAX_DIMS; })
        .def("__getitem__",
            [](Permutation const& self, int32_t index) {
                if (index < 0 || index >= Dims::MAX_DIMS)
                {
                    throw py::index_error("Permutation index out of range");
                }
                return self.order[index];
            })
        .def("__setitem__",
            [](Permutation& self, int32_t index, int32_t value) {
                if (index < 0 || index >= Dims::MAX_DIMS)
                {
                    throw py::index_error("Permutation index out of range");
                }
                self.order[index] = value;
            })
        .def("__str__", [](Permutation const& self) { return py::str(py::tuple(py::cast(permutationList(self)))); })
        .def("__repr__", [](Permutation const& self) { return py::str(py::tuple(py::cast(permutationList(self)))); });
    py::implicitly_convertible<py::list, Permutation>();
    py::implicitly_convertible<py::tuple, Permutation>();
}

} // namespace

std::type_info const* layerClass(LayerType type)
{
    switch (type)
    {
    case LayerType::kCONVOLUTION: return &typeid(IConvolutionLayer);
    case LayerType::kDECONVOLUTION: return &typeid(IDeconvolutionLayer);
    case LayerType::kACTIVATION: return &typeid(IActivationLayer);
    case LayerType::kPOOLING: return &typeid(IPoolingLayer);
    case LayerType::kSOFTMAX: return &typeid(ISoftMaxLayer);
    case LayerType::kCONCATENATION: return &typeid(IConcatenationLayer);
    case LayerType::kELEMENTWISE: return &typeid(IElementWiseLayer);
    case LayerType::kUNARY: return &typeid(IUnaryLayer);
    case LayerType::kSHUFFLE: return &typeid(IShuffleLayer);
    case LayerType::kREDUCE: return &typeid(IReduceLayer);
    case LayerType::kTOPK: return &typeid(ITopKLayer);
    case LayerType::kGATHER: return &typeid(IGatherLayer);
    case LayerType::kMATRIX_MULTIPLY: return &typeid(IMatrixMultiplyLayer);
    case LayerType::kCONSTANT: return &typeid(IConstantLayer);
    case LayerType::kIDENTITY: return &typeid(IIdentityLayer);
    case LayerType::kCAST: return &typeid(ICastLayer);
    case LayerType::kSLICE: return &typeid(ISliceLayer);
    case LayerType::kSHAPE: return &typeid(IShapeLayer);
    case LayerType::kRESIZE: return &typeid(IResizeLayer);
    case LayerType::kSELECT: return &typeid(ISelectLayer);
    case LayerType::kFILL: return &typeid(IFillLayer);
    case LayerType::kQUANTIZE: return &typeid(IQuantizeLayer);
    case LayerType::kDEQUANTIZE: return &typeid(IDequantizeLayer);
    case LayerType::kSCATTER: return &typeid(IScatterLayer);
    case LayerType::kEINSUM: return &typeid(IEinsumLayer);
    case LayerType::kNON_ZERO: return &typeid(INonZeroLayer);
    case LayerType::kGRID_SAMPLE: return &typeid(IGridSampleLayer);
    case LayerType::kNMS: return &typeid(INMSLayer);
    case LayerType::kREVERSE_SEQUENCE: return &typeid(IReverseSequenceLayer);
    case LayerType::kCUMULATIVE: return &typeid(ICumulativeLayer);
    case LayerType::kPLUGIN_V2: return &typeid(IPluginV2Layer);
    case LayerType::kPLUGIN_V3: return &typeid(IPluginV3Layer);
    default: return nullptr;
    }
}

void bindLayers(py::module_& m)
{
    bindPermutation(m);
    // The loop itself (not a layer); its boundary layers and INetworkDefinition.add_loop are not bound yet.
    py::class_<ILoop, std::unique_ptr<ILoop, py::nodelete>>(m, "ILoop", py::module_local())
        .def_property(
            "name", [](ILoop const& self) { return textToStr(self.getName()); },
            [](ILoop& self, std::string const& name) { self.setName(name.c_str()); });
    bindConvolutionLike<IConvolutionLayer>(m, "IConvolutionLayer");
    bindConvolutionLike<IDeconvolutionLayer>(m, "IDeconvolutionLayer");
    Layer<IActivationLayer>(m, "IActivationLayer", py::module_local())
        .def_property("type", &IActivationLayer::getActivationType, &IActivationLayer::setActivationType)
        .def_property("alpha", &IActivationLayer::getAlpha, &IActivationLayer::setAlpha)
        .def_property("beta", &IActivationLayer::getBeta, &IActivationLayer::setBeta);
    Layer<IPoolingLayer>(m, "IPoolingLayer", py::module_local())
        .def_property("type", &IPoolingLayer::getPoolingType, &IPoolingLayer::setPoolingType)
        .def_property("pre_padding", &IPoolingLayer::getPrePadding, &IPoolingLayer::setPrePadding)
        .def_property("post_padding", &IPoolingLayer::getPostPadding, &IPoolingLayer::setPostPadding)
        .def_property("padding_mode", &IPoolingLayer::getPaddingMode, &IPoolingLayer::setPaddingMode)
        .def_property("blend_factor", &IPoolingLayer::getBlendFactor, &IPoolingLayer::setBlendFactor)
        .def_property("average_count_excludes_padding", &IPoolingLayer::getAverageCountExcludesPadding,
            &IPoolingLayer::setAverageCountExcludesPadding)
        .def_property("window_size_nd", &IPoolingLayer::getWindowSizeNd, &IPoolingLayer::setWindowSizeNd)
        .def_property("stride_nd", &IPoolingLayer::getStrideNd, &IPoolingLayer::setStrideNd)
        .def_property("padding_nd", &IPoolingLayer::getPaddingNd, &IPoolingLayer::setPaddingNd);
    Layer<ISoftMaxLayer>(m, "ISoftMaxLayer", py::module_local())
        .def_property("axes", &ISoftMaxLayer::getAxes, &ISoftMaxLayer::setAxes);
    Layer<IConcatenationLayer>(m, "IConcatenationLayer", py::module_local())
        .def_property("axis", &IConcatenationLayer::getAxis, &IConcatenationLayer::setAxis);
    Layer<IElementWiseLayer>(m, "IElementWiseLayer", py::module_local())
        .def_property("op", &IElementWiseLayer::getOperation, &IElementWiseLayer::setOperation);
    Layer<IUnaryLayer>(m, "IUnaryLayer", py::module_local())
        .def_property("op", &IUnaryLayer::getOperation, &IUnaryLayer::setOperation);
    Layer<IShuffleLayer>(m, "IShuffleLayer", py::module_local())
        .def_property("first_transpose", &IShuffleLayer::getFirstTranspose, &IShuffleLayer::setFirstTranspose)
        .def_property("reshape_dims", &IShuffleLayer::getReshapeDimensions, &IShuffleLayer::setReshapeDimensions)
        .def_property("second_transpose", &IShuffleLayer::getSecondTranspose, &IShuffleLayer::setSecondTranspose)
        .def_property("zero_is_placeholder", &IShuffleLayer::getZeroIsPlaceholder, &IShuffleLayer::setZeroIsPlaceholder)
        .def("set_input", &IShuffleLayer::setInput, py::arg("index"), py::arg("tensor"));
    Layer<IReduceLayer>(m, "IReduceLayer", py::module_local())
        .def_property("op", &IReduceLayer::getOperation, &IReduceLayer::setOperation)
        .def_property("axes", &IReduceLayer::getReduceAxes, &IReduceLayer::setReduceAxes)
        .def_property("keep_dims", &IReduceLayer::getKeepDimensions, &IReduceLayer::setKeepDimensions);
    Layer<ITopKLayer>(m, "ITopKLayer", py::module_local())
        .def_property("op", &ITopKLayer::getOperation, &ITopKLayer::setOperation)
        .def_property("k", &ITopKLayer::getK, &ITopKLayer::setK)
        .def_property("axes", &ITopKLayer::getReduceAxes, &ITopKLayer::setReduceAxes)
        .def_property("indices_type", &ITopKLayer::getIndicesType, &ITopKLayer::setIndicesType)
        .def("set_input", &ITopKLayer::setInput, py::arg("index"), py::arg("tensor"));
    Layer<IGatherLayer>(m, "IGatherLayer", py::module_local())
        .def_property("axis", &IGatherLayer::getGatherAxis, &IGatherLayer::setGatherAxis)
        .def_property("num_elementwise_dims", &IGatherLayer::getNbElementWiseDims, &IGatherLayer::setNbElementWiseDims)
        .def_property("mode", &IGatherLayer::getMode, &IGatherLayer::setMode);
    Layer<IMatrixMultiplyLayer>(m, "IMatrixMultiplyLayer", py::module_local())
        .def_property(
            "op0", [](IMatrixMultiplyLayer const& self) { return self.getOperation(0); },
            [](IMatrixMultiplyLayer& self, MatrixOperation op) { self.setOperation(0, op); })
        .def_property(
            "op1", [](IMatrixMultiplyLayer const& self) { return self.getOperation(1); },
            [](IMatrixMultiplyLayer& self, MatrixOperation op) { self.setOperation(1, op); });
    Layer<IConstantLayer>(m, "IConstantLayer", py::module_local())
        .def_property("shape", &IConstantLayer::getDimensions, &IConstantLayer::setDimensions)
        .def_property(
            "weights",
            [](py::object const& self) { return weightsView(self.cast<IConstantLayer&>().getWeights(), self); },
            [](py::object const& self, py::object const& value) {
                setWeights<IConstantLayer>(self, value, "weights", &IConstantLayer::setWeights);
            });
    Layer<IIdentityLayer>(m, "IIdentityLayer", py::module_local());
    Layer<ICastLayer>(m, "ICastLayer", py::module_local())
        .def_property("to_type", &ICastLayer::getToType, &ICastLayer::setToType);
    Layer<ISliceLayer>(m, "ISliceLayer", py::module_local())
        .def_property("start", &ISliceLayer::getStart, &ISliceLayer::setStart)
        .def_property("shape", &ISliceLayer::getSize, &ISliceLayer::setSize)
        .def_property("stride", &ISliceLayer::getStride, &ISliceLayer::setStride)
        .def_property("mode", &ISliceLayer::getMode, &ISliceLayer::setMode)
        .def_property("axes", &ISliceLayer::getAxes, &ISliceLayer::setAxes)
        .def("set_input", &ISliceLayer::setInput, py::arg("index"), py::arg("tensor"));
    Layer<IShapeLayer>(m, "IShapeLayer", py::module_local());
    Layer<IResizeLayer>(m, "IResizeLayer", py::module_local())
        .def_property("shape", &IResizeLayer::getOutputDimensions, &IResizeLayer::setOutputDimensions)
        .def_property(
            "scales",
            [](IResizeLayer const& self) {
                int32_t const count = self.getScales(0, nullptr);
                std::vector<float> scales(static_cast<std::size_t>(std::max(count, 0)));
                if (count > 0)
                {
                    self.getScales(count, scales.data());
                }
                return scales;
            },
            [](IResizeLayer& self, std::vector<float> const& scales) {
                self.setScales(scales.data(), static_cast<int32_t>(scales.size()));
            })
        .def_property("resize_mode", &IResizeLayer::getResizeMode, &IResizeLayer::setResizeMode)
        .def_property("coordinate_transformation", &IResizeLayer::getCoordinateTransformation,
            &IResizeLayer::setCoordinateTransformation)
        .def_property("selector_for_single_pixel", &IResizeLayer::getSelectorForSinglePixel,
            &IResizeLayer::setSelectorForSinglePixel)
        .def_property("nearest_rounding", &IResizeLayer::getNearestRounding, &IResizeLayer::setNearestRounding)
        .def_property("exclude_outside", &IResizeLayer::getExcludeOutside, &IResizeLayer::setExcludeOutside)
        .def_property("cubic_coeff", &IResizeLayer::getCubicCoeff, &IResizeLayer::setCubicCoeff)
        .def("set_input", &IResizeLayer::setInput, py::arg("index"), py::arg("tensor"));
    Layer<ISelectLayer>(m, "ISelectLayer", py::module_local());
    Layer<IFillLayer>(m, "IFillLayer", py::module_local())
        .def_property("shape", &IFillLayer::getDimensions, &IFillLayer::setDimensions)
        .def_property("operation", &IFillLayer::getOperation, &IFillLayer::setOperation)
        .def_property("to_type", &IFillLayer::getToType, &IFillLayer::setToType)
        .def("is_alpha_beta_int64", &IFillLayer::isAlphaBetaInt64)
        .def("set_input", &IFillLayer::setInput, py::arg("index"), py::arg("tensor"));
    bindQuantizeLike<IQuantizeLayer>(m, "IQuantizeLayer");
    bindQuantizeLike<IDequantizeLayer>(m, "IDequantizeLayer");
    Layer<IScatterLayer>(m, "IScatterLayer", py::module_local())
        .def_property("axis", &IScatterLayer::getAxis, &IScatterLayer::setAxis)
        .def_property("mode", &IScatterLayer::getMode, &IScatterLayer::setMode);
    Layer<IEinsumLayer>(m, "IEinsumLayer", py::module_local())
        .def_property(
            "equation", [](IEinsumLayer const& self) { return textToStr(self.getEquation()); },
            [](IEinsumLayer& self, std::string const& equation) { self.setEquation(equation.c_str()); });
    Layer<INonZeroLayer>(m, "INonZeroLayer", py::module_local())
        .def_property("indices_type", &INonZeroLayer::getIndicesType, &INonZeroLayer::setIndicesType);
    Layer<IGridSampleLayer>(m, "IGridSampleLayer", py::module_local())
        .def_property(
            "interpolation_mode", &IGridSampleLayer::getInterpolationMode, &IGridSampleLayer::setInterpolationMode)
        .def_property("align_corners", &IGridSampleLayer::getAlignCorners, &IGridSampleLayer::setAlignCorners)
        .def_property("sample_mode", &IGridSampleLayer::getSampleMode, &IGridSampleLayer::setSampleMode);
    Layer<INMSLayer>(m, "INMSLayer", py::module_local())
        .def_property("bounding_box_format", &INMSLayer::getBoundingBoxFormat, &INMSLayer::setBoundingBoxFormat)
        .def_property("topk_box_limit", &INMSLayer::getTopKBoxLimit, &INMSLayer::setTopKBoxLimit)
        .def_property("indices_type", &INMSLayer::getIndicesType, &INMSLayer::setIndicesType)
        .def("set_input", &INMSLayer::setInput, py::arg("index"), py::arg("tensor"));
    Layer<IReverseSequenceLayer>(m, "IReverseSequenceLayer", py::module_local())
        .def_property("batch_axis", &IReverseSequenceLayer::getBatchAxis, &IReverseSequenceLayer::setBatchAxis)
        .def_property(
            "sequence_axis", &IReverseSequenceLayer::getSequenceAxis, &IReverseSequenceLayer::setSequenceAxis);
    Layer<ICumulativeLayer>(m, "ICumulativeLayer", py::module_local())
        .def_property("op", &ICumulativeLayer::getOperation,
            [](ICumulativeLayer& self, CumulativeOperation op) {
                if (!self.setOperation(op))
                {
                    throw std::runtime_error("ICumulativeLayer: the operation could not be set");
                }
            })
        .def_property("exclusive", &ICumulativeLayer::getExclusive, &ICumulativeLayer::setExclusive)
        .def_property("reverse", &ICumulativeLayer::getReverse, &ICumulativeLayer::setReverse);
}

} // namespace kiln::python

void const* pybind11::polymorphic_type_hook<nvinfer1::ILayer>::get(
    nvinfer1::ILayer const* src, std::type_info const*& type)
{
    if (src == nullptr)
    {
        return src;
    }
    std::type_info const* const concrete = kiln::python::layerClass(src->getType());
    if (concrete == nullptr)
    {
        type = &typeid(nvinfer1::ILayer);
        return src;
    }
    // Every concrete layer class derives from ILayer alone, first, so the pointers coincide.
    type = concrete;
    return src;
}
