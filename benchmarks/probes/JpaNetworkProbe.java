import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.benchmarks.BenchEnv;
import dev.fencedlock.benchmarks.jpa.JpaFixture;
import dev.fencedlock.benchmarks.jpa.VersionedItem;
import dev.fencedlock.benchmarks.jpa.fenced.FencedItem;
import dev.fencedlock.jpa.Fencing;
import dev.fencedlock.jpa.FencingScope;
import dev.fencedlock.testkit.net.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JPA benchmarks' find-change-commit transaction on PostgreSQL with a network in
 * between (lock-testkit's TcpProxy holding every reply back for the given delay), through the
 * benchmarks' own JpaFixture: an entity with {@code @Version} only, and the fenced entity
 * ({@code @Version} and {@code @FencingToken}) with a lease bound, so that fencing-jpa's guard
 * travels with Hibernate's first statement. Interleaved, 5 rounds after a warm-up round; prints
 * milliseconds per transaction and the ratio to {@code @Version}. Run from the repository root
 * after building the benchmarks jar and lock-testkit:
 * java -cp benchmarks/target/benchmarks.jar:lock-testkit/target/lock-testkit-0.1.0-SNAPSHOT.jar \
 *   benchmarks/probes/JpaNetworkProbe.java [delay-ms] [transactions]
 * Drops and creates bench_versioned_item, bench_fenced_item and fencedlock_fence in database test.
 */
public class JpaNetworkProbe {
    public static void main(String[] args) throws Exception {
        long delayMillis = args.length > 0 ? Long.parseLong(args[0]) : 1;
        int transactions = args.length > 1 ? Integer.parseInt(args[1]) : 400;
        try (TcpProxy proxy = TcpProxy.start("127.0.0.1", 5432);
                LockClient locks = LockClient.create(LockConfig.builder().backend("local").build())) {
            proxy.delayReplies(Duration.ofMillis(delayMillis));
            System.setProperty(BenchEnv.POSTGRES_URL, "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/test");
            Lease lease = locks.lock("jpa-network-probe").acquire(Duration.ofSeconds(5), Duration.ofHours(1));
            try (JpaFixture versioned = JpaFixture.open(JpaFixture.POSTGRESQL, VersionedItem.class);
                    JpaFixture fenced = JpaFixture.open(JpaFixture.POSTGRESQL, FencedItem.class)) {
                versioned.insert(new VersionedItem(1));
                try (FencingScope scope = Fencing.bind(lease)) {
                    fenced.insert(new FencedItem(1));
                }
                Map<String, List<Double>> millis = new LinkedHashMap<>();
                for (int round = 0; round <= 5; round++) {
                    for (String mode : List.of("@Version", "fenced")) {
                        long start = System.nanoTime();
                        for (int i = 0; i < transactions; i++) {
                            if (mode.equals("fenced")) {
                                try (FencingScope scope = Fencing.bind(lease)) {
                                    fenced.update(FencedItem.class, 1, FencedItem::increment);
                                }
                            } else {
                                versioned.update(VersionedItem.class, 1, VersionedItem::increment);
                            }
                        }
                        if (round > 0) {
                            millis.computeIfAbsent(mode, m -> new ArrayList<>())
                                    .add((System.nanoTime() - start) / 1e6 / transactions);
                        }
                    }
                }
                long expected = 6L * transactions;
                if (fenced.read(FencedItem.class, 1).quantity() != expected
                        || versioned.read(VersionedItem.class, 1).quantity() != expected) {
                    throw new IllegalStateException("lost updates: expected " + expected + " on both rows");
                }
                System.out.printf("delay %d ms, %d transactions per mode and round%n", delayMillis, transactions);
                millis.forEach((mode, values) -> {
                    StringBuilder line = new StringBuilder(String.format("%-10s", mode));
                    for (int r = 0; r < values.size(); r++) {
                        line.append(String.format("  %.3f ms (%.2fx)", values.get(r),
                                values.get(r) / millis.get("@Version").get(r)));
                    }
                    System.out.println(line);
                });
            } finally {
                lease.close();
            }
        }
    }
}
