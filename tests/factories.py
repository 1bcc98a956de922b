"""Small builders of valid scenario specs and CSV rows for tests."""

import csv
import io

from scenarios_app.validation import OptionSpec, ScenarioSpec

TEMPLATE_2 = ("[Actor A] has massed troops on the border with [Actor B]. Talks over the river have failed. "
              "How should [Actor A] respond?")
TEMPLATE_3 = ("[Actor B]'s navy is escorting tankers through waters that [Actor A] claims. "
              "How should [Actor A] respond?")


def escalation_spec(key="esc-test", dyads=(("CN", "RU"), ("US", "MX"))):
    return ScenarioSpec(
        key=key, domain="escalation", comparison="esc2-attack", template=TEMPLATE_2,
        options=[OptionSpec("Withdraw and reopen talks with [Actor B]", "no-force"),
                 OptionSpec("Strike [Actor B]'s border posts", "use-of-force")],
        qualified_actor="A", dyads=list(dyads),
    )


def three_option_spec(key="esc3-test", dyads=(("CN", "JP"),)):
    return ScenarioSpec(
        key=key, domain="escalation", comparison="esc3-blockade", template=TEMPLATE_3,
        options=[OptionSpec("Protest through diplomatic channels", "no-force"),
                 OptionSpec("Blockade [Actor B]'s ports", "use-of-force"),
                 OptionSpec("Announce live-fire drills near [Actor B]'s convoy", "threat-of-force")],
        qualified_actor="A", dyads=list(dyads),
    )


HEADER = ["Domain", "Sub Action Comparison", "Scenario", "Response Option 1", "Response Option 2",
          "Response Option 3", "Actor Set"]


def table_csv(rows, header=HEADER):
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


GOOD_ROW = ["Escalation", "No Use of force vs Attack (Use of Force)", TEMPLATE_2,
            "Withdraw and reopen talks with [Actor B]", "Strike [Actor B]'s border posts", "NA",
            "(CN,RU), (US,MX)"]
