#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kiln's test command: installs what the build needs (Debian/Ubuntu, as root), builds kiln and its tests, runs
# them, then rebuilds the test programs that run threads under ThreadSanitizer and the library's tests (but the ONNX
# parser's and the standard plugins') under AddressSanitizer+UBSan and runs those, then builds the fuzz targets with
# clang against libFuzzer and runs each a fixed number of times.
#   bash scripts/test.sh                 # everything
#   KILN_SKIP_SANITIZERS=1 KILN_SKIP_FUZZ=1 bash scripts/test.sh   # the plain build only
#   KILN_SKIP_PYTHON=1 bash scripts/test.sh                          # without the Python package and its tests
set -euo pipefail
cd "$(dirname "$0")/.."

# Essential: g++, cmake, ninja, nm, GoogleTest, FlatBuffers (headers and flatc), libonnx and protobuf (the ONNX parser)
# and ONNX's node tests (libonnx-testdata, the parser's conformance run), CLI11 and nlohmann-json (the kiln tool). Optional: git and clang-format (the style
# test), ccache, pkg-config (pkgconf: the install test's pkg-config step).
missing() {
    for tool in "$@"; do command -v "$tool" >/dev/null 2>&1 || return 0; done
    return 1
}
packages="g++ cmake ninja-build ccache binutils git clang-format pkgconf libgtest-dev libgmock-dev libflatbuffers-dev flatbuffers-compiler
    libonnx-dev libprotobuf-dev libonnx-testdata libcli11-dev nlohmann-json3-dev"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    # FlatBuffers' headers may come from elsewhere through CMAKE_INCLUDE_PATH (CMake's find_path reads it).
    if missing g++ cmake ninja nm flatc || [ ! -f /usr/include/gtest/gtest.h ] \
        || [ ! -f "${CMAKE_INCLUDE_PATH:-/usr/include}/flatbuffers/flatbuffers.h" ] \
        || [ ! -f /usr/include/onnx/onnx_pb.h ] || [ ! -d /usr/share/libonnx-testdata/data/node ] \
        || [ ! -f /usr/include/CLI/CLI.hpp ] || [ ! -f /usr/include/nlohmann/json.hpp ]; then
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends $packages >/dev/null
    elif missing git clang-format ccache pkg-config; then
        # Nice to have; a machine without a package mirror goes on without them.
        { apt-get update -qq && apt-get install -y -qq --no-install-recommends $packages >/dev/null; } \
            || echo "note: could not install the optional tools (git, clang-format, ccache, pkg-config); going on without them"
    fi
fi

# The Python package's stage (docs/python.md): the module builds in the plain build below and its pytest suite runs
# in the same ctest (label python) when Python's development files, pybind11, numpy and pytest are there (Debian:
# python3-dev pybind11-dev python3-numpy python3-pytest). Without them it is skipped with a note.
python_packages="python3-dev pybind11-dev python3-numpy python3-pytest"
python_ready() {
    [ -x /usr/bin/python3 ] && [ -f /usr/include/pybind11/pybind11.h ] \
        && /usr/bin/python3 -c "import sysconfig, os, numpy, pytest; assert os.path.exists(sysconfig.get_paths()['include'] + '/Python.h')" \
            >/dev/null 2>&1
}
if [ "${KILN_SKIP_PYTHON:-0}" != 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && ! python_ready; then
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends $python_packages >/dev/null; } \
        || echo "note: could not install the Python stage's packages ($python_packages)"
fi
python_args=(-DKILN_BUILD_PYTHON=OFF)
if [ "${KILN_SKIP_PYTHON:-0}" != 1 ]; then
    if python_ready; then
        # Debian's interpreter, the one the packages above belong to (another python3 may come first in PATH).
        python_args=(-DKILN_BUILD_PYTHON=AUTO -DPython_EXECUTABLE=/usr/bin/python3)
    else
        echo "note: no Python development files, pybind11, numpy and pytest for /usr/bin/python3 ($python_packages):"
        echo "      the Python package and its tests are skipped"
    fi
fi

