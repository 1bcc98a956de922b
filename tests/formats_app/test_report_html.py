"""formats_app.report_html: a page's scripts and style sheets written into it (pure)."""

import pytest

from formats_app.report_html import MissingAsset, inline

ASSETS = {"/static/css/site.css": "body{color:red}", "/static/plotly/plotly.min.js": 'var t="</script>";',
          "/static/js/dashboard.js": "draw();"}


def test_scripts_and_styles_are_written_into_the_page_and_icons_dropped():
    page = ('<html><head><link rel="icon" href="/static/favicon.svg" type="image/svg+xml">'
            '<link rel="stylesheet" href="/static/css/site.css"></head><body class="x">'
            '<script src="/static/plotly/plotly.min.js"></script><script defer src="/static/js/dashboard.js"></script>'
            '<script id="fig" type="application/json">{"data": []}</script></body></html>')
    result = inline(page, ASSETS.get, banner="<p>from the site</p>")
    assert result == ('<html><head><style>body{color:red}</style></head><body class="x"><p>from the site</p>'
                      # "</script" inside the code is escaped, or it would end the element early
                      '<script>var t="<\\/script>";</script><script>draw();</script>'
                      '<script id="fig" type="application/json">{"data": []}</script></body></html>')


def test_a_script_from_elsewhere_is_named_not_left_to_fetch():
    with pytest.raises(MissingAsset, match="https://cdn.example/x.js"):
        inline('<script src="https://cdn.example/x.js"></script>', ASSETS.get)
