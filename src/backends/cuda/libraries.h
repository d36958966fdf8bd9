// SPDX-License-Identifier: Apache-2.0
// What the library-backed kernels (matrix_multiply.cpp with cuBLASLt, convolution.cpp with cuDNN) share besides the
// Libraries class of kernels.h: the errors for failed library calls, with the library's own name and text for the
// status, and the cache of what a kernel prepares once per geometry (descriptors, algorithm lists).
//
//     cublasStatus_t const status = cublasLtMatmul(...);
//     if (status != CUBLAS_STATUS_SUCCESS) { return cublasFailure(status, "matrix multiply: cublasLtMatmul"); }
//
//     PreparedCache::Key key{kConvolutionFamily, ...};           // everything the prepared state depends on
//     Prepared* found = libraries.prepared().find(key);          // null the first time
//     if (found == nullptr) { found = libraries.prepared().insert(key, std::make_unique<MyPlan>(...)); }
#pragma once

#include "core/error.h"

#include <cublasLt.h>
#include <cudnn.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <list>
#include <memory>
#include <unordered_map>
#include <utility>

namespace kiln::cuda
{

//! The error for a failed cuBLASLt call: what was done, cublasLtGetStatusName and cublasLtGetStatusString.
Error cublasFailure(cublasStatus_t status, char const* what);

//! The error for a failed cuDNN call: what was done and cudnnGetErrorString.
Error cudnnFailure(cudnnStatus_t status, char const* what);

//! The alignment in bytes (a power of two, at most 256) that address and every offset share; 256 for nullptr.
uint32_t commonAlignment(void const* address, std::initializer_list<int64_t> offsets) noexcept;

//! What a library-backed kernel prepares once for a geometry and reuses on every later run: a kernel derives its own
//! type (convolution.cpp's descriptors and tactics) and frees its library objects in its destructor.
class Prepared
{
public:
    Prepared() = default;
    Prepared(Prepared const&) = delete;
    Prepared& operator=(Prepared const&) = delete;
    virtual ~Prepared() = default;
};

//! A bounded map from a geometry key to what was prepared for it, least recently used first out. Not thread-safe
//! (one per Libraries, one Libraries per execution context).
class PreparedCache
{
public:
    //! Everything the prepared state depends on, element 0 naming the kernel family; unused elements are 0.
    using Key = std::array<int64_t, 48>;
    //! The most entries kept: inserting into a full cache drops the least recently used.
    static constexpr std::size_t kCapacity = 64;

    //! The entry for key, now the most recently used, or nullptr.
    Prepared* find(Key const& key);
    //! Stores prepared for key (replacing an entry with the same key) and returns it.
    Prepared* insert(Key const& key, std::unique_ptr<Prepared> prepared);
    //! The number of entries.
    std::size_t size() const noexcept { return mEntries.size(); }

private:
    using Entries = std::list<std::pair<Key, std::unique_ptr<Prepared>>>;
    struct KeyHash
    {
        std::size_t operator()(Key const& key) const noexcept;
    };
    Entries mEntries; //!< Most recently used first.
    //! Each entry by key: a run's look-up costs one hash, not a walk through the list.
    std::unordered_map<Key, Entries::iterator, KeyHash> mIndex;
};

} // namespace kiln::cuda
