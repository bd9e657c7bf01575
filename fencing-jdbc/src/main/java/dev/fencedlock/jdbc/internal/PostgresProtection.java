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
 * Protects PostgreSQL tables: the function and procedure of the migration at {@code
 * classpath:db/fencedlock/postgresql} (created when missing), then {@code CALL
 * fencedlock_protect(table)}. Stateless.
 */
public final class PostgresProtection {
    static final String MIGRATION = "/db/fencedlock/postgresql/V2__fencedlock_protected_tables.sql";
    static final String TRIGGER = "fencedlock_fence_required";

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

    public static boolean isProtected(Connection connection, String table) throws SQLException {
        TableNames.requireValid(table);
        try (PreparedStatement statement = connection.prepareStatement(
                "select count(*) from pg_trigger where tgname = ? and tgrelid = to_regclass(?)")) {
            statement.setString(1, TRIGGER);
            statement.setString(2, table);
            try (ResultSet rows = statement.executeQuery()) {
                return rows.next() && rows.getInt(1) > 0;
            }
        }
    }

    private static boolean procedureExists(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("select to_regproc('fencedlock_refuse_unfenced') is not null"
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
