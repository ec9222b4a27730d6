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
    "lead", "owner", "surveyor", "tutor", "instructor", "dancer", "singer", "chemist", "gp",
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


# -- slot patterns of the extractor (arena.metrics.claims) ----------------------------------
NUMW = (r"(?:\d{1,3}|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ](?:one|two|"
         r"three|four|five|six|seven|eight|nine))?|one|two|three|four|five|six|seven|eight|nine|"
         r"ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|"
         r"a hundred)")  # fmt: skip
ADV = (r"(?:(?:actually|really|honestly|currently|just|only|still|already|now|recently|"
        r"originally|genuinely|officially|happily|proudly|newly|technically|basically|"
        r"literally|also|even|almost|nearly|exactly|turning|just about) )*")  # fmt: skip
STOP = r"(?=\s*(?:[.,;!?:()—–]|\s-\s|$|\band\b|\bbut\b|\bbecause\b|\bsince\b|\bso\b|\bwith\b))"
V = r"(?P<v>[\w'’ -]+?)" + STOP
VM = r"(?P<v>[\w'’ ,-]+?)(?=\s*(?:[.;!?:()—–]|$|\bbut\b|\bbecause\b|\bsince\b|\bso\b|\bwith\b))"
PLACE = (
    r"(?P<v>[A-ZÀ-Þ][\w'’.-]*(?:(?: (?:de|del|la|le|am|an|upon|on|sur|di|da))? [A-ZÀ-Þ][\w'’.-]*)*)"
)
NEG = r"(?P<neg>not |n't |no longer |never )?"
AGE_END = (r"(?=\s*(?:[,.;!:—–)]|[^\w\s'’%$€£¥/.:,-]|\blol\b|\bhaha\b|\btbh\b|\blmao\b|$|\band\b|\bbut\b|\bso\b|\bnow\b|\bthis\b|\bnext\b|\bsince\b|"
            r"\bif\b|\bwhich\b|\balready\b|\btoday\b|\byears?\b|\byrs?\b|\bbtw\b))")  # fmt: skip
I_AM = r"\bI(?:'m| am) "
KIN = r"(?:kids|children|sons|daughters|child|son|daughter|boys|girls)"
SIB = r"(?:siblings|brothers|sisters|sibling|brother|sister)"

