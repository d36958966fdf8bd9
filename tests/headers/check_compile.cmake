# SPDX-License-Identifier: Apache-2.0
# Runs one compiler command and checks how it ended, for the header compile-matrix tests:
#
#   cmake -DEXPECT=failure|success [-DMATCH="regex1@@regex2..."] -P check_compile.cmake -- <compiler> <args...>
#
# EXPECT=failure inverts the exit status (a compile-fail test passes only if the compiler fails). Every regex in
# MATCH must occur in the compiler's output, so a failure must be the expected diagnostic, and a success may be
# required to print a warning. The output is printed either way, for ctest --output-on-failure.

set(command)
set(afterSeparator FALSE)
math(EXPR lastArgument "${CMAKE_ARGC} - 1")
foreach(index RANGE ${lastArgument})
    if(afterSeparator)
        list(APPEND command "${CMAKE_ARGV${index}}")
    elseif(CMAKE_ARGV${index} STREQUAL "--")
        set(afterSeparator TRUE)
    endif()
endforeach()
if(NOT command)
    message(FATAL_ERROR "check_compile.cmake: no command after --")
endif()
if(NOT EXPECT MATCHES "^(success|failure)$")
    message(FATAL_ERROR "check_compile.cmake: EXPECT must be success or failure, not '${EXPECT}'")
endif()

# Plain ASCII quotes in GCC's diagnostics, so the regexes can use '.
set(ENV{LC_ALL} C)
execute_process(COMMAND ${command} RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
message("${output}")

set(problems "")
if(EXPECT STREQUAL "failure" AND status EQUAL 0)
    string(APPEND problems "expected the compiler to fail, but it succeeded\n")
elseif(EXPECT STREQUAL "success" AND NOT status EQUAL 0)
    string(APPEND problems "expected the compiler to succeed, but it exited with '${status}'\n")
endif()
if(DEFINED MATCH AND NOT MATCH STREQUAL "")
    string(REPLACE "@@" ";" patterns "${MATCH}")
    foreach(pattern IN LISTS patterns)
        if(NOT output MATCHES "${pattern}")
            string(APPEND problems "the output does not match: ${pattern}\n")
        endif()
    endforeach()
endif()

if(problems)
    list(JOIN command " " commandLine)
    message(FATAL_ERROR "${problems}command: ${commandLine}")
endif()
