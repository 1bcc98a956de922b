"""The demo's panel of scripted respondents (issue 40: "the demo gets a small panel of
scripted respondents, labelled as scripted on every page where it appears"): bots, not people,
so that a newcomer sees the panel's page and Models and people filled. Its name and whom it
stands for say "scripted" wherever a panel's name is shown (panel list and page, Models and
people, the API, reference_report). The respondents walk the same services a person's link
does (consent, profile, each page); their answers are deterministic: a seeded favourite option
per question, chosen by about 60% of them, and one of them fails the attention check."""

from __future__ import annotations

import random

from django.db import transaction

from benchmarks_app.lettering import option_letters
from benchmarks_app.models import Benchmark

from . import services
from .models import AttentionCheck, Panel, ProfileQuestion

NAME = "Scripted demo bots (not people)"
STANDS_FOR = "nobody: scripted respondents the demo made, labelled as scripted wherever they appear"
COUNTRIES = ("US", "CN", "DE")


def _choice(rng: random.Random, favourite: int, count: int) -> int:
    return favourite if rng.random() < 0.6 else rng.randrange(count)


@transaction.atomic
def seed_scripted_panel(benchmark: Benchmark, *, respondents: int = 12, sample: int | None = 40, seed: int = 1,
                        items: int = 20) -> tuple[Panel, bool]:
    """The scripted panel of `benchmark` (its questions: the launch's selection with `sample`
    and `seed`, as the demo's choice-mode run picks them, so models and bots share questions),
    answered by `respondents` bots. (panel, made now): a panel made before is left as it is."""
    found = Panel.objects.filter(name=NAME).first()
    if found is not None:
        return found, False
    selection = {"seed": seed} if sample is None else {"sample": sample, "seed": seed}
    panel = Panel.objects.create(name=NAME, stands_for=STANDS_FOR, benchmark=benchmark, selection=selection, seed=seed,
                                 items_per_respondent=items, ask_reason=False,
                                 consent_text="A scripted respondent of the demo: no person answers this panel.",
                                 closing_text="Scripted respondent: done.")
    AttentionCheck.objects.create(panel=panel, text="To show you read this, choose the second option.",
                                  options=["First", "Second", "Third"], expected=2)
    ProfileQuestion.objects.create(panel=panel, key="country", label="Country", kind="choice",
                                   choices="\n".join(COUNTRIES))
    services.pick_questions(panel)
    panel.refresh_from_db()
    failing = respondents - 1  # the last bot fails the attention check: excluded, and counted
    for number, respondent in enumerate(services.create_invitations(panel, respondents)):
        services.consent(respondent)
        services.save_profile(respondent, {"country": COUNTRIES[number % len(COUNTRIES)]})
        while (page := services.current_page(respondent)) is not None:
            count = len(page.option_order)
            if page.attention_check_id:
                wanted = 0 if number == failing else page.attention_check.expected - 1
            else:
                # the question's favourite (seeded by question alone) is shared by the bots
                favourite = random.Random(f"{seed}:favourite:{page.question_id}").randrange(count)
                wanted = _choice(random.Random(f"{seed}:{number}:{page.question_id}"), favourite, count)
            # the letter shown for the canonical option `wanted` in this bot's order
            services.answer_item(respondent, page.position, option_letters(count)[page.option_order.index(wanted)])
    return panel, True
