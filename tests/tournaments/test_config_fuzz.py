"""A config fuzzer: any mutation of the example configs gives exit 0, or exit 2 with a message.

Never a traceback, never another exit code, never a partial run directory (issue 15). Each
example (``tournaments/examples/*.yaml``, those without LLM entries) is mutated at random
places — a value replaced by one of another type or an extreme one, a key removed, an unknown
key added, a value moved from elsewhere in the document — and given to ``arena run``:

* ``--check`` (validate and plan, write nothing) for most examples;
* a real run, bounded by ``--matches 1 --max-planned 8``: exit 0 must leave a complete run
  directory, exit 2 none at all.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.cli import main
from app.commands.runs import run_status

EXAMPLES_DIR = Path(__file__).parents[2] / "tournaments" / "examples"


def _examples() -> dict[str, dict[str, Any]]:
    out = {}
    for path in sorted(EXAMPLES_DIR.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        if not any(a.get("kind") == "llm" for a in doc.get("agents", [])):
            out[path.stem] = doc
    return out


EXAMPLES = _examples()

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 12),
    st.sampled_from([0, -1, 2**31, 10**6, 10**9, -(10**12), 2**64]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(
        ["../x", "a/b", "..", "", "pairs", "random", "rule", "by_team", "gauntlet", "\x1b[2J", "é"]
    ),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)


def paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in the document: the keys of mappings and the indices of lists."""
    out = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            out += paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out += paths(value, (*prefix, i))
    return out


def get(doc: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        doc = doc[part]
    return doc


def strings(node: Any) -> list[str]:
    """The strings of a document (names, kinds, modes): plausible values elsewhere."""
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for k, v in node.items() for s in [k, *strings(v)] if isinstance(s, str)]
    if isinstance(node, list):
        return [s for v in node for s in strings(v)]
    return []


@st.composite
def mutated(draw: st.DrawFn, names: list[str], gentle: bool = False) -> tuple[str, dict[str, Any]]:
    """An example with 1-3 mutations; ``gentle``: one, with plausible values (small numbers,
    the document's own strings), so that many mutants are valid configs that really run."""
    name = draw(st.sampled_from(names))
    doc = copy.deepcopy(EXAMPLES[name])
    values = (
        st.one_of(st.integers(0, 4), st.booleans(), st.sampled_from(sorted(set(strings(doc)))))
        if gentle
        else VALUES
    )
    ops = ["replace", "replace", "delete", "add_key", "move"]
    for _ in range(1 if gentle else draw(st.integers(1, 3))):
        places = paths(doc)
        path = draw(st.sampled_from(places))
        op = draw(st.sampled_from(ops))
        if not path and op in ("replace", "delete", "move"):
            op = "add_key"
        if op == "add_key":
            target = get(doc, path)
            if isinstance(target, dict):
                key = draw(st.sampled_from(strings(doc)) if gentle else st.text(max_size=8))
                target[key] = draw(values)
            elif isinstance(target, list):
                target.append(draw(values))
            continue
        parent, last = get(doc, path[:-1]), path[-1]
        if op == "delete":
            del parent[last]
        elif op == "replace":
            parent[last] = draw(values)
        else:  # a value from elsewhere in the document
            source = draw(st.sampled_from(places))
            parent[last] = copy.deepcopy(get(doc, source))
    return name, doc


def run_cli(tmp: Path, doc: dict[str, Any], *extra: str) -> tuple[int, Path]:
    """``arena run`` on ``doc`` with its output under ``tmp``: (exit code, output directory)."""
    tmp.mkdir(parents=True, exist_ok=True)
    path = tmp / "config.yaml"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    out = tmp / "runs"
    args = ["run", str(path), "--output", str(out), "--no-broker", "--no-metrics", "--quiet"]
    return main([*args, *extra]), out


def check_outcome(code: int, capsys: pytest.CaptureFixture[str], out: Path) -> None:
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    assert code in (0, 2), (code, captured.err[-2000:])
    if code == 2:
        lines = [line for line in captured.err.splitlines() if line.strip()]
        assert lines and all(line.startswith("error: ") for line in lines), captured.err
        assert not out.exists(), sorted(p.name for p in out.rglob("*"))


FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@FUZZ
@given(case=st.booleans().flatmap(lambda gentle: mutated(sorted(EXAMPLES), gentle)))
def test_a_mutated_example_is_valid_or_one_clear_error(
    case: tuple[str, dict[str, Any]], tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    tmp = tmp_path_factory.mktemp("check")
    code, out = run_cli(tmp, case[1], "--check")
    check_outcome(code, capsys, out)
    assert not out.exists()  # --check writes nothing, valid or not


QUICK = [n for n in sorted(EXAMPLES) if n != "werewolf_rating_driven"]


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(case=mutated(QUICK, gentle=True))
def test_a_mutated_example_runs_completely_or_writes_nothing(
    case: tuple[str, dict[str, Any]], tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    tmp = tmp_path_factory.mktemp("run")
    code, out = run_cli(tmp, case[1], "--matches", "1", "--max-planned", "8")
    check_outcome(code, capsys, out)
    if code == 0:
        (run_dir,) = list(out.iterdir())
        status = run_status(run_dir)
        assert status is not None and status["status"] == "complete", status
        assert status["done"] == status["planned"] > 0


def test_the_examples_themselves_pass() -> None:
    assert len(EXAMPLES) >= 8
    for name in EXAMPLES:
        assert main(["run", str(EXAMPLES_DIR / f"{name}.yaml"), "--check"]) == 0, name


def test_what_the_fuzzer_found_stays_fixed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each was a traceback: a preset that is not a name; by_team seating without an entry
    for one of the teams (a KeyError while planning); a run whose only entry plays every seat
    (its leaderboard divided by a zero spread)."""
    ww = EXAMPLES["werewolf_bots"]
    code, out = run_cli(tmp_path / "a", {**ww, "rules": {"preset": []}}, "--check")
    check_outcome(code, capsys, out)
    assert code == 2
    vs = EXAMPLES["werewolf_village_vs_wolves"]
    code, out = run_cli(tmp_path / "b", {**vs, "teams": {"wolves": "random-wolves"}}, "--check")
    assert code == 2 and "teams: no entry for team(s) ['village']" in capsys.readouterr().err
    alone = {**EXAMPLES["avalon_bots"], "agents": [{"name": "random", "kind": "avalon.random"}]}
    code, out = run_cli(tmp_path / "c", alone, "--matches", "2")
    check_outcome(code, capsys, out)
    assert code == 0
