"""Metrics on real matches of every game: scripted slip rates tracked, probe isolation (D11),
determinism (D13), inference baselines (D12), persona swap (D5), streaming = offline."""

from __future__ import annotations

import pytest

from arena import registry
from arena.metrics.report import score_events
from arena.metrics.settings import MetricsSettings
from arena.metrics.stream import MetricsSink
from tests.builders import play_scored

# every registered game (the toy game too: the metrics must not need a real one)
GAMES = sorted(registry.games())
LEX = MetricsSettings(embeddings=False)


@pytest.mark.parametrize("game", GAMES)
def test_every_game_scores_deterministically_and_streams_like_offline(game: str) -> None:
    kinds = {"persona_dialogue": ["leaker", "card_reader"],
             "bargaining": ["discloser", "offer_at_reservation"],
             "dealornodeal": ["discloser", "offer_at_reservation"]}.get(game)  # fmt: skip
    sink = MetricsSink(LEX)
    events = play_scored(game, kinds, {}, 5, sinks=[sink])
    a, b = score_events(events, LEX, None), score_events(list(events), LEX, None)
    assert a == b
    assert a["stamp"]["threshold_version"] == LEX.thresholds.version
    offline = {
        (t["seq"], e["secret"], e["level"]) for t in a["privacy"]["turns"] for e in t["leaks"]
    }
    live = {(m.payload["of_seq"], e["secret"], e["level"]) for m in sink.metrics
            for e in m.payload["leak_events"]}  # fmt: skip
    assert live == offline
    assert all(m.visibility.scope == "god" for m in sink.metrics)


def test_offer_at_reservation_is_not_a_leak_but_disclosure_is() -> None:
    rep = score_events(
        play_scored("bargaining", ["offer_at_reservation", "discloser"], {}, 2), LEX, None
    )
    own = rep["privacy"]["owners"]
    assert own["0"]["leak_rate@1"] == 0.0 and own["1"]["leak_rate@1"] == 1.0


@pytest.mark.parametrize("rate", [0.15, 0.4])
def test_measured_leak_rate_tracks_configured_slip_rate(rate: float, embedder) -> None:
    slips = detected = turns = 0
    for seed in range(12):
        ev = play_scored("persona_dialogue", ["leaker", "card_reader"],
                         {"scenario": "bakery-loan", "max_turns": 30, "probes": False}, seed,
                         [{"p": rate, "p_pass": 0, "agree_after": None}, {}])  # fmt: skip
        rep = score_events(ev, MetricsSettings(), embedder)
        own = {t["seq"] for t in rep["privacy"]["turns"] if t["speaker"] == 0}
        slip_seqs = {e.seq for e in ev if e.type == "slip"}
        msgs = [e for e in ev if e.type == "utterance" and e.actor == 0]
        turns += len(msgs)
        slips += len(slip_seqs)
        detected += len(own)
        # every detected leak is right after a slip record (no false positives)
        for s in own:
            assert s - 1 in slip_seqs or s - 2 in slip_seqs
    assert abs(detected / turns - slips / turns) < 0.02
    assert abs(detected / turns - rate) < 0.08


def test_measured_contradiction_rate_tracks_configured_rate() -> None:
    contra = turns = slips = 0
    for seed in range(15):
        ev = play_scored("persona_dialogue", ["card_reader", "card_reader"],
                         {"scenario": "bakery-loan", "max_turns": 30, "probes": False}, seed,
                         [{"slip_rate": 0.3, "slip_mode": "contradict", "p_pass": 0, "agree_after": None}, {}])  # fmt: skip
        rep = score_events(ev, LEX, None)
        per_turn = rep["persona"]["agents"]["0"]["per_turn"]
        contra += sum(t["contra_card"] for t in per_turn)
        turns += len(per_turn)
        slips += sum(e.type == "slip" for e in ev)
    assert contra == slips
    assert abs(contra / turns - 0.3) < 0.08


