"""Benchmark and Question move here from scenarios_app, their tables and rows as they are
(state only: the tables keep their names until 0003 renames them)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("scenarios_app", "0002_seed_reference_data"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Benchmark",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False,
                                                   verbose_name="ID")),
                        ("name", models.SlugField(help_text="Short name used on the command line, e.g. demo.",
                                                  max_length=64, unique=True)),
                        ("title", models.CharField(blank=True, max_length=200)),
                        ("family", models.CharField(choices=[("cfpd", "CFPD scenarios"),
                                                             ("borderlines", "Territorial disputes (BorderLines)"),
                                                             ("freeform", "Free-form crisis simulation")],
                                                    default="cfpd", max_length=20)),
                        ("description", models.TextField(blank=True)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                    ],
                    options={"ordering": ["name"], "db_table": "scenarios_app_benchmark"},
                ),
                migrations.CreateModel(
                    name="Question",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False,
                                                   verbose_name="ID")),
                        ("key", models.CharField(max_length=200, unique=True)),
                        ("kind", models.CharField(choices=[("choice", "Multiple choice"), ("free", "Free text")],
                                                  default="choice", max_length=10)),
                        ("variant", models.CharField(default="full", max_length=20)),
                        ("language", models.CharField(default="en", max_length=16)),
                        ("text", models.TextField()),
                        ("options", models.JSONField(default=list)),
                        ("option_order", models.JSONField(default=list)),
                        ("choice_count", models.PositiveSmallIntegerField(default=0)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        # The CFPD columns, until scenarios_app 0004 copies them to its own table.
                        ("actor_a", models.ForeignKey(blank=True, null=True, related_name="+",
                                                      on_delete=django.db.models.deletion.PROTECT,
                                                      to="scenarios_app.actor")),
                        ("actor_b", models.ForeignKey(blank=True, null=True, related_name="+",
                                                      on_delete=django.db.models.deletion.PROTECT,
                                                      to="scenarios_app.actor")),
                        ("benchmark", models.ForeignKey(on_delete=django.db.models.deletion.PROTECT,
                                                        related_name="questions", to="benchmarks_app.benchmark")),
                        ("domain", models.ForeignKey(blank=True, null=True, related_name="+",
                                                     on_delete=django.db.models.deletion.PROTECT,
                                                     to="scenarios_app.domain")),
                        ("qualified_actor", models.ForeignKey(blank=True, null=True, related_name="+",
                                                              on_delete=django.db.models.deletion.PROTECT,
                                                              to="scenarios_app.actor")),
                        ("scenario", models.ForeignKey(blank=True, null=True, related_name="+",
                                                       on_delete=django.db.models.deletion.PROTECT,
                                                       to="scenarios_app.scenario")),
                    ],
                    options={"ordering": ["key"], "db_table": "scenarios_app_question",
                             "indexes": [models.Index(fields=["benchmark", "domain", "choice_count"],
                                                      name="question_by_domain")]},
                ),
            ],
            database_operations=[],
        ),
    ]
