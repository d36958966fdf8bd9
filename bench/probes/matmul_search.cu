// SPDX-License-Identifier: Apache-2.0
// A probe, not part of the build: does an exhaustive search of cuBLASLt's algorithm space find configurations of
// BERT-base's products clearly faster than the best of the first 8 or 32 heuristic results, which is what kiln times
// and keeps? At batch 32 x 128 (4096 rows) some products run well below the H200's throughput (the attention output,
// 4096x768 @ 768x768 with bias and residual, ~14 us; the fused q/k/v, 4096x768 @ 768x2304, ~28 us). Every product is
// laid out as kiln lays it out: row-major a[rows, k], w[k, n], out[rows, n], computed in cuBLASLt's column-major view
// as out^T = w^T a^T, fp16 operands, float compute and scale, the BIAS epilogue (half bias of n), beta 1 with the
// residual in out itself (C = D) for the products that add one, 32 MiB of workspace. For each shape:
//
//   heuristic   up to 64 results of cublasLtMatmulAlgoGetHeuristic, each timed: 3 warm-up launches, then the mean
//               of 20 launches queued behind a kernel that holds the GPU, so that the CPU's launch overhead (several us
//               for cuBLASLt's cluster kernels) does not count
//   search      every algorithm id of cublasLtMatmulAlgoGetIds, cublasLtMatmulAlgoInit'ed, its capabilities read.
//               Phase 1 screens every tile x stages x custom option (0 to 7) x cluster shape of every id (split-K 1,
//               no swizzle) with cublasLtMatmulAlgoCheck alone, the ids in turn so that a budget cut leaves them
//               alike (this header has no capability listing cluster shapes: 9 common ones are tried, and the Hopper
//               kernels refuse cluster auto). Then it times, a greedy descent: the first accepted configuration of
//               each tile x stages pair; the first of each custom option of the pairs within twice the best; every
//               accepted configuration (the cluster shapes) of the pair-options within 1.3 times the best. Phase 2
//               times every split-K (1 to 4) x supported reduction scheme x swizzle around the 24 fastest of phase 1
//               and the heuristic's 8 fastest (those rebuilt as they are first). A configuration is set with
//               cublasLtMatmulAlgoConfigSetAttribute, skipped when cublasLtMatmulAlgoCheck refuses it or wants more
//               than 32 MiB, left after 3 launches when their estimate is over twice the best so far, else timed like
//               the heuristic's; at most 4000 timed and ~11 s a shape
//   finals      the heuristic's first 8 and 8 fastest others, and the search's 8 fastest, each replayed as a CUDA
//               graph of 20 launches (median of 7 replays, launch overhead excluded): the figures printed in us
//   check       the output of the search's best 5 against the heuristic #1's (the residual restored before each run),
//               and the heuristic #1's against the CPU on 256 sampled entries
//
// A configuration the search rebuilds through cublasLtMatmulAlgoInit is marked =h#r when its attributes equal those of
// the heuristic's result r (the heuristic's algo may still carry state the attributes do not show). The whole run took
// 33 s on an H200 with cuBLASLt 13.1 (132 lines of output); its budgets bound it near 75 s. On a GPU machine:
//
//     nvcc -O3 -std=c++17 -arch=sm_90 bench/probes/matmul_search.cu -o /tmp/matmul_search -lcublasLt
//     /tmp/matmul_search
#include "check.h"

