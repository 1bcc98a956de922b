"""The roles of CFPD Workbench, as Django groups with permissions.

authors edit scenarios; operators launch, cancel and resume runs and register models;
reviewers code model outputs and read scenarios and runs; analysts read dashboards,
scenarios and runs. Each role's permissions are listed here so that `sync_roles` (run
after every migrate) keeps the groups exactly in step.

Membership of a role is all a person needs: every role opens the console (`/admin/`),
which shows each member only what the role's permissions allow (accounts.services
keeps Django's staff flag in step with the groups).
"""

AUTHORS = "authors"
REVIEWERS = "reviewers"
ANALYSTS = "analysts"
OPERATORS = "operators"
ROLES = [AUTHORS, REVIEWERS, ANALYSTS, OPERATORS]

_SCENARIO_MODELS = ["scenario", "responseoption", "scenariodyad", "scenarioreview", "actorset", "actorsetmember"]
_READ_ONLY_MODELS = ["scenarioquestion", "domain", "actioncategory", "codifiedaction", "subdimension",
                     "codifiedcomparison", "comparisoncategory"]
# benchmarks_app: authors write benchmarks, conditions and actors; questions are written by the families.
_AUTHORING_SHARED = (["benchmarks_app." + p for p in ["add_benchmark", "change_benchmark", "delete_benchmark",
                                                      "view_benchmark", "add_condition", "change_condition",
                                                      "delete_condition", "view_condition", "view_question",
                                                      "add_actor", "change_actor", "delete_actor", "view_actor"]])
_READING_SHARED = ["benchmarks_app.view_benchmark", "benchmarks_app.view_condition", "benchmarks_app.view_question"]
# territories_app: authors write the territorial-disputes tables; the other roles read them.
_TERRITORY_MODELS = ["territory", "claimant", "country", "language", "termtranslation", "borderlinestable"]
_TERRITORY_AUTHORING = [f"territories_app.{action}_{model}" for model in _TERRITORY_MODELS
                        for action in ("add", "change", "delete", "view")] + ["territories_app.view_territoryquestion"]
_TERRITORY_READING = [f"territories_app.view_{model}" for model in [*_TERRITORY_MODELS, "territoryquestion"]]
# crisis_app: authors write simulations with their continuations and variants; the questions,
# scorers and scores are written by services, which authors only read.
_CRISIS_AUTHORING = ([f"crisis_app.{action}_{model}" for model in ("simulation", "continuation", "variant")
                      for action in ("add", "change", "delete", "view")]
                     + [f"crisis_app.view_{model}" for model in ("crisisquestion", "scorer", "groupscore")])


def _perms(app, models, actions):
    return [f"{app}.{action}_{model}" for model in models for action in actions]


_RUN_MODELS = ["llmmodel", "run", "response"]
_RUN_READ = _perms("runs_app", _RUN_MODELS, ["view"])

ROLE_PERMISSIONS = {
    AUTHORS: _perms("scenarios_app", _SCENARIO_MODELS, ["add", "change", "delete", "view"])
    + _perms("scenarios_app", _READ_ONLY_MODELS, ["view"]) + _AUTHORING_SHARED + _TERRITORY_AUTHORING + _CRISIS_AUTHORING,
    # Reviewers code answers, second-code, adjudicate (never their own disagreements) and
    # read agreement and the encoder's audit.
    REVIEWERS: _perms("scenarios_app", _SCENARIO_MODELS + _READ_ONLY_MODELS, ["view"]) + _READING_SHARED
    + ["benchmarks_app.view_actor"] + _TERRITORY_READING + _RUN_READ
    + ["encoding_app.code_responses", "encoding_app.adjudicate_codes"]
    # Not the codes' history (encoding_app.view_code): in the console it would show a
    # blind second coder the first coder's code.
    + _perms("encoding_app", ["reviewtask", "codingpolicy"], ["view"]),
    ANALYSTS: _perms("scenarios_app", _SCENARIO_MODELS + _READ_ONLY_MODELS, ["view"]) + _READING_SHARED
    + ["benchmarks_app.view_actor"] + _TERRITORY_READING + _RUN_READ
    + ["analysis_app.view_dashboard"],
    # Operators launch, cancel and resume runs and register models.
    OPERATORS: list(_READING_SHARED)
    + _perms("runs_app", ["llmmodel"], ["add", "change", "view"]) + _perms("runs_app", ["run"], ["add", "change", "view"])
    + _perms("runs_app", ["response"], ["view"]),
}

# What each role gives, in the console's words: shown beside the groups on a user's page.
ROLE_DESCRIPTIONS = {
    AUTHORS: "write benchmarks in the console: CFPD scenarios, territorial-disputes tables, crisis simulations",
    REVIEWERS: "code answers on the Coding pages (first and blind second coding, adjudication); "
               "read scenarios, benchmarks and runs",
    ANALYSTS: "read the dashboards (preferences, territories, crisis) and their downloads; "
              "read scenarios, benchmarks and runs",
    OPERATORS: "register models (console › Models) and launch, cancel and resume runs on the Runs pages",
}