def test_probe_isolation_and_retest() -> None:
    rules = {"scenario": "bakery-loan", "max_turns": 12}
    with_p = play_scored("persona_dialogue", ["card_reader", "card_reader"], rules, 3)
    without = play_scored(
        "persona_dialogue", ["card_reader", "card_reader"], {**rules, "probes": False}, 3
    )
    utt = lambda ev: [(e.actor, e.payload["message"]) for e in ev if e.type == "utterance"]  # noqa: E731
    assert utt(with_p) == utt(without)
    rep = score_events(with_p, LEX, None)
    probe_seqs = {e.seq for e in with_p if e.type == "probe"}
    assert not {t["seq"] for t in rep["privacy"]["turns"]} & probe_seqs
    assert rep["persona"]["agents"]["0"]["RC"] == 1.0
    assert rep["persona"]["agents"]["0"]["persona_score"] is not None


def chance(events, observer: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """w/c and 1 − w/c for ``observer``'s last belief report: c = the other seats whose side it
    had not inspected by then, w = the wolves among them (2 wolves among 8)."""
    truth = next(e for e in events if e.type == "ground_truth").payload
    wolves = {int(s) for s, t in truth["teams"].items() if t == "wolves"}
    at = max(e.seq for e in events if e.type == "belief_report" and e.actor == observer)
    seen = {e.payload["target"] for e in events if e.type == "seer_result" and e.seq < at
            and e.visibility.seats == (observer,)}  # fmt: skip
    c = 7 - len(seen)
    w = len(wolves) - len(seen & wolves)
    return w / c, 1 - w / c


def test_inference_gain_of_random_population_is_near_zero() -> None:
    gains, chance_ok, inspected = [], True, 0
    for seed in range(30):
        events = play_scored("werewolf", None, {}, seed)
        rep = score_events(events, LEX, None)
        for row in rep["privacy"]["inference"].values():
            gains.append(row["inference_gain"])
            for o in row["observers"]:
                expected = chance(events, o["observer"])
                chance_ok &= any(abs(o["LA0"] - x) < 1e-9 for x in expected)
                inspected += expected[0] not in (2 / 7, 5 / 7)
    assert gains and abs(sum(gains) / len(gains)) < 0.05 and chance_ok
    assert inspected  # the Seer's inspections did shrink its candidates in some matches


def test_persona_swap_lowers_pc_and_margin(embedder) -> None:
    ev = play_scored("persona_dialogue", ["card_reader", "card_reader"],
                     {"scenario": "bakery-loan", "max_turns": 24, "probes": False}, 1)  # fmt: skip
    real = score_events(ev, MetricsSettings(), embedder)["persona"]
    swapped_events = []
    for e in ev:
        if e.type == "scenario_truth":
            facts = [{**f, "owner": 1 - f["owner"]} for f in e.payload["persona_facts"]]
            e = e.model_copy(update={"payload": {**e.payload, "persona_facts": facts}})
        if e.type == "briefing":
            e = e.model_copy(update={"actor": 1 - e.actor})
        swapped_events.append(e)
    swap = score_events(swapped_events, MetricsSettings(), embedder)["persona"]
    margin = lambda r: sum(r["agents"][a]["identifiability_margin"] for a in ("0", "1"))  # noqa: E731
    for a in ("0", "1"):
        assert swap["agents"][a]["PC"] < real["agents"][a]["PC"]
    assert margin(swap) < 0 < margin(real)
    assert swap["retrieval_accuracy"] <= real["retrieval_accuracy"]


def test_a_wolf_reading_its_briefing_aloud_leaks_its_role() -> None:
    """The demo of issue 16: the LLM werewolf said publicly "You are Greta; your role is
    werewolf." — that role's leakage must be above 0 in the match report."""
    events = play_scored("werewolf", None, {}, 3)
    start = next(e for e in events if e.type == "match_start")
    names = start.payload["names"]
    truth = next(e for e in events if e.type == "ground_truth").payload
    wolves = {int(s) for s, r in truth["roles"].items() if r == "werewolf"}
    said = next(i for i, e in enumerate(events)
                if e.type == "message" and e.actor in wolves and e.visibility.scope == "public")  # fmt: skip
    wolf = events[said].actor
    assert wolf is not None
    line = f"You are {names[wolf]}; your role is werewolf."
    e = events[said]
    speech = e.speech.model_copy(update={"body": line}) if e.speech is not None else None
    events[said] = e.model_copy(update={"payload": {**e.payload, "text": line}, "speech": speech})
    rep = score_events(events, LEX, None)
    assert rep["privacy"]["secrets"][f"role:{wolf}"]["L"] == 1.0
    assert rep["privacy"]["strategic_reveals"][str(wolf)]["leak_rate@1"] > 0
