import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from crisis_app import validation_report
from crisis_app.validation import EXPECTED_ORDER, ValidationFileError, parse_items
from crisis_app.validation_data import VALIDATION_ITEMS

FILE_SHAPE = ('{"items": [{"reference": "…", "lexical": "…", "syntactic": "…", "irrelevance": "…", '
              '"semantic": "…", "id": "optional label"}, …]}')


def read_items(path):
    try:
        payload = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CommandError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandError(f"{path}: cannot be read ({exc})") from None
    except json.JSONDecodeError as exc:
        raise CommandError(f"{path}: not JSON ({exc}); write {FILE_SHAPE}") from None
    try:
        return parse_items(payload)
    except ValidationFileError as exc:
        raise CommandError(f"{path}: nothing validated:\n" + "\n".join(f"  {p}" for p in exc.problems)) from None


class Command(BaseCommand):
    help = ("The inconsistency metric's validation (the paper's section 4): each reference answer against its "
            "lexical substitution, syntactic restructuring, added irrelevant sentence and semantic shift, scored "
            "with each named BERTScore preset. Prints each class's mean inconsistency (-v 2: each item's) and "
            "whether lexical < syntactic < irrelevance < semantic holds. A report: exits 0 whether or not the order "
            f"holds. --file reads authored items shaped as {FILE_SHAPE}.")

    def add_arguments(self, parser):
        presets = validation_report.preset_names()
        parser.add_argument("--scorer", nargs="+", choices=presets, default=presets, metavar="PRESET",
                            help=f"BERTScore presets to validate ({', '.join(presets)}; default: all). A preset "
                                 "whose encoder is not on this machine is reported as not available.")
        parser.add_argument("--file", help="JSON file of reference answers and their four ablations "
                                           "(default: the bundled crisis_app/validation_data.py).")

    def handle(self, *args, scorer, file, verbosity, **options):
        items = read_items(file) if file else VALIDATION_ITEMS
        source = file or "the bundled crisis_app/validation_data.py"
        self.stdout.write(f"{len(items)} reference answers from {source}; expected order: "
                          + " < ".join(EXPECTED_ORDER))
        for preset in dict.fromkeys(scorer):
            report = validation_report.validate_preset(preset, items)
            self.stdout.write("")
            if not report["available"]:
                what = "not validated" if report.get("self_check_failed") else "not available"
                self.stdout.write(f"Scorer {preset}: {what}: {report['reason']}")
                continue
            config = report["config"]
            self.stdout.write(f"Scorer {preset}: {config['model_name']}, layer {config['num_layers']}, "
                              f"idf {'on' if config['idf'] else 'off'}, {config['precision']}, "
                              f"baseline F1 {config['baseline_f1']:.3f}")
            width = max(map(len, EXPECTED_ORDER))
            for name in EXPECTED_ORDER:
                self.stdout.write(f"  {name:<{width}}  mean inconsistency {report['class_means'][name]:.3f}")
                if verbosity >= 2:
                    for number, value in enumerate(report["per_item"][name], start=1):
                        label = items[number - 1].get("id", number)
                        self.stdout.write(f"    item {label}: {value:.3f}")
            self.stdout.write("  measured order: " + " < ".join(report["measured_order"]))
            verdict = "holds" if report["order_holds"] else "does NOT hold"
            self.stdout.write(self.style.SUCCESS(f"  expected order {verdict}") if report["order_holds"]
                              else self.style.WARNING(f"  expected order {verdict}: do not trust this scorer's "
                                                      "ranking of meaning-preserving changes"))
