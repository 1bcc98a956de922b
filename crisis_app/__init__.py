"""Pure groundwork for the free-form crisis-inconsistency benchmark family.

Plain Python modules with no Django import: the scored section of an answer, the
inconsistency arithmetic, a BERTScore scorer on the bundled encoder, the metric's
validation with text ablations, and a sample two-move crisis simulation with its
rendering into chat messages.
"""
