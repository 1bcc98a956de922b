"""Each actor in its own language (issue 41), the pure planning: which question keys a
launch adds and what it leaves out and why."""

from hypothesis import given, strategies as st

from scenarios_app.actor_languages import (
    NO_LANGUAGES, NO_TRANSLATION, LeftOut, SourceQuestion, flag_problem, plan_actor_languages, read_flag,
)

SOURCES = [SourceQuestion("t/esc.v1.CN-RU.full", "esc v1", "CN", "RU"),
           SourceQuestion("t/esc.v1.US-MX.full", "esc v1", "US", "MX"),
           SourceQuestion("t/esc.v1.CN-TW.full", "esc v1", "CN", "TW")]
LANGUAGES = {"CN": ["zh"], "RU": ["ru"], "US": ["en"], "MX": ["es"], "TW": ["zh-Hant", "zh"]}
AVAILABLE = {"t/esc.v1.CN-RU.full", "t/esc.v1.US-MX.full", "t/esc.v1.CN-TW.full",
             "t/esc.v1.CN-RU.full@zh", "t/esc.v1.US-MX.full@zh", "t/esc.v1.CN-TW.full@zh",
             "t/esc.v1.US-MX.full@es"}


def test_the_exact_small_case():
    plan = plan_actor_languages(SOURCES, LANGUAGES, AVAILABLE, ["en"], "en")
    # CN-RU: CN's zh is there, RU's ru is not. US-MX: US's en is already named, MX's es is there.
    # CN-TW: zh once (both list it), zh-Hant is not there. US-MX@zh exists but neither speaks zh.
    assert plan.keys == ["t/esc.v1.CN-RU.full@zh", "t/esc.v1.US-MX.full@es", "t/esc.v1.CN-TW.full@zh"]
    assert plan.left_out == [LeftOut("esc v1", "CN", "RU", "RU", "ru", NO_TRANSLATION),
                             LeftOut("esc v1", "CN", "TW", "TW", "zh-Hant", NO_TRANSLATION)]
    assert plan.lines() == [
        f"each actor's language: ru left out for 1 dyad (esc v1 CN–RU): {NO_TRANSLATION}",
        f"each actor's language: zh-Hant left out for 1 dyad (esc v1 CN–TW): {NO_TRANSLATION}"]


def test_the_source_language_of_an_actor_when_the_launch_names_another():
    # Only zh named: US's en is the source question's own key.
    plan = plan_actor_languages(SOURCES[1:2], LANGUAGES, AVAILABLE, ["zh"], "en")
    assert plan.keys == ["t/esc.v1.US-MX.full", "t/esc.v1.US-MX.full@es"]


def test_an_actor_without_languages_is_said():
    plan = plan_actor_languages(SOURCES[:1], {"CN": ["zh"]}, AVAILABLE, ["en"], "en")
    assert plan.keys == ["t/esc.v1.CN-RU.full@zh"]
    assert plan.lines() == [f"each actor's language: RU asked in no language of its own for 1 dyad (esc v1 CN–RU): "
                            f"{NO_LANGUAGES}"]


def test_the_flag_reads_yes_and_no_and_keeps_the_odd_value():
    assert read_flag(["yes"]) == ["yes"] and read_flag(["on"]) == ["yes"] and read_flag([True]) == ["yes"]
    assert read_flag(["no"]) == [] and read_flag([]) == []
    assert read_flag(["maybe"]) == ["maybe"] and flag_problem(["maybe"]) == "'maybe' is not yes or no"
    assert flag_problem(["yes"]) == ""


CODES = st.sampled_from(["CN", "RU", "US", "MX"])
LANGS = st.sampled_from(["en", "zh", "ru", "es"])


@given(st.lists(st.tuples(CODES, CODES), min_size=1, max_size=5),
       st.dictionaries(CODES, st.lists(LANGS, max_size=3)), st.sets(st.tuples(st.integers(0, 4), LANGS)),
       st.lists(LANGS, min_size=1, max_size=2))
def test_every_actor_language_is_asked_or_said(dyads, languages, present, named):
    sources = [SourceQuestion(f"q{i}", "s v1", a, b) for i, (a, b) in enumerate(dyads)]
    available = {f"q{i}" if lang == "en" else f"q{i}@{lang}" for i, lang in present}
    plan = plan_actor_languages(sources, languages, available, named, "en")
    assert set(plan.keys) <= available and len(plan.keys) == len(set(plan.keys))
    said = {(i.actor_a, i.actor_b, i.language) for i in plan.left_out}
    for i, s in enumerate(sources):
        for actor in (s.actor_a, s.actor_b):
            if not languages.get(actor):
                assert (s.actor_a, s.actor_b, "") in said
            for lang in languages.get(actor, []):
                key = f"q{i}" if lang == "en" else f"q{i}@{lang}"
                # Named already, or added, or said left out (never silently).
                assert lang in named or key in plan.keys or (s.actor_a, s.actor_b, lang) in said
