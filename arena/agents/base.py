"""The agent contract: ``reset(context)`` then ``await act(observation, decision)`` per decision."""

from __future__ import annotations

import functools
import inspect
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from arena.agents.params import KeywordParams, ParamsError, as_written
from arena.errors import describe_validation
from arena.types import Action, Decision, Observation


class MatchContext(BaseModel):
    """What an agent is told when a match starts.

    ``seed`` is the agent's own seed, derived from (match seed, seat, agent name); agents never
    receive the match seed itself (with it they could replay the engine RNG and learn secrets).
    ``team_seed`` is shared by the seats of one team (derived from the match seed and the team
    name), so teammates can coordinate; it reveals nothing about other seats.
    """

    model_config = ConfigDict(extra="forbid")

    game: str
    match_id: str
    seat: int
    name: str
    names: list[str]
    seed: int
    team_seed: int
    rules: dict[str, Any] = Field(default_factory=dict)
    # the seat's briefing at the start (its role, goal and the rules in words); also the
    # first part of every observation's text
    briefing: str = ""


class AgentForfeit(Exception):
    """Raised by an agent that cannot go on (a remote agent that keeps failing): the runner
    forfeits its seat at once with this message as the reason, whatever the fallback policy."""


@runtime_checkable
class TracksTimeouts(Protocol):
    """An agent that keeps account of its calls (LLM and remote agents): told when the
    runner's time limit stopped one, with the runner's words for it. It may raise
    :class:`AgentForfeit` when that failure is one too many."""

    def mark_timed_out(self, error: str = "") -> None: ...


def timed_out(agent: object, error: str) -> str | None:
    """Tell ``agent`` (when it keeps account) that a call timed out: the forfeit reason when
    that was its last allowed failure, else None."""
    if not isinstance(agent, TracksTimeouts):
        return None
    try:
        agent.mark_timed_out(error)
    except AgentForfeit as err:
        return str(err) or "the agent gave up"
    return None


@runtime_checkable
class HearsMatchEnd(Protocol):
    """An agent that wants the end of the match: the outcome and its final view (what the end
    of the game revealed to its seat). Called once, before ``close``."""

    async def match_over(self, observation: Observation, outcome: dict[str, Any]) -> None: ...


@runtime_checkable
class KeepsCallRecords(Protocol):
    """An agent that records each model call it makes (LLM agents): the runner takes the
    records after each answer and writes one god-only ``llm_call`` event per record."""

    def pop_call_records(self) -> list[dict[str, Any]]: ...


@runtime_checkable
class Preflights(Protocol):
    """An agent that can check what it depends on before it plays (an LLM agent asks its
    backend: server reachable, model present); returns one line saying what it checked."""

    async def preflight(self) -> str: ...


class Agent(ABC):
    """Base class of every agent. One instance plays one seat of one match at a time."""

    #: the kind name used in configs (e.g. "random", "werewolf.rule")
    kind: str = "agent"
    #: parameter names the agent reads from ``self.params`` (named ``__init__`` arguments
    #: need no entry here); with them, a typo in a config's ``params`` is an error
    PARAMS: ClassVar[tuple[str, ...]] = ()

    #: the kind's params model; :class:`KeywordParams` (the default): the constructor's
    #: keyword arguments, checked by building one agent
    Params: ClassVar[type[BaseModel]] = KeywordParams

    @classmethod
    def has_schema(cls) -> bool:
        """The params have a model of their own (not the constructor's keyword arguments)."""
        return cls.Params is not KeywordParams

    @classmethod
    def accepted_params(cls) -> frozenset[str]:
        """The names this agent takes in ``params``: its params model's fields, else the named
        ``__init__`` arguments and ``PARAMS`` of every class along its hierarchy."""
        if cls.has_schema():
            return frozenset(cls.Params.model_fields)
        return _declared_params(cls)

    @classmethod
    def unknown_params(cls, params: Mapping[str, Any]) -> str | None:
        """A message naming the parameters this agent does not take (None: all known)."""
        unknown = sorted(set(params) - cls.accepted_params())
        if not unknown:
            return None
        accepted = ", ".join(sorted(cls.accepted_params())) or "none"
        return f"params: unknown parameter(s) {unknown} for {cls.kind}; accepted: {accepted}"

    @classmethod
    def typed_params(cls, params: Mapping[str, Any]) -> BaseModel:
        """``params`` as this kind's model; :class:`ParamsError` lists why they would not build
        this agent (unknown names, refused values), one ``params[.field]: message`` each."""
        if cls.has_schema():
            try:
                return cls.Params.model_validate(dict(params))
            except ValidationError as err:
                raise ParamsError(describe_validation(err, "params")) from None
        unknown = cls.unknown_params(params)
        if unknown is not None:
            raise ParamsError([unknown])
        try:
            cls(name="check", **params)
        except (TypeError, ValueError) as err:
            raise ParamsError([f"params: {err}"]) from None
        return KeywordParams.model_validate(dict(params))

    @classmethod
    def param_problems(cls, params: Mapping[str, Any]) -> list[str]:
        """Why ``params`` would not build this agent ([]: they would)."""
        try:
            cls.typed_params(params)
        except ParamsError as err:
            return err.problems
        return []

    @classmethod
    def from_params(cls, name: str, params: BaseModel) -> Agent:
        """An agent built from its typed params (:meth:`typed_params`), not validated again."""
        return cls(name=name, **as_written(params))

    def __init__(self, name: str | None = None, **params: Any) -> None:
        self.name = name or self.kind
        self.params = params
        self.context: MatchContext | None = None

    def reset(self, context: MatchContext) -> None:
        """Called once before the match; rule bots seed their own RNG here."""
        self.context = context

    @abstractmethod
    async def act(
        self, observation: Observation, decision: Decision
    ) -> Action | str | dict[str, Any]:
        """Answer the decision; an invalid answer is re-asked with ``observation.error`` set.

        Any answer ``Decision.parse`` accepts: an Action, a text answer or a JSON-like dict."""

    def time_limit(self, policy_timeout_s: float | None) -> float | None:
        """Seconds this seat has per decision (None: no limit). The tournament policy's
        ``timeout_s`` by default; a seat played by a person keeps its own (people read and
        think at another pace than programs)."""
        return policy_timeout_s

    async def close(self) -> None:
        """Release resources after the match (HTTP clients, etc.)."""
        return None


@functools.cache
def _declared_params(cls: type[Agent]) -> frozenset[str]:
    names: set[str] = set()
    for klass in cls.__mro__:
        if klass is Agent or not issubclass(klass, Agent):
            continue
        names.update(vars(klass).get("PARAMS", ()))
        init = vars(klass).get("__init__")
        if init is None:
            continue
        for p in list(inspect.signature(init).parameters.values())[1:]:
            if p.name != "name" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                names.add(p.name)
    return frozenset(names)
