"""CFPD's analysis: its metrics (scenario-normalised rates and what builds on them), the
answer tallies kept by PostgreSQL triggers (`tally.py`, `models.py`), the tidy table
counted in the database (`tidy_query.py`), the dashboard, its page, CSV, Parquet and API
(`dashboard.py`, `board_figure.py`, `views.py`, `api.py`), and the synthetic answers of
the load tests (`synthetic.py`). What every family's dashboards share (panels, tables and
CSV, permissions, figures computed by the worker, generic statistics) is `analysis_app`.

Nothing here is imported at start-up but `models.py` (by `scenarios_app.models`)."""
