"""`{% model_link name %}`: a model's name as a link to its profile (for readers of the
dashboards; others see the name alone), `{% panel_cell columns index cell %}` (a panel
table's cell, a model's name linked), and `|figure_value:unit` to print a headline figure
in its unit."""

from django import template
from django.template.base import render_value_in_context
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html

register = template.Library()
PERMISSION = "analysis_app.view_dashboard"


@register.simple_tag(takes_context=True)
def model_link(context, name):
    if not name:
        return ""
    user = context.get("user")
    if user is not None and not user.has_perm(PERMISSION):
        return format_html("{}", name)
    try:
        url = reverse("model-profile", args=[name])
    except NoReverseMatch:  # a name no URL can carry (a slash, say): the name alone
        return format_html("{}", name)
    return format_html('<a class="model-link" href="{}">{}</a>', url, name)


@register.simple_tag(takes_context=True)
def panel_cell(context, columns, index, cell):
    """A dashboard panel's table cell as `{{ cell }}` prints it, except in the column named
    "model", whose names link to their profiles. Rendered by the worker (the CFPD board:
    no user, so a link; only analysts read the dashboards) or by the page."""
    if index < len(columns) and str(columns[index]).strip().lower() == "model" and isinstance(cell, str):
        return model_link(context, cell)
    return render_value_in_context(cell, context)


@register.filter
def figure_value(value, unit="share"):
    """0.4213 as "42.1 %" (a share), 42.13 as "42.1" (percent), 0.3127 as "0.313" (a score)."""
    if value is None or value == "":
        return "—"
    value = float(value)
    if unit == "share":
        return f"{value * 100:.1f} %"
    if unit == "percent":
        return f"{value:.1f}"
    return f"{value:.3f}"


@register.filter
def signed_value(value, unit="share"):
    """A difference with its sign: "+12.0 pts" (shares, in percentage points), "−3.1", "+0.052"."""
    if value is None or value == "":
        return "—"
    value = float(value)
    text = f"{value * 100:+.1f} pts" if unit == "share" else f"{value:+.1f}" if unit == "percent" else f"{value:+.3f}"
    return text.replace("-", "−")
