"""Shared answer reading: reasoning left in the text, and the label a model chose (discourse markers, temporal
relations, DISRPT; the dialogue relation and sentence-order parsers use the reasoning rule and the answer
markers defined here).

**Reasoning in the text** (:func:`final_text`, every task). Only ``state.output.completion`` is parsed (reasoning
that a provider returns in separate content blocks is never read). Inside that text:

* the answer is the text after the **last** ``</think>`` (any case); nothing before it is read, also when there
  is no opening ``<think>`` (templates that open the thinking span in the prompt, e.g. DeepSeek-R1 distills or
  Qwen3 in thinking mode served without a reasoning parser, leave only the closing tag);
* a ``<think>`` after that point with no ``</think>`` after it is thinking that was cut off: the answer is what
  precedes the tag (normally nothing, so the answer is invalid and counted) and ``cut_off`` is set;
* nested tags are counted: when more ``<think>`` than ``</think>`` stand before the last ``</think>`` (each
  closing tag closes the innermost open span; one with none open closes the span the prompt opened), that tag
  closes an inner span only, the text after it is still thinking, and the answer is empty (invalid, ``cut_off``):
  ``<think><think>…</think>Answer: BEFORE``.

**Cut off at the budget** (every task). A reply that stopped at the token budget (Inspect's ``stop_reason``
``max_tokens`` or ``model_length``; :mod:`bediscover_inspect.causes` says how a reply without a stop reason is
judged) was not finished, and a careful reader counts only an answer the model *stated after its reasoning had
closed*:

1. The reasoning has closed when the provider returned it apart from the text (a reasoning block: the server saw
   its end), when the text holds a ``</think>``, or when the run asked for no reasoning (the task's ``reasoning``
   off: the text is the answer). Otherwise — reasoning on with neither, or an unclosed ``<think>`` — the reply is
   unfinished thinking: nothing is read, the answer is invalid with cause ``cut_off``. (A prompt that opens the
   thinking span, as DeepSeek-R1 distills' does, leaves a cut-off reasoning without any tag; read as an answer,
   the label words of its analysis would be taken for the model's choice.)
2. After the reasoning, the text is an answer that was being written when the budget ended; only what it
   *states* counts. Label choice (:func:`parse_label` with ``cut_off=True``): layer 1, layer 2's markers,
   revisions and concluding sentences opened by a conclusion cue, layer 3 — not a bold label standing alone (a
   list of candidates in progress), not the text's last sentence read as a conclusion (it is the unfinished
   one), not layer 4 (an analysis names labels on its way). Sentence ordering: an order that places every
   sentence of the document (a shorter one may be unfinished). ToT-Arithmetic: a dict closed by its ``}`` (not
   the ``key: value`` fragments read from a finished answer; a value cut inside is invalid whatever the stop). Dialogue parsing, per turn: the relations of a marked, whole or
   leading block (each written out whole, or invalid), not the ``prose`` rule's relations of an analysis.
3. So a stop at the budget right after a complete answer (``Contrast``; ``</think>`` then ``Answer: BEFORE``)
   counts: the answer is stated. The sample still counts in ``cut_off_rate``, the share of samples that stopped
   at the budget, whatever was read.

**Markup** (:func:`has_markup`, every task: label choice, ToT, dialogue relations, sentence order). An answer whose
text (after the reasoning) holds an HTML closing tag — ``</p>``, ``</b>``, ``</div>``, ``</span>`` … of the HTML
element names in :data:`MARKUP`, any case — or a control character (``\x00``–``\x1f`` but tab, line feed and
carriage return; ``\x7f``) is **invalid** and counted (``markup``): ``<b>Answer:</b> BEFORE``, ``<p>Answer:
valid</p>``, ``\x00Answer: BEFORE``. Such text was copied out of a web page, a chat template or a terminal; the
prompt asked for a plain answer, and a reader cannot tell which part of the page the model meant. The tasks' own
tags are no markup: ``</EVENT>`` (TimeBank-Dense documents), ``</s 3>`` (sentence ordering), ``</think>``
(handled above), nor are XML answer tags such as ``</answer>``.

**Label choice** (:func:`parse_label`). A *mention* is a label or one of its aliases written as a whole word
(no letter or digit on either side), case-insensitively, with spaces, ``_`` and ``-`` interchangeable
(``is included`` = ``IS_INCLUDED``); where several overlap, the longest wins. The layers, first that applies:

1. ``whole`` — the whole answer is one label, after dropping markdown, quotes, brackets, ``\\boxed{}``,
   trailing punctuation and an optional leading ``Answer:`` / ``Label:`` / ``The answer is`` and the like.
2. ``marker`` — explicitly marked choices; the **last** one decides (corrections come last). A mention is
   marked when only white space, markdown, quotes, brackets, ``:``, ``=``, dashes or arrows separate it from
   the end of an *answer marker* before it:

   * a noun with a colon, ``=``, an arrow or a copula (``is``, ``are``, ``would be``, ``should be``,
     ``will be``, ``remains``): ``Answer:``, ``Final answer:``, ``Label:``, ``Relation:``, ``Relation type:``,
     ``Relations:``, ``Function:``, ``Choice:``, ``Classification:``, ``Prediction:``, ``Category:``,
     ``Verdict:``, ``Output:``, ``Structure:``, ``the correct label is``, ``the answer would be``,
     ``The relation between e1 and e2 is`` (``of`` / ``between`` / ``for`` and up to 60 characters without
     sentence punctuation may sit between the noun and the copula), each optionally followed by ``clearly``
     / ``probably`` / ``likely`` / ``most likely`` / ``definitely`` / ``therefore`` / ``thus`` / ``simply``
     / ``certainly``; ``Answer``, ``Label``,
     ``Relation`` or ``Choice`` (optionally ``Final`` / ``Correct`` / ``My`` before it) alone on its line, as
     a header (``### Final Answer`` then the label on the next line);
   * a first-person choice: ``I choose``, ``I'd go with``, ``we pick``, ``I select``, ``I would rather call it``,
     ``I'd label it as``, ``I classify this as``, ``I'd say``, ``I conclude``, ``I opt for`` …;
   * a revision: ``Corrected:``, ``Correction:``, ``Correcting myself:``, ``Actually,``, ``On second thought,``,
     ``On reflection,``, ``Wait, no,``, ``or rather`` (optionally followed by ``it's`` / ``it is`` / ``it should
     be`` / ``should be`` / ``the answer is``);
   * ``\\boxed{`` (also ``\\boxed{\\text{``);
   * ``A:`` at the start of a line, few-shot style (``Options: - BEFORE - AFTER`` then ``A: AFTER``), unless
     the next line starts with ``B:`` / ``B.`` / ``B)`` (then it is an option list);
   * a **bold label standing alone**: ``**label**`` (or ``__label__``) alone on its line, bullet and final
     full stop allowed;
   * a **concluding sentence**: the label ends a sentence (then only markdown, quotes, brackets and ``.`` /
     ``!`` or the line's end) right after a copula (``is``, ``are``, ``was``, ``would be``, ``must be``,
     ``remains``, ``is classified as`` …, optionally ``clearly`` / ``most likely`` … and an article), and the
     sentence opens with a conclusion cue (:data:`CONCLUSION`: ``Therefore``, ``So``, ``Thus``, ``Hence``,
     ``Overall``, ``In conclusion`` …) or is the answer's last sentence: ``Therefore, the best reading here is
     Temporal.``, ``So, … is **BEFORE**.`` A tentative copula (``could be``, ``might be``) is none, so an
     analysis that never commits stays unread.

   A bold field name at the start of a line (``**Comment:**``, ``- **Comment**:``; layer 4) is never a marked
   choice; a bold label followed by a colon inside a sentence (``… is **Temporal**: the speaker …``) is an
   ordinary mention. A marked choice that is itself a
   hedge — the next mention, of another label, follows it with only ``or``, ``/``, ``,``, ``and``,
   ``and/or`` or ``vs`` (then optionally ``maybe`` / ``possibly`` / ``perhaps``) between
   (``Answer: BEFORE or AFTER``) — makes the answer invalid and ``ambiguous``.
   **Continuation.** A model that continues a few-shot pattern invents further questions and answers after its
   own: once a first answer is given (the first marked mention, or a label alone on the first line), a line
   that starts a new question (:data:`CONTINUATION`: ``Q:``, ``Question:``, ``Input:``, ``Given the
   document:``, ``Options:`` …) ends the answer, and everything after it is ignored. The answer to the
   question asked is the first one; corrections before that line still come last.
3. ``first_line`` — the first non-blank line is one label (same clean-up as layer 1), unless that line is a
   markdown header (starts with ``#`` or ends with ``:``) or the first item of a bulleted list in which another
   item is another label (``- A`` / ``- B`` / ``- C`` lists the choices, it chooses none).
4. ``single`` — exactly one distinct label is *named* in the answer. Mentions that do not name a label:

   * a word inside a markdown header: on a line starting with ``#``, or a bold field name ``**Comment:**`` /
     ``**Comment**:`` at the start of its line;
   * a rejected label: right after ``not``, ``no``, ``non``, ``nor``, ``neither``, ``never``, ``rather
     than``, ``instead of``, ``other than``, ``except``, ``excluding``, ``ruling out``, ``unlike``, ``isn't``,
     ``aren't`` (an article or ``really`` / ``quite`` / ``simply`` / ``necessarily`` may sit between), and a
     label coordinated with a rejected one by ``or`` / ``nor`` / ``and`` / ``/`` (``not BEFORE or AFTER``);
   * an ordinary noun: a label word between a determiner (``the``, ``this``, ``that``, ``these``, ``those``,
     ``its``, ``their``, ``his``, ``her``, ``our``, ``your``, ``my``) and ``of``: ``the frame of the argument``,
     ``this mode of speech``;
   * **case is evidence** for a label set written in capitals (every label upper case, e.g. TBD / TDD-Man's
     ``BEFORE``, ``AFTER``): there a mention counts only when written in capitals (``AFTER`` is a label,
     ``After`` or ``after`` in a sentence is not). Layers 1–3 accept any case (``Answer: before``).

5. Otherwise the answer is **invalid** (scored wrong, counted). With two or more distinct labels named it is
   flagged ``ambiguous`` (a hedge such as ``either Temporal or Emphatic`` is one), and when those are at least
   three and at least half of the label set it is also an ``echo`` of the prompt's label list
   (:func:`is_echo`).

Aliases are each task's spelling variants (``<task>/aliases.py``); :func:`check_aliases` guarantees that no
alias maps onto two labels.

Every step is a regular-expression scan or a bounded look at a few characters around a mention. In every
pattern, two repetitions that can match the same character are never separated by optional items only (white
space, then optional bold, then white space is written as one run and an optional bold followed by its own run), so
a failed attempt costs at most one run of white space and reading an answer is linear in its length (``benchmarks/reading.py``: the worst degenerate 100,000-character answer).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

THINK_OPEN = re.compile(r"<think\s*>", re.IGNORECASE)
"""An opening thinking tag."""

THINK_CLOSE = re.compile(r"</think\s*>", re.IGNORECASE)
"""A closing thinking tag; the answer starts after the last one."""

_THINK_TAG = re.compile(r"<(/?)think\s*>", re.IGNORECASE)

_HTML_ELEMENTS = (
    "a|abbr|b|big|blockquote|body|center|code|dd|div|dl|dt|em|font|h[1-6]|head|html|i|kbd|li|mark|ol|p|pre|samp"
    "|small|span|strike|strong|sub|sup|table|tbody|td|tfoot|th|thead|title|tr|tt|u|ul"
)
MARKUP = re.compile(rf"</(?:{_HTML_ELEMENTS})(?![\w-])[ \t]*>|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", re.IGNORECASE)
"""An HTML closing tag of a common element (``</p>``, ``</b>``, ``</h2>`` …; not ``</s>``, the sentence-ordering
and end-of-sequence tag) or a control character (module docstring, "Markup"). Its only repetition is one run of
spaces and tabs after a fixed name, so a search is linear."""


def has_markup(text: str) -> bool:
    """Whether the answer text holds markup (:data:`MARKUP`; module docstring, "Markup"): then it is invalid."""
    return MARKUP.search(text) is not None


_SEPARATORS = re.compile(r"[\s_\-’'`]+")
_NOISE = re.compile(r"[*#\"“”\[\]{}()<>|]|\\(?:boxed|text(?:bf|rm)?)\b|\\")
_PREFIX = re.compile(
    r"^(?:(?:so|thus|therefore)\s*,?\s*)?(?:the\s+|my\s+)?(?:final\s+|correct\s+)?"
    r"(?:answer|label|relation|function|choice|prediction|classification)(?:\s+is)?\s*[:=]?\s*"
)
_TRIM = " .,:;!?"


@dataclass(frozen=True)
class FinalText:
    """The part of a completion that is the answer (module docstring, "Reasoning in the text").

    Attributes:
        text: the text after the last ``</think>``, cut at an unclosed ``<think>``.
        cut_off: an opening ``<think>`` with no closing tag after it was found (thinking cut off).
    """

    text: str
    cut_off: bool = False


def final_text(completion: str | None) -> FinalText:
    """Split off the reasoning left in a completion; linear in its length, never raises.

    Args:
        completion: the model's final text (``state.output.completion``), possibly ``None``.

    Returns:
        :class:`FinalText` with the answer part and the ``cut_off`` flag.
    """
    text = completion or ""
    depth = 0  # thinking spans open at the current tag; a closing tag with none open closes the prompt's span
    last_close: int | None = None
    still_open = False  # a span was still open at the last closing tag: the answer is inside thinking
    for tag in _THINK_TAG.finditer(text):
        if tag.group(1):
            depth = max(0, depth - 1)
            last_close, still_open = tag.end(), depth > 0
        else:
            depth += 1
    if last_close is not None:
        if still_open:
            return FinalText("", cut_off=True)
        text = text[last_close:]
    opening = THINK_OPEN.search(text)
    if opening is not None:
        return FinalText(text[: opening.start()], cut_off=True)
    return FinalText(text, cut_off=False)


def strip_reasoning(text: str | None) -> str:
    """The answer part of a completion: the text after the last ``</think>``, cut at an unclosed ``<think>``
    (:func:`final_text`; rule in the module docstring)."""
    return final_text(text).text


def normalise(text: str) -> str:
    """Lower-case, drop markdown / brackets / quotes / ``\\boxed``, and collapse ``_ - '`` and white space
    into one space."""
    text = _NOISE.sub(" ", text.lower())
    return _SEPARATORS.sub(" ", text).strip()


# --- answer markers (shared with the dialogue relation parser) ---------------------------------------------

_W = r"(?<![^\W_])"  # no letter or digit just before
_E = r"(?![^\W_])"  # no letter or digit just after
_SP = r"[ \t]+"
_ADVERB = rf"(?:{_SP}(?:clearly|probably|likely|most{_SP}likely|definitely|therefore|thus|simply|certainly){_E})?"

ANSWER_MARKER = re.compile(
    rf"""(?:(?=[alrfcpvoswim\\#*_])|(?=[ \t])^){_W}(?:
        (?:answer|label|relation(?:{_SP}type)?|relations|function|choice|classification|prediction|category
           |verdict|output|structure){_E}
        (?:{_SP}(?:of|between|for){_SP}[^.\n:;!?]{{0,59}}?[^.\n:;!?\s])?
        [ \t]*(?:(?:\*\*|__)[ \t]*)?
        (?::|=|->|=>|→|{_W}(?:is|are|would{_SP}be|should{_SP}be|will{_SP}be|remains){_E})
        {_ADVERB}
      | (?:i|we)(?:['’](?:d|ll|m))?
        (?:{_SP}(?:would|will|should|shall|must|can|do|now|then|therefore|thus|finally|rather|instead|still
           |definitely|am|['’]m|going{_SP}to)){{0,4}}
        {_SP}(?:choose|chose|pick|picked|select|selected|go{_SP}with|going{_SP}with|went{_SP}with|opt{_SP}for
           |settle{_SP}on|call{_SP}(?:it|this)|label{_SP}(?:it|this)(?:{_SP}as)?|classify{_SP}(?:it|this){_SP}as
           |answer|say|conclude){_E}
        (?:{_SP}(?:it|this|that)(?:['’]s|{_SP}is){_E})?
        (?:{_SP}(?:the{_SP})?(?:label|relation|answer|option|function){_E})?
      | (?:correct(?:ed|ion)|correcting(?:{_SP}myself)?|actually|on{_SP}second{_SP}thought|on{_SP}reflection|wait
           |or{_SP}rather){_E}
        [ \t]*(?:[,:;][ \t]*)?
        (?:(?:no|it['’]s|it{_SP}is|it{_SP}should{_SP}be|should{_SP}be|the{_SP}answer{_SP}is){_E}[ \t]*[,:;]?)?
      | \\boxed[ \t]*\{{[ \t]*(?:\\text(?:bf|rm)?[ \t]*\{{)?
      | ^[ \t]*A[ \t]*:(?![^\n]*\n[ \t]*B[ \t]*[:.)])
      | ^[ \t]*(?:\#{{1,6}}[ \t]*)?(?:(?:\*\*|__)[ \t]*)?(?:(?:final|correct|my){_SP})?(?:answer|label|relation|choice)
        [ \t]*(?:(?:\*\*|__)[ \t]*)?(?::[ \t]*)?(?:(?:\*\*|__)[ \t]*)?(?=\r?\n)
    )""",
    re.IGNORECASE | re.VERBOSE | re.MULTILINE,
)
"""An answer marker (module docstring, layer 2); the marked text starts at the end of the match."""

CONTINUATION = re.compile(
    r"^[ \t#>*_\-]*(?:q|question|quesiton|input|example(?:[ \t]+\d{1,3})?|user|human|context|document|sentences?|text"
    r"|passage|dialogue|options|given[ \t]+the[ \t]+(?:document|sentences?|text|dialogue))"
    r"[ \t]*(?:(?:\*\*|__)[ \t]*)?:",
    re.IGNORECASE | re.MULTILINE,
)
"""A line that starts a new question, few-shot style (``Q:``, ``Question:``, ``Input:``, ``Given the document:``,
``Options:`` …): after an answer, the model is inventing the next example (module docstring, "Continuation")."""


def continuation_start(text: str, after: int) -> int | None:
    """Offset of the first :data:`CONTINUATION` line starting at or after ``after``, ``None`` if there is none
    (one scan from ``after``)."""
    match = CONTINUATION.search(text, after)
    return match.start() if match is not None else None


CONCLUSION = re.compile(
    r"(?=[tshcouia])(?<![^\W_])(?:therefore|thus|so|hence|consequently|overall|ultimately|in[ \t]+(?:conclusion|summary|short)"
    r"|to[ \t]+(?:conclude|summari[sz]e)|all[ \t]+in[ \t]+all)(?![^\W_])",
    re.IGNORECASE,
)
"""A conclusion cue (``Therefore``, ``So``, ``In conclusion`` …); it opens a concluding sentence when only white
space, markdown or bullets stand between it and the previous sentence end or line break (:func:`conclusion_ends`)."""

_SENTENCE_BREAK = re.compile(r"[.!?\n]")


def _opens_sentence(text: str, pos: int) -> bool:
    """Only spaces, tabs or markdown (at most 16 characters) stand between ``pos`` and the text's start, a line
    break or ``.`` ``!`` ``?`` ``:``."""
    k, low = pos, max(0, pos - 16)
    while k > low and text[k - 1] in " \t*_#>-":
        k -= 1
    return k == 0 or text[k - 1] in ".!?:\n\r"


def conclusion_ends(text: str) -> list[int]:
    """End offsets of the :data:`CONCLUSION` cues that open a sentence, ascending (one scan, a bounded look-back
    per cue)."""
    return [m.end() for m in CONCLUSION.finditer(text) if _opens_sentence(text, m.start())]


def in_conclusion(text: str, cues: Sequence[int], start: int, after: int = 0, reach: int = 200) -> bool:
    """Whether offset ``start`` lies in a concluding sentence: the last cue end ``e <= start`` of
    :func:`conclusion_ends` is ``>= after``, at most ``reach`` characters back, with no sentence end between."""
    i = bisect_right(cues, start) - 1
    if i < 0 or cues[i] < after or start - cues[i] > reach:
        return False
    return _SENTENCE_BREAK.search(text, cues[i], start) is None


MARK_GAP = re.compile(r"[\s*_`'\"“”‘’\[(<:=\-–—>]*")
"""What may stand between an answer marker and the answer it marks (``fullmatch`` on the gap)."""


def marker_ends(text: str) -> list[int]:
    """End offsets of every :data:`ANSWER_MARKER` in ``text``, ascending (one linear scan)."""
    return [m.end() for m in ANSWER_MARKER.finditer(text)]


def marked(text: str, ends: Sequence[int], start: int, after: int = 0) -> bool:
    """Whether the text at offset ``start`` is marked: the last marker end ``e <= start`` is ``>= after`` and
    only :data:`MARK_GAP` characters stand in ``text[e:start]``.

    Args:
        text: the answer text.
        ends: :func:`marker_ends` of ``text``.
        start: offset of the candidate answer (a label mention, a relation).
        after: no marker ending before this offset counts (the end of the previous answer item), which keeps
            the gaps of successive items disjoint and the total work linear.
    """
    return _follows(text, ends, start, after, MARK_GAP)


def _follows(text: str, ends: Sequence[int], start: int, after: int, gap: re.Pattern[str]) -> bool:
    i = bisect_right(ends, start) - 1
    if i < 0 or ends[i] < after:
        return False
    return gap.fullmatch(text, ends[i], start) is not None


REJECTION_CUE = re.compile(
    rf"(?=[nrioeua]){_W}(?:not|no|non|nor|neither|never|rather{_SP}than|instead{_SP}of|other{_SP}than|except(?:{_SP}for)?"
    rf"|excluding|ruling{_SP}out|rules?{_SP}out|unlike|isn['’]t|aren['’]t){_E}",
    re.IGNORECASE,
)
"""A word that rejects the label after it (module docstring, layer 4)."""

_REJECT_GAP = re.compile(
    rf"(?:[\s*_`'\"“”‘’\[(\-]|{_W}(?:a|an|the|really|quite|simply|necessarily|purely|exactly){_E})*", re.IGNORECASE
)


def rejection_ends(text: str) -> list[int]:
    """End offsets of every :data:`REJECTION_CUE` in ``text``, ascending (one linear scan)."""
    return [m.end() for m in REJECTION_CUE.finditer(text)]


def rejected(text: str, ends: Sequence[int], start: int, after: int = 0) -> bool:
    """Whether the text at ``start`` is rejected: the last cue end ``e <= start`` (of :func:`rejection_ends`) is
    ``>= after`` and only white space, markdown, quotes, an article or ``really`` / ``quite`` / ``simply`` /
    ``necessarily`` / ``purely`` / ``exactly`` stand between (``not a comment``, ``rather than BEFORE``)."""
    return _follows(text, ends, start, after, _REJECT_GAP)


# --- label mentions ---------------------------------------------------------------------------------------

_COORDINATION = re.compile(
    r"[\s*_`'\"“”‘’]*(?:(?:,[\s*_`'\"“”‘’]*)?(?:or|nor|and)(?![^\W_])|/)[\s*_`'\"“”‘’]*", re.IGNORECASE
)
_HEDGE = re.compile(
    r"[\s*_`'\"“”‘’)\]]*"
    r"(?:,(?:[\s*_`'\"“”‘’]*or(?![^\W_]))?|/|\||and/or(?![^\W_])|or(?![^\W_])|and(?![^\W_])|vs\.?|versus(?![^\W_]))"
    r"[\s*_`'\"“”‘’(\[]*(?:(?:maybe|possibly|perhaps)[\s*_`'\"“”‘’(\[]+)?",
    re.IGNORECASE,
)
_DETERMINER_BEFORE = re.compile(
    r"(?<![^\W_])(?:the|this|that|these|those|its|their|his|her|our|your|my)[ \t]+$", re.IGNORECASE
)
_OF_AFTER = re.compile(r"[ \t]+of(?![^\W_])", re.IGNORECASE)
_BOLD_BEFORE = re.compile(r"(?:\*\*|__)[ \t]{0,2}$")
_BOLD_COLON_AFTER = re.compile(r"[ \t]{0,2}(?::[ \t]{0,2}(?:\*\*|__)|(?:\*\*|__)[ \t]{0,2}:)")
_ALONE_PREFIX = re.compile(r"[ \t]*(?:[-+•][ \t]+|\d{1,2}[.)][ \t]+)?(?:\*\*|__)[ \t]{0,2}")
_ALONE_SUFFIX = re.compile(r"[ \t]{0,2}[.!]?(?:\*\*|__)[ \t]*[.!]?[ \t]*\r?")
_HEADER_LINE = re.compile(r"[ \t]{0,3}#")
_LOOK = 16  # characters looked at around a mention for the bounded context checks
_FIELD_PREFIX = re.compile(r"[ \t]*(?:[-+*•][ \t]+|\d{1,2}[.)][ \t]+)?(?:\*\*|__)[ \t]{0,2}")
_CONCLUSION_CUE = re.compile(r"[\s*_#>\-]*" + CONCLUSION.pattern, re.IGNORECASE)
_COPULA_BEFORE = re.compile(
    r"(?<![^\W_])(?:is|are|was|were|would[ \t]+be|should[ \t]+be|must[ \t]+be|remains"
    r"|(?:best[ \t]+)?(?:described|classified|labell?ed|categori[sz]ed)[ \t]+as)"
    r"(?:[ \t]+(?:clearly|probably|likely|most[ \t]+likely|definitely|certainly|indeed))?(?:[ \t]+(?:a|an|the))?"
    r"[ \t]*[*_`'\"“”‘’(\[]*$",
    re.IGNORECASE,
)
_SENTENCE_END_AFTER = re.compile(r"[*_`'\"“”‘’)\]]*[ \t]*(?:[.!]|$)", re.MULTILINE)
_SENTENCE = 200  # longest concluding sentence looked at (characters before the label)
_COPULA_LOOK = 48  # characters before the label in which the copula is looked for


@dataclass(frozen=True)
class _Mention:
    start: int
    end: int
    label: str
    surface: str


@dataclass(frozen=True)
class ParsedLabel:
    """Result of reading one answer (rules in the module docstring).

    Attributes:
        label: canonical label (as spelled in the label set) or ``None`` when invalid.
        candidates: distinct labels mentioned anywhere in the answer, in order of first mention (including
            rejected, header and lower-case mentions: what a reader of the log wants to see).
        ambiguous: invalid because several labels were named and no layer chose one (a hedge, a list).
        echo: ambiguous, and the labels named are ≥ 3 and ≥ half of the label set (:func:`is_echo`).
        rule: the layer that chose the label: ``"whole"``, ``"marker"``, ``"first_line"`` or ``"single"``;
            ``None`` when invalid.
        cut_off: the reply was cut off: the completion ends inside an unclosed ``<think>`` (:func:`final_text`) or
            the reader was told it stopped at the budget (then only a stated answer is read: module docstring, "Cut
            off at the budget").
        markup: invalid because the answer holds markup (:func:`has_markup`).
    """

    label: str | None
    candidates: tuple[str, ...] = field(default_factory=tuple)
    ambiguous: bool = False
    echo: bool = False
    rule: str | None = None
    cut_off: bool = False
    markup: bool = False

    @property
    def invalid(self) -> bool:
        """No label could be read from the answer."""
        return self.label is None


def check_aliases(labels: Sequence[str], aliases: Mapping[str, str]) -> dict[str, str]:
    """Validate an alias table and return the lookup ``normalised spelling -> label`` (labels included).

    Raises:
        ValueError: an alias points outside ``labels``, or two spellings that normalise alike (an alias and a
            label, or two aliases) point to different labels — an alias must never map onto two labels.
    """
    lookup: dict[str, str] = {}
    for label in labels:
        key = normalise(label)
        if key in lookup and lookup[key] != label:
            raise ValueError(f"labels {lookup[key]!r} and {label!r} normalise alike ({key!r})")
        lookup[key] = label
    for alias, label in aliases.items():
        if label not in labels:
            raise ValueError(f"alias {alias!r} points to {label!r}, which is not one of the labels {list(labels)}")
        key = normalise(alias)
        if not key:
            raise ValueError(f"alias {alias!r} is empty once normalised")
        if key in lookup and lookup[key] != label:
            raise ValueError(f"alias {alias!r} maps onto two labels: {lookup[key]!r} and {label!r}")
        lookup[key] = label
    return lookup


@lru_cache(maxsize=64)
def _matcher(labels: tuple[str, ...], aliases: tuple[tuple[str, str], ...]) -> tuple[dict[str, str], re.Pattern[str]]:
    lookup = check_aliases(labels, dict(aliases))
    # longest first, so that "is included" wins over "included" and "non elaboratory" over "elaboratory"
    alternatives = sorted(lookup, key=len, reverse=True)
    words = ("[\\s_\\-]+".join(re.escape(w) for w in key.split(" ")) for key in alternatives)
    first = "".join(sorted({re.escape(key[0]) for key in alternatives}))  # a cheap test before the look-behind
    pattern = re.compile(rf"(?=[{first}])(?<![^\W_])(" + "|".join(words) + r")(?![^\W_])", re.IGNORECASE)
    return lookup, pattern


def _clean_whole(text: str) -> str:
    """Layer-1 / layer-3 form of a text: normalised, leading answer marker and surrounding punctuation dropped."""
    text = normalise(text).strip(_TRIM)
    return _PREFIX.sub("", text).strip(_TRIM)


def _first_line(text: str) -> str | None:
    for line in text.splitlines():
        if line.strip():
            stripped = line.strip().rstrip("*_ \t")
            if stripped.startswith("#") or stripped.endswith(":"):
                return None
            return line
    return None


_BULLET = re.compile(r"^\s*(?:[-*•+]|\d{1,3}[.)])\s+")


def _label_list(text: str, first: str, lookup: dict[str, str]) -> bool:
    """Whether ``first`` (a bulleted line) opens a list of which another bulleted line is another label."""
    if not _BULLET.match(first):
        return False
    own = lookup[_clean_whole(first)]
    for line in text.splitlines():
        if line is not first and _BULLET.match(line):
            other = lookup.get(_clean_whole(_BULLET.sub("", line)))
            if other is not None and other != own:
                return True
    return False


class _Lines:
    """Line boundaries of a text, found once (bisect per query keeps the per-mention work constant)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.breaks = [m.start() for m in re.finditer("\n", text)]

    def bounds(self, pos: int) -> tuple[int, int]:
        i = bisect_left(self.breaks, pos)
        start = self.breaks[i - 1] + 1 if i > 0 else 0
        end = self.breaks[i] if i < len(self.breaks) else len(self.text)
        return start, end


def _on_header_line(text: str, lines: _Lines, m: _Mention) -> bool:
    """The mention sits on a markdown ATX header line (``### Elaboration``)."""
    return _HEADER_LINE.match(text, lines.bounds(m.start)[0]) is not None


def _is_field_name(text: str, lines: _Lines, m: _Mention) -> bool:
    """The mention is a bold field name at the start of its line (a bullet or list number allowed):
    ``**Comment:**`` or ``- **Comment**:``. A bold label with a colon inside a sentence is not one."""
    before = text[max(0, m.start - 4) : m.start]
    if not (_BOLD_BEFORE.search(before) and _BOLD_COLON_AFTER.match(text, m.end) is not None):
        return False
    line_start = lines.bounds(m.start)[0]
    return m.start - line_start <= _LOOK and _FIELD_PREFIX.fullmatch(text, line_start, m.start) is not None


def _is_concluded(text: str, m: _Mention, last_content: int, last_counts: bool = True) -> bool:
    """The mention ends a concluding sentence after a copula: ``Therefore, the relation is BEFORE.``,
    ``So, … is **Temporal**.`` (a conclusion cue opens the sentence), or (``last_counts``) the answer's last
    sentence ``The function here is Emphatic.`` (module docstring, layer 2)."""
    end = _SENTENCE_END_AFTER.match(text, m.end)
    if end is None:
        return False
    window_start = max(0, m.start - _SENTENCE)
    window = text[window_start : m.start]
    boundary = max(window.rfind(c) for c in ".!?\n")
    if boundary < 0 and window_start > 0:
        return False
    sentence_start = window_start + boundary + 1
    if _COPULA_BEFORE.search(text, max(sentence_start, m.start - _COPULA_LOOK), m.start) is None:
        return False
    if _CONCLUSION_CUE.match(text, sentence_start, m.start) is not None:
        return True
    return last_counts and end.end() >= last_content


def _is_bold_alone(text: str, lines: _Lines, m: _Mention) -> bool:
    """``**label**`` alone on its line (a bullet and a final full stop allowed)."""
    line_start, line_end = lines.bounds(m.start)
    if m.start - line_start > _LOOK or line_end - m.end > _LOOK:
        return False
    return (
        _ALONE_PREFIX.fullmatch(text, line_start, m.start) is not None
        and _ALONE_SUFFIX.fullmatch(text, m.end, line_end) is not None
    )


def _is_ordinary_noun(text: str, m: _Mention) -> bool:
    """``the frame of …``: a determiner just before and ``of`` just after."""
    return bool(_DETERMINER_BEFORE.search(text[max(0, m.start - _LOOK) : m.start])) and bool(
        _OF_AFTER.match(text, m.end)
    )


def _mentions(text: str, lookup: dict[str, str], pattern: re.Pattern[str]) -> list[_Mention]:
    found = []
    for match in pattern.finditer(text):
        label = lookup.get(normalise(match.group(1)))
        if label is not None:
            found.append(_Mention(match.start(1), match.end(1), label, match.group(1)))
    return found


def _distinct(labels: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(labels))


def _in_capitals(surface: str) -> bool:
    return surface == surface.upper()


def parse_label(
    completion: str | None, labels: Sequence[str], aliases: Mapping[str, str] | None = None, cut_off: bool = False
) -> ParsedLabel:
    """Read the label a model chose (layered rule in the module docstring); linear in the answer's length.

    Args:
        completion: the model's final text (``state.output.completion``, never the reasoning).
        labels: the canonical label set of the dataset (Appendix B prompts).
        aliases: ``variant -> canonical label`` spellings also accepted (the task's ``aliases.py``).
        cut_off: the generation stopped at the budget (:attr:`bediscover_inspect.causes.Reply.cut_off`): only a
            stated answer is read (module docstring, "Cut off at the budget").

    Returns:
        :class:`ParsedLabel`; never raises on any string.

    Raises:
        ValueError: a bad alias table (:func:`check_aliases`; a programming error, not a model error).
    """
    lookup, pattern = _matcher(tuple(labels), tuple(sorted((aliases or {}).items())))
    final = final_text(completion)
    if has_markup(final.text):
        return ParsedLabel(None, cut_off=final.cut_off or cut_off, markup=True)
    return _parse_label(final.text, labels, lookup, pattern, final.cut_off or cut_off, continued=True)


def _parse_label(
    text: str,
    labels: Sequence[str],
    lookup: dict[str, str],
    pattern: re.Pattern[str],
    cut_off: bool,
    continued: bool,
) -> ParsedLabel:
    """:func:`parse_label` on the answer part; ``continued``: look for a few-shot continuation to cut off; ``cut_off``:
    only a stated answer counts (no bold label alone, no last sentence read as a conclusion, no layer 4)."""
    whole = _clean_whole(text)
    if whole in lookup:
        return ParsedLabel(lookup[whole], (lookup[whole],), rule="whole", cut_off=cut_off)
    mentions = _mentions(text, lookup, pattern)
    if not mentions:
        return ParsedLabel(None, (), cut_off=cut_off)
    answer = _Answer.read(text, lookup, mentions)
    marks = _marked_mentions(answer, cut_off)
    stop = _continuation_stop(answer, marks) if continued else None
    if stop is not None:
        return _parse_label(text[:stop], labels, lookup, pattern, cut_off, continued=False)
    candidates = _distinct([m.label for m in mentions])
    if marks:  # layer 2: the last marked choice
        return _marked_choice(answer, marks[-1], candidates, cut_off)
    if answer.first_label is not None:  # layer 3: a lone label on the first line
        return ParsedLabel(answer.first_label, candidates, rule="first_line", cut_off=cut_off)
    if cut_off:  # an unfinished answer names labels on its way: naming one is no statement of choice
        return ParsedLabel(None, candidates, cut_off=True)
    return _single_choice(_distinct(_named_labels(answer, labels)), len(set(labels)), candidates)


def _single_choice(named: tuple[str, ...], n_labels: int, candidates: tuple[str, ...]) -> ParsedLabel:
    """Layer 4 and 5: the one distinct label ``named``; invalid when none is, ambiguous (an echo of the label list of
    ``n_labels`` labels, :func:`is_echo`) when several are."""
    if len(named) == 1:
        return ParsedLabel(named[0], candidates, rule="single")
    if not named:
        return ParsedLabel(None, candidates)
    return ParsedLabel(None, candidates, ambiguous=True, echo=is_echo(len(named), n_labels))


@dataclass(frozen=True)
class _Answer:
    """An answer text with its label mentions and what every layer looks at, found once.

    Attributes:
        text: the answer part of the completion.
        mentions: the label mentions in ``text``, in order.
        lines: ``text``'s line boundaries.
        fields: per mention, whether it is a bold field name (:func:`_is_field_name`).
        first_label: the label that the first non-blank line is (layer 3), ``None`` when it is none, a header or
            the first item of a list of labels.
        first_end: the offset where that first line ends (``None`` with no ``first_label``).
    """

    text: str
    mentions: list[_Mention]
    lines: _Lines
    fields: list[bool]
    first_label: str | None
    first_end: int | None

    @classmethod
    def read(cls, text: str, lookup: dict[str, str], mentions: list[_Mention]) -> _Answer:
        """The :class:`_Answer` of ``text`` with its ``mentions`` (:func:`_mentions` with ``lookup``)."""
        lines = _Lines(text)
        first = _first_line(text)
        first_label = first_end = None
        if first is not None and _clean_whole(first) in lookup and not _label_list(text, first, lookup):
            first_label, first_end = lookup[_clean_whole(first)], text.index(first) + len(first)
        fields = [_is_field_name(text, lines, m) for m in mentions]
        return cls(text, mentions, lines, fields, first_label, first_end)


def _marked_mentions(answer: _Answer, cut_off: bool) -> list[int]:
    """Indices of the mentions that are marked choices (layer 2): after an answer marker, a bold label alone on its
    line (not when ``cut_off``), or the end of a concluding sentence (the last sentence only when not ``cut_off``);
    never a bold field name."""
    text = answer.text
    ends = marker_ends(text)
    last_content = len(text.rstrip(" \t\r\n*_`'\"“”‘’"))
    marks: list[int] = []
    previous_end = 0
    for i, m in enumerate(answer.mentions):
        if not answer.fields[i] and (
            marked(text, ends, m.start, previous_end)
            or (not cut_off and _is_bold_alone(text, answer.lines, m))
            or _is_concluded(text, m, last_content, last_counts=not cut_off)
        ):
            marks.append(i)
        previous_end = m.end
    return marks


def _continuation_stop(answer: _Answer, marks: Sequence[int]) -> int | None:
    """Where a new question of the model's own starts after its first answer (the first marked mention, or a label
    alone on the first line); ``None`` when there is no first answer or no such line (module docstring,
    "Continuation")."""
    answered = [answer.mentions[marks[0]].end] if marks else []
    if answer.first_end is not None:
        answered.append(answer.first_end)
    return continuation_start(answer.text, min(answered)) if answered else None


def _marked_choice(answer: _Answer, last: int, candidates: tuple[str, ...], cut_off: bool) -> ParsedLabel:
    """The label of the last marked mention (index ``last``), or an ambiguous answer when that choice is a hedge:
    the next mention, of another label, follows it with only ``or``, ``/``, ``,`` … between."""
    chosen = answer.mentions[last]
    following = answer.mentions[last + 1] if last + 1 < len(answer.mentions) else None
    if (
        following is not None
        and following.label != chosen.label
        and _HEDGE.fullmatch(answer.text, chosen.end, following.start) is not None
    ):
        return ParsedLabel(None, candidates, ambiguous=True, cut_off=cut_off)
    return ParsedLabel(chosen.label, candidates, rule="marker", cut_off=cut_off)


def _named_labels(answer: _Answer, labels: Sequence[str]) -> list[str]:
    """The labels that the mentions *name* (layer 4), in order: not rejected (:func:`_is_rejected`), not in a header
    or a bold field name, not an ordinary noun, and in capitals where every label is."""
    capitals = all(label == label.upper() and label.lower() != label for label in labels)
    cue_ends = rejection_ends(answer.text)
    named: list[str] = []
    rejected_before = False
    for i, m in enumerate(answer.mentions):
        previous = answer.mentions[i - 1] if i else None
        is_rejected = _is_rejected(answer.text, cue_ends, m, previous, rejected_before)
        if not is_rejected and _names_its_label(answer, i, capitals):
            named.append(m.label)
        rejected_before = is_rejected
    return named


def _is_rejected(
    text: str, cue_ends: Sequence[int], m: _Mention, previous: _Mention | None, previous_rejected: bool
) -> bool:
    """The mention follows a rejection cue (:func:`rejected`), or is coordinated by ``or`` / ``nor`` / ``and`` /
    ``/`` with the ``previous`` mention, itself rejected (``not BEFORE or AFTER``)."""
    if rejected(text, cue_ends, m.start, previous.end if previous else 0):
        return True
    return (
        previous_rejected and previous is not None and _COORDINATION.fullmatch(text, previous.end, m.start) is not None
    )


def _names_its_label(answer: _Answer, i: int, capitals: bool) -> bool:
    """Mention ``i`` names its label unless it is a bold field name, on a header line, an ordinary noun, or not
    in capitals where every label is (``capitals``)."""
    m = answer.mentions[i]
    if answer.fields[i] or _on_header_line(answer.text, answer.lines, m) or _is_ordinary_noun(answer.text, m):
        return False
    return not capitals or _in_capitals(m.surface)


_BLANKS = re.compile(r"\s+")


def copies_prompt(answer: str, prompt: str, min_chars: int = 20) -> bool:
    """Whether ``answer`` is an echo of ``prompt``: it holds, verbatim (white space collapsed), at least half of the
    prompt's lines of ``min_chars`` characters or more (at least one). Every task counts an echo as invalid, with its
    own rate ``echo`` (the label tasks also count the label-list echo of :func:`is_echo`; sentence ordering an
    echo of the tagged sentences, :func:`~bediscover_inspect.sentence_ordering.parsing.echoes_sentences`). Linear
    in the answer's length for a given prompt (one substring search per prompt line)."""
    lines = [line for line in (_BLANKS.sub(" ", raw).strip() for raw in prompt.splitlines()) if len(line) >= min_chars]
    if not lines:
        return False
    text = _BLANKS.sub(" ", answer)
    return 2 * sum(line in text for line in lines) >= len(lines)


def is_echo(n_found: int, n_labels: int) -> bool:
    """Whether ``n_found`` distinct labels named out of ``n_labels`` is an echo of the label list (≥ 3 and
    ≥ half of the set; module docstring, layer 5)."""
    return n_found >= 3 and 2 * n_found >= n_labels
