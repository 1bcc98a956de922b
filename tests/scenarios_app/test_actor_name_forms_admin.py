"""Actors' names per language in the console (issue 41): authors edit a name's grammatical
forms, typed `genitive=России; dative=России` and checked against the language's forms;
other roles only read them."""

import pytest
from django.urls import reverse

from scenarios_app import translations
from scenarios_app.models import Actor, ActorNameTranslation
from scenarios_app.naming import format_forms, parse_forms
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def russia_ru(db):
    return translations.set_actor_name(Actor.objects.get(code="RU"), "ru", "Россия", forms={"genitive": "России"})


def test_an_author_edits_the_forms_and_a_wrong_one_is_named(client, author, russia_ru):
    assert client.login(username=author.username, password=PASSWORD)
    url = reverse("admin:scenarios_app_actornametranslation_change", args=[russia_ru.pk])
    page = client.get(url).content.decode()
    assert "genitive=России" in page and "The forms of names in ru: genitive, dative, accusative" in page
    bad = client.post(url, {"name": "Россия", "forms_text": "genitive=России; locative=России"})
    assert bad.status_code == 200
    assert "locative: ru has no form &#x27;locative&#x27; of names" in bad.content.decode()
    assert ActorNameTranslation.objects.get(pk=russia_ru.pk).forms == {"genitive": "России"}
    done = client.post(url, {"name": "Россия", "forms_text": "genitive=России\ndative=России; instrumental=Россией"})
    assert done.status_code == 302
    row = ActorNameTranslation.objects.get(pk=russia_ru.pk)
    assert (row.forms, row.translated_by, row.provenance) == (
        {"genitive": "России", "dative": "России", "instrumental": "Россией"}, author, "person")


def test_a_reviewer_reads_but_does_not_edit(client, reviewer, russia_ru):
    assert client.login(username=reviewer.username, password=PASSWORD)
    url = reverse("admin:scenarios_app_actornametranslation_change", args=[russia_ru.pk])
    assert client.get(url).status_code == 200
    assert client.post(url, {"name": "Х", "forms_text": ""}).status_code == 403
    assert ActorNameTranslation.objects.get(pk=russia_ru.pk).name == "Россия"


def test_the_forms_text_is_read_part_by_part():
    assert parse_forms(" genitive = России ;\n\ndative=России; ") == {"genitive": "России", "dative": "России"}
    assert parse_forms("") == {}
    with pytest.raises(ValueError, match="'России': write form=text"):
        parse_forms("genitive=России; России")
    with pytest.raises(ValueError, match="genitive: given twice"):
        parse_forms("genitive=России; genitive=Россия")
    # In the language's order, whatever order the JSON column gives back; unknown ones last, by name.
    ru = ("genitive", "dative", "accusative")
    assert format_forms({"dative": "России", "zz": "?", "genitive": "России"}, ru) == (
        "genitive=России; dative=России; zz=?")
    assert format_forms({"b": "2", "a": "1"}) == "a=1; b=2"
