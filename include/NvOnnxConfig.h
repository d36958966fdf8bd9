/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * NvOnnxConfig.h -- the settings record that TensorRT's sample code passes around with an ONNX model: its file
 * name, data type, verbosity and report files. The parser itself does not read it.
 *
 *     std::unique_ptr<nvonnxparser::IOnnxConfig> config{nvonnxparser::createONNXConfig()};
 *     config->setModelFileName("model.onnx");
 *     config->setVerbosityLevel(static_cast<int32_t>(nvinfer1::ILogger::Severity::kWARNING));
 */

#ifndef NV_OnnxConfig_H
#define NV_OnnxConfig_H

#include "NvInfer.h"

namespace nvonnxparser
{

//! A record of ONNX model settings; every setter stores, every getter returns what was stored.
class IOnnxConfig
{
public:
    virtual ~IOnnxConfig() noexcept = default;

    //! A logging severity, as an integer.
    typedef int32_t Verbosity;

    //! Sets the model's data type.
    virtual void setModelDtype(const nvinfer1::DataType) noexcept = 0;
    //! The model's data type (kFLOAT by default).
    virtual nvinfer1::DataType getModelDtype() const noexcept = 0;
    //! The model file's name ("" by default).
    virtual char const* getModelFileName() const noexcept = 0;
    //! Sets the model file's name (copied).
    virtual void setModelFileName(char const* onnxFilename) noexcept = 0;
    //! The verbosity.
    virtual Verbosity getVerbosityLevel() const noexcept = 0;
    //! One step more verbose.
    virtual void addVerbosity() noexcept = 0;
    //! One step less verbose.
    virtual void reduceVerbosity() noexcept = 0;
    //! Sets the verbosity.
    virtual void setVerbosityLevel(Verbosity) noexcept = 0;
    //! The text report's file name.
    virtual char const* getTextFileName() const noexcept = 0;
    //! Sets the text report's file name (copied).
    virtual void setTextFileName(char const* textFileName) noexcept = 0;
    //! The full text report's file name.
    virtual char const* getFullTextFileName() const noexcept = 0;
    //! Sets the full text report's file name (copied).
    virtual void setFullTextFileName(char const* fullTextFileName) noexcept = 0;
    //! Whether layer information is printed.
    virtual bool getPrintLayerInfo() const noexcept = 0;
    //! Sets whether layer information is printed.
    virtual void setPrintLayerInfo(bool) noexcept = 0;
};

//! A new settings record; delete it when done.
TENSORRTAPI IOnnxConfig* createONNXConfig();

} // namespace nvonnxparser

#endif // NV_OnnxConfig_H
