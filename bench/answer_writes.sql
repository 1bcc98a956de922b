-- The answers table's write cost, for comparing its indexes before and after a change:
-- 200,000 of run 1's answers copied into a new run (every index, every trigger), then
-- updated twice as a worker writes them (status and code: no HOT update), all rolled back.
--     psql -h 127.0.0.1 -U postgres DATABASE -f bench/answer_writes.sql
-- on the database bench/scale_pages.py loads (run 1: the synthetic answers).
\timing on
BEGIN;
-- 200,000 answers written as a copy of run 1's into a new run (every index, every trigger)
INSERT INTO runs_app_run (kind, delivery, benchmark_id, selection, repeats, system_prompt, permute_options, permutation_seed, balanced_options, status, note, created_at, service_wait, throughput)
  SELECT 'synthetic', delivery, benchmark_id, '{}', repeats, '', false, 0, false, 'done', 'write cost', now(), '{}', '{}' FROM runs_app_run WHERE id = 1;
SELECT max(id) AS newrun FROM runs_app_run \gset
CREATE TEMP TABLE src AS SELECT * FROM runs_app_response WHERE run_id = 1 AND id <= (SELECT min(id) + 199999 FROM runs_app_response WHERE run_id = 1);
ALTER TABLE src DROP COLUMN id;
UPDATE src SET run_id = :newrun;
INSERT INTO runs_app_response (run_id, question_id, model_id, condition_id, repeat, previous_id, status, option_order, messages, resolved_model, params, raw_output, option_logprobs, option_mean_logprobs, chosen_letter, finish_reason, latency_ms, prompt_tokens, completion_tokens, cost, attempts, error_kind, error_message, code, code_source, cache_hit, cache_key, claim_token, worker, provider_batch_id, lease_expires_at, created_at, enqueued_at, answered_at)
  SELECT run_id, question_id, model_id, condition_id, repeat, previous_id, status, option_order, messages, resolved_model, params, raw_output, option_logprobs, option_mean_logprobs, chosen_letter, finish_reason, latency_ms, prompt_tokens, completion_tokens, cost, attempts, error_kind, error_message, code, code_source, cache_hit, cache_key, claim_token, worker, provider_batch_id, lease_expires_at, created_at, enqueued_at, answered_at FROM src;
-- the same 200,000 updated as a worker's write (status and code: no HOT update)
UPDATE runs_app_response SET status = 'running', code = '' WHERE run_id = :newrun;
UPDATE runs_app_response SET status = 'done', code = 'A' WHERE run_id = :newrun;
ROLLBACK;
