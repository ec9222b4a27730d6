"""Untrusted text stays text: how words an agent wrote are quoted into prompts and terminals.

Anything an agent wrote (speech, answers, error messages that echo an answer, reflector notes
drawn from them) may try to be something else: close the block it is quoted in
(``</transcript>``, ``<|im_end|>``), start a line that reads as the engine's or the system's
(``\\nGame over: ...``), or drive the terminal it is printed on (ANSI/OSC escapes, bidi
overrides, NUL). Every consumer renders such text through this module:

* :func:`quote` — the one quoting function for a line of a prompt or a transcript: control,
  bidi and invisible characters shown as visible stand-ins, every line break shown as
  ``" ⏎ "`` (so the text stays on the line its trusted prefix starts), and markup that could
  open or close a block neutralised (the ``<`` of a closing tag, of a comment, of a chat-template
  token or of an opening tag named like a block or a role becomes ``‹``; ``|>`` becomes
  ``|›``). :func:`arena.transcript.line` applies it to every line it renders, so the LLM
  prompt, the env text, the TUI, the memory trajectories and the replay printer all get it.
* :func:`quote_json` — the same text as a JSON string literal with ``<``/``>`` escaped, for
  blocks that quote each item as a literal (memory insights, the reflector's record).
* :func:`printable` — for a terminal: the visible stand-ins only, line breaks kept or
  marked (``newlines="mark"``), no markup changes.

Ordinary text (printable, no line break, no block markup) comes back unchanged, so a benign
transcript renders exactly as it always did. Every function is idempotent:
``quote(quote(s)) == quote(s)``. The stand-ins: C0 controls and DEL as the Unicode control
pictures (ESC → ``␛``, NUL → ``␀``, U+2400 + code), every other control, format (bidi
embeddings, overrides and isolates, zero-width spaces and joiners, tag characters), separator
and lone-surrogate code point as ``⟨U+XXXX⟩``. A zero-width joiner between two emoji is kept
(it builds one emoji: 👩‍💻); elsewhere it is the spoofing kind and shown.
"""

from __future__ import annotations

import json
import re
from typing import Literal

#: What a line break inside quoted text is shown as.
NEWLINE_MARK = " ⏎ "

# Line breaks: what str.splitlines breaks on, plus VT/FF (runs collapse to one mark, with the
# blanks around them, so "a\n\n  b" reads "a ⏎ b").
_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_BREAK_RUN = re.compile(f"[ \\t]*[{_BREAKS}]+[ \\t]*")

# Emoji-ish code points a zero-width joiner may legitimately sit between (with U+FE0F, the
# emoji presentation selector, and skin-tone modifiers, which are in the first range).
_EMOJI = "\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff"
_EMOJI_CHAR = re.compile(f"[{_EMOJI}]")

# Invisible or terminal-driving code points (tab is kept: it is whitespace everywhere).
# C0 (minus tab), DEL, C1, and the Unicode format characters (category Cf, as of Unicode 15):
# soft hyphen, Arabic prepended marks, ALM, zero-width space/joiners, LRM/RLM, bidi
# embeddings/overrides/isolates, word joiner and invisible operators, BOM, interlinear
# annotation, tag characters; plus lone surrogates (they cannot be encoded as UTF-8).
_UNSAFE_CLASS = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f"
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f\U000e0100-\U000e01ef"
    "\ud800-\udfff"
)
# With line breaks shown as marks (quote) / with "\n" kept (printable): every other break is
# in the C0/C1 ranges above, except the Unicode line and paragraph separators.
_UNSAFE = re.compile(f"[{_UNSAFE_CLASS}\n\u2028\u2029]")
_UNSAFE_KEEP_NL = re.compile(f"[{_UNSAFE_CLASS}\u2028\u2029]")

