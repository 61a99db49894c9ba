"""The prompts are the paper's Appendix B.1 (Table 8), read from the paper's text itself."""

from __future__ import annotations

import pytest

from bediscover_inspect.discourse_markers import prompts
from bediscover_inspect.discourse_markers.dataset import load_dataset
from bediscover_inspect.discourse_markers.task import discourse_markers
from tests.conftest import PAPER_TEXT
from tests.helpers import model_input

# order of the blocks in Table 8 (each closed by a "(for ... dataset)" line)
TABLE8_ORDER = [
    ("system", "just"),
    ("system", "otherwise"),
    ("basic", "just"),
    ("def", "just"),
    ("def+exp", "just"),
    ("basic", "otherwise"),
    ("def", "otherwise"),
    ("def+exp", "otherwise"),
]


@pytest.fixture(scope="module")
def table8() -> dict[tuple[str, str], list[str]]:
    """Paragraphs of each Table 8 prompt, as printed in the paper's text (headers and captions dropped)."""
    lines = PAPER_TEXT.read_text(encoding="utf-8").splitlines()
    start = lines.index("B.1 Task (1) Discourse Marker Understanding")
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("Table 8:"))
    blocks: list[list[str]] = []
    current: list[str] = []
    for line in lines[start + 1 : end]:
        if not line.strip() or line in ("System prompt:", "User prompt:") or line.startswith("Table˜8"):
            continue
        if line.startswith("(for "):
            blocks.append(current)
            current = []
            continue
        current.append(line)
    assert len(blocks) == len(TABLE8_ORDER)
    return dict(zip(TABLE8_ORDER, blocks, strict=True))


@pytest.mark.paper
def test_system_prompts_are_table8(table8):
    assert prompts.JUST_SYSTEM_PROMPT == table8[("system", "just")][0]
    assert prompts.OTHERWISE_SYSTEM_PROMPT == table8[("system", "otherwise")][0]


@pytest.mark.paper
@pytest.mark.parametrize("family", ["just", "otherwise"])
@pytest.mark.parametrize("style", prompts.PROMPT_STYLES)
def test_user_templates_are_table8_paragraphs(table8, family, style):
    assert prompts.USER_PROMPTS[(family, style)].split("\n\n") == table8[(style, family)]


def test_paper_quirks_kept_verbatim():
    # the typo of the Adjective definition and the typographic quotes are the paper's
    assert "is used used as an adjective" in prompts.JUST_DEF_PROMPT
    assert "‘just’" in prompts.JUST_BASIC_PROMPT and "'just'" not in prompts.JUST_BASIC_PROMPT
    assert "“She is a just ruler.”" in prompts.JUST_DEF_EXP_PROMPT
    assert "[Arg1]. Otherwise, [Arg2]." in prompts.OTHERWISE_SYSTEM_PROMPT


# one record per dataset: its <TEXT>, written out by hand from the data file
RENDERED_TEXT = {
    "just-manual_000": "Betsy's picky, she just eats chicken nuggets.",
    "just-subtitle_100": "Hi, Bruce, I just got dumped.",
    "otherwise_000": (
        '["When They See Us" should inspire people to recognize that crime-control policies and the racist ideas '
        "behind them must change .] Otherwise, [the history of the Central Park Five is likely to repeat itself.]"
    ),
}
FAMILY = {"just-manual_000": "just", "just-subtitle_100": "just", "otherwise_000": "otherwise"}


@pytest.mark.paper
@pytest.mark.parametrize("style", prompts.PROMPT_STYLES)
@pytest.mark.parametrize("sample_id", sorted(RENDERED_TEXT))
def test_rendered_messages_of_one_record_per_dataset_and_style(table8, style, sample_id):
    dataset = sample_id.rsplit("_", 1)[0]
    task = discourse_markers(dataset=dataset, prompt=style, presets="none")
    sample = next(s for s in task.dataset if s.id == sample_id)
    system, user = model_input(task, sample)
    family = FAMILY[sample_id]
    assert system.role == "system" and system.content == table8[("system", family)][0]
    expected = [RENDERED_TEXT[sample_id] if p == "<TEXT>" else p for p in table8[(style, family)]]
    assert user.role == "user" and user.content.split("\n\n") == expected
    assert "<TEXT>" not in user.content


def test_otherwise_def_exp_user_message_in_full():
    samples = load_dataset(["otherwise"], prompt="def+exp").dataset
    user = samples[2].input
    assert user.startswith(
        "Here are the main functions of ‘Otherwise’ along with their definition and examples. Arg1 and Arg2 are "
        "placed within square brackets:\n\nConsequence: If the situation in Arg1 doesn’t occur, the situation in "
        "Arg2 would arise.\n\nExample: [I like you too.] Otherwise, [we wouldn’t be friends.]\n\n"
    )
    # id 2's arg1 has no final period in the data: one is added inside its bracket, like the paper's examples
    assert user.endswith(
        "in the following sentence. Respond with the function label.\n\n[A close-up mode of this camera will give "
        "sharp results from a subject only two feet away.] Otherwise, [I thought the specifications somewhat "
        "limited for a camera of this price.]"
    )


def test_user_prompt_rejects_unknown_style_and_family():
    with pytest.raises(ValueError, match=r"'basic', 'def', 'def\+exp'"):
        prompts.user_prompt("just", "few-shot", "x")
    with pytest.raises(ValueError, match="just"):
        prompts.user_prompt("because", "basic", "x")
