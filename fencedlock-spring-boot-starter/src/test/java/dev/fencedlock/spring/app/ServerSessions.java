package dev.fencedlock.spring.app;

import dev.fencedlock.testkit.await.Await;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Waits, inside a fenced transaction, until the database server has ended that transaction's
 * session: what a holder stalled past its lease plus the guard's idle bound finds when it wakes.
 * PostgreSQL ({@code pg_stat_activity}) and MariaDB ({@code information_schema.processlist}).
 */
public final class ServerSessions {
    private ServerSessions() {}

    /**
     * Reads the session id of {@code sameTransaction}'s connection, then polls on a connection of
     * its own from {@code dataSource} until that session is gone.
     */
    public static void awaitEnded(JdbcTemplate sameTransaction, DataSource dataSource) throws InterruptedException {
        boolean postgres = isPostgres(dataSource);
        Long session = sameTransaction.queryForObject(
                postgres ? "select pg_backend_pid()" : "select connection_id()", Long.class);
        String alive = postgres
                ? "select count(*) from pg_stat_activity where pid = ?"
                : "select count(*) from information_schema.processlist where id = ?";
        Await.until(
                "the server ended session " + session,
                Duration.ofSeconds(30),
                () -> count(dataSource, alive, session) == 0);
    }

    private static boolean isPostgres(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection()) {
            return connection
                    .getMetaData()
                    .getDatabaseProductName()
                    .toLowerCase()
                    .contains("postgres");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static long count(DataSource dataSource, String sql, long session) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setLong(1, session);
            try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
