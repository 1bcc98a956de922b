"""Reading the free-form crisis release (its `logging/outputs/v4` tree, and the
conversations under `logging/chats/v4`) in its own layout. Pure: directories in, plain
dataclasses out; nothing here raises on bad input, and every file met is either read or
listed as left out with its reason.

    <model>/<free|rank>/<continuation>/[reversed/]<model>-<free|rank>-<True|False>-<samples>-<temperature>/
        main/run<k>[_fixed]/run<k>[_fixed].csv       one run: a row per move, a column per sample
        main/run<k>[_fixed]/run<k>_berts.npz         a free run's pairwise 1 - BERTScore F1 (move1, move2)
        main/run<k>[_fixed]/run<k>_ranks.npz         a rank run's pairwise Kendall, Spearman, Hamming distances
        main/chat.csv                                 the conversation of the configuration's last run
        prevs/run<k>.csv                              a run set aside (see below)

What the authors meant, from their code (getresponses.py, utils/game.py, utils/createchats.py,
saveranks.py, metrics/RankEval.py):

* `free` runs answer in free text (RECOMMENDATIONS: … REASONING: …); `rank` runs rank 19
  lettered options (`A: 3` … `S: 18`, one line per option, then REASONING). Their npz
  holds, per move, one value per pair of samples i < j in row-major order.
* `reversed/` is a rank ablation: the same 19 options listed in the reverse order.
* `run<k>_fixed` is run k asked again after the authors fixed the move-2 incident (its
  anonymised telling still named China); it replaces run<k>, and `prevs/run<k>.csv` keeps
  the unfixed run, set aside. Its npz keeps the name run<k>_<berts|ranks>.npz.
* `chat.csv` (Role, Content) is the conversation of a configuration: the system turn (absent
  for Claude, whose API takes it apart), move 1's user turn, the greedy move-1 answer,
  move 2's user turn and the greedy move-2 answer. The chats tree holds the same for
  configurations whose main/ has none; `chat_fixed.csv` supersedes `chat.csv` beside it.

A run's CSV has the header Move Number, Response 1 … Response N; `Move Number` is `1`/`2`
or, as the release writes it, `Move 1 Responses`/`Move 2 Responses`. A flaw reads
`relative/path[:row[:column]]: reason` (rows count CSV records, header = row 1) and keeps
out its run only. The layout's paths, labels and dataclasses are `free_layout`'s.
"""

from __future__ import annotations

import csv
import io
import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import numpy as np

from . import npz_members
# The layout, its labels and the dataclasses of a release (RANK and RunPath: read as free_release.X by its callers).
from .free_layout import (
    CHAT_DIFFERS, CHAT_NAMES, CHAT_NO_CONTINUATION, CHAT_SUPERSEDED, FLAWED, FREE, LAYOUT, MOVE_LABEL, MOVES,
    NOT_A_CHAT, NOT_OF_RUN, OUTSIDE, PREVS, RANK, REPLACED, RUN_NAME, SCORE_ARRAY, SCORE_SUFFIX, Configuration, LeftOut,
    Release, ReleaseRun, RunPath, VariantTexts, _shown, pair_count, parse_configuration, parse_run_path,
)


def expected_header(samples: int) -> list[str]:
    return ["Move Number"] + [f"Response {i}" for i in range(1, samples + 1)]


def _decoded(relative: str, data: bytes) -> tuple[str | None, str | None]:
    if b"\x00" in data:
        return None, f"{relative}: a binary file (NUL byte), not CSV text"
    try:
        return data.decode("utf-8").removeprefix("\ufeff"), None
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        return None, f"{relative}: not UTF-8 text (line {line}, byte 0x{data[error.start]:02x}): save it as UTF-8"


def _header_problem(relative: str, header: list[str], samples: int) -> str | None:
    header = [cell.strip() for cell in header]
    if header == expected_header(samples):
        return None
    if len(header) > 1 and header == expected_header(len(header) - 1):
        return (f"{relative}:1: {len(header) - 1} response column(s) where the path says {samples} samples: "
                f"rename the folder or fix the file")
    shown = ", ".join(_shown(cell, 30) for cell in header[:6]) + (", …" if len(header) > 6 else "")
    return (f"{relative}:1: the header must be Move Number, Response 1 … Response {samples} "
            f"({samples} samples, as the path says); found {shown or 'nothing'}")


