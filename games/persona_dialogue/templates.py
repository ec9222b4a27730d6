"""Question and answer templates over the persona slots, and a small claim extractor.

Answers use the first-person forms of metrics.md §B1, so the metrics' claim extractor (and the
scripted interrogator's, below) read them back. The extractor here only covers what the
scripted agents say plus the common §B1 forms; the metrics issue owns the full one.
"""

from __future__ import annotations

import re

QUESTIONS: dict[str, tuple[str, str]] = {
    # slot: (question, paraphrase used by retest_paraphrase)
    "name": ("What's your name?", "How should I call you?"),
    "age": ("How old are you?", "What is your age?"),
    "occupation": ("What do you do for a living?", "What is your job?"),
    "location": ("Where do you live these days?", "Which city are you based in now?"),
    "origin": ("Where are you originally from?", "Where did you grow up?"),
    "education": ("What did you study?", "What is your educational background?"),
    "marital_status": ("Are you married?", "What is your relationship status?"),
    "partner_name": ("What's your partner's name?", "Who is your partner?"),
    "children": ("Do you have children?", "How many kids do you have?"),
    "siblings": ("Do you have any siblings?", "How many brothers and sisters do you have?"),
    "hobbies": ("What do you do in your free time?", "What are your hobbies?"),
    "employer": ("Who do you work for?", "Which company employs you?"),
    "pets": ("Do you have pets?", "Is there an animal in your household?"),
    "likes": ("What do you love?", "What do you enjoy most?"),
    "dislikes": ("Is there something you can't stand?", "What do you dislike?"),
    "languages": ("Which languages do you speak?", "What languages can you speak?"),
    "diet": ("Do you follow a particular diet?", "How do you eat?"),
    "health": ("How is your health?", "Are you in good health?"),
    "religion": ("Are you religious?", "What is your faith?"),
    "income": ("Roughly what do you earn a year?", "What is your yearly income?"),
    "gender": ("How do you describe your gender?", "What is your gender?"),
}

# Order matters: more specific slots first.
_SLOT_CUES: list[tuple[str, str]] = [
    ("partner_name", r"\b(partner|wife|husband|spouse)\b"),
    ("name", r"\bname\b|\bcall you\b"),
    ("age", r"\bhow old\b|\bage\b|\byears old\b"),
    ("employer", r"\bwork for\b|\bemploy|\bcompany\b"),
    ("occupation", r"\bfor a living\b|\bjob\b|\bwork as\b|\boccupation\b|\bprofession\b"),
    ("origin", r"\boriginally\b|\bgrow up\b|\bgrew up\b|\bborn\b|\bwhere .* from\b"),
    ("location", r"\blive\b|\bbased\b|\bcity\b"),
    ("education", r"\bstud(y|ied)\b|\beducation|\bschool\b|\bdegree\b"),
    ("marital_status", r"\bmarried\b|\bsingle\b|\brelationship\b|\bdivorced\b"),
    ("children", r"\bchildren\b|\bkids?\b"),
    ("siblings", r"\bsiblings?\b|\bbrothers?\b|\bsisters?\b"),
    ("pets", r"\bpets?\b|\banimal\b"),
    ("hobbies", r"\bfree time\b|\bhobb|\bspare time\b"),
    ("dislikes", r"\bcan't stand\b|\bdislike\b|\bhate\b"),
    ("likes", r"\blove\b|\benjoy\b|\blike\b"),
    ("languages", r"\blanguages?\b|\bspeak\b"),
    ("diet", r"\bdiet\b|\beat\b"),
    ("health", r"\bhealth\b"),
    ("religion", r"\brelig|\bfaith\b"),
    ("income", r"\bearn\b|\bincome\b|\bsalary\b"),
    ("gender", r"\bgender\b"),
]


def question_slot(text: str) -> str | None:
    low = text.casefold()
    for slot, pat in _SLOT_CUES:
        if re.search(pat, low):
            return slot
    return None


def _article(v: str) -> str:
    return "an" if v[:1].lower() in "aeiou" else "a"


