// SPDX-License-Identifier: Apache-2.0
#include "builder/optimization_profile.h"

#include <algorithm>
#include <limits>

namespace kiln
{

using nvinfer1::Dims;
using nvinfer1::ErrorCode;
using nvinfer1::OptProfileSelector;

namespace
{

constexpr char const* kSelectorNames[] = {"kMIN", "kOPT", "kMAX"};

std::size_t slot(OptProfileSelector select) noexcept
{
    return static_cast<std::size_t>(select);
}

//! Why extents (of a shape or of shape values) at selector `select` do not fit those already set at the other
//! selectors (sizes differ, or kMIN <= kOPT <= kMAX fails at some index), or an empty string.
template <typename Get>
std::string orderProblem(char const* what, std::size_t select, Get const& get)
{
    std::string problem;
    for (std::size_t other = 0; other < 3 && problem.empty(); ++other)
    {
        auto const mine = get(select);
        auto const theirs = get(other);
        if (other == select || !mine || !theirs)
        {
            continue;
        }
        if (mine->size() != theirs->size())
        {
            problem = std::string(kSelectorNames[select]) + " has " + std::to_string(mine->size()) + " " + what
                + " but " + kSelectorNames[other] + " has " + std::to_string(theirs->size());
            continue;
        }
        std::size_t const low = std::min(select, other);
        std::size_t const high = std::max(select, other);
        auto const lows = get(low);
        auto const highs = get(high);
        for (std::size_t i = 0; i < lows->size(); ++i)
        {
            if ((*lows)[i] > (*highs)[i])
            {
                problem = std::string(kSelectorNames[low]) + " " + what + " " + std::to_string(i) + " is "
                    + std::to_string((*lows)[i]) + " but " + kSelectorNames[high] + " " + what + " " + std::to_string(i)
                    + " is " + std::to_string((*highs)[i]) + "; a profile needs kMIN <= kOPT <= kMAX";
                break;
            }
        }
    }
    return problem;
}

std::optional<std::vector<int64_t>> extentsOf(std::optional<Dims> const& dims)
{
    if (!dims)
    {
        return std::nullopt;
    }
    return std::vector<int64_t>(dims->d, dims->d + dims->nbDims);
}

//! Why input's ranges are incomplete or out of order, or an empty string.
std::string inputProblem(ProfileInput const& input)
{
    auto const count = [](auto const& selectors) {
        int32_t n = 0;
        for (auto const& s : selectors)
        {
            n += s ? 1 : 0;
        }
        return n;
    };
    int32_t const dimsSet = count(input.dims);
    if (dimsSet != 0 && dimsSet != 3)
    {
        return "its dimensions are set for only " + std::to_string(dimsSet) + " of kMIN, kOPT and kMAX";
    }
    int32_t const valuesSet = count(input.values);
    if (valuesSet != 0 && valuesSet != 3)
    {
        return "its shape values are set for only " + std::to_string(valuesSet) + " of kMIN, kOPT and kMAX";
    }
    std::string problem = orderProblem("extent", 0, [&](std::size_t s) { return extentsOf(input.dims[s]); });
    if (problem.empty())
    {
        problem = orderProblem("extent", 2, [&](std::size_t s) { return extentsOf(input.dims[s]); });
    }
    if (problem.empty())
    {
        problem = orderProblem("value", 1, [&](std::size_t s) { return input.values[s]; });
    }
    return problem;
}

} // namespace

std::optional<std::string> profileProblem(ProfileData const& data)
{
    for (auto const& [name, input] : data.inputs)
    {
        std::string problem = inputProblem(input);
        if (!problem.empty())
        {
            return "input \"" + name + "\": " + problem;
        }
    }
    return std::nullopt;
}

OptimizationProfile::OptimizationProfile(Reporter const& reporter)
    : mReporter(reporter)
{
    mImpl = &mImplObject;
}

ProfileInput const* OptimizationProfile::Impl::find(char const* inputName) const noexcept
{
    if (inputName == nullptr)
    {
        return nullptr;
    }
    try
    {
        auto const found = mProfile.mData.inputs.find(inputName);
        return found != mProfile.mData.inputs.end() ? &found->second : nullptr;
    }
    catch (...)
    {
        return nullptr;
    }
}

bool OptimizationProfile::Impl::setDimensions(
    char const* inputName, OptProfileSelector select, Dims const& dims) noexcept
{
    constexpr char const* kWhere = "IOptimizationProfile::setDimensions";
    Reporter const& reporter = mProfile.mReporter;
    if (inputName == nullptr || *inputName == '\0')
    {
        reporter.error(ErrorCode::kINVALID_ARGUMENT, kWhere, ": the input name is ", inputName ? "empty" : "null");
        return false;
    }
    if (!isValidEnum(select))
    {
        reporter.error(ErrorCode::kINVALID_ARGUMENT, kWhere, ": input ", quotedText(inputName), ": selector ", select,
            " is not a valid OptProfileSelector");
        return false;
    }
    if (dims.nbDims < 0 || dims.nbDims > Dims::MAX_DIMS)
    {
        reporter.error(ErrorCode::kINVALID_ARGUMENT, kWhere, ": input ", quotedText(inputName), ": ",
            kSelectorNames[slot(select)], " dimensions have rank ", dims.nbDims, "; a shape has 0 to ", Dims::MAX_DIMS,
            " dimensions");
        return false;
    }
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        if (dims.d[i] < 0)
        {
            reporter.error(ErrorCode::kINVALID_ARGUMENT, kWhere, ": input ", quotedText(inputName), ": ",
                kSelectorNames[slot(select)], " extent ", i, " is ", dims.d[i],
                "; profile extents are known sizes (at least 0)");
            return false;
        }
    }
    return reporter.guard(kWhere, false, [&] {
        ProfileInput candidate = find(inputName) != nullptr ? *find(inputName) : ProfileInput{};
        candidate.dims[slot(select)] = dims;
        std::string const problem
            = orderProblem("extent", slot(select), [&](std::size_t s) { return extentsOf(candidate.dims[s]); });
        if (!problem.empty())
        {
            reporter.error(ErrorCode::kINVALID_ARGUMENT, kWhere, ": input ", quotedText(inputName), ": ", problem);
            return false;
        }
        mProfile.mData.inputs[inputName] = std::move(candidate);
        return true;
    });
}