# The fuzz stage's compiler: clang with libFuzzer and the sanitizers' runtimes (Debian: clang, libclang-rt-dev).
fuzzer_available() {
    command -v clang++ >/dev/null 2>&1 || return 1
    local probe status
    probe=$(mktemp -d)
    printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' >"$probe/p.cpp"
    status=0
    clang++ -fsanitize=fuzzer,address,undefined "$probe/p.cpp" -o "$probe/p" >/dev/null 2>&1 || status=1
    rm -rf "$probe"
    return $status
}
if [ "${KILN_SKIP_FUZZ:-0}" != 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && ! fuzzer_available; then
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends clang libclang-rt-dev >/dev/null; } \
        || echo "note: could not install clang and libFuzzer (packages clang, libclang-rt-dev)"
fi

jobs=$(nproc)
export CCACHE_DIR="${CCACHE_DIR:-${HOME:-/root}/.cache/kiln-ccache}"

echo "== build and test (Release)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DKILN_BUILD_TESTS=ON -DKILN_BUILD_EXAMPLES=ON "${python_args[@]}"
cmake --build build -j "$jobs"
ctest --test-dir build -j "$jobs" --output-on-failure --no-tests=error --timeout 300

if [ "${KILN_SKIP_SANITIZERS:-0}" != 1 ]; then
    for sanitizer in thread "address;undefined"; do
        dir="build-${sanitizer%%;*}"
        # ThreadSanitizer: the test programs that run threads (target kiln_tsan_tests, and their labels). AddressSanitizer
        # and UBSan: the library's tests but the ONNX parser's and the standard plugins' (tests/CMakeLists.txt,
        # kiln_asan_tests). The examples, the ONNX parse benchmark, the command-line tool and the header tests run in
        # the plain stage only: not built here.
        if [ "$sanitizer" = thread ]; then
            targets=(--target kiln_tsan_tests)
            labels="tsan|engine|runtime|builder" # of those programs only: nothing else is built there
        else
            # The ONNX parser runs under AddressSanitizer in the libFuzzer stage below (target kiln_asan_tests).
            targets=(--target kiln_asan_tests)
            labels="registry|core|plan|builder|network|host|runtime|engine"
        fi
        echo "== ${labels}, under -fsanitize=${sanitizer}"
        # -O1 (with the -g1 the sanitizer options add) compiles about twice as fast as RelWithDebInfo's -O2 under
        # ASan, and the sanitizers' own guides recommend it.
        cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DKILN_SANITIZE=${sanitizer}" \
            -DKILN_BUILD_EXAMPLES=OFF -DKILN_BUILD_BENCH_ONNX=OFF -DKILN_BUILD_TOOLS=OFF \
            "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -DNDEBUG"
        cmake --build "$dir" -j "$jobs" "${targets[@]}"
        TSAN_OPTIONS=halt_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
            ctest --test-dir "$dir" -j "$jobs" -L "$labels" --output-on-failure --no-tests=error --timeout 300
    done
fi

if [ "${KILN_SKIP_FUZZ:-0}" != 1 ]; then
    if fuzzer_available; then
        # The fuzz targets (plans, timing caches, plugin fields, ONNX) against libFuzzer, every library instrumented
        # for coverage: a fixed number of runs each from a fixed seed (docs/reliability.md: long campaigns).
        echo "== the fuzz targets under libFuzzer (clang, ASan + UBSan), a fixed number of runs each"
        CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKILN_FUZZ=ON \
            "-DKILN_SANITIZE=address;undefined" -DKILN_BUILD_EXAMPLES=OFF -DKILN_BUILD_BENCH_ONNX=OFF -DKILN_BUILD_TOOLS=OFF \
            "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -DNDEBUG"
        cmake --build build-fuzz -j "$jobs" --target kiln_plan_fuzz kiln_timing_cache_fuzz kiln_plugin_fields_fuzz \
            kiln_onnx_fuzz kiln_fuzz_corpora
        ctest --test-dir build-fuzz -j "$jobs" -L fuzz --output-on-failure --no-tests=error --timeout 900
    else
        echo "note: no clang with libFuzzer here (Debian: clang, libclang-rt-dev): the fuzz targets ran only under"
        echo "      kiln's mutation driver in the stages above (fuzz.*_smoke); the libFuzzer stage was skipped"
    fi
fi
