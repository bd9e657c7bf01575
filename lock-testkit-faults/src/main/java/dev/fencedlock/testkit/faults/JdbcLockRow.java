package dev.fencedlock.testkit.faults;

import dev.fencedlock.jdbcprovider.JdbcLockSettings;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HexFormat;

/**
 * The {@code jdbc} backend: clears the holder value in the lock's row of the lock table, as a
 * release would. The row is not deleted: it carries the lock's last token, and the next grant's
 * token must be larger than the stale holder's ({@code max(now << 16, token + 1)} on the row).
 */
final class JdbcLockRow implements GrantRemover {
    private final JdbcLockSettings settings;

    JdbcLockRow(JdbcLockSettings settings) {
        this.settings = settings;
    }

    @Override
    public void remove(String lockName) {
        // the table name is validated by JdbcLockSettings, so it may be spliced into the statement
        String sql = "UPDATE " + settings.table() + " SET holder = NULL WHERE lock_key = ? AND holder IS NOT NULL";
        try (Connection connection = connect();
                PreparedStatement clear = connection.prepareStatement(sql)) {
            if (!connection.getAutoCommit()) {
                connection.setAutoCommit(true);
            }
            clear.setString(1, rowKey(lockName));
            if (clear.executeUpdate() == 0) {
                throw GrantRemover.notHeld(lockName, "in the lock table " + settings.table());
            }
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "The database failed to take lock '" + lockName + "' away in " + settings.table() + ": " + e, e);
        }
    }

    private Connection connect() throws SQLException {
        if (settings.dataSource().isPresent()) {
            return settings.dataSource().get().getConnection();
        }
        String url = settings.url()
                .orElseThrow(() -> new IllegalStateException("The jdbc settings name no database: " + settings));
        return DriverManager.getConnection(
                url, settings.user().orElse(null), settings.password().orElse(null));
    }

    /** The lock table's key of a name: the lower-case hex SHA-256 of its UTF-8 bytes (see the table's migration). */
    private static String rowKey(String lockName) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(lockName.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