def answer(slot: str, value: object) -> str:
    """A first-person statement of ``slot = value``."""
    v = str(value)
    if slot == "name":
        return f"My name is {v}."
    if slot == "age":
        return f"I'm {v} years old."
    if slot == "occupation":
        return f"I work as {_article(v)} {v}."
    if slot == "employer":
        return f"I work for {v}."
    if slot == "location":
        return f"I live in {v}."
    if slot == "origin":
        return f"I'm originally from {v}."
    if slot == "education":
        return f"I studied {v}."
    if slot in ("marital_status", "religion", "gender"):
        return f"I'm {v}."
    if slot == "partner_name":
        return f"My partner's name is {v}."
    if slot in ("children", "siblings"):
        noun = "children" if slot == "children" else "siblings"
        return f"I don't have any {noun}." if v in ("0", "0.0") else f"I have {v} {noun}."
    if slot == "pets":
        return f"I have {_article(v)} {v}."
    if slot == "hobbies":
        return f"I enjoy {v}."
    if slot == "likes":
        return f"I love {v}."
    if slot == "dislikes":
        return f"I can't stand {v}."
    if slot == "languages":
        return f"I speak {v}."
    if slot == "income":
        return f"I earn about {v} a year."
    if slot == "diet":
        return f"My diet is {v}."
    if slot == "health":
        return f"My health is {v}."
    return f"My {slot.removeprefix('custom:').replace('_', ' ')} is {v}."


def second_person(slot: str, value: object) -> str:
    """``slot = value`` addressed to the subject ("you are 34 years old")."""
    first = answer(slot, value)
    swaps = [(r"\bI'm\b", "you're"), (r"\bI\b", "you"), (r"\bMy\b", "your"), (r"\bmy\b", "your")]
    for a, b in swaps:
        first = re.sub(a, b, first)
    return first.rstrip(".")


_CLAIMS: list[tuple[str, str]] = [
    ("name", r"\bmy name is ([A-Z][\w'-]*(?: [A-Z][\w'-]*)*)"),
    ("age", r"\bI'?m (\d{1,3}) years old\b|\bI am (\d{1,3}) years old\b"),
    ("occupation", r"\bI work as an? ([\w' -]+?)(?:[.,;!]|$)"),
    ("employer", r"\bI work (?:for|at) ([\w'& -]+?)(?:[.,;!]|$)"),
    ("location", r"\bI live in ([\w' -]+?)(?:[.,;!]|$)"),
    (
        "origin",
        r"\bI'?m originally from ([\w' -]+?)(?:[.,;!]|$)|\bI grew up in ([\w' -]+?)(?:[.,;!]|$)",
    ),
    ("education", r"\bI studied ([\w' -]+?)(?:[.,;!]|$)"),
    ("marital_status", r"\bI'?m (married|single|divorced|widowed|engaged)\b"),
    ("partner_name", r"\bmy partner's name is ([A-Z][\w'-]*)"),
    ("children", r"\bI have (\d+) children\b"),
    ("siblings", r"\bI have (\d+) siblings\b"),
    ("hobbies", r"\bI enjoy ([\w' -]+?)(?:[.,;!]|$)"),
    ("likes", r"\bI love ([\w' -]+?)(?:[.,;!]|$)"),
    ("languages", r"\bI speak ([\w' -]+?)(?:[.,;!]|$)"),
    ("income", r"\bI earn about ([\d,.]+)"),
    ("pets", r"\bI have an? ([\w' -]+?)(?:[.,;!]|$)"),
]


def extract_claims(text: str) -> list[tuple[str, str]]:
    """(slot, value) claims of first-person declaratives in ``text`` (questions skipped)."""
    out = []
    for sent in re.split(r"(?<=[.!?])\s+", text):
        if sent.rstrip().endswith("?"):
            continue
        for slot, pat in _CLAIMS:
            for m in re.finditer(pat, sent, re.I if slot not in ("name", "partner_name") else 0):
                value = next(g for g in m.groups() if g)
                out.append((slot, value.strip()))
        if re.search(r"\bI don't have any children\b", sent, re.I):
            out.append(("children", "0"))
    return out