#include <cublasLt.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace
{

constexpr size_t kWorkspace = size_t{32} << 20;
constexpr int kHeuristicRequest = 64;
constexpr int kMaxIds = 100;
constexpr int kTimedLaunches = 20;     // launches averaged per candidate, after 3 warm-ups
constexpr int kGraphLaunches = 20;     // launches in each finalist's graph
constexpr int kGraphReplays = 7;       // timed replays of that graph, after one warm-up; the median is kept
constexpr int kFinalists = 8;          // of each list, re-timed as graphs
constexpr int kShown = 5;              // of the search's finalists, printed
constexpr int kMaxTimed = 4000;        // fully timed configurations per shape
constexpr int kMaxTimedPhase1 = 3600;  // of which phase 1 may take
constexpr double kShapeSeconds = 11.0; // search budget per shape, of which (cumulative shares):
constexpr double kScreenShare = 0.35;  // phase 1's screening may take
constexpr double kPairsShare = 0.5;    // and its runs of one configuration per tile x stages pair
constexpr double kOptionsShare = 0.7;  // and of one per custom option of the pairs within kPruneFactor of the best
constexpr double kPhase1Share = 0.9;   // and of the cluster shapes of the pair-options within kClusterFactor
constexpr double kRunSeconds = 70.0;   // search budget of the whole run, shared by the shapes still to go
constexpr float kPruneFactor = 2.F;    // a candidate estimated slower than this times the best so far is left
constexpr float kClusterFactor = 1.3F;
constexpr uint32_t kMaxCustomOption = 7;
constexpr int kSeedsFromSearch = 24;
constexpr int kSeedsFromHeuristic = 8;
constexpr int kCpuSamples = 256;
constexpr double kPeakTflops = 989.0; // H200 dense fp16 with float accumulation
constexpr int32_t kMaxSplitK = 4;

// No CUBLASLT_ALGO_CAP_CLUSTER_SHAPE_IDS in this header: these are tried, cublasLtMatmulAlgoCheck refuses the others.
constexpr uint16_t kClusterShapes[]
    = {CUBLASLT_CLUSTER_SHAPE_AUTO, CUBLASLT_CLUSTER_SHAPE_1x1x1, CUBLASLT_CLUSTER_SHAPE_2x1x1,
        CUBLASLT_CLUSTER_SHAPE_1x2x1, CUBLASLT_CLUSTER_SHAPE_2x2x1, CUBLASLT_CLUSTER_SHAPE_4x1x1,
        CUBLASLT_CLUSTER_SHAPE_1x4x1, CUBLASLT_CLUSTER_SHAPE_4x2x1, CUBLASLT_CLUSTER_SHAPE_2x4x1};

// The names of cublasLtMatmulTile_t, cublasLtMatmulStages_t and cublasLtClusterShape_t in value order, from CUDA 13.0's
// cublasLt.h ("?" where a value has no name).
char const* const kTileNames
    = "undef 8x8 8x16 16x8 8x32 16x16 32x8 8x64 16x32 32x16 64x8 32x32 32x64 64x32 32x128 64x64 128x32 64x128 128x64 "
      "64x256 128x128 256x64 64x512 128x256 256x128 512x64 64x96 96x64 96x128 128x160 160x128 192x128 128x192 128x96 "
      "32x256 256x32 8x128 8x192 8x256 8x320 8x384 8x448 8x512 8x576 8x640 8x704 8x768 16x64 16x128 16x192 16x256 "
      "16x320 16x384 16x448 16x512 16x576 16x640 16x704 16x768 24x64 24x128 24x192 24x256 24x320 24x384 24x448 24x512 "
      "24x576 24x640 24x704 24x768 32x192 32x320 32x384 32x448 32x512 32x576 32x640 32x704 32x768 40x64 40x128 40x192 "
      "40x256 40x320 40x384 40x448 40x512 40x576 40x640 40x704 40x768 48x64 48x128 48x192 48x256 48x320 48x384 48x448 "
      "48x512 48x576 48x640 48x704 48x768 56x64 56x128 56x192 56x256 56x320 56x384 56x448 56x512 56x576 56x640 56x704 "
      "56x768 64x192 64x320 64x384 64x448 64x576 64x640 64x704 64x768 72x64 72x128 72x192 72x256 72x320 72x384 72x448 "
      "72x512 72x576 72x640 80x64 80x128 80x192 80x256 80x320 80x384 80x448 80x512 80x576 88x64 88x128 88x192 88x256 "
      "88x320 88x384 88x448 88x512 96x192 96x256 96x320 96x384 96x448 96x512 104x64 104x128 104x192 104x256 104x320 "
      "104x384 104x448 112x64 112x128 112x192 112x256 112x320 112x384 120x64 120x128 120x192 120x256 120x320 120x384 "
      "128x320 128x384 136x64 136x128 136x192 136x256 136x320 144x64 144x128 144x192 144x256 144x320 152x64 152x128 "
      "152x192 152x256 152x320 160x64 160x192 160x256 168x64 168x128 168x192 168x256 176x64 176x128 176x192 176x256 "
      "184x64 184x128 184x192 184x256 192x64 192x192 192x256 200x64 200x128 200x192 208x64 208x128 208x192 216x64 "
      "216x128 216x192 224x64 224x128 224x192 232x64 232x128 232x192 240x64 240x128 240x192 248x64 248x128 248x192 "
      "256x192 264x64 264x128 272x64 272x128 280x64 280x128 288x64 288x128 296x64 296x128 304x64 304x128 312x64 "
      "312x128 320x64 320x128 328x64 328x128 336x64 336x128 344x64 344x128 352x64 352x128 360x64 360x128 368x64 "
      "368x128 376x64 376x128 384x64 384x128 392x64 400x64 408x64 416x64 424x64 432x64 440x64 448x64 456x64 464x64 "
      "472x64 480x64 488x64 496x64 504x64 520x64 528x64 536x64 544x64 552x64 560x64 568x64 576x64 584x64 592x64 "
      "600x64 608x64 616x64 624x64 632x64 640x64 648x64 656x64 664x64 672x64 680x64 688x64 696x64 704x64 712x64 "
      "720x64 728x64 736x64 744x64 752x64 760x64 768x64 64x16 64x24 64x40 64x48 64x56 64x72 64x80 64x88 64x104 64x112 "
      "64x120 64x136 64x144 64x152 64x160 64x168 64x176 64x184 64x200 64x208 64x216 64x224 64x232 64x240 64x248 "
      "64x264 64x272 64x280 64x288 64x296 64x304 64x312 64x328 64x336 64x344 64x352 64x360 64x368 64x376 64x392 "
      "64x400 64x408 64x416 64x424 64x432 64x440 64x456 64x464 64x472 64x480 64x488 64x496 64x504 64x520 64x528 "
      "64x536 64x544 64x552 64x560 64x568 64x584 64x592 64x600 64x608 64x616 64x624 64x632 64x648 64x656 64x664 "
      "64x672 64x680 64x688 64x696 64x712 64x720 64x728 64x736 64x744 64x752 64x760 128x8 128x16 128x24 128x40 128x48 "
      "128x56 128x72 128x80 128x88 128x104 128x112 128x120 128x136 128x144 128x152 128x168 128x176 128x184 128x200 "
      "128x208 128x216 128x224 128x232 128x240 128x248 128x264 128x272 128x280 128x288 128x296 128x304 128x312 "
      "128x328 128x336 128x344 128x352 128x360 128x368 128x376 128x392 128x400 128x408 128x416 128x424 128x432 "
      "128x440 128x448 128x456 128x464 128x472 128x480 128x488 128x496 128x504 128x512 192x8 192x16 192x24 192x32 "
      "192x40 192x48 192x56 192x72 192x80 192x88 192x96 192x104 192x112 192x120 192x136 192x144 192x152 192x160 "
      "192x168 192x176 192x184 192x200 192x208 192x216 192x224 192x232 192x240 192x248 192x264 192x272 192x280 "
      "192x288 192x296 192x304 192x312 192x320 192x328 192x336 256x8 256x16 256x24 256x40 256x48 256x56 256x72 256x80 "
      "256x88 256x96 256x104 256x112 256x120 256x136 256x144 256x152 256x160 256x168 256x176 256x184 256x200 256x208 "
      "256x216 256x224 256x232 256x240 256x248 256x256 320x8 320x16 320x24 320x32 320x40 320x48 320x56 320x72 320x80 "
      "320x88 320x96 320x104 320x112 320x120 320x136 320x144 320x152 320x160 320x168 320x176 320x184 320x192 320x200 "
      "384x8 384x16 384x24 384x32 384x40 384x48 384x56 384x72 384x80 384x88 384x96 384x104 384x112 384x120 384x136 "
      "384x144 384x152 384x160 384x168 448x8 448x16 448x24 448x32 448x40 448x48 448x56 448x72 448x80 448x88 448x96 "
      "448x104 448x112 448x120 448x128 448x136 448x144 512x8 512x16 512x24 512x32 512x40 512x48 512x56 512x72 512x80 "
      "512x88 512x96 512x104 512x112 512x120 512x128 576x8 576x16 576x24 576x32 576x40 576x48 576x56 576x72 576x80 "
      "576x88 576x96 576x104 576x112 640x8 640x16 640x24 640x32 640x40 640x48 640x56 640x72 640x80 640x88 640x96 "
      "704x8 704x16 704x24 704x32 704x40 704x48 704x56 704x72 704x80 704x88 768x8 768x16 768x24 768x32 768x40 768x48 "
      "768x56 768x72 768x80 256x512 256x1024 512x512 512x1024";
char const* const kStagesNames
    = "undef 16x1 16x2 16x3 16x4 16x5 16x6 32x1 32x2 32x3 32x4 32x5 32x6 64x1 64x2 64x3 64x4 64x5 64x6 128x1 128x2 "
      "128x3 128x4 128x5 128x6 32x10 8x4 16x10 8x5 ? ? 8x3 8xAUTO 16xAUTO 32xAUTO 64xAUTO 128xAUTO 256xAUTO 768xAUTO";
char const* const kClusterNames
    = "auto ? 1x1x1 2x1x1 4x1x1 1x2x1 2x2x1 4x2x1 1x4x1 2x4x1 4x4x1 8x1x1 1x8x1 8x2x1 2x8x1 16x1x1 1x16x1 3x1x1 5x1x1 "
      "6x1x1 7x1x1 9x1x1 10x1x1 11x1x1 12x1x1 13x1x1 14x1x1 15x1x1 3x2x1 5x2x1 6x2x1 7x2x1 1x3x1 2x3x1 3x3x1 4x3x1 "
      "5x3x1 3x4x1 1x5x1 2x5x1 3x5x1 1x6x1 2x6x1 1x7x1 2x7x1 1x9x1 1x10x1 1x11x1 1x12x1 1x13x1 1x14x1 1x15x1";

std::vector<std::string> splitNames(char const* packed)
{
    std::vector<std::string> names;
    std::istringstream in(packed);
    for (std::string name; in >> name;)
    {
        names.push_back(name);
    }
    return names;
}

std::vector<std::string> const gTileNames = splitNames(kTileNames);
std::vector<std::string> const gStagesNames = splitNames(kStagesNames);
std::vector<std::string> const gClusterNames = splitNames(kClusterNames);

char const* nameOf(std::vector<std::string> const& names, uint32_t id)
{
    return id < names.size() ? names[id].c_str() : "?";
}

//! Seconds since the first call (main's first statement).
double seconds()
{
    static auto const start = std::chrono::steady_clock::now();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

cublasLtHandle_t gLt;
void* gWorkspace;
cudaStream_t gStream;
cudaEvent_t gStart;
cudaEvent_t gStop;

//! The attributes that make one configuration of an algorithm, with the types cublasLt stores them in.
struct Config
{
    int32_t id{};
    uint32_t tile{};
    uint32_t stages{};
    int32_t splitK{1};
    uint32_t scheme{};
    uint32_t swizzle{};
    uint32_t custom{};
    uint16_t cluster{};

    auto key() const { return std::tie(id, tile, stages, splitK, scheme, swizzle, custom, cluster); }
    bool operator<(Config const& other) const { return key() < other.key(); }
    bool operator==(Config const& other) const { return key() == other.key(); }
};

template <typename T>
void getConfig(cublasLtMatmulAlgo_t const& algo, cublasLtMatmulAlgoConfigAttributes_t attribute, T& value)
{
    T read{};
    size_t written = 0;
    if (cublasLtMatmulAlgoConfigGetAttribute(&algo, attribute, &read, sizeof(read), &written) == CUBLAS_STATUS_SUCCESS)
    {
        value = read;
    }
}

//! Sets one attribute of a freshly initialised algo; a value equal to the documented default is left unset.
template <typename T>
bool setConfig(cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attribute, T value, T unset)
{
    return value == unset
        || cublasLtMatmulAlgoConfigSetAttribute(&algo, attribute, &value, sizeof(value)) == CUBLAS_STATUS_SUCCESS;
}

Config readConfig(cublasLtMatmulAlgo_t const& algo)
{
    Config c;
    getConfig(algo, CUBLASLT_ALGO_CONFIG_ID, c.id);
    getConfig(algo, CUBLASLT_ALGO_CONFIG_TILE_ID, c.tile);
    getConfig(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, c.stages);
    getConfig(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, c.splitK);
    getConfig(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, c.scheme);
    getConfig(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, c.swizzle);
    getConfig(algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, c.custom);
    getConfig(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, c.cluster);
    return c;
}

bool applyConfig(cublasLtMatmulAlgo_t& algo, Config const& c)
{
    Config const unset;
    return setConfig(algo, CUBLASLT_ALGO_CONFIG_TILE_ID, c.tile, unset.tile)
        && setConfig(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, c.stages, unset.stages)
        && setConfig(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, c.splitK, unset.splitK)
        && setConfig(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, c.scheme, unset.scheme)
        && setConfig(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, c.swizzle, unset.swizzle)
        && setConfig(algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, c.custom, unset.custom)
        && setConfig(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, c.cluster, unset.cluster);
}

//! One algorithm id, initialised, with the capabilities the search enumerates.
struct Caps
{
    cublasLtMatmulAlgo_t base{};
    int32_t id{};
    std::vector<uint32_t> tiles;
    std::vector<uint32_t> stages;
    int32_t splitK{};
    uint32_t schemes{};
    uint32_t swizzle{};
    int32_t customMax{};
};

//! An array capability of uint32_t ids, its size asked first; {0} (undefined) when the algorithm lists none.
std::vector<uint32_t> capIds(cublasLtMatmulAlgo_t const& algo, cublasLtMatmulAlgoCapAttributes_t attribute)
{
    std::vector<uint32_t> ids;
    size_t bytes = 0;
    if (cublasLtMatmulAlgoCapGetAttribute(&algo, attribute, nullptr, 0, &bytes) == CUBLAS_STATUS_SUCCESS
        && bytes >= sizeof(uint32_t))
    {
        ids.resize(bytes / sizeof(uint32_t));
        size_t written = 0;
        if (cublasLtMatmulAlgoCapGetAttribute(&algo, attribute, ids.data(), ids.size() * sizeof(uint32_t), &written)
            == CUBLAS_STATUS_SUCCESS)
        {
            ids.resize(written / sizeof(uint32_t));
        }
        else
        {
            ids.clear();
        }
    }
    if (ids.empty())
    {
        ids.push_back(0);
    }
    return ids;
}

template <typename T>
T capValue(cublasLtMatmulAlgo_t const& algo, cublasLtMatmulAlgoCapAttributes_t attribute)
{
    T value{};
    size_t written = 0;
    if (cublasLtMatmulAlgoCapGetAttribute(&algo, attribute, &value, sizeof(value), &written) != CUBLAS_STATUS_SUCCESS)
    {
        value = T{};
    }
    return value;
}

//! The last custom option the search tries for an id.
uint32_t lastCustom(Caps const& caps)
{
    return std::min(static_cast<uint32_t>(std::max(caps.customMax, 0)), kMaxCustomOption);
}

bool readCaps(int32_t id, Caps& caps)
{
    caps.id = id;
    if (cublasLtMatmulAlgoInit(
            gLt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, id, &caps.base)
        != CUBLAS_STATUS_SUCCESS)
    {
        return false;
    }
    caps.tiles = capIds(caps.base, CUBLASLT_ALGO_CAP_TILE_IDS);
    caps.stages = capIds(caps.base, CUBLASLT_ALGO_CAP_STAGES_IDS);
    caps.splitK = capValue<int32_t>(caps.base, CUBLASLT_ALGO_CAP_SPLITK_SUPPORT);
    caps.schemes = capValue<uint32_t>(caps.base, CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK);
    caps.swizzle = capValue<uint32_t>(caps.base, CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT);
    caps.customMax = capValue<int32_t>(caps.base, CUBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX);
    return true;
}

//! One product out[rows, n] = a[rows, k] w[k, n] + bias (+ out, the residual, when residual), as kiln lays it out.
struct Problem
{
    char const* name{};
    int64_t rows{}, k{}, n{};
    bool residual{};
    cublasLtMatmulDesc_t desc{};
    cublasLtMatrixLayout_t lw{}, la{}, lout{};
    half* a{};
    half* w{};
    half* bias{};
    half* out{};
    half* pristine{}; // the residual (or, without one, random contents out starts from)
    std::vector<half> hostA, hostW, hostBias, hostResidual;

    double flops() const { return 2.0 * static_cast<double>(rows) * static_cast<double>(k) * static_cast<double>(n); }
    double tflops(float us) const { return flops() / static_cast<double>(us) / 1e6; }
};

std::vector<half> randomHalves(int64_t count, std::mt19937& rng)
{
    std::uniform_real_distribution<float> uniform(-0.05F, 0.05F);
    std::vector<half> host(static_cast<size_t>(count));
    for (half& v : host)
    {
        v = __float2half(uniform(rng));
    }
    return host;
}

half* toDevice(std::vector<half> const& host)
{
    half* device = nullptr;
    CHECK(cudaMalloc(&device, host.size() * sizeof(half)));
    CHECK(cudaMemcpy(device, host.data(), host.size() * sizeof(half), cudaMemcpyHostToDevice));
    return device;
}

Problem makeProblem(char const* name, int64_t rows, int64_t k, int64_t n, bool residual, std::mt19937& rng)
{
    Problem p;
    p.name = name;
    p.rows = rows;
    p.k = k;
    p.n = n;
    p.residual = residual;
    p.hostA = randomHalves(rows * k, rng);
    p.hostW = randomHalves(k * n, rng);
    p.hostBias = randomHalves(n, rng);
    p.hostResidual = randomHalves(rows * n, rng);
    p.a = toDevice(p.hostA);
    p.w = toDevice(p.hostW);
    p.bias = toDevice(p.hostBias);
    p.pristine = toDevice(p.hostResidual);
    p.out = toDevice(p.hostResidual);
    CHECK(cublasLtMatmulDescCreate(&p.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasLtEpilogue_t const epilogue = CUBLASLT_EPILOGUE_BIAS;
    CHECK(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue)));
    half const* bias = p.bias;
    CHECK(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)));
    CHECK(cublasLtMatrixLayoutCreate(&p.lw, CUDA_R_16F, n, k, n));
    CHECK(cublasLtMatrixLayoutCreate(&p.la, CUDA_R_16F, k, rows, k));
    CHECK(cublasLtMatrixLayoutCreate(&p.lout, CUDA_R_16F, n, rows, n));
    return p;
}

