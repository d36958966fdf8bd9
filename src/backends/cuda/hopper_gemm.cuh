// SPDX-License-Identifier: Apache-2.0
// One CUTLASS 3 kernel configuration of hopper_gemm.h, instantiated by one hopper_gemm_*.cu file each (so that the
// configurations, slow to compile, compile in parallel): a warp-specialized TMA/wgmma mainloop over a row-major a and
// a row-major [K, N] b, and an epilogue computing activation(acc + bias[n]) in float, stored by TMA.
//
//     // hopper_gemm_example.cu
//     #include "backends/cuda/hopper_gemm.cuh"
//     namespace kiln::cuda::hopper
//     {
//     Status runExample(Problem const& p, Libraries& l, cudaStream_t s)
//     {
//         return Kernel<cutlass::half_t, cute::Shape<cute::_128, cute::_128, cute::_64>, cute::Shape<cute::_1,
//             cute::_1, cute::_1>, Schedule::kCooperative, cutlass::epilogue::thread::GELU>::run(p, l, s);
//     }
//     }
#pragma once

#include "backends/cuda/hopper_gemm.h"
#include "backends/cuda/libraries.h"

#include <cute/tensor.hpp>
#include <cutlass/cutlass.h>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/epilogue/fusion/operations.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/gemm/kernel/gemm_universal.hpp>

#include <memory>
#include <string>

namespace kiln::cuda::hopper
{

//! How the kernel's warp groups share a tile: both on one (cooperative) or one tile each, alternating (ping-pong).
enum class Schedule
{
    kCooperative,
    kPingpong,
};

//! The prepared-state family of these kernels in Libraries::prepared() (libraries.h; other families use other values).
constexpr int64_t kPreparedFamily = 0x48475031; // "HGP1"

//! The identity, for a kernel without activation.
template <typename T>
using NoActivation = cutlass::epilogue::thread::Identity<T>;

template <typename Element, typename TileShape, typename ClusterShape, Schedule kSchedule,
    template <typename> typename Activation>
class Kernel
{
    using RowMajor = cutlass::layout::RowMajor;
    static constexpr int kAlignment = 8; // elements of 16 bits: 16 bytes
    using MainSchedule = std::conditional_t<kSchedule == Schedule::kCooperative,
        cutlass::gemm::KernelTmaWarpSpecializedCooperative, cutlass::gemm::KernelTmaWarpSpecializedPingpong>;
    using EpilogueSchedule = std::conditional_t<kSchedule == Schedule::kCooperative,
        cutlass::epilogue::TmaWarpSpecializedCooperative, cutlass::epilogue::TmaWarpSpecialized>;
    // D = activation(alpha * acc + bias[n]); no C operand (void): beta is unused.
    using Fusion
        = cutlass::epilogue::fusion::LinCombPerColBiasEltAct<Activation, Element, float, Element, Element, float>;
    using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<cutlass::arch::Sm90,
        cutlass::arch::OpClassTensorOp, TileShape, ClusterShape, cutlass::epilogue::collective::EpilogueTileAuto, float,
        float, void, RowMajor, kAlignment, Element, RowMajor, kAlignment, EpilogueSchedule, Fusion>::CollectiveOp;
    using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<cutlass::arch::Sm90,
        cutlass::arch::OpClassTensorOp, Element, RowMajor, kAlignment, Element, RowMajor, kAlignment, float, TileShape,
        ClusterShape,
        cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
        MainSchedule>::CollectiveOp;
    using GemmKernel = cutlass::gemm::kernel::GemmUniversal<cute::Shape<int, int, int, int>, Mainloop, Epilogue>;
    using Gemm = cutlass::gemm::device::GemmUniversalAdapter<GemmKernel>;

    //! The launch parameters of one problem at its pointers.
    struct Launch final : Prepared
    {
        typename Gemm::Params params;
    };

    static Error failure(cutlass::Status status, char const* what)
    {
        return Error{nvinfer1::ErrorCode::kINTERNAL_ERROR,
            std::string("matrix multiply (CUTLASS): ") + what + ": " + cutlassGetStatusString(status)};
    }

public:
    static Status run(Problem const& p, Libraries& libraries, cudaStream_t stream)
    {
        PreparedCache::Key key{};
        key[0] = kPreparedFamily;
        key[1] = reinterpret_cast<int64_t>(&run); // the configuration
        key[2] = p.m;
        key[3] = p.n;
        key[4] = p.k;
        key[5] = reinterpret_cast<int64_t>(p.a);
        key[6] = reinterpret_cast<int64_t>(p.b);
        key[7] = reinterpret_cast<int64_t>(p.bias);
        key[8] = reinterpret_cast<int64_t>(p.out);
        auto* launch = static_cast<Launch*>(libraries.prepared().find(key));
        if (launch == nullptr)
        {
            auto const m = static_cast<int>(p.m);
            auto const n = static_cast<int>(p.n);
            auto const k = static_cast<int>(p.k);
            // Element strides over (M, K, batch) for a, (N, K, batch) for b, (M, N, batch) for out.
            typename GemmKernel::StrideA strideA{};
            cute::get<0>(strideA) = p.k;
            cute::get<2>(strideA) = p.m * p.k;
            typename GemmKernel::StrideB strideB{};
            cute::get<1>(strideB) = p.n;
            cute::get<2>(strideB) = p.n * p.k;
            typename GemmKernel::StrideD strideD{};
            cute::get<0>(strideD) = p.n;
            cute::get<2>(strideD) = p.m * p.n;
            typename Gemm::Arguments arguments{cutlass::gemm::GemmUniversalMode::kGemm, {m, n, k, 1},
                {static_cast<Element const*>(p.a), strideA, static_cast<Element const*>(p.b), strideB},
                {{}, nullptr, strideD, static_cast<Element*>(p.out), strideD}};
            arguments.epilogue.thread.alpha = 1.F;
            arguments.epilogue.thread.beta = 0.F;
            arguments.epilogue.thread.bias_ptr = static_cast<Element const*>(p.bias);
            if (cutlass::Status const status = Gemm::can_implement(arguments); status != cutlass::Status::kSuccess)
            {
                return failure(status, "can_implement");
            }
            if (Gemm::get_workspace_size(arguments) != 0)
            {
                return Error{nvinfer1::ErrorCode::kINTERNAL_ERROR,
                    "matrix multiply (CUTLASS): the kernel asks for a workspace, which kiln does not give it"};
            }
            Gemm gemm;
            // Sets the kernel's shared-memory size (once per context would do) and makes the TMA descriptors.
            if (cutlass::Status const status = gemm.initialize(arguments, nullptr, stream);
                status != cutlass::Status::kSuccess)
            {
                return failure(status, "initialize");
            }
            auto made = std::make_unique<Launch>();
            made->params = gemm.params();
            launch = static_cast<Launch*>(libraries.prepared().insert(key, std::move(made)));
        }
        if (cutlass::Status const status = Gemm::run(launch->params, stream); status != cutlass::Status::kSuccess)
        {
            return failure(status, "run");
        }
        return host::Done{};
    }
};

} // namespace kiln::cuda::hopper
