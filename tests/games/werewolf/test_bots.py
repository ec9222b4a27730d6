"""Werewolf baseline bots (spec §13): legal everywhere, coordinated wolves, Seer claims, seeds.

Every match is played by the match runner (``tests/games/played.py``), strict: any refused
answer fails the test."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.agents.base import MatchContext
from arena.events import Event
from arena.types import Decision, Option
from games.werewolf.bots import BOTS, ROLE_BOTS, RuleBot
from games.werewolf.config import PRESETS, ROLE_TEAM
from games.werewolf.suspicion import MessageParser, Suspicion, View
from tests.games.played import Played, play

EXTRA_VARIANTS = [
    {"discussion_mode": "async"},
    {"discussion_mode": "bidding", "bids_visible": True},
    {"tie_rule": "revote", "allow_abstain": True, "allow_self_vote": True, "vote_mode": "sequential"},
    {
        "roles": ["werewolf", "werewolf", "seer", "doctor", "witch", "guard", "hunter", "villager"],
        "exile_reveal": "role", "night_death_reveal": "team", "last_words": "all_deaths",
        "wolf_may_skip": True, "wolf_targets": "any_other", "belief_reports": "end_of_day",
        "vote_reveal": "counts_only", "seer_repeat_target": True, "first_phase": "day",
        "hunter_may_decline": False,
    },
    {"wolf_decision": "consensus", "consensus_retries": 2, "n_players": 11},
]  # fmt: skip
VARIANTS = [{"preset": p} for p in PRESETS] + EXTRA_VARIANTS
SEATINGS = [("rule", "rule"), ("random", "rule"), ("rule", "random"), ("random", "random")]


def run(
    rules: dict, seed: int, village: str = "rule", wolves: str = "rule", params: dict | None = None
) -> Played:
    """One strict match, seats filled by team: ``village`` bots and ``wolves`` bots."""
    by_team = {t: village if t == "village" else wolves for t in set(ROLE_TEAM.values())}
    return play(
        "werewolf", rules, seed, lambda entry, seat: BOTS[entry](**(params or {})), by_team=by_team
    )


def of_type(match: Played, kind: str) -> list[dict]:
    return match.of_type(kind)


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: "-".join(f"{k}" for k in r)[:40])
def test_bots_answer_every_decision_legally_in_every_variant(rules: dict) -> None:
    kinds: set[str] = set()
    for village, wolves in SEATINGS:
        for seed in range(8):
            # strict: any refused answer fails the test instead of falling back
            match = run(rules, seed, village, wolves)
            assert match.engine.is_over() and not match.refusals()
            kinds |= {d["kind"] for d in match.decisions()}
    assert {"vote", "speak"} <= kinds or "async_tick" in kinds or "bid" in kinds


def test_all_decision_kinds_of_the_contract_are_met_across_variants() -> None:
    kinds: set[str] = set()
    for rules in [EXTRA_VARIANTS[3], {"preset": "werewolf_arena"}, {"preset": "agentscope9"},
                  {"discussion_mode": "async"}, {"tie_rule": "revote"}]:  # fmt: skip
        for seed in range(6):
            kinds |= {d["kind"] for d in run(rules, seed).decisions()}
    expected = {"wolf_discuss", "wolf_target", "protect", "guard", "witch_heal", "witch_poison",
                "inspect", "speak", "bid", "async_tick", "vote", "revote", "last_words",
                "hunter_shot", "poll", "belief"}  # fmt: skip
    assert expected <= kinds, expected - kinds


@pytest.mark.parametrize("rules", [{}, {"preset": "secret_mafia"}, {"preset": "agentscope9"}])
def test_wolf_bots_never_vote_for_a_partner(rules: dict) -> None:
    for seed in range(15):
        match = run(rules, seed, village="random")
        roles = of_type(match, "game_over")[0]["roles"]
        wolves = {int(s) for s, r in roles.items() if r == "werewolf"}
        for b in of_type(match, "ballot") + of_type(match, "poll"):
            voter, target = b.get("voter", b.get("seat")), b["target"]
            if voter in wolves:
                assert target not in wolves or target == voter, (seed, b)


@pytest.mark.parametrize("rules", [{}, {"preset": "agentscope9"}, {"wolf_tie": "no_kill"}])
def test_wolf_bots_agree_on_the_night_target(rules: dict) -> None:
    nights = 0
    for seed in range(15):
        match = run(rules, seed, village="random")
        votes: dict[int, set] = {}
        night = 0
        for e in match.events:
            if e.type == "phase" and e.payload["phase"] == "night":
                night = e.payload["number"]
            if e.type == "wolf_vote":
                votes.setdefault(night, set()).add(e.payload["target"])
        assert all(len(targets) == 1 for targets in votes.values()), (seed, votes)
        nights += len(votes)
    assert nights >= 15


def test_seer_claims_only_after_finding_a_wolf() -> None:
    claimed_after_wolf = 0
    for seed in range(40):
        match = run({}, seed)
        seer = next(p["seat"] for p in of_type(match, "role") if p["role"] == "seer")
        found_wolf = False
        for e in match.events:
            if e.type == "seer_result" and e.payload["result"] == "wolf":
                found_wolf = True
            if e.type == "message" and e.payload["seat"] == seer:
                claims = "I am the Seer." in e.payload["text"]
                assert claims == found_wolf, (seed, e.payload)
                claimed_after_wolf += claims
    assert claimed_after_wolf >= 5


@pytest.mark.parametrize(("policy", "day1_claim"), [("immediately", True), ("never", False)])
def test_seer_reveal_policy(policy: str, day1_claim: bool) -> None:
    said = []
    for seed in range(10):
        match = run({}, seed, params={"seer_reveal": policy})
        seer = next(p["seat"] for p in of_type(match, "role") if p["role"] == "seer")
        said += [m["text"] for m in of_type(match, "message") if m["seat"] == seer]
    assert said and all(("I am the Seer." in t) == day1_claim for t in said)


def test_fake_claiming_wolf_claims_seer_on_day_one() -> None:
    for seed in range(5):
        match = run({}, seed, village="random", params={"wolf_fake_claim_prob": 1.0})
        wolves = set(of_type(match, "wolf_team")[0]["wolves"])
        day1 = [m for m in of_type(match, "message") if "I am the Seer." in m["text"]]
        assert day1 and {m["seat"] for m in day1} <= wolves


def test_bots_are_deterministic_given_the_same_context() -> None:
    for rules in [{}, {"preset": "werewolf_arena"}, {"discussion_mode": "async"}]:
        a = [e.comparable() for e in run(rules, 11, "rule", "random").events]
        b = [e.comparable() for e in run(rules, 11, "rule", "random").events]
        assert a == b
    texts = {tuple(m["text"] for m in of_type(run({}, s, "random", "rule"), "message"))
             for s in range(6)}  # fmt: skip
    assert len(texts) > 1


def test_rule_bot_plays_the_bot_of_its_own_role() -> None:
    match = run({"preset": "agentscope9"}, 3)
    roles = {p["seat"]: p["role"] for p in of_type(match, "role")}
    for seat, agent in enumerate(match.agents):
        assert isinstance(agent, RuleBot) and agent.inner is not None
        assert type(agent.inner) is ROLE_BOTS[roles[seat]]


def test_random_bot_reports_the_prior_and_bids_within_range() -> None:
    match = run({"discussion_mode": "bidding"}, 2, "random", "random")
    beliefs = of_type(match, "belief")
    assert beliefs and all(set(b["beliefs"].values()) == {2 / 7} for b in beliefs)
    bids = [int(d["action"]["choices"][0]) for d in match.decisions() if d["kind"] == "bid"]
    assert bids and set(bids) <= set(range(5)) and len(set(bids)) > 1


def _view(names: list[str], seat: int, role: str = "villager") -> tuple[View, Suspicion]:
    view = View(seat, names)
    view.role, view.team = role, "village"
    view.composition = {"werewolf": 1}
    return view, Suspicion(view)


def _msg(seat: int, text: str) -> Event:
    return Event(type="message", payload={"seat": seat, "text": text})


def test_message_parser_reads_the_fixed_patterns_only() -> None:
    parser = MessageParser(["Ann", "Bo", "Cy"])
    out = parser.parse("I am the Seer. Bo is a wolf. Cy is not a wolf. I suspect Ann.")
    assert out["seer_claim"] and out["wolf"] == [1] and out["not_wolf"] == [2]
    assert out["suspect"] == [0]
    vague = parser.parse("Maybe Bo is wolfish, who knows. Seer here, trust me")
    assert not vague["seer_claim"] and not vague["wolf"] and not vague["suspect"]


def test_suspicion_follows_a_credible_seer_and_counterclaims() -> None:
    view, susp = _view(["Ann", "Bo", "Cy", "Di", "Ed"], seat=0)
    view.update([_msg(1, "I am the Seer. Cy is a wolf. Di is not a wolf.")], {})
    assert view.credible_seers() == [1]
    assert susp.score(2) == 3.0 and susp.score(3) == -2.0
    view.update([_msg(1, "I am the Seer. Cy is a wolf. Di is not a wolf."),
                 _msg(4, "I am the Seer. Bo is a wolf.")], {})  # fmt: skip
    assert view.credible_seers() == []  # two consistent claimants: nobody is credible
    assert susp.score(1) == 1.0 and susp.score(4) == 1.0 and susp.score(2) == 0.0


def test_belief_report_is_a_softmax_scaled_by_unrevealed_wolves() -> None:
    view, susp = _view(["Ann", "Bo", "Cy", "Di"], seat=0)
    view.update([_msg(3, "I suspect Bo.")], {})  # Di (S = 0) accuses Bo: S(Bo) = 0.5
    belief = susp.belief()
    assert set(belief) == {"1", "2", "3"}
    assert sum(belief.values()) == pytest.approx(1.0)
    assert belief["1"] > belief["2"] == belief["3"]


def test_protector_guards_a_credible_seer_claimant() -> None:
    bot = BOTS["doctor"]()
    names = ["Ann", "Bo", "Cy", "Di", "Ed"]
    bot.reset(MatchContext(game="werewolf", match_id="t", seat=0, name="Ann", names=names,
                           seed=1, team_seed=2))  # fmt: skip
    from arena.types import Observation

    obs = Observation(game="werewolf", seat=0, name="Ann", phase="night", text="",
                      state={"role": "doctor", "alive": [0, 1, 2, 3, 4]})  # fmt: skip
    obs.events = [_msg(2, "I am the Seer. Bo is a wolf.")]
    decision = Decision(kind="protect", options=[Option(id=str(s)) for s in range(5)])
    action = asyncio.run(bot.act(obs, decision))
    assert action.choices == ("2",)


OPTIONAL_ROLES = ["witch", "guard", "hunter"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    extra=st.lists(st.sampled_from(OPTIONAL_ROLES), unique=True),
    flags=st.fixed_dictionaries(
        {
            "discussion_mode": st.sampled_from(["round_robin", "random_order", "bidding", "async"]),
            "vote_mode": st.sampled_from(["simultaneous", "sequential"]),
            "tie_rule": st.sampled_from(["no_exile", "random", "revote"]),
            "allow_abstain": st.booleans(),
            "wolf_decision": st.sampled_from(["vote", "single_random", "consensus"]),
            "last_words": st.sampled_from(["none", "exiled", "all_deaths"]),
            "exile_reveal": st.sampled_from(["none", "team", "role"]),
            "doctor_repeat_target": st.booleans(),
            "doctor_self_protect": st.booleans(),
            "belief_reports": st.sampled_from(["none", "end_of_day", "end"]),
        }
    ),
    seating=st.sampled_from(SEATINGS),
)
def test_bots_stay_legal_under_random_rule_combinations(
    seed: int, extra: list[str], flags: dict, seating: tuple[str, str]
) -> None:
    roles = ["werewolf", "werewolf", "seer", "doctor", *extra]
    roles += ["villager"] * (8 - len(roles))
    match = run({**flags, "roles": roles}, seed, *seating)
    assert match.engine.is_over() and not match.refusals()
