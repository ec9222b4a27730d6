"""TrueSkill leaderboard: factions as teams, deterministic folding."""

from __future__ import annotations

import random

from arena.ratings.leaderboard import leaderboard
from arena.results import MatchResult, SeatResult
from tests.builders import head_to_heads, rated_match, team_match


def test_the_stronger_entry_ranks_first_with_shrinking_sigma() -> None:
    rng = random.Random(0)
    results = []
    for i in range(60):
        strong_wins = rng.random() < 0.8
        results.append(
            rated_match(i, "strong", "weak") if strong_wins else rated_match(i, "weak", "strong")
        )
    rows = leaderboard(results)
    assert [r.agent for r in rows] == ["strong", "weak"]
    assert rows[0].mu > 25 > rows[1].mu and rows[0].sigma < 25 / 3
    assert rows[0].games == 60 and abs(rows[0].win_rate - rows[0].wins / 60) < 1e-4


def test_folding_order_is_by_match_not_by_completion() -> None:
    results = [rated_match(i, "a" if i % 3 else "b", "b" if i % 3 else "a") for i in range(30)]
    shuffled = results[:]
    random.Random(1).shuffle(shuffled)
    assert leaderboard(results) == leaderboard(shuffled)


def test_draws_count_half_and_errored_matches_are_ignored() -> None:
    results = [rated_match(0, "a", "b", draw=True), rated_match(1, "a", "b")]
    results.append(
        results[1].model_copy(update={"match_id": "m999", "index": 999, "status": "errored"})
    )
    rows = {r.agent: r for r in leaderboard(results)}
    assert rows["a"].games == 2 and rows["a"].draws == 1 and rows["a"].win_rate == 0.75


def test_a_forfeit_is_a_loss_for_the_forfeiting_team() -> None:
    forfeit = rated_match(0, "a", "b").model_copy(update={"status": "forfeited", "winners": []})
    forfeit.seats[0].reward, forfeit.seats[1].reward = -1.0, 0.0  # seat 0 (a) forfeited
    rows = {r.agent: r for r in leaderboard([forfeit])}
    assert rows["a"].losses == 1 and rows["b"].wins == 1 and rows["b"].mu > rows["a"].mu


def test_unequal_factions_do_not_drag_equal_entries_down() -> None:
    """Six villagers vs two wolves, wolves winning 60%: equal entries stay near the prior."""
    from arena.ratings.leaderboard import rate

    rng = random.Random(3)
    results = []
    for i in range(300):
        agents = ["a", "b"] * 4
        rng.shuffle(agents)
        wolves_win = rng.random() < 0.6
        seats = []
        for seat, agent in enumerate(agents):
            team = "wolves" if seat < 2 else "village"
            won = (team == "wolves") == wolves_win
            seats.append(
                SeatResult(
                    seat=seat,
                    name=f"P{seat}",
                    agent=agent,
                    team=team,
                    role=team,
                    reward=1.0 if won else -1.0,
                    result="win" if won else "loss",
                )
            )
        results.append(
            MatchResult(
                match_id=f"m{i:03d}",
                game="ww",
                seed=i,
                index=i,
                status="finished",
                outcome="x",
                winners=["wolves" if wolves_win else "village"],
                seats=seats,
            )
        )
    ratings = rate(results)
    assert abs(ratings["a"].mu - 25) < 3 and abs(ratings["b"].mu - 25) < 3
    assert ratings["side:ww:wolves"].mu > ratings["side:ww:village"].mu
    assert {r.agent for r in leaderboard(results)} == {"a", "b"}  # sides are hidden


# -- per-role / per-faction tables, history, CIs, population measures ------------------------


def test_role_and_faction_tables_key_entries_by_role_and_side() -> None:
    from arena.ratings.leaderboard import rate

    results = head_to_heads(40, 0.8)
    roles = rate(results, "role")
    factions = rate(results, "faction")
    assert {k for k in roles if not k.startswith("side:")} == {
        "a@captain",
        "a@crew",
        "b@captain",
        "b@crew",
    }
    assert {k for k in factions if not k.startswith("side:")} == {
        "a@red",
        "a@blue",
        "b@red",
        "b@blue",
    }
    assert roles["a@captain"].mu > roles["b@captain"].mu
    rows = {r.agent: r for r in leaderboard(results, detail=True)}
    assert (
        set(rows["a"].roles) == {"captain", "crew"}
        and rows["a"].roles["captain"] > rows["b"].roles["captain"]
    )


def test_rating_history_has_a_point_per_player_per_match_in_fold_order() -> None:
    from arena.ratings.leaderboard import history, rate

    results = head_to_heads(12, 0.7)
    points = history(results)
    assert len(points) == 24 and [p.index for p in points] == sorted(p.index for p in points)
    last = {p.player: p for p in points}
    final = rate(results)
    assert (
        abs(last["a"].mu - final["a"].mu) < 1e-3 and abs(last["b"].sigma - final["b"].sigma) < 1e-3
    )


def test_win_rate_ci_is_a_seeded_cluster_bootstrap_that_contains_the_estimate() -> None:
    results = head_to_heads(60, 0.7)
    one = leaderboard(results, detail=True, seed=3)
    assert one == leaderboard(results, detail=True, seed=3)
    a = next(r for r in one if r.agent == "a")
    assert a.wr_ci == "bootstrap"  # two seats per match: clustered by match
    assert a.wr_low < a.win_rate < a.wr_high and a.wr_high - a.wr_low > 0.1
    assert a.side_balanced_wr is not None and 0 <= a.side_balanced_wr <= 1
    # one seat per match and no draws: the closed-form Wilson interval
    solo = [rated_match(i, "x", "y") if i % 4 else rated_match(i, "y", "x") for i in range(40)]
    x = next(r for r in leaderboard(solo, detail=True) if r.agent == "x")
    from arena.stats import wilson

    assert x.wr_ci == "wilson" and (x.wr_low, x.wr_high) == tuple(
        round(v, 4) for v in wilson(30, 40)
    )


