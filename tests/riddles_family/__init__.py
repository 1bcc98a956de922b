"""A fourth family, as a tiny app of its own (issue 39): riddles, each question keyed
riddles/<level>-<n>. It registers itself (`RIDDLES`, registered by the tests that use it:
tests/benchmarks_app/test_open_registry.py), brings its page (`urls`) and its launch-plan
template (`templates/riddles/`), and no line of the core names it."""

from pathlib import Path

from django import forms
from django.db.models import Q

from benchmarks_app import families

LEVELS = [("easy", "Easy"), ("hard", "Hard")]
TEMPLATES = Path(__file__).resolve().parent / "templates"

def render(question, order, condition, system_prompt=""):
    options = question.option_texts()
    lines = [f"RIDDLE: {question.text}"] + [f"{'ABCDEFGHIJ'[i]}. {options[k]}" for i, k in enumerate(order or [])]
    return [{"role": "system", "content": system_prompt or "Answer the riddle."},
            {"role": "user", "content": "\n".join(lines)}]


def of_levels(queryset, levels):
    wanted = Q()
    for level in levels:
        wanted |= Q(key__startswith=f"riddles/{level}-")
    return queryset.filter(wanted)


def filter_questions(queryset, selection):
    return of_levels(queryset, selection.values("levels")) if selection.values("levels") else queryset


def check_selection(selection):
    unknown = [level for level in selection.values("levels") if level not in dict(LEVELS)]
    return {"levels": [f"no riddle level {', '.join(unknown)}"]} if unknown else {}


def selection_fields():
    return {"levels": forms.MultipleChoiceField(choices=LEVELS, required=False, widget=forms.CheckboxSelectMultiple,
                                                label="Levels (riddles)", help_text="None ticked: every level.")}


def describe_selection(stored):
    return [("Levels", ", ".join(dict(LEVELS).get(level, level) for level in stored.get("levels") or []) or "all")]


RIDDLES = families.Family(
    name="riddles", label="Riddles (a test family)", render=render, selection_keys=("levels",),
    read_selection=lambda values: {"levels": [str(v).lower() for v in values.get("levels") or []]},
    filter_questions=filter_questions, check_selection=check_selection, selection_fields=selection_fields,
    describe_selection=describe_selection,
    coding_filters=(families.CodingFilter("level", "Riddle level", lambda: LEVELS,
                                          lambda questions, level: of_levels(questions, [level])),),
    # Its pages' permission: one the core does not give analysts, given them by the family's
    # role_permissions (a fourth family's app would bring a permission of its own).
    dashboard=families.Dashboard("riddles-dashboard", "Riddles", "Riddles answered",
                                 "Which riddles each model solves, by level.", "riddles", "runs_app.add_run"),
    authored_as="riddles",
    role_permissions={"analysts": ("runs_app.add_run",)},
    # Its own address, mounted by the site's URLconf with every registered family's.
    urls=(("analysis/riddles/", "tests.riddles_family.urls"),))
