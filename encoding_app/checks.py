"""Start-up check of the automatic encoder (`manage.py check`, every command that checks):
its rules give the known codes of a few answers (`auto_encoder.known_answers`), or the
site does not start coding with them."""

from django.core.checks import Error, register

from .auto_encoder import known_answers


@register()
def automatic_encoder(app_configs, **kwargs):
    problems = known_answers.check()
    if not problems:
        return []
    return [Error(f"the automatic encoder failed its self-check: {'; '.join(problems)}",
                  hint="its rules (encoding_app/auto_encoder) no longer code these known answers as known: "
                       "run tests/encoding_app/test_auto_encoder.py, fix the rules, and re-code the answers coded since "
                       "the change",
                  id="encoding.E001")]