def read_answers(relative: str, text: str, samples: int) -> tuple[dict[int, list[str]] | None, list[str]]:
    """{move: answers} of one run's CSV text, or None and every flaw found."""
    flaws = []
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        records = list(reader)
    except csv.Error as error:
        return None, [f"{relative}: not CSV (line {reader.line_num}: {error}): save it as comma-separated values, "
                      "each answer in double quotes"]
    if not records:
        return None, [f"{relative}: empty file: write the header and one row per move"]
    header_problem = _header_problem(relative, records[0], samples)
    if header_problem:
        return None, [header_problem]
    header = expected_header(samples)
    answers: dict[int, list[str]] = {}
    first_row: dict[int, int] = {}
    for row, record in enumerate(records[1:], start=2):
        if not any(cell.strip() for cell in record):
            continue  # a blank line at the end of a file
        if len(record) != len(header):
            flaws.append(f"{relative}:{row}: {len(record)} cells where the header has {len(header)}")
            continue
        move_text = record[0].strip()
        move_match = MOVE_LABEL.fullmatch(move_text)
        move = int(move_match.group(1)) if move_match else None
        if move is None:
            flaws.append(f"{relative}:{row}:Move Number: {_shown(move_text)} is neither 1 nor 2 "
                         "(nor Move 1 Responses, Move 2 Responses)")
            continue
        if move in first_row:
            flaws.append(f"{relative}:{row}:Move Number: move {move} again (first on row {first_row[move]}): "
                         "keep one row per move")
            continue
        first_row[move] = row
        for column, cell in zip(header[1:], record[1:]):
            if not cell.strip():
                flaws.append(f"{relative}:{row}:{column}: empty answer: fill it in or leave this run out")
        answers[move] = list(record[1:])
    for move in MOVES:
        if move not in first_row:
            flaws.append(f"{relative}: no row for move {move}: add it")
    return (None, flaws) if flaws else (answers, [])


def read_inconsistencies(relative: str, data: bytes | Path, samples: int, kind: str = FREE
                         ) -> tuple[dict[int, list[float]] | None, list[str], list[str]]:
    """({move: pair values}, flaws, unscored) of one run's npz (`move<m>` for a free run,
    `kendall_move<m>` for a rank run; other arrays are not read): None and every flaw
    found, or the values of each move without NaN and why the others have none."""
    pairs = pair_count(samples)
    if pairs == 0:
        return None, [f"{relative}: {samples} sample(s) make no pair to score: remove the file"], []
    # Each member's declared size and .npy header are judged before it is inflated, and
    # only the arrays named here are read (npz_members: a small archive may expand to GBs).
    try:
        archive, members = npz_members.open_archive(data)
    except npz_members.ArchiveError as error:
        return None, [f"{relative}: not a readable npz archive ({error}): write it with numpy.savez"], []
    flaws, values, unscored = [], {}, []
    with archive:
        for move in MOVES:
            name = SCORE_ARRAY[kind].format(move=move)
            if name not in members:
                present = ", ".join(sorted(members)[:10]) or "none"
                flaws.append(f"{relative}: no array {name} (the archive has: {present}): add it")
                continue
            array, problem = npz_members.read_flat(archive, members[name], pairs,
                                                   f"{samples} samples make {pairs} pairs (n(n-1)/2)")
            if problem:
                flaws.append(f"{relative}: {problem}")
                continue
            numbers = array.astype(float)
            infinite, missing = np.flatnonzero(np.isinf(numbers)), np.flatnonzero(np.isnan(numbers))
            if len(infinite):
                flaws.append(f"{relative}: {name} value(s) {_positions(infinite)} of {pairs} are infinite")
                continue
            if len(missing):
                # The release's own mean of such a move is NaN (EVALS.ipynb takes m.mean()).
                unscored.append(f"{relative}: {name} value(s) {_positions(missing)} of {pairs} are NaN (the release's "
                                f"own mean is NaN): move {move} of this run gets no imported score")
                continue
            values[move] = [float(value) for value in numbers]
    return (None, flaws, []) if flaws else (values, [], unscored)


