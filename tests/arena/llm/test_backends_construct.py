"""Every backend type constructs and answers against the client libraries installed now.

A new major release of a client library (openai 3.x moved from ``httpx`` to ``httpx2``) broke
construction while every mocked test stayed green; this test builds each backend the way a run
does, through :func:`make_backend`, and makes one real call with it.
"""

from __future__ import annotations

import typing

import pytest

from arena.llm.backends import make_backend
from arena.llm.config import BackendConfig
from arena.llm.messages import ChatRequest

BACKEND_TYPES = typing.get_args(BackendConfig.model_fields["type"].annotation)


def test_the_backend_types_listed_here_are_all_the_config_allows():
    # a new backend type joins the parametrized test below by being added to the config
    assert set(BACKEND_TYPES) == {"openai", "local"}


@pytest.mark.parametrize("kind", BACKEND_TYPES)
async def test_each_backend_type_constructs_and_answers(kind, scripted):
    config = (
        scripted.config(timeout_s=12.5, connect_timeout_s=1.5)
        if kind == "openai"
        else (BackendConfig(type="local", max_tokens=4, kv={"reuse": False}))
    )
    backend = make_backend(config)
    try:
        if kind == "openai":
            timeout = backend.clients[0].timeout  # type: ignore[attr-defined]
            assert (timeout.read, timeout.connect) == (12.5, 1.5)
            assert (await backend.preflight()).endswith(": ok")
        request = ChatRequest([{"role": "user", "content": "Say yes."}], max_tokens=4)
        result = await backend.complete(request)
        assert result.text.strip()
    finally:
        await backend.close()
