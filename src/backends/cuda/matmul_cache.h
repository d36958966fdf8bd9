// SPDX-License-Identifier: Apache-2.0
// The prepared cuBLASLt state of the matrix multiplies one execution context has run (matrix_multiply.cpp): per
// problem (types, operations, extents, batch strides, the pointers' alignment classes, the epilogue) the matmul
// descriptor, the layouts, the preference and the heuristic's results, so that a steady-state run makes no descriptor
// or heuristic calls. Bounded: past kCapacity problems the least recently used one is dropped (cuBLASLt reads the
// descriptors when a matmul is enqueued, so dropping them never affects queued work). Owned by Libraries; not
// thread-safe, like it.
//
//     MatmulCache& cache = libraries.matmulCache();
//     MatmulPlan* plan = cache.find(key);
//     if (plan == nullptr)
//     {
//         auto made = std::make_unique<MatmulPlan>();   // ... describe the problem into *made ...
//         plan = &cache.insert(key, std::move(made));
//     }
#pragma once

#include <cublasLt.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln::cuda
{

//! The cuBLASLt state of one problem, destroyed with it.
struct MatmulPlan
{
    cublasLtMatmulDesc_t op{};
    cublasLtMatrixLayout_t first{};  //!< cuBLASLt's A: the stored b.
    cublasLtMatrixLayout_t second{}; //!< cuBLASLt's B: the stored a.
    cublasLtMatrixLayout_t result{}; //!< C and D: the stored out.
    cublasLtMatmulPreference_t preference{};
    std::vector<cublasLtMatmulHeuristicResult_t> results;   //!< The tactics, best first.
    std::vector<std::string> names;                         //!< Their names (TacticNames), in the same order.
    cublasLtEpilogue_t epilogue{CUBLASLT_EPILOGUE_DEFAULT}; //!< The epilogue op computes.
    void const* bias{};                                     //!< The bias pointer op holds now.

    MatmulPlan() = default;
    MatmulPlan(MatmulPlan const&) = delete;
    MatmulPlan& operator=(MatmulPlan const&) = delete;
    ~MatmulPlan()
    {
        if (preference != nullptr)
        {
            static_cast<void>(cublasLtMatmulPreferenceDestroy(preference));
        }
        for (cublasLtMatrixLayout_t const layout : {first, second, result})
        {
            if (layout != nullptr)
            {
                static_cast<void>(cublasLtMatrixLayoutDestroy(layout));
            }
        }
        if (op != nullptr)
        {
            static_cast<void>(cublasLtMatmulDescDestroy(op));
        }
    }
};

//! The plans of the problems seen, by key, least recently used dropped first.
class MatmulCache
{
public:
    //! What identifies a problem (matrix_multiply.cpp fills it): every field that reaches a descriptor or the
    //! heuristic.
    using Key = std::array<int64_t, 16>;
    //! The most plans kept.
    static constexpr std::size_t kCapacity = 64;

    //! The plan of key, or nullptr; a hit makes it the most recently used.
    MatmulPlan* find(Key const& key) noexcept
    {
        for (Entry& entry : mEntries)
        {
            if (entry.key == key)
            {
                entry.lastUse = ++mClock;
                ++mHits;
                return entry.plan.get();
            }
        }
        ++mMisses;
        return nullptr;
    }

    //! Keeps plan for key (not already present), dropping the least recently used plan when full.
    MatmulPlan& insert(Key const& key, std::unique_ptr<MatmulPlan> plan)
    {
        if (mEntries.size() >= kCapacity)
        {
            std::size_t oldest = 0;
            for (std::size_t i = 1; i < mEntries.size(); ++i)
            {
                if (mEntries[i].lastUse < mEntries[oldest].lastUse)
                {
                    oldest = i;
                }
            }
            mEntries[oldest] = std::move(mEntries.back());
            mEntries.pop_back();
        }
        mEntries.push_back(Entry{key, std::move(plan), ++mClock});
        return *mEntries.back().plan;
    }

    //! How many plans are kept.
    std::size_t size() const noexcept { return mEntries.size(); }
    //! Lookups that found a plan, and lookups that did not (each then described the problem anew).
    int64_t hits() const noexcept { return mHits; }
    int64_t misses() const noexcept { return mMisses; }

private:
    struct Entry
    {
        Key key{};
        std::unique_ptr<MatmulPlan> plan;
        uint64_t lastUse{};
    };
    std::vector<Entry> mEntries;
    uint64_t mClock{};
    int64_t mHits{};
    int64_t mMisses{};
};

} // namespace kiln::cuda
