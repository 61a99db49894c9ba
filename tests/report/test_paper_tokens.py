"""The paper's "tok." counts every generated token (answer included), so the report compares it with
``output_tokens``: the evidence from every table's tok. values, and the matching that follows from it."""

from __future__ import annotations

import pandas as pd
import pytest

from bediscover_inspect.data import load_records
from bediscover_inspect.report.aggregate import aggregate
from bediscover_inspect.report.matching import canonical_measure, match_paper
from bediscover_inspect.report.paper import load_paper_results


@pytest.fixture(scope="module")
def tok() -> pd.DataFrame:
    df = load_paper_results()
    return df[(df.metric == "tok") & (df.section == "BeDiscovER")]


def _range(frame: pd.DataFrame) -> tuple[float, float]:
    return float(frame["mean"].min()), float(frame["mean"].max())


def test_without_reasoning_tok_is_never_zero_and_always_below_the_reasoning_run(tok):
    """With thinking off a Qwen3 model emits no reasoning, yet every w/o-reasoning tok. is positive."""
    assert sorted(set(tok.table)) == list(range(13, 27)) + list(range(28, 42))
    off, on = tok[tok.reasoning == "off"], tok[tok.reasoning == "on"]
    assert (len(off), int((off["mean"] == 0).sum())) == (384, 0)
    pairs = off.merge(on, on=["table", "dataset", "variant", "model"], suffixes=("_off", "_on"))
    assert len(pairs) == 384 and bool((pairs.mean_on > pairs.mean_off).all())


def test_without_reasoning_tok_is_the_length_of_the_answer(tok):
    off = tok[tok.reasoning == "off"]
    # one label (Tables 13-25): 1-4 tokens
    assert _range(off[off.task == "discourse_markers"]) == (1.0, 4.0)
    assert _range(off[off.table.isin([22, 23, 24, 25])]) == (2.0, 3.0)
    # DISRPT (Tables 28-31): one relation label, except Qwen3-1.7B, which writes on with thinking off
    dr = off[off.task == "discourse_relations"]
    assert _range(dr[dr.model != "Qwen3-1.7B"]) == (2.0, 18.0)
    assert _range(dr[dr.model == "Qwen3-1.7B"]) == (19.0, 1504.0)
    # ToT-Arithmetic (Table 26): a JSON answer such as {"answer": "..."}
    assert _range(off[off.table == 26]) == (15.0, 67.0)
    # dialogue parsing (Tables 39-41): one RELATION(x, y) per turn, ~9 tokens; one outlier
    dp = off[off.task == "dialogue_parsing"]
    assert _range(dp[dp["mean"] < 100]) == (8.0, 17.0)
    outlier = dp[dp["mean"] >= 100]
    assert outlier[["table", "model", "variant", "mean"]].values.tolist() == [
        [41, "Qwen3-1.7B", "auto-regressive", 149.0]
    ]


def test_sentence_ordering_tok_grows_with_the_number_of_sentences(tok):
    """ROC and SIND stories have five sentences each; NeurIPS abstracts 6.40 on average (the mirrored file):
    about 4.7 tokens per sentence, the length of one ``<s n>`` marker in the answer."""
    off = tok[(tok.reasoning == "off") & (tok.task == "sentence_ordering")]
    by_dataset = {name: _range(frame) for name, frame in off.groupby("dataset")}
    assert by_dataset == {
        "aan-abstract": (24.0, 25.0),
        "arxiv-abstracts": (27.0, 30.0),
        "nips-abs": (30.0, 32.0),
        "nsf": (52.0, 65.0),
        "roc": (23.0, 24.0),
        "sind-captions": (23.0, 24.0),
        "wiki-movies": (72.0, 139.0),
    }
    for name in ("roc", "sind-captions"):
        low, high = by_dataset[name]
        assert 4.5 < low / 5 and high / 5 < 4.9
    records = load_records("so/nips-abs/test_id.jsonl").records
    sentences = sum(len(record["orig_sents"]) for record in records) / len(records)
    assert sentences == pytest.approx(6.398, abs=1e-3)
    low, high = by_dataset["nips-abs"]
    assert 4.6 < low / sentences < high / sentences < 5.1


def test_tok_is_compared_with_output_tokens_not_reasoning_tokens():
    paper = load_paper_results()
    assert canonical_measure("output_tokens") == canonical_measure("output_tokens_per_turn") == "tok"
    assert canonical_measure("reasoning_tokens") == "reasoning_tokens"
    args = ("discourse_markers", "dataset", "just-manual", "prompt=def", "vllm/Qwen/Qwen3-1.7B", "off", "")
    hit = match_paper(paper, *args, "output_tokens")
    assert (hit.table, hit["mean"]) == (14, 3.0)
    assert match_paper(paper, *args, "reasoning_tokens") is None
    hit = match_paper(
        paper,
        "dialogue_parsing",
        "dataset",
        "stac",
        "mode=incremental",
        "vllm/Qwen/Qwen3-8B",
        "on",
        "",
        "output_tokens_per_turn",
    )
    assert (hit.table, hit["mean"]) == (39, 754.0)


def test_tokens_per_turn_are_counts_not_rates():
    scores = pd.DataFrame(
        [
            {
                "log": "x",
                "task": "dialogue_parsing",
                "model": "m",
                "reasoning": "off",
                "variant": "",
                "seed": 0,
                "reasoning_effort": "",
                "samples": 3,
                "scorer": "dialogue_parsing_scorer",
                "measure": measure,
                "group_key": "dataset",
                "group": "stac",
                "value": 9.0,
                "stderr": 0.5,
            }
            for measure in ("output_tokens_per_turn", "reasoning_tokens_per_turn", "link_f1")
        ]
    )
    means = aggregate(scores).set_index("measure")["mean"].to_dict()
    assert means == {"link_f1": 900.0, "output_tokens_per_turn": 9.0, "reasoning_tokens_per_turn": 9.0}
