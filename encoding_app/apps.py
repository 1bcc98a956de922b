from django.apps import AppConfig


class EncodingAppConfig(AppConfig):
    default_auto_field = 'django.db.models.BigAutoField'
    name = 'encoding_app'
