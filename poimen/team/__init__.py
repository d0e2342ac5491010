"""The rules of a team's shared work, each once: the roles and what each may do, which verdicts fit
a record, claims, borderline sends and disagreements (team_rules), and Cohen's kappa. Services
enforce them and pages show them; neither restates them.

May import: poimen.models.
"""
