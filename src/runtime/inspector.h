// SPDX-License-Identifier: Apache-2.0
// IEngineInspector: what an engine's layers are, as text or JSON in TensorRT's layout: each layer's name, type,
// input and output tensors (name, location, dimensions, format) and metadata. The shapes are the attached execution
// context's where one is set (as far as it knows them), else the engine's static shapes (-1 for dynamic extents).
//
//     std::unique_ptr<nvinfer1::IEngineInspector> inspector{engine->createEngineInspector()};
//     inspector->setExecutionContext(context);
//     std::puts(inspector->getEngineInformation(nvinfer1::LayerInformationFormat::kJSON));
#pragma once

#include "network/report.h"
#include "runtime/engine.h"

#include "NvInferRuntime.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln
{

class EngineInspector final : public nvinfer1::IEngineInspector
{
public:
    //! The inspector shares engine's error recorder until one is set on it.
    explicit EngineInspector(Engine const& engine);

private:
    class Impl final : public nvinfer1::apiv::VEngineInspector
    {
    public:
        explicit Impl(EngineInspector& inspector)
            : mInspector(inspector)
        {
        }

        nvinfer1::IEngineInspector* getPImpl() noexcept override { return &mInspector; }
        bool setExecutionContext(nvinfer1::IExecutionContext const* context) noexcept override;
        nvinfer1::IExecutionContext const* getExecutionContext() const noexcept override;
        char const* getLayerInformation(
            int32_t layerIndex, nvinfer1::LayerInformationFormat format) const noexcept override;
        char const* getEngineInformation(nvinfer1::LayerInformationFormat format) const noexcept override;
        void setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept override;
        nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override;

    private:
        //! Whether format is a LayerInformationFormat; false after reporting it as method's error.
        bool checkFormat(char const* method, nvinfer1::LayerInformationFormat format) const noexcept;

        EngineInspector& mInspector;
    };

    //! The shapes to show: the attached context's, or the engine's static ones.
    std::vector<nvinfer1::Dims> shapes() const;

    //! One tensor: name, location, dimensions, format and type.
    std::string describeTensor(
        int32_t index, nvinfer1::LayerInformationFormat format, std::vector<nvinfer1::Dims> const& shapes) const;

    //! The tensors that are present among tensors (absent optional inputs are left out), as a list.
    std::string describeTensors(std::vector<int32_t> const& tensors, nvinfer1::LayerInformationFormat format,
        std::vector<nvinfer1::Dims> const& shapes) const;

    //! One layer: its name, type, inputs, outputs and metadata.
    std::string describe(std::size_t layerIndex, nvinfer1::LayerInformationFormat format,
        std::vector<nvinfer1::Dims> const& shapes) const;

    //! The whole engine: every layer, and in JSON the I/O tensors' names and the plugin libraries the plan carries.
    std::string describeEngine(nvinfer1::LayerInformationFormat format) const;
    //! The JSON list of the plugin libraries the plan carries: name, bytes, checksum, whether this engine loaded it,
    //! and its creators, each with where the engine's creator of that identity came from ("plan": a plan's library;
    //! "registered": registered before the engine was loaded).
    std::string describePluginLibraries() const;

    Impl mImplObject{*this};
    Engine const& mEngine;
    Reporter mReporter;
    nvinfer1::IExecutionContext const* mContext{};
    mutable std::string mText; //!< The last description returned.
};

} // namespace kiln
