package dev.fencedlock.jdbc.internal;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Locale;

/** The databases whose own mechanisms the fence uses; everything else gets the portable SQL. */
enum Database {
    POSTGRESQL,
    H2,
    /** MariaDB and MySQL. */
    MARIADB,
    OTHER;

    /** The database {@code connection} talks to, from its metadata (no statement is run). */
    public static Database of(Connection connection) throws SQLException {
        return of(connection.getMetaData());
    }

    /** The database {@code meta} describes. */
    public static Database of(DatabaseMetaData meta) throws SQLException {
        String product = meta.getDatabaseProductName().toLowerCase(Locale.ROOT);
        if (product.contains("postgresql")) {
            return POSTGRESQL;
        }
        if (product.equals("h2")) {
            return H2;
        }
        if (product.contains("mariadb") || product.contains("mysql")) {
            return MARIADB;
        }
        return OTHER;
    }
}
