"""The LLM agent (kind ``llm``): any OpenAI-compatible server or the local transformers model.

Per decision it renders an egocentric prompt (:mod:`arena.llm.prompt`), asks the backend for a
JSON answer (a schema with the legal options as enum where the server supports structured
output; on the local backend, choice decisions are ranked by likelihood so even a tiny model
answers legally), and returns the leniently parsed answer. Strict validation, re-asks (with
``observation.error``) and fallbacks are the runner's; the agent itself refuses one kind of
answer the runner cannot see: speech that copies the prompt it was given (a small model's
usual failure, :func:`arena.llm.parse.prompt_copy`) raises ``InvalidAction`` with the reason, so
it is re-asked and then falls back like any invalid answer, and its call record says
``refused``. Transport retries happen inside the
backend. Every call is recorded, whatever its end, with a ``status``: ``ok``, ``error`` (the
backend gave up, or failed otherwise), ``cancelled`` (the call was stopped) or ``timeout``
(stopped by the runner's per-decision timeout, see :meth:`mark_timed_out`); tokens and cost
are those of the reply, 0 when none arrived; a record carries the chat messages sent (the
exact prompt) and, when one arrived, the reply text. The runner collects them with
:meth:`pop_call_records` and writes one god-only ``llm_call`` event each.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from pydantic import BaseModel

from arena.agents.base import Agent, MatchContext
from arena.agents.llm_params import LLMAgentParams
from arena.agents.params import as_written
from arena.llm.backends import get_backend
from arena.llm.backends.base import Backend
from arena.llm.belief_rank import belief_candidates, belief_from_scores
from arena.llm.messages import CallProgress, ChatRequest, ChatResult, LLMError
from arena.llm.parse import interpret, prompt_copy, words
from arena.llm.prompt import (
    SeatTranscript,
    choice_candidates,
    is_ranked_choice,
    is_turn_to_speak,
    output_schema,
    render_messages,
    split_prompt,
    stable_point,
    system_prompt,
    wants_belief,
)
from arena.memory.spec import MemorySpec
from arena.types import Action, Decision, InvalidAction, Observation


class LLMAgent(Agent):
    kind = "llm"

    Params = LLMAgentParams

    @classmethod
    def from_params(cls, name: str, params: BaseModel) -> LLMAgent:
        if not isinstance(params, LLMAgentParams):
            raise TypeError(f"{name}: llm params must be LLMAgentParams, not {type(params)}")
        return cls(name, config=params)

    def __init__(
        self, name: str | None = None, config: LLMAgentParams | None = None, **params: Any
    ) -> None:
        # ``config``: params already typed (a checked config's entry); else the keywords
        self.config = config if config is not None else LLMAgentParams.model_validate(params)
        super().__init__(name, **(params if config is None else as_written(config)))
        self.backend: Backend | None = None
        self._records: list[dict[str, Any]] = []
        self._system_cache: tuple[Any, str] | None = None
        self._seen = SeatTranscript()  # this seat's transcript lines, kept between prompts
        self._attempt = 0
        self._last_kind: tuple[str, str] | None = None
        self._bank_version: int | None = None  # the one bank version this match reads
        self._memory_block: str | None = None
        self._memory_record: dict[str, Any] | None = None  # goes into the next call record
        if isinstance(self.config.memory, MemorySpec):
            from pathlib import Path

            if not Path(self.config.memory.bank).expanduser().exists():
                raise ValueError(f"memory bank {self.config.memory.bank} does not exist")

    def reset(self, context: MatchContext) -> None:
        super().reset(context)
        self._records = []
        self._system_cache = None
        self._seen = SeatTranscript()
        self._last_kind = None
        self._memory_block = None
        self._memory_record = None
        if isinstance(self.config.memory, MemorySpec):
            from arena.memory.inject import pinned_version

            self._bank_version = pinned_version(self.config.memory)

    async def preflight(self) -> str:
        """Check the backend (server reachable, model present): one line on what it is."""
        return await self._backend().preflight()

    def _backend(self) -> Backend:
        if self.backend is None:
            self.backend = get_backend(self.config.backend)
        return self.backend

    # -- prompt ------------------------------------------------------------------------
    def belief_keys(self, obs: Observation) -> list[str]:
        names = self.context.names if self.context else obs.state.get("names") or []
        return [str(s) for s in range(len(names)) if s != obs.seat]

    def _system(self, obs: Observation) -> str:
        key = (obs.game, obs.seat, tuple((f.kind, f.key, repr(f.value)) for f in obs.private))
        if self._system_cache is None or self._system_cache[0] != key:
            ctx = self.context
            rules, names = (ctx.rules, ctx.names) if ctx else (None, None)
            text = system_prompt(
                obs, self.config, rules, names, self._memory(obs), self.config.notes
            )
            self._system_cache = (key, text)
        return self._system_cache[1]

    def _memory(self, obs: Observation) -> str | None:
        """The insight block, chosen once per match at the first prompt (the briefing is the
        relevance query) and kept for every later decision."""
        spec = self.config.memory
        if not isinstance(spec, MemorySpec):
            return None
        if self._memory_block is None:
            from arena.memory.inject import choose, relevance_query

            role = next(
                (str(f.value) for f in obs.private if f.kind == "role" and f.owner == obs.seat),
                None,
            )
            ctx = self.context
            names = ctx.names if ctx else None
            query = relevance_query(
                system_prompt(obs, self.config, ctx.rules if ctx else None, names), names or ()
            )
            version = self._bank_version if self._bank_version is not None else spec.version
            if version is None:
                from arena.memory.inject import pinned_version

                version = self._bank_version = pinned_version(spec)
            selection, self._memory_block = choose(spec, obs.game, role, obs.seat, query, version)
            self._memory_record = selection.record()
        return self._memory_block

    def build_request(self, obs: Observation, decision: Decision) -> ChatRequest:
        keys = self.belief_keys(obs)
        belief = wants_belief(decision, self.config)
        b = self.config.backend
        rank_moves = self.config.ranks_moves() and not belief
        # a local model (or one that ranks its moves) is asked for plain words on a turn to
        # speak, its reply cut at the line's end: asked for JSON, SmolLM2-135M wrote its prompt
        # back (docs/llm.md)
        menu = not belief and self.config.speaks_from_menu(decision)
        plain = menu or ((b.type == "local" or rank_moves) and is_turn_to_speak(decision)
                         and not belief)  # fmt: skip
        by_rank = menu or self.decide_by_rank(decision, belief, bool(obs.error))
        messages, _ = render_messages(obs, decision, self.config, keys, self._system(obs),
                                      plain_speech=plain, seen=self._seen,
                                      ranked=by_rank and not decision.belief_only)  # fmt: skip
        request = ChatRequest(
            messages=messages,
            max_tokens=b.max_tokens,
            temperature=b.temperature,
            top_p=b.top_p,
            seed=b.seed if b.seed is not None else (self.context.seed if self.context else None),
            schema=output_schema(decision, belief, keys),
            stop=["\n"] if plain else [],
            # the seat's conversation: a local backend keeps its KV cache between turns
            session=f"{self.context.match_id}:{self.context.seat}" if self.context else None,
            stable=stable_point(messages),
        )
        if menu:  # the sentences the game offered, said as written
            request.choices = list(decision.menu)
        elif by_rank:
            # a belief report ranks a probability per seat (arena.llm.belief_rank)
            ranked = belief_candidates(keys) if decision.belief_only else None
            request.choices = ranked or choice_candidates(decision)
        return request

    def decide_by_rank(self, decision: Decision, belief: bool, reask: bool) -> bool:
        """Whether this decision is taken by ranking its legal moves by likelihood."""
        b = self.config.backend
        if b.type == "local" and not b.rank_choices:
            return False
        if decision.belief_only:  # a report of probabilities, ranked per seat
            return self.config.ranks_moves() or (b.type == "local" and reask)
        if belief:  # a move with a belief report beside it is written whole
            return False
        if self.config.ranks_moves():  # every decision with moves besides talk
            return is_ranked_choice(decision) or _has_moves(decision)
        if b.type != "local":
            return False
        # a local model ranks choice decisions; on a re-ask of a decision with moves besides
        # talk (Deal or No Deal's negotiate) or of a belief report, its free answer failed once
        # (it wrote its prompt back), so it answers by likelihood
        return is_ranked_choice(decision) or (reask and _has_moves(decision))

    # -- acting ------------------------------------------------------------------------
    async def act(
        self, observation: Observation, decision: Decision
    ) -> Action | str | dict[str, Any]:
        ident = (observation.phase, decision.kind)
        self._attempt = self._attempt + 1 if observation.error and ident == self._last_kind else 0
        self._last_kind = ident
        request = self.build_request(observation, decision)
        started = time.perf_counter()
        progress = CallProgress()
        try:
            result = await self._backend().complete(request, progress)
        except asyncio.CancelledError:
            # the runner's timeout or a stop: record the call before the cancellation goes on
            self._record(
                decision,
                None,
                time.perf_counter() - started,
                "cancelled",
                progress=progress,
                request=request,
            )
            raise
        except TimeoutError as err:  # a local model's own time passed the limit (arena.deadline)
            self._record(decision, None, time.perf_counter() - started, "timeout",
                         error=str(err), progress=progress, request=request)  # fmt: skip
            raise
        except Exception as err:
            self._record(
                decision,
                None,
                time.perf_counter() - started,
                "error",
                error=str(err) if isinstance(err, LLMError) else f"{type(err).__name__}: {err}",
                progress=progress,
                request=request,
            )
            raise
        if decision.belief_only and request.choices and result.scores is not None:
            answer: dict[str, Any] | str = {
                "belief": belief_from_scores(request.choices, result.scores)
            }
        else:
            answer = self.answer_from(result, decision)
        if request.stop and isinstance(answer, str):  # plain speech: "You: ..." is its words
            answer = _unprefixed(answer, observation.name)
        refused = self.copy_refusal(request, answer, decision, observation.names, observation.name)
        self._record(decision, result, result.latency_s, "ok", request=request, refused=refused)
        if refused is not None:
            raise InvalidAction(refused)
        return answer

    def copy_refusal(
        self,
        request: ChatRequest,
        answer: dict[str, Any] | str,
        decision: Decision,
        names: list[str] | None = None,
        name: str = "",
    ) -> str | None:
        """Why the speech in ``answer`` is refused as a copy of the prompt, or None.

        A belief report is no speech: words there are refused by the decision itself, with
        the report's form as the reason (``Decision.parse``), never as "not speech"."""
        if not decision.free_text or decision.belief_only:
            return None
        text = answer.get("text") if isinstance(answer, dict) else answer
        if not isinstance(text, str) or not text.strip():
            return None
        if text in decision.menu:
            # the game's own sentence, offered to this seat: the Seer's "Lars is not a wolf."
            # repeats its night result's words, and is what it should say
            return None
        bare = text.strip().lower()
        if not isinstance(answer, dict) and any(
            bare in (o.id.lower(), (o.label or "").lower()) for o in decision.options
        ):
            return None  # a bare option ("pass") is an answer, not speech
        speakers = ("You", *(names or ()))
        if set(words(text)) <= {"you", *words(name)}:  # the cue echoed: "You", "You: You"
            return "your message was only a speaker's name. Say one sentence of your own"
        why = prompt_copy(text, *split_prompt(request.messages), speakers=speakers, name=name)
        if why is None:
            return None
        return f"your message was not speech: {why}. Say something of your own to the table"

    def answer_from(self, result: ChatResult, decision: Decision) -> dict[str, Any] | str:
        if result.ranked is not None and decision.max_choices > 1:
            k = max(decision.min_choices, 1)
            ids = decision.option_ids
            return {"choices": [ids[j] for j in result.ranked[:k]]}
        return interpret(result.text, decision)

    # -- accounting --------------------------------------------------------------------
    def _record(
        self,
        decision: Decision,
        result: ChatResult | None,
        latency: float,
        status: str,
        error: str | None = None,
        progress: CallProgress | None = None,
        request: ChatRequest | None = None,
        refused: str | None = None,
    ) -> None:
        b = self.config.backend
        done = progress or CallProgress()
        rec: dict[str, Any] = {
            "agent": self.name,
            "decision": decision.kind,
            "attempt": self._attempt,
            "backend": b.type,
            "model": (result.model if result else "")
            or (b.model if b.type == "openai" else "local"),
            "latency_s": round(latency, 6),
            # of the latency, the wait in queues before a model worked on the call (not counted
            # against the decision's time limit)
            "queue_s": round(result.queue_s if result else done.queued_s, 6),
            # a local model's own time on the call (what the time limit counted; 0: not measured)
            "model_s": round(result.model_s, 6) if result else 0.0,
            "tokens_in": result.tokens_in if result else 0,
            "tokens_out": result.tokens_out if result else 0,
            # prompt tokens a local backend reused from the seat's KV cache
            "tokens_cached": result.tokens_cached if result else 0,
            "retries": result.retries if result else done.retries,
            "cost_usd": round(result.cost_usd, 8) if result else 0.0,
            "cache": result.cache if result else "off",
            "ok": status == "ok",
            "status": status,
        }
        if request is not None:  # the exact prompt, for trajectories (``arena export``)
            rec["messages"] = request.messages
        if result is not None:
            rec["reply"] = result.text
        if result is None:
            rec["sent"] = done.sent  # False: stopped before any attempt left (gate, limiter)
        errors = result.errors if result is not None else done.errors
        if errors:
            rec["transport_errors"] = errors[-5:]
        if result is not None and result.ranked is not None:
            rec["ranked"] = True
            if request is not None and request.temperature > 0 and result.scores:
                # a sampled move: its temperature, and how many candidates were likelier
                top = result.scores[result.ranked[0]]
                rec["temperature"] = request.temperature
                rec["likelier"] = sum(1 for x in result.scores if x > top)
        if error is not None:
            rec["error"] = error[:500]
        if refused is not None:  # a reply the agent refused itself (speech copying its prompt)
            rec["refused"] = refused[:500]
        if self._memory_record is not None:  # once per match: the bank version and insight ids
            rec["memory"], self._memory_record = self._memory_record, None
        self._records.append(rec)

    def mark_timed_out(self, error: str = "") -> None:
        """The runner's timeout stopped the last call: its record says ``timeout``."""
        if self._records and self._records[-1]["status"] == "cancelled":
            self._records[-1]["status"] = "timeout"
            self._records[-1].setdefault("error", "cancelled by the runner's decision timeout")

    def pop_call_records(self) -> list[dict[str, Any]]:
        """Per-call accounting since the last pop (the runner turns each into an event)."""
        out, self._records = self._records, []
        return out


def _unprefixed(text: str, name: str) -> str:
    """Words written as a transcript line ("You: ...", "Alice: ...") without the speaker."""
    for prefix in ("You:", f"{name}:"):
        if text.startswith(prefix):
            return text[len(prefix) :].strip()
    return text


def _has_moves(decision: Decision) -> bool:
    """Options besides keeping silent (proposals, accept, ...), not only words or silence."""
    return decision.free_text and any(o.id != decision.silent_option for o in decision.options)
