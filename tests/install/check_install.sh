#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The drop-in install, checked the way a TensorRT user meets it (tests/install/CMakeLists.txt runs each step as a test;
# docs/install.md describes the layout):
#
#   layout        cmake --install <build> --prefix <work>/prefix; the files, links, sonames and NEEDED entries; no
#                 RUNPATH into the build or source tree; the installed kiln tool runs the model with its own RUNPATH
#   link_flags    app.cpp compiled against the installed headers with -lnvinfer -lnvonnxparser
#   find_package  app.cpp built by a small CMake project through find_package(kiln) (consumer/)
#   pkg_config    app.cpp compiled with pkg-config's flags for nvinfer, nvonnxparser and nvinfer_plugin
#   plugin_plan   a plugin library built from the installed headers travels in a plan to a process that never opens it
#
# Each program must record NEEDED libnvinfer.so.10 and libnvonnxparser.so.10 (TensorRT's sonames) and, run with
# LD_LIBRARY_PATH=<prefix>/lib on the host backend, parse and run roi_align.onnx with every TensorRT-named library
# mapped from <prefix>/lib.
#
#   check_install.sh <step> <build dir> <work dir> <TensorRT version> <C++ compiler> <cmake> <generator> <make program>
#       <with tool: ON/OFF>
#
# Exit 0: passed; 77: skipped (pkg_config without pkg-config); anything else: failed, saying why.
set -euo pipefail

step=$1 build=$2 work=$3 version=$4 cxx=$5 cmake=$6 generator=$7 make_program=$8 with_tool=$9
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
build=$(cd "$build" && pwd)
prefix=$work/prefix
libdir=$prefix/lib
model=$here/roi_align.onnx
major=${version%%.*}

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# The value of a dynamic-section entry of an ELF file, one per line: NEEDED, SONAME or RUNPATH (split at ':').
dynamic() {
    local file=$1 tag=$2
    LC_ALL=C readelf -d "$file" | sed -n "s/.*(${tag}) *[^[]*\[\(.*\)\]$/\1/p" | tr ':' '\n' | sed '/^$/d'
}

expect_needed() {
    local file=$1
    shift
    local needed
    needed=$(dynamic "$file" NEEDED)
    for library in "$@"; do
        grep -qx "$library" <<<"$needed" || fail "$file does not record NEEDED $library (it needs: $(echo $needed))"
    done
    echo "ok: $(basename "$file") needs $*"
}

# Runs a built application on the model and checks its output and where every TensorRT-named library came from.
run_app() {
    local app=$1
    shift
    local output
    output=$(cd "$work" && KILN_BACKEND=host LD_LIBRARY_PATH=$libdir "$app" "$model" 2>&1) \
        || fail "$app failed:"$'\n'"$output"
    grep -qx "output 7.5" <<<"$output" || fail "$app printed no 'output 7.5':"$'\n'"$output"
    local real_libdir
    real_libdir=$(realpath "$libdir")
    while read -r path; do
        [ "$(dirname "$(realpath "$path")")" = "$real_libdir" ] || fail "$app mapped $path, not from $libdir"
    done < <(sed -n 's/^\(mapped\|plugin library\) //p' <<<"$output")
    for library in "$@"; do
        grep -qx "mapped $libdir/$library" <<<"$output" || fail "$app did not map $libdir/$library:"$'\n'"$output"
    done
    echo "ok: $(basename "$app") ran on the host backend (output 7.5), its libraries from $libdir: $*"
}

