-- Protected tables on PostgreSQL (fencing-jdbc): a table protected with
--   CALL fencedlock_protect('inventory');
-- (or FencedTables.protect(dataSource, "inventory") from Java) refuses INSERT, UPDATE, DELETE and
-- TRUNCATE in any transaction whose fence guard has not run: the guard's first statement sets the
-- transaction-local setting fencedlock.fenced, and a statement-level trigger checks it. Idempotent.
--
-- An operator's deliberate fix-up outside the fence, for one transaction:
--   BEGIN; SET LOCAL fencedlock.unfenced = 'ticket 1234: restock after audit'; UPDATE ...; COMMIT;
CREATE OR REPLACE FUNCTION fencedlock_refuse_unfenced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF coalesce(current_setting('fencedlock.fenced', true), '') = ''
            AND coalesce(current_setting('fencedlock.unfenced', true), '') = '' THEN
        RAISE EXCEPTION 'fencedlock: % on protected table %.% outside a fenced transaction is refused',
                TG_OP, TG_TABLE_SCHEMA, TG_TABLE_NAME
            USING ERRCODE = '23F01',
                HINT = 'Write it in a fenced transaction (JdbcFencing.inTransaction, fencing-jpa''s Fencing.bind, '
                    || 'Spring''s @Locked) so that the fence guard runs first; an operator''s deliberate fix-up '
                    || 'runs SET LOCAL fencedlock.unfenced = ''<reason>'' first in its transaction.';
    END IF;
    RETURN NULL;
END
$$;

CREATE OR REPLACE PROCEDURE fencedlock_protect(target regclass) LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = target AND tgname = 'fencedlock_fence_required') THEN
        EXECUTE format('CREATE TRIGGER fencedlock_fence_required BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE'
                || ' ON %s FOR EACH STATEMENT EXECUTE FUNCTION fencedlock_refuse_unfenced()', target);
    END IF;
END
$$;
