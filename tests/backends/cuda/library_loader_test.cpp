// SPDX-License-Identifier: Apache-2.0
// The loader of cuDNN, cuBLASLt and cuBLAS (backends/cuda/library_loader.h), without a GPU: a missing file or function
// is named in the error; KILN_CUDNN_LIBRARY and its siblings choose the file; where the variables point at files that
// do not exist, every user of a library reports the file (the CUDA backend's handles, the V2 plugins' handles) and the
// libraries' own functions return their "not initialized" status; where the real libraries are installed, every
// function of the list resolves in them.
#include "backends/cuda/kernels.h"
#include "backends/cuda/library_loader.h"
#include "plugin/v2_handles.h"

#include <gtest/gtest.h>

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cudnn.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace kiln::cuda
{
namespace
{

constexpr char const* kMissingCudnn = "/nonexistent/libcudnn.so.9";
constexpr char const* kMissingCublasLt = "/nonexistent/libcublasLt.so.13";
constexpr char const* kMissingCublas = "/nonexistent/libcublas.so.13";

//! Every variable points at a file that does not exist, before kiln first opens a library (each test sets the same
//! values, so that the tests agree when they share one process).
class LibraryLoader : public ::testing::Test
{
protected:
    void SetUp() override
    {
        ::setenv("KILN_CUDNN_LIBRARY", kMissingCudnn, 1);
        ::setenv("KILN_CUBLASLT_LIBRARY", kMissingCublasLt, 1);
        ::setenv("KILN_CUBLAS_LIBRARY", kMissingCublas, 1);
    }
};

void expectContains(std::string const& text, std::vector<std::string> const& fragments)
{
    for (std::string const& fragment : fragments)
    {
        EXPECT_NE(text.find(fragment), std::string::npos) << "missing \"" << fragment << "\" in: " << text;
    }
}

TEST_F(LibraryLoader, AMissingFileIsNamedWithDlerror)
{
    std::vector<char const*> const functions{"cudnnCreate"};
    auto const opened = openLibrary("cuDNN", "/nonexistent/folder/libcudnn.so.9", functions);
    ASSERT_FALSE(opened.ok());
    EXPECT_EQ(opened.error().code, nvinfer1::ErrorCode::kFAILED_INITIALIZATION);
    expectContains(opened.error().message,
        {"cannot load cuDNN from \"/nonexistent/folder/libcudnn.so.9\": ", "No such file or directory"});
}

TEST_F(LibraryLoader, AMissingFunctionIsNamed)
{
    std::vector<char const*> const functions{"cos", "cudnnCreate"};
    auto const opened = openLibrary("cuDNN", "libm.so.6", functions);
    ASSERT_FALSE(opened.ok());
    expectContains(opened.error().message, {"cannot load cuDNN from \"libm.so.6\": it has no function cudnnCreate"});
}

TEST_F(LibraryLoader, FunctionsResolveInTheirOrder)
{
    std::vector<char const*> const functions{"cos", "sqrt"};
    auto const opened = openLibrary("libm", "libm.so.6", functions);
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    ASSERT_EQ(opened.value().size(), 2U);
    EXPECT_EQ(reinterpret_cast<double (*)(double)>(opened.value()[0])(0.0), 1.0);
    EXPECT_EQ(reinterpret_cast<double (*)(double)>(opened.value()[1])(16.0), 4.0);
}

TEST_F(LibraryLoader, VariablesChooseTheFileElseTheHeadersSoname)
{
    EXPECT_EQ(libraryFile(GpuLibrary::kCUDNN), kMissingCudnn);
    EXPECT_EQ(libraryFile(GpuLibrary::kCUBLAS_LT), kMissingCublasLt);
    EXPECT_EQ(libraryFile(GpuLibrary::kCUBLAS), kMissingCublas);
    ::setenv("KILN_CUDNN_LIBRARY", "", 1); // empty: as unset
    ::unsetenv("KILN_CUBLASLT_LIBRARY");
    ::unsetenv("KILN_CUBLAS_LIBRARY");
    EXPECT_EQ(libraryFile(GpuLibrary::kCUDNN), "libcudnn.so." + std::to_string(CUDNN_MAJOR));
    EXPECT_EQ(libraryFile(GpuLibrary::kCUBLAS_LT), "libcublasLt.so." + std::to_string(CUBLAS_VER_MAJOR));
    EXPECT_EQ(libraryFile(GpuLibrary::kCUBLAS), "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR));
}

TEST_F(LibraryLoader, AMissingLibraryIsNamedByEveryUser)
{
    auto const cudnn = loadLibrary(GpuLibrary::kCUDNN);
    ASSERT_TRUE(cudnn.has_value());
    expectContains(cudnn->message,
        {"cannot load cuDNN from \"/nonexistent/libcudnn.so.9\"", "No such file",
            "set KILN_CUDNN_LIBRARY to the library's path"});
    auto const again = loadLibrary(GpuLibrary::kCUDNN); // the first attempt's result
    ASSERT_TRUE(again.has_value());
    EXPECT_EQ(again->message, cudnn->message);

    // The CUDA backend's handles: made without a GPU's work, so the library is the first thing that fails.
    Libraries libraries;
    auto const dnn = libraries.planningCudnn();
    ASSERT_FALSE(dnn.ok());
    EXPECT_EQ(dnn.error().message, cudnn->message);
    auto const lt = libraries.cublasLt();
    ASSERT_FALSE(lt.ok());
    expectContains(lt.error().message,
        {"cannot load cuBLASLt from \"/nonexistent/libcublasLt.so.13\"", "set KILN_CUBLASLT_LIBRARY"});

    // The V2 plugins' handles, for tactic sources that allow cuBLAS.
    V2Handles handles(1U << static_cast<uint32_t>(nvinfer1::TacticSource::kCUBLAS), true);
    auto const made = handles.get();
    ASSERT_FALSE(made.ok());
    expectContains(made.error().message,
        {"the V2 plugins' cuBLAS handle (TacticSource::kCUBLAS): ",
            "cannot load cuBLAS from \"/nonexistent/libcublas.so.13\""});
}

TEST_F(LibraryLoader, FunctionsOfAMissingLibraryReturnNotInitialized)
{
    cudnnHandle_t cudnn{};
    EXPECT_EQ(cudnnCreate(&cudnn), CUDNN_STATUS_NOT_INITIALIZED);
    EXPECT_STREQ(cudnnGetErrorString(CUDNN_STATUS_SUCCESS), "(cuDNN is not loaded)");
    cublasLtHandle_t lt{};
    EXPECT_EQ(cublasLtCreate(&lt), CUBLAS_STATUS_NOT_INITIALIZED);
    EXPECT_STREQ(cublasLtGetStatusName(CUBLAS_STATUS_SUCCESS), "(cuBLASLt is not loaded)");
    cublasHandle_t blas{};
    EXPECT_EQ(cublasCreate(&blas), CUBLAS_STATUS_NOT_INITIALIZED);
    EXPECT_STREQ(cublasGetStatusName(CUBLAS_STATUS_SUCCESS), "(cuBLAS is not loaded)");
}

//! Where the real libraries are installed (kiln's build machine), each resolves every function of the list by the
//! headers' soname; skipped where one is not.
TEST_F(LibraryLoader, TheInstalledLibrariesHaveEveryFunctionOfTheList)
{
    ::unsetenv("KILN_CUDNN_LIBRARY");
    ::unsetenv("KILN_CUBLASLT_LIBRARY");
    ::unsetenv("KILN_CUBLAS_LIBRARY");
    for (auto const& [library, name] : {std::pair{GpuLibrary::kCUDNN, "cuDNN"},
             std::pair{GpuLibrary::kCUBLAS_LT, "cuBLASLt"}, std::pair{GpuLibrary::kCUBLAS, "cuBLAS"}})
    {
        std::vector<char const*> const functions = libraryFunctions(library);
        EXPECT_FALSE(functions.empty()) << name;
        auto const opened = openLibrary(name, libraryFile(library), functions);
        if (!opened && opened.error().message.find("cannot open shared object file") != std::string::npos)
        {
            GTEST_SKIP() << opened.error().message;
        }
        ASSERT_TRUE(opened.ok()) << opened.error().message;
        EXPECT_EQ(opened.value().size(), functions.size()) << name;
    }
}

} // namespace
} // namespace kiln::cuda
