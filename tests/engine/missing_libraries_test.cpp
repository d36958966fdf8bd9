// SPDX-License-Identifier: Apache-2.0
// A CUDA-enabled kiln in a process where cuDNN, cuBLASLt and cuBLAS cannot be found (main() points KILN_CUDNN_LIBRARY
// and its siblings at files that do not exist, and leaves the backend to kiln's choice), through libkiln's public API:
// libnvinfer records no NEEDED entry for them; a network builds and runs on the host backend, and none of the
// libraries is ever mapped. Where a GPU can be used (this program's tests also run under the label gpu), the build
// warns that the CUDA backend cannot be used and names the file of cuDNN, and KILN_BACKEND=cuda is refused naming it.
#include "support/api_test.h"

#include "NvInfer.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <elf.h>
#include <link.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
using Severity = nvinfer1::ILogger::Severity;

constexpr char const* kMissingCudnn = "/nonexistent/libcudnn.so.9";

//! The NEEDED entries of the dynamic section of the ELF64 file at path; nullopt when it is not one.
std::optional<std::vector<std::string>> neededLibraries(char const* path)
{
    std::ifstream file(path, std::ios::binary);
    std::vector<char> const bytes{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
    auto const read = [&](auto& value, uint64_t offset) {
        if (offset > bytes.size() || bytes.size() - offset < sizeof(value))
        {
            return false;
        }
        std::memcpy(&value, bytes.data() + offset, sizeof(value));
        return true;
    };
    Elf64_Ehdr header{};
    if (!read(header, 0) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64)
    {
        return std::nullopt;
    }
    std::vector<std::string> needed;
    for (uint64_t i = 0; i < header.e_shnum; ++i)
    {
        Elf64_Shdr dynamic{};
        Elf64_Shdr strings{};
        if (!read(dynamic, header.e_shoff + i * header.e_shentsize) || dynamic.sh_type != SHT_DYNAMIC
            || !read(strings, header.e_shoff + uint64_t{dynamic.sh_link} * header.e_shentsize))
        {
            continue;
        }
        for (uint64_t at = dynamic.sh_offset; at + sizeof(Elf64_Dyn) <= dynamic.sh_offset + dynamic.sh_size;
             at += sizeof(Elf64_Dyn))
        {
            Elf64_Dyn entry{};
            if (!read(entry, at) || entry.d_tag == DT_NULL)
            {
                break;
            }
            uint64_t const name = strings.sh_offset + entry.d_un.d_val;
            if (entry.d_tag == DT_NEEDED && name < bytes.size())
            {
                needed.emplace_back(bytes.data() + name, strnlen(bytes.data() + name, bytes.size() - name));
            }
        }
    }
    return needed;
}

//! The files of the objects mapped in this process.
std::vector<std::string> mappedObjects()
{
    std::vector<std::string> names;
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* data) {
            static_cast<std::vector<std::string>*>(data)->emplace_back(
                info->dlpi_name != nullptr ? info->dlpi_name : "");
            return 0;
        },
        &names);
    return names;
}

bool isGpuLibrary(std::string const& file)
{
    return file.find("libcudnn") != std::string::npos || file.find("libcublas") != std::string::npos;
}

bool gpuUsable()
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess)
    {
        static_cast<void>(cudaGetLastError());
        return false;
    }
    return count > 0;
}

TEST(MissingLibraries, LibnvinferRecordsNoNeededEntryForCudnnOrCublas)
{
    auto const needed = neededLibraries(KILN_LIBNVINFER);
    ASSERT_TRUE(needed.has_value()) << KILN_LIBNVINFER << " is not an ELF64 file";
    std::string listed;
    for (std::string const& library : *needed)
    {
        listed += library + ' ';
        EXPECT_FALSE(isGpuLibrary(library)) << KILN_LIBNVINFER << " records NEEDED " << library;
    }
    // The reader found the section: libnvinfer needs the C library at least.
    EXPECT_NE(listed.find("libc.so"), std::string::npos) << listed;
}

class MissingLibrariesEngine : public ApiTest
{
protected:
    //! y = relu(x) over x [2, 3].
    void addRelu()
    {
        auto* x = mNetwork->addInput("x", DataType::kFLOAT, dims({2, 3}));
        auto* relu = mNetwork->addActivation(*x, nvinfer1::ActivationType::kRELU);
        relu->getOutput(0)->setName("y");
        mNetwork->markOutput(*relu->getOutput(0));
    }

