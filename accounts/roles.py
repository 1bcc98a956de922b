"""The roles of CFPD Workbench, as Django groups with permissions.

authors edit scenarios; reviewers code model outputs (later issues) and read scenarios;
analysts read dashboards and scenarios. Each role's permissions are listed here so that
`sync_roles` (run after every migrate) keeps the groups exactly in step.
"""

AUTHORS = "authors"
REVIEWERS = "reviewers"
ANALYSTS = "analysts"
ROLES = [AUTHORS, REVIEWERS, ANALYSTS]

_SCENARIO_MODELS = ["scenario", "responseoption", "scenariodyad", "scenarioreview", "actor", "actorset",
                    "actorsetmember", "benchmark"]
_READ_ONLY_MODELS = ["question", "domain", "actioncategory", "codifiedaction", "subdimension",
                     "codifiedcomparison", "comparisoncategory"]


def _perms(app, models, actions):
    return [f"{app}.{action}_{model}" for model in models for action in actions]


ROLE_PERMISSIONS = {
    AUTHORS: _perms("scenarios_app", _SCENARIO_MODELS, ["add", "change", "delete", "view"])
    + _perms("scenarios_app", _READ_ONLY_MODELS, ["view"]),
    REVIEWERS: _perms("scenarios_app", _SCENARIO_MODELS + _READ_ONLY_MODELS, ["view"]),
    ANALYSTS: _perms("scenarios_app", _SCENARIO_MODELS + _READ_ONLY_MODELS, ["view"]),
}

# Roles whose members work in Django admin.
STAFF_ROLES = {AUTHORS}
