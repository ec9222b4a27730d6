"""Reading a YAML config file with limits: a config is small, so anything huge is refused.

``yaml.safe_load`` builds aliases as shared objects, so a "billion laughs" document loads in
microseconds and then hangs whatever walks it as a tree (validation, dumping it to the run
directory). The composed node graph is measured *as a tree* (every alias counted as the copy
it stands for) before anything is constructed; a document that expands past the limit, nests
too deeply or refers to itself is a :class:`~arena.errors.ConfigError`, as is a file too large.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from arena.errors import ConfigError

MAX_BYTES = 1_000_000  # a config file (a tournament config is a few KB)
MAX_NODES = 100_000  # scalars, sequences and mappings after expanding every alias
MAX_DEPTH = 64  # nesting of sequences and mappings


class _Limits:
    """Expanded size of a node graph, memoised per node (each shared node is measured once)."""

    def __init__(self, max_nodes: int, max_depth: int) -> None:
        self.max_nodes, self.max_depth = max_nodes, max_depth
        self.sizes: dict[int, int] = {}
        self.open: set[int] = set()

    def size(self, node: yaml.Node, depth: int = 0) -> int:
        known = self.sizes.get(id(node))
        if known is not None:
            return known
        if id(node) in self.open:
            raise ConfigError("the document refers to itself (a recursive alias)")
        if depth > self.max_depth:
            raise ConfigError(f"the document nests deeper than {self.max_depth} levels")
        total = 1
        if isinstance(node, (yaml.SequenceNode, yaml.MappingNode)):
            self.open.add(id(node))
            children: list[yaml.Node] = (
                list(node.value)
                if isinstance(node, yaml.SequenceNode)
                else [n for pair in node.value for n in pair]
            )
            for child in children:
                total += self.size(child, depth + 1)
                if total > self.max_nodes:  # stop at once: the rest may be exponential
                    break
            self.open.discard(id(node))
        if total > self.max_nodes:
            raise ConfigError(
                f"the document expands to more than {self.max_nodes:,} values "
                "(aliases counted as copies); a config is far smaller"
            )
        self.sizes[id(node)] = total
        return total


def parse_yaml(text: str, max_nodes: int = MAX_NODES, max_depth: int = MAX_DEPTH) -> Any:
    """One YAML document, refused (ConfigError) when it expands past the limits."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _Limits(max_nodes, max_depth).size(node)
        return loader.construct_document(node)
    except RecursionError:
        raise ConfigError(f"the document nests deeper than {max_depth} levels") from None
    except yaml.YAMLError as err:
        where = getattr(err, "problem_mark", None)
        at = f" (line {where.line + 1}, column {where.column + 1})" if where is not None else ""
        parts = [getattr(err, "context", None), getattr(err, "problem", None)]
        problem = "; ".join(str(x) for x in parts if x) or str(err).splitlines()[0]
        raise ConfigError(f"not valid YAML{at}: {problem}") from None
    finally:
        loader.dispose()


def read_yaml_mapping(path: str | Path, max_bytes: int = MAX_BYTES) -> dict[str, Any]:
    """A config file's top-level mapping; every failure is a ConfigError naming the file."""
    p = Path(path)
    try:
        if p.stat().st_size > max_bytes:
            raise ConfigError(f"{p}: larger than {max_bytes:,} bytes; a config is far smaller")
        text = p.read_text(encoding="utf-8")
        raw = parse_yaml(text)
    except FileNotFoundError:
        raise ConfigError(f"{p}: no such file") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"{p}: cannot read: {err}") from None
    except ConfigError as err:
        if err.problems and err.problems[0].startswith(str(p)):
            raise
        raise ConfigError([f"{p}: {m}" for m in err.problems]) from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{p}: the config must be a mapping")
    bad_keys = [k for k in raw if not isinstance(k, str)]
    if bad_keys:  # every one at once, as every other problem of a config
        raise ConfigError([f"{p}: top-level keys must be names, not {k!r}" for k in bad_keys])
    return raw
