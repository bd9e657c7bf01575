import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.jdbc.JdbcFencing;
import dev.fencedlock.testkit.net.TcpProxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JDBC benchmark's read-modify-write transaction on PostgreSQL with a network in
 * between: lock-testkit's TcpProxy in front of 127.0.0.1:5432 holds every reply back for the
 * given delay (a round trip then costs about the delay plus the proxy's hand-offs). Modes,
 * interleaved, 5 rounds after a warm-up round: unfenced; unfenced plus one "select 1" (one round
 * trip more, the floor of a guard that is a statement of its own); fenced by JdbcFencing (the
 * guard travels with the first statement). Prints milliseconds per transaction per round and the
 * ratios to unfenced. Run from the repository root after building the benchmarks jar and
 * lock-testkit:
 * java -cp benchmarks/target/benchmarks.jar:lock-testkit/target/lock-testkit-0.1.0-SNAPSHOT.jar \
 *   benchmarks/probes/NetworkProbe.java [delay-ms] [transactions]
 * Creates fencedlock_fence if missing and network_probe_counter (dropped and created) in database test.
 */
public class NetworkProbe {
    public static void main(String[] args) throws Exception {
        long delayMillis = args.length > 0 ? Long.parseLong(args[0]) : 1;
        int transactions = args.length > 1 ? Integer.parseInt(args[1]) : 400;
        try (TcpProxy proxy = TcpProxy.start("127.0.0.1", 5432)) {
            proxy.delayReplies(Duration.ofMillis(delayMillis));
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/test");
            config.setUsername("postgres");
            config.setMaximumPoolSize(2);
            try (HikariDataSource dataSource = new HikariDataSource(config);
                    LockClient locks = LockClient.create(LockConfig.builder().backend("local").build())) {
                try (Connection connection = dataSource.getConnection();
                        Statement statement = connection.createStatement()) {
                    statement.execute("create table if not exists fencedlock_fence"
                            + " (lock_name varchar(256) primary key, token bigint not null)");
                    statement.execute("drop table if exists network_probe_counter");
                    statement.execute("create table network_probe_counter (id bigint primary key, v bigint not null)");
                    statement.execute("insert into network_probe_counter values (1, 0)");
                }
                Lease lease = locks.lock("network-probe").acquire(Duration.ofSeconds(5), Duration.ofHours(1));
                Map<String, List<Double>> millis = new LinkedHashMap<>();
                for (int round = 0; round <= 5; round++) {
                    for (String mode : List.of("unfenced", "round-trip", "fenced")) {
                        long start = System.nanoTime();
                        for (int i = 0; i < transactions; i++) {
                            if (mode.equals("fenced")) {
                                JdbcFencing.inTransaction(dataSource, lease, NetworkProbe::increment);
                            } else {
                                unfenced(dataSource, mode.equals("round-trip"));
                            }
                        }
                        if (round > 0) {
                            millis.computeIfAbsent(mode, m -> new ArrayList<>())
                                    .add((System.nanoTime() - start) / 1e6 / transactions);
                        }
                    }
                }
                lease.close();
                System.out.printf("delay %d ms, %d transactions per mode and round%n", delayMillis, transactions);
                millis.forEach((mode, values) -> {
                    StringBuilder line = new StringBuilder(String.format("%-10s", mode));
                    for (int r = 0; r < values.size(); r++) {
                        line.append(String.format("  %.3f ms (%.2fx)", values.get(r), values.get(r) / millis.get("unfenced").get(r)));
                    }
                    System.out.println(line);
                });
            }
        }
    }

    private static void unfenced(HikariDataSource dataSource, boolean extraRoundTrip) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            if (extraRoundTrip) {
                try (PreparedStatement one = connection.prepareStatement("select 1");
                        ResultSet rows = one.executeQuery()) {
                    rows.next();
                }
            }
            increment(connection);
            connection.commit();
            connection.setAutoCommit(true);
        }
    }

    private static Long increment(Connection connection) throws SQLException {
        long value;
        try (PreparedStatement read = connection.prepareStatement("select v from network_probe_counter where id = ?")) {
            read.setLong(1, 1);
            try (ResultSet rows = read.executeQuery()) {
                rows.next();
                value = rows.getLong(1) + 1;
            }
        }
        try (PreparedStatement write = connection.prepareStatement("update network_probe_counter set v = ? where id = ?")) {
            write.setLong(1, value);
            write.setLong(2, 1);
            write.executeUpdate();
        }
        return value;
    }
}
