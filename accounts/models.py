from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    """A person's key to the REST API. Only the digest of the token is kept (see
    accounts.token_format): the token itself is shown once, when it is made."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100, help_text="What the token is for, e.g. 'nightly export script'.")
    prefix = models.CharField(max_length=13, editable=False, help_text="The token's first characters, to tell it "
                                                                       "apart; the rest is never stored.")
    digest = models.CharField(max_length=64, unique=True, editable=False)  # the lookup of every API request
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "API token"

    def __str__(self):
        return f"{self.prefix}… ({self.name})"

    @property
    def active(self) -> bool:
        return self.revoked_at is None


class Profile(models.Model):
    """What a person tells the product about themselves beyond the login: the languages
    they read, which decide the translations they may approve (issue 41)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile")
    languages = models.JSONField(default=list, blank=True,
                                 help_text='BCP 47 codes of the languages this person reads, e.g. ["en", "zh"].')

    def __str__(self):
        return f"{self.user}: {', '.join(self.languages) or 'no languages'}"

    def clean(self):
        from django.core.exceptions import ValidationError

        from benchmarks_app.language_codes import language_problem

        if not isinstance(self.languages, list):
            raise ValidationError({"languages": 'a list of BCP 47 codes, e.g. ["en", "zh"]'})
        problems = [problem for problem in map(language_problem, self.languages) if problem]
        if problems:
            raise ValidationError({"languages": problems[0]})
