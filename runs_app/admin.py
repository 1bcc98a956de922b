from django.contrib import admin

from .models import LLMModel


@admin.register(LLMModel)
class LLMModelAdmin(admin.ModelAdmin):
    list_display = ["name", "litellm_model", "answer_mode", "choice_strategy", "temperature", "max_concurrency",
                    "requests_per_minute", "is_bundled", "is_external"]
    list_filter = ["answer_mode", "is_bundled", "is_external"]
    search_fields = ["name", "litellm_model"]
    fieldsets = [
        (None, {"fields": ["name", "litellm_model", "api_base", "notes"]}),
        ("Answers", {"fields": ["answer_mode", "choice_strategy", "top_logprobs", "temperature", "max_tokens",
                                "top_p", "seed", "timeout_seconds"]}),
        ("Limits and prices", {"fields": ["max_concurrency", "requests_per_minute", "input_cost_per_token",
                                          "output_cost_per_token"]}),
        ("Origin", {"fields": ["is_bundled", "is_external"]}),
    ]
