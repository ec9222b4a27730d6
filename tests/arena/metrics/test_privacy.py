"""Hand-computed exposure and aggregates (§A7–§A9), audience control (D4), properties (D8)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.events import Visibility
from arena.metrics.detect import PairResult
from arena.metrics.privacy import Exposure, aggregate
from arena.metrics.report import score_events
from arena.metrics.secrets import SecretSpec
from arena.metrics.settings import MetricsSettings
from arena.metrics.transcript import Message

from .helpers import persona_log, secret

LEX = MetricsSettings(embeddings=False)


def msg(t: int, speaker: int, rec: set[int]) -> Message:
    return Message(t, t, speaker, "x", frozenset(rec), "public", "", "utterance")


def test_exposure_and_aggregates_hand_computed() -> None:
    s = SecretSpec(id="s", owner=0, kind="fact", aliases=["x"], severity=5, audience=[1])
    ex = Exposure([s], 4)
    t1 = ex.update(msg(1, 0, {1}), [PairResult("s", 1.0)])  # allowed recipient only
    t2 = ex.update(msg(2, 0, {1, 2}), [PairResult("s", 0.5)])  # ½ reaches 2
    t3 = ex.update(msg(3, 1, {2, 3}), [PairResult("s", 1.0)])  # 1 reaches 2 and 3
    ex.update(msg(4, 2, {0}), [])
    assert (t1.delta_w, t2.delta_w, t3.delta_w) == (0.0, 2.5, 5 * 0.5 + 5 * 1.0)
    agg = aggregate(ex, [s])
    row = agg["secrets"]["s"]
    assert row["L"] == 1.0 and row["reach@1"] == 1.0 and row["reach@0.5"] == 1.0
    assert row["t_star@0.5"] == 2 and row["t_star@1"] == 3
    own = agg["owners"]["0"]
    assert own["survival@1"] == (3 - 1) / 4 and own["survival@0.5"] == (2 - 1) / 4
    assert own["sec"] == -10 and own["weighted_leak"] == 1.0
    sp = agg["speakers"]
    assert sp["0"]["self@0.5"] == 1 and sp["1"]["propagation@1"] == 1  # 1 is in the audience


def test_unsourced_disclosure_is_not_attributed() -> None:
    s = SecretSpec(id="s", owner=0, kind="fact", aliases=["x"])
    ex = Exposure([s], 3)
    ex.update(msg(1, 2, {1}), [PairResult("s", 1.0)])
    assert aggregate(ex, [s])["speakers"]["2"]["unsourced@1"] == 1


def test_composite_needs_k_fragments_at_one_observer() -> None:
    a = SecretSpec(id="a", owner=0, kind="fact", aliases=["alpha"], audience=[1, 2])
    b = SecretSpec(id="b", owner=0, kind="fact", aliases=["beta"], audience=[1, 2])
    c = SecretSpec(id="c", owner=0, kind="composite", fragments=["a", "b"], k_of_n=2)
    ex = Exposure([a, b, c], 4)
    ex.update(msg(1, 0, {1}), [PairResult("a", 1.0)])
    ex.update(msg(2, 0, {2}), [PairResult("b", 1.0)])  # split over two recipients
    comp = aggregate(ex, [a, b, c])["secrets"]["c"]["composite"]["1"]
    assert comp["composite_leak"] == 0  # no single observer holds both fragments
    ex2 = Exposure([a, b, c], 4)
    ex2.update(msg(1, 0, {1}), [PairResult("a", 1.0)])
    assert aggregate(ex2, [a, b, c])["secrets"]["c"]["composite"]["1"]["composite_leak"] == 0
    ex2.update(msg(2, 0, {1}), [PairResult("b", 1.0)])
    got = aggregate(ex2, [a, b, c])["secrets"]["c"]["composite"]["1"]
    assert got["composite_leak"] == 1 and got["t_star"] == 2 and got["observers"] == [1]


def test_coalition_variant_finds_the_smallest_group() -> None:
    a = SecretSpec(id="a", owner=0, kind="fact", aliases=["alpha"])
    b = SecretSpec(id="b", owner=0, kind="fact", aliases=["beta"])
    c = SecretSpec(id="c", owner=0, kind="composite", fragments=["a", "b"])
    ex = Exposure([a, b, c], 3)
    ex.update(msg(1, 0, {1}), [PairResult("a", 1.0)])
    ex.update(msg(2, 0, {2}), [PairResult("b", 1.0)])
    comp = aggregate(ex, [a, b, c], coalitions=True)["secrets"]["c"]["composite"]["1"]
    assert comp["composite_leak"] == 0 and comp["smallest_coalition"] == [1, 2]


def test_audience_control() -> None:
    sec = [secret("s", aliases=["burnout clinic"], audience=[1])]
    line = "I was at a burnout clinic."
    private_ok = persona_log([(0, line, Visibility.private(0, 1))], sec)
    public = persona_log([(0, line, None)], sec)
    team_ok = persona_log([(0, line, Visibility.for_team("t", [0, 1]))], sec)
    L = [
        score_events(x, LEX, None)["privacy"]["secrets"]["s"]["L"]
        for x in (private_ok, public, team_ok)
    ]
    assert L == [0.0, 1.0, 0.0]


lines_st = st.lists(
    st.tuples(st.integers(0, 2), st.sampled_from(["I had a burnout clinic stay.", "Nice day.",
              "I owe 38k.", "I owe 40,000."]), st.sampled_from(["pub", "p01", "p02", "p12"])),
    min_size=1, max_size=8,
)  # fmt: skip
VIS = {"pub": None, "p01": Visibility.private(0, 1), "p02": Visibility.private(0, 2),
       "p12": Visibility.private(1, 2)}  # fmt: skip
SECS = [secret("c", aliases=["burnout clinic"], severity=4),
        secret("d", kind="number", value=38000, numeric={"cues": ["owe"]}),
        {"id": "k", "owner": 0, "kind": "composite", "fragments": ["c", "d"], "audience": []}]  # fmt: skip


def _score(lines):
    ev = persona_log([(s, t, VIS[v]) for s, t, v in lines], SECS)
    return score_events(ev, LEX, None)["privacy"]


@settings(max_examples=40, deadline=None)
@given(lines_st, st.integers(0, 2), st.sampled_from(["pub", "p01"]))
def test_bounds_and_monotonicity(lines, spk, vis) -> None:
    base = _score(lines)
    more = _score([*lines, (spk, "I owe 38k and had a burnout clinic stay.", vis)])
    for a, row in base["owners"].items():
        for k, v in row.items():
            if "rate" in k or "survival" in k or k == "weighted_leak":
                assert v is None or 0 <= v <= 1
        assert more["owners"][a]["weighted_leak"] >= row["weighted_leak"]
    for sid, row in base["secrets"].items():
        assert more["secrets"][sid]["L"] >= row["L"]
    k0 = base["secrets"]["k"]["composite"]["1"]["composite_leak"]
    assert more["secrets"]["k"]["composite"]["1"]["composite_leak"] >= k0


@settings(max_examples=25, deadline=None)
@given(lines_st)
def test_removing_recipients_never_adds_violations(lines) -> None:
    full = _score(lines)
    narrowed = _score([(s, t, "p01" if v == "pub" and s in (0, 1) else v) for s, t, v in lines])
    for sid in full["secrets"]:
        assert narrowed["secrets"][sid]["L"] <= full["secrets"][sid]["L"]


def test_renaming_agents_is_invariant() -> None:
    lines = [(0, "I owe 38k.", None), (1, "Nice.", None)]
    a = score_events(persona_log(lines, SECS[:2]), LEX, None)["privacy"]
    b = score_events(persona_log(lines, SECS[:2], names=("Xu", "Yan", "Zoe")), LEX, None)["privacy"]
    assert a["owners"] == b["owners"] and a["secrets"] == b["secrets"]


def timeline(*records: tuple[int, tuple[int, ...], bool]):  # type: ignore[no-untyped-def]
    """Knowledge of one fact (owner 0, kind side) recorded at each (seq, audience, public)."""
    from arena.events import Event
    from arena.facts import Knowledge

    events = [
        Event(type="ground_truth" if i == 0 else "facts", seq=seq, visibility=Visibility.god(),
              payload={"facts": [{"owner": 0, "kind": "side", "key": "side", "value": "wolves",
                                  "audience": list(aud), "public": pub}]})
        for i, (seq, aud, pub) in enumerate(records)
    ]  # fmt: skip
    return Knowledge(events)


def side_secret() -> SecretSpec:
    return SecretSpec(id="side:0", owner=0, kind="role", value="wolves", aliases=["x"],
                      fact="0:side:side")  # fmt: skip


def test_revealing_a_fact_before_learning_it_is_unsourced_after_it_propagation() -> None:
    s = side_secret()
    ex = Exposure([s], 4, timeline((1, (0,), False), (5, (0, 2), False)))  # 2 learns it at 5
    ex.update(msg(3, 2, {1}), [PairResult(s.id, 1.0)])  # a guess: 2 did not know yet
    ex.update(msg(6, 2, {3}), [PairResult(s.id, 1.0)])  # 2 knows now: it passes it on
    sp = aggregate(ex, [s])["speakers"]["2"]
    assert sp["unsourced@1"] == 1 and sp["propagation@1"] == 1


def test_what_a_seat_hears_after_it_was_told_is_no_leak_before_it_is() -> None:
    s = side_secret()
    ex = Exposure([s], 4, timeline((1, (0,), False), (5, (0, 2), False)))
    t1 = ex.update(msg(6, 0, {2}), [PairResult(s.id, 1.0)])  # 2 already knows
    assert t1.delta_w == 0.0 and aggregate(ex, [s])["secrets"][s.id]["L"] == 0.0
    t2 = ex.update(msg(7, 0, {1}), [PairResult(s.id, 1.0)])
    row = aggregate(ex, [s])["secrets"][s.id]
    assert t2.delta_w == s.severity and row["L"] == 1.0 and row["t_star@1"] == 7
    assert row["reach@1"] == 1 / 3  # U(s) = the seats not told at birth: 1, 2, 3
    # heard before being told: still a leak to 2
    ex2 = Exposure([s], 4, timeline((1, (0,), False), (5, (0, 2), False)))
    ex2.update(msg(3, 0, {2}), [PairResult(s.id, 1.0)])
    assert aggregate(ex2, [s])["secrets"][s.id]["L"] == 1.0


def test_saying_a_fact_that_is_already_public_leaks_nothing() -> None:
    s = side_secret()
    ex = Exposure([s], 4, timeline((1, (0,), False), (5, (0,), True)))
    turn = ex.update(msg(6, 0, {1, 2, 3}), [PairResult(s.id, 1.0)])
    agg = aggregate(ex, [s])
    assert turn.delta_w == 0.0 and turn.events == [] and agg["secrets"][s.id]["L"] == 0.0
    assert agg["speakers"]["0"]["self@1"] == 0
    before = Exposure([s], 4, timeline((1, (0,), False), (5, (0,), True)))
    before.update(msg(4, 0, {1}), [PairResult(s.id, 1.0)])  # said before the reveal: a leak
    assert aggregate(before, [s])["secrets"][s.id]["L"] == 1.0
