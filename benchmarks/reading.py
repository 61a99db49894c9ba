"""Worst-case answer reading: every reader on degenerate answers of a given length, the slowest case per reader (CPU seconds of this process, so that other load on the machine does not count).

The readers (label choice, sentence order, ToT answer dict, dialogue relations) must be linear in the answer's
length; the inputs here are the shapes that make a backtracking pattern super-linear: a marker opener followed by a
long white-space run (``<s`` + spaces, ``Answer`` + spaces, ``#`` + tabs, ``</b`` + spaces), runs of one bracket,
nested ``<think>`` tags, a hedge, rejection or tentative cue before a long gap, unclosed list values repeated, sentence
markers among tentative words. A reader that is linear reads each
100,000-character case in milliseconds; a quadratic one takes minutes.

    python benchmarks/reading.py                          # sizes 8,000 and 100,000, result in results/reading.json
    python benchmarks/reading.py --sizes 8000 --src ../other-checkout/src --out reading_other

``--src`` reads with another checkout's ``src/`` (compare before / after a change of a reader).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

WHITESPACE = {"space": " ", "newline": "\n", "tab": "\t"}
OPENERS = ("<s", "[s", "(s", "<S", "<s_", "Answer", "Answer of x", "#", "**", "I", "order", "actually", "\\boxed{")


def degenerate_inputs(size: int) -> dict[str, str]:
    """Named degenerate answers of about ``size`` characters each (module docstring)."""
    cases: dict[str, str] = {}
    for opener in OPENERS:
        for name, ws in WHITESPACE.items():
            cases[f"{opener!r} + {name} run"] = opener + ws * size + "x"
    for opener in ("<s", "Answer", "#", "**", "I"):  # after two label mentions: the label reader scans markers
        for name, ws in WHITESPACE.items():
            cases[f"BEFORE {opener!r} + {name} run"] = "BEFORE Temporal " + opener + ws * size + "x"
    for bracket in "<[({":
        cases[f"{bracket!r} run"] = bracket * size
    cases["nested <think> tags"] = "<think>" * (size // 15) + "x" + "</think>" * (size // 15)
    cases["unclosed <think> runs"] = "<think>" * (size // 7)
    cases["rejected label, long gap"] = "not BEFORE" + " " * size + "hmm AFTER"
    cases["hedge comma, long gap"] = "Answer: BEFORE," + " " * size + "hmm AFTER"
    cases["enumerated line, long gap"] = "1. 3" + " " * size + "x\n2. 1"
    cases["unclosed list values"] = '"answer": [,' * (size // 12)
    cases["unclosed quoted values"] = '"answer": ",' * (size // 12)
    cases["relation, long gap"] = "QA_PAIR( 1 ," + " " * size
    cases["label words before brackets"] = "ELABORATION (1,5) " * (size // 18)
    for opener in ("</b", "</s", "not", "hard to"):  # markup and closing-tag openers, tentative words
        for name, ws in WHITESPACE.items():
            cases[f"{opener!r} + {name} run"] = opener + ws * size + "x"
    cases["markers with tentative words"] = "<s 1> may " * (size // 10)
    cases["markers on one line, tentative at the end"] = "<s 1> " * (size // 6) + "may"
    cases["markers with unclosed closing tags"] = "<s 1> </s " * (size // 10)
    return cases


def readers() -> dict[str, Callable[[str], Any]]:
    """Reader name -> a call reading one answer (imports the package: call after ``--src`` is on the path)."""
    from bediscover_inspect.dialogue_parsing.relations import parse_answer
    from bediscover_inspect.discourse_markers.prompts import JUST_LABELS
    from bediscover_inspect.labels import parse_label
    from bediscover_inspect.sentence_ordering.parsing import parse_order
    from bediscover_inspect.temporal_reasoning.prompts import RELATION_LABELS
    from bediscover_inspect.temporal_reasoning.tot_answers import parse_tot_answer

    return {
        "label (Just)": lambda text: parse_label(text, JUST_LABELS),
        "label (TBD)": lambda text: parse_label(text, RELATION_LABELS),
        "sentence order": parse_order,
        "ToT answer": lambda text: parse_tot_answer(text, ["answer"]),
        "dialogue relations": lambda text: parse_answer(text, 5, ["QA_PAIR", "ELABORATION", "COMMENT"], 10),
    }


def measure(sizes: list[int]) -> dict[str, Any]:
    """Per size and reader: the slowest case and its time in seconds, and the total over all cases."""
    table = readers()
    result: dict[str, Any] = {}
    for size in sizes:
        inputs = degenerate_inputs(size)
        per_reader = {}
        for reader, read in table.items():
            times = {}
            for case, text in inputs.items():
                start = time.process_time()
                read(text)
                times[case] = time.process_time() - start
            worst = max(times, key=times.__getitem__)
            per_reader[reader] = {"worst_case": worst, "worst_s": times[worst], "total_s": sum(times.values())}
        result[str(size)] = {"cases": len(inputs), "readers": per_reader}
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="8000,100000", help="comma-separated answer lengths (characters)")
    parser.add_argument("--src", help="read with this checkout's src/ instead of the installed package")
    parser.add_argument("--out", default="reading", help="result name under the results directory")
    args = parser.parse_args(argv)
    if args.src:
        sys.path.insert(0, str(Path(args.src).resolve()))
    from _common import write_result

    result = {"sizes": measure([int(s) for s in args.sizes.split(",")])}
    write_result(args.out, result)
    for size, entry in result["sizes"].items():
        for reader, row in entry["readers"].items():
            print(
                f"{size:>7} {reader:20} worst {row['worst_s'] * 1000:9.1f} ms ({row['worst_case']}), "
                f"all {entry['cases']} cases {row['total_s'] * 1000:9.1f} ms"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