Dims OptimizationProfile::Impl::getDimensions(char const* inputName, OptProfileSelector select) const noexcept
{
    if (!isValidEnum(select))
    {
        mProfile.mReporter.error(ErrorCode::kINVALID_ARGUMENT, "IOptimizationProfile::getDimensions: selector ", select,
            " is not a valid OptProfileSelector");
        return Dims{-1, {}};
    }
    ProfileInput const* input = find(inputName);
    return input != nullptr && input->dims[slot(select)] ? *input->dims[slot(select)] : Dims{-1, {}};
}

bool OptimizationProfile::Impl::setValues(
    char const* method, char const* inputName, OptProfileSelector select, std::vector<int64_t> values)
{
    Reporter const& reporter = mProfile.mReporter;
    ProfileInput candidate = find(inputName) != nullptr ? *find(inputName) : ProfileInput{};
    candidate.values[slot(select)] = values;
    std::string const problem = orderProblem("value", slot(select), [&](std::size_t s) { return candidate.values[s]; });
    if (!problem.empty())
    {
        reporter.error(ErrorCode::kINVALID_ARGUMENT, "IOptimizationProfile::", method, ": input ",
            quotedText(inputName), ": ", problem);
        return false;
    }
    auto& narrow = candidate.values32[slot(select)];
    narrow.clear();
    bool fits = true;
    for (int64_t value : values)
    {
        fits = fits && value >= std::numeric_limits<int32_t>::min() && value <= std::numeric_limits<int32_t>::max();
        narrow.push_back(static_cast<int32_t>(value));
    }
    if (!fits)
    {
        narrow.clear();
    }
    mProfile.mData.inputs[inputName] = std::move(candidate);
    return true;
}