def _positions(indexes) -> str:
    return ", ".join(str(i + 1) for i in indexes[:10]) + (", …" if len(indexes) > 10 else "")


def _read_bytes(root: Path, relative: str) -> tuple[bytes | None, str | None]:
    try:
        return (root / relative).read_bytes(), None
    except OSError as error:
        return None, f"{relative}: unreadable ({error.strerror or error})"


# ---------------------------------------------------------------- conversations

@dataclass(frozen=True)
class Conversation:
    relative: str  # as shown: relative to the release directory
    configuration: Configuration
    system: str | None
    move1: str
    move2: str


def read_conversation(relative: str, text: str) -> tuple[tuple[str | None, str, str] | None, str | None]:
    """(system turn or None, move 1's user turn, move 2's user turn) of a chat CSV, or None
    and why not."""
    try:
        records = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    except csv.Error as error:
        return None, f"{relative}: not CSV ({error})"
    if not records or [cell.strip() for cell in records[0]] != ["Role", "Content"]:
        return None, f"{relative}:1: the header must be Role, Content"
    system, users = None, []
    for row, record in enumerate(records[1:], start=2):
        if not record:
            continue
        if len(record) != 2 or record[0] not in ("system", "user", "assistant"):
            return None, f"{relative}:{row}: not a turn (Role system, user or assistant, then Content)"
        if record[0] == "system" and system is None:
            system = record[1]
        elif record[0] == "user":
            users.append(record[1])
    if len(users) < 2:
        return None, f"{relative}: {len(users)} user turn(s) where a conversation has move 1 and move 2"
    # A turn's trailing blank lines vary between the release's files (a newline at the
    # end of some); the product's questions end at their last character.
    return (system.rstrip() if system is not None else None, users[0].rstrip(), users[1].rstrip()), None


def _paragraph_suffix(texts: list[str]) -> str:
    """The longest suffix common to all texts that begins a paragraph (after a blank line) in each."""
    first = texts[0]
    common = 0
    while common < len(first) and all(len(t) > common and t[-1 - common] == first[-1 - common] for t in texts):
        common += 1
    for start in range(len(first) - common, len(first)):
        suffix = first[start:]
        if all(t[:len(t) - len(suffix)].endswith("\n\n") for t in texts):
            return suffix
    return ""


def split_texts(move1: str, move2s: dict[str, str]) -> tuple[tuple[str, str, str, dict[str, str]] | None, str | None]:
    """(background, move1_incident, answer_format, {continuation: text}) such that move 1 is
    background, move1_incident and answer_format joined by blank lines (an empty incident
    left out) and each move 2 is its text and answer_format; or None and why not. The
    answer format is what move 1 and move 2 end with alike; the incident is move 1's
    last section (from its last `## ` heading)."""
    answer_format = _paragraph_suffix([move1, *move2s.values()])
    if not answer_format:
        return None, "move 1 and move 2 do not end with the same paragraph(s) (the answer format)"
    head = move1[:len(move1) - len(answer_format) - 2]
    heading = head.rfind("\n\n## ")
    background, incident = (head[:heading], head[heading + 2:]) if heading > 0 else (head, "")
    continuations = {name: text[:len(text) - len(answer_format) - 2] for name, text in move2s.items()}
    if not background.strip() or not all(text.strip() for text in continuations.values()):
        return None, "a move holds nothing but the answer format"
    return (background, incident, answer_format, continuations), None


def _majority(values: list[tuple[str, str]]) -> str | None:
    """The most frequent value of (source, value) pairs; ties go to the first source."""
    if not values:
        return None
    counts = Counter(value for _, value in values)
    best = max(counts.values())
    return next(value for _, value in sorted(values) if counts[value] == best)


