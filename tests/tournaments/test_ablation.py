"""The units an ablation measures seat the entry whose memory is ablated."""

from __future__ import annotations

from tournaments import config as tconfig
from tournaments.ablation import ablation_units


def test_every_unit_seats_the_ablated_entry_even_when_the_plan_has_tables_without_it() -> None:
    cfg = tconfig.parse(
        {
            "game": "toy",
            "rules": {"n_players": 2},
            "agents": [{"name": n, "kind": "random"} for n in ("a", "b", "c", "mem")],
            "matches": 4,
        }
    )
    units = ablation_units(cfg, {"mem"}, 10)
    assert len(units) == 10 and all("mem" in s.seats for s in units)
    assert {frozenset(s.seats) for s in units} == {
        frozenset({"a", "mem"}),
        frozenset({"b", "mem"}),
        frozenset({"c", "mem"}),
    }
    assert len(ablation_units(cfg, {"mem"}, None)) == 12  # every table of mem, 4 games each
