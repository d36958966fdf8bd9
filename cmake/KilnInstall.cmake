# SPDX-License-Identifier: Apache-2.0
# What `cmake --install` lays out (docs/install.md): kiln as TensorRT is installed, in three components.
#
#     runtime       lib/libnvinfer.so.10, lib/libnvonnxparser.so.10, lib/libnvinfer_plugin.so.10 (soname links to the
#                   files, named for TensorRT's version: libnvinfer.so.10.16.0, ...)
#     development   include/ (TensorRT's headers, NvOnnxParser.h, kiln/), the link names lib/libnvinfer.so,
#                   lib/libnvonnxparser.so, lib/libnvinfer_plugin.so, the CMake package lib/cmake/kiln
#                   (find_package(kiln): kiln::kiln, kiln::onnxparser, kiln::plugin) and the pkg-config files
#                   lib/pkgconfig/nvinfer.pc, nvonnxparser.pc, nvinfer_plugin.pc and tensorrt.pc (all three)
#     tool          bin/kiln, and bin/trtexec -> kiln with KILN_INSTALL_TRTEXEC_LINK
#
#     cmake --install build --prefix /opt/kiln                          # everything
#     cmake --install build --prefix /opt/kiln --component runtime      # the libraries an application needs to run
#
# No installed file keeps the build tree's RUNPATH (CMake swaps it for INSTALL_RPATH as it installs): the parser and
# the plugin library find libnvinfer beside them ($ORIGIN), the tool finds the libraries in ../lib, and folders outside
# the project that a file was linked from (the CUDA toolkit's), or that libnvinfer opens cuDNN and cuBLAS from, stay.
# The Python wheel's files are another component, python (python/CMakeLists.txt), defined only when scikit-build-core
# builds the wheel.

include(CMakePackageConfigHelpers)

set(_kiln_libraries kiln kiln_plugin)
if(TARGET kiln_onnxparser)
    list(APPEND _kiln_libraries kiln_onnxparser)
endif()
set_target_properties(${_kiln_libraries} PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
# libnvinfer opens cuDNN and cuBLAS when first needed (src/backends/cuda/library_loader.h): dlopen searches its RUNPATH,
# which keeps the folders they were found in here, as when it was linked with them.
if(KILN_WITH_CUDA)
    set_target_properties(kiln PROPERTIES INSTALL_RPATH "${KILN_GPU_LIBRARY_DIRS}")
endif()
set_target_properties(kiln_plugin PROPERTIES INSTALL_RPATH "$ORIGIN")
if(TARGET kiln_onnxparser)
    set_target_properties(kiln_onnxparser PROPERTIES INSTALL_RPATH "$ORIGIN")
endif()
install(TARGETS ${_kiln_libraries} EXPORT kilnTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT development
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)

# The public headers: TensorRT's file names and kiln's own (kiln/); the parser's only with the parser.
set(_kiln_header_excludes)
if(NOT TARGET kiln_onnxparser)
    set(_kiln_header_excludes PATTERN "NvOnnx*.h" EXCLUDE)
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT development
    FILES_MATCHING PATTERN "*.h" ${_kiln_header_excludes})

# The CMake package: find_package(kiln) gives kiln::kiln, kiln::onnxparser and kiln::plugin.
set(_kiln_package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/kiln)
install(EXPORT kilnTargets NAMESPACE kiln:: DESTINATION ${_kiln_package_dir} COMPONENT development)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/kilnConfig.cmake.in ${PROJECT_BINARY_DIR}/kilnConfig.cmake
    INSTALL_DESTINATION ${_kiln_package_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/kilnConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/kilnConfig.cmake ${PROJECT_BINARY_DIR}/kilnConfigVersion.cmake
    DESTINATION ${_kiln_package_dir} COMPONENT development)

