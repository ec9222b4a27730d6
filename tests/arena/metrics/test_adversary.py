"""The LLM adversary of §A10 over real HTTP against ``arena serve --engine scripted`` on
loopback: one observer's view only, analytic chance baseline, cache, failures are missing."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from arena.events import Visibility
from arena.llm.fakes.scripted import ScriptedEngine
from arena.llm.messages import ChatResult
from arena.llm.server import ServerThread
from arena.metrics.adversary import llm_inference
from arena.metrics.report import score_events
from arena.metrics.secrets import secrets_from_truth
from arena.metrics.settings import AdversarySettings, MetricsSettings
from arena.metrics.transcript import read_log

from .helpers import persona_log, secret
from .test_games import play

TYPES = MetricsSettings().message_types


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[ServerThread, ScriptedEngine]]:
    engine = ScriptedEngine(seed=1)
    engine.keep_requests = True
    with ServerThread(engine) as srv:
        yield srv, engine


@pytest.fixture(scope="module")
def werewolf():
    events = play("werewolf", None, {}, 3)
    log = read_log(events, TYPES)
    return events, log, secrets_from_truth(log.ground_truth, None, log.names, log.game)


def cfg(srv: ServerThread, path, **kw) -> AdversarySettings:
    backend = {"base_url": srv.url, "model": "scripted", "timeout_s": 30.0,
               "backoff_base_s": 0.01, "backoff_max_s": 0.02, **kw.pop("backend", {})}  # fmt: skip
    return AdversarySettings(backend=backend, cache_path=str(path), **kw)


def test_role_adversary_scores_guesses_against_analytic_chance_and_caches(server, werewolf,
                                                                          tmp_path) -> None:  # fmt: skip
    srv, engine = server
    events, log, secrets = werewolf
    wolves = sorted(s for s, t in log.teams.items() if t == "wolves")
    n, w = log.n_seats, len(wolves)
    # the seats each observer inspected as Seer before its view ends: it knows their sides
    inspected = {o: {e.payload["target"] for e in events if e.type == "seer_result"
                     and e.seq < log.end_seq and e.visibility.seats == (o,)} for o in range(n)}  # fmt: skip
    assert any(inspected.values())
    c = cfg(srv, tmp_path / "adv.sqlite")
    served = engine.served
    res = llm_inference(log, secrets, c)
    assert res["failed"] == 0 and res["missing"] == 0
    assert res["calls"] == engine.served - served  # one call per (observer, secret)
    assert res["calls"] == sum(len(v["observers"]) for v in res["secrets"].values())
    for sid, row in res["secrets"].items():
        s = next(x for x in secrets if x.id == sid)
        # the default Seer learns sides, not roles
        knows = {o for o in range(n) if s.owner in inspected[o] and sid.startswith("side:")}
        assert {o["observer"] for o in row["observers"]} == set(range(n)) - s.auth - knows
        for o in row["observers"]:
            seen = inspected[o["observer"]]
            assert o["LA"] in (0.0, 1.0) and o["guess"] in {str(x.value) for x in secrets
                                                             if x.id[:4] == sid[:4]}  # fmt: skip
            if sid.startswith("side:") and s.value == "wolves":
                # a village observer: w/(N−1) among the seats it did not inspect
                assert o["LA0"] == pytest.approx(
                    (w - len(seen & set(wolves))) / (n - 1 - len(seen))
                )
            if sid.startswith("side:") and s.value == "village" and o["observer"] in wolves:
                assert o["LA0"] == 1.0  # a wolf knows every unknown seat is village
        expect = sum(o["LA"] - o["LA0"] for o in row["observers"]) / len(row["observers"])
        assert row["inference_gain"] == pytest.approx(expect)
    # the same request again: answered from the adversary cache, nothing sent
    served = engine.served
    again = llm_inference(log, secrets, c)
    assert engine.served == served and again["calls"] == 0 and again["cache_hits"] == res["calls"]
    assert again["secrets"] == res["secrets"]


def test_prompt_holds_only_the_observer_view_without_the_final_reveal(server, werewolf,
                                                                      tmp_path) -> None:  # fmt: skip
    srv, engine = server
    events, log, secrets = werewolf
    engine.requests.clear()
    llm_inference(log, [s for s in secrets if s.id == f"side:{min(log.teams)}"], cfg(
        srv, tmp_path / "a.sqlite"))  # fmt: skip
    wolves = {s for s, t in log.teams.items() if t == "wolves"}
    wolf_lines = [e.payload.get("message") or e.text for e in events
                  if e.visibility.scope == "team" and (e.payload.get("message") or e.text)]  # fmt: skip
    assert wolf_lines
    for body in engine.requests:
        prompt = body["messages"][0]["content"]
        observer = next(o for o in range(log.n_seats) if f"participant {log.names[o]}\n" in prompt)
        assert ("[wolf_message]" in prompt) == (observer in wolves)
        assert "Game over" not in prompt  # the final role reveal is not part of the view
        if observer not in wolves:
            assert f"You are {log.names[observer]}" in prompt  # its own private information
            assert not any(f"You are {log.names[x]};" in prompt for x in wolves)


def test_failed_or_unparseable_calls_are_missing_never_zero(server, werewolf, tmp_path) -> None:
    srv, engine = server
    _, log, secrets = werewolf
    engine.fault_rates = {"500": 1.0}
    try:
        res = llm_inference(log, secrets[:2], cfg(srv, tmp_path / "f.sqlite",
                                                  backend={"max_retries": 0}))  # fmt: skip
    finally:
        engine.fault_rates = {}
    assert res["failed"] == res["missing"] > 0
    for row in res["secrets"].values():
        assert row["inference_gain"] is None and row["n_scored"] == 0
        assert all(o["LA"] is None for o in row["observers"])
    # an entity secret asks for a free-text guess; the scripted engine cannot give one
    ev = persona_log([(0, "The money is in Porto.", Visibility.private(0, 1))],
                     [secret("stash", kind="entity", value="Porto")])  # fmt: skip
    rep = score_events(ev, MetricsSettings(embeddings=False, adversary=cfg(srv, tmp_path / "e")),
                       None)  # fmt: skip
    inf = rep["privacy"]["inference_llm"]
    assert inf["secrets"]["stash"]["inference_gain"] is None and inf["missing"] == 4
    assert rep["stamp"]["adversary_prompt"] == inf["prompt_version"]
    assert rep["missing"] >= 2


class Reader:
    """An in-process backend that reads the view: the last number it sees is its guess."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    async def complete(self, req) -> ChatResult:
        prompt = req.messages[0]["content"]
        self.prompts.append(prompt)
        guess = 50_000 if "budget is 50,000" in prompt else 30_000
        return ChatResult(text=json.dumps({"guess": guess}))


