"""An agent entry's ``params``: typed once, when the config that holds them is checked.

Every agent kind has a params model (``Agent.Params``): a schema of its own (``llm``:
:class:`~arena.agents.llm_agent.LLMAgentParams`, ``remote``: ``RemoteParams``), or, for a kind
whose constructor is its schema (rule bots, ``random``, ``human``, plug-ins),
:class:`KeywordParams`: its keyword arguments, the names checked against the ones the class
declares and the values by building one agent.

Until the game is known the kind cannot be resolved (``random`` is Werewolf's own random bot in
Werewolf), so a config holds :class:`Unchecked` params, the mapping as written, until its check
types them. The mapping as written is also what files and fingerprints keep: a typed model
fills defaults and normalises values (``1`` becomes ``1.0``, a URL loses its trailing slash).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class ParamsError(ValueError):
    """Params that do not build an agent of the kind; ``problems``: ``params[.field]: message``
    lines, one per problem."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


class Unchecked(BaseModel):
    """An entry's params as written, before its kind is resolved for a game."""

    model_config = ConfigDict(extra="allow", frozen=True)


class KeywordParams(BaseModel):
    """The checked params of a kind without a schema of its own: its keyword arguments."""

    model_config = ConfigDict(extra="allow", frozen=True)


def as_written(params: BaseModel) -> dict[str, Any]:
    """The fields a params model was given (its extra fields included), without defaults."""
    return params.model_dump(exclude_unset=True)
