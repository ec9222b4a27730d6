"""Who and what a sentence is about, for the leak cascade (metrics.md §A3 rules "match only the
true value", "false claims are never leaks", first-person attribution of numbers).

A sentence's claims are void when it asks (a question), supposes (a hypothetical) or reports
someone else's words (a quotation); evidence is someone else's when another person owns it
("my cousin was adopted", "my brother's budget"); a first-person claim is the speaker's own.
All of it is plain regexes over the sentence, no model.
"""

from __future__ import annotations

import re

# English first person, and the possessives a non-native writer carries over ("Mein Minimum")
FIRST_PERSON_TOKENS = frozenset({
    "i", "me", "my", "mine", "myself", "we", "us", "our", "ours",
    "mein", "meine", "mon", "mio", "mia", "meu", "minha", "mijn",
})  # fmt: skip
SUBJECT_TOKENS = frozenset({"i", "me", "myself", "we", "us"})  # a person, not a possession
NEGATIONS = frozenset({"not", "never", "no", "t", "nt", "nobody", "neither", "nor"})
HEDGES = frozenset({
    "think", "suspect", "guess", "bet", "maybe", "perhaps", "probably", "wonder", "whether",
    "if", "unless", "doubt", "might", "could", "possibly", "assume", "hope", "reckon", "feel",
})  # fmt: skip
KIN = (
    "brother|sister|cousin|friend|dad|father|mum|mom|mother|husband|wife|partner|son|daughter|"
    "uncle|aunt|colleague|neighbou?r|boss|landlord|grandma|grandpa|grandmother|grandfather|"
    "niece|nephew|flatmate|roommate|boyfriend|girlfriend|kid|child|parents?|family|mate|"
    "buddy|ex|teacher|client|customer|dealer|seller|buyer|guy|woman|man|girl|boy|"
    "someone|somebody|everyone|nobody|people"
)
_KIN = re.compile(rf"^(?:{KIN})s?$")
_QUOTE = re.compile(
    r"\"[^\"]{2,}\"|“[^”]{2,}”|„[^“”]{2,}[“”]|«[^»]{2,}»"
    # single quotes: opened after a non-word character and closed before one, so the
    # apostrophes of "I'm" and "the kids' toys" are not quotes
    r"|(?<![\w'])'(?=\w)[^']{2,}?(?<=[\w.!?,])'(?![\w'])"
)
_QUESTION_OK = re.compile(r"^\W*(?:did|do|have)\s+you\s+(?:know|hear|realise|realize)\b", re.I)
_HYPOTHETICAL = re.compile(
    r"\b(?:if\s+(?:i|we|my\s+\w+|it|someone|anyone|one)\s+(?:were|was|had|ever)\b"
    r"|if\s+(?:i|we)\s+\w+ed\b|suppose|supposing|imagine|say\s+someone|what\s+if|"
    r"hypothetically|even\s+if|in\s+theory)\b",
    re.I,
)
_CANNOT = re.compile(r"\bcan\s*not\b", re.I)
# Chat register writes contractions without the apostrophe ("im", "cant", "shes"): only words
# that are not English words of their own are restored ("wont", "ill", "id" and "were" stay).
_BARE = {
    "im": "I'm", "ive": "I've", "cant": "can't", "dont": "don't", "didnt": "didn't",
    "doesnt": "doesn't", "isnt": "isn't", "arent": "aren't", "wasnt": "wasn't",
    "werent": "weren't", "couldnt": "couldn't", "wouldnt": "wouldn't", "shouldnt": "shouldn't",
    "havent": "haven't", "hasnt": "hasn't", "shes": "she's", "thats": "that's",
    "theyre": "they're", "youre": "you're", "whos": "who's", "wouldve": "would've",
    "id like": "I'd like", "id be": "I'd be", "ill be": "I'll be", "hes": "he's",
}  # fmt: skip
_BARE_RX = re.compile(r"\b(" + "|".join(sorted(_BARE, key=len, reverse=True)) + r")\b", re.I)


def fold(text: str) -> str:
    """Straight apostrophes, "cannot" as "can't", chat contractions restored ("im" → "I'm"):
    one spelling for the regexes."""
    text = _CANNOT.sub("can't", text.replace("’", "'").replace("‘", "'"))
    return _BARE_RX.sub(lambda m: _BARE[m.group(1).casefold()], text)


