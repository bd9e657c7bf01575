package dev.fencedlock.jdbc;

import dev.fencedlock.Lease;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;

/**
 * The holder {@link StalledHolderIT} stops: a JVM of its own that opens a fenced transaction with
 * {@link JdbcFencing}, writes, says so and waits for the test inside its transaction. The test
 * stops it with SIGSTOP there, continues it later and tells it to go on; it then writes again and
 * commits, and reports how that ended.
 *
 * <p>Arguments: JDBC URL, user, password, lock name, token, lease time in milliseconds. Lines on
 * standard output: {@code SESSION <id>}, {@code WROTE}, then {@code COMMITTED} or {@code FAILED
 * <exception class> <SQLState or -> <message>}. Reads {@code GO} from standard input.
 */
public final class StalledHolder {
    private StalledHolder() {}

    public static void main(String[] args) throws Exception {
        String lockName = args[3];
        long token = Long.parseLong(args[4]);
        Duration leaseTime = Duration.ofMillis(Long.parseLong(args[5]));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (Connection connection = DriverManager.getConnection(args[0], args[1], args[2])) {
            Lease lease = FixedLease.expiringAfter(lockName, token, leaseTime);
            System.out.println("SESSION " + LockWaits.sessionId(connection));
            JdbcFencing.inTransaction(connection, lease, c -> {
                write(c, "stalled");
                System.out.println("WROTE");
                String line = readLine(in);
                if (!"GO".equals(line)) {
                    throw new IllegalStateException("expected GO, got " + line);
                }
                return write(c, "stalled-late");
            });
            System.out.println("COMMITTED");
        } catch (Exception e) {
            String state = e instanceof SQLException sql && sql.getSQLState() != null ? sql.getSQLState() : "-";
            System.out.println("FAILED " + e.getClass().getName() + " " + state + " "
                    + String.valueOf(e.getMessage()).replace('\n', ' '));
        }
        System.out.flush();
    }

    /** Sets the row's writer, in the connection's transaction. */
    static int write(Connection connection, String writer) throws SQLException {
        try (PreparedStatement statement =
                connection.prepareStatement("update stalled_write set writer = ? where id = 1")) {
            statement.setString(1, writer);
            return statement.executeUpdate();
        }
    }

    private static String readLine(BufferedReader in) throws SQLException {
        try {
            return in.readLine();
        } catch (java.io.IOException e) {
            throw new SQLException("cannot read from the test", e);
        }
    }
}