check_layout() {
    rm -rf "$work"
    mkdir -p "$work"
    "$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" || fail "cmake --install: $(cat "$work/install.log")"

    # Each library: the file named for TensorRT's version, its soname link and its link-time name, as TensorRT's.
    for name in nvinfer nvonnxparser nvinfer_plugin; do
        local file=$libdir/lib$name.so.$version
        [ -f "$file" ] && [ ! -L "$file" ] || fail "no file $file"
        [ "$(readlink "$libdir/lib$name.so.$major")" = "lib$name.so.$version" ] \
            || fail "$libdir/lib$name.so.$major is not a link to lib$name.so.$version"
        [ "$(readlink "$libdir/lib$name.so")" = "lib$name.so.$major" ] \
            || fail "$libdir/lib$name.so is not a link to lib$name.so.$major"
        [ "$(dynamic "$file" SONAME)" = "lib$name.so.$major" ] || fail "$file: soname $(dynamic "$file" SONAME)"
    done
    echo "ok: lib/libnvinfer.so, libnvonnxparser.so and libnvinfer_plugin.so -> .so.$major -> .so.$version, sonames .so.$major"
    expect_needed "$libdir/libnvonnxparser.so.$version" "libnvinfer.so.$major"
    expect_needed "$libdir/libnvinfer_plugin.so.$version" "libnvinfer.so.$major"

    for file in NvInfer.h NvInferRuntime.h NvInferRuntimeBase.h NvInferRuntimePlugin.h NvInferPlugin.h NvInferVersion.h \
        NvOnnxParser.h kiln/kiln.h lib/cmake/kiln/kilnConfig.cmake lib/cmake/kiln/kilnConfigVersion.cmake \
        lib/cmake/kiln/kilnTargets.cmake lib/pkgconfig/nvinfer.pc lib/pkgconfig/nvonnxparser.pc \
        lib/pkgconfig/nvinfer_plugin.pc lib/pkgconfig/tensorrt.pc; do
        case $file in lib/*) path=$prefix/$file ;; *) path=$prefix/include/$file ;; esac
        [ -f "$path" ] || fail "not installed: $path"
    done
    echo "ok: the headers, the CMake package (lib/cmake/kiln) and the pkg-config files (lib/pkgconfig)"
    if [ "$with_tool" = ON ]; then
        [ -x "$prefix/bin/kiln" ] || fail "not installed: $prefix/bin/kiln"
    fi
    local strays
    strays=$(cd "$prefix" && find . -mindepth 1 -maxdepth 1 ! -name bin ! -name include ! -name lib)
    [ -z "$strays" ] || fail "installed outside bin/, include/ and lib/: $strays"
    strays=$(cd "$prefix" && find . \( -name '*kiln_test*' -o -name '*example*' -o -name 'libkiln*' \))
    [ -z "$strays" ] || fail "installed test, example or libkiln files: $strays"

    # No RUNPATH (or RPATH) entry leads into the build or the source tree; the parser and the plugin library find
    # libnvinfer beside them, the tool finds the libraries in ../lib.
    local elf_files
    elf_files=$(find "$prefix" -type f \( -name '*.so*' -o -path '*/bin/*' \))
    for file in $elf_files; do
        for tag in RUNPATH RPATH; do
            while read -r entry; do
                [ -n "$entry" ] || continue
                case $entry in
                "$build"* | "$source_dir"* | "$work"*) fail "$file has $tag $entry, in the build or source tree" ;;
                esac
            done < <(dynamic "$file" "$tag")
        done
    done
    for file in "$libdir/libnvonnxparser.so.$version" "$libdir/libnvinfer_plugin.so.$version"; do
        dynamic "$file" RUNPATH | grep -qx '$ORIGIN' || fail "$file: RUNPATH $(dynamic "$file" RUNPATH) lacks \$ORIGIN"
    done
    echo "ok: no RUNPATH into $build or $source_dir; \$ORIGIN in the parser's and the plugin library's"

    if [ "$with_tool" = ON ]; then
        dynamic "$prefix/bin/kiln" RUNPATH | grep -qx '$ORIGIN/../lib' \
            || fail "bin/kiln: RUNPATH $(dynamic "$prefix/bin/kiln" RUNPATH) lacks \$ORIGIN/../lib"
        expect_needed "$prefix/bin/kiln" "libnvinfer.so.$major" "libnvonnxparser.so.$major" "libnvinfer_plugin.so.$major"
        # The tool alone, no LD_LIBRARY_PATH: its RUNPATH finds the installed libraries, whose parser loads the
        # standard plugin library for RoiAlign from beside libnvinfer.
        local output
        output=$(cd "$work" && env -u LD_LIBRARY_PATH KILN_BACKEND=host "$prefix/bin/kiln" --onnx="$model" \
            --iterations=1 --warmUp=0 --duration=0 2>&1) || fail "bin/kiln failed:"$'\n'"$output"
        grep -q "PASSED" <<<"$output" || fail "bin/kiln did not pass:"$'\n'"$output"
        local loaded path
        loaded=$(env -u LD_LIBRARY_PATH LD_TRACE_LOADED_OBJECTS=1 "$prefix/bin/kiln")
        for name in nvinfer nvonnxparser nvinfer_plugin; do
            path=$(sed -n "s/^[[:space:]]*lib$name\.so\.$major => \(.*\) (0x[0-9a-f]*)$/\1/p" <<<"$loaded")
            [ -n "$path" ] && [ "$(realpath "$path")" = "$(realpath "$libdir/lib$name.so.$major")" ] \
                || fail "bin/kiln does not load lib$name.so.$major from $libdir:"$'\n'"$loaded"
        done
        echo "ok: bin/kiln runs the model with the libraries of $libdir, through its RUNPATH"
    fi
}

check_link_flags() {
    local app=$work/app_link_flags
    "$cxx" -std=c++17 -Wall -Wextra -Werror -I"$prefix/include" "$here/app.cpp" -o "$app" -L"$libdir" -lnvinfer \
        -lnvonnxparser || fail "app.cpp does not build with -lnvinfer -lnvonnxparser"
    expect_needed "$app" "libnvinfer.so.$major" "libnvonnxparser.so.$major"
    run_app "$app" "libnvinfer.so.$major" "libnvonnxparser.so.$major" "libnvinfer_plugin.so.$major"
}

check_find_package() {
    local consumer=$work/consumer
    rm -rf "$consumer"
    "$cmake" -S "$here/consumer" -B "$consumer" -G "$generator" -DCMAKE_MAKE_PROGRAM="$make_program" \
        -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" >"$work/consumer.log" 2>&1 \
        || fail "the consumer project does not configure: $(cat "$work/consumer.log")"
    grep -qx "kiln_DIR:PATH=$libdir/cmake/kiln" "$consumer/CMakeCache.txt" \
        || fail "find_package(kiln) found $(grep '^kiln_DIR' "$consumer/CMakeCache.txt"), not $libdir/cmake/kiln"
    "$cmake" --build "$consumer" >>"$work/consumer.log" 2>&1 \
        || fail "the consumer project does not build: $(cat "$work/consumer.log")"
    echo "ok: find_package(kiln) from $libdir/cmake/kiln; app linked with kiln::kiln kiln::onnxparser"
    expect_needed "$consumer/app" "libnvinfer.so.$major" "libnvonnxparser.so.$major"
    run_app "$consumer/app" "libnvinfer.so.$major" "libnvonnxparser.so.$major" "libnvinfer_plugin.so.$major"
}

check_pkg_config() {
    if ! command -v pkg-config >/dev/null 2>&1; then
        echo "skipped: no pkg-config (Debian: pkgconf)"
        exit 77
    fi
    # Only the installed files: PKG_CONFIG_LIBDIR replaces the system's folders.
    export PKG_CONFIG_LIBDIR=$libdir/pkgconfig
    unset PKG_CONFIG_PATH
    [ "$(pkg-config --modversion nvinfer)" = "$version" ] || fail "pkg-config --modversion nvinfer: not $version"
    local all
    all=$(pkg-config --libs tensorrt)
    for name in nvinfer nvonnxparser nvinfer_plugin; do
        grep -qw -- "-l$name" <<<"$all" || fail "pkg-config --libs tensorrt lacks -l$name: $all"
    done
    local flags
    flags=$(pkg-config --cflags --libs nvinfer nvonnxparser nvinfer_plugin)
    echo "ok: pkg-config --cflags --libs nvinfer nvonnxparser nvinfer_plugin: $flags"
    local app=$work/app_pkg_config
    # shellcheck disable=SC2086 # the flags are words
    "$cxx" -std=c++17 -Wall -Wextra -Werror -DAPP_INIT_PLUGINS "$here/app.cpp" -o "$app" $flags \
        || fail "app.cpp does not build with pkg-config's flags"
    expect_needed "$app" "libnvinfer.so.$major" "libnvonnxparser.so.$major" "libnvinfer_plugin.so.$major"
    run_app "$app" "libnvinfer.so.$major" "libnvonnxparser.so.$major" "libnvinfer_plugin.so.$major"
}

# A plugin that travels in the plan: the library (examples/plugin_library/scale_plugin.cpp: getCreators and
# setLoggerFinder, kiln's host capability) built from the installed headers alone, as a plugin author outside kiln's
# tree builds one; an application linked with -lnvinfer builds a plan that carries it (setPluginsToSerialize); a second
# process, which never opens the library's file, runs the plan with setEngineHostCodeAllowed(true), and a third is
# refused without it.
check_plugin_plan() {
    local dir=$work/plugin_plan
    rm -rf "$dir"
    mkdir -p "$dir"
    "$cxx" -std=c++17 -O1 -Wall -Wextra -Werror -Wno-deprecated-declarations -fPIC -shared -fvisibility=hidden \
        -I"$prefix/include" "$source_dir/examples/plugin_library/scale_plugin.cpp" -o "$dir/libscale_plugin.so" \
        || fail "scale_plugin.cpp does not build against the installed headers"
    local app=$dir/plugin_plan_app
    "$cxx" -std=c++17 -Wall -Wextra -Werror -I"$prefix/include" "$here/plugin_plan_app.cpp" -o "$app" -L"$libdir" \
        -lnvinfer || fail "plugin_plan_app.cpp does not build with -lnvinfer"
    expect_needed "$app" "libnvinfer.so.$major"
    local output
    output=$(cd "$dir" && KILN_BACKEND=host LD_LIBRARY_PATH=$libdir "$app" build "$dir/libscale_plugin.so" scale.plan 2>&1) \
        || fail "building the plan failed:"$'\n'"$output"
    echo "ok: a plan that carries libscale_plugin.so ($output)"
    # The library's file moves away: the second process can only get the plugin from the plan.
    mv "$dir/libscale_plugin.so" "$dir/libscale_plugin.so.gone"
    output=$(cd "$dir" && KILN_BACKEND=host LD_LIBRARY_PATH=$libdir "$app" run scale.plan 2>&1) \
        || fail "running the plan failed:"$'\n'"$output"
    grep -qx "output ok 24 values, Y = 2.5 \* X" <<<"$output" || fail "the plan's output is wrong:"$'\n'"$output"
    if grep "^mapped " <<<"$output" | grep -q "$dir/"; then
        fail "the second process mapped the library's file:"$'\n'"$output"
    fi
    echo "ok: a second process ran the plan with the plugin it carries (Y = 2.5 * X), the library's file unopened"
    output=$(cd "$dir" && KILN_BACKEND=host LD_LIBRARY_PATH=$libdir "$app" refuse scale.plan 2>&1) \
        || fail "the plan was not refused without setEngineHostCodeAllowed:"$'\n'"$output"
    grep -q "setEngineHostCodeAllowed" <<<"$output" || fail "the refusal does not say why:"$'\n'"$output"
    echo "ok: refused without setEngineHostCodeAllowed(true)"
}

case $step in
layout) check_layout ;;
link_flags) check_link_flags ;;
find_package) check_find_package ;;
pkg_config) check_pkg_config ;;
plugin_plan) check_plugin_plan ;;
*) fail "unknown step $step" ;;
esac
