#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Lists the TensorRT Python names an installed Polygraphy touches that the importable `tensorrt` lacks.

Reads Polygraphy's sources (no Polygraphy import needed) for two kinds of use:
  * module names: `trt.Name` and `trt.Name.MEMBER` anywhere in the package;
  * attributes on TensorRT objects, found by the variable names Polygraphy gives them (`engine.X`, `context.X`,
    `config.X`, ...) in its TensorRT backend, its TensorRT argument groups and `inspect model`.
Each is checked with hasattr against `tensorrt` (kiln's compatibility package when PYTHONPATH points at
build/python). Names of Polygraphy's own modules (`trt.util`, `trt.loader`, ...) are left out, and so are the
variable uses that are not TensorRT objects (KNOWN_NOT_TRT below).

    PYTHONPATH=build/python:/path/to/site KILN_BACKEND=host python3 scripts/polygraphy_audit.py /path/to/site/polygraphy
"""

import pathlib
import re
import sys

# Variable name in Polygraphy -> TensorRT class it holds.
VARIABLES = {
    "engine": "ICudaEngine",
    "context": "IExecutionContext",
    "config": "IBuilderConfig",
    "network": "INetworkDefinition",
    "builder": "Builder",
    "parser": "OnnxParser",
    "runtime": "Runtime",
    "inspector": "EngineInspector",
    "layer": "ILayer",
    "tensor": "ITensor",
    "timing_cache": "ITimingCache",
}
# Attribute uses on those variable names that are not TensorRT objects there (argparse parsers, Polygraphy's own
# profile and config classes) or that Polygraphy reaches only through hasattr/getattr fallbacks on older versions.
KNOWN_NOT_TRT = {
    "parser.add_argument",
    "config.USE_TENSORRT_RTX",
    "config.INTERNAL_CORRECTNESS_CHECKS",
    "context.num_inputs",
    "context.num_outputs",
    "layer.attention",
}
SOURCES = ["backend/trt", "tools/args/backend/trt", "tools/inspect/subtool", "backend/base"]


def module_names(package):
    own = {"is_installed", "is_importable"}  # Polygraphy's lazy-import wrapper
    for folder in ("backend/trt", "tools/args/backend/trt"):  # `polygraphy...trt.<module>` imports
        own |= {path.stem for path in (package / folder).glob("*.py")}
    names = set()
    for path in package.rglob("*.py"):
        for match in re.finditer(r"\btrt\.([A-Za-z_]\w*)(?:\.([A-Za-z_]\w*))?", path.read_text()):
            if match.group(1) not in own:
                names.add(match.group(1) + ("." + match.group(2) if match.group(2) else ""))
    return names


def object_names(package):
    pattern = re.compile(r"\b(" + "|".join(VARIABLES) + r")\.([A-Za-z_]\w*)")
    names = set()
    for folder in SOURCES:
        for path in (package / folder).rglob("*.py"):
            for match in pattern.finditer(path.read_text()):
                use = f"{match.group(1)}.{match.group(2)}"
                if use not in KNOWN_NOT_TRT and not match.group(2).startswith("__"):
                    names.add(use)
    return names


def main(argv):
    package = pathlib.Path(argv[1])
    import tensorrt as trt

    missing = []
    for name in sorted(module_names(package)):
        owner = trt
        for part in name.split("."):
            if not hasattr(owner, part):
                missing.append(f"trt.{name}")
                break
            owner = getattr(owner, part)
    for use in sorted(object_names(package)):
        variable, attribute = use.split(".")
        cls = getattr(trt, VARIABLES[variable])
        # Layer properties live on the concrete layer classes Polygraphy casts to.
        classes = [cls] + ([getattr(trt, n) for n in dir(trt) if n.endswith("Layer")] if variable == "layer" else [])
        if not any(hasattr(c, attribute) for c in classes):
            missing.append(f"{VARIABLES[variable]}.{attribute} ({use})")
    print(f"tensorrt {trt.__version__}: {len(missing)} names Polygraphy uses are missing")
    for name in missing:
        print("  " + name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
