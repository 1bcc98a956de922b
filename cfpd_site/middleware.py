"""Request fixes the whole site needs, kept small."""


class DropEmptyAdminToField:
    """Django 5.2's admin passes an empty `?_to_field=` to `Model._meta.get_field("")` on a
    change page and answers 500 (FieldDoesNotExist). An empty value means "no field": drop
    it, so the page behaves as without it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        for query in (request.GET, request.POST) if request.method == "POST" else (request.GET,):
            if "_to_field" in query and not query.get("_to_field"):
                query._mutable = True
                query.pop("_to_field")
                query._mutable = False
        return self.get_response(request)
