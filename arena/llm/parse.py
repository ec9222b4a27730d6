"""Lenient reply parsing: find the JSON object in a model's reply and map it onto the answer
forms ``Decision.parse`` accepts. Strict validation stays with the runner (``Decision.parse``);
a reply that still does not fit is re-asked with the validation error."""

from __future__ import annotations

import json
import re
from typing import Any

from arena.types import Decision

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)
_CHOICE_ALIASES = ("choice", "choices", "vote", "target", "answer", "option", "id", "action")
_TEXT_ALIASES = ("text", "message", "speech", "say", "content")


def extract_json(text: str) -> dict[str, Any] | None:
    """The first JSON object in ``text`` (code fences and surrounding prose tolerated)."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for cand in candidates:
        start = cand.find("{")
        while start >= 0:
            try:
                obj, _ = json.JSONDecoder().raw_decode(cand[start:])
            except json.JSONDecodeError:
                start = cand.find("{", start + 1)
                continue
            if isinstance(obj, dict):
                return obj
            start = cand.find("{", start + 1)
    return None


def interpret(text: str, decision: Decision) -> dict[str, Any] | str:
    """Map a reply onto ``{"choice"|"choices"|"text"|"belief"}`` or a bare string."""
    data = extract_json(text)
    if data is None:
        bare = text.strip().strip('"').strip()
        if decision.free_text and len(bare) > decision.max_chars:
            bare = bare[: decision.max_chars]
        return bare
    out: dict[str, Any] = {}
    for key in _CHOICE_ALIASES:
        value = data.get(key)
        if value is None or value == "" or value == []:
            continue
        if isinstance(value, list):
            vals = [str(v) for v in value]
            if decision.max_choices > 1:
                out["choices"] = vals
            elif vals:
                out["choice"] = vals[0]
        elif isinstance(value, (str, int, float)):
            out["choice"] = str(value) if not isinstance(value, float) else str(int(value))
        break
    for key in _TEXT_ALIASES:
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            out["text"] = value.strip()[: decision.max_chars] if decision.free_text else value
            break
    belief = data.get("belief", data.get("beliefs"))
    if isinstance(belief, dict) and belief:
        out["belief"] = belief
    # speech wins over a silent option given alongside it
    if "text" in out and decision.free_text and out.get("choice") == decision.silent_option:
        out.pop("choice", None)
    if not decision.free_text:
        out.pop("text", None)
    return out if out else text.strip()


# -- speech that copies the prompt ----------------------------------------------------------
# A small model asked to speak often writes its own prompt back ("You are Greta (seat 2)
# playing Werewolf with 8 players: 0=...", "<transcript> [2 earlier lines elided] ..."). That
# is no speech: the agent refuses it like any other invalid answer, so the runner re-asks
# with the reason and then applies its fallback. Real speech quotes a name, a role or a phrase
# of what was said, even a whole line of another player ("I agree: ..."); it does not read out
# ten words of its instructions, the narrator's lines, or run on from one line into the next.
_WORD = re.compile(r"[^\W_]+")
#: This many words in a row from the seat's instructions (briefing, decision request) or from
#: a narrated line of the transcript make a copy.
COPY_RUN_WORDS = 10
#: From either, a shorter run is a copy when it is most of the message: "Your role: villager
#: (team village)." and "It is Nikos's turn to speak." are read back, not said.
COPY_RUN_SHORT = 5
COPY_SHARE = 0.7
#: A run this long that crosses from one transcript line into the next is a copy of the
#: transcript ("It is Quinn's turn to speak. Quinn: I am ...").
COPY_RUN_ACROSS_LINES = 6
# The prompt's scaffolding, which no speech contains: its block tags (also as quoted, with
# "‹") and, as words, its fixed lines.
_TAG = re.compile(r"[<‹]/?transcript>", re.I)
_SCAFFOLD = (
    ("earlier", "lines", "elided"),
    ("legal", "ids"),
    ("answer", "with", "one", "json", "object"),
)


def words(text: str) -> list[str]:
    """Lower-case words (letters and digits) of ``text``, punctuation and markup dropped."""
    return [w.lower() for w in _WORD.findall(text)]


def _runs(a: list[str], b: list[str], line_of: list[int]) -> tuple[int, int, int, int]:
    """The longest run of words ``a`` and ``b`` share (length, start in ``a``) and the longest
    one that spans two lines of ``b`` (``line_of[j]`` is the line of ``b[j]``).

    The common-substring table kept sparse: only the cells where the words are equal (a
    word's positions in ``b``, ascending, so ties break as in the full table). A reply
    against a long transcript shares few words with it, so this is far below |a| x |b|."""
    where: dict[str, list[int]] = {}
    for j, other in enumerate(b):
        where.setdefault(other, []).append(j)
    best = at = across = across_at = 0
    prev: dict[int, int] = {}
    for i, word in enumerate(a):
        cur: dict[int, int] = {}
        for j in where.get(word, ()):
            n = cur[j] = prev.get(j - 1, 0) + 1
            if n > best:
                best, at = n, i - n + 1
            if n > across and line_of[j - n + 1] != line_of[j]:
                across, across_at = n, i - n + 1
        prev = cur
    return best, at, across, across_at


def longest_common_run(a: list[str], b: list[str]) -> tuple[int, int]:
    """(length, start in ``a``) of the longest run of words that ``a`` and ``b`` share."""
    best, at, _, _ = _runs(a, b, [0] * len(b))
    return best, at


def _has_run(a: list[str], run: tuple[str, ...]) -> bool:
    k = len(run)
    return any(tuple(a[i : i + k]) == run for i in range(len(a) - k + 1))


def _speaker(line: str, speakers: tuple[str, ...]) -> bool:
    """Whether a transcript line is a player's words ("Bo: ...", "[wolves] You: ...",
    "Bo → you (private): ...") rather than the narrator's."""
    head = line.split(": ", 1)[0] if ": " in line else ""
    head = re.sub(r"^\[[^\]]*\] ", "", head).split(" → ", 1)[0]
    return head in speakers


