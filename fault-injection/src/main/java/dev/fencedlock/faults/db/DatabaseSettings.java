package dev.fencedlock.faults.db;

import java.util.Objects;

/**
 * How to reach the shared database: what a client process needs to join a run. {@link
 * #toString()} leaves the password out.
 *
 * @param jdbcUrl the JDBC URL, including the private schema
 * @param user the database user
 * @param password the password, empty for none
 */
public record DatabaseSettings(String jdbcUrl, String user, String password) {
    public DatabaseSettings {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(password, "password");
    }

    @Override
    public String toString() {
        return "DatabaseSettings{" + jdbcUrl + ", user=" + user + "}";
    }
}