# Markup that can open or close a block in a prompt: any closing tag ("</transcript>", also
# with fullwidth/small less-than signs), comments and declarations ("<!--", "<?xml"), chat-
# template tokens ("<|im_start|>", "|>"), and an opening tag of a name prompts use for blocks
# or roles ("<system>", "<transcript>", "<insights>", "<s>", "<<SYS>>"). Other "<" stay as
# written: a rule's own placeholder ("to:<name>") and "3 < 4" are ordinary text.
_BLOCK_NAMES = (
    "system|user|assistant|developer|tool|function|transcript|insights|record|instructions?"
    "|context|data|prompt|s|inst|sys|im_start|im_end|endoftext|start_of_turn|end_of_turn"
)
_TAG_OPEN = re.compile(
    rf"[<\uff1c\ufe64](?=\s*/|[!?|]|\s*(?:{_BLOCK_NAMES})(?:[\s>\uff1e\ufe65\]]|$))",
    re.IGNORECASE,
)
_PIPE_CLOSE = re.compile(r"\|[>\uff1e\ufe65]")


def _stand_in(ch: str) -> str:
    code = ord(ch)
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ ... ␟ (ESC → ␛)
    if code == 0x7F:
        return "\u2421"  # ␡
    return f"⟨U+{code:04X}⟩"


def _is_emoji(ch: str) -> bool:
    return bool(_EMOJI_CHAR.match(ch))


def _visible(text: str, pattern: re.Pattern[str]) -> str:
    """Stand-ins for the code points ``pattern`` matches, except emoji-building joiners."""

    def swap(m: re.Match[str]) -> str:
        ch = m.group()
        if ch == "\u200d":
            i = m.start()
            before = text[i - 1] if i else ""
            after = text[i + 1] if i + 1 < len(text) else ""
            if (before == "\ufe0f" or _is_emoji(before)) and _is_emoji(after):
                return ch
        return _stand_in(ch)

    return pattern.sub(swap, text)


def _safe_already(text: str) -> bool:
    """The fast path: printable ASCII with nothing tag-like (most lines of most games)."""
    return text.isascii() and text.isprintable() and "<" not in text and "|>" not in text


def printable(text: str, newlines: Literal["keep", "mark"] = "keep") -> str:
    """``text`` safe for a terminal: controls and invisible characters as visible stand-ins.

    ``newlines="keep"`` keeps ``\\n`` (other breaks such as ``\\r`` become stand-ins, so
    nothing overwrites a line); ``"mark"`` shows every break as :data:`NEWLINE_MARK`."""
    if text.isascii() and text.isprintable():
        return text
    if newlines == "mark":
        return _visible(_BREAK_RUN.sub(NEWLINE_MARK, text), _UNSAFE)
    return _visible(text.replace("\r\n", "\n"), _UNSAFE_KEEP_NL)


def quote(text: str) -> str:
    """``text`` as one safe line of a prompt or transcript (see the module docstring)."""
    if _safe_already(text):
        return text
    markup = "<" in text or "\uff1c" in text or "\ufe64" in text or "|" in text
    if not markup and _UNSAFE.search(text) is None:
        return text  # non-ASCII but ordinary (one regex pass, no copy)
    text = _BREAK_RUN.sub(NEWLINE_MARK, text)
    text = _visible(text, _UNSAFE)
    if "<" in text or "\uff1c" in text or "\ufe64" in text:
        text = _TAG_OPEN.sub("‹", text)
    if "|" in text:
        text = _PIPE_CLOSE.sub("|›", text)
    return text


def quote_json(text: str) -> str:
    """``text`` as a JSON string literal that cannot close a block or break its line: the
    visible stand-ins of :func:`quote` (line breaks stay JSON escapes), ``<`` and ``>``
    written as ``\\u003c``/``\\u003e``."""
    literal = json.dumps(printable(text), ensure_ascii=False)
    return literal.replace("<", "\\u003c").replace(">", "\\u003e")


def json_for_terminal(document: str) -> str:
    """A JSON document (``json.dumps(..., ensure_ascii=False)``) with every unsafe code point
    written as a ``\\uXXXX`` escape: the same data when parsed, nothing a terminal acts on
    when printed (JSON escapes C0 controls itself, not DEL, C1 or bidi characters)."""
    if document.isascii():
        return document

    def escape(m: re.Match[str]) -> str:
        code = ord(m.group())
        if code > 0xFFFF:  # a surrogate pair, as JSON writes astral code points
            code -= 0x10000
            return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
        return f"\\u{code:04x}"

    return _UNSAFE_KEEP_NL.sub(escape, document)


def is_clean(text: str) -> bool:
    """True when ``text`` holds no control, bidi-override or invisible format character and
    no line break (what :func:`quote` guarantees of its result)."""
    return _visible(text, _UNSAFE) == text