def test_cross_table_population_return_exploitability_and_aggregate() -> None:
    from arena.ratings.leaderboard import report

    # a beats b 3:1, b beats c 3:1, c beats a 3:1 (a cycle), each 20 games with sides swapped
    results = []
    for x, y, base in (("a", "b", 0), ("b", "c", 100), ("c", "a", 200)):
        for i in range(20):
            x_wins = i % 4 != 3
            red, blue = ([x, x], [y, y]) if i % 2 == 0 else ([y, y], [x, x])
            red_wins = x_wins if red[0] == x else not x_wins
            results.append(team_match(base + i, red, blue, red_wins))
    doc = report(results, seed=1, bootstrap=500)
    pop = doc["population"]
    assert pop["table"]["a"]["b"]["mean"] == 0.5 and pop["table"]["b"]["a"]["mean"] == -0.5
    assert pop["table"]["a"]["b"]["games"] == 20
    sc = pop["scores"]["a"]
    assert (
        sc["pr"] == 0.0 and sc["wpe"] == 0.5 and sc["exploiter"] == "c" and sc["aggregate"] == -0.5
    )
    assert sc["pr_ci"][0] < 0 < sc["pr_ci"][1]
    row = next(r for r in doc["rows"] if r["agent"] == "a")
    assert row["pr"] == 0.0 and row["wpe"] == 0.5 and row["aggregate"] == -0.5


def test_rse_and_ranking_stability_across_repeats() -> None:
    from arena.ratings.leaderboard import report
    from arena.stats import rse

    assert (
        rse([0.5, 0.7]) is not None and abs(rse([0.5, 0.7]) - 0.1414 / (2**0.5 * 0.6) * 100) < 0.01
    )
    assert rse([0.0, 0.0]) is None and rse([0.4]) is None
    results = head_to_heads(30, 0.8, seed=1, repeat=0) + head_to_heads(30, 0.8, seed=2, repeat=1)
    doc = report(results, bootstrap=200)
    assert doc["repeats"] == 2 and doc["ranking_stability_tau"] == 1.0
    assert all(r["rse"] is not None and r["rse"] >= 0 for r in doc["rows"])


def test_identical_results_give_an_identical_report_whatever_their_order() -> None:
    import json

    from arena.ratings.leaderboard import report

    results = head_to_heads(50, 0.6) + [rated_match(900 + i, "a", "c") for i in range(5)]
    shuffled = results[:]
    random.Random(9).shuffle(shuffled)
    one = json.dumps(report(results, seed=4, bootstrap=300), sort_keys=True)
    assert one == json.dumps(report(shuffled, seed=4, bootstrap=300), sort_keys=True)


def test_frozen_entries_anchor_the_scale() -> None:
    from arena.ratings.leaderboard import rate

    ratings = rate(head_to_heads(30, 0.8), freeze=["b"])
    assert ratings["b"].mu == 25.0 and ratings["b"].sigma == 25.0 / 3 and ratings["a"].mu > 25


def test_kendall_tau() -> None:
    from arena.stats import kendall_tau, mean_pairwise_tau

    assert kendall_tau(list("abcde"), list("abcde")) == 1.0
    assert kendall_tau(list("abcde"), list("edcba")) == -1.0
    assert kendall_tau(list("abcde"), list("bacde")) == 0.8
    assert mean_pairwise_tau([list("abc"), list("abc"), list("acb")]) == (1 + 1 / 3 + 1 / 3) / 3


def test_frozen_keys_are_anchors_and_no_rank_prints_outside_its_interval() -> None:
    """A gauntlet board as ``ratings.freeze`` gave it: three anchors held at the prior, one
    candidate that beats one and loses to two. Anchors get neither rank nor intervals (they
    were alphabetical ranks 1/2/3 with [1, 1]); the candidate's rank lies in its interval."""
    refs = ["ref-a", "ref-b", "ref-c"]
    results = []
    for i in range(12):
        ref = refs[i % 3]
        results.append(
            rated_match(i, "mine", ref) if ref == "ref-c" else rated_match(i, ref, "mine")
        )
    rows = leaderboard(results, detail=True, seed=1, bootstrap=200, freeze=refs)
    anchors = [r for r in rows if r.anchor]
    assert sorted(r.agent for r in anchors) == refs
    assert all(r.rank is None and r.rank_low is None and r.mu_low is None for r in anchors)
    (mine,) = [r for r in rows if not r.anchor]
    assert mine.rank == 1 and mine.rank_low is not None and mine.rank_high is not None
    assert mine.rank_low <= mine.rank <= mine.rank_high


def test_tied_entries_share_a_rank_inside_their_intervals() -> None:
    """Equal records, equal μ: tied rows share the rank the resamples give them (not 1, 2, 3
    by name), and every rank lies inside its own interval."""
    names = ["a", "b", "c", "d"]
    results = [
        rated_match(i, names[i % 4], names[(i + 1) % 4], draw=(i // 4) % 2 == 1) for i in range(32)
    ]
    rows = leaderboard(results, detail=True, seed=3, bootstrap=300)
    for r in rows:
        assert r.rank is not None and r.rank_low is not None and r.rank_high is not None
        assert r.rank_low <= r.rank <= r.rank_high, r
    mus = {r.agent: r.mu for r in rows}
    for r in rows:
        assert r.rank == 1 + sum(m > r.mu for m in mus.values())
