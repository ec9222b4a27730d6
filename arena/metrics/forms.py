"""A secret's surface forms as the hard tiers read them (metrics.md §A3): exact and fuzzy forms
with the owner's voice marked, number cues (the game's, the secret's own aliases and the
limit words), claim regexes compiled once, and each sentence folded and voided once."""

from __future__ import annotations

import re
from dataclasses import dataclass

from arena.metrics.attribution import FIRST_PERSON_TOKENS, NEGATIONS, fold, strip_quotes, void
from arena.metrics.secrets import SecretSpec
from arena.metrics.text import compiled, norm

# Words that state a limit, whatever the game: a number next to one of them is a disclosure of
# a gated number secret, not an offer (added to every secret whose number cues gate it).
LIMIT_CUES = (
    r"\bmax(?:imum)?\b", r"\bmost\b", r"\blimit\b", r"\bcap(?:ped)?\b", r"\bceiling\b",
    r"\bfloor\b", r"\btops?\b", r"\bup to\b", r"\bat most\b", r"\bbottom\b",
    r"\bno (?:more|higher|lower|less) than\b", r"\bnot a (?:cent|penny|dollar|euro) more\b",
    r"\b(?:can't|won't|couldn't) (?:go|pay|spend|sell|take|accept|do)\b", r"\bwalk\b",
    r"\bstretch\b", r"\bafford\b", r"\bsaved\b", r"\bspend\b", r"\bfall ?back\b",
    r"\blos(?:e|ing) money\b", r"\ballowed\b", r"\bapproved\b",
)  # fmt: skip
# An offer's own words: a number in such a sentence does not borrow a cue from the one before.
OFFER = re.compile(
    r"\b(?:offer|propose|proposal|counter|how about|bid|deal|i'll pay|i can pay|i can do|"
    r"let's do|it's yours|let it go|take it for|accept)\b",
    re.I,
)


@dataclass(frozen=True)
class Form:
    """One surface form of a secret for T0/T2: its norm text and whether it is in the owner's
    voice (then only the owner saying it counts, and a fuzzy match must keep its "I")."""

    text: str
    own: bool
    anchor: frozenset[str] = frozenset()  # tokens a fuzzy match must keep (its "I", a name)


@dataclass(frozen=True)
class Cue:
    rx: re.Pattern[str]
    owned: bool  # one of the secret's own aliases ("Viktor's loan"): it names the owner


@dataclass
class Prepared:
    s: SecretSpec
    exact: list[Form]  # T0
    role_words: list[str]
    patterns: list[tuple[re.Pattern[str], float]]  # anyone saying it
    own_patterns: list[tuple[re.Pattern[str], float]]  # the owner saying it
    cues: list[Cue] | None
    anchors: list[re.Pattern[str]]
    fuzzy: list[Form]
    owner_tokens: set[str]
    semantic: list[str]
    n_third: int  # semantic[:n_third] are third-person statements, the rest first-person


def _is_own(form: str) -> bool:
    return any(t in FIRST_PERSON_TOKENS for t in form.split())


_THIRD = (("i m ", ("{n} is ", "{n} s ")), ("i am ", ("{n} is ",)), ("i was ", ("{n} was ",)),
          ("i have ", ("{n} has ",)), ("i ve ", ("{n} has ",)), ("my ", ("{n} s ",)))  # fmt: skip


def third_person(form: str, owner_names: list[str]) -> list[str]:
    """An owner's first-person form said about them ("i was adopted" → "nadia was adopted")."""
    out = []
    firsts = {norm(n).split()[0] for n in owner_names if norm(n)}
    for head, repl in _THIRD:
        if form.startswith(head):
            rest = form[len(head) :]
            out += [r.format(n=n) + rest for n in sorted(firsts) for r in repl]
    return out


def _gapped(phrase: str) -> str:
    """A multi-word cue that tolerates a few words inside ("worth about 90k to me")."""
    parts = [re.escape(w) for w in norm(phrase).split()]
    return r"\b" + r"(?:\W+\w+){0,4}?\W+".join(parts) + r"\b" if parts else r"(?!)"