void freeProblem(Problem& p)
{
    CHECK(cudaStreamSynchronize(gStream));
    CHECK(cublasLtMatrixLayoutDestroy(p.lw));
    CHECK(cublasLtMatrixLayoutDestroy(p.la));
    CHECK(cublasLtMatrixLayoutDestroy(p.lout));
    CHECK(cublasLtMatmulDescDestroy(p.desc));
    for (half* device : {p.a, p.w, p.bias, p.out, p.pristine})
    {
        CHECK(cudaFree(device));
    }
}

//! Restores out to the residual (outside any timed region); nothing to do for a product without one.
void resetOut(Problem const& p)
{
    if (p.residual)
    {
        CHECK(cudaMemcpyAsync(
            p.out, p.pristine, static_cast<size_t>(p.rows * p.n) * sizeof(half), cudaMemcpyDeviceToDevice, gStream));
    }
}

cublasStatus_t launch(Problem const& p, cublasLtMatmulAlgo_t const& algo)
{
    float const one = 1.F;
    float const beta = p.residual ? 1.F : 0.F;
    return cublasLtMatmul(gLt, p.desc, &one, p.w, p.lw, p.a, p.la, &beta, p.out, p.lout, p.out, p.lout, &algo,
        gWorkspace, kWorkspace, gStream);
}

