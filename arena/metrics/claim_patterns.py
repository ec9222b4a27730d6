"""Word lists and phrase patterns of the persona claim extractor (arena.metrics.claims)."""

from __future__ import annotations

import re

OCCUPATIONS = {
    "accountant", "actor", "architect", "artist", "baker", "barista", "carpenter", "cashier",
    "chef", "cook", "dentist", "designer", "developer", "doctor", "driver", "economist",
    "editor", "electrician", "engineer", "farmer", "firefighter", "florist", "gardener",
    "journalist", "judge", "lawyer", "librarian", "manager", "mechanic", "midwife", "musician",
    "nurse", "painter", "paramedic", "pharmacist", "photographer", "physician", "pilot",
    "plumber", "police officer", "postdoc", "professor", "programmer", "researcher",
    "scientist", "salesman", "secretary", "social worker", "software engineer", "student",
    "surgeon", "tailor", "taxi driver", "teacher", "technician", "translator", "vet",
    "veterinarian", "waiter", "waitress", "writer", "nurse practitioner", "tax accountant",
    "retiree", "warehouse worker", "courier", "cleaner", "receptionist", "consultant",
    "civil servant", "notary", "curator", "analyst", "coach", "captain", "founder",
    "planner", "coordinator", "officer", "volunteer", "seamstress", "runner", "lecturer",
    "solicitor", "attorney", "banker", "clerk", "butcher", "fisherman", "builder", "miner",
    "soldier", "priest", "therapist", "psychologist", "optician", "hairdresser", "bartender",
    "lead", "owner", "surveyor", "tutor", "instructor", "dancer", "singer", "chemist",
}  # fmt: skip
LANGUAGES = {
    "english", "german", "french", "spanish", "italian", "portuguese", "arabic", "polish",
    "russian", "latvian", "lithuanian", "irish", "tamil", "hindi", "japanese", "czech",
    "mandarin", "chinese", "cantonese", "turkish", "yoruba", "greek", "dutch", "swedish",
    "norwegian", "danish", "finnish", "estonian", "ukrainian", "romanian", "hungarian",
    "korean", "catalan", "basque", "welsh", "gaelic", "hebrew", "persian", "urdu", "bengali",
    "swahili", "slovak", "serbian", "croatian", "bulgarian", "icelandic", "malay", "thai",
}  # fmt: skip
# capitalised words after "I'm" that are not names ("I'm Catholic.", "I'm German.")
NAME_NOT = LANGUAGES | {
    "catholic", "muslim", "jewish", "hindu", "buddhist", "protestant", "christian", "vegan",
    "vegetarian", "single", "married", "retired", "divorced", "widowed", "engaged", "fine",
    "sorry", "ok", "okay", "here", "back", "home", "sure", "happy", "tired", "new", "not",
    "so", "just", "also", "still", "really", "actually", "well", "good", "glad", "afraid",
    "american", "mexican", "korean", "moroccan", "cuban", "belgian", "canadian", "scottish",
    "british", "dutch", "swiss", "thai", "irish", "welsh", "basque", "greek", "french",
}  # fmt: skip
MEAT = (r"steak|burger|burgers|bacon|chicken|pork|beef|lamb|ham|sausage|sausages|veal|"
        r"salami|meatballs|ribs|brisket|chorizo|mince|venison|duck|turkey")  # fmt: skip
# trailing adverbs that are not part of a value ("Cadiz originally", "Uber now")
TRAILING = re.compile(
    r"(?:\s+(?:originally|actually|now|anymore|any more|at all|these days|really|too|as well|"
    r"either|then|though|to be exact|in fact|honestly|by trade|for a living|for work|full time|"
    r"part time|of course|i guess|nowadays|tonight|today|anyway|already|still|all my life|"
    r"for years|for ages|last year|this year|myself|yes|no))+\s*$",
    re.I,
)
# figures of speech around an "I'm a …": "a total chef when it comes to toast", "at heart"
FIGURATIVE = re.compile(
    r"\b(at heart|when it comes to|basically|a total|a real|a bit of a|practically|kind of a|"
    r"sort of a|like a|in a way|of sorts|all at once|some days|at times|in spirit|honorary|"
    r"wannabe|amateur|armchair)\b",
    re.I,
)
RELATIONAL = re.compile(
    r"\b(?:my|our)\s+(?:(?:late|ex-?|former|first|dear|beloved|lovely|two|three|youngest|eldest|"
    r"oldest|little|baby|older|younger|big|new|current)[\s-]*)*(?P<noun>wife|husband|spouse|"
    r"fiancée|fiancee|fiancé|fiance|boyfriend|girlfriend|partner|kids|children|son|daughter|sons|"
    r"daughters|grandson|granddaughter|grandchildren|grandkids|grandchild|brother|sister|"
    r"brothers|sisters|siblings)\b",
    re.I,
)
# "my patients" implies a caring occupation, "my pupils" a teaching one ...
OCC_CUES = re.compile(
    r"\b(?:my|our)\s+(?P<cue>patients|pupils|students|courtroom|passengers|congregation|"
    r"parishioners)\b",
    re.I,
)
CUE_FITS = {
    "patients": {"doctor", "nurse", "physician", "surgeon", "dentist", "vet", "veterinarian",
                 "paramedic", "therapist", "pharmacist", "midwife", "gp", "ward", "psychologist",
                 "optician", "physiotherapist", "medicine", "medical", "clinician"},
    "pupils": {"teacher", "schoolteacher", "educator", "tutor", "instructor", "coach",
               "headteacher", "professor", "lecturer"},
    "students": {"teacher", "schoolteacher", "professor", "lecturer", "tutor", "instructor",
                 "coach", "researcher", "educator", "postdoc", "postdoctoral"},
    "courtroom": {"judge", "lawyer", "attorney", "barrister", "solicitor", "clerk"},
    "passengers": {"driver", "pilot", "captain", "conductor", "taxi", "bus", "ferry",
                   "steward", "stewardess", "chauffeur"},
    "congregation": {"priest", "pastor", "vicar", "rabbi", "imam", "minister"},
    "parishioners": {"priest", "pastor", "vicar", "minister"},
}  # fmt: skip
