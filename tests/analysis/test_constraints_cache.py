"""Cached constraint extraction gives exactly the whole-text tokens, on every corpus we have.

``extract_constraints(text)`` cuts a text into pieces no constraint can cross and remembers each
piece's tokens; ``extract_constraints(text, cache=False)`` extracts the whole text in one pass.
The writer stores the cached result, so the two must never differ.

Speed (2 shared cores, ``bench.corpus.agent_prompts(2000, size_bytes=10240, seed=1)``, 20.5 MB):
whole-text extraction runs at ~1.9 MB/s (10.6 s), cached extraction at ~14-15 MB/s (1.4-1.45 s,
~7.5x); the writer (``/tmp/hp/writer_prof.py``) exports 2000 handoffs in ~1.9 s instead of ~10.5 s.
What is left is scanning each prompt's ~340 characters of per-run header (IBANs, amounts, ids)
at ~1.3 MB/s, and ~500 look-ups of lines and table cells.
"""

from __future__ import annotations

import random
import runpy
import threading
from pathlib import Path

import pytest

from bench.corpus import agent_prompts
from handoff import demo
from handoff.analysis.constraints import extract_constraints
from handoff.testing import capture

_REPO = Path(__file__).parents[2]
_CORPUS = runpy.run_path(str(_REPO / "tests" / "data" / "constraints_corpus.py"))


def _assert_same(texts: list[str]) -> None:
    differ = [text[:120] for text in texts if extract_constraints(text) != extract_constraints(text, cache=False)]
    assert differ == []


def test_corpus_cases_match_whole_text_extraction():
    """Every parent, child and paraphrase of the constraints corpus gets the same tokens cached as whole."""
    texts = [case[side] for case in _CORPUS["CASES"] + _CORPUS["PARAPHRASES"] for side in ("parent", "child")]
    texts += [value for value in _CORPUS.values() if isinstance(value, str)]
    assert len(texts) > 100
    _assert_same(texts)


def test_demo_pipeline_texts_match_whole_text_extraction():
    """The demo pipeline's recorded inputs and outputs get the same tokens cached as whole."""
    with capture() as records:
        for inv in (*demo.CLEAN, demo.REFERENCE):
            demo.run_invoice(inv)
        records.flush()
    texts = [data.decode() for h in records.handoffs for data in (h.input, h.output) if data]
    assert len(texts) == 48  # 4 invoices x 6 handoffs x input and output
    _assert_same(texts)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_benchmark_prompts_match_whole_text_extraction(seed):
    """Invoice-table agent prompts (the writer benchmark's corpus) get the same tokens cached as whole."""
    _assert_same(agent_prompts(25, size_bytes=10240, seed=seed))


def test_real_documents_match_whole_text_extraction():
    """The repository's markdown and the system's license texts get the same tokens cached as whole."""
    paths = (
        sorted(_REPO.glob("*.md")) + sorted(_REPO.glob("*/*.md")) + sorted(Path("/usr/share/common-licenses").glob("*"))
    )
    texts = [path.read_text(encoding="utf-8", errors="replace") for path in paths if path.is_file()]
    assert len(texts) >= 3
    _assert_same(texts)


# Words and marks that constraints continue across spaces and line breaks with: months, units,
# codes, zones, clause references, list markers, trigger phrases, openers, table bars.
_FRAGMENTS = [
    "5",
    "12",
    "2026",
    "1.",
    "2)",
    "7.2(b)",
    "9.5",
    "$",
    "$5",
    "€1.200,50",
    "USD",
    "EUR",
    "Dollars",
    "thousand",
    "March",
    "Mar.",
    "Sept.",
    "of",
    "5th",
    "p.m.",
    "pm",
    "AM",
    "UTC",
    "CEST",
    "+01:00",
    "12:30",
    "10:00:00",
    "Section",
    "sections",
    "Sec.",
    "Art.",
    "Schedule",
    "IV",
    "B",
    "L-0001",
    "L",
    "Q",
    "H",
    "K",
    "KB",
    "kg",
    "items",
    "business",
    "days",
    "big",
    "per",
    "cent",
    "Percent",
    "%",
    "no",
    "not",
    "more",
    "than",
    "at",
    "least",
    "up",
    "to",
    "and",
    "or",
    ",",
    ".",
    ";",
    ":",
    "(",
    ")",
    "[",
    "]",
    '"',
    "*",
    "_",
    "-",
    "–",
    "&",
    "/",
    ">",
    "<",
    "|",
    "can't",
    "without",
    "unless",
    "the",
    "us-east-1",
    "a1b2c3d4",
    "INV-88214",
    "snake_case",
    "2026-03-11",
    "03/11/2026",
    "US",
    "§§",
    "5k",
    "Z",
    "a",
    "minimum",
    "June",
    "unit",
    "line",
    "qty",
    "$1,232.63",
    "$43,142.05",
    "$007.5",
    "$1234567.00",
    "$1,23",
    "$5.123",
]
_GAPS = [" ", " ", " ", "\n", "\n", "\n\n", "  ", "\t", "\n ", " \n", "|", " | ", "\r\n", ""]


