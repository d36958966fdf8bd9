# SPDX-License-Identifier: Apache-2.0
# Warnings and sanitizers for kiln's own targets.

add_library(kiln_warnings INTERFACE)
target_compile_options(kiln_warnings INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Werror -Wno-deprecated-declarations>)
# GCC 12 reports impossible overlaps in inlined std::string concatenation at -O2 and above (GCC bug 105329,
# "-Wrestrict false positive"); later versions do not. The warning is kept everywhere else.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(kiln_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Wno-restrict>)
endif()

if(KILN_SANITIZE)
    string(REPLACE ";" "," _kiln_sanitizers "${KILN_SANITIZE}")
    # -g1: line tables, which is all a sanitizer's report needs (file:line in every frame); full debug info made
    # each sanitized test program ~140 MB larger.
    add_compile_options(-fsanitize=${_kiln_sanitizers} -fno-omit-frame-pointer -g1)
    add_link_options(-fsanitize=${_kiln_sanitizers})
    message(STATUS "kiln: sanitizers ${_kiln_sanitizers}")
endif()

# A fuzzing build instruments every library for libFuzzer's coverage (the fuzz targets link libFuzzer itself), so that
# the search is guided by the parser's and the runtime's branches, not only the target's.
if(KILN_FUZZ AND CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-fsanitize=fuzzer-no-link>)
endif()

# The shared libraries link with --no-undefined, but clang leaves the sanitizer and coverage runtimes out of shared
# objects (the executable brings them), so a sanitized or fuzzing clang build links them without it.
set(KILN_NO_UNDEFINED -Wl,--no-undefined)
if((KILN_SANITIZE OR KILN_FUZZ) AND CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    set(KILN_NO_UNDEFINED "")
endif()
