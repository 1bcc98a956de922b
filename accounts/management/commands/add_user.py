"""Create a user with a role: `add_user alice --role authors --password-env ALICE_PASSWORD`."""

import os

from django.core.management.base import BaseCommand, CommandError

from accounts.roles import ROLES
from accounts.services import create_user_with_role


class Command(BaseCommand):
    help = "Create a user in one of the roles (authors, operators, reviewers, analysts)."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--role", choices=ROLES, required=True)
        parser.add_argument("--password-env", default="CFPD_USER_PASSWORD",
                            help="Environment variable holding the password (default CFPD_USER_PASSWORD).")
        parser.add_argument("--email", default="")

    def handle(self, *args, username, role, password_env, email, **options):
        password = os.environ.get(password_env)
        if not password:
            raise CommandError(f"{password_env} is not set: put the new user's password in it")
        user, created = create_user_with_role(username, password, role=role, email=email)
        self.stdout.write(f"user {user.username!r} {'created' if created else 'already exists'} with role {role}")
