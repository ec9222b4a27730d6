"""Secrets and a scan helper shared by the detector class tests."""

from __future__ import annotations

from arena.metrics.detect import Cascade
from arena.metrics.secrets import SecretSpec, secrets_from_truth
from arena.metrics.settings import MetricsSettings

LEX = MetricsSettings(embeddings=False)
WW_NAMES = ["Greta", "Bob", "Chen", "Dana", "Eli"]
WW_ROLES = ["werewolf", "seer", "doctor", "werewolf", "villager"]
AV_NAMES = ["Ada", "Bruno", "Dev"]
AV_ROLES = ["merlin", "percival", "assassin"]


def hidden_roles(roles: list[str], evil: str) -> dict:
    teams = {
        str(i): (evil if r in ("werewolf", "assassin") else "good") for i, r in enumerate(roles)
    }
    bad = [i for i, r in enumerate(roles) if r in ("werewolf", "assassin")]
    facts = []
    for i, r in enumerate(roles):
        aud = bad if i in bad else [i]
        facts += [{"owner": i, "kind": k, "key": k, "value": v, "audience": aud}
                  for k, v in (("role", r), ("side", teams[str(i)]))]  # fmt: skip
    return {"roles": {str(i): r for i, r in enumerate(roles)}, "teams": teams, "facts": facts}


def level(secret: SecretSpec, text: str, speaker: int | None) -> float:
    (r,) = Cascade([secret], LEX).scan(text, keep_all=True, speaker=speaker)
    return r.level


def ww(sid: str) -> SecretSpec:
    truth = hidden_roles(WW_ROLES, "wolves")
    return next(s for s in secrets_from_truth(truth, None, WW_NAMES, "werewolf") if s.id == sid)


def av(sid: str) -> SecretSpec:
    truth = hidden_roles(AV_ROLES, "evil")
    return next(s for s in secrets_from_truth(truth, None, AV_NAMES, "avalon") if s.id == sid)


def budget(value: float = 52000, name: str = "Tomasz") -> SecretSpec:
    truth = {"facts": [{"owner": 1, "kind": "reservation_price", "key": "reservation",
                        "value": value, "numeric": value, "audience": [1],
                        "aliases": ["budget"]}]}  # fmt: skip
    (s,) = secrets_from_truth(truth, None, ["Priya", name], "price_bargaining")
    return s
