// SPDX-License-Identifier: Apache-2.0
// A layer's inputs as the host backend's descriptors (layer_kinds.cpp) see them, in the two phases: RunInputs at run
// time (views with data), QueryInputs at build time (types and shapes, and the values the build knows). Both are
// LayerInputs, so a descriptor resolves its parameters (values read from inputs, padding) once for both phases:
//
//     Expected<std::optional<Dims>> const start = inputs.values(1);   // nullopt: known only at run time
//
// Inputs read as values are 1-D kINT32 or kINT64 tensors of at most Dims::MAX_DIMS elements, or 0-D ones read as a
// scalar (TopK's k), in both phases.
#pragma once

#include "backends/backend.h"

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>

namespace kiln::host
{

//! An error of code kINVALID_ARGUMENT: how the dispatch refuses a layer or an input that does not fit its kind.
Error invalidArgument(std::string message);

//! One input a kind takes: what it is, for messages, and whether a layer of the kind must have it.
//! What a kernel reads of an input.
enum class InputUse : int32_t
{
    kDATA,   //!< Its elements, in the backend's memory.
    kVALUES, //!< Its values as parameters (a 1-D kINT32 or kINT64 shape tensor), read on the host.
    kSHAPE,  //!< Only its type and shape; its data is never read.
};

struct InputRole
{
    char const* name;
    bool required;
    InputUse use{InputUse::kDATA};
};

//! The inputs of one layer, described by the roles of its kind (the last role repeats for a variadic kind).
class LayerInputs
{
public:
    explicit LayerInputs(std::span<InputRole const> roles) noexcept
        : mRoles(roles)
    {
    }
    virtual ~LayerInputs() = default;
    LayerInputs(LayerInputs const&) = delete;
    LayerInputs& operator=(LayerInputs const&) = delete;

    //! The number of inputs the layer has, absent ones included.
    virtual std::size_t size() const noexcept = 0;

    //! Whether the layer has input index.
    virtual bool given(std::size_t index) const noexcept = 0;

    //! The type and shape of input index, which is given.
    virtual TensorDesc desc(std::size_t index) const noexcept = 0;

    //! The values of given input index as Dims, or nullopt when they are known only at run time. The error says why
    //! the input cannot be read as values.
    Expected<std::optional<Dims>> values(std::size_t index) const;

    //! The value of given input index, a 0-D kINT32 or kINT64 tensor (a scalar shape tensor such as TopK's k), or
    //! nullopt when it is known only at run time. The error says why the input cannot be read as a scalar.
    Expected<std::optional<int64_t>> scalar(std::size_t index) const;

    //! "input 1 (start)".
    std::string describe(std::size_t index) const;

    //! Why the layer does not fit its kind: an input too many (unless variadic), a required input it does not have, or
    //! not exactly expectedOutputs outputs (one for every built-in kind but TopK). kind is the layer's class name.
    std::optional<Error> checkArity(
        char const* kind, bool variadic, std::size_t nbOutputs, std::size_t expectedOutputs = 1) const;

protected:
    //! The values of input index, whose description values() has checked; what names it.
    virtual Expected<std::optional<Dims>> readValues(std::size_t index, std::string const& what) const = 0;
    //! The value of input index, whose description scalar() has checked; what names it.
    virtual Expected<std::optional<int64_t>> readScalar(std::size_t index, std::string const& what) const = 0;

private:
    std::span<InputRole const> mRoles;
};

//! The inputs at run time: views on host memory (nullptr where absent), and the outputs' views.
class RunInputs final : public LayerInputs
{
public:
    RunInputs(std::span<HostTensor const* const> inputs, std::span<InputRole const> roles,
        std::span<HostTensor const> outputs) noexcept
        : LayerInputs(roles)
        , mInputs(inputs)
        , mOutputs(outputs)
    {
    }

    std::size_t size() const noexcept override { return mInputs.size(); }
    bool given(std::size_t index) const noexcept override { return optional(index) != nullptr; }
    TensorDesc desc(std::size_t index) const noexcept override;

    //! Input index, or nullptr when the layer does not have it.
    HostTensor const* optional(std::size_t index) const noexcept
    {
        return index < mInputs.size() ? mInputs[index] : nullptr;
    }

    //! Input index, which the kind's roles require (checkArity made sure it is there).
    HostTensor const& required(std::size_t index) const noexcept { return *mInputs[index]; }

    std::span<HostTensor const* const> inputs() const noexcept { return mInputs; }
    //! The one output (checkArity made sure there is one).
    HostTensor const& output() const noexcept { return mOutputs.front(); }
    //! Output index of a kind with several (checkArity made sure there are as many as the kind has).
    HostTensor const& output(std::size_t index) const noexcept { return mOutputs[index]; }

private:
    Expected<std::optional<Dims>> readValues(std::size_t index, std::string const& what) const override;
    Expected<std::optional<int64_t>> readScalar(std::size_t index, std::string const& what) const override;

    std::span<HostTensor const* const> mInputs;
    std::span<HostTensor const> mOutputs;
};

//! The inputs at build time, as a LayerQuery gives them.
class QueryInputs final : public LayerInputs
{
public:
    QueryInputs(LayerQuery const& query, std::span<InputRole const> roles) noexcept
        : LayerInputs(roles)
        , mQuery(query)
    {
    }

    std::size_t size() const noexcept override { return mQuery.inputs.size(); }
    bool given(std::size_t index) const noexcept override
    {
        return index < mQuery.inputs.size() && mQuery.inputs[index].has_value();
    }
    TensorDesc desc(std::size_t index) const noexcept override { return mQuery.inputs[index]->desc; }

    //! A view of given input index for a kernel's infer function that takes views: its type and shape, and a data
    //! pointer that is not null (so that checks for data pass) and that nothing reads.
    HostTensor view(std::size_t index) const noexcept;

    //! The type the network gives the one output (checkArity made sure there is one).
    DataType outputType() const noexcept { return mQuery.outputTypes.front(); }
    //! The type the network gives output index of a kind with several.
    DataType outputType(std::size_t index) const noexcept { return mQuery.outputTypes[index]; }

private:
    Expected<std::optional<Dims>> readValues(std::size_t index, std::string const& what) const override;
    Expected<std::optional<int64_t>> readScalar(std::size_t index, std::string const& what) const override;

    LayerQuery const& mQuery;
    alignas(8) mutable std::array<std::byte, 8> mUnread{};
};

} // namespace kiln::host
