"""The documentation stands alone: it cites nothing outside the repository, every config it
names is a shipped file that passes ``arena run CONFIG --check``'s validation, and README's
command table is the CLI's real list of commands."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.cli import build_parser
from arena.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["app", "arena", "bench", "games", "personas", "tournaments", "tui"]
TEXT_SUFFIXES = {".py", ".md", ".yaml", ".yml", ".toml", ".txt", ".json"}

# A config path as the docs write it: a shipped example, relative to the repository root.
CONFIG_PATH = re.compile(r"(?:tournaments|docs)/examples/[\w./*-]+\.ya?ml")
# A README command-table row starts with the command in backticks: | `arena NAME ...` |
TABLE_COMMAND = re.compile(r"^\|\s*`arena ([a-z][\w-]*)")


def doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def package_files() -> list[Path]:
    out: list[Path] = []
    for package in PACKAGES:
        out += [
            p
            for p in sorted((ROOT / package).rglob("*"))
            if p.is_file() and p.suffix in TEXT_SUFFIXES and "__pycache__" not in p.parts
        ]
    return out


def test_nothing_cites_files_outside_the_repository() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in doc_files() + package_files()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "shared/" in line
    ]
    assert found == [], "references to shared/ (not in the repository):\n" + "\n".join(found)


def test_docs_are_guides_not_development_logs() -> None:
    """Issue numbers and spec section marks point at things a reader of the repository
    cannot see; measurement history belongs in docs/benchmarks.md."""
    pattern = re.compile(r"\bissues? #?\d+|§|\bthe spec\b", re.IGNORECASE)
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in doc_files()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == [], "issue numbers or spec references in the docs:\n" + "\n".join(found)


def named_configs() -> list[str]:
    names: set[str] = set()
    for path in doc_files():
        names.update(CONFIG_PATH.findall(path.read_text(encoding="utf-8")))
    return sorted(names)


def check_config(path: Path) -> None:
    """What ``arena run CONFIG --check`` (``arena selfplay CONFIG`` for a self-play config)
    validates before its backend preflight: the config loads and its plan is made."""
    if "selfplay" in path.parts:
        from tournaments.selfplay import config as spconfig

        spconfig.load(path)
        return
    from tournaments import config as tconfig
    from tournaments.schedule import plan

    config = tconfig.load(path)
    assert plan(config) or tconfig.planned_matches(config) > 0, f"{path}: nothing planned"


def test_the_docs_name_configs() -> None:
    """The check below is not vacuous: the guides do point at shipped configs."""
    assert len(named_configs()) >= 5, named_configs()


@pytest.mark.parametrize("name", named_configs())
def test_every_config_the_docs_name_is_shipped_and_valid(name: str) -> None:
    paths = sorted(ROOT.glob(name)) if "*" in name else [ROOT / name]
    assert paths, f"{name}: matches no file"
    for path in paths:
        assert path.is_file(), f"{name}: no such file"
        try:
            check_config(path)
        except ConfigError as err:
            pytest.fail(f"{name}: " + "; ".join(err.problems))


def included_blocks() -> list[tuple[str, str, str]]:
    """(page, path, block) for each YAML block of the docs whose first line names a shipped
    file (``# tournaments/examples/....yaml``): the page shows that file."""
    out: list[tuple[str, str, str]] = []
    for page in doc_files():
        text = page.read_text(encoding="utf-8")
        for block in re.findall(r"```ya?ml\n(.*?)```", text, flags=re.DOTALL):
            first, _, rest = block.partition("\n")
            match = CONFIG_PATH.fullmatch(first.removeprefix("#").strip())
            if match:
                out.append((str(page.relative_to(ROOT)), match.group(0), rest))
    return out


def without_leading_comments(text: str) -> str:
    lines = text.splitlines(keepends=True)
    while lines and lines[0].startswith("#"):
        lines.pop(0)
    return "".join(lines)


def test_a_config_shown_in_the_docs_is_the_shipped_file() -> None:
    blocks = included_blocks()
    assert blocks, "no docs page shows a shipped config"
    for page, name, block in blocks:
        shipped = without_leading_comments((ROOT / name).read_text(encoding="utf-8"))
        assert without_leading_comments(block) == shipped, f"{page}: its copy of {name} differs"


# A command that takes a config file, as the docs write one: `arena run [--flag ...] NAME.yaml`.
CONFIG_COMMAND = re.compile(
    r"arena (?:run|play|selfplay|agents test)(?: --?[a-z-]+)* ([\w./-]+\.ya?ml)"
)


def test_every_config_a_command_names_is_shipped_or_a_placeholder() -> None:
    """`arena run ww.yaml` with no ww.yaml anywhere is an example nobody can run. A config
    name is an upper-case placeholder (CONFIG.yaml), a shipped file, or written earlier on the
    same line (`... > champ.yaml && arena run champ.yaml`)."""
    found = []
    for page in doc_files():
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            for match in CONFIG_COMMAND.finditer(line):
                name = match.group(1)
                stem = Path(name).stem
                written = f"> {name}" in line[: match.start()]
                if stem.isupper() or written or (ROOT / name).is_file():
                    continue
                found.append(f"{page.relative_to(ROOT)}:{n}: {name}")
    assert found == [], "commands naming configs that are not shipped:\n" + "\n".join(found)


def readme_table_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Commands", 1)[1].split("\n## ", 1)[0]
    commands: list[str] = []
    for line in section.splitlines():
        match = TABLE_COMMAND.match(line)
        if match:
            commands.append(match.group(1))
            # a row may name several commands: `arena runs`, `arena show MATCH_ID`, ...
            commands += re.findall(r"`arena ([a-z][\w-]*)", line)[1:]
    return commands


def cli_commands() -> set[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return set(sub.choices)  # type: ignore[arg-type]


def test_readme_command_table_lists_exactly_the_cli_commands() -> None:
    table = readme_table_commands()
    real = cli_commands()
    assert sorted(set(table) - real) == [], "README names commands the CLI does not have"
    assert sorted(real - set(table)) == [], "CLI commands missing from README's command table"


FULL_HASH = re.compile(r"(?:prompt hash(?:es)?|prompt\.hash)[:\s]+[0-9a-f]{12,}")


def test_docs_show_no_full_prompt_hash() -> None:
    """A prompt hash covers whole template and renderer modules, so it changes with any
    release that edits them: a page shows it shortened (``278a…``) and says so, never as a
    value a reader's run would be expected to print."""
    found = [
        f"{path.relative_to(ROOT)}: {m.group(0)}"
        for path in doc_files()
        for m in FULL_HASH.finditer(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_served_example_asks_for_the_model_arena_serve_serves() -> None:
    """docs/llm.md's worked example: the agent's backend names the model and address that the
    `arena serve` command shown beside it serves (a wrong name is refused by the server)."""
    from app.commands.serve import served_name
    from tournaments import config as tconfig

    text = (ROOT / "docs" / "llm.md").read_text(encoding="utf-8")
    command = re.search(r"^\$ arena serve --engine (\w+) --port (\d+)$", text, flags=re.M)
    assert command is not None, "the worked example starts a server"
    engine, port = command.groups()
    config = tconfig.load(ROOT / "tournaments/examples/dond_served.yaml")
    from arena.agents.llm_params import LLMAgentParams

    params = config.entry("smollm2").params
    assert isinstance(params, LLMAgentParams)  # typed when the config loads
    backend = params.backend
    url = f"http://127.0.0.1:{port}/v1"
    assert backend.model == served_name(engine, None) and backend.base_url == url
    assert f"arena serve: {engine} model '{backend.model}' on {url}" in text
