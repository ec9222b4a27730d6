"""Persona-contradiction adjudicators: the LLM judge (T5) and the offline NLI tier (T4).

Both answer one question per utterance: does it contradict the speaker's persona sheet or the
speaker's own earlier lines? A failed judgement is ``None`` (missing, counted), never "no".
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

from arena.metrics.adjudicators import JudgeCore, run_sync
from arena.metrics.settings import PERSONA_RUBRIC_VERSION, JudgeSettings
from arena.metrics.text import sentences
from arena.untrusted import quote_json

VERDICTS = ("contradiction", "consistent")
RUBRIC = """You check a role-play character for consistency with its persona sheet.
Character: {name}
Persona sheet (the truth about the character):
{sheet}
The character's own earlier lines in this conversation, oldest first (JSON strings):
{earlier}
The character's new line (a JSON string):
{utterance}
Does the new line contradict the persona sheet or the character's own earlier lines? Only what
the character states about itself, now, counts. Not contradictions: questions, hypotheticals and
wishes, jokes and figures of speech, quotes of other people, facts about other people, past or
future statements, a slip corrected within the same line or a correction of an earlier line,
and facts the sheet does not mention unless they contradict an earlier line. Implied facts
count ("my husband" when the sheet says single; "my patients" for a baker).
Answer only JSON: {{"choice": "contradiction" | "consistent"}}"""
SCHEMA = {
    "type": "object",
    "properties": {"choice": {"type": "string", "enum": list(VERDICTS)}},
    "required": ["choice"],
}


@dataclass(frozen=True)
class PersonaItem:
    """One utterance to judge: the speaker's sheet, its own earlier lines, the utterance."""

    name: str
    sheet: str
    utterance: str
    earlier: list[str] = field(default_factory=list)


def parse_verdict(text: str) -> bool | None:
    """True for a contradiction, False for consistent, None when the answer names neither."""
    from arena.llm.parse import extract_json

    data = extract_json(text or "")
    if isinstance(data, dict):
        for k in ("choice", "verdict", "label", "answer"):
            v = str(data.get(k, "")).strip().lower()
            if v in VERDICTS:
                return v == VERDICTS[0]
    return None


class PersonaJudge:
    """T5 for persona: one cached call per utterance through any arena.llm backend. The prompt
    quotes every agent line as a JSON string, so a line cannot pass for the rubric."""

    name = "T5"

    def __init__(self, settings: JudgeSettings, backend: Any = None, max_earlier: int = 12) -> None:
        self.ranks = settings.decide == "rank" or (
            settings.decide == "auto" and settings.backend.get("type") == "local"
        )
        # ranked and written verdicts are different answers: the cache keeps them apart
        version = PERSONA_RUBRIC_VERSION + ("+ranked" if self.ranks else "")
        self.core = JudgeCore(settings, version, backend)
        self.model = self.core.model
        self.max_earlier = max_earlier

    def request(self, item: PersonaItem) -> Any:
        from arena.llm.messages import ChatRequest

        earlier = item.earlier[-self.max_earlier :]
        prompt = RUBRIC.format(
            name=item.name,
            sheet=item.sheet,
            earlier="\n".join(quote_json(t) for t in earlier) or "(none)",
            utterance=quote_json(item.utterance),
        )
        return ChatRequest(
            messages=[{"role": "user", "content": prompt}], max_tokens=20, temperature=0.0,
            schema=SCHEMA,
            choices=[json.dumps({"choice": v}) for v in VERDICTS] if self.ranks else None,
        )  # fmt: skip

    def _key(self, item: PersonaItem) -> list[Any]:
        return [item.sheet, item.earlier[-self.max_earlier :], item.utterance]

    async def ajudge_all(self, items: list[PersonaItem]) -> list[bool | None]:
        """In the caller's event loop, all items at once (batched by the backend)."""
        jobs = [(self._key(it), self.request(it)) for it in items]
        return await self.core.ask_many(jobs, parse_verdict)

    def judge_all(self, items: list[PersonaItem]) -> list[bool | None]:
        return run_sync(self.ajudge_all(items))

    def stats(self) -> dict[str, Any]:
        return self.core.stats()


class NLIUnavailable(RuntimeError):
    """No usable NLI model (no path, missing directory or packages, no contradiction label)."""


class PersonaNLI:
    """T4 for persona: an NLI cross-encoder from a local directory, never downloaded. Premise =
    the sheet and the earlier lines; hypothesis = each sentence of the utterance; a
    contradiction when max P(contradiction) ≥ ``threshold``."""

    name = "T4"

    def __init__(self, path: str | None, threshold: float = 0.5) -> None:
        if not path:
            raise NLIUnavailable("no NLI model path given (nli_path); the NLI tier is off")
        if not os.path.isdir(os.path.expanduser(path)):
            raise NLIUnavailable(f"NLI model directory {path} not found (models are never "
                                 "downloaded: give a local directory)")  # fmt: skip
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            import torch
            from transformers import AutoModelForSequenceClassification, AutoTokenizer
        except ImportError as err:
            raise NLIUnavailable(f"the NLI tier needs torch and transformers: {err}") from err
        path = os.path.expanduser(path)
        try:
            self.tok = AutoTokenizer.from_pretrained(path, local_files_only=True)
            self.model = AutoModelForSequenceClassification.from_pretrained(
                path, local_files_only=True
            )
        except Exception as err:
            raise NLIUnavailable(f"cannot load an NLI model from {path}: {err}") from err
        labels = {str(v).lower(): int(k) for k, v in self.model.config.id2label.items()}
        contra = [i for name, i in labels.items() if name.startswith("contradict")]
        if not contra:
            raise NLIUnavailable(f"NLI model at {path} has no 'contradiction' label: {labels}")
        self.contra = contra[0]
        self.torch = torch
        self.threshold = threshold
        self.model.eval()
        self.failed = 0

    def p_contradiction(self, premise: str, hypothesis: str) -> float:
        with self.torch.no_grad():
            enc = self.tok(premise, hypothesis, return_tensors="pt", truncation=True)
            probs = self.model(**enc).logits.softmax(-1)[0]
        return float(probs[self.contra])

    def judge(self, item: PersonaItem) -> bool | None:
        premise = f"{item.name}. {item.sheet}. " + " ".join(item.earlier[-6:])
        try:
            best = max(self.p_contradiction(premise, h) for h in sentences(item.utterance) or [""])
        except Exception:
            self.failed += 1
            return None
        return best >= self.threshold

    def judge_all(self, items: list[PersonaItem]) -> list[bool | None]:
        return [self.judge(it) for it in items]


def make_persona_adjudicator(settings: Any) -> tuple[Any, str | None]:
    """(the persona adjudicator, None) or (None, why it is unavailable)."""
    if settings.persona_adjudication == "off":
        return None, "off"
    if settings.adjudicator == "nli":
        try:
            return PersonaNLI(settings.nli_path, settings.thresholds.nli_contradiction), None
        except NLIUnavailable as err:
            return None, str(err)
    if settings.judge is None:
        return None, "adjudicator 'judge' chosen but no judge backend configured (judge:)"
    return PersonaJudge(settings.judge), None
