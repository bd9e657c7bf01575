import com.zaxxer.hikari.*;
import dev.fencedlock.*;
import dev.fencedlock.jdbc.JdbcFencing;
import java.sql.*;
import java.time.Duration;
import java.util.*;

/**
 * The JDBC benchmark's read-modify-write transaction on PostgreSQL, fenced by
 * JdbcFencing and unfenced, on a HikariCP pool of two (a connection per transaction, or one held:
 * "-held"), 6,000 transactions per mode, modes interleaved, 4 rounds after one warm-up round.
 * Prints per mode: wall time per transaction, the client thread's CPU (ThreadMXBean) and the two
 * pool backends' CPU (/proc/PID/stat, so run it on the database's host as root) per transaction.
 * Run from the repository root after building the benchmarks jar:
 * java -cp benchmarks/target/benchmarks.jar benchmarks/probes/JdbcProbe.java
 * Creates fencedlock_fence if missing and probe3_counter (dropped and created) in database test.
 */
public class JdbcProbe {
    static long serverCpuTotal(String pids) throws Exception { long t = 0; for (String p : pids.split(",")) { String[] f = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/" + p + "/stat")).split("\\) ")[1].split(" "); t += Long.parseLong(f[11]) + Long.parseLong(f[12]); } return t; }
    public static void main(String[] a) throws Exception {
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl("jdbc:postgresql://127.0.0.1:5432/test"); cfg.setUsername("postgres"); cfg.setMaximumPoolSize(2); cfg.setMinimumIdle(2);
        HikariDataSource ds = new HikariDataSource(cfg);
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("create table if not exists fencedlock_fence (lock_name varchar(256) primary key, token bigint not null)");
            s.execute("drop table if exists probe3_counter");
            s.execute("create table probe3_counter (id bigint primary key, v bigint not null)");
            s.execute("insert into probe3_counter values (1, 0)");
        }
        Thread.sleep(500);
        StringBuilder pids = new StringBuilder();
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("select string_agg(pid::text, ',') from pg_stat_activity where datname = 'test' and usename = 'postgres' and application_name = 'PostgreSQL JDBC Driver'")) { rs.next(); pids.append(rs.getString(1)); }
        System.out.println("backends " + pids);
        LockClient locks = LockClient.create(LockConfig.builder().backend("local").build());
        Lease lease = locks.lock("probe3").acquire(Duration.ofSeconds(5), Duration.ofHours(1));
        var mx = java.lang.management.ManagementFactory.getThreadMXBean();
        int n = 6000;
        Map<String, List<String>> out = new TreeMap<>();
        for (int round = 0; round < 5; round++) {
            for (String mode : new String[] {"unfenced", "fenced", "fenced-held", "unfenced-held"}) {
                long t0 = System.nanoTime(), c0 = mx.getCurrentThreadCpuTime(), s0 = serverCpuTotal(pids.toString());
                Connection held = ds.getConnection();
                for (int i = 0; i < n; i++) {
                    if (mode.equals("fenced-held")) {
                        JdbcFencing.inTransaction(held, lease, JdbcProbe::increment);
                    } else if (mode.equals("unfenced-held")) {
                        held.setAutoCommit(false); increment(held); held.commit(); held.setAutoCommit(true);
                    } else if (mode.equals("fenced")) {
                        JdbcFencing.inTransaction(ds, lease, JdbcProbe::increment);
                    } else {
                        try (Connection c = ds.getConnection()) {
                            c.setAutoCommit(false);
                            increment(c);
                            c.commit();
                            c.setAutoCommit(true);
                        }
                    }
                }
                held.close();
                if (round > 0) out.computeIfAbsent(mode, k -> new ArrayList<>()).add(((System.nanoTime() - t0) / n / 1000) + "us cli=" + ((mx.getCurrentThreadCpuTime() - c0) / n / 1000) + " srv=" + ((serverCpuTotal(pids.toString()) - s0) * 10_000 / n));
            }
        }
        out.forEach((k, v) -> System.out.println(k + " " + v));
        lease.close(); locks.close(); ds.close();
    }
    static Long increment(Connection connection) throws SQLException {
        long value;
        try (PreparedStatement read = connection.prepareStatement("select v from probe3_counter where id = ?")) {
            read.setLong(1, 1);
            try (ResultSet rows = read.executeQuery()) { rows.next(); value = rows.getLong(1) + 1; }
        }
        try (PreparedStatement write = connection.prepareStatement("update probe3_counter set v = ? where id = ?")) {
            write.setLong(1, value); write.setLong(2, 1); write.executeUpdate();
        }
        return value;
    }
}
