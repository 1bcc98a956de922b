from django.apps import AppConfig


class ScenariosAppConfig(AppConfig):
    default_auto_field = 'django.db.models.BigAutoField'
    name = 'scenarios_app'
    verbose_name = "CFPD scenarios"

    def ready(self):
        from analysis_app import computed
        from benchmarks_app import families

        from .family import CFPD

        families.register(CFPD)
        # The CFPD dashboard's board for one filter and data version (seconds of counting and bootstrap).
        computed.register("cfpd-dashboard", "scenarios_app.analysis.board_figure:compute_board")
        from .headline import register_headline  # its figures on the models' profiles
        register_headline()
        from runs_app.signals import unit_grid_written

        from .analysis import tally
        # A launch's pending units counted from its grid (the insert trigger skips them).
        unit_grid_written.connect(tally.count_unit_grid, dispatch_uid="cfpd-tally-unit-grid")
