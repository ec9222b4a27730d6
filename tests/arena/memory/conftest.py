"""The scripted ``arena serve`` fixtures of the LLM tests, for matches with memory."""

from tests.arena.llm.conftest import _server, scripted

__all__ = ["_server", "scripted"]