//! Whether the launch went: cublasLt's status and the runtime's last (non-sticky) error, cleared.
bool launchOk(Problem const& p, cublasLtMatmulAlgo_t const& algo)
{
    cublasStatus_t const status = launch(p, algo);
    cudaError_t const error = cudaGetLastError();
    return status == CUBLAS_STATUS_SUCCESS && error == cudaSuccess;
}

//! Holds the GPU for about ns nanoseconds, so that the launches queued behind it run back to back, free of the CPU's
//! launch overhead (several us a launch for cuBLASLt's cluster kernels, more than the batch-1 products take).
__global__ void hold(uint64_t ns)
{
    uint64_t start = 0;
    uint64_t now = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do
    {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}

int gHoldTooShort = 0; // timings where the GPU reached the start event before the CPU had queued all the launches

//! Holds the GPU long enough to queue launches launches behind it, then records the start event.
void holdAndStart(int launches)
{
    hold<<<1, 1, 0, gStream>>>(static_cast<uint64_t>(20000 * launches + 100000));
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(gStart, gStream));
}

//! Mean time in microseconds of reps back-to-back launches queued behind a hold; negative when one is refused.
float timeLaunches(Problem const& p, cublasLtMatmulAlgo_t const& algo, int reps)
{
    holdAndStart(reps);
    bool ok = true;
    for (int i = 0; i < reps && ok; ++i)
    {
        ok = launchOk(p, algo);
    }
    gHoldTooShort += cudaEventQuery(gStart) == cudaSuccess ? 1 : 0;
    (void)cudaGetLastError(); // cudaErrorNotReady from the query
    CHECK(cudaEventRecord(gStop, gStream));
    CHECK(cudaEventSynchronize(gStop));
    float ms = 0.F;
    CHECK(cudaEventElapsedTime(&ms, gStart, gStop));
    return ok ? ms * 1000.F / static_cast<float>(reps) : -1.F;
}

struct Candidate
{
    Config config;
    cublasLtMatmulAlgo_t algo{};
    float quickUs{INFINITY}; // mean of kTimedLaunches back-to-back launches (or the 2-launch estimate if pruned)
    float finalUs{INFINITY}; // median per launch of the graph replays
    int rank{-1};            // the heuristic's rank, from 0; -1 for the search's
};

enum class Outcome
{
    Timed,
    Pruned,
    Failed
};

//! Three warm-up launches, the last two timed as an estimate; a candidate estimated slower than pruneUs is left
//! there, else its time is the mean of kTimedLaunches more.
Outcome quickTime(Problem const& p, Candidate& c, float pruneUs)
{
    resetOut(p);
    if (!launchOk(p, c.algo))
    {
        return Outcome::Failed;
    }
    float const estimate = timeLaunches(p, c.algo, 2);
    if (estimate < 0.F)
    {
        return Outcome::Failed;
    }
    if (estimate > pruneUs)
    {
        c.quickUs = estimate;
        return Outcome::Pruned;
    }
    float const us = timeLaunches(p, c.algo, kTimedLaunches);
    if (us < 0.F)
    {
        return Outcome::Failed;
    }
    c.quickUs = us;
    return Outcome::Timed;
}

