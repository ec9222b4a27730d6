"""A PettingZoo ``AECEnv`` over any :class:`~arena.engine.RulesEngine`.

Spaces (chosen to pass ``pettingzoo.test.api_test``):

* observation: ``Dict(text=Text(...), legal=Box(0, 1, (K,), int8))`` — the rendered view a
  seat reads and a mask over the current decision's options (index ``i`` = option ``i``).
  The keys ``observation``/``action_mask`` are avoided on purpose: api_test would treat a text
  field under ``observation`` as a numeric array.
* action: ``Text`` over a Unicode charset — an option id or label, an option index (int),
  a JSON object, or free text where the decision allows it. Actions are validated strictly;
  an invalid one is re-asked at the seat's next turn (the error is in its ``infos`` and
  observation) up to ``invalid_retries`` times, then replaced by the configured fallback and
  recorded.

Turn order is fixed: ``agent_selection`` cycles through every seat in seat order, one step
each, whatever the game's phase. A seat that owes no decision now gets a ``wait`` turn (one
option, ``wait``; any answer is accepted and changes nothing). Stepping only through the seats
that act would tell any code watching the iterator who holds a night role (issue 15); with the
fixed cycle the order is the same for every deal, and the only thing it shows is when the game
ends, which every seat sees anyway. A refused answer is re-asked at the seat's next turn (the
cycle never stalls on a seat, which would show that it had a real decision).

Simultaneous phases are stepped one seat at a time; the engine buffers their answers and
resolves the phase when the last one arrives, so no seat sees another's answer.
"""

from __future__ import annotations

import copy
import functools
import re
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from arena.engine import FALLBACKS, RulesEngine, compose_view
from arena.types import InvalidAction

#: the option of a turn on which the seat owes no decision (see the module docstring)
WAIT = "wait"


@functools.cache
def unicode_charset() -> str:
    """Printable characters of the Basic Multilingual Plane plus newline and tab."""
    chars = ["\n", "\t"]
    chars.extend(chr(c) for c in range(0x20, 0x7F))
    chars.extend(chr(c) for c in range(0xA0, 0xD800))
    chars.extend(chr(c) for c in range(0xE000, 0xFFFE))
    return "".join(chars)


@functools.cache
def _text_prototype(max_length: int, min_length: int) -> spaces.Text:
    return spaces.Text(max_length, min_length=min_length, charset=unicode_charset())


def text_space(max_length: int, min_length: int = 0) -> spaces.Text:
    """A Unicode ``Text`` space; copies a cached prototype (building the charset is slow)."""
    space = copy.copy(_text_prototype(max_length, min_length))
    # its own RNG, seeded on first use or by .seed() (gymnasium types it non-Optional)
    space._np_random = None  # type: ignore[assignment]
    return space


# Everything outside unicode_charset(); a regex scans in C (a per-character Python check was
# half of the env's step time).
_OUTSIDE_CHARSET = re.compile("[^\n\t\x20-\x7e\xa0-\ud7ff\ue000-\ufffd]")


def clean(text: str) -> str:
    """Map characters outside the charset to U+FFFD."""
    if _OUTSIDE_CHARSET.search(text):
        return _OUTSIDE_CHARSET.sub("\ufffd", text)
    return text


def cap(text: str, limit: int) -> str:
    """Cap the length, keeping the end (the newest lines and the pending decision)."""
    return "…" + text[-(limit - 1) :] if len(text) > limit else text


def sanitize(text: str, limit: int) -> str:
    """Map characters outside the charset to U+FFFD and cap the length (keeping the end)."""
    return cap(clean(text), limit)


