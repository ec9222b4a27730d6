"""Compute and check the test-split digests of the validation case files.

Usage: python tests/data/validity/digest.py FILE [FILE ...]

A privacy file (.jsonl) records its digest in the first line's ``_meta.test_sha256``; a persona
file (.yaml) records it in a header comment ``# test_sha256: <hex>``. The digest is sha256 over
``json.dumps(case, sort_keys=True, ensure_ascii=False).encode()`` of every case whose ``split`` is
``test``, fed in file order (for YAML, the case as ``yaml.safe_load`` returns it). The script prints
one line per file and exits 1 if any recorded digest is missing or differs, so a test split edited
after it was frozen is caught.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

import yaml

_YAML_DIGEST = re.compile(r"^#\s*test_sha256:\s*([0-9a-f]{64})\s*$", re.MULTILINE)


def digest_cases(cases: list[dict[str, Any]]) -> str:
    """sha256 over the canonical JSON of the test-split cases, in order."""
    h = hashlib.sha256()
    for case in cases:
        if case.get("split") == "test":
            h.update(json.dumps(case, sort_keys=True, ensure_ascii=False).encode())
    return h.hexdigest()


def read_privacy(path: Path) -> tuple[str | None, list[dict[str, Any]]]:
    """The recorded digest and the case rows of a JSON-lines file (header row excluded)."""
    recorded: str | None = None
    rows: list[dict[str, Any]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        if "_meta" in row:
            recorded = row["_meta"].get("test_sha256")
        else:
            rows.append(row)
    return recorded, rows


def read_persona(path: Path) -> tuple[str | None, list[dict[str, Any]]]:
    """The recorded digest (header comment) and the cases of a YAML file."""
    text = path.read_text(encoding="utf-8")
    match = _YAML_DIGEST.search(text)
    cases = yaml.safe_load(text) or []
    if not isinstance(cases, list):
        raise ValueError(f"{path}: expected a YAML list of cases")
    return (match.group(1) if match else None), cases


def check(path: Path) -> bool:
    """Print the file's recorded and computed digests; True when they agree."""
    reader = read_privacy if path.suffix == ".jsonl" else read_persona
    recorded, cases = reader(path)
    computed = digest_cases(cases)
    n_test = sum(1 for c in cases if c.get("split") == "test")
    ok = recorded == computed
    status = "ok" if ok else "MISMATCH"
    print(f"{path}: n={len(cases)} test={n_test} recorded={recorded} computed={computed} {status}")
    return ok


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    results = [check(Path(arg)) for arg in argv]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
