"""Werewolf measures (spec §14) on a hand-written god-view log with hand-computed numbers."""

from __future__ import annotations

import json
import math

import pytest

from arena.events import Event, GameEvent
from arena.ratings.measures import Figure
from arena.stats import wilson
from games.werewolf.measures import agent_measures, deduction, match_measures
from games.werewolf.measures_agg import aggregate

ROLES = {0: "werewolf", 1: "werewolf", 2: "seer", 3: "doctor", 4: "villager", 5: "villager"}
AGENTS = {0: "wolfbot", 1: "wolfbot", 2: "vbot", 3: "vbot", 4: "vbot", 5: "vbot"}


def ev(type: str, scope: str = "public", seats: tuple[int, ...] = (), **payload: object) -> Event:
    """One JSONL line, read back from a match record as a typed Event."""
    vis = {"scope": scope, "seats": list(seats), "team": "wolves" if scope == "team" else None}
    return Event.model_validate_json(
        json.dumps({"type": type, "payload": payload, "visibility": vis})
    )


def ballots(pairs: list[tuple[int, int]], revote: bool = False) -> list[Event]:
    return [ev("ballot", "god", voter=v, target=t, revote=revote) for v, t in pairs]


def hand_log(outcome: str = "village_win", winners: tuple[str, ...] = ("village",)) -> list[Event]:
    """6 players: wolves 0,1; Seer 2; Doctor 3; villagers 4,5. Three nights, three days."""
    names = ["A", "B", "C", "D", "E", "F"]
    log = [
        ev(
            "setup",
            names=names,
            composition={"werewolf": 2, "seer": 1, "doctor": 1, "villager": 2},
            rules={"wolf_targets": "non_wolves"},
        ),
        *[ev("role", "private", (s,), seat=s, role=r) for s, r in ROLES.items()],
        ev("wolf_team", "team", (0, 1), wolves=[0, 1]),
        # night 1: wolves attack 4, the doctor protects 4 (a save); the Seer finds wolf 0
        ev("phase", phase="night", number=1),
        ev("wolf_target", "team", (0, 1), target=4),
        ev("protect", "private", (3,), seat=3, role="doctor", target=4),
        ev("seer_result", "private", (2,), target=0, result="wolf"),
        ev("dawn", dead=[], reveals={}),
        # day 1: a tie, nobody exiled
        ev("phase", phase="day", number=1),
        ev("message", seat=2, text="I am the Seer. A is a wolf."),
        ev("message", seat=0, text="I suspect C."),
        *ballots([(0, 2), (1, 2), (2, 0), (3, 0), (4, 1), (5, 3)]),
        ev("vote_result", exiled=None, revote=False, ballots={}),
        ev("exile", seat=None, reveal=None),
        # night 2: the Seer is killed (the doctor protects itself)
        ev("phase", phase="night", number=2),
        ev("wolf_target", "team", (0, 1), target=2),
        ev("protect", "private", (3,), seat=3, role="doctor", target=3),
        ev("death", "god", seat=2, cause="wolves"),
        ev("seer_result", "private", (2,), target=4, result="not_wolf"),
        ev("dawn", dead=[2], reveals={}),
        # day 2: wolf 0 exiled
        ev("phase", phase="day", number=2),
        *ballots([(0, 4), (1, 4), (3, 0), (4, 0), (5, 0)]),
        ev("vote_result", exiled=0, revote=False, ballots={}),
        ev("death", "god", seat=0, cause="exile"),
        ev("exile", seat=0, reveal=None),
        # night 3: villager 5 killed (not protected)
        ev("phase", phase="night", number=3),
        ev("wolf_target", "team", (1,), target=5),
        ev("protect", "private", (3,), seat=3, role="doctor", target=3),
        ev("death", "god", seat=5, cause="wolves"),
        ev("dawn", dead=[5], reveals={}),
        # day 3: wolf 1 exiled, village wins
        ev("phase", phase="day", number=3),
        *ballots([(1, 3), (3, 1), (4, 1)]),
        ev("vote_result", exiled=1, revote=False, ballots={}),
        ev("death", "god", seat=1, cause="exile"),
        ev("exile", seat=1, reveal=None),
        ev("belief", "god", seat=3, beliefs={"0": 0.9, "1": 0.5, "2": 0.1, "4": 0.2, "5": 0.6}),
        ev("belief", "god", seat=4, beliefs={"0": 0.3, "1": 0.7, "2": "n/a"}),
        ev("game_over", outcome=outcome, winners=list(winners), roles=ROLES),
    ]
    return log


