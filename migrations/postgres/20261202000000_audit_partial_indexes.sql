-- Two of the audit's secondary indexes cover only the rows their queries look for, so that the
-- writer's inserts skip them for most rows: everyday calls are allowed or get no opinion, and
-- match no rule.
--
-- `decision=deny|ask` (what an auditor looks for) uses the partial index; `allow` and `none` are
-- most rows, and the tenant's time index serves them. `rule=` queries add `cardinality(rules) > 0`
-- so that the planner can use the partial GIN index.

DROP INDEX audit_tenant_decision_idx;
CREATE INDEX audit_tenant_flagged_idx ON audit (tenant, decision, time DESC)
    WHERE decision IN ('deny', 'ask');

DROP INDEX audit_rules_idx;
CREATE INDEX audit_rules_idx ON audit USING gin (rules) WHERE cardinality(rules) > 0;
