# SPDX-License-Identifier: Apache-2.0
# The file names and sonames of kiln's three libraries (docs/install.md). By default they are TensorRT's, in the build
# tree and once installed:
#
#     target           file                          soname                    link flag          CMake package
#     kiln             libnvinfer.so.10.16.0         libnvinfer.so.10          -lnvinfer          kiln::kiln
#     kiln_onnxparser  libnvonnxparser.so.10.16.0    libnvonnxparser.so.10     -lnvonnxparser     kiln::onnxparser
#     kiln_plugin      libnvinfer_plugin.so.10.16.0  libnvinfer_plugin.so.10   -lnvinfer_plugin   kiln::plugin
#
# each with its soname link and its link-time name (libnvinfer.so) beside it, so that a program linked against kiln
# records TensorRT's sonames and runs against kiln or TensorRT by library path alone. The version in the file name is
# the TensorRT version kiln implements (include/NvInferVersion.h), as getInferLibVersion reports it.
#
# KILN_TENSORRT_NAMES=OFF gives kiln's own names instead: libkiln.so.0, libkiln_onnxparser.so.0 and libkiln_plugin.so.0
# (kiln's version), with TensorRT's names as links beside them in the build tree, where kiln's loaders and tests look
# for them. The Python wheel is built so (python/pyproject.toml): the dynamic loader takes a needed library for one
# already loaded with the same soname, so a wheel holding libnvinfer.so.10 would be taken for NVIDIA's TensorRT (and
# NVIDIA's for it) in a process that imports both `kiln` and NVIDIA's `tensorrt`.

option(KILN_TENSORRT_NAMES "Name kiln's libraries as TensorRT names its own (libnvinfer.so.10, ...): see docs/install.md"
    ON)

# TensorRT's version, read from the header that states it for applications.
file(STRINGS ${PROJECT_SOURCE_DIR}/include/NvInferVersion.h _kiln_version_lines
    REGEX "^#define TRT_(MAJOR|MINOR|PATCH)_ENTERPRISE [0-9]+")
foreach(_part MAJOR MINOR PATCH)
    if(NOT _kiln_version_lines MATCHES "TRT_${_part}_ENTERPRISE ([0-9]+)")
        message(FATAL_ERROR "kiln: no TRT_${_part}_ENTERPRISE in include/NvInferVersion.h")
    endif()
    set(KILN_TENSORRT_VERSION_${_part} ${CMAKE_MATCH_1})
endforeach()
set(KILN_TENSORRT_VERSION
    ${KILN_TENSORRT_VERSION_MAJOR}.${KILN_TENSORRT_VERSION_MINOR}.${KILN_TENSORRT_VERSION_PATCH})
if(KILN_TENSORRT_NAMES)
    message(STATUS "kiln: library names: TensorRT's (libnvinfer.so.${KILN_TENSORRT_VERSION_MAJOR}, ...)")
else()
    message(STATUS "kiln: library names: kiln's (libkiln.so.${PROJECT_VERSION_MAJOR}, ...; KILN_TENSORRT_NAMES OFF)")
endif()

# kiln_library_names(<target> <TensorRT's name> <kiln's name>): names the shared library <target> as above, for example
# kiln_library_names(kiln nvinfer kiln).
function(kiln_library_names target tensorrt_name kiln_name)
    if(KILN_TENSORRT_NAMES)
        set_target_properties(${target} PROPERTIES OUTPUT_NAME ${tensorrt_name} VERSION ${KILN_TENSORRT_VERSION}
            SOVERSION ${KILN_TENSORRT_VERSION_MAJOR})
    else()
        set_target_properties(${target} PROPERTIES OUTPUT_NAME ${kiln_name} VERSION ${PROJECT_VERSION}
            SOVERSION ${PROJECT_VERSION_MAJOR})
        # The same file under TensorRT's names: one file, so the loader maps it once whichever name a program uses.
        add_custom_command(TARGET ${target} POST_BUILD
            COMMAND ${CMAKE_COMMAND} -E create_symlink $<TARGET_FILE_NAME:${target}>
                $<TARGET_FILE_DIR:${target}>/lib${tensorrt_name}.so
            COMMAND ${CMAKE_COMMAND} -E create_symlink $<TARGET_FILE_NAME:${target}>
                $<TARGET_FILE_DIR:${target}>/lib${tensorrt_name}.so.${KILN_TENSORRT_VERSION_MAJOR}
            VERBATIM)
    endif()
endfunction()
