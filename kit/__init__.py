"""The kit: the small helpers every room shares and none owns — query parameters read once
with a 400 naming the field (`params`, `param_errors`), spreadsheet-safe CSV cells
(`csv_safety`, `report_files`), the API's schema, errors and docs (`api_schema`,
`api_errors`, `api_docs`), the admin's read-only mixin (`admin_tools`). It imports no room,
and every room may import it; it was part of `cfpd_site` until issue 39, which left the site
(settings, URLs, the Celery app, error pages) on top of the house, imported by nothing."""
