"""The computed figures' status endpoint reads its `key` parameters as untrusted input."""

import pytest
from django.urls import reverse


@pytest.mark.django_db
@pytest.mark.parametrize("key", ["a\x00b", "k" * 129])
def test_a_key_with_a_nul_or_too_long_is_a_400_not_a_database_error(client, analyst, key):
    client.force_login(analyst)
    response = client.get(reverse("analysis-figures-status"), {"key": key})
    assert response.status_code == 400
    assert "128 characters" in response.json()["detail"]


@pytest.mark.django_db
def test_unknown_keys_are_not_pending(client, analyst):
    client.force_login(analyst)
    response = client.get(reverse("analysis-figures-status"), {"key": ["nothing-here", "k" * 128]})
    assert response.status_code == 200 and response.json() == {"pending": 0}
