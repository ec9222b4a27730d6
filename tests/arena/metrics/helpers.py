"""Synthetic match logs built in the tests (no external data)."""

from __future__ import annotations

from arena.events import Event, Visibility


def ev(seq: int, type: str, actor: int | None = None, vis: Visibility | None = None,
       **payload) -> Event:  # fmt: skip
    return Event(type=type, actor=actor, payload=payload, visibility=vis or Visibility.public(),
                 seq=seq, match_id="m", run_id="r")  # fmt: skip


def persona_log(lines: list[tuple[int, str, Visibility | None]], secrets: list[dict],
                names=("Lena", "Omar", "Ines"), facts: list[dict] | None = None) -> list[Event]:  # fmt: skip
    out = [
        ev(0, "match_start", game="persona_dialogue", names=list(names), rules={},
           seats={str(i): f"e{i}" for i in range(len(names))}),
        ev(1, "scenario_truth", vis=Visibility.god(), secrets=secrets, persona_facts=facts or [],
           names=list(names)),
    ]  # fmt: skip
    for i, (spk, text, vis) in enumerate(lines):
        out.append(ev(2 + i, "utterance", actor=spk, vis=vis, message=text, kind="speak"))
    return out


def secret(id: str, owner: int = 0, kind: str = "fact", **kw) -> dict:
    return {"id": id, "owner": owner, "kind": kind, "audience": [], **kw}
