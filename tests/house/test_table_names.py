"""Each table is named for the room that owns it (issue 39): a model's table starts with its
app's label, so that `\\dt scenarios_app_*` lists CFPD's tables and nothing else's. A model
moved between apps keeps its rows by renaming its table in a migration (benchmarks_app 0007,
scenarios_app 0008), not by pinning the old name with `db_table`."""

from django.apps import apps

OURS = {"accounts", "analysis_app", "benchmarks_app", "crisis_app", "encoding_app", "explorer_app", "formats_app",
        "panels_app", "runs_app", "scenarios_app", "territories_app"}


def misnamed() -> list[str]:
    return [f"{model._meta.label}: {model._meta.db_table}" for model in apps.get_models(include_auto_created=True)
            if model._meta.app_label in OURS and not model._meta.db_table.startswith(model._meta.app_label + "_")]


def test_every_table_is_named_for_the_app_that_owns_its_model():
    assert misnamed() == []


def test_the_rule_sees_a_table_pinned_to_another_apps_name():
    from benchmarks_app.models import Actor

    pinned = Actor._meta.db_table
    try:
        Actor._meta.db_table = "scenarios_app_actor"  # as it was before benchmarks_app 0007
        assert misnamed() == ["benchmarks_app.Actor: scenarios_app_actor"]
    finally:
        Actor._meta.db_table = pinned