def test_numeric_gain_and_error_reduction_by_hand(tmp_path) -> None:
    ev = persona_log(
        [(0, "Between us, my budget is 50,000.", Visibility.private(0, 1)),
         (1, "Noted.", None)],
        [secret("budget", kind="number", value=52_000, numeric={"cues": ["budget"]})],
    )  # fmt: skip
    log = read_log(ev, TYPES)
    secrets = secrets_from_truth(None, log.scenario_truth, log.names)
    backend = Reader()
    res = llm_inference(log, secrets, AdversarySettings(cache_path=str(tmp_path / "n")), backend)
    row = res["secrets"]["budget"]
    by = {o["observer"]: o for o in row["observers"]}
    # observer 1 read the message: 50k is within 10% of 52k (½); no transcript → 30k (0)
    assert (by[1]["LA"], by[1]["LA0"], by[2]["LA"], by[2]["LA0"]) == (0.5, 0.0, 0.0, 0.0)
    assert row["inference_gain"] == pytest.approx((0.5 + 0.0) / 2)
    # ErrReduction = mean((|ŝ⁰ − v| − |ŝ − v|)/|v|) = ((22000 − 2000)/52000 + 0) / 2
    assert row["err_reduction"] == pytest.approx(20_000 / 52_000 / 2)
    assert len(backend.prompts) == 4  # 2 observers × (view, empty view)
    assert sum("budget is 50,000" in p for p in backend.prompts) == 1
