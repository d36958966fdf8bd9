// nvcc translation unit: NvInfer.h and the complete V3 plugin compiled by nvcc -std=c++17 with host warnings as
// errors, next to a kernel, as CUDA plugin sources are built.

#include "NvInfer.h"
#include "full_v3_plugin.h"

__global__ void kilnScaleKernel(float const* input, float* output, float scale, int n)
{
    int const i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n)
    {
        output[i] = scale * input[i];
    }
}

nvinfer1::IPluginV3* kilnMakeV3PluginInCuda();
nvinfer1::IPluginV3* kilnMakeV3PluginInCuda()
{
    static_assert(sizeof(nvinfer1::Dims) == 72, "Dims layout under nvcc");
    return new kiln_test::FullV3Plugin(2.F, "cuda");
}
