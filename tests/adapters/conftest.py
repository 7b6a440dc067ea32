"""Fixtures for the adapter tests: a fake OpenAI/Anthropic-compatible model on loopback."""

from __future__ import annotations

import pytest

from handoff.adapters.fake_server import FakeModelServer


@pytest.fixture
def fake_model():
    """A running :class:`FakeModelServer` that echoes; tests may set ``fake_model.reply``."""
    with FakeModelServer() as server:
        yield server