@pytest.fixture
def m() -> dict:
    return match_measures(hand_log(), AGENTS)


def test_outcome_length_and_win_rates(m: dict) -> None:
    v = m["values"]
    assert (m["outcome"], m["draw"], m["length_days"], m["nights"]) == ("village_win", False, 3, 3)
    assert v["village_win"] == 1.0 and v["wolves_win"] == 0.0 and v["cap"] == 0.0
    assert v["wr|vbot|village"] == 1.0 and v["wr|wolfbot|wolves"] == 0.0
    assert v["wr_role|vbot|seer"] == 1.0 and v["wr_role|wolfbot|werewolf"] == 0.0


def test_vote_accuracy_and_chance(m: dict) -> None:
    c = m["counts"]
    # 9 village ballots: 3/4 on wolves (day 1, chance 2/5), 3/3 (day 2, 2/4), 2/2 (day 3, 1/2)
    assert c["va"] == [8.0, 9.0]
    assert c["va_chance"][0] == pytest.approx(4 * 0.4 + 3 * 0.5 + 2 * 0.5)
    assert c["va|vbot"] == [8.0, 9.0]
    assert c["va|seer"] == [1.0, 1.0] and c["va_chance|seer"] == [0.4, 1.0]
    assert "va|wolfbot" not in c  # wolf ballots never enter VA


def test_exiles_escapes_and_suspicion(m: dict) -> None:
    v = m["values"]
    assert v["exile_acc"] == 1.0
    assert v["no_exile"] == pytest.approx(1 / 3)
    assert v["wolf_escape"] == pytest.approx(1 / 3)
    assert m["counts"]["votes_survived"] == [3.0, 5.0]
    # (2/4*5 + 1/4*5 + 3/3*4 + 0 + 2/2*2) / 5
    assert v["suspicion_ratio"] == pytest.approx(9.75 / 5)


def test_seer_information_save_rate_and_survival(m: dict) -> None:
    v = m["values"]
    assert v["seer_info_use"] == 0.0  # the wolf was exiled after the Seer died
    assert m["counts"]["save_rate"] == [1.0, 3.0]
    assert (v["seer_surv"], v["seer_n1"], v["seer_life"]) == (0.0, 0.0, pytest.approx(1 / 3))
    assert (v["doctor_surv"], v["doctor_n1"], v["doctor_life"]) == (1.0, 0.0, 1.0)


def test_seer_information_counts_an_exile_while_the_seer_lives() -> None:
    log = hand_log()
    # move the Seer's death to the end: the day-2 exile of wolf 0 now happens while it lives
    death = next(e for e in log if e.type == "death" and e.payload["seat"] == 2)
    log.remove(death)
    log.insert(len(log) - 3, death)
    assert match_measures(log)["values"]["seer_info_use"] == 1.0


def test_deduction_accuracy_bce_and_auc(m: dict) -> None:
    doctor, villager = m["beliefs"]
    assert doctor["da"] == pytest.approx(3.5 / 5)
    bce = -(math.log(0.9) + math.log(0.5) + math.log(0.9) + math.log(0.8) + math.log(0.4)) / 5
    assert doctor["bce"] == pytest.approx(bce)
    assert doctor["auc"] == pytest.approx(5 / 6)
    # non-trivial: the night-killed 2 and 5 are known village (wolves cannot target wolves)
    assert doctor["n_nt"] == 3 and doctor["da_nt"] == pytest.approx(2.5 / 3)
    assert doctor["auc_nt"] == 1.0
    # missing and unparseable entries are missing, never 0.5
    assert villager["n"] == 2 and villager["missing"] == 3
    assert villager["da"] == 0.5 and villager["auc"] is None
    assert m["values"]["da"] == pytest.approx((0.7 + 0.5) / 2)


