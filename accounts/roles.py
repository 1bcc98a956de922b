"""The roles of CFPD Workbench, as Django groups with permissions.

authors edit scenarios; operators launch, cancel and resume runs and register models;
reviewers code model outputs and read scenarios and runs; analysts read dashboards,
scenarios and runs. The core's permissions of each role are listed here, each family's
own in its registration (benchmarks_app.families: `role_permissions`), so that
`sync_roles` (run after every migrate) keeps the groups exactly in step.

Membership of a role is all a person needs: every role opens the console (`/admin/`),
which shows each member only what the role's permissions allow (accounts.services
keeps Django's staff flag in step with the groups).
"""

from benchmarks_app import families

AUTHORS = "authors"
REVIEWERS = "reviewers"
ANALYSTS = "analysts"
OPERATORS = "operators"
ROLES = [AUTHORS, REVIEWERS, ANALYSTS, OPERATORS]

# benchmarks_app: authors write benchmarks, conditions and actors; questions are written by the families.
_AUTHORING_SHARED = (["benchmarks_app." + p for p in ["add_benchmark", "change_benchmark", "delete_benchmark",
                                                      "view_benchmark", "add_condition", "change_condition",
                                                      "delete_condition", "view_condition", "view_question",
                                                      "add_actor", "change_actor", "delete_actor", "view_actor"]])
_READING_SHARED = ["benchmarks_app.view_benchmark", "benchmarks_app.view_condition", "benchmarks_app.view_question"]


def _perms(app, models, actions):
    return [f"{app}.{action}_{model}" for model in models for action in actions]


_RUN_MODELS = ["llmmodel", "run", "response"]
_RUN_READ = _perms("runs_app", _RUN_MODELS, ["view"])

# Panels of people (panels_app): authors design panels and make, open and withdraw their links;
# analysts read the panels' pages.
_PANEL_AUTHORING = (_perms("panels_app", ["panel", "attentioncheck", "profilequestion"], ["add", "change", "delete", "view"])
                    + _perms("panels_app", ["respondent"], ["change", "view"]))
_PANEL_READING = ["panels_app.view_panel_results"]

# The core's permissions per role; each family adds its own models' (its registration's
# `role_permissions`: CFPD's scenarios, the territorial tables, the crisis simulations).
CORE_PERMISSIONS = {
    AUTHORS: _AUTHORING_SHARED + _PANEL_AUTHORING,
    # Reviewers code answers, second-code, adjudicate (never their own disagreements) and
    # read agreement and the encoder's audit.
    REVIEWERS: _READING_SHARED + ["benchmarks_app.view_actor"] + _RUN_READ
    + ["encoding_app.code_responses", "encoding_app.adjudicate_codes"]
    # Not the codes' history (encoding_app.view_code): in the console it would show a
    # blind second coder the first coder's code.
    + _perms("encoding_app", ["reviewtask", "codingpolicy"], ["view"]),
    ANALYSTS: _READING_SHARED + ["benchmarks_app.view_actor"] + _RUN_READ + ["analysis_app.view_dashboard"] + _PANEL_READING,
    # Operators launch, cancel and resume runs and register models.
    OPERATORS: list(_READING_SHARED)
    + _perms("runs_app", ["llmmodel"], ["add", "change", "view"]) + _perms("runs_app", ["run"], ["add", "change", "view"])
    + _perms("runs_app", ["response"], ["view"]),
}


def role_permissions() -> dict[str, list[str]]:
    """Each role's permissions: the core's and every installed family's (read once the
    apps are ready: the families register in their AppConfig.ready)."""
    return {role: [*CORE_PERMISSIONS[role], *families.role_permissions(role)] for role in ROLES}


# What each role gives, in the console's words: shown beside the groups on a user's page.
def role_descriptions() -> dict[str, str]:
    written = ", ".join(families.authored()) or "benchmarks"
    dashboards = ", ".join(dashboard.subject for dashboard in families.dashboards())
    return {
        AUTHORS: f"write benchmarks in the console: {written}",
        REVIEWERS: "code answers on the Coding pages (first and blind second coding, adjudication); "
                   "read scenarios, benchmarks and runs",
        ANALYSTS: f"read the dashboards ({dashboards}) and their downloads; read scenarios, benchmarks and runs",
        OPERATORS: "register models (console › Models) and launch, cancel and resume runs on the Runs pages",
    }
