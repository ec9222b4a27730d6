"""Config files are read with limits: size, alias expansion, depth, self-reference."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from arena.configfile import parse_yaml, read_yaml_mapping
from arena.errors import ConfigError


def bomb(levels: int, width: int = 9) -> str:
    lines = [f"a0: &a0 [{', '.join(['x'] * width)}]"]
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


def test_an_alias_bomb_is_refused_without_expanding_it(monkeypatch: pytest.MonkeyPatch) -> None:
    def construct(*args: object) -> None:
        raise AssertionError("the document was built: the bomb was expanded")

    # refused from the node graph alone: nothing is built (9^12 values would never finish)
    monkeypatch.setattr(yaml.SafeLoader, "construct_document", construct)
    with pytest.raises(ConfigError, match="expands to more than 100,000 values"):
        parse_yaml(bomb(12))


def test_aliases_within_the_limit_load() -> None:
    data = parse_yaml("base: &b {x: 1}\nuse: [*b, *b]\n")
    assert data == {"base": {"x": 1}, "use": [{"x": 1}, {"x": 1}]}
    assert parse_yaml(bomb(3)) is not None  # 9 + 81 + 729 values


def test_a_recursive_alias_is_refused() -> None:
    with pytest.raises(ConfigError, match="refers to itself"):
        parse_yaml("a: &a [1, *a]\n")


def test_deep_nesting_is_refused() -> None:
    with pytest.raises(ConfigError, match="nests deeper than 64"):
        parse_yaml("x: " + "[" * 100 + "]" * 100 + "\n")
    with pytest.raises(ConfigError, match="nests deeper"):
        parse_yaml("x: " + "[" * 5000 + "]" * 5000 + "\n")  # deeper than Python's stack


def test_file_problems_are_one_line_naming_the_file(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("a: " + "x" * 1_000_001 + "\n")
    with pytest.raises(ConfigError, match="larger than 1,000,000 bytes") as info:
        read_yaml_mapping(big)
    assert info.value.problems[0].startswith(str(big))
    bad = tmp_path / "bad.yaml"
    bad.write_text("a: [1, 2\nb: 3\n")
    with pytest.raises(ConfigError) as info:
        read_yaml_mapping(bad)
    assert len(info.value.problems) == 1 and "\n" not in info.value.problems[0]
    assert "not valid YAML (line" in info.value.problems[0]
    for text, needle in [("- 1\n- 2\n", "must be a mapping"), ("1: x\n", "keys must be names")]:
        bad.write_text(text)
        with pytest.raises(ConfigError, match=needle):
            read_yaml_mapping(bad)
    bad.write_bytes(b"a: \xff\xfe\n")
    with pytest.raises(ConfigError, match="cannot read"):
        read_yaml_mapping(bad)
    with pytest.raises(ConfigError, match="expected a single document"):
        parse_yaml("a: 1\n---\nb: 2\n")


def test_every_top_level_key_that_is_no_name_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "keys.yaml"
    path.write_text("1: a\nname: ok\n2.5: b\nnull: c\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        read_yaml_mapping(path)
    assert len(info.value.problems) == 3
    assert all("top-level keys must be names" in p for p in info.value.problems)
