"""An actor's own languages in the console (issue 41: each actor in its own language):
typed as comma-separated BCP 47 codes, each checked."""

import pytest
from django.urls import reverse

from scenarios_app.models import Actor
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def fields(actor, languages):
    return {"code": actor.code, "name": actor.name, "prompt_name": actor.prompt_name, "kind": actor.kind,
            "iso_alpha3": actor.iso_alpha3, "languages": languages}


def test_the_console_edits_an_actors_languages(client, admin_user):
    assert client.login(username=admin_user.username, password=PASSWORD)
    china = Actor.objects.get(code="CN")
    url = reverse("admin:benchmarks_app_actor_change", args=[china.pk])
    bad = client.post(url, fields(china, "zh, chinese"))
    assert bad.status_code == 200 and "&#x27;chinese&#x27; is not a BCP 47 language tag" in bad.content.decode()
    assert Actor.objects.get(code="CN").languages == []
    done = client.post(url, fields(china, "zh, zh-Hant, zh"))
    assert done.status_code == 302
    assert Actor.objects.get(code="CN").languages == ["zh", "zh-Hant"]
    assert 'value="zh, zh-Hant"' in client.get(url).content.decode()
