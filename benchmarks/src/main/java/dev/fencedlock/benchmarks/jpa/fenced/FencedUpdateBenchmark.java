package dev.fencedlock.benchmarks.jpa.fenced;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.benchmarks.Backends;
import dev.fencedlock.benchmarks.jpa.JpaFixture;
import dev.fencedlock.jpa.Fencing;
import dev.fencedlock.jpa.FencingScope;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The fenced update, beside {@code VersionedUpdateBenchmark}: the same transaction, with the
 * lease bound by {@link Fencing#bind} around it so that {@code FencingListener} stamps the token
 * and the UPDATE carries the fence condition. The lease comes from the in-process {@code local}
 * backend and is held for the whole trial, so only the storage-side cost of fencing is measured,
 * not a lock round trip. The teardown checks that every increment was committed with the token.
 *
 * <p>Hibernate and H2 need several seconds of JIT warm-up before their rate settles (on the 2-core
 * machine it rose fourfold over the first 10 s), hence the longer warm-up than the lock benchmarks.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 3)
@Measurement(iterations = 3, time = 3)
@Threads(1)
@State(Scope.Thread)
public class FencedUpdateBenchmark {
    private static final long ROW = 1;

    @Param({JpaFixture.H2, JpaFixture.POSTGRESQL})
    public String database;

    /** Whether the table is protected by the database's trigger ({@code FencedTables.protect}). */
    @Param({"false", "true"})
    public boolean protectedTable;

    private LockClient locks;
    private Lease lease;
    private JpaFixture fixture;
    private long updates;

    @Setup(Level.Trial)
    public void open() throws InterruptedException {
        locks = Backends.fencedlock(Backends.LOCAL);
        lease = locks.lock("bench-fenced-item").acquire(Duration.ofSeconds(5));
        fixture = JpaFixture.open(database, FencedItem.class);
        if (protectedTable) {
            fixture.protect("bench_fenced_item");
        }
        try (FencingScope scope = Fencing.bind(lease)) {
            fixture.insert(new FencedItem(ROW));
        }
    }

    @TearDown(Level.Trial)
    public void verifyAndClose() {
        try {
            FencedItem row = fixture.read(FencedItem.class, ROW);
            if (row.quantity() != updates || row.fence() != lease.token()) {
                throw new IllegalStateException("after " + updates + " fenced updates with token " + lease.token()
                        + " the row has quantity " + row.quantity() + " and fence " + row.fence());
            }
        } finally {
            fixture.close();
            lease.close();
            locks.close();
        }
    }

    @Benchmark
    public void update() {
        try (FencingScope scope = Fencing.bind(lease)) {
            fixture.update(FencedItem.class, ROW, FencedItem::increment);
        }
        updates++;
    }
}