def prompt_copy(
    text: str,
    instructions: str,
    transcript: str = "",
    speakers: tuple[str, ...] = (),
    name: str = "",
) -> str | None:
    """Why ``text`` (an utterance) is a copy of the prompt it answers, or None when it is not.

    ``instructions`` is what the seat was told (system prompt, decision request);
    ``transcript`` the lines it was shown, one per line; ``speakers`` the names its lines of
    speech start with ("You" and the players' names; empty: every line counts as speech);
    ``name`` the seat's own: "You are <name>" is its briefing read back, said to nobody.
    """
    said = words(text)
    if not said:
        return None
    if _TAG.search(text):
        return "it repeats the prompt's transcript tags instead of speaking"
    told = words(instructions)
    for marker in _SCAFFOLD:  # the layout of every prompt, whether this one shows it or not
        if _has_run(said, marker):
            return f"it repeats the prompt's layout ({' '.join(marker)!r}) instead of speaking"

    def quote(n: int, at: int) -> str:
        return " ".join(said[at : at + min(n, 8)]) + ("..." if n > 8 else "")

    run, at = longest_common_run(said, told)
    if run >= COPY_RUN_WORDS or (run >= COPY_RUN_SHORT and run / len(said) >= COPY_SHARE):
        return (
            f"it copies {run} words of your instructions ({quote(run, at)!r}) instead of speaking"
        )
    own = ("you", "are", *words(name))
    if name and _has_run(said, own) and _has_run(told, own):
        return f"it reads your briefing back ({' '.join(own)!r}) instead of speaking"
    seen: list[str] = []
    line_of: list[int] = []
    narrated: list[str] = []
    for k, line in enumerate(transcript.splitlines()):
        ws = words(line)
        seen += ws
        line_of += [k] * len(ws)
        if speakers and not _speaker(line, speakers):
            narrated += [*ws, "\n"]  # a word no utterance has: runs stop at the line's end
    _, _, across, across_at = _runs(said, seen, line_of)
    if across >= COPY_RUN_ACROSS_LINES:
        return (
            f"it copies {across} words running across lines of the transcript "
            f"({quote(across, across_at)!r}) instead of speaking"
        )
    run, at = longest_common_run(said, narrated)
    if run >= COPY_RUN_WORDS or (run >= COPY_RUN_SHORT and run / len(said) >= COPY_SHARE):
        return f"it copies {run} words of the narrator's lines ({quote(run, at)!r}) instead of speaking"
    return None
