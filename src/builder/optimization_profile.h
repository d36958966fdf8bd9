// SPDX-License-Identifier: Apache-2.0
// An optimization profile: for each network input the smallest, optimum and largest shape (and, for shape inputs,
// values) an engine built with it accepts. Made and owned by the builder; a builder config keeps a copy of each
// profile added to it (ProfileData), which is what the build reads.
#pragma once

#include "network/report.h"

#include "NvInfer.h"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kiln
{

//! The ranges of one input, by OptProfileSelector (kMIN, kOPT, kMAX); unset selectors are empty.
struct ProfileInput
{
    std::array<std::optional<nvinfer1::Dims>, 3> dims;
    std::array<std::optional<std::vector<int64_t>>, 3> values;
    std::array<std::vector<int32_t>, 3> values32; //!< The values as int32_t when all fit (getShapeValues()).
};

//! What a profile holds.
struct ProfileData
{
    std::map<std::string, ProfileInput> inputs;
    float extraMemoryTarget{1.F};
};

//! Why data cannot be added to a builder config (a selector missing beside the others, ranks that differ, a
//! minimum above an optimum or an optimum above a maximum), or nullopt.
std::optional<std::string> profileProblem(ProfileData const& data);

class OptimizationProfile final : public nvinfer1::IOptimizationProfile
{
public:
    //! Errors go to reporter (the builder's).
    explicit OptimizationProfile(Reporter const& reporter);
    ~OptimizationProfile() noexcept override = default;

    ProfileData const& data() const noexcept { return mData; }

    //! The OptimizationProfile behind a profile kiln made.
    static OptimizationProfile const& of(nvinfer1::IOptimizationProfile const& profile) noexcept
    {
        return static_cast<OptimizationProfile const&>(profile);
    }

private:
    class Impl final : public nvinfer1::apiv::VOptimizationProfile
    {
    public:
        explicit Impl(OptimizationProfile& profile)
            : mProfile(profile)
        {
        }
        bool setDimensions(
            char const* inputName, nvinfer1::OptProfileSelector select, nvinfer1::Dims const& dims) noexcept override;
        nvinfer1::Dims getDimensions(
            char const* inputName, nvinfer1::OptProfileSelector select) const noexcept override;
        bool setShapeValues(char const* inputName, nvinfer1::OptProfileSelector select, int32_t const* values,
            int32_t nbValues) noexcept override;
        int32_t getNbShapeValues(char const* inputName) const noexcept override;
        int32_t const* getShapeValues(
            char const* inputName, nvinfer1::OptProfileSelector select) const noexcept override;
        bool setExtraMemoryTarget(float target) noexcept override;
        float getExtraMemoryTarget() const noexcept override;
        bool isValid() const noexcept override;
        bool setShapeValuesV2(char const* inputName, nvinfer1::OptProfileSelector select, int64_t const* values,
            int32_t nbValues) noexcept override;
        int64_t const* getShapeValuesV2(
            char const* inputName, nvinfer1::OptProfileSelector select) const noexcept override;

    private:
        bool setValues(char const* method, char const* inputName, nvinfer1::OptProfileSelector select,
            std::vector<int64_t> values);
        ProfileInput const* find(char const* inputName) const noexcept;

        OptimizationProfile& mProfile;
    };

    Impl mImplObject{*this};
    Reporter const& mReporter;
    ProfileData mData;
};

} // namespace kiln
