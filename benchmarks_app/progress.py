"""Progress of an import that reads a large file, for a command's stderr. Pure: no Django.

The house's way (import_free_runs): a tqdm bar on a terminal. Where stderr is no terminal
(a log, a pipe, a CI job), a plain line at most every `every` seconds, so that a file
that takes minutes says how far it is without flooding the log (and each new phase of
it, once it has taken that long); a file read in a few seconds says nothing.
"""

from __future__ import annotations

import sys
import time


class FileProgress:
    """Call with (done, total, phase): done/total in bytes (or rows when total is None)."""

    def __init__(self, stream, unit: str = "rows", every: float = 5.0, clock=time.monotonic):
        self.stream, self.unit, self.every, self.clock = stream, unit, every, clock
        self.started = clock()
        self.last_line = self.started
        self.phase: str | None = None
        self.bars: dict[str, object] = {}
        self.tty = hasattr(stream, "isatty") and stream.isatty()

    def __call__(self, done: int, total: int | None, phase: str) -> None:
        if self.tty:
            self._bar(done, total, phase)
            return
        now = self.clock()
        # A new phase of a slow file is told at once (the rows are written, coding starts).
        new_phase = phase != self.phase and now - self.started >= self.every
        if now - self.last_line < self.every and not new_phase:
            return
        self.last_line, self.phase = now, phase
        self.stream.write(self.line(done, total, phase, now - self.started) + "\n")
        if hasattr(self.stream, "flush"):
            self.stream.flush()

    def line(self, done: int, total: int | None, phase: str, seconds: float) -> str:
        if total:
            share = min(done / total, 1.0)
            return f"{phase}: {share:.0%} ({done / 1e6:,.1f} of {total / 1e6:,.1f} MB) after {seconds:,.0f} s"
        return f"{phase}: {done:,} {self.unit} after {seconds:,.0f} s"

    def _bar(self, done, total, phase):
        from tqdm import tqdm

        bar = self.bars.get(phase)
        if bar is None:
            for other in self.bars.values():
                other.close()
            bar = self.bars[phase] = tqdm(total=total, unit="B" if total else self.unit, unit_scale=True,
                                          file=self.stream, desc=phase)
        bar.update(done - bar.n)

    def close(self):
        for bar in self.bars.values():
            bar.close()
        self.bars = {}


def file_progress(stderr, unit: str = "rows", every: float = 5.0) -> FileProgress:
    """Progress for a management command's `self.stderr` (its underlying stream)."""
    stream = getattr(stderr, "_out", stderr) or sys.stderr
    return FileProgress(stream, unit, every)