//! Median time per launch over kGraphReplays replays of a graph of kGraphLaunches launches; infinite if it fails.
float graphTime(Problem const& p, cublasLtMatmulAlgo_t const& algo)
{
    resetOut(p);
    for (int i = 0; i < 3; ++i)
    {
        if (!launchOk(p, algo))
        {
            return INFINITY;
        }
    }
    cudaGraph_t graph = nullptr;
    CHECK(cudaStreamBeginCapture(gStream, cudaStreamCaptureModeThreadLocal));
    bool ok = true;
    for (int i = 0; i < kGraphLaunches && ok; ++i)
    {
        ok = launch(p, algo) == CUBLAS_STATUS_SUCCESS;
    }
    cudaError_t const ended = cudaStreamEndCapture(gStream, &graph);
    if (!ok || ended != cudaSuccess || graph == nullptr)
    {
        if (graph != nullptr)
        {
            cudaGraphDestroy(graph);
        }
        cudaGetLastError();
        return INFINITY;
    }
    cudaGraphExec_t exec = nullptr;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    std::vector<float> times;
    for (int i = 0; i <= kGraphReplays; ++i)
    {
        resetOut(p);
        holdAndStart(1);
        CHECK(cudaGraphLaunch(exec, gStream));
        CHECK(cudaEventRecord(gStop, gStream));
        CHECK(cudaEventSynchronize(gStop));
        float ms = 0.F;
        CHECK(cudaEventElapsedTime(&ms, gStart, gStop));
        if (i > 0)
        {
            times.push_back(ms * 1000.F / static_cast<float>(kGraphLaunches));
        }
    }
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

//! out after one launch from the residual, as floats; empty if the launch fails.
std::vector<float> resultOf(Problem const& p, cublasLtMatmulAlgo_t const& algo)
{
    resetOut(p);
    if (!launchOk(p, algo))
    {
        return {};
    }
    std::vector<half> got(static_cast<size_t>(p.rows * p.n));
    CHECK(cudaMemcpyAsync(got.data(), p.out, got.size() * sizeof(half), cudaMemcpyDeviceToHost, gStream));
    CHECK(cudaStreamSynchronize(gStream));
    std::vector<float> values(got.size());
    for (size_t i = 0; i < got.size(); ++i)
    {
        values[i] = __half2float(got[i]);
    }
    return values;
}

float maxDifference(std::vector<float> const& x, std::vector<float> const& y)
{
    if (x.empty() || x.size() != y.size())
    {
        return NAN;
    }
    float most = 0.F;
    for (size_t i = 0; i < x.size(); ++i)
    {
        most = std::max(most, std::fabs(x[i] - y[i]));
    }
    return most;
}

//! The largest difference of got from a double-precision product on the CPU, over kCpuSamples random entries.
float cpuDifference(Problem const& p, std::vector<float> const& got, std::mt19937& rng)
{
    if (got.empty())
    {
        return NAN;
    }
    float most = 0.F;
    for (int s = 0; s < kCpuSamples; ++s)
    {
        int64_t const r = static_cast<int64_t>(rng() % static_cast<uint32_t>(p.rows));
        int64_t const c = static_cast<int64_t>(rng() % static_cast<uint32_t>(p.n));
        double sum = __half2float(p.hostBias[c]);
        if (p.residual)
        {
            sum += __half2float(p.hostResidual[r * p.n + c]);
        }
        for (int64_t i = 0; i < p.k; ++i)
        {
            sum += static_cast<double>(__half2float(p.hostA[r * p.k + i]))
                * static_cast<double>(__half2float(p.hostW[i * p.n + c]));
        }
        most = std::max(most, static_cast<float>(std::fabs(got[r * p.n + c] - sum)));
    }
    return most;
}

std::string configText(Config const& c)
{
    char text[160];
    std::snprintf(text, sizeof(text), "id %2d tile %3u=%-7s st %2u=%-7s sk %d red %u swz %u opt %u cl %2u=%-5s", c.id,
        c.tile, nameOf(gTileNames, c.tile), c.stages, nameOf(gStagesNames, c.stages), c.splitK, c.scheme, c.swizzle,
        c.custom, static_cast<unsigned>(c.cluster), nameOf(gClusterNames, c.cluster));
    return text;
}

//! The heuristic's rank (from 0) of the result whose attributes equal c, or -1.
int heuristicMatch(std::vector<Candidate> const& heuristic, Config const& c)
{
    for (Candidate const& h : heuristic)
    {
        if (h.config == c)
        {
            return h.rank;
        }
    }
    return -1;
}

//! Counters and results of one shape's search.
struct Search
{
    Problem const& p;
    double deadline{};
    int timedCap{};
    float bestUs{INFINITY};
    std::map<Config, bool> checked; // configurations cublasLtMatmulAlgoCheck was asked about: accepted or not
    std::map<Config, float> ranUs;  // configurations that launched: their time, or their estimate if pruned
    std::vector<Candidate> timed;
    int enumerated{}, rejected{}, overWorkspace{}, failed{}, pruned{};
    struct IdStats
    {
        int tried{}, accepted{};
        float bestUs{INFINITY};
    };
    std::map<int32_t, IdStats> byId;
    bool outOfTime{}, outOfCap{};

    explicit Search(Problem const& problem)
        : p(problem)
    {
    }

    struct Counts
    {
        int enumerated, rejected, overWorkspace, failed, pruned, timed;
    };
    Counts counts() const
    {
        return {enumerated, rejected, overWorkspace, failed, pruned, static_cast<int>(timed.size())};
    }
    char const* flags() const { return outOfTime ? " [budget reached]" : (outOfCap ? " [cap reached]" : ""); }
    void resetFlags()
    {
        outOfTime = false;
        outOfCap = false;
    }

    bool stop()
    {
        outOfTime = outOfTime || seconds() > deadline;
        outOfCap = outOfCap || static_cast<int>(timed.size()) >= timedCap;
        return outOfTime || outOfCap;
    }

    //! Sets c on a fresh algo of caps and asks cublasLtMatmulAlgoCheck about it (counted the first time).
    bool check(Caps const& caps, Config const& c, cublasLtMatmulAlgo_t& algo)
    {
        algo = caps.base;
        bool accepted = applyConfig(algo, c);
        bool tooLarge = false;
        if (accepted)
        {
            cublasLtMatmulHeuristicResult_t result{};
            accepted = cublasLtMatmulAlgoCheck(gLt, p.desc, p.lw, p.la, p.lout, p.lout, &algo, &result)
                == CUBLAS_STATUS_SUCCESS;
            tooLarge = accepted && result.workspaceSize > kWorkspace;
            accepted = accepted && !tooLarge;
        }
        if (checked.emplace(c, accepted).second)
        {
            ++enumerated;
            IdStats& stats = byId[c.id];
            ++stats.tried;
            stats.accepted += accepted ? 1 : 0;
            rejected += !accepted && !tooLarge ? 1 : 0;
            overWorkspace += tooLarge ? 1 : 0;
        }
        return accepted;
    }

    //! Times an accepted configuration, once.
    void run(Candidate candidate)
    {
        Config const& c = candidate.config;
        if (ranUs.count(c) != 0)
        {
            return;
        }
        switch (quickTime(p, candidate, bestUs * kPruneFactor))
        {
        case Outcome::Failed:
            ++failed;
            ranUs[c] = INFINITY;
            break;
        case Outcome::Pruned:
            ++pruned;
            ranUs[c] = candidate.quickUs;
            break;
        case Outcome::Timed:
            ranUs[c] = candidate.quickUs;
            bestUs = std::min(bestUs, candidate.quickUs);
            byId[c.id].bestUs = std::min(byId[c.id].bestUs, candidate.quickUs);
            timed.push_back(candidate);
            break;
        }
    }

    void evaluate(Caps const& caps, Config const& c)
    {
        Candidate candidate;
        candidate.config = c;
        if (check(caps, c, candidate.algo))
        {
            run(candidate);
        }
    }
};

struct Shape
{
    char const* name;
    int64_t rows, k, n;
    bool residual;
};

struct SummaryRow
{
    std::string label;
    float best8{}, best32{}, searched{};
};

//! The best time (the member time: finalUs, graph-timed, or quickUs, the first screen) among the heuristic's results
//! of rank below limit, and that rank.
std::pair<float, int> bestBelow(std::vector<Candidate> const& heuristic, int limit, float Candidate::*time)
{
    std::pair<float, int> best{INFINITY, -1};
    for (Candidate const& h : heuristic)
    {
        if (h.rank < limit && h.*time < best.first)
        {
            best = {h.*time, h.rank};
        }
    }
    return best;
}

SummaryRow runShape(Shape const& shape, int number, std::vector<Caps> const& allCaps, double budget, std::mt19937& rng)
{
    Problem p = makeProblem(shape.name, shape.rows, shape.k, shape.n, shape.residual, rng);
    char label[64];
    std::snprintf(label, sizeof(label), "%d %s %lldx%lldx%lld%s", number, shape.name, static_cast<long long>(p.rows),
        static_cast<long long>(p.k), static_cast<long long>(p.n), p.residual ? "+res" : "");
    std::printf("\n== %s: %.2f GFLOP, %.2f us at %.0f TFLOP/s ==\n", label, p.flops() / 1e9,
        p.flops() / kPeakTflops / 1e6, kPeakTflops);

    // (a) The heuristic's results, each timed.
    cublasLtMatmulPreference_t preference;
    CHECK(cublasLtMatmulPreferenceCreate(&preference));
    CHECK(cublasLtMatmulPreferenceSetAttribute(
        preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &kWorkspace, sizeof(kWorkspace)));
    std::vector<cublasLtMatmulHeuristicResult_t> results(kHeuristicRequest);
    int count = 0;
    CHECK(cublasLtMatmulAlgoGetHeuristic(
        gLt, p.desc, p.lw, p.la, p.lout, p.lout, preference, kHeuristicRequest, results.data(), &count));
    CHECK(cublasLtMatmulPreferenceDestroy(preference));
    std::vector<Candidate> heuristic(static_cast<size_t>(count));
    int heuristicFailed = 0;
    for (int i = 0; i < count; ++i)
    {
        Candidate& h = heuristic[static_cast<size_t>(i)];
        h.algo = results[static_cast<size_t>(i)].algo;
        h.config = readConfig(h.algo);
        h.rank = i;
        if (quickTime(p, h, INFINITY) != Outcome::Timed)
        {
            h.quickUs = INFINITY;
            ++heuristicFailed;
        }
    }
    auto const quickBest = bestBelow(heuristic, count, &Candidate::quickUs);

    std::map<int32_t, Caps const*> capsById;
    for (Caps const& caps : allCaps)
    {
        capsById[caps.id] = &caps;
    }

    // (b) The search. Phase 1, screening: every tile x stages x custom option (0 to 7) x cluster shape of every id,
    // split-K 1, no swizzle, put to cublasLtMatmulAlgoCheck alone; the ids in turn, so that a budget cut leaves them
    // alike.
    Search search(p);
    search.bestUs = quickBest.first;
    double const shapeStart = seconds();
    search.deadline = shapeStart + budget * kScreenShare;
    search.timedCap = kMaxTimedPhase1;
    std::vector<std::vector<Config>> grid(allCaps.size());
    size_t longest = 0;
    size_t planned = 0;
    for (size_t i = 0; i < allCaps.size(); ++i)
    {
        Caps const& caps = allCaps[i];
        for (uint32_t const tile : caps.tiles)
        {
            for (uint32_t const stages : caps.stages)
            {
                for (uint32_t custom = 0; custom <= lastCustom(caps); ++custom)
                {
                    for (uint16_t const cluster : kClusterShapes)
                    {
                        Config c;
                        c.id = caps.id;
                        c.tile = tile;
                        c.stages = stages;
                        c.custom = custom;
                        c.cluster = cluster;
                        grid[i].push_back(c);
                    }
                }
            }
        }
        longest = std::max(longest, grid[i].size());
        planned += grid[i].size();
    }
    // The accepted configurations, and their indices by (id, tile, stages) pair in the order the pairs first appear.
    std::vector<Candidate> accepted;
    std::map<std::tuple<int32_t, uint32_t, uint32_t>, std::vector<size_t>> byPair;
    std::vector<std::tuple<int32_t, uint32_t, uint32_t>> pairOrder;
    for (size_t round = 0; round < longest && !search.stop(); ++round)
    {
        for (size_t i = 0; i < allCaps.size() && !search.stop(); ++i)
        {
            if (round < grid[i].size())
            {
                Candidate candidate;
                candidate.config = grid[i][round];
                if (search.check(allCaps[i], candidate.config, candidate.algo))
                {
                    auto const key
                        = std::make_tuple(candidate.config.id, candidate.config.tile, candidate.config.stages);
                    if (byPair.count(key) == 0)
                    {
                        pairOrder.push_back(key);
                    }
                    byPair[key].push_back(accepted.size());
                    accepted.push_back(candidate);
                }
            }
        }
    }
    std::printf("phase 1 screen, tile x stages x option x cluster: %d of %zu checked, %d refused, %d over workspace,\n"
                "  %zu accepted in %zu tile x stages pairs, %.1f s%s\n",
        search.enumerated, planned, search.rejected, search.overWorkspace, accepted.size(), pairOrder.size(),
        seconds() - shapeStart, search.flags());

    // Phase 1 runs, a greedy descent: (a) the first accepted configuration of every pair; (b) the first of every
    // custom option of the pairs within kPruneFactor of the best; (c) every accepted configuration (the cluster
    // shapes) of the pair-options within kClusterFactor of the best. Each step fastest first.
    search.resetFlags();
    search.deadline = shapeStart + budget * kPairsShare;
    for (size_t i = 0; i < pairOrder.size() && !search.stop(); ++i)
    {
        search.run(accepted[byPair[pairOrder[i]].front()]);
    }
    auto const timeOf = [&](Config const& c) {
        auto const found = search.ranUs.find(c);
        return found == search.ranUs.end() ? INFINITY : found->second;
    };
    std::vector<std::pair<float, std::tuple<int32_t, uint32_t, uint32_t>>> pairsByTime;
    for (auto const& key : pairOrder)
    {
        pairsByTime.emplace_back(timeOf(accepted[byPair[key].front()].config), key);
    }
    std::sort(pairsByTime.begin(), pairsByTime.end(), [](auto const& x, auto const& y) { return x.first < y.first; });
    bool const pairsCut = search.outOfTime || search.outOfCap;
    search.resetFlags();
    search.deadline = shapeStart + budget * kOptionsShare;
    int optionPairs = 0;
    for (size_t i = 0; i < pairsByTime.size() && pairsByTime[i].first <= kPruneFactor * search.bestUs; ++i)
    {
        ++optionPairs;
        std::set<uint32_t> options;
        for (size_t const index : byPair[pairsByTime[i].second])
        {
            if (search.stop())
            {
                break;
            }
            if (options.insert(accepted[index].config.custom).second)
            {
                search.run(accepted[index]);
            }
        }
    }
    bool const optionsCut = search.outOfTime || search.outOfCap;
    // The pair-options by their best time so far.
    std::map<std::tuple<int32_t, uint32_t, uint32_t, uint32_t>, float> optionTime;
    std::map<std::tuple<int32_t, uint32_t, uint32_t, uint32_t>, std::vector<size_t>> byOption;
    for (size_t index = 0; index < accepted.size(); ++index)
    {
        Config const& c = accepted[index].config;
        auto const key = std::make_tuple(c.id, c.tile, c.stages, c.custom);
        byOption[key].push_back(index);
        float& best = optionTime.emplace(key, INFINITY).first->second;
        best = std::min(best, timeOf(c));
    }
    std::vector<std::pair<float, std::tuple<int32_t, uint32_t, uint32_t, uint32_t>>> optionsByTime;
    for (auto const& [key, us] : optionTime)
    {
        if (us <= kClusterFactor * search.bestUs)
        {
            optionsByTime.emplace_back(us, key);
        }
    }
    std::sort(
        optionsByTime.begin(), optionsByTime.end(), [](auto const& x, auto const& y) { return x.first < y.first; });
    search.resetFlags();
    search.deadline = shapeStart + budget * kPhase1Share;
    for (size_t i = 0; i < optionsByTime.size() && !search.stop(); ++i)
    {
        for (size_t const index : byOption[optionsByTime[i].second])
        {
            if (search.stop())
            {
                break;
            }
            search.run(accepted[index]);
        }
    }
    Search::Counts const after1 = search.counts();
    std::printf("phase 1 runs: %zu pairs%s, the options of %d%s, the clusters of %zu pair-options%s: %d failed, %d "
                "pruned,\n  %d timed, %.1f s; by id (accepted/checked, best us):",
        pairOrder.size(), pairsCut ? " [cut]" : "", optionPairs, optionsCut ? " [cut]" : "", optionsByTime.size(),
        search.outOfTime || search.outOfCap ? " [cut]" : "", after1.failed, after1.pruned, after1.timed,
        seconds() - shapeStart);
    int column = 200;
    int idsWithout = 0;
    for (auto const& [id, stats] : search.byId)
    {
        if (!std::isfinite(stats.bestUs))
        {
            ++idsWithout;
            continue;
        }
        char text[64];
        std::snprintf(text, sizeof(text), " %d %d/%d %.1f;", id, stats.accepted, stats.tried, stats.bestUs);
        if (column + std::strlen(text) > 100)
        {
            std::printf("\n ");
            column = 1;
        }
        std::printf("%s", text);
        column += static_cast<int>(std::strlen(text));
    }
    std::printf(" %d ids none timed\n", idsWithout);

    // Phase 2: split-K x reduction scheme x swizzle around the fastest configurations of phase 1 and the heuristic's
    // own (each of those rebuilt as it is first).
    std::vector<Candidate> ranked = search.timed;
    std::sort(
        ranked.begin(), ranked.end(), [](Candidate const& x, Candidate const& y) { return x.quickUs < y.quickUs; });
    std::vector<Config> seeds;
    for (size_t i = 0; i < ranked.size() && static_cast<int>(seeds.size()) < kSeedsFromSearch; ++i)
    {
        seeds.push_back(ranked[i].config);
    }
    std::vector<Candidate> heuristicRanked = heuristic;
    std::sort(heuristicRanked.begin(), heuristicRanked.end(),
        [](Candidate const& x, Candidate const& y) { return x.quickUs < y.quickUs; });
    std::vector<Config> exact; // the heuristic's own configurations
    for (size_t i = 0; i < heuristicRanked.size() && static_cast<int>(exact.size()) < kSeedsFromHeuristic; ++i)
    {
        if (std::isfinite(heuristicRanked[i].quickUs) && capsById.count(heuristicRanked[i].config.id) != 0)
        {
            exact.push_back(heuristicRanked[i].config);
            seeds.push_back(heuristicRanked[i].config);
        }
    }
    search.resetFlags();
    search.deadline = shapeStart + budget;
    search.timedCap = kMaxTimed;
    for (Config const& c : exact)
    {
        if (!search.stop())
        {
            search.evaluate(*capsById[c.id], c);
        }
    }
    for (size_t s = 0; s < seeds.size() && !search.stop(); ++s)
    {
        Caps const& caps = *capsById[seeds[s].id];
        int32_t const maxSplit = caps.splitK != 0 ? kMaxSplitK : 1;
        for (int32_t splitK = 1; splitK <= maxSplit && !search.stop(); ++splitK)
        {
            std::vector<uint32_t> schemes;
            if (splitK == 1)
            {
                schemes.push_back(CUBLASLT_REDUCTION_SCHEME_NONE);
            }
            else
            {
                for (uint32_t const scheme : {CUBLASLT_REDUCTION_SCHEME_INPLACE, CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE,
                         CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE})
                {
                    if ((caps.schemes & scheme) != 0)
                    {
                        schemes.push_back(scheme);
                    }
                }
                if (schemes.empty())
                {
                    schemes.push_back(CUBLASLT_REDUCTION_SCHEME_NONE);
                }
            }
            for (uint32_t const scheme : schemes)
            {
                for (uint32_t swizzle = 0; swizzle <= (caps.swizzle != 0 ? 1U : 0U) && !search.stop(); ++swizzle)
                {
                    Config c = seeds[s];
                    c.splitK = splitK;
                    c.scheme = scheme;
                    c.swizzle = swizzle;
                    search.evaluate(caps, c);
                }
            }
        }
    }
    int exactRebuilt = 0;
    for (Config const& c : exact)
    {
        exactRebuilt += std::isfinite(timeOf(c)) ? 1 : 0;
    }
    Search::Counts const after2 = search.counts();
    std::printf(
        "phase 2, %zu seeds x splitK x reduction x swizzle: %d tried, %d refused, %d over workspace, %d failed,\n"
        "  %d pruned, %d timed; %d of the heuristic's %zu best configs rebuilt and run; %.1f s in all%s\n",
        seeds.size(), after2.enumerated - after1.enumerated, after2.rejected - after1.rejected,
        after2.overWorkspace - after1.overWorkspace, after2.failed - after1.failed, after2.pruned - after1.pruned,
        after2.timed - after1.timed, exactRebuilt, exact.size(), seconds() - shapeStart, search.flags());

    // Finals: graphs for the heuristic's first 8 and its 8 fastest others, and the search's 8 fastest.
    std::vector<int> heuristicFinalists;
    for (int i = 0; i < std::min(count, kFinalists); ++i)
    {
        heuristicFinalists.push_back(i);
    }
    for (size_t i = 0, extra = 0; i < heuristicRanked.size() && extra < static_cast<size_t>(kFinalists); ++i)
    {
        if (heuristicRanked[i].rank >= kFinalists && std::isfinite(heuristicRanked[i].quickUs))
        {
            heuristicFinalists.push_back(heuristicRanked[i].rank);
            ++extra;
        }
    }
    for (int const i : heuristicFinalists)
    {
        Candidate& h = heuristic[static_cast<size_t>(i)];
        if (std::isfinite(h.quickUs))
        {
            h.finalUs = graphTime(p, h.algo);
        }
    }
    std::sort(search.timed.begin(), search.timed.end(),
        [](Candidate const& x, Candidate const& y) { return x.quickUs < y.quickUs; });
    search.timed.resize(std::min(search.timed.size(), static_cast<size_t>(kFinalists)));
    for (Candidate& c : search.timed)
    {
        c.finalUs = graphTime(p, c.algo);
    }
    std::sort(search.timed.begin(), search.timed.end(),
        [](Candidate const& x, Candidate const& y) { return x.finalUs < y.finalUs; });

    auto const quick8 = bestBelow(heuristic, 8, &Candidate::quickUs);
    auto const quick32 = bestBelow(heuristic, 32, &Candidate::quickUs);
    std::printf("heuristic: %d results (%d failed); mean of %d: #1 %.2f, best of 8 %.2f (#%d), of 32 %.2f (#%d), "
                "of all %.2f (#%d) us\n",
        count, heuristicFailed, kTimedLaunches, count > 0 ? heuristic[0].quickUs : NAN, quick8.first, quick8.second + 1,
        quick32.first, quick32.second + 1, quickBest.first, quickBest.second + 1);
    auto const final8 = bestBelow(heuristic, 8, &Candidate::finalUs);
    auto const final32 = bestBelow(heuristic, 32, &Candidate::finalUs);
    auto const finalAll = bestBelow(heuristic, count, &Candidate::finalUs);
    float const first = count > 0 ? heuristic[0].finalUs : NAN;
    std::printf("heuristic, graphs: #1 %.2f us %.0f TF/s; best of 8 %.2f (#%d) %.0f; of 32 %.2f (#%d) %.0f; "
                "of all %.2f (#%d) %.0f\n",
        first, p.tflops(first), final8.first, final8.second + 1, p.tflops(final8.first), final32.first,
        final32.second + 1, p.tflops(final32.first), finalAll.first, finalAll.second + 1, p.tflops(finalAll.first));
    if (count > 0)
    {
        std::printf("  h#1  %s %7.2f us\n", configText(heuristic[0].config).c_str(), first);
    }
    if (finalAll.second > 0)
    {
        std::printf("  h#%-2d %s %7.2f us\n", finalAll.second + 1,
            configText(heuristic[static_cast<size_t>(finalAll.second)].config).c_str(), finalAll.first);
    }

    // (c) The search's best against the heuristic's #1 (or its first result that runs), and that against the CPU.
    std::vector<float> reference;
    for (size_t i = 0; i < heuristic.size() && reference.empty(); ++i)
    {
        if (std::isfinite(heuristic[i].quickUs))
        {
            reference = resultOf(p, heuristic[i].algo);
        }
    }
    std::printf("search, graphs (diff: largest difference from the heuristic #1's output):\n");
    if (search.timed.empty())
    {
        std::printf("  no configuration timed\n");
    }
    for (size_t i = 0; i < search.timed.size() && i < static_cast<size_t>(kShown); ++i)
    {
        Candidate const& c = search.timed[i];
        int const match = heuristicMatch(heuristic, c.config);
        char tag[16] = "";
        if (match >= 0)
        {
            std::snprintf(tag, sizeof(tag), " =h#%d", match + 1);
        }
        std::printf("  s%zu   %s %7.2f us %4.0f TF/s diff %.1e%s\n", i + 1, configText(c.config).c_str(), c.finalUs,
            p.tflops(c.finalUs), maxDifference(resultOf(p, c.algo), reference), tag);
    }
    std::printf("check: heuristic #1 against the CPU on %d entries: largest difference %.1e\n", kCpuSamples,
        cpuDifference(p, reference, rng));

    SummaryRow row;
    row.label = label;
    row.best8 = final8.first;
    row.best32 = final32.first;
    row.searched = search.timed.empty() ? INFINITY : search.timed[0].finalUs;
    freeProblem(p);
    return row;
}

} // namespace