PATTERNS: list[tuple[str, str]] = [
    ("name", r"\b(?i:my name(?:'s| is)|the name's|name's) (?P<v>[A-ZÀ-Þ][\w'-]*(?: [A-ZÀ-Þ][\w'-]*)*)"),
    ("name", r"(?:^|[.!?]\s+|\b(?i:please|you can|just) )(?i:call me) (?P<v>[A-ZÀ-Þ][\w'-]*)"),
    ("name", r"^(?:(?i:hi|hello|hey)[,!]?\s+)?(?i:I'm|I am) (?P<v>[A-ZÀ-Þ][\w'-]+)(?=,\s*(?i:your|the|I|and|nice|from the)\b| here\b|,? by the way\b|[.!]?$)"),
    ("name", r"^(?:(?i:hi|hello|hey)[,!]?\s+)?(?P<v>[A-ZÀ-Þ][\w'-]+) here\b"),
    ("age", rf"{I_AM}{NEG}{ADV}(?P<v>{NUMW}) years? old\b"),
    ("age", rf"{I_AM}{ADV}an? (?P<v>{NUMW})[- ]year[- ]old\b"),
    ("age", rf"{I_AM}{ADV}(?P<v>{NUMW})(?![.,]\d){AGE_END}"),
    ("age", rf"\bI (?:{ADV})turned (?P<v>{NUMW})\b(?!(?:[- ]\w+)? last year)"),
    ("age", r"\bmy age (?:is|:) ?(?P<v>\d{1,3})\b"),
    ("age", rf"{I_AM}{ADV}in my (?P<v>(?:early |mid-?|late )?(?:teens|twenties|thirties|forties|fifties|sixties|seventies|eighties|nineties))\b"),
    ("age", r"\bI(?:'ve| have) been (?:around|alive|on this earth) for (?P<v>half a century|(?:\w+) decades)\b"),
    ("occupation", rf"\bI work as (?:an? |the )?{V}"),
    ("occupation", rf"{I_AM}{NEG}{ADV}(?:an? |the )(?P<v>[\w' -]+?){STOP}"),
    ("employer", rf"\bI (?:work|coach|teach|drive|volunteer|nurse) (?:at|for|with) {V}"),
    ("employer", r"\bI(?:'m| am) (?:an? |the )[\w' -]+? (?:at|with) (?P<v>[A-ZÀ-Þ][\w'’.&-]*(?: [\w'’.&-]+)*?)" + STOP),
    ("location", rf"\b(?:I|we) {NEG}(?:live|am living|'m living|are living|'re living|reside) in {V}"),
    ("location", rf"\b(?:I|we)(?:'m| am|'re| are) {NEG}{ADV}(?:living|based|settled) in {V}"),
    ("location", rf"\b(?:I|we)(?:'ve| have) (?:lived|been living) in {V}"),
    ("location", rf"\b(?:I|we)(?:'ve| have) settled in {V}"),
    ("location", rf"\b(?:I|we) (?i:moved) to {PLACE}"),
    ("location", rf"\bmy home is (?:in )?{V}"),
    ("location", rf"\b(?i:here in) {PLACE}"),
    ("location", rf"\bI (?i:call) {PLACE} (?i:home)\b"),
    ("location", rf"^{PLACE} (?:has been|is) (?:my )?home\b"),
    ("location", rf"\b(?i:my (?:flat|apartment|house|place|home) in) {PLACE}"),
    ("origin", rf"{I_AM}{NEG}{ADV}(?:originally )?from {V}"),
    ("origin", rf"\bI (?:grew up|was born|was raised|was born and raised|was born and bred) in {V}"),
    ("origin", rf"\bI come from {V}"),
    ("origin", rf"^{PLACE} is where I (?:grew up|was born|come from)\b"),
    ("origin", rf"\bmy home ?town is {V}"),
    ("marital_status", rf"{I_AM}{NEG}{ADV}(?P<v>married|single|divorced|widowed|engaged|a widow|a widower)\b(?! to (?:my|the|his|her) (?:job|work|research|career|craft|art|music|team))"),
    ("partner_name", r"\b(?i:my (?:wife|husband|partner|spouse|fiancée?)(?:'s name)? is) (?P<v>[A-Z][\w'-]*)"),
    ("age", rf"\bI have (?P<v>{NUMW}) years\b(?! (?:of|in|at|experience|ago|now in|working))(?! old)"),
    ("children", rf"\b(?:I|we)(?: have| am having| are having|'ve got| have got| got) {ADV}(?P<v>{NUMW}|a couple of|half a dozen|a dozen|no|an?|a little|a baby|a grown-up) {KIN}\b"),
    ("children", rf"\bmy (?P<v>{NUMW}) {KIN}\b"),
    ("siblings", rf"\bI(?: have| am having|'ve got| have got| got) {ADV}(?P<v>{NUMW}|a couple of|no|an?|an older|a younger|a little|a big|an elder) {SIB}\b"),
    ("siblings", rf"\bthe (?:youngest|oldest|eldest|middle one|middle child) of (?P<v>{NUMW})\b"),
    ("pets", r"\bI have an? (?P<v>dog|cat|parrot|rabbit|hamster|horse|tortoise|turtle|fish|goldfish|budgie|canary|puppy|kitten|greyhound|terrier)\b"),
    ("hobbies", rf"\bI {NEG}{ADV}enjoy {VM}"),
    ("likes", rf"\bI {NEG}{ADV}(?:love|like|adore) {VM}"),
    ("languages", rf"\bI {NEG}{ADV}speak {VM}"),
    ("education", rf"\bI studied {V}"),
    ("employer", rf"\bI(?:'ve| have) (?:worked|been working) (?:at|for) {V}"),
    ("age", rf"^(?:At|at) (?P<v>{NUMW}),? (?:I|I've|I'm|I have)\b"),
    ("age", rf"{I_AM}{ADV}(?P<v>pushing {NUMW}|barely past {NUMW}|just past {NUMW}|past {NUMW}|nearly {NUMW}|almost {NUMW}|knocking on {NUMW})\b"),
    ("age", rf"\bI turned (?P<v>{NUMW} last year)\b"),
    ("occupation", r"^(?:As|as) (?:an? )(?P<v>[\w' -]+?),? (?:I|I'm|I've|I'd|I'll|we|my)\b"),
    ("occupation", r"\bI drive (?:an? |the )(?P<v>lorry|truck|bus|taxi|cab|tram|train|van|ambulance)\b"),
    ("religion", rf"{I_AM}{NEG}{ADV}(?:a |an )?(?P<v>Catholic|Jewish|Muslim|Hindu|Buddhist|Protestant|Christian|Orthodox|Anglican|Sikh|atheist|agnostic|Methodist|Baptist|Lutheran)\b"),
    ("education", r"\bmy (?:degree|diploma|doctorate|phd|training) (?:is|was) in {V}"),
    ("origin", rf"\bI (?:was born|grew up) on {V}"),
    ("children", rf"\b(?P<v>both|all {NUMW}) of my {KIN}\b"),
    ("children", rf"\bmy {KIN}, (?:all|both) (?P<v>{NUMW}) of them\b"),
    ("children", rf"\bmy {KIN}, (?P<v>my only) child\b"),
    ("siblings", rf"\bI grew up with (?P<v>{NUMW}) (?:older |younger |big |little )?{SIB}\b"),
    ("marital_status", rf"{I_AM}(?:an? )?(?:confirmed |lifelong |happy )?(?P<v>bachelor|spinster)\b"),
    ("income", r"\bI (?:earn|make|take home|bring in) (?:about |around |roughly |just over |just under |nearly |almost )?(?P<v>[$€£]?\s?[\d.,]*\d(?:\s?(?:k|K|grand)\b)?(?: (?:a|per) (?:year|month|week|annum))?)"),
]  # fmt: skip
CASE_SENSITIVE = {"name", "partner_name"}
COMPILED = [
    (slot, re.compile(p, re.M if slot in CASE_SENSITIVE or "PLACE" in p or "[A-Z" in p
                      else re.I | re.M)) for slot, p in PATTERNS
]  # fmt: skip
DISLIKE = re.compile(
    r"\bI(?:'ve| have)? (?:really |just |honestly |absolutely |truly )?(?:hate|loathe|detest|"
    r"despise|dislike|can't stand|cannot stand|can't bear|never liked|never enjoyed|don't like|never watch|never play|"
    r"do not like|don't enjoy|do not enjoy|no longer enjoy|don't love|don't care for)\s+" + VM,
    re.I,
)  # fmt: skip
NOT_FAN = re.compile(r"\bI(?:'m| am) not (?:a|really a|much of a|the biggest|a big|a huge) fan of " + VM, re.I)  # fmt: skip
BORES = re.compile(r"^(?P<v>[\w' -]+?) (?:bores|bore|annoys|isn't for|is not for|isn't really for) me\b", re.I)  # fmt: skip
NEG_HAVE = re.compile(rf"\b(?:I|we) (?:don't|do not|never) (?:have any|have|had any|had)(?: an?)? ({KIN}|{SIB})\b|\bI(?:'ve| have) no ({KIN})\b", re.I)  # fmt: skip
NO_LANG = re.compile(r"\bI (?:can't|cannot|can not|don't|do not) speak (?:a word of |any )?(?P<v>[A-Z]\w+)|\bI (?:never learned|never learnt|have no|don't have any) (?P<w>[A-Z]\w+)")  # fmt: skip
ONLY_CHILD = re.compile(r"\b(?:I(?:'m| am|was) an only child|being an only child|as an only child)\b", re.I)  # fmt: skip
NO_PET = re.compile(r"\bI(?:'ve| have)? never (?:had|owned) (?:a |any )?pets?\b|\bI (?:don't|do not) have (?:a |any )?pets?\b", re.I)  # fmt: skip
CAR = re.compile(r"\b(?P<no>I (?:don't|do not) (?:have|own) a car|I (?:don't|do not|can't) drive)\b|\bmy (?:own )?car\b|\bI (?:drove|drive my|drive to)\b", re.I)  # fmt: skip
VEGGIE = re.compile(
    rf"{I_AM}(?:{ADV})(?:a )?(?P<v>vegetarian|vegan)\b|\bI (?:don't|do not|never) eat (?P<m>meat)\b",
    re.I,
)
EAT_MEAT = re.compile(r"(?:\bI (?:\w+ )?(?:ate|eat|grilled|grill|had|love|like|cooked|cook|fancy)|\bmy favou?rite (?:dinner|meal|food|dish|lunch))\b[^.!?]*?\b(?:" + MEAT + r")\b", re.I)  # fmt: skip
FIRST = re.compile(r"\b(i|my|me|i'm|i've|i'd|we|our|us|we're)\b", re.I)
REPORTED = re.compile(
    r"\b(she|he|they|someone|you|people|everyone) (said|says|told|tells|claims?|claimed|thinks?)\b",
    re.I,
)
HYPO = re.compile(
    r"\b(if i were|if i was|if i had|i would be|i'd be|imagine|suppose|pretend|in another life|"
    r"had i|i could have been|i wish|what if|say i|let's say|i want to be|i'd like to|"
    r"i would like to|someday|some day|one day|i'd love to)\b",
    re.I,
)
PAST = re.compile(
    r"\b(when i was|(?<!'m )(?<!am )(?<!get )(?<!got )(?<!be )used to|back then|years ago|as a child|as a kid|as a student|before i|"
    r"before (?:switching|becoming|moving|that|medicine|university|uni)|^before\b|"
    r"in my (?:youth|twenties|student days)|until last|once upon)\b",
    re.I,
)
QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|„[^“”]*[“”]")
LATE = re.compile(r"\b(?:late|deceased)\b", re.I)
EX = re.compile(r"\b(?:ex|former|first|previous)\b", re.I)
IMPLICIT_FIRST = re.compile(
    r"^(?:(?i:hi|hello|hey)[,!]?\s+)?[A-Z][\w'-]+ here\b|\bhas been home\b|^(?i:the )?(?i:name's)"
)
AGE_ANSWER = re.compile(r"^\s*(?:me|age|my age)\?\s*(?P<v>\d{1,3})(?=[.,!]|\s*$)", re.I)
PASSED = re.compile(r"\b(god rest|rest (?:his|her) soul|passed|died|lost (?:him|her)|r\.?i\.?p|lost my (?:wife|husband|spouse))\b", re.I)  # fmt: skip
REPAIR = re.compile(
    r"(?:[,;:.!…]+|\s[—–-]+)\s*(?:(?:er|um|uh|erm)[,.]?\s+)?(?:(?:sorry[,:]|no,? wait[,:]?|"
    r"wait[,:]|i mean|i meant|correction[,:]|scratch that[,:]?|or rather|no[,:]|"
    r"well,? actually[,:]?|make that)\s+)+",
    re.I,
)
CORRECTS_EARLIER = re.compile(
    r"\b(i said \S+(?: \S+)? earlier|let me correct myself|i misspoke|correction:|"
    r"i was wrong earlier|earlier i said|i got that wrong)\b",
    re.I,
)
LEAD_PREP = re.compile(r"^(?:in|from|at|to|for|with|it's|it is|i'm|i am)\s+", re.I)
ASKED_ANSWERED = re.compile(
    r"\b([Mm]y \w+)\?\s+(\d+|(?i:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|one|two|"
    r"three|four|five|six|seven|eight|nine|ten|eleven|twelve)[\w-]*)"
)
# a claim followed by one of these is a figure of speech ("fourteen years old at heart")
AT_HEART = re.compile(
    r"^\W{0,2}(?:years?\s+old\s+|years?\s+young\s+)?(?:at heart|in spirit|in my head|on the inside|in dog years|if you ask my knees)\b",
    re.I,
)
