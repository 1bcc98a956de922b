"""API tokens from the shell:
    python manage.py api_token create alice --name "nightly export"   (prints the token once)
    python manage.py api_token list [alice]
    python manage.py api_token revoke cfpd_AbCdEfGh   (a prefix as `list` shows it, or the id)"""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from accounts import api_tokens
from accounts.models import ApiToken


class Command(BaseCommand):
    help = "Create, list and revoke a user's API tokens (the token is printed once, at creation)."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True)
        create = actions.add_parser("create", help="Make a token for USER and print it (only this once).")
        create.add_argument("username")
        create.add_argument("--name", required=True, help="What the token is for, e.g. 'nightly export'.")
        listing = actions.add_parser("list", help="Tokens (prefix, name, user, dates); never the tokens themselves.")
        listing.add_argument("username", nargs="?")
        revoke = actions.add_parser("revoke", help="Revoke a token by its prefix (as `list` shows it) or its id.")
        revoke.add_argument("token")

    def handle(self, *args, action, **options):
        getattr(self, f"_{action}")(**options)

    def _create(self, username, name, **_):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user named {username!r}; create one with: python manage.py add_user")
        try:
            made = api_tokens.create_token(user, name)
        except api_tokens.TokenError as exc:
            raise CommandError(str(exc)) from None
        expiry = (f"expires {made.record.expires_at:%Y-%m-%d %H:%M} UTC" if made.record.expires_at
                  else "never expires")
        self.stderr.write(f"API token {made.record.prefix}… ({made.record.name}) for {user.username}, {expiry}; "
                          "it is shown only now, copy it:")
        self.stdout.write(made.token)  # alone on stdout, so that TOKEN=$(python manage.py api_token create ...) works

    def _list(self, username=None, **_):
        tokens = ApiToken.objects.select_related("user")
        if username:
            tokens = tokens.filter(user__username=username)
        for token in tokens:
            state = f"revoked {token.revoked_at:%Y-%m-%d %H:%M}" if token.revoked_at else "active"
            if token.expires_at and not token.revoked_at:
                state += f", expires {token.expires_at:%Y-%m-%d %H:%M}"
            used = f"{token.last_used_at:%Y-%m-%d %H:%M}" if token.last_used_at else "never"
            self.stdout.write(f"{token.pk}\t{token.prefix}\t{token.user.username}\t{token.name}\t{state}\t"
                              f"last used {used}")

    def _revoke(self, token, **_):
        text = token.strip().rstrip("…")
        matches = (ApiToken.objects.filter(pk=int(text)) if text.isdigit() and len(text) < 19
                   else ApiToken.objects.filter(prefix=text))
        if not matches.exists():
            raise CommandError(f"no token {text!r}: give its id or its prefix as `api_token list` shows it")
        if matches.count() > 1:
            raise CommandError(f"{matches.count()} tokens start with {text!r}: revoke by id instead")
        revoked = api_tokens.revoke_tokens(matches)
        self.stdout.write(f"token {text} {'revoked' if revoked else 'was already revoked'}")