def keep_variant_texts(conversations: list[Conversation]) -> tuple[dict, list[LeftOut], list[str]]:
    """Per variant (kind, explicit, reversed): the texts most of its conversations agree
    on (one move 1 for all continuations, one move 2 per continuation). A conversation
    that differs is left out, naming what differs."""
    by_variant: dict[tuple, list[Conversation]] = {}
    for conversation in conversations:
        by_variant.setdefault(conversation.configuration.variant, []).append(conversation)
    variants, left_out, flaws = {}, [], []
    for key, group in sorted(by_variant.items()):
        system = _majority([(c.relative, c.system) for c in group if c.system is not None])
        move1 = _majority([(c.relative, c.move1) for c in group])
        move2s = {}
        for continuation in sorted({c.configuration.continuation for c in group}):
            move2s[continuation] = _majority([(c.relative, c.move2) for c in group
                                              if c.configuration.continuation == continuation])
        split, problem = split_texts(move1, move2s)
        if split is None:
            for conversation in group:
                flaws.append(f"{conversation.relative}: {problem}: its variant keeps the prompts unknown")
                left_out.append(LeftOut(conversation.relative, FLAWED))
            continue
        used = []
        for conversation in group:
            differs = [what for what, ok in (
                ("system turn", conversation.system in (None, system)), ("move 1", conversation.move1 == move1),
                ("move 2", conversation.move2 == move2s[conversation.configuration.continuation])) if not ok]
            if differs:
                left_out.append(LeftOut(conversation.relative, CHAT_DIFFERS, ", ".join(differs)))
            else:
                used.append(conversation.relative)
        background, incident, answer_format, continuations = split
        variants[key] = VariantTexts(role=system, background=background, move1_incident=incident,
                                     answer_format=answer_format, continuations=continuations, sources=tuple(used))
    return variants, left_out, flaws


# ---------------------------------------------------------------- the trees

def _walk(root: Path) -> list[str]:
    found = []
    for folder, directories, files in os.walk(root):
        directories.sort()
        found += [(Path(folder) / name).relative_to(root).as_posix() for name in sorted(files)]
    return found


def default_chats_directory(directory: str | os.PathLike) -> Path | None:
    """`logging/chats/<name>` beside a release's `logging/outputs/<name>`, if it is there."""
    root = Path(directory).resolve()
    if root.parent.name != "outputs":
        return None
    chats = root.parent.parent / "chats" / root.name
    return chats if chats.is_dir() else None


def _conversation(root: Path, relative: str, shown: str, parts: list[str], release: Release) -> Conversation | None:
    configuration, problems = parse_configuration(parts)
    if configuration is None:
        release.left_out.append(LeftOut(shown, OUTSIDE, "; ".join(problems)))
        return None
    data, problem = _read_bytes(root, relative)
    text, problem = (None, problem) if problem else _decoded(shown, data)
    turns, problem = (None, problem) if problem else read_conversation(shown, text)
    if problem:
        release.flaws.append(problem)
        release.left_out.append(LeftOut(shown, FLAWED))
        return None
    return Conversation(shown, configuration, *turns)


def _chats(chats_root: Path, shown_prefix: str, release: Release) -> list[Conversation]:
    conversations = []
    files = _walk(chats_root)
    release.files += len(files)
    present = set(files)
    for relative in files:
        shown = shown_prefix + relative
        parts = relative.split("/")
        name = parts[-1]
        if name not in CHAT_NAMES:
            release.left_out.append(LeftOut(shown, NOT_A_CHAT))
        elif name == "chat.csv" and "/".join([*parts[:-1], "chat_fixed.csv"]) in present:
            release.left_out.append(LeftOut(shown, CHAT_SUPERSEDED))
        elif len(parts) == 2:
            release.left_out.append(LeftOut(shown, CHAT_NO_CONTINUATION))
        else:
            conversation = _conversation(chats_root, relative, shown, parts[:-1], release)
            if conversation is not None:
                conversations.append(conversation)
    return conversations


