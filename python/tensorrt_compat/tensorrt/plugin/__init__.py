# SPDX-License-Identifier: Apache-2.0
"""``import tensorrt.plugin as trtp`` backed by kiln: this module is ``kiln.plugin`` itself (the same registry of
decorated plugins, the same ``op``)."""

import sys

import kiln.plugin

sys.modules[__name__] = kiln.plugin
