"""The ledger's per-phase wall time and its carry-over into a resumed session; the dry-run
estimate's reflection calls."""

from __future__ import annotations

import time

import pytest

from tournaments.selfplay.budget import Ledger, estimate
from tournaments.selfplay.config import Budget, Limits


def test_timed_counts_the_blocks_wall_time_into_its_phase_even_when_it_raises() -> None:
    ledger = Ledger(Budget())
    with ledger.timed("gate"):
        time.sleep(0.02)
    with pytest.raises(RuntimeError), ledger.timed("gate"):
        time.sleep(0.02)
        raise RuntimeError("boom")
    assert ledger.phases["gate"].wall_s >= 0.04
    assert ledger.phases["play"].wall_s == 0.0
    assert ledger.as_dict()["phases"]["gate"]["wall_s"] >= 0.04


def test_a_phase_wall_cap_stops_admission_of_that_phase() -> None:
    ledger = Ledger(Budget(per_phase={"gate": Limits(wall_s=0.01)}))
    assert ledger.admit("gate")
    with ledger.timed("gate"):
        time.sleep(0.02)
    assert ledger.admit("play")  # another phase's cap
    assert ledger.admit("gate") is False
    assert ledger.stopped == "budget: gate.wall_s"
    assert ledger.admit("play") is False  # a hit cap stops the whole run, cleanly


def test_resume_from_carries_the_wall_time_of_earlier_sessions() -> None:
    first = Ledger(Budget())
    first.phases["play"].wall_s = 12.5
    first.phases["reflect"].wall_s = 3.0
    first.phases["play"].games = 40  # recounted from disk on a resume: not carried
    doc = first.as_dict()
    second = Ledger(Budget())
    second.resume_from(doc)
    assert second.phases["play"].wall_s == pytest.approx(12.5)
    assert second.phases["reflect"].wall_s == pytest.approx(3.0)
    assert second.phases["play"].games == 0
    assert second.total().wall_s >= doc["total"]["wall_s"]


def test_a_finished_ledgers_wall_time_stops_growing() -> None:
    ledger = Ledger(Budget())
    time.sleep(0.01)
    ledger.finish()
    done = ledger.as_dict()["total"]["wall_s"]
    assert done >= 0.01
    time.sleep(0.01)
    ledger.finish()  # a second call keeps the first end
    assert ledger.as_dict()["total"]["wall_s"] == done  # (rounded there)
    assert ledger.wall_s() == ledger.wall_s()


def test_the_estimate_counts_no_llm_call_for_a_scripted_reflector() -> None:
    args = (4, 1, 3, 4, 6, 10, 0, 12.0, 0.5)  # population 4, 1 elite, 3 generations, 4 train
    scripted = estimate(*args, llm_reflector=False)
    model = estimate(*args, llm_reflector=True)
    assert scripted["reflections"] == model["reflections"] == (4 - 1) * 3
    assert scripted["reflect_calls"] == 0
    assert model["reflect_calls"] == 9 * 4  # one call per train game a reflection reads
    assert model["total_llm_calls"] == scripted["total_llm_calls"] + 36
