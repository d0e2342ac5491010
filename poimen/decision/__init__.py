"""The bridge between the stored data and the matcher (filter/): the artifact index each process
keeps current (index_version, index_store, artifact_index), a record under the one decision
(record_decision, checked, check_pool), the same decision taken again from stored rows
(stored_decisions) and in SQL (derived_rule), the per-kind policies it reads, and a session's
restatements of itself.

The rule itself lives in filter.decide; everything here asks it and never restates it.

May import: filter, poimen.models, poimen.db, poimen.readers, poimen.web.
"""
