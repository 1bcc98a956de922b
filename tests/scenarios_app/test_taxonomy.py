import pytest

from scenarios_app.taxonomy import Taxonomy, fold_name

TAXONOMY = Taxonomy.from_seed()


def test_the_seed_has_the_papers_four_domains_and_the_23_comparisons_of_appendix_a1():
    assert list(TAXONOMY.domains.values()) == ["Escalation", "Intervention", "Cooperation", "Alliance Dynamics"]
    assert len(TAXONOMY.comparisons) == 23
    # A.1: escalation 8, cooperation 4, intervention 8, alliance dynamics 3.
    by_domain = {}
    for comparison in TAXONOMY.comparisons.values():
        by_domain[comparison.domain] = by_domain.get(comparison.domain, 0) + 1
    assert by_domain == {"escalation": 8, "cooperation": 4, "intervention": 8, "alliance": 3}


def test_ordered_domains_rank_their_categories_and_unordered_ones_do_not():
    ranks = {slug: c.rank for slug, c in TAXONOMY.categories.items()}
    assert (ranks["no-force"], ranks["threat-of-force"], ranks["use-of-force"]) == (0, 1, 2)
    assert (ranks["no-intervention"], ranks["middle-intervention"], ranks["high-intervention"]) == (0, 1, 2)
    assert ranks["cooperative"] is None and ranks["balancing"] is None


@pytest.mark.parametrize("written, slug", [
    ("Non-cooperative vs Bi-lateral Agreement (Cooperative)", "coop-bilateral"),
    ("non cooperative vs bilateral agreement (cooperative)", "coop-bilateral"),
    ("No Intervention vs Middle- Intervention vs Provide Natural Disaster Aid (High- Intervention)",
     "int3-natural-disaster-relief"),
    ("No Intervention vs Mid Intervention vs Regime Intervention (High Intervention)", "int3-regime-intervention"),
    ("Balance vs Power Maximisation", "ally-power-max"),
    ("Balancing vs Bandwagoning", "ally-bandwagon"),
])
def test_comparison_names_are_found_despite_case_and_spelling_variants(written, slug):
    assert TAXONOMY.find_comparison(written) == slug


def test_categories_and_domains_are_found_by_name_or_slug():
    assert TAXONOMY.find_category("Power maximization") == "power-maximisation"
    assert TAXONOMY.find_category("THREAT TO USE OF FORCE") == "threat-of-force"
    assert TAXONOMY.find_domain("alliance dynamics") == "alliance"
    assert TAXONOMY.find_category("Peace") is None


def test_fold_name_ignores_punctuation_and_spacing():
    assert fold_name("No Use-of force") == fold_name("no use of FORCE")
