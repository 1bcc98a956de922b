"""Writing a report command's CSV: formula-like cells neutralised, numbers to 6 places, a
file that cannot be written reported as the command's error."""

from django.core.management.base import CommandError

from .csv_safety import neutralise


def write_csv(frame, path) -> None:
    text = frame.map(neutralise).to_csv(index=False, float_format="%.6f")  # formula-like cells quoted
    try:
        with open(path, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
    except OSError as exc:
        raise CommandError(f"{path}: {exc.strerror}") from None
