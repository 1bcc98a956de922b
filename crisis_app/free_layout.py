"""The free-form crisis release's layout (see `free_release`): what a run's path and a
configuration folder's path say (`parse_run_path`, `parse_configuration`), the labels of
why a file is left out, and the dataclasses a release is read into. Pure."""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import PurePosixPath


FREE, RANK = "free", "rank"
KINDS = (FREE, RANK)
REVERSED = "reversed"
LAYOUT = ("<model>/<free|rank>/<continuation>/[reversed/]<model>-<free|rank>-<True|False>-<samples>-<temperature>/"
          "main/run<k>[_fixed]/run<k>[_fixed].csv")
MOVES = (1, 2)
MAX_TEMPERATURE = 2.0
SLUG = re.compile(r"[-a-zA-Z0-9_]+")
MODEL_NAME = re.compile(r"[-a-zA-Z0-9_.]+")  # the release writes gpt3.5turbo, llama3.170b
RUN_NAME = re.compile(r"run(\d+)(_fixed)?")
MOVE_LABEL = re.compile(r"(?:Move\s+)?([12])(?:\s+Responses)?", re.IGNORECASE)
SCORE_SUFFIX = {FREE: "_berts.npz", RANK: "_ranks.npz"}
SCORE_ARRAY = {FREE: "move{move}", RANK: "kendall_move{move}"}
CHAT_NAMES = ("chat.csv", "chat_fixed.csv")
MODEL_NAME_MAX = 80  # LLMModel.name
CONTINUATION_NAME_MAX = 64  # Continuation.name

# Why a file is left out: the label the summary counts, then the file's own detail.
REPLACED = "replaced by its _fixed run"
PREVS = "prevs/: a run set aside for its _fixed twin"
OUTSIDE = "outside a run folder of the layout"
NOT_OF_RUN = "in a run folder but not the run's CSV or score archive"
FLAWED = "flaw (see the flaws)"
CHAT_SUPERSEDED = "conversation superseded by chat_fixed.csv"
CHAT_DIFFERS = "conversation differs from the one kept for its variant"
CHAT_NO_CONTINUATION = "conversation without a continuation in its path"
NOT_A_CHAT = "in the chats tree but not a conversation"


@dataclass(frozen=True)
class Configuration:
    """What a configuration folder's path says."""

    model: str
    kind: str
    continuation: str
    reversed: bool
    explicit: bool
    samples: int
    temperature: float

    @property
    def variant(self) -> tuple[str, bool, bool]:
        return (self.kind, self.explicit, self.reversed)


@dataclass(frozen=True)
class RunPath:
    """What a run's path says: the model, the continuation, the telling and the sampling."""

    relative: str
    model: str
    continuation: str
    explicit: bool
    samples: int
    temperature: float
    run: int
    fixed: bool
    kind: str = FREE
    reversed: bool = False

    @property
    def variant_folder(self) -> str:
        """The `main` folder that holds this run and its fixed or unfixed twin."""
        return str(PurePosixPath(self.relative).parent.parent)

    @property
    def run_folder(self) -> str:
        return str(PurePosixPath(self.relative).parent)

    @property
    def npz_relative(self) -> str:
        """The score archive named as its folder (run<k>[_fixed]_<berts|ranks>.npz)."""
        path = PurePosixPath(self.relative)
        return str(path.with_name(path.stem + SCORE_SUFFIX[self.kind]))

    @property
    def score_candidates(self) -> list[str]:
        """Archive names this run's scores may have, preferred first: the release names a
        fixed run's archive run<k>_berts.npz inside run<k>_fixed/."""
        names = [self.npz_relative, f"{self.run_folder}/run{self.run}{SCORE_SUFFIX[self.kind]}"]
        return list(dict.fromkeys(names))

    @property
    def variant(self) -> tuple[str, bool, bool]:
        return (self.kind, self.explicit, self.reversed)


@dataclass
class ReleaseRun:
    path: RunPath
    answers: dict[int, list[str]]  # move -> the samples' answers, Response 1 first
    inconsistencies: dict[int, list[float]] | None = None  # move -> pair values, or None without an npz
    score_relative: str | None = None  # the archive they came from


@dataclass(frozen=True)
class LeftOut:
    relative: str
    reason: str  # one of the labels above
    detail: str = ""

    def __str__(self):
        return f"{self.relative}: left out: {self.reason}" + (f" ({self.detail})" if self.detail else "")


@dataclass(frozen=True)
class VariantTexts:
    """What one variant's models were asked, split as a simulation holds it:
    move 1 = background, move1_incident, answer_format (joined by blank lines);
    move 2 = the continuation's text, answer_format."""

    role: str | None
    background: str
    move1_incident: str
    answer_format: str
    continuations: dict[str, str]
    sources: tuple[str, ...]  # the conversations these texts were read from


@dataclass
class Release:
    runs: list[ReleaseRun] = field(default_factory=list)
    left_out: list[LeftOut] = field(default_factory=list)
    flaws: list[str] = field(default_factory=list)
    variants: dict[tuple[str, bool, bool], VariantTexts] = field(default_factory=dict)
    conversations: list[str] = field(default_factory=list)  # the conversation files read into `variants`
    notes: list[str] = field(default_factory=list)  # what is imported in part, and why
    files: int = 0  # every file met, in both trees

    def left_out_counts(self) -> Counter:
        return Counter(item.reason for item in self.left_out)


