"""Create the first admin without prompts, from CFPD_ADMIN_USER / _PASSWORD / _EMAIL."""

import os

from django.core.management.base import BaseCommand, CommandError

from accounts.services import create_user_with_role


class Command(BaseCommand):
    help = "Create a superuser from CFPD_ADMIN_USER, CFPD_ADMIN_PASSWORD (or _FILE) and CFPD_ADMIN_EMAIL."

    def add_arguments(self, parser):
        parser.add_argument("--update", action="store_true", help="Reset the password if the user exists.")

    def handle(self, *args, update=False, **options):
        username = os.environ.get("CFPD_ADMIN_USER", "admin")
        password = os.environ.get("CFPD_ADMIN_PASSWORD")
        path = os.environ.get("CFPD_ADMIN_PASSWORD_FILE")
        if path:
            with open(path, encoding="utf-8") as handle:
                password = handle.read().strip()
        if not password:
            raise CommandError("CFPD_ADMIN_PASSWORD (or CFPD_ADMIN_PASSWORD_FILE) is not set: set it to the admin's password")
        user, created = create_user_with_role(
            username, password, role="authors", email=os.environ.get("CFPD_ADMIN_EMAIL", ""),
            superuser=True, update=update)
        verb = "created" if created else ("updated" if update else "already exists, left unchanged")
        self.stdout.write(f"admin {user.username!r} {verb}")