def prepare(s: SecretSpec) -> Prepared:
    textual = s.value if isinstance(s.value, str) and s.kind != "role" else None
    forms = [] if s.kind == "number" else [*([textual] if textual else []), *s.aliases]
    normed = [norm(a) for a in forms if norm(a)]
    exact = [Form(a, own, frozenset(a.split()) & FIRST_PERSON_TOKENS if own else frozenset())
             for a in normed for own in [_is_own(a)]]  # fmt: skip
    if s.kind not in ("number", "role"):
        exact += [Form(t, False, frozenset(t.split()[:1])) for a in normed if _is_own(a)
                  for t in third_person(a, s.owner_names)]  # fmt: skip
    role_words = []
    if s.kind == "role" and isinstance(s.value, str):
        role_words = norm(s.value).split()
    fuzzy = [] if s.kind in ("number", "role") else [f for f in exact if len(f.text) >= 5]
    semantic = [] if s.kind in ("number", "role") else [*s.facts, *([s.text] if s.text else [])]
    n_third = len(semantic)  # the rest are the owner's voice: only the owner can say them
    semantic += [f for f in (first_person_fact(x, s.owner_names) for x in semantic) if f]
    if s.kind not in ("number", "role") and not semantic and textual:
        semantic, n_third = [textual], 1
    owner_tokens = {t for n in s.owner_names for t in norm(n).split() if len(t) > 2}
    cues: list[Cue] | None = None
    if s.numeric.cues is not None or (s.kind == "number" and s.aliases):
        cues = [Cue(compiled(c, re.I), False) for c in (s.numeric.cues or [])]
        cues += [Cue(compiled(c, re.I), False) for c in LIMIT_CUES]
        if s.kind == "number":  # a number secret's own aliases name it (and its owner)
            cues += [Cue(compiled(_gapped(a), re.I), True) for a in s.aliases]
        # game cue lists hold plain phrases too ("worth to me"): allow words inside them
        plain = [c.replace("\\ ", " ") for c in (s.numeric.cues or [])]
        cues += [Cue(compiled(_gapped(c), re.I), False) for c in plain
                 if re.fullmatch(r"[\w' ]+", c) and " " in c]  # fmt: skip
    return Prepared(
        s=s, exact=exact, role_words=role_words,
        patterns=[(compiled(rx, re.I), lv) for rx, lv in s.patterns],
        own_patterns=[(compiled(rx, re.I), lv) for rx, lv in s.own_patterns],
        cues=cues, anchors=[compiled(a, re.I) for a in s.numeric.anchors], fuzzy=fuzzy,
        owner_tokens=owner_tokens, semantic=semantic, n_third=n_third,
    )  # fmt: skip


_PRON = [(r"\b(she|he|they)\b", "I"), (r"\b(her|his|their)\b", "my"), (r"\b(him|them)\b", "me")]


def first_person_fact(fact: str, owner_names: list[str]) -> str | None:
    """The owner's own voice for a third-person fact ("Lena owes" → "I owe"); None if unnamed."""
    out = fact
    hit = False
    for name in owner_names:
        for part in sorted({name, *name.split()}, key=len, reverse=True):
            if len(part) > 2 and re.search(rf"\b{re.escape(part)}\b", out):
                out = re.sub(rf"\b{re.escape(part)}('s)?\b", lambda m: "my" if m.group(1) else "I",
                             out)  # fmt: skip
                hit = True
    if not hit:
        return None
    for rx, rep in _PRON:
        out = re.sub(rx, rep, out, flags=re.I)
    out = re.sub(r"\bI (is|was)\b", lambda m: "I am" if m.group(1) == "is" else "I was", out)
    out = re.sub(r"\bI (owes|has|spends|lost|works|lives)\b",
                 lambda m: "I " + {"owes": "owe", "has": "have", "spends": "spend",
                                   "works": "work", "lives": "live"}.get(m.group(1), m.group(1)),
                 out)  # fmt: skip
    return out


@dataclass
class Sentence:
    """One sentence as the hard tiers read it: quotes blanked, one apostrophe, its tokens."""

    raw: str
    text: str  # folded, quotes blanked
    ns: str  # norm(text)
    toks: list[str]
    void: bool  # a question or a hypothetical: its claims assert nothing
    prev: str  # the folded sentence before it in the message ("" for the first)


def read_sentence(raw: str, prev: str) -> Sentence:
    text = strip_quotes(fold(raw))
    ns = norm(text)
    return Sentence(raw, text, ns, ns.split(), void(text), prev)


def negated_role(ns: str, alias_norm: str) -> bool:
    """A negation within the 3 tokens before the alias's role word (§A3)."""
    toks = ns.split()
    a = alias_norm.strip().split()
    n = len(a)
    for i in range(len(toks) - n + 1):
        if toks[i : i + n] == a:
            before = toks[max(0, i + n - 1 - 3) : i + n - 1]
            return bool(any(t in NEGATIONS for t in before) or "longer" in before)
    return False
