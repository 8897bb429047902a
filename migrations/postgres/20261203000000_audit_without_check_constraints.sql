-- The audit table's CHECK constraints go: PostgreSQL reads each one's expression tree back from
-- its stored text (`stringToNode`) in every INSERT statement, before the first row. With the
-- writer's small batches (2–3 rows a statement at 10 000 evaluations a second) that was 15 % of
-- PostgreSQL's CPU per row (`ExecConstraints` in a profile, two thirds of it parsing), and 54 →
-- 47 µs of PostgreSQL CPU per row without them (bench/README.md, fifteenth session).
--
-- They guarded values only toolgate writes, each from a fixed set in the code (`record.rs`):
-- decision ∈ deny|ask|allow|none, shadow_decision the same or NULL, mode ∈ enforced|shadow,
-- seq > 0, and 32-byte hashes. They never guarded against tampering: whoever can write the
-- table can drop a constraint; the hash chain and `toolgate audit verify` are what detect edits.
-- NOT NULL stays (a flag on the column, checked without an expression).

ALTER TABLE audit
    DROP CONSTRAINT IF EXISTS audit_seq_check,
    DROP CONSTRAINT IF EXISTS audit_prev_hash_check,
    DROP CONSTRAINT IF EXISTS audit_hash_check,
    DROP CONSTRAINT IF EXISTS audit_decision_check,
    DROP CONSTRAINT IF EXISTS audit_mode_check,
    DROP CONSTRAINT IF EXISTS audit_shadow_decision_check;
