"""What the run engine tells other apps, so that it does not import them: the encoding
app codes answers as soon as they arrive."""

from django.dispatch import Signal

# Responses reached DONE (their answers are written): every unit's answers, alone or in a
# batch, are sent once by `execution.write_answers`. kwargs: response_ids (a list); coded (a
# set: those of them already coded by an `answers_writing` receiver, absent: none).
responses_answered = Signal()
# Answers about to be written by `execution.write_answers`, inside its transaction, before its
# one statement: kwargs rows (the answered units' Response objects, question and run loaded).
# A receiver may code answers on the way (set a row's `code` and `code_source`, written by the
# same statement) and return a callable, called in the same transaction (a savepoint) with the
# ids of the rows written, that writes what goes with those codes; the rows it coded and wrote
# are passed to `responses_answered` as `coded`. Should that callable fail, the codes are taken
# off the rows again and the answers are coded as any other.
answers_writing = Signal()
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
