package dev.fencedlock.jdbcprovider.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

/**
 * What differs between the supported databases: how to read the database's clock, and whether
 * releases can wake waiters with a notification.
 *
 * <p>Each clock expression is evaluated once per statement, at (or after) the moment the statement
 * reached the server, and never before the client sent it: that is what lets a client count a
 * lease's validity from the moment it sent the statement that granted it.
 */
enum Dialect {
    /** {@code CURRENT_TIMESTAMP} is fixed per command in autocommit mode. */
    H2("CAST(FLOOR(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000) AS BIGINT)", false),
    /** {@code statement_timestamp()}: when the server received the statement. */
    POSTGRESQL("CAST(FLOOR(EXTRACT(EPOCH FROM statement_timestamp()) * 1000) AS BIGINT)", true),
    /** {@code UTC_TIMESTAMP(6)} is fixed at the start of the statement and ignores the session time zone. */
    MARIADB("(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)", false);

    private final String nowMillis;
    private final boolean notifies;

    Dialect(String nowMillis, boolean notifies) {
        this.nowMillis = nowMillis;
        this.notifies = notifies;
    }

    /** A SQL expression for the database's wall clock in whole milliseconds since the epoch. */
    String nowMillis() {
        return nowMillis;
    }

    /** Whether releases are announced with {@code NOTIFY} and waiters woken by {@code LISTEN}. */
    boolean notifies() {
        return notifies;
    }

    /**
     * @throws IllegalArgumentException for a database this backend does not support, naming it
     */
    static Dialect of(Connection connection) throws SQLException {
        String product = connection.getMetaData().getDatabaseProductName();
        String lower = product.toLowerCase(Locale.ROOT);
        if (lower.contains("h2")) {
            return H2;
        }
        if (lower.contains("postgresql")) {
            return POSTGRESQL;
        }
        if (lower.contains("mariadb") || lower.contains("mysql")) {
            return MARIADB;
        }
        throw new IllegalArgumentException(
                "The jdbc lock backend supports H2, PostgreSQL and MariaDB; the database is '" + product + "'");
    }
}