    std::unique_ptr<nvinfer1::IHostMemory> build()
    {
        std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
        return std::unique_ptr<nvinfer1::IHostMemory>{mBuilder->buildSerializedNetwork(*mNetwork, *config)};
    }
};

TEST_F(MissingLibrariesEngine, BuildsAndRunsOnTheHostBackendWithoutOpeningThem)
{
    addRelu();
    std::unique_ptr<nvinfer1::IHostMemory> const plan = build();
    ASSERT_NE(plan, nullptr) << mLogger.all();
    bool warned = false;
    for (std::string const& warning : mLogger.messages(Severity::kWARNING))
    {
        warned = warned || warning.find(kMissingCudnn) != std::string::npos;
    }
    if (gpuUsable())
    {
        // A GPU, but not the libraries: the build says so, naming the file and the variable, and uses the host.
        EXPECT_TRUE(warned) << mLogger.all();
        EXPECT_NE(mLogger.all().find("set KILN_CUDNN_LIBRARY to the library's path"), std::string::npos)
            << mLogger.all();
    }
    else
    {
        EXPECT_FALSE(warned) << "no GPU: the libraries are not even tried\n" << mLogger.all();
    }

    std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(mLogger)};
    std::unique_ptr<nvinfer1::ICudaEngine> engine{runtime->deserializeCudaEngine(plan->data(), plan->size())};
    ASSERT_NE(engine, nullptr) << mLogger.all();
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_NE(context, nullptr) << mLogger.all();
    // Host memory: the host backend's.
    std::vector<float> x{-1.F, 2.F, -3.F, 4.F, 0.F, -0.5F};
    std::vector<float> y(x.size(), -7.F);
    ASSERT_TRUE(context->setTensorAddress("x", x.data()));
    ASSERT_TRUE(context->setTensorAddress("y", y.data()));
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    EXPECT_EQ(y, (std::vector<float>{0.F, 2.F, 0.F, 4.F, 0.F, 0.F}));
    EXPECT_TRUE(mLogger.messages(Severity::kERROR).empty()) << mLogger.all();

    std::vector<std::string> const mapped = mappedObjects();
    bool nvinfer = false;
    for (std::string const& file : mapped)
    {
        EXPECT_FALSE(isGpuLibrary(file)) << "mapped: " << file;
        nvinfer = nvinfer || file.find("libnvinfer.so") != std::string::npos;
    }
    EXPECT_TRUE(nvinfer) << "dl_iterate_phdr did not list libnvinfer";
}

TEST_F(MissingLibrariesEngine, KilnBackendCudaIsRefusedNamingWhy)
{
    addRelu();
    ::setenv("KILN_BACKEND", "cuda", 1);
    std::unique_ptr<nvinfer1::IHostMemory> const plan = build();
    ::unsetenv("KILN_BACKEND");
    EXPECT_EQ(plan, nullptr);
    std::string const why = gpuUsable() ? std::string("cannot load cuDNN from \"") + kMissingCudnn + "\""
                                        : std::string("no GPU can be used here");
    std::vector<std::string> const errors = mLogger.messages(Severity::kERROR);
    ASSERT_FALSE(errors.empty()) << mLogger.all();
    EXPECT_NE(errors.back().find("KILN_BACKEND=cuda asks for the CUDA backend, but " + why), std::string::npos)
        << mLogger.all();
    for (std::string const& file : mappedObjects())
    {
        EXPECT_FALSE(isGpuLibrary(file)) << "mapped: " << file;
    }
}

} // namespace
} // namespace kiln::test

int main(int argc, char** argv)
{
    // Before kiln first looks for them: every library it opens on first need names a file that does not exist, and the
    // backend is kiln's own choice, whatever the environment this program was started in.
    ::setenv("KILN_CUDNN_LIBRARY", kiln::test::kMissingCudnn, 1);
    ::setenv("KILN_CUBLASLT_LIBRARY", "/nonexistent/libcublasLt.so.13", 1);
    ::setenv("KILN_CUBLAS_LIBRARY", "/nonexistent/libcublas.so.13", 1);
    ::unsetenv("KILN_BACKEND");
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
