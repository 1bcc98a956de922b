"""BorderLines authoring data, per benchmark (one benchmark = one table at one snapshot):
languages with their question templates, countries, territories with their ordered
claimants and controller, term translations, the release's query lines as imported, and
what the family knows of each of its questions in the shared question table."""

from django.core.exceptions import ValidationError
from django.db import models

from .question_template import template_problem

# The family's name in the registry (benchmarks_app.families) and in Benchmark.family:
# here, below every other module of the app (family.py names its Family with it).
FAMILY = "borderlines"


class BorderlinesTable(models.Model):
    benchmark = models.OneToOneField("benchmarks_app.Benchmark", on_delete=models.CASCADE,
                                     related_name="borderlines_table")
    snapshot = models.DateField(null=True, blank=True, help_text="The date the table describes.")
    source = models.CharField(max_length=300, blank=True, help_text="Where it was imported from.")

    def __str__(self):
        return f"{self.benchmark.name} ({self.snapshot or 'no date'})"


class Language(models.Model):
    benchmark = models.ForeignKey("benchmarks_app.Benchmark", on_delete=models.CASCADE, related_name="bl_languages")
    code = models.CharField(max_length=16, help_text="As the release writes it: zhs, zht, ja, …")
    # Shown to authors; a country keeps the release's own names for its language (North and
    # South Korea name Korean differently), which is what an export writes back.
    name = models.CharField(max_length=80, blank=True, help_text="English name, e.g. Japanese.")
    native_name = models.CharField(max_length=120, blank=True, help_text="Its own name, e.g. 日本語.")
    template = models.TextField(help_text="The question in this language: XX the territory, YY and ZZ the first "
                                          "and last claimants (the words between them are the language's 'or').")

    class Meta:
        ordering = ["benchmark", "code"]
        constraints = [models.UniqueConstraint(fields=["benchmark", "code"], name="bl_language_once")]

    def __str__(self):
        return self.code

    def clean(self):
        problem = template_problem(self.template or "")
        if problem:
            raise ValidationError({"template": f"{problem}: write XX for the territory and YY … ZZ for the "
                                               "claimants, e.g. 'Is XX a territory of YY or ZZ?'"})


class Country(models.Model):
    benchmark = models.ForeignKey("benchmarks_app.Benchmark", on_delete=models.CASCADE, related_name="bl_countries")
    name = models.CharField(max_length=120, help_text="The English name, as the release keys it.")
    actor = models.ForeignKey("benchmarks_app.Actor", null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="+", help_text="The actor (ISO country or added entity) it is.")
    language = models.CharField(max_length=16, blank=True, help_text="Majority language code.")
    language_name = models.CharField(max_length=80, blank=True)
    language_native = models.CharField(max_length=120, blank=True)
    religion = models.CharField(max_length=120, blank=True)
    population = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["benchmark", "name"]
        verbose_name_plural = "countries"
        constraints = [models.UniqueConstraint(fields=["benchmark", "name"], name="bl_country_once")]

    def __str__(self):
        return self.name


class Territory(models.Model):
    benchmark = models.ForeignKey("benchmarks_app.Benchmark", on_delete=models.CASCADE, related_name="bl_territories")
    position = models.PositiveIntegerField(default=0, help_text="Its row in the table.")
    name = models.CharField(max_length=200)
    region = models.CharField(max_length=120, blank=True)
    population = models.FloatField(null=True, blank=True)
    controller = models.ForeignKey(Country, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
                                   help_text="Empty: Unknown. Must be one of the claimants.")
    query = models.TextField(blank=True, help_text="The English control question as the release writes it.")
    # The release's longest is 47 characters (South_Georgia_and_the_South_Sandwich_Islands_en).
    query_id = models.CharField(max_length=200, blank=True)
    is_current = models.BooleanField(default=True, help_text="Cleared when a later import no longer has it.")
    # Where the dashboard's map marks it (the release has no coordinates); empty: the
    # sample's own (territories_app.locations), else listed under the map.
    latitude = models.FloatField(null=True, blank=True, help_text="Degrees north, for the dashboard's map.")
    longitude = models.FloatField(null=True, blank=True, help_text="Degrees east, for the dashboard's map.")

    class Meta:
        ordering = ["benchmark", "position", "name"]
        # The family's dashboard (its registration's Dashboard.permission; analysts hold it).
        permissions = [("view_territories_dashboard", "Can read the territorial-disputes dashboard and its API")]
        verbose_name_plural = "territories"
        constraints = [models.UniqueConstraint(fields=["benchmark", "name"], name="bl_territory_once")]

    def __str__(self):
        return self.name


class Claimant(models.Model):
    territory = models.ForeignKey(Territory, on_delete=models.CASCADE, related_name="claimants")
    country = models.ForeignKey(Country, on_delete=models.PROTECT, related_name="claims")
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["position"]
        constraints = [models.UniqueConstraint(fields=["territory", "country"], name="bl_claimant_once")]

    def __str__(self):
        return f"{self.position}: {self.country}"


class TermTranslation(models.Model):
    benchmark = models.ForeignKey("benchmarks_app.Benchmark", on_delete=models.CASCADE, related_name="bl_terms")
    language = models.CharField(max_length=16)
    english = models.CharField(max_length=200)
    text = models.CharField(max_length=300)

    class Meta:
        ordering = ["benchmark", "language", "english"]
        constraints = [models.UniqueConstraint(fields=["benchmark", "language", "english"], name="bl_term_once")]

    def __str__(self):
        return f"{self.language}: {self.english} → {self.text}"


class ReleaseQuery(models.Model):
    """A query line as the release wrote it (translated, or the English control), kept so
    that an export writes the release back exactly."""

    benchmark = models.ForeignKey("benchmarks_app.Benchmark", on_delete=models.CASCADE, related_name="bl_queries")
    language = models.CharField(max_length=16)
    is_control = models.BooleanField(default=False, help_text="One of prompts/prompts_q_mc.txt's English controls.")
    position = models.PositiveIntegerField()
    territory = models.ForeignKey(Territory, on_delete=models.CASCADE, related_name="release_queries")
    text = models.TextField()
    choices = models.JSONField(default=list)

    class Meta:
        ordering = ["benchmark", "is_control", "language", "position"]


class TerritoryQuestion(models.Model):
    """What BorderLines knows of one of its questions in the shared table."""

    question = models.OneToOneField("benchmarks_app.Question", primary_key=True, on_delete=models.CASCADE,
                                    related_name="borderlines")
    territory = models.ForeignKey(Territory, on_delete=models.PROTECT, related_name="questions")
    choices = models.JSONField(default=list, help_text="The claimants' names as shown, in letter order.")
    claimants_en = models.JSONField(default=list, help_text="The same claimants in English, same order.")
    speakers = models.JSONField(default=list, help_text="Claimants whose language this is (English names).")
    controller = models.CharField(max_length=120, null=True, blank=True)

    def __str__(self):
        return f"{self.territory} [{self.question.language}]"
