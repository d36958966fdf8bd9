# SPDX-License-Identifier: Apache-2.0
"""Shared fixtures: every test runs on kiln's host backend (no GPU needed) with a quiet logger."""

import os

os.environ.setdefault("KILN_BACKEND", "host")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import kiln  # noqa: E402


@pytest.fixture
def logger():
    return kiln.Logger(kiln.Logger.ERROR)


@pytest.fixture
def rng():
    return np.random.default_rng(7)


def build_plan(builder, network, config=None):
    """The serialized plan of network (a default config unless given); fails the test when the build fails."""
    config = config if config is not None else builder.create_builder_config()
    plan = builder.build_serialized_network(network, config)
    assert plan is not None, "the build failed (see the logger)"
    return plan


class CollectingLogger(kiln.ILogger):
    """Keeps every message; errors() gives those at ERROR and INTERNAL_ERROR, error_text() them joined."""

    def __init__(self):
        kiln.ILogger.__init__(self)
        self.messages = []

    def log(self, severity, msg):
        self.messages.append((severity, msg))

    def errors(self):
        bad = (kiln.ILogger.Severity.ERROR, kiln.ILogger.Severity.INTERNAL_ERROR)
        return [msg for severity, msg in self.messages if severity in bad]

    def error_text(self):
        return "\n".join(self.errors())

    def text(self):
        return "\n".join(msg for _, msg in self.messages)