def test_random_fragment_texts_match_whole_text_extraction():
    """Texts built to put constraints across every kind of cut get the same tokens cached as whole."""
    rng = random.Random(20261129)
    texts = [
        "".join(rng.choice(_FRAGMENTS) + rng.choice(_GAPS) for _ in range(rng.randint(1, 14))) for _ in range(4000)
    ]
    _assert_same(texts)


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("Fee: 5\nitems per order", ["unit:5 items"]),
        ("Paid on 5\nMarch 2026", ["date:2026-03-05"]),
        ("See Art.\nIV here", ["clause:art.iv"]),
        ("q|$5\x00|$7\x00|8|", ["money:USD5.00", "money:USD7.00", "number:8"]),
        ("Ends 5 p.m.\nUTC sharp", ["time:17:00Z"]),
        ("Never go\n(no more than 5 items)", ["comparison:<= unit:5 items", "negation:not go", "unit:5 items"]),
        ("| line   $43,142.05\nL-0002 | qty  3 |", ["id:L-0002", "money:USD43142.05", "number:3"]),
        ("| per $5 |", ["money:USD5.00", "qualifier:per USD5.00"]),
        ("| over $1,200 |", ["comparison:> money:USD1200.00", "money:USD1200.00"]),
        ("Total $12,345.6\n|\n1. first", ["money:USD12345.60"]),
        (
            "Ends 5 p.m.\nUTC sharp\nsee Sec.\nIV or Sec.\nIvy 7.2(b)\nApplies at 5%\nMonthly",
            ["clause:7.2(b)", "percent:5", "time:17:00Z"],
        ),
    ],
)
def test_constraints_across_lines_and_cells_are_found_once_cached(text, tokens):
    """A constraint continued on the next line, or a table cell's amount, gives the same token cached or not."""
    assert extract_constraints(text) == tokens
    assert extract_constraints(text) == tokens  # a second time, from the cache
    assert extract_constraints(text, cache=False) == tokens


def test_sparse_prose_keeps_whole_text_windows():
    """In long prose, a number far from its unit reads the same cached as whole (here, as a bare number)."""
    prose = "The quick brown fox jumps over the lazy dog. " * 250
    text = prose + "we ship 5 extraordinarilylongadjectivewordhere items today. " + prose
    assert extract_constraints(text) == ["number:5"]
    assert extract_constraints(text, cache=False) == ["number:5"]


def test_threads_extracting_together_get_whole_text_tokens():
    """Writer threads sharing the cache each get exactly the whole-text tokens of their own texts."""
    prompts = agent_prompts(12, size_bytes=4096, seed=9)
    expected = [extract_constraints(prompt, cache=False) for prompt in prompts]
    results: dict[int, list[list[str]]] = {}

    def work(worker: int) -> None:
        results[worker] = [extract_constraints(prompt) for prompt in prompts[worker:] + prompts[:worker]]

    threads = [threading.Thread(target=work, args=(worker,)) for worker in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert {worker: got for worker, got in results.items()} == {
        worker: expected[worker:] + expected[:worker] for worker in range(4)
    }


def test_amount_cells_read_directly_keep_two_decimals():
    """A table cell's dollar amount reads as the scanner writes it: no grouping, two decimals."""
    cells = "| $007.5 | $1,000 | unit  $2,305.74 |"
    assert extract_constraints(cells) == ["money:USD1000.00", "money:USD2305.74", "money:USD7.50"]
    assert extract_constraints(cells) == extract_constraints(cells, cache=False)
