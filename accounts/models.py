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
    expires_at = models.DateTimeField(null=True, blank=True, editable=False,
                                      help_text="After this the token is refused; empty: it never expires.")

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


class SignInRecord(models.Model):
    """One sign-in, failed sign-in or API token use (a token's use at most once a minute per
    token, as its last_used_at). Never the password or the token: a token is named by its
    row and prefix. Written only by accounts.sign_in_record; read only in the console."""

    SIGNED_IN, FAILED, TOKEN_USED, TOKEN_REFUSED = "signed-in", "failed", "token-used", "token-refused"
    KINDS = [(SIGNED_IN, "signed in"), (FAILED, "failed sign-in"), (TOKEN_USED, "API token used"),
             (TOKEN_REFUSED, "API token refused (expired or revoked)")]

    at = models.DateTimeField(auto_now_add=True, db_index=True)
    kind = models.CharField(max_length=16, choices=KINDS)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="+")
    username = models.CharField(max_length=150, blank=True, help_text="As typed, for a failed sign-in.")
    address = models.CharField(max_length=45, blank=True)
    token = models.ForeignKey(ApiToken, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    token_prefix = models.CharField(max_length=13, blank=True)
    detail = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name = "sign-in record"

    def __str__(self):
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.kind} {self.username}"