def _sort_files(root: Path, files: list[str],
                release: Release) -> tuple[list[str], dict[str, bool], list[Conversation]]:
    """The files of the outputs tree sorted: the runs' CSVs, the score archives (each
    False until a run claims it) and the conversations of `main/chat.csv`; every other
    file left out in `release`, with its reason."""
    run_csvs, archives, conversations = [], {}, []
    for relative in files:
        parts = relative.split("/")
        name, parent = parts[-1], (parts[-2] if len(parts) > 1 else "")
        grandparent = parts[-3] if len(parts) > 2 else ""
        if name in CHAT_NAMES and parent == "main":
            conversation = _conversation(root, relative, relative, parts[:-2], release)
            if conversation is not None:
                conversations.append(conversation)
        elif parent == "prevs":
            release.left_out.append(LeftOut(relative, PREVS))
        elif grandparent == "main" and name.endswith(".csv") and (name == f"{parent}.csv"
                                                                   or not RUN_NAME.fullmatch(parent)):
            run_csvs.append(relative)
        elif grandparent == "main" and RUN_NAME.fullmatch(parent) and name.endswith(tuple(SCORE_SUFFIX.values())):
            archives[relative] = False  # True once a run claims it
        elif grandparent == "main" and RUN_NAME.fullmatch(parent):
            release.left_out.append(LeftOut(relative, NOT_OF_RUN))
        else:
            release.left_out.append(LeftOut(relative, OUTSIDE))
    return run_csvs, archives, conversations


def read_release(directory: str | os.PathLike, chats: str | os.PathLike | None = None) -> Release:
    """Every run under `directory` and what its models were asked (from `main/chat.csv`
    and the `chats` tree); every other file left out with its reason, every flaw named."""
    root = Path(directory)
    release = Release()
    if not root.is_dir():
        release.flaws.append(f"{directory}: no such directory")
        return release
    files = _walk(root)
    release.files = len(files)
    run_csvs, archives, conversations = _sort_files(root, files, release)
    if not run_csvs:
        release.flaws.append(f"{directory}: no run CSV in the layout {LAYOUT}")
    paths = []
    for relative in run_csvs:
        path, problems = parse_run_path(relative)
        if path is None:
            release.flaws.extend(problems)
            release.left_out.append(LeftOut(relative, FLAWED))
        else:
            paths.append(path)
    fixed = {(p.variant_folder, p.run): p for p in paths if p.fixed}
    for path in paths:
        archive = next((name for name in path.score_candidates if name in archives and not archives[name]), None)
        if archive is not None:
            archives[archive] = True
        replacement = fixed.get((path.variant_folder, path.run))
        if not path.fixed and replacement is not None:
            release.left_out += [LeftOut(name, REPLACED, replacement.relative) for name in (path.relative, archive)
                                 if name]
            continue
        data, problem = _read_bytes(root, path.relative)
        text, problem = (None, problem) if problem else _decoded(path.relative, data)
        answers, problems = (None, [problem]) if problem else read_answers(path.relative, text, path.samples)
        inconsistencies = None
        if archive is not None and answers is not None:
            # The archive's path, not its bytes: only the members a run needs are read.
            inconsistencies, archive_problems, unscored = read_inconsistencies(archive, root / archive, path.samples,
                                                                               path.kind)
            problems = problems + archive_problems
            release.notes += unscored
        if problems:
            release.flaws.extend(problems)
            release.left_out += [LeftOut(name, FLAWED) for name in (path.relative, archive) if name]
            continue
        release.runs.append(ReleaseRun(path, answers, inconsistencies, archive))
    for archive, claimed in archives.items():
        if not claimed:
            folder = PurePosixPath(archive).parent
            release.flaws.append(f"{archive}: no {folder.name}.csv beside it: add the run's CSV or remove the file")
            release.left_out.append(LeftOut(archive, FLAWED))
    chats_root = Path(chats) if chats is not None else None
    if chats_root is not None:
        if chats_root.is_dir():
            prefix = os.path.relpath(chats_root.resolve(), root.resolve()).replace(os.sep, "/") + "/"
            conversations += _chats(chats_root, prefix, release)
        else:
            release.flaws.append(f"{chats}: no such directory (the conversations)")
    release.variants, left_out, flaws = keep_variant_texts(conversations)
    release.left_out += left_out
    release.flaws += flaws
    release.conversations = sorted(source for texts in release.variants.values() for source in texts.sources)
    return release
