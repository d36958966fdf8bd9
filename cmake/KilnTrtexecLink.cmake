# SPDX-License-Identifier: Apache-2.0
# Makes BIN_DIR/trtexec a relative symbolic link to BIN_DIR/kiln, so that commands and scripts written for trtexec
# run the kiln tool. Run by `cmake --install` when KILN_INSTALL_TRTEXEC_LINK is on (cmake/KilnInstall.cmake), and by
# the test tools.trtexec_link:
#     cmake -DBIN_DIR=/opt/kiln/bin -P cmake/KilnTrtexecLink.cmake
if(NOT BIN_DIR)
    message(FATAL_ERROR "KilnTrtexecLink.cmake: set BIN_DIR to the folder that holds kiln")
endif()
if(NOT EXISTS "${BIN_DIR}/kiln")
    message(FATAL_ERROR "KilnTrtexecLink.cmake: ${BIN_DIR}/kiln does not exist")
endif()
file(CREATE_LINK kiln "${BIN_DIR}/trtexec" SYMBOLIC RESULT status)
if(NOT status EQUAL 0)
    message(FATAL_ERROR "KilnTrtexecLink.cmake: cannot link ${BIN_DIR}/trtexec to kiln: ${status}")
endif()
message(STATUS "Linked: ${BIN_DIR}/trtexec -> kiln")
