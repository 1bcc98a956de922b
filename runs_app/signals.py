"""What the run engine tells other apps, so that it does not import them: the encoding
app codes answers as soon as they arrive."""

from django.dispatch import Signal

# Responses reached DONE (their answers are written): every unit's answers, alone or in a
# batch, are sent once by `execution.write_answers`. kwargs: response_ids (a list).
responses_answered = Signal()
# Answers were imported as a finished run. kwargs: run_id.
responses_imported = Signal()
# A run became DONE (its last unit finished). kwargs: run_id. Sent once, after the
# conditional update that marks it done; receivers must not fail the unit that sent it.
run_finished = Signal()
# A launch's units were written as one grid by one INSERT on PostgreSQL
# (`unit_rows.insert_unit_grid`: every (question, condition) of `pairs` x every (model id,
# repeats) of `models` x every repeat, pending, in the run `run_id`), with the setting
# `cfpd.unit_grid` on for that statement only (UNIT_GRID_SETTING). Counts kept by
# statement-level triggers that would aggregate its millions of rows may skip that
# statement (the setting on) and count the grid from these arguments instead: a receiver
# runs in the launch's transaction. kwargs: run_id, pairs, models.
unit_grid_written = Signal()
UNIT_GRID_SETTING = "cfpd.unit_grid"
