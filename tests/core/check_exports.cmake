# SPDX-License-Identifier: Apache-2.0
# cmake -DNM=nm -DLIBRARY=libkiln.so -DEXPECTED=list.txt -P check_exports.cmake
# Fails unless the library's defined dynamic symbols are exactly those listed (sanitizer runtimes aside). Used for
# libkiln (tests/core), the ONNX parser (tests/onnx) and the Python module (python/CMakeLists.txt): a symbol exported
# beyond them (protobuf's, libonnx's, a C++ template's) can take the place of another library's in the process.
execute_process(COMMAND ${NM} -D --defined-only ${LIBRARY} OUTPUT_VARIABLE _out RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "nm failed on ${LIBRARY}")
endif()
string(REPLACE "\n" ";" _lines "${_out}")
set(_actual "")
foreach(_line IN LISTS _lines)
    if(_line MATCHES "^[0-9a-fA-F]* +[TtDdBbRrVvWwiu] +([^ ]+)$")
        set(_name "${CMAKE_MATCH_1}")
        # Sanitizer builds add their interceptors' entry points; they are not kiln's.
        if(NOT _name MATCHES "^(__[a-z]*san|__sanitizer|__interceptor|_fini|_init)")
            list(APPEND _actual "${_name}")
        endif()
    endif()
endforeach()
list(REMOVE_DUPLICATES _actual)
list(SORT _actual)
file(STRINGS ${EXPECTED} _expected)
list(SORT _expected)
if(NOT "${_actual}" STREQUAL "${_expected}")
    message(FATAL_ERROR "${LIBRARY} exports\n  ${_actual}\nbut should export exactly\n  ${_expected}")
endif()
message(STATUS "${LIBRARY} exports exactly the intended symbols: ${_actual}")
