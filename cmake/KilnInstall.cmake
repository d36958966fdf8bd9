# SPDX-License-Identifier: Apache-2.0
# Installs the library, the public headers and a CMake package (find_package(kiln) -> kiln::kiln).

include(CMakePackageConfigHelpers)

install(TARGETS kiln EXPORT kilnTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES $<TARGET_FILE_DIR:kiln>/libnvinfer.so $<TARGET_FILE_DIR:kiln>/libnvinfer.so.10
    DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
    FILES_MATCHING PATTERN "*.h")
install(EXPORT kilnTargets NAMESPACE kiln:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/kiln)

file(WRITE ${PROJECT_BINARY_DIR}/kilnConfig.cmake.in
    "@PACKAGE_INIT@\ninclude(\"\${CMAKE_CURRENT_LIST_DIR}/kilnTargets.cmake\")\n")
configure_package_config_file(${PROJECT_BINARY_DIR}/kilnConfig.cmake.in ${PROJECT_BINARY_DIR}/kilnConfig.cmake
    INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/kiln)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/kilnConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/kilnConfig.cmake ${PROJECT_BINARY_DIR}/kilnConfigVersion.cmake
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/kiln)