def test_deduction_gives_half_credit_at_exactly_one_half() -> None:
    out = deduction({1: 0.5, 2: 0.5}, {1: True, 2: False})
    assert out["da"] == 0.5 and out["auc"] == 0.5
    assert deduction({}, {1: True})["da"] is None


def test_speech_descriptors(m: dict) -> None:
    assert m["counts"]["messages_per_player"] == [2.0, 6.0]
    assert m["counts"]["chars_per_player"] == [39.0, 6.0]
    assert m["speech"][2]["messages"] == 1


def test_engine_drafts_and_jsonl_records_give_the_same_measures() -> None:
    log = hand_log()
    drafts = [GameEvent(type=e.type, payload=e.payload, visibility=e.visibility) for e in log]
    assert match_measures(drafts, AGENTS)["counts"] == match_measures(log, AGENTS)["counts"]


def test_aggregate_pools_matches_and_uses_wilson_without_draws() -> None:
    a, b = match_measures(hand_log(), AGENTS), match_measures(hand_log("wolves_win", ("wolves",)))
    agg = aggregate([a, b, a], n_boot=500, seed=3)
    vw = agg["figures"]["village_win"]
    assert vw["value"] == pytest.approx(2 / 3) and vw["method"] == "wilson"
    assert vw["ci"] == pytest.approx(list(wilson(2, 3)))
    assert agg["figures"]["va"]["value"] == pytest.approx(24 / 27)
    lift = agg["figures"]["va_lift"]
    assert lift["value"] == pytest.approx(8 / 9 - 4.1 / 9)
    assert lift["ci"][0] <= lift["value"] <= lift["ci"][1]


def test_aggregate_bootstraps_draws_deterministically_and_skips_aborted() -> None:
    win = match_measures(hand_log(), AGENTS)
    draw = match_measures(hand_log("draw_cap", ()), AGENTS)
    aborted = match_measures(hand_log("aborted", ()), AGENTS)
    assert draw["values"]["village_win"] == 0.5 and draw["values"]["cap"] == 1.0
    runs = [aggregate([win, draw, win, draw, aborted], n_boot=400, seed=7) for _ in range(2)]
    assert runs[0] == runs[1]
    fig = runs[0]["figures"]["village_win"]
    assert runs[0]["n_aborted"] == 1 and fig["method"] == "bootstrap"
    assert fig["value"] == 0.75 and 0.5 <= fig["ci"][0] <= fig["ci"][1] <= 1.0
    assert "wr_bal|vbot" not in runs[0]["figures"]  # vbot never played the wolves


def test_agent_measures_hook_reports_per_agent_entry(m: dict) -> None:
    figs = agent_measures(hand_log(), AGENTS)
    vbot, wolfbot = figs["vbot"], figs["wolfbot"]
    assert vbot["vote_accuracy"] == Figure(8.0, 9.0, True)  # the village's ballots (c["va|vbot"])
    assert vbot["win_rate_village"] == Figure(1.0, 1.0, True) and "win_rate_wolves" not in vbot
    assert wolfbot["win_rate_wolves"] == Figure(0.0, 1.0, True)
    assert vbot["survival"] == Figure(2.0, 4.0, True)  # the Seer (2) and villager 5 died
    assert wolfbot["survival"] == Figure(0.0, 2.0, True)
    # deception: both wolves are wolfbot, so its ratio is the match's (9.75 over 5 wolf-days)
    ratio = wolfbot["wolf_suspicion_ratio"]
    assert ratio.num / ratio.den == pytest.approx(9.75 / 5) and not ratio.binary
    assert (vbot["deduction_accuracy"].num, vbot["deduction_accuracy"].den) == tuple(
        m["counts"]["da|agent=vbot"]
    )
    assert "vote_accuracy" not in wolfbot  # wolves' ballots are not scored
    assert agent_measures(hand_log("aborted", ()), AGENTS) == {}