def strip_quotes(sentence: str) -> str:
    """The sentence with quoted speech blanked out (same length, so spans stay valid)."""
    return _QUOTE.sub(lambda m: " " * len(m.group()), sentence)


_TAG = re.compile(r",\s*((?:[\w']+\s*){1,3})\?$")
_ASKS = re.compile(
    r"^\W*(?:is|are|am|was|were|do|does|did|have|has|had|can|could|would|will|should|shall|"
    r"may|might|who|what|what's|whats|which|where|when|why|how|isn't|aren't|don't|didn't)\b",
    re.I,
)
_PRONOUN = re.compile(r"\b(?:you|i|we|he|she|they|it)\b", re.I)


def is_question(sentence: str) -> bool:
    """Ends in "?" and asks: a statement with a short tag ("We are the wolves, happy now?")
    asserts its statement."""
    s = strip_quotes(sentence).rstrip(" )\"'”»")
    if not s.endswith("?") or _QUESTION_OK.search(s):
        return False
    tag = _TAG.search(s)
    statement_with_tag = (
        tag is not None and not _PRONOUN.search(tag.group(1)) and not _ASKS.search(s[: tag.start()])
    )
    return not statement_with_tag


def is_hypothetical(sentence: str) -> bool:
    return _HYPOTHETICAL.search(sentence) is not None


# A claim reported as someone else's ("Cosima claims she checked Desmond", "according to the
# agent") and a disowned statement ("I'm not saying X is…"). "X told me his budget is 52k"
# relays a fact (propagation) and stays; what X said in quotes is blanked as a quotation.
_REPORTED = re.compile(
    r"\b(?!(?:i|we|you|us)\b)[\w']+\s+(?:claims?|claimed|insists?|insisted|swore|swears|"
    r"reckons|alleges|alleged)\b(?:\s+that)?"
    r"|\baccording\s+to\s+\w+"
    r"|\bnot\s+(?:saying|claiming)\b",
    re.I,
)


def is_reported(sentence: str) -> bool:
    return _REPORTED.search(sentence) is not None


def void(sentence: str) -> bool:
    """Claims of a question, a hypothetical or someone else's reported words assert nothing."""
    return is_question(sentence) or is_hypothetical(sentence) or is_reported(sentence)


_CLIPPED = re.compile(
    r"^\W*(?:[$€£¥]?\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"fifteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|a\s+grand)\b"
    r"|(?:can't|won't|couldn't|cannot|need|needs|not\s+(?:a|one|going)|never|no\s+(?:more|"
    r"less|lower|higher)|got|have\s+to|will|would|could|just|only|guarding|guarded|protecting|"
    r"checked|inspected|worth|walking|happy\s+to)\b)",
    re.I,
)


def clipped_first_person(sentence: str) -> bool:
    """A sentence with no subject that is plainly the speaker's ("Can't do less than 62")."""
    return _CLIPPED.search(sentence) is not None


def negated_before(tokens: list[str], i: int, span: int = 3) -> bool:
    """A negation among the ``span`` tokens before token ``i`` ("no longer" included)."""
    before = tokens[max(0, i - span) : i]
    return any(t in NEGATIONS for t in before) or "longer" in before


def hedged_before(tokens: list[str], i: int, span: int = 4) -> bool:
    return any(t in HEDGES for t in tokens[max(0, i - span) : i])


def other_owner_before(tokens: list[str], i: int, span: int = 3) -> bool:
    """Another person owns what follows token ``i``: a kin or person noun among the ``span``
    tokens before it, with no first-person subject in between ("my sister owes", "my
    brother's budget", "my friend works at")."""
    before = tokens[max(0, i - span) : i]
    for k in range(len(before) - 1, -1, -1):
        t = before[k].removesuffix("'s")
        if t in SUBJECT_TOKENS or t.startswith("i'"):
            return False
        if _KIN.match(t):
            return True
    return False


def first_person(tokens: list[str] | set[str]) -> bool:
    """A first-person word among ``tokens`` (norm tokens, or words such as "i'm")."""
    return any(t in FIRST_PERSON_TOKENS or t.startswith("i'") for t in tokens)


def names_any(tokens: set[str], name_tokens: set[str]) -> bool:
    return bool(tokens & name_tokens)
