"""A model's name is kept as a release writes it: a dot is a name, not a flaw."""

import pytest
from django.core.exceptions import ValidationError

from runs_app.models import LLMModel


@pytest.mark.django_db
def test_a_dotted_name_passes_the_consoles_validation():
    model = LLMModel(name="gpt3.5turbo", litellm_model="openai/gpt-3.5-turbo")
    model.full_clean(exclude=["api_base"])  # no error: the console saves it as the importer does


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["gpt 3.5", "gpt/4", "model?", ""])
def test_a_name_with_a_space_slash_or_question_mark_is_refused(name):
    model = LLMModel(name=name, litellm_model="openai/gpt-4o")
    with pytest.raises(ValidationError) as error:
        model.full_clean(exclude=["api_base"])
    assert "name" in error.value.message_dict
