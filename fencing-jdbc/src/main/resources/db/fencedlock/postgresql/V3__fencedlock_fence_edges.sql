-- Protected tables on PostgreSQL, third round (fencing-jdbc): replaces V2's function and procedure.
-- PostgreSQL 11 or later (procedures, EXECUTE FUNCTION, triggers copied to partitions).
-- Idempotent; also run by FencedTables.protect when fencedlock_unfenced(text) is missing.
--
-- The mark is bound to its transaction: the fence guard's first statement sets the
-- transaction-local setting fencedlock.fenced to '<transaction id> <token> <lock name>', the id
-- being txid_current(); the trigger accepts a write only if the setting starts with the
-- current transaction's id. A mark set for the session (SET fencedlock.fenced = ...), on the JDBC
-- URL (options=-c ...) or for a role (ALTER ROLE ... SET) names no transaction and is worth nothing.
--
-- The operator's deliberate fix-up, bound to its transaction the same way:
--   BEGIN; SELECT fencedlock_unfenced('ticket 1234: restock after audit'); UPDATE ...; COMMIT;
--
-- CALL fencedlock_protect('inventory') protects the table, its partitions and inheritance
-- children (present ones; run it again after adding one), enables a trigger that was disabled or
-- set to fire only for replication, and, on a partitioned table, adds a row-level trigger that
-- PostgreSQL copies to every partition created or attached later. It refuses a table whose parent
-- is unprotected (writes through the parent reach it without its statement trigger).
CREATE OR REPLACE FUNCTION fencedlock_refuse_unfenced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    xact text := txid_current_if_assigned()::text;
BEGIN
    IF xact IS NULL
            OR (split_part(coalesce(current_setting('fencedlock.fenced', true), ''), ' ', 1) <> xact
                AND split_part(coalesce(current_setting('fencedlock.unfenced', true), ''), ' ', 1) <> xact) THEN
        RAISE EXCEPTION 'fencedlock: % on protected table %.% outside a fenced transaction is refused',
                TG_OP, TG_TABLE_SCHEMA, TG_TABLE_NAME
            USING ERRCODE = '23F01',
                HINT = 'Write it in a fenced transaction (JdbcFencing.inTransaction, fencing-jpa''s Fencing.bind, '
                    || 'Spring''s @Locked) so that the fence guard runs first; an operator''s deliberate fix-up '
                    || 'runs SELECT fencedlock_unfenced(''<reason>'') first in its transaction.';
    END IF;
    IF TG_LEVEL = 'ROW' THEN
        IF TG_OP = 'DELETE' THEN
            RETURN OLD;
        END IF;
        RETURN NEW;
    END IF;
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION fencedlock_unfenced(reason text) RETURNS text LANGUAGE sql AS $$
    SELECT set_config('fencedlock.unfenced', txid_current()::text || ' ' || reason, true)
$$;

-- one trigger of the fence on rel: created when missing, re-created when of another shape or
-- function, enabled when disabled or replica-only
CREATE OR REPLACE PROCEDURE fencedlock_require_trigger(rel regclass, name text, shape int2, level text)
LANGUAGE plpgsql AS $$
DECLARE
    found_trigger record;
    present boolean;
BEGIN
    SELECT tgtype, tgfoid, tgenabled INTO found_trigger
        FROM pg_trigger WHERE tgrelid = rel AND tgname = name;
    present := FOUND;
    IF present
            AND (found_trigger.tgtype <> shape OR found_trigger.tgfoid <> 'fencedlock_refuse_unfenced'::regproc) THEN
        EXECUTE format('DROP TRIGGER %I ON %s', name, rel);
        present := false;
    END IF;
    IF NOT present THEN
        EXECUTE format('CREATE TRIGGER %I BEFORE INSERT OR UPDATE OR DELETE%s ON %s FOR EACH %s'
                || ' EXECUTE FUNCTION fencedlock_refuse_unfenced()',
            name, CASE WHEN level = 'STATEMENT' THEN ' OR TRUNCATE' ELSE '' END, rel, level);
    ELSIF found_trigger.tgenabled NOT IN ('O', 'A') THEN
        EXECUTE format('ALTER TABLE %s ENABLE TRIGGER %I', rel, name);
    END IF;
END
$$;

CREATE OR REPLACE PROCEDURE fencedlock_protect(target regclass) LANGUAGE plpgsql AS $$
DECLARE
    member record;
BEGIN
    FOR member IN
        WITH RECURSIVE up(relid) AS (
            SELECT inhparent FROM pg_inherits WHERE inhrelid = target
            UNION SELECT i.inhparent FROM pg_inherits i JOIN up ON i.inhrelid = up.relid)
        SELECT relid::regclass AS rel FROM up
    LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = member.rel AND tgname = 'fencedlock_fence_required'
                AND tgenabled IN ('O', 'A') AND tgtype = 62) THEN
            RAISE EXCEPTION 'fencedlock: % is a partition or inheritance child of the unprotected table %: writes '
                    'through % reach it without its statement trigger. Protect % instead (that covers its '
                    'partitions and children)', target, member.rel, member.rel, member.rel
                USING ERRCODE = '55000';
        END IF;
    END LOOP;
    FOR member IN
        WITH RECURSIVE down(relid) AS (
            SELECT target::oid
            UNION SELECT i.inhrelid FROM pg_inherits i JOIN down ON i.inhparent = down.relid)
        SELECT d.relid::regclass AS rel, c.relkind FROM down d JOIN pg_class c ON c.oid = d.relid
        WHERE c.relkind IN ('r', 'p')
    LOOP
        -- BEFORE (2) INSERT (4) DELETE (8) UPDATE (16) TRUNCATE (32), once per statement
        CALL fencedlock_require_trigger(member.rel, 'fencedlock_fence_required', 62::int2, 'STATEMENT');
        IF member.relkind = 'p' THEN
            -- ROW (1) BEFORE INSERT DELETE UPDATE: copied by PostgreSQL to partitions added later
            CALL fencedlock_require_trigger(member.rel, 'fencedlock_fence_required_rows', 31::int2, 'ROW');
        END IF;
    END LOOP;
END
$$;
