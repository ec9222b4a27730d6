"""Schema round-trips, the shipped library, and bad input naming file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from app.cli import main as arena_main
from personas.loader import LibraryError, load_library, load_paths
from personas.schema import Persona, Scenario, dump

LIB = load_library()


def test_shipped_library_validates_with_enough_cards_and_kinds() -> None:
    lib, problems = load_paths([Path("personas/library")])
    assert problems == []
    assert len(lib.personas) >= 40 and len(lib.scenarios) >= 20
    kinds = {s.kind for s in lib.scenarios.values()}
    assert {
        "negotiation",
        "workplace",
        "family_secret",
        "job_interview",
        "support",
        "planning",
    } <= kinds
    assert any(len(s.characters) == 4 for s in lib.scenarios.values() if s.kind == "planning")


@pytest.mark.parametrize("pid", sorted(LIB.personas))
def test_persona_round_trips_through_yaml(pid: str) -> None:
    card = LIB.personas[pid]
    assert Persona.model_validate(yaml.safe_load(yaml.safe_dump(dump(card)))) == card


@pytest.mark.parametrize("sid", sorted(LIB.scenarios))
def test_scenario_round_trips_through_yaml(sid: str) -> None:
    sc = LIB.scenarios[sid]
    assert Scenario.model_validate(yaml.safe_load(yaml.safe_dump(dump(sc)))) == sc


def _write(tmp: Path, rel: str, text: str) -> Path:
    p = tmp / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


CARD = "id: {id}\nname: {name}\nage: 30\n"


def test_unknown_field_names_file_line_and_field(tmp_path: Path) -> None:
    _write(tmp_path, "personas/a.yaml", CARD.format(id="a", name="A A") + "hobby: chess\n")
    _, problems = load_paths([tmp_path])
    assert [str(p) for p in problems] == [f"{tmp_path}/personas/a.yaml:4: hobby: unknown field"]


def test_duplicate_ids_and_names_are_reported(tmp_path: Path) -> None:
    _write(tmp_path, "personas/a.yaml", CARD.format(id="a", name="Same Name"))
    _write(tmp_path, "personas/b.yaml", "- {id: a, name: Other}\n- {id: c, name: Same Name}\n")
    _, problems = load_paths([tmp_path])
    msgs = [str(p) for p in problems]
    assert any("b.yaml:1: [0].id: duplicate persona id 'a'" in m for m in msgs)
    assert any("b.yaml:2: persona c: name: duplicate name 'Same Name' (also a)" in m for m in msgs)


def test_secret_audience_naming_missing_character_is_reported(tmp_path: Path) -> None:
    text = CARD.format(id="a", name="A A") + (
        "secrets:\n  - id: a.s\n    kind: fact\n    text: something\n    audience: [ghost]\n"
    )
    _write(tmp_path, "personas/a.yaml", text)
    _, problems = load_paths([tmp_path])
    assert [str(p).split(": ", 1)[1] for p in problems] == [
        "persona a: secrets.0.audience.0: unknown character 'ghost'"
    ]
    assert problems[0].line == 8


def test_scenario_with_missing_persona_and_bad_references(tmp_path: Path) -> None:
    _write(tmp_path, "personas/a.yaml", CARD.format(id="a", name="A A"))
    _write(tmp_path, "personas/b.yaml", CARD.format(id="b", name="B B"))
    _write(tmp_path, "scenarios/s.yaml", (
        "id: s\ntitle: t\nsetting: {place: p, time: t, situation: s}\ncharacters: [a, b]\n"
        "goals:\n  a: {text: win, predicate: {agreed: {id: nope, by: [b]}}}\n"
        "extra_secrets:\n  b:\n    - {id: b.x, kind: fact, text: hidden, audience: [zed]}\n"
    ))  # fmt: skip
    _write(tmp_path, "scenarios/t.yaml", (
        "id: t\ntitle: t\nsetting: {place: p, time: t, situation: s}\ncharacters: [a, ghost]\n"
    ))  # fmt: skip
    _, problems = load_paths([tmp_path])
    msgs = sorted(str(p).removeprefix(str(tmp_path) + "/") for p in problems)
    assert msgs == [
        "scenarios/s.yaml:6: scenario s: goals.a.predicate.agreed.id: unknown proposition 'nope'",
        "scenarios/s.yaml:9: scenario s: extra_secrets.b.0.audience.0: unknown character 'zed'",
        "scenarios/t.yaml:4: scenario t: characters.1: unknown persona 'ghost'",
    ]


def test_load_library_raises_with_every_problem(tmp_path: Path) -> None:
    _write(tmp_path, "personas/a.yaml", "id: A!\nname: x\n")
    with pytest.raises(LibraryError) as err:
        load_library(tmp_path)
    assert "a.yaml:1: id:" in str(err.value)


def test_cli_list_show_validate(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert arena_main(["personas", "list"]) == 0
    assert "bakery-loan" in capsys.readouterr().out
    assert arena_main(["personas", "show", "Lena Vogt"]) == 0
    assert "occupation: baker" in capsys.readouterr().out
    assert arena_main(["personas", "validate"]) == 0
    assert capsys.readouterr().out.startswith("ok:")
    bad = _write(tmp_path, "personas/a.yaml", CARD.format(id="a", name="A A") + "colour: red\n")
    assert arena_main(["personas", "validate", str(bad)]) == 2
    assert f"{bad}:4: colour: unknown field" in capsys.readouterr().out