int main()
{
    seconds();
    cudaDeviceProp properties{};
    CHECK(cudaGetDeviceProperties(&properties, 0));
    CHECK(cublasLtCreate(&gLt));
    CHECK(cudaMalloc(&gWorkspace, kWorkspace));
    CHECK(cudaStreamCreateWithFlags(&gStream, cudaStreamNonBlocking));
    CHECK(cudaEventCreate(&gStart));
    CHECK(cudaEventCreate(&gStop));
    std::printf("%s, %d SMs; cuBLASLt %zu; fp16, float compute, bias epilogue, 32 MiB workspace\n", properties.name,
        properties.multiProcessorCount, cublasLtGetVersion());
    if (gTileNames.size() != CUBLASLT_MATMUL_TILE_END || gStagesNames.size() != CUBLASLT_MATMUL_STAGES_END
        || gClusterNames.size() != CUBLASLT_CLUSTER_SHAPE_END)
    {
        std::printf("note: this header's tile/stages/cluster enums differ from the names table; names may be off\n");
    }

    int ids[kMaxIds];
    int idCount = 0;
    CHECK(cublasLtMatmulAlgoGetIds(
        gLt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, kMaxIds, ids, &idCount));
    std::vector<Caps> allCaps;
    size_t pairCount = 0;
    std::string idList;
    for (int i = 0; i < idCount; ++i)
    {
        Caps caps;
        if (readCaps(ids[i], caps))
        {
            pairCount += caps.tiles.size() * caps.stages.size();
            idList += " " + std::to_string(caps.id) + "(" + std::to_string(caps.tiles.size()) + "x"
                + std::to_string(caps.stages.size()) + ")";
            allCaps.push_back(caps);
        }
    }
    std::printf("%d algo ids, %zu initialised, %zu tile x stages pairs; id(tiles x stages):\n", idCount, allCaps.size(),
        pairCount);
    for (size_t start = 0; start < idList.size();)
    {
        size_t end = std::min(idList.size(), start + 110);
        if (end < idList.size())
        {
            end = idList.rfind(' ', end);
            end = end > start ? end : std::min(idList.size(), start + 110);
        }
        std::printf(" %s\n", idList.substr(start, end - start).c_str());
        start = end;
    }
    std::printf("rows: id algo, tile=id:name, st stages, sk splitK, red reduction scheme, swz swizzle, opt custom "
                "option, cl cluster\n");

    std::vector<Shape> const shapes = {{"qkv", 4096, 768, 2304, false}, {"attn-out", 4096, 768, 768, true},
        {"ffn-up", 4096, 768, 3072, false}, {"ffn-down", 4096, 3072, 768, true}, {"qkv-b1", 128, 768, 2304, false},
        {"attn-out-b1", 128, 768, 768, true}};
    std::mt19937 rng(7);
    std::vector<SummaryRow> summary;
    for (size_t i = 0; i < shapes.size(); ++i)
    {
        double const left = (kRunSeconds - seconds()) / static_cast<double>(shapes.size() - i) - 1.0;
        double const budget = std::max(0.5, std::min(kShapeSeconds, left));
        summary.push_back(runShape(shapes[i], static_cast<int>(i) + 1, allCaps, budget, rng));
    }

    std::printf("\nsummary (graph medians, us; ratio = heuristic best of 32 / search best)\n");
    for (SummaryRow const& row : summary)
    {
        std::printf("  %-30s best-of-8 %7.2f  best-of-32 %7.2f  search %7.2f  ratio %.3f\n", row.label.c_str(),
            row.best8, row.best32, row.searched, row.best32 / row.searched);
    }
    if (gHoldTooShort > 0)
    {
        std::printf(
            "note: %d timings started before all their launches were queued (the hold was too short)\n", gHoldTooShort);
    }
    std::printf("%.1f s\n", seconds());
    CHECK(cudaFree(gWorkspace));
    CHECK(cublasLtDestroy(gLt));
    return 0;
}