def pair_count(samples: int) -> int:
    """n(n-1)/2: the pairs i < j among n samples."""
    return samples * (samples - 1) // 2


def _shown(text: str, limit: int = 60) -> str:
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f" … ({len(text):,} characters)"


def _name_problem(value: str, what: str, part: int, max_length: int, pattern=SLUG, allowed="letters, digits, - and _"
                  ) -> str | None:
    if not pattern.fullmatch(value) or value.startswith("."):
        return f"part {part} ({what}) {_shown(value)} may use only {allowed}: rename the folder"
    if len(value) > max_length:
        return f"part {part} ({what}) is {len(value)} characters long; rename the folder to at most {max_length}"
    return None


def parse_configuration(parts: list[str]) -> tuple[Configuration | None, list[str]]:
    """The configuration of `<model>/<kind>/<continuation>/[reversed/]<config>` (the
    parts of a path up to its configuration folder), or None and each part that does not fit."""
    if len(parts) not in (4, 5) or (len(parts) == 5 and parts[3] != REVERSED):
        where = f"part 4 is {_shown(parts[3])} where the layout has 'reversed' or the configuration folder" \
            if len(parts) == 5 else f"the configuration folder is part {len(parts)} where the layout has 4 (or 5 " \
                                    "after reversed/)"
        return None, [where]
    model, kind, continuation = parts[:3]
    folder = parts[-1]
    number = len(parts)
    problems = []
    model_problem = _name_problem(model, "model", 1, MODEL_NAME_MAX, MODEL_NAME, "letters, digits, ., - and _")
    if model_problem:
        problems.append(model_problem)
    if kind not in KINDS:
        problems.append(f"part 2 is {_shown(kind)} where the layout has free or rank")
        kind = None
    continuation_problem = _name_problem(continuation, "continuation", 3, CONTINUATION_NAME_MAX)
    if continuation_problem:
        problems.append(continuation_problem)
    explicit = samples = temperature = None
    prefix = f"{model}-{kind}-"
    pieces = folder[len(prefix):].split("-") if folder.startswith(prefix) else []
    if kind is None:
        pass
    elif not folder.startswith(prefix):
        problems.append(f"part {number} {_shown(folder)} does not begin with {_shown(prefix)} "
                        f"(<model>-<free|rank>-<True|False>-<samples>-<temperature>, the model as in part 1)")
    elif len(pieces) != 3:
        problems.append(f"part {number} {_shown(folder)} has {len(pieces)} field(s) after {_shown(prefix)} where the "
                        "layout has 3: <True|False>-<samples>-<temperature>")
    else:
        explicit_text, samples_text, temperature_text = pieces
        if explicit_text in ("True", "False"):
            explicit = explicit_text == "True"
        else:
            problems.append(f"part {number}: explicit {_shown(explicit_text)} is neither True nor False")
        if samples_text.isascii() and samples_text.isdigit() and int(samples_text) >= 1:
            samples = int(samples_text)
        else:
            problems.append(f"part {number}: samples {_shown(samples_text)} is not a whole number of at least 1")
        try:
            temperature = float(temperature_text)
        except ValueError:
            problems.append(f"part {number}: temperature {_shown(temperature_text)} is not a number")
        else:
            if not (math.isfinite(temperature) and 0 <= temperature <= MAX_TEMPERATURE):
                problems.append(f"part {number}: temperature {_shown(temperature_text)} is not between 0 and "
                                f"{MAX_TEMPERATURE:g}")
                temperature = None
    if problems:
        return None, problems
    return Configuration(model=model, kind=kind, continuation=continuation, reversed=number == 5, explicit=explicit,
                         samples=samples, temperature=temperature), []


def parse_run_path(relative: str) -> tuple[RunPath | None, list[str]]:
    """The run a CSV's path (relative to the release directory, `/`-separated) describes,
    or None and why not: each part of the layout that does not fit, by its number."""
    parts = relative.split("/")
    if len(parts) not in (7, 8):
        return None, [f"{relative}: {len(parts)} parts where the layout has 7 (8 with reversed/): move the file to "
                      f"{LAYOUT}"]
    main, run_folder, filename = parts[-3:]
    configuration, problems = parse_configuration(parts[:-3])
    if main != "main":
        problems.append(f"part {len(parts) - 2} is {_shown(main)} where the layout has 'main'")
    run_match = RUN_NAME.fullmatch(run_folder)
    if not run_match:
        problems.append(f"part {len(parts) - 1} {_shown(run_folder)} is not run<k> or run<k>_fixed")
    elif filename != f"{run_folder}.csv":
        problems.append(f"part {len(parts)} {_shown(filename)} is not named as its folder: {run_folder}.csv")
    if problems:
        return None, [f"{relative}: {problem}" for problem in problems]
    c = configuration
    return RunPath(relative=relative, model=c.model, continuation=c.continuation, explicit=c.explicit,
                   samples=c.samples, temperature=c.temperature, run=int(run_match.group(1)),
                   fixed=bool(run_match.group(2)), kind=c.kind, reversed=c.reversed), []
