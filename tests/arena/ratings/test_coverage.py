"""Pair coverage: which pairs of entries shared a table, and the line that says so."""

from __future__ import annotations

from arena.ratings.coverage import SHOWN, pair_coverage, summary


def test_counts_every_pair_once_per_table_and_lists_those_that_never_met() -> None:
    tables = [["a", "b"], ["b", "a"], ["c", "d"], ["a", "a", "c", "c"]]
    cov = pair_coverage(["a", "b", "c", "d"], tables)
    assert cov.counts == {
        ("a", "b"): 2,
        ("a", "c"): 1,  # an entry in several seats of one table meets the others once
        ("a", "d"): 0,
        ("b", "c"): 0,
        ("b", "d"): 0,
        ("c", "d"): 1,
    }
    assert (cov.pairs, cov.met, cov.complete) == (6, 3, False)
    assert cov.never == [("a", "d"), ("b", "c"), ("b", "d")]
    assert summary(cov) == "3 of 6 pairs met; never met: a vs d, b vs c, b vs d"


def test_entries_keep_their_order_and_unknown_names_follow_sorted() -> None:
    cov = pair_coverage(["z", "a"], [["a", "z"], ["y", "a"]])
    assert cov.entries == ("z", "a", "y")
    assert cov.counts == {("z", "a"): 1, ("z", "y"): 0, ("a", "y"): 1}


def test_the_line_says_how_often_when_every_pair_met() -> None:
    equal = pair_coverage("abc", [["a", "b"], ["a", "c"], ["b", "c"]] * 8)
    assert summary(equal) == "all 3 pairs met, 8 times each"
    assert summary(equal, "plan") == "all 3 pairs meet, 8 times each"
    uneven = pair_coverage("abc", [["a", "b", "c"], ["a", "b"]])
    assert summary(uneven) == "all 3 pairs met, 1 to 2 times each"
    one = pair_coverage("ab", [["a", "b"]])
    assert summary(one, "plan") == "the one pair meets once"
    assert summary(pair_coverage(["a"], [["a"]])) == "a single entry: no pairs"
    assert summary(pair_coverage("ab", []), "plan") == "0 of 1 pair meets; never meet: a vs b"


def test_a_long_list_of_pairs_is_cut_with_a_count() -> None:
    names = [f"e{i:02d}" for i in range(8)]  # 28 pairs, none met
    line = summary(pair_coverage(names, []))
    assert line.startswith("0 of 28 pairs met; never met: e00 vs e01, ")
    assert line.count(" vs ") == SHOWN and line.endswith(f"and {28 - SHOWN} more")


def test_plain_data_for_json() -> None:
    doc = pair_coverage("abc", [["a", "b"], ["a", "b"], ["a", "c"]]).as_dict()
    assert doc == {
        "summary": "2 of 3 pairs met; never met: b vs c",
        "entries": ["a", "b", "c"],
        "pairs": 3,
        "met": 2,
        "never": [["b", "c"]],
        "fewest": 1,
        "most": 2,
    }
