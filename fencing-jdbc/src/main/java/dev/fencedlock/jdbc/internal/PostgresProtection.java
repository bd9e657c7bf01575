package dev.fencedlock.jdbc.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Protects PostgreSQL tables: the functions and procedures of the newest migration at {@code
 * classpath:db/fencedlock/postgresql} (created when missing or older), then {@code CALL
 * fencedlock_protect(table)}, which covers the table's partitions and inheritance children and
 * repairs disabled triggers. Stateless.
 */
public final class PostgresProtection {
    /** The newest migration: it replaces the older ones' function and procedure. */
    static final String MIGRATION = "/db/fencedlock/postgresql/V3__fencedlock_fence_edges.sql";

    /**
     * The members of a table's family that leave it unprotected: the table, its ancestors (writes
     * through them reach it) and its descendants (partitions and inheritance children, read through
     * it), each lacking an enabled statement trigger of the fence's shape and function, and each
     * partitioned member lacking the row trigger that PostgreSQL copies to partitions added later.
     * A table that does not exist is one row (null); the migration's function missing or older than
     * the transaction-bound mark leaves every member unprotected.
     */
    private static final String UNPROTECTED_MEMBERS = "with recursive"
            + " target(relid) as (select to_regclass(?)::oid),"
            + " down(relid) as (select relid from target union"
            + " select i.inhrelid from pg_inherits i join down d on i.inhparent = d.relid),"
            + " up(relid) as (select relid from target union"
            + " select i.inhparent from pg_inherits i join up u on i.inhrelid = u.relid),"
            + " family(relid) as (select relid from down union select relid from up)"
            + " select f.relid::regclass::text from family f left join pg_class c on c.oid = f.relid"
            + " where f.relid is null or (c.relkind in ('r', 'p') and ("
            + " to_regprocedure('fencedlock_unfenced(text)') is null"
            + " or not exists (select 1 from pg_trigger t where t.tgrelid = f.relid"
            + " and t.tgname = 'fencedlock_fence_required' and t.tgtype = 62 and t.tgenabled in ('O', 'A')"
            + " and t.tgfoid = to_regproc('fencedlock_refuse_unfenced'))"
            + " or (c.relkind = 'p' and not exists (select 1 from pg_trigger t where t.tgrelid = f.relid"
            + " and t.tgname = 'fencedlock_fence_required_rows' and t.tgtype = 31 and t.tgenabled in ('O', 'A')"
            + " and t.tgfoid = to_regproc('fencedlock_refuse_unfenced')))))";

    private PostgresProtection() {}

    public static void protect(Connection connection, String table) throws SQLException {
        TableNames.requireValid(table);
        if (!procedureExists(connection)) {
            try (Statement statement = connection.createStatement()) {
                statement.execute(migration());
            }
        }
        try (PreparedStatement statement = connection.prepareStatement("call fencedlock_protect(?::regclass)")) {
            statement.setString(1, table);
            statement.execute();
        }
    }

    /**
     * Whether {@code table} exists and it, its ancestors and its descendants (partitions,
     * inheritance children) each have the fence's trigger enabled (not disabled, not replica-only),
     * with the migration that binds marks to their transaction installed.
     */
    public static boolean isProtected(Connection connection, String table) throws SQLException {
        TableNames.requireValid(table);
        try (PreparedStatement statement = connection.prepareStatement(UNPROTECTED_MEMBERS)) {
            statement.setString(1, table);
            try (ResultSet rows = statement.executeQuery()) {
                return !rows.next();
            }
        }
    }

    private static boolean procedureExists(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows =
                        statement.executeQuery("select to_regprocedure('fencedlock_unfenced(text)') is not null"
                                + " and to_regproc('fencedlock_protect') is not null")) {
            return rows.next() && rows.getBoolean(1);
        }
    }

    private static String migration() {
        try (InputStream in = PostgresProtection.class.getResourceAsStream(MIGRATION)) {
            if (in == null) {
                throw new IllegalStateException("fencing-jdbc's " + MIGRATION + " is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
