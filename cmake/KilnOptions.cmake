# SPDX-License-Identifier: Apache-2.0
# Warnings and sanitizers for kiln's own targets.

add_library(kiln_warnings INTERFACE)
target_compile_options(kiln_warnings INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Werror -Wno-deprecated-declarations>)

if(KILN_SANITIZE)
    string(REPLACE ";" "," _kiln_sanitizers "${KILN_SANITIZE}")
    add_compile_options(-fsanitize=${_kiln_sanitizers} -fno-omit-frame-pointer -g)
    add_link_options(-fsanitize=${_kiln_sanitizers})
    message(STATUS "kiln: sanitizers ${_kiln_sanitizers}")
endif()