class _CleanView:
    """One seat's observation text kept clean incrementally.

    Scanning the whole text for characters outside the charset on every step cost more than
    the rest of the step late in a game; the transcript only grows, so only its new tail is
    scanned (the briefing is scanned again only when the engine returns a different one).
    """

    __slots__ = ("briefing", "briefing_clean", "transcript", "transcript_clean")

    def __init__(self) -> None:
        self.briefing = self.briefing_clean = ""
        self.transcript = self.transcript_clean = ""

    def text(
        self,
        briefing: str,
        transcript: str,
        decision: str | None,
        error: str | None,
        status: str = "",
    ) -> str:
        if briefing is not self.briefing:
            self.briefing, self.briefing_clean = briefing, clean(briefing)
        if transcript is not self.transcript:
            if transcript.startswith(self.transcript):
                tail = clean(transcript[len(self.transcript) :])
                self.transcript_clean += tail
            else:
                self.transcript_clean = clean(transcript)
            self.transcript = transcript
        return compose_view(
            self.briefing_clean,
            self.transcript_clean,
            None if decision is None else clean(decision),
            None if error is None else clean(error),
            clean(status),
        )


class EnvOrderError(RuntimeError):
    """The env was used out of order (``step`` or ``observe`` before ``reset``)."""


class ArenaEnv(AECEnv):  # type: ignore[misc]
    """PettingZoo AEC adapter; one instance plays one game at a time."""

    metadata = {"render_modes": ["ansi", "human"], "name": "arena", "is_parallelizable": False}

    MAX_TEXT = 200_000

    def __init__(
        self,
        engine_cls: type[RulesEngine[Any]],
        *,
        render_mode: str | None = None,
        invalid_retries: int = 2,
        fallback: str = "random_legal",
        max_cycles: int | None = None,
        **rules: Any,
    ) -> None:
        super().__init__()
        if fallback not in FALLBACKS:
            raise ValueError(f"fallback must be one of {FALLBACKS}, got {fallback!r}")
        if render_mode not in (None, "ansi", "human"):
            raise ValueError(f"unsupported render_mode {render_mode!r}")
        self.engine = engine_cls(rules, seed=0)
        self.metadata = {**self.metadata, "name": engine_cls.game}
        self.render_mode = render_mode
        self.invalid_retries = invalid_retries
        self.fallback_policy = fallback
        self.max_cycles = max_cycles
        n = self.engine.n_seats
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        k = self._n_options = self.engine.max_options()
        obs_space = spaces.Dict(
            {
                "text": text_space(self.MAX_TEXT),
                "legal": spaces.Box(0, 1, shape=(k,), dtype=np.int8),
            }
        )
        self._obs_spaces = {a: obs_space for a in self.possible_agents}
        act_space = text_space(4096, min_length=1)
        self._act_spaces = {a: act_space for a in self.possible_agents}
        self._n_reset = 0
        self._was_reset = False  # step/observe before the first reset() is a clear error
        self._next_seed = 0
        self._views: dict[int, _CleanView] = {}  # incrementally cleaned texts (see _CleanView)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._act_spaces[agent]

    # -- lifecycle -------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is None:
            seed = self._next_seed
        self._next_seed = int(seed) + 1  # a later reset() without seed plays a new, known game
        self.engine.reset(int(seed))
        self._was_reset = True
        self._views = {}
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._errors: dict[str, str | None] = {a: None for a in self.agents}
        self._attempts: dict[str, int] = {a: 0 for a in self.agents}
        self._cycles = 0
        self._turn = 0  # index of the selected seat in the fixed cycle
        self.fallbacks: list[dict[str, Any]] = []
        self._select_next(advance=False)

    def _select_next(self, advance: bool = True) -> None:
        if self.engine.is_over():
            self._finish()
            return
        pending = self.engine.current_pending()
        if not pending:  # a wait cycle would spin for ever: the engine has a bug, say so
            raise RuntimeError(
                f"{self.engine.game}: no seat owes a decision in phase {self.engine.phase!r} "
                "and the game is not over"
            )
        if advance:
            self._turn = (self._turn + 1) % len(self.possible_agents)
        self.agent_selection = self.possible_agents[self._turn]
        phase = self.engine.phase
        # Only the selected agent's info says whether it owes a decision: a "pending" flag on
        # every agent's info would show any wrapper who acts at night, as the old order did.
        for a in self.agents:
            self.infos[a] = {"seat": self._seat[a], "phase": phase}
        self.infos[self.agent_selection] = self._info(self.agent_selection)

    def _info(self, agent: str) -> dict[str, Any]:
        """The selected agent's info: its decision (kind, legal ids, choice bounds)."""
        seat = self._seat[agent]
        info: dict[str, Any] = {"seat": seat, "phase": self.engine.phase}
        if not self.engine.is_over() and self.engine.owes(seat):
            d = self.engine.current_decision(seat)
            info["pending"] = True
            info["decision"] = d.kind
            info["legal"] = d.option_ids
            info["free_text"] = d.free_text
            info["min_choices"] = d.min_choices
            info["max_choices"] = d.max_choices
        elif not self.engine.is_over():
            info.update(
                pending=False, decision=WAIT, legal=[WAIT], free_text=False,
                min_choices=1, max_choices=1,
            )  # fmt: skip
        if self._errors.get(agent):
            info["error"] = self._errors[agent]
        return info

    def _finish(self, reason: str | None = None) -> None:
        outcome = self.engine.outcome()
        for a in self.agents:
            seat = self._seat[a]
            self.rewards[a] = float(outcome.rewards.get(seat, 0.0)) if outcome else 0.0
            self.terminations[a] = outcome is not None
            self.truncations[a] = outcome is None
            self.infos[a] = {
                "seat": seat,
                "outcome": outcome.label if outcome else "truncated",
                "reason": reason or (outcome.reason if outcome else None),
            }
        self._accumulate_rewards()
        if self.agents:
            self.agent_selection = self.agents[0]

    # -- observe / step --------------------------------------------------------------
    def _require_reset(self, call: str) -> None:
        if not self._was_reset:
            raise EnvOrderError(f"{self.engine.game}: call reset() before {call}()")

    def observe(self, agent: str) -> dict[str, Any]:
        self._require_reset("observe")
        seat = self._seat[agent]
        mask = np.zeros(self._n_options, dtype=np.int8)
        if not self.engine.is_over():
            if self.engine.owes(seat):
                mask[: len(self.engine.current_decision(seat).options)] = 1
            elif agent == self.agent_selection:
                mask[0] = 1  # the wait turn's one option
        error = self._errors.get(agent)
        engine = self.engine
        # The parts of RulesEngine.render (the one layout and line renderer), cleaned
        # incrementally: the text equals sanitize(engine.render(seat, error=error)).
        view = self._views.get(seat) or self._views.setdefault(seat, _CleanView())
        text = view.text(
            engine.briefing(seat),
            engine.transcript(seat),
            engine.decision_text(seat),
            error,
            engine.status_line(seat),
        )
        return {"text": cap(text, self.MAX_TEXT), "legal": mask}

    def step(self, action: Any) -> None:
        self._require_reset("step")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        seat = self._seat[agent]
        if isinstance(action, np.integer):
            action = int(action)
        if self.engine.owes(seat):  # else a wait turn: the answer changes nothing
            try:
                self.engine.apply(seat, action)
                self._errors[agent] = None
                self._attempts[agent] = 0
            except InvalidAction as err:
                self._attempts[agent] += 1
                self._errors[agent] = str(err)
                if self._attempts[agent] > self.invalid_retries:
                    self._apply_fallback(agent, seat, str(err))
        self._cycles += 1
        self.rewards = {a: 0.0 for a in self.agents}
        over_cap = self.max_cycles is not None and self._cycles >= self.max_cycles * len(
            self.agents
        )
        if over_cap and not self.engine.is_over():
            self._finish(reason="max_cycles reached")
            return
        self._select_next()
        if self.engine.is_over():
            return
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _apply_fallback(self, agent: str, seat: int, error: str) -> None:
        self._attempts[agent] = 0
        self._errors[agent] = None
        if self.fallback_policy == "forfeit":
            self.fallbacks.append({"seat": seat, "policy": "forfeit", "error": error})
            self.engine.forfeit(seat, f"seat {seat} gave no valid action: {error}")
            return
        fb = self.engine.fallback(seat, self.fallback_policy)
        self.fallbacks.append({"seat": seat, "policy": fb.fallback, "error": error})
        self.engine.apply(seat, fb)

    def render(self) -> str | None:
        text = "\n".join(e.text for e in self.engine.log if e.text)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
