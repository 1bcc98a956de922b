"""BorderLines' strategy for CFPD (issue 41): "each actor in its own language" — a dyad
asked in actor A's languages and in actor B's (`Actor.languages`), beside the languages a
launch names (the source language when none). Pure planning, no Django: which question
keys a launch asks, and what it leaves out and why (never silently).

A translated question's key is its source question's key with `@language`
(`translations.translated_key`); the source language's question is the source key itself."""

from __future__ import annotations

from dataclasses import dataclass

YES = "yes"
TRUE_WORDS = frozenset({"yes", "true", "1", "on"})
FALSE_WORDS = frozenset({"no", "false", "0", "off"})

NO_TRANSLATION = "no approved, up-to-date translation with both actors' names (and the forms it uses) in that language"
NO_LANGUAGES = "the actor lists no languages of its own"


def read_flag(values: list) -> list[str]:
    """The key's values normalised: ["yes"] when asked, [] when not, the odd value kept as
    given (so that `flag_problem` names it)."""
    words = [str(v).strip().lower() for v in values]
    odd = [str(v)[:40] for v, w in zip(values, words) if w not in TRUE_WORDS | FALSE_WORDS]
    if odd:
        return odd
    return [YES] if any(w in TRUE_WORDS for w in words) else []


def flag_problem(values: list[str]) -> str:
    odd = [v for v in values if v != YES]
    return f"{odd[0]!r} is not yes or no" if odd else ""


@dataclass(frozen=True)
class SourceQuestion:
    key: str  # the source-language question's key
    scenario: str  # shown in the left-out lines: "esc v1"
    actor_a: str
    actor_b: str


@dataclass(frozen=True)
class LeftOut:
    scenario: str
    actor_a: str
    actor_b: str
    actor: str
    language: str  # "" when the actor lists none
    reason: str


@dataclass
class ActorLanguagePlan:
    keys: list[str]  # the questions the strategy adds, in the sources' order
    left_out: list[LeftOut]

    def lines(self) -> list[str]:
        """One line per (language, reason): what was left out, for which dyads and why."""
        grouped: dict[tuple[str, str], list[LeftOut]] = {}
        for item in self.left_out:
            grouped.setdefault((item.language, item.reason), []).append(item)
        lines = []
        for (language, reason), items in grouped.items():
            dyads = list(dict.fromkeys(f"{i.scenario} {i.actor_a}–{i.actor_b}" for i in items))
            shown = ", ".join(dyads[:5]) + (f" and {len(dyads) - 5} more" if len(dyads) > 5 else "")
            if language:
                lines.append(f"each actor's language: {language} left out for {len(dyads)} "
                             f"dyad{'s' if len(dyads) != 1 else ''} ({shown}): {reason}")
            else:
                actors = ", ".join(sorted({i.actor for i in items}))
                lines.append(f"each actor's language: {actors} asked in no language of its own for {len(dyads)} "
                             f"dyad{'s' if len(dyads) != 1 else ''} ({shown}): {reason}")
        return lines


def plan_actor_languages(sources: list[SourceQuestion], actor_languages: dict[str, list[str]],
                         available: set[str], named: list[str], source_language: str) -> ActorLanguagePlan:
    """For each source question, each of its two actors' languages not already named: the
    question in that language when `available` holds its key, else a LeftOut saying why.
    An actor with no languages is a LeftOut too. A language both actors share is asked once."""
    keys: list[str] = []
    left_out: list[LeftOut] = []
    seen_keys: set[str] = set()
    seen_left: set[tuple] = set()
    for source in sources:
        for actor in dict.fromkeys((source.actor_a, source.actor_b)):
            languages = actor_languages.get(actor) or []
            if not languages:
                item = LeftOut(source.scenario, source.actor_a, source.actor_b, actor, "", NO_LANGUAGES)
                if item not in seen_left:
                    seen_left.add(item)
                    left_out.append(item)
                continue
            for language in languages:
                if language in named:
                    continue  # asked already as a language the launch names
                key = source.key if language == source_language else f"{source.key}@{language}"
                if key in available:
                    if key not in seen_keys:
                        seen_keys.add(key)
                        keys.append(key)
                    continue
                item = LeftOut(source.scenario, source.actor_a, source.actor_b, actor, language, NO_TRANSLATION)
                marker = (source.scenario, source.actor_a, source.actor_b, language)
                if marker not in seen_left:
                    seen_left.add(marker)
                    left_out.append(item)
    return ActorLanguagePlan(keys, left_out)