namespace
{

//! Checks the arguments shared by the shape-value setters; reports and returns false when one is wrong.
template <typename T>
bool checkValueArguments(Reporter const& reporter, char const* method, char const* inputName, OptProfileSelector select,
    T const* values, int32_t nbValues)
{
    if (inputName == nullptr || *inputName == '\0')
    {
        reporter.error(ErrorCode::kINVALID_ARGUMENT, "IOptimizationProfile::", method, ": the input name is ",
            inputName ? "empty" : "null");
        return false;
    }
    if (!isValidEnum(select))
    {
        reporter.error(ErrorCode::kINVALID_ARGUMENT, "IOptimizationProfile::", method, ": input ",
            quotedText(inputName), ": selector ", select, " is not a valid OptProfileSelector");
        return false;
    }
    if (nbValues < 0)
    {
        reporter.error(ErrorCode::kINVALID_ARGUMENT, "IOptimizationProfile::", method, ": input ",
            quotedText(inputName), ": nbValues is ", nbValues, "; it must be at least 0");
        return false;
    }
    if (values == nullptr && nbValues > 0)
    {
        reporter.error(ErrorCode::kINVALID_ARGUMENT, "IOptimizationProfile::", method, ": input ",
            quotedText(inputName), ": the values are null but nbValues is ", nbValues);
        return false;
    }
    return true;
}

} // namespace

bool OptimizationProfile::Impl::setShapeValues(
    char const* inputName, OptProfileSelector select, int32_t const* values, int32_t nbValues) noexcept
{
    if (!checkValueArguments(mProfile.mReporter, "setShapeValues", inputName, select, values, nbValues))
    {
        return false;
    }
    return mProfile.mReporter.guard("IOptimizationProfile::setShapeValues", false, [&] {
        return setValues("setShapeValues", inputName, select, std::vector<int64_t>(values, values + nbValues));
    });
}

bool OptimizationProfile::Impl::setShapeValuesV2(
    char const* inputName, OptProfileSelector select, int64_t const* values, int32_t nbValues) noexcept
{
    if (!checkValueArguments(mProfile.mReporter, "setShapeValuesV2", inputName, select, values, nbValues))
    {
        return false;
    }
    return mProfile.mReporter.guard("IOptimizationProfile::setShapeValuesV2", false, [&] {
        return setValues("setShapeValuesV2", inputName, select, std::vector<int64_t>(values, values + nbValues));
    });
}

int32_t OptimizationProfile::Impl::getNbShapeValues(char const* inputName) const noexcept
{
    ProfileInput const* input = find(inputName);
    if (input == nullptr)
    {
        return -1;
    }
    for (auto const& values : input->values)
    {
        if (values)
        {
            return static_cast<int32_t>(values->size());
        }
    }
    return -1;
}

int32_t const* OptimizationProfile::Impl::getShapeValues(
    char const* inputName, OptProfileSelector select) const noexcept
{
    ProfileInput const* input = find(inputName);
    if (input == nullptr || !isValidEnum(select) || !input->values[slot(select)])
    {
        return nullptr;
    }
    auto const& narrow = input->values32[slot(select)];
    return narrow.size() == input->values[slot(select)]->size() ? narrow.data() : nullptr;
}

int64_t const* OptimizationProfile::Impl::getShapeValuesV2(
    char const* inputName, OptProfileSelector select) const noexcept
{
    ProfileInput const* input = find(inputName);
    if (input == nullptr || !isValidEnum(select) || !input->values[slot(select)])
    {
        return nullptr;
    }
    return input->values[slot(select)]->data();
}

bool OptimizationProfile::Impl::setExtraMemoryTarget(float target) noexcept
{
    if (!(target >= 0.F && target <= 1.F))
    {
        mProfile.mReporter.error(ErrorCode::kINVALID_ARGUMENT, "IOptimizationProfile::setExtraMemoryTarget: target ",
            static_cast<double>(target), " is not in [0, 1]");
        return false;
    }
    mProfile.mData.extraMemoryTarget = target;
    return true;
}

float OptimizationProfile::Impl::getExtraMemoryTarget() const noexcept
{
    return mProfile.mData.extraMemoryTarget;
}

bool OptimizationProfile::Impl::isValid() const noexcept
{
    return mProfile.mReporter.guard(
        "IOptimizationProfile::isValid", false, [&] { return !profileProblem(mProfile.mData).has_value(); });
}

} // namespace kiln
