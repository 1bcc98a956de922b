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
