"""The second factors in the console, for superusers: list and delete (a lost phone: delete the
person's devices, they enrol again at their next sign-in). Replaces django-otp's own TOTP page,
whose QR code and config views show a device's key to whoever opens them and answer 500 for
a device that does not exist."""

from django.contrib import admin
from django_otp.plugins.otp_static.models import StaticDevice
from django_otp.plugins.otp_totp.models import TOTPDevice


class SecondFactorAdmin(admin.ModelAdmin):
    list_display = ["user", "name", "confirmed", "created_at", "last_used_at"]
    list_filter = ["confirmed"]
    search_fields = ["user__username"]
    fields = ["user", "name", "confirmed", "created_at", "last_used_at"]
    readonly_fields = fields

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


for model in (TOTPDevice, StaticDevice):
    if admin.site.is_registered(model):
        admin.site.unregister(model)
    admin.site.register(model, SecondFactorAdmin)
