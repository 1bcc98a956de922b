"""The grid's and the comparison's small pieces: `{% code_badge code %}` (a code in its
colour; "—" for none), `|code_text`, `|percent` and `|signed_percent`."""

from django import template
from django.utils.html import format_html

from explorer_app import comparison, grid

register = template.Library()


@register.simple_tag
def code_badge(code):
    label = code or grid.UNCODED
    colour = grid.colour_of(label)
    light = " light" if grid.is_light(colour) else ""
    return format_html('<span class="code-badge{}" style="background:{}">{}</span>', light, colour,
                       comparison.shown(code))


@register.filter
def code_text(code):
    return comparison.shown(code)


@register.filter
def percent(value):
    return "—" if value is None else f"{value * 100:.1f} %"


@register.filter
def signed_percent(value):
    if value is None:
        return "—"
    points = round(value * 100, 1)
    if points == 0:  # no "−0.0" for a difference that rounds to nothing
        return "0.0 pp"
    return f"{points:+.1f}".replace("-", "−") + " pp"
