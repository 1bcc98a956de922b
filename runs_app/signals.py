"""What the run engine tells other apps, so that it does not import them: the encoding
app codes an answer as soon as it arrives."""

from django.dispatch import Signal

# A response reached DONE (its answer is written). kwargs: response_id.
response_answered = Signal()
# Responses of one batch reached DONE together (runs_app.batch_execution). kwargs:
# response_ids. Receivers handle them together; each is as if `response_answered`.
responses_answered = Signal()
# Answers were imported as a finished run. kwargs: run_id.
responses_imported = Signal()
# A run became DONE (its last unit finished). kwargs: run_id. Sent once, after the
# conditional update that marks it done; receivers must not fail the unit that sent it.
run_finished = Signal()