# The pkg-config files, one per library under the library's name (pkg-config --libs nvinfer nvonnxparser) and
# tensorrt.pc for all three. Their prefix is found from their own folder (${pcfiledir}), so an installed tree can be
# moved, as TensorRT's tar file is unpacked anywhere.
set(_kiln_pkgconfig_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
    set(_kiln_pc_prefix "${CMAKE_INSTALL_PREFIX}")
else()
    file(RELATIVE_PATH _kiln_pc_up /${_kiln_pkgconfig_dir} /)
    string(REGEX REPLACE "/$" "" _kiln_pc_up "${_kiln_pc_up}")
    set(_kiln_pc_prefix "\${pcfiledir}/${_kiln_pc_up}")
endif()
foreach(_dir LIBDIR INCLUDEDIR)
    if(IS_ABSOLUTE "${CMAKE_INSTALL_${_dir}}")
        set(_kiln_pc_${_dir} "${CMAKE_INSTALL_${_dir}}")
    else()
        set(_kiln_pc_${_dir} "\${prefix}/${CMAKE_INSTALL_${_dir}}")
    endif()
endforeach()
# kiln_pkg_config(<file name> <library target or ""> <description> <required modules>)
function(kiln_pkg_config name target description requires)
    string(CONCAT content "prefix=${_kiln_pc_prefix}\nexec_prefix=\${prefix}\nlibdir=${_kiln_pc_LIBDIR}\n"
        "includedir=${_kiln_pc_INCLUDEDIR}\n\nName: ${name}\nDescription: ${description}\n"
        "Version: ${KILN_TENSORRT_VERSION}\n")
    if(requires)
        string(APPEND content "Requires: ${requires}\n")
    endif()
    if(target)
        get_target_property(_output_name ${target} OUTPUT_NAME)
        string(APPEND content "Libs: -L\${libdir} -l${_output_name}\nCflags: -I\${includedir}\n")
    endif()
    file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/pkgconfig/${name}.pc CONTENT "${content}" @ONLY)
    install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/${name}.pc DESTINATION ${_kiln_pkgconfig_dir} COMPONENT development)
endfunction()
kiln_pkg_config(nvinfer kiln "kiln's engine library, TensorRT ${KILN_TENSORRT_VERSION}'s API (NvInfer.h)" "")
kiln_pkg_config(nvinfer_plugin kiln_plugin "kiln's standard plugin library (NvInferPlugin.h)" nvinfer)
set(_kiln_pc_all "nvinfer nvinfer_plugin")
if(TARGET kiln_onnxparser)
    kiln_pkg_config(nvonnxparser kiln_onnxparser "kiln's ONNX parser (NvOnnxParser.h)" nvinfer)
    set(_kiln_pc_all "nvinfer nvonnxparser nvinfer_plugin")
endif()
kiln_pkg_config(tensorrt "" "kiln, TensorRT ${KILN_TENSORRT_VERSION}'s API: ${_kiln_pc_all}" "${_kiln_pc_all}")

# The command-line tool: bin/kiln, which finds the libraries through its RUNPATH.
option(KILN_INSTALL_TRTEXEC_LINK "Install bin/trtexec as a link to bin/kiln" OFF)
if(TARGET kiln_tool)
    if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_BINDIR}")
        set(_kiln_tool_rpath "${CMAKE_INSTALL_FULL_LIBDIR}")
    else()
        file(RELATIVE_PATH _kiln_bin_to_lib /${CMAKE_INSTALL_BINDIR} /${CMAKE_INSTALL_LIBDIR})
        set(_kiln_tool_rpath "$ORIGIN/${_kiln_bin_to_lib}")
    endif()
    set_target_properties(kiln_tool PROPERTIES INSTALL_RPATH "${_kiln_tool_rpath}" INSTALL_RPATH_USE_LINK_PATH ON)
    install(TARGETS kiln_tool RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tool)
    # trtexec's name for the same program, so that commands and scripts written for trtexec run kiln. Off by default:
    # on PATH it shadows NVIDIA's trtexec, which installing it is the user's choice to do.
    if(KILN_INSTALL_TRTEXEC_LINK)
        install(CODE "execute_process(COMMAND \"\${CMAKE_COMMAND}\"
                -DBIN_DIR=\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}
                -P \"${PROJECT_SOURCE_DIR}/cmake/KilnTrtexecLink.cmake\" COMMAND_ERROR_IS_FATAL ANY)"
            COMPONENT tool)
    endif()
endif()
