package dev.fencedlock.benchmarks.jpa;

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
 * The anchor for the fenced update: one transaction that loads a row and increments it, the row
 * carrying a plain {@code @Version} column. The teardown checks that every increment was committed.
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
public class VersionedUpdateBenchmark {
    private static final long ROW = 1;

    @Param({JpaFixture.H2, JpaFixture.POSTGRESQL})
    public String database;

    private JpaFixture fixture;
    private long updates;

    @Setup(Level.Trial)
    public void open() {
        fixture = JpaFixture.open(database, VersionedItem.class);
        fixture.insert(new VersionedItem(ROW));
    }

    @TearDown(Level.Trial)
    public void verifyAndClose() {
        try {
            long committed = fixture.read(VersionedItem.class, ROW).quantity();
            if (committed != updates) {
                throw new IllegalStateException("lost updates: " + updates + " committed, row says " + committed);
            }
        } finally {
            fixture.close();
        }
    }

    @Benchmark
    public void update() {
        fixture.update(VersionedItem.class, ROW, VersionedItem::increment);
        updates++;
    }
}
